//! The `action` interface against hook tools that answer from a table:
//! every call, every refusal before a tool runs, and every tool failure.

use super::*;
use crate::bindings::ActionEvent;
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::{Calls, ToolTable};
use std::path::Path;

const ACTIONS: &str = "\
backup:
  params:
    target: {type: string}
    compress: {type: boolean, default: true}
  required: [target]
";

fn action_event(name: &str) -> Event {
    Event::Action(ActionEvent {
        name: name.into(),
        id: "7".into(),
    })
}

fn action_with(event: &Event, answers: &[(&'static str, ToolOutput)]) -> (Action, Calls) {
    let (tools, calls) = ToolTable::new(answers);
    let actions = Actions::parse(ACTIONS, Path::new("actions.yaml")).unwrap();
    let described = crate::event::describe(event);
    (
        Action::new(Arc::new(tools), event, &described, &actions),
        calls,
    )
}

/// The `backup` action, its tools answering `params` and succeeding.
fn backup(params: &str) -> (Action, Calls) {
    action_with(
        &action_event("backup"),
        &[
            ("action-get", ToolOutput::ok(params)),
            ("action-set", ToolOutput::ok("")),
            ("action-fail", ToolOutput::ok("")),
            ("action-log", ToolOutput::ok("")),
        ],
    )
}

/// Each call: tool and arguments.
fn calls_of(calls: &Calls) -> Vec<(String, Vec<String>)> {
    calls
        .lock()
        .unwrap()
        .iter()
        .map(|(tool, args, _)| (tool.clone(), args.clone()))
        .collect()
}

fn call(tool: &str, args: &[&str]) -> (String, Vec<String>) {
    (
        tool.to_string(),
        args.iter().map(|a| a.to_string()).collect(),
    )
}

fn invalid(e: ActionError) -> String {
    match e {
        ActionError::InvalidArgument(m) => m,
        other => panic!("not an invalid argument: {other:?}"),
    }
}

fn results(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn outside_an_action_every_call_is_refused_and_runs_nothing() {
    let (mut a, calls) = action_with(&Event::ConfigChanged, &[]);
    let not_in = |e: ActionError| match e {
        ActionError::NotInAction(m) => m,
        other => panic!("{other:?}"),
    };
    let e = not_in(a.params().unwrap_err());
    assert_eq!(
        e,
        "action.params: the event is config-changed, not an action: only an action has parameters, results and progress messages"
    );
    let e = not_in(a.set_results(results(&[("a", "1")])).unwrap_err());
    assert!(
        e.starts_with("action.set-results: the event is config-changed"),
        "{e}"
    );
    assert!(not_in(a.fail("x".into()).unwrap_err()).starts_with("action.fail: "));
    assert!(not_in(a.log("x".into()).unwrap_err()).starts_with("action.log: "));
    assert!(calls_of(&calls).is_empty());
    assert_eq!(a.failed(), None);

    let mut declaring = Action::outside("no event runs while the component declares its handlers");
    let e = not_in(declaring.params().unwrap_err());
    assert_eq!(
        e,
        "action.params: no event runs while the component declares its handlers: only an action has parameters, results and progress messages"
    );
}

#[test]
fn params_are_read_once_checked_and_given_their_defaults() {
    let (mut a, calls) = backup(r#"{"target":"/srv/backups"}"#);
    let want = r#"{"compress":true,"target":"/srv/backups"}"#;
    assert_eq!(a.params().unwrap(), want);
    assert_eq!(a.params().unwrap(), want);
    assert_eq!(
        calls_of(&calls),
        vec![call("action-get", &["--format=json"])]
    );
}

#[test]
fn params_that_do_not_fit_the_schema_are_an_error_naming_the_parameter() {
    let (mut a, calls) = backup(r#"{"target":3}"#);
    let e = a.params().unwrap_err();
    assert_eq!(
        e,
        ActionError::InvalidParams(
            "action `backup`: parameter `target` is an integer (3), but actions.yaml declares it string".into()
        )
    );
    // The answer is kept for the event, error and all.
    assert_eq!(a.params().unwrap_err(), e);
    assert_eq!(calls_of(&calls).len(), 1);

    let (mut a, _) = backup("{}");
    assert!(matches!(
        a.params().unwrap_err(),
        ActionError::InvalidParams(m) if m.contains("`target` is required")
    ));
    // An action actions.yaml gives no schema takes what Juju gives.
    let (mut a, _) = action_with(
        &action_event("other"),
        &[("action-get", ToolOutput::ok(r#"{"x":[1]}"#))],
    );
    assert_eq!(a.params().unwrap(), r#"{"x":[1]}"#);
}

#[test]
fn action_get_failures_name_the_tool() {
    let (mut a, _) = action_with(
        &action_event("backup"),
        &[("action-get", ToolOutput::error(1, "not running an action"))],
    );
    let e = a.params().unwrap_err();
    assert_eq!(
        e,
        ActionError::ToolFailed(ToolFailure {
            tool: "action-get".into(),
            exit_code: 1,
            message: "not running an action".into(),
        })
    );
    assert_eq!(
        describe_error(&e),
        "action-get exited with code 1: not running an action"
    );

    let (mut a, _) = backup("target: x\n");
    let e = a.params().unwrap_err();
    let ActionError::ToolFailed(f) = &e else {
        panic!("{e:?}")
    };
    assert_eq!((f.tool.as_str(), f.exit_code), ("action-get", 0));
    assert!(
        f.message
            .starts_with("action-get answered something that is not JSON"),
        "{}",
        f.message
    );
    assert!(describe_error(&e).starts_with("action-get answered"));
}

#[test]
fn results_are_sent_with_their_dotted_keys() {
    let (mut a, calls) = backup("{}");
    a.set_results(results(&[
        ("backup.id", "b-1"),
        ("backup.size", "10G"),
        ("empty", ""),
    ]))
    .unwrap();
    a.set_results(Vec::new()).unwrap();
    assert_eq!(
        calls_of(&calls),
        vec![call(
            "action-set",
            &["backup.id=b-1", "backup.size=10G", "empty="]
        )]
    );
}

#[test]
fn results_juju_would_refuse_are_refused_naming_the_key_before_the_tool_runs() {
    let (mut a, calls) = backup("{}");
    let mut refused = |items: &[(&str, &str)]| invalid(a.set_results(results(items)).unwrap_err());
    let e = refused(&[("ok", "1"), ("Backup_Size", "1")]);
    assert!(
        e.starts_with(
            "action-set not run: result key `Backup_Size`: segment `Backup_Size` must be"
        ),
        "{e}"
    );
    let e = refused(&[("out.stdout", "1")]);
    assert!(
        e.contains("result key `out.stdout`: `stdout` is reserved by Juju"),
        "{e}"
    );
    let e = refused(&[("a", "x\0y")]);
    assert!(e.contains("result `a`") && e.contains("NUL"), "{e}");
    let e = refused(&[("a", "1"), ("a.b", "2")]);
    assert!(e.contains("result `a.b` is under result `a`"), "{e}");
    let e = refused(&[("dump", &"x".repeat(MAX_ARG_ELEMENT))]);
    assert!(
        e.starts_with("action-set not run: result `dump`: `dump=<value>` is 131076 bytes, over the 131071 bytes of one argv element"),
        "{e}"
    );
    assert!(calls_of(&calls).is_empty(), "{:?}", calls_of(&calls));
}

#[test]
fn results_past_one_calls_argv_go_in_several_calls() {
    let (mut a, calls) = backup("{}");
    let big = "v".repeat(MAX_ARG_ELEMENT - "part-0=".len());
    let parts: Vec<(String, String)> = (0..5).map(|i| (format!("part-{i}"), big.clone())).collect();
    a.set_results(parts).unwrap();
    let sent = calls_of(&calls);
    assert_eq!(
        sent.iter().map(|(_, args)| args.len()).collect::<Vec<_>>(),
        vec![4, 1]
    );
    assert!(sent.iter().all(|(tool, _)| tool == "action-set"));
}

#[test]
fn results_are_bounded_per_event() {
    let (mut a, calls) = backup("{}");
    let value = "v".repeat(100 * 1024);
    for i in 0..10 {
        a.set_results(vec![(format!("r{i}"), value.clone())])
            .unwrap();
    }
    let e = invalid(
        a.set_results(vec![("one-more".into(), value.clone())])
            .unwrap_err(),
    );
    assert!(
        e.contains("over the limit of 1048576 (MAX_RESULT_BYTES_PER_EVENT)"),
        "{e}"
    );
    assert_eq!(calls_of(&calls).len(), 10);
    // Room is left for a small one.
    a.set_results(results(&[("done", "yes")])).unwrap();
}

#[test]
fn a_failing_action_set_is_a_tool_failure_with_its_exit_code() {
    let (mut a, _) = action_with(
        &action_event("backup"),
        &[(
            "action-set",
            ToolOutput::error(
                2,
                "key \"x\" must start and end with lowercase alphanumeric",
            ),
        )],
    );
    let e = a.set_results(results(&[("x", "1")])).unwrap_err();
    assert_eq!(
        describe_error(&e),
        "action-set exited with code 2: key \"x\" must start and end with lowercase alphanumeric"
    );
}

#[test]
fn fail_sends_the_message_or_juju_default() {
    let (mut a, calls) = backup("{}");
    a.fail("target /etc is not writable".into()).unwrap();
    assert_eq!(a.failed(), Some("target /etc is not writable"));
    a.fail("-starts with a dash".into()).unwrap();
    a.fail(String::new()).unwrap();
    assert_eq!(a.failed(), Some(DEFAULT_FAIL_MESSAGE));
    assert_eq!(
        calls_of(&calls),
        vec![
            call("action-fail", &["--", "target /etc is not writable"]),
            call("action-fail", &["--", "-starts with a dash"]),
            call("action-fail", &[]),
        ]
    );
    let e = invalid(a.fail("a\0b".into()).unwrap_err());
    assert_eq!(
        e,
        "action-fail: the message contains a NUL character, which argv cannot carry; remove it"
    );
    let e = invalid(a.fail("m".repeat(MAX_ARG_ELEMENT + 1)).unwrap_err());
    assert!(e.contains("131072 bytes, over the 131071 bytes"), "{e}");
    assert_eq!(calls_of(&calls).len(), 3);
    assert_eq!(a.failed(), Some(DEFAULT_FAIL_MESSAGE));
}

#[test]
fn a_failing_action_fail_is_a_tool_failure_and_fails_nothing() {
    let (mut a, _) = action_with(
        &action_event("backup"),
        &[("action-fail", ToolOutput::error(1, "not running an action"))],
    );
    let e = a.fail("x".into()).unwrap_err();
    assert_eq!(
        describe_error(&e),
        "action-fail exited with code 1: not running an action"
    );
    assert_eq!(a.failed(), None);
    let e = a.fail_for_host("handler `x` panicked").unwrap_err();
    assert_eq!(e, "action-fail exited with code 1: not running an action");
    assert_eq!(a.failed(), None);
}

#[test]
fn the_host_fails_an_action_with_any_reason_argv_can_carry() {
    let (mut a, calls) = backup("{}");
    a.fail_for_host("bad\0reason").unwrap();
    assert_eq!(a.failed(), Some("bad\u{FFFD}reason"));
    let long = "é".repeat(MAX_ARG_ELEMENT);
    a.fail_for_host(&long).unwrap();
    let sent = calls_of(&calls);
    assert_eq!(sent[0], call("action-fail", &["--", "bad\u{FFFD}reason"]));
    assert!(sent[1].1[1].len() <= MAX_ARG_ELEMENT);
    assert!(sent[1].1[1].len() > MAX_ARG_ELEMENT - 2);
}

#[test]
fn progress_messages_are_sent_at_once_and_bounded_per_event() {
    let (mut a, calls) = backup("{}");
    a.log("Backing up 2 databases".into()).unwrap();
    assert_eq!(
        calls_of(&calls),
        vec![call("action-log", &["--", "Backing up 2 databases"])]
    );
    let e = invalid(a.log("a\0b".into()).unwrap_err());
    assert!(
        e.starts_with("action-log: the message contains a NUL"),
        "{e}"
    );
    let e = invalid(a.log("m".repeat(MAX_ARG_ELEMENT + 1)).unwrap_err());
    assert!(
        e.starts_with("action-log: the message is 131072 bytes"),
        "{e}"
    );
    for _ in 1..MAX_ACTION_LOGS_PER_EVENT {
        a.log("step".into()).unwrap();
    }
    let e = invalid(a.log("one more".into()).unwrap_err());
    assert!(
        e.contains("500 progress messages in this event, the limit (MAX_ACTION_LOGS_PER_EVENT)"),
        "{e}"
    );
    assert_eq!(calls_of(&calls).len(), MAX_ACTION_LOGS_PER_EVENT);

    let (mut a, _) = backup("{}");
    let chunk = "m".repeat(100 * 1024);
    for _ in 0..10 {
        a.log(chunk.clone()).unwrap();
    }
    let e = invalid(a.log(chunk).unwrap_err());
    assert!(e.contains("(MAX_ACTION_LOG_BYTES_PER_EVENT)"), "{e}");
}

#[test]
fn tool_calls_are_bounded_per_event() {
    let (mut a, calls) = backup("{}");
    for i in 0..MAX_ACTION_TOOL_CALLS_PER_EVENT {
        a.set_results(vec![(format!("k{i}"), "v".into())]).unwrap();
    }
    let e = invalid(a.fail("x".into()).unwrap_err());
    assert_eq!(
        e,
        "action-fail not run: the charm made 1000 action-tool calls in this event, the limit (MAX_ACTION_TOOL_CALLS_PER_EVENT)"
    );
    assert_eq!(calls_of(&calls).len(), MAX_ACTION_TOOL_CALLS_PER_EVENT);
    // The host's own failure of the action is never refused.
    a.fail_for_host("handler `x` panicked").unwrap();
}
