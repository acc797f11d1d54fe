//! The `action` interface through `dispatch`, as Juju runs an action
//! (juju-protocol.md §1.2–§1.6, §2.12): `JUJU_DISPATCH_PATH=actions/<name>`,
//! `JUJU_ACTION_NAME`, `JUJU_ACTION_UUID`, an empty `JUJU_HOOK_NAME`, and the
//! fake's action tools (`action-get` answering the state's `action-params`,
//! `action-set`, `action-fail`, `action-log`).
//!
//! `examples/backup` shows an action as a charm writes one: parameters,
//! progress, results, a refusal and an error. `tests/guests/action-modes`
//! makes every call, right and wrong, and fails every way.

use crate::support;

use serde_json::{Value, json};
use std::process::Output;
use support::{Unit, assert_failure, assert_success, offline_run, packed};

const MODES: &str = "tests/guests/action-modes";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Run action `name` (Juju's id `id`) with `params`, as Juju does: the
/// fake's `action-params`, its results and failure of an earlier run
/// forgotten.
fn run_action(unit: &Unit, name: &str, id: &str, params: Value) -> Output {
    unit.update_state(|s| {
        s["action-params"] = params;
        s["action-results"] = json!({});
        s["action-failed"] = Value::Null;
    });
    unit.clear_calls();
    unit.clear_debug_log();
    unit.dispatch_with(
        &format!("actions/{name}"),
        &[("JUJU_ACTION_NAME", name), ("JUJU_ACTION_UUID", id)],
    )
}

fn store_bytes(unit: &Unit) -> Vec<u8> {
    std::fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).expect("read scopes.json")
}

fn store(unit: &Unit) -> Value {
    serde_json::from_slice(&store_bytes(unit)).expect("scopes.json is JSON")
}

/// The tools called, in order, without their arguments.
fn tools_called(unit: &Unit) -> Vec<String> {
    unit.calls().into_iter().map(|c| c[0].clone()).collect()
}

fn args(call: &[&str]) -> Vec<String> {
    call.iter().map(|a| a.to_string()).collect()
}

/// The progress messages of the last dispatch, as the fake logs them.
fn progress(unit: &Unit) -> Vec<String> {
    unit.debug_log()
        .lines()
        .filter_map(|l| l.strip_prefix("ACTION "))
        .map(str::to_string)
        .collect()
}

// ------------------------------------------------------------ the example

/// A unit of the backup example serving `users` and `orders`, installed:
/// active "Ready for backups".
fn backup_unit() -> Unit {
    let unit = Unit::on_simulator(&packed("examples/backup"), "backup/0");
    unit.update_state(|s| s["config"] = json!({"databases": "users,orders"}));
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "active", "message": "Ready for backups"})
    );
    unit
}

#[test]
fn the_backup_action_runs_as_juju_runs_it_with_progress_and_nested_results() {
    let unit = backup_unit();
    let out = run_action(&unit, "backup", "7", json!({"target": "/srv/backups/"}));
    assert_success(&out);

    // The parameters, read once, with the schema's defaults (the fake, unlike
    // Juju, fills in none): compress=true, level=6.
    assert_eq!(
        unit.calls_of("action-get"),
        vec![args(&["action-get", "--format=json"])]
    );
    assert_eq!(
        progress(&unit),
        [
            "Backing up 2 databases to /srv/backups (gzip-6)",
            "users (1/2)",
            "orders (2/2)",
            "Backup b-7 done",
        ]
    );
    let state = unit.state();
    assert_eq!(
        state["action-results"],
        json!({
            "databases.users": "/srv/backups/b-7/users.sql.gz",
            "databases.orders": "/srv/backups/b-7/orders.sql.gz",
            "backup.id": "b-7",
            "backup.target": "/srv/backups",
            "backup.compression": "gzip-6",
        })
    );
    assert_eq!(state["action-failed"], Value::Null);
    assert!(unit.calls_of("action-fail").is_empty());
    // Each progress message and result went to Juju at its call.
    assert_eq!(
        tools_called(&unit)
            .into_iter()
            .filter(|t| t.starts_with("action-"))
            .collect::<Vec<_>>(),
        [
            "action-get",
            "action-log",
            "action-log",
            "action-set",
            "action-log",
            "action-set",
            "action-set",
            "action-log",
        ]
    );

    // The handler's return value set no scope; the scope it set is kept,
    // and the unit says when the last backup ran.
    let store = store(&unit);
    assert!(store["unit"].get("handler/backup").is_none(), "{store:#}");
    assert_eq!(store["unit"]["last-backup"]["current"]["status"], "active");
    assert_eq!(
        state["status"]["unit"],
        json!({"status": "active", "message": "Last backup b-7 to /srv/backups"})
    );

    // Parameters given override the defaults.
    let out = run_action(
        &unit,
        "backup",
        "8",
        json!({"target": "s3://bucket/db", "compress": false, "databases": ["orders"]}),
    );
    assert_success(&out);
    assert_eq!(
        unit.state()["action-results"],
        json!({
            "databases.orders": "s3://bucket/db/b-8/orders.sql",
            "backup.id": "b-8",
            "backup.target": "s3://bucket/db",
            "backup.compression": "none",
        })
    );
}

#[test]
fn a_request_the_action_refuses_fails_it_with_the_message_and_the_hook_succeeds() {
    let unit = backup_unit();
    let before = store_bytes(&unit);
    for (params, message) in [
        (
            json!({"target": "backups"}),
            "target `backups` is neither an absolute path nor an s3:// URL",
        ),
        (
            json!({"target": "/srv", "level": 12}),
            "level 12 is not a gzip level (1 to 9)",
        ),
    ] {
        let out = run_action(&unit, "backup", "9", params);
        assert_success(&out);
        let state = unit.state();
        assert_eq!(state["action-failed"], message);
        assert_eq!(
            unit.calls_of("action-fail"),
            vec![args(&["action-fail", "--", message])]
        );
        assert_eq!(state["action-results"], json!({}));
        assert!(progress(&unit).is_empty());
        // Nothing changed: no status written, the store as it was.
        assert!(unit.calls_of("status-set").is_empty());
        assert_eq!(store_bytes(&unit), before);
    }
}

#[test]
fn a_handler_error_fails_the_action_with_its_message_and_keeps_nothing() {
    let unit = backup_unit();
    assert_success(&run_action(&unit, "backup", "1", json!({"target": "/srv"})));
    let before = store_bytes(&unit);

    let out = run_action(
        &unit,
        "backup",
        "2",
        json!({"target": "/srv", "databases": ["users", "nope"]}),
    );
    assert_success(&out);
    let message = "database `nope` is not served by this unit (config `databases`: users, orders)";
    assert_eq!(unit.state()["action-failed"], message);
    assert_eq!(
        unit.calls_of("action-fail"),
        vec![args(&["action-fail", "--", message])]
    );
    assert!(
        unit.debug_log().contains(&format!(
            "ERROR action backup failed: handler `backup` returned an error: {message}; nothing this event stored is kept"
        )),
        "{}",
        unit.debug_log()
    );
    assert_eq!(store_bytes(&unit), before);
    assert!(unit.calls_of("status-set").is_empty());
}

#[test]
fn a_result_key_juju_refuses_is_refused_naming_it_and_earlier_results_stay() {
    let unit = backup_unit();
    unit.update_state(|s| s["config"]["databases"] = json!("users,user_db"));
    let before = store_bytes(&unit);
    let out = run_action(&unit, "backup", "3", json!({"target": "/srv"}));
    assert_success(&out);
    let state = unit.state();
    let failed = state["action-failed"].as_str().expect("the action failed");
    assert!(
        failed.starts_with(
            "invalid argument: action-set not run: result key `databases.user_db`: segment `user_db` must be lowercase letters, digits and inner dashes"
        ),
        "{failed}"
    );
    // The key never reached the tool; the result before it stays, as Juju
    // keeps an action's results whatever happens next.
    assert_eq!(
        unit.calls_of("action-set"),
        vec![args(&[
            "action-set",
            "databases.users=/srv/b-3/users.sql.gz"
        ])]
    );
    assert_eq!(
        state["action-results"],
        json!({"databases.users": "/srv/b-3/users.sql.gz"})
    );
    assert_eq!(store_bytes(&unit), before, "no last-backup scope");
}

#[test]
fn parameters_that_do_not_fit_the_schema_fail_the_action_naming_the_parameter() {
    let unit = backup_unit();
    for (params, why) in [
        (
            json!({"target": 3}),
            "parameter `target` is an integer (3), but actions.yaml declares it string",
        ),
        (
            json!({"compress": true}),
            "parameter `target` is required (actions.yaml) and was not given",
        ),
        (
            json!({"target": "/srv", "level": "high"}),
            "parameter `level` is a string (\"high\"), but actions.yaml declares it integer",
        ),
        (
            json!({"target": "/srv", "retention": 3}),
            "parameter `retention` is not declared in actions.yaml, which allows no others (additionalProperties: false)",
        ),
    ] {
        assert_success(&run_action(&unit, "backup", "4", params));
        assert_eq!(
            unit.state()["action-failed"],
            format!("invalid action parameters: action `backup`: {why}")
        );
        assert!(unit.calls_of("action-set").is_empty());
    }
}

#[test]
fn the_backup_action_offline_prints_its_progress_results_and_failure() {
    let charm = packed("examples/backup");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("state.yaml");
    let run = |flags: &[&str]| {
        let out = offline_run(&charm, &state, flags);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr(&out),
        )
    };
    let (code, _, err) = run(&["--event", "install"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = run(&[
        "--event",
        "actions/backup",
        "--param",
        "target=/srv",
        "--param",
        "compress=false",
    ]);
    assert_eq!(code, Some(0), "{err}");
    for line in [
        "  handler backup: returned (an action sets no scope)\n",
        "result backup.compression: none\n",
        "result databases.users: /srv/b-1/users.sql\n",
        "log: ACTION Backing up 2 databases to /srv (none)\n",
        "log: ACTION Backup b-1 done\n",
        "unit: active \"Last backup b-1 to /srv\" (status-set)\n",
    ] {
        assert!(out.contains(line), "no {line:?} in:\n{out}");
    }
    let (code, out, _) = run(&["--event", "actions/backup", "--param", "target=rel"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("action failed: target `rel` is neither an absolute path nor an s3:// URL\n"),
        "{out}"
    );
    // Juju refuses to run an action whose parameters do not fit its schema.
    let (code, _, err) = run(&["--event", "actions/backup", "--param", "level=3"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--param: action `backup`: the parameters: missing properties 'target'"),
        "{err}"
    );
    // The whole schema, as Juju reads it: no undeclared parameter, and
    // every keyword checked (`minimum`, `maximum` of `level`).
    let (code, _, err) = run(&[
        "--event",
        "actions/backup",
        "--param",
        "target=/srv",
        "--param",
        "levle=3",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("additionalProperties 'levle' not allowed"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "--event",
        "actions/backup",
        "--param",
        "target=/srv",
        "--param",
        "level=12",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--param: action `backup`: parameter `level`: must be <=9, but got 12"),
        "{err}"
    );
}

// ------------------------------------------------------------ every call

fn modes_unit() -> Unit {
    let unit = Unit::on_simulator(&packed(MODES), "action-modes/0");
    assert_success(&unit.dispatch("install"));
    unit
}

fn exercise(unit: &Unit, mode: &str) -> Output {
    run_action(unit, "exercise", "5", json!({"mode": mode}))
}

#[test]
fn outside_an_action_every_call_is_an_error_value_and_runs_no_tool() {
    let unit = Unit::on_simulator(&packed(MODES), "action-modes/0");
    assert_success(&unit.dispatch("install"));
    let log = unit.debug_log();
    for call in ["params", "set-results", "fail", "log"] {
        let line = format!(
            "INFO outside {call}: not in an action: action.{call}: the event is install, not an action: only an action has parameters, results and progress messages"
        );
        assert!(log.contains(&line), "no {line:?} in:\n{log}");
    }
    assert!(
        !tools_called(&unit).iter().any(|t| t.starts_with("action-")),
        "{:?}",
        unit.calls()
    );
}

#[test]
fn results_go_to_action_set_with_their_dotted_keys_and_replace_earlier_ones() {
    let unit = modes_unit();
    assert_success(&exercise(&unit, "results"));
    assert_eq!(
        unit.calls_of("action-set"),
        vec![
            args(&["action-set", "a.b=1", "a.c=two", "empty="]),
            args(&["action-set", "a.b=replaced"]),
        ]
    );
    assert_eq!(
        unit.calls_of("action-log"),
        vec![args(&["action-log", "--", "setting results"])]
    );
    assert_eq!(
        unit.state()["action-results"],
        json!({"a.b": "replaced", "a.c": "two", "empty": ""})
    );
}

#[test]
fn results_juju_would_refuse_are_refused_at_the_call_naming_the_key() {
    let unit = modes_unit();
    for (mode, error) in [
        (
            "bad-key",
            "invalid argument: action-set not run: result key `Bad_Key`: segment `Bad_Key` must be lowercase letters, digits and inner dashes",
        ),
        (
            "reserved",
            "invalid argument: action-set not run: result key `out.stderr`: `stderr` is reserved by Juju",
        ),
        (
            "nested",
            "invalid argument: action-set not run: result `a.b` is under result `a` of the same call",
        ),
        (
            "nul",
            "invalid argument: action-set not run: result `a`: the value contains a NUL character",
        ),
        (
            "too-long",
            "invalid argument: action-set not run: result `dump`: `dump=<value>` is 131077 bytes, over the 131071 bytes of one argv element",
        ),
        (
            "long-log",
            "invalid argument: action-log: the message is 131072 bytes, over the 131071 bytes of one argv element",
        ),
    ] {
        assert_success(&exercise(&unit, mode));
        let results = unit.state()["action-results"].clone();
        let got = results["error"].as_str().unwrap_or_default();
        assert!(got.starts_with(error), "{mode}: {got}");
        // Only the call that records the error reached the tool.
        assert_eq!(unit.calls_of("action-set").len(), 1, "{mode}");
        assert!(unit.calls_of("action-log").is_empty(), "{mode}");
        assert_eq!(results.as_object().map(|r| r.len()), Some(1), "{mode}");
    }
}

#[test]
fn results_past_one_calls_argv_go_in_several_calls_and_are_bounded_per_event() {
    let unit = modes_unit();
    assert_success(&run_action(
        &unit,
        "exercise",
        "6",
        json!({"mode": "big", "count": 9}),
    ));
    let calls = unit.calls_of("action-set");
    assert_eq!(
        calls.iter().map(|c| c.len() - 1).collect::<Vec<_>>(),
        [5, 4],
        "elements per call"
    );
    let results = unit.state()["action-results"].clone();
    assert_eq!(results.as_object().map(|r| r.len()), Some(9));
    assert_eq!(results["part-8"].as_str().map(str::len), Some(100 * 1024));

    assert_success(&run_action(
        &unit,
        "exercise",
        "7",
        json!({"mode": "big", "count": 11}),
    ));
    let results = unit.state()["action-results"].clone();
    assert!(
        results["error"]
            .as_str()
            .unwrap_or_default()
            .contains("over the limit of 1048576 (MAX_RESULT_BYTES_PER_EVENT)"),
        "{results}"
    );
}

#[test]
fn params_are_checked_given_their_defaults_and_passed_as_juju_gives_them() {
    let unit = modes_unit();
    // `count` is required by the guest's type and defaulted by the schema.
    assert_success(&exercise(&unit, "results"));
    assert_eq!(unit.state()["action-failed"], Value::Null);
    // An action whose schema allows any parameter takes what Juju gives.
    let params = json!({"nested": {"list": [1, "two"], "flag": true}, "n": 1.5});
    assert_success(&run_action(&unit, "untyped", "8", params.clone()));
    let sent = unit.state()["action-results"]["params"].clone();
    let sent: Value = serde_json::from_str(sent.as_str().expect("a string")).expect("JSON");
    assert_eq!(sent, params);
}

#[test]
fn a_status_returned_by_an_action_is_ignored_and_a_scope_it_sets_is_kept() {
    let unit = modes_unit();
    assert_success(&exercise(&unit, "status"));
    let store = store(&unit);
    assert!(store["unit"].get("handler/exercise").is_none(), "{store:#}");
    assert_eq!(
        store["unit"]["kept"]["current"]["message"],
        "kept by the action"
    );
    assert_eq!(
        unit.calls_of("status-set"),
        vec![args(&["status-set", "active", "--", "kept by the action"])]
    );
    assert!(
        unit.debug_log().contains(
            "WARNING handler `exercise` returned \"returned by an action\" during action exercise: an action leaves no unit status, so it is ignored"
        ),
        "{}",
        unit.debug_log()
    );
}

#[test]
fn action_fail_fails_the_action_and_keeps_the_handlers_writes() {
    let unit = modes_unit();
    assert_success(&exercise(&unit, "fail"));
    assert_eq!(unit.state()["action-failed"], "refused politely");
    assert_eq!(
        unit.calls_of("action-fail"),
        vec![args(&["action-fail", "--", "refused politely"])]
    );
    let kept = store(&unit);
    assert_eq!(
        kept["unit"]["kept"]["current"]["message"],
        "kept by the action"
    );
    assert!(!kept["data"]["kept"].is_null(), "{kept:#}");

    // An empty message gives Juju's default.
    assert_success(&exercise(&unit, "fail-default"));
    assert_eq!(unit.calls_of("action-fail"), vec![args(&["action-fail"])]);
    assert_eq!(
        unit.state()["action-failed"],
        "action failed without reason given, check action for errors"
    );
}

#[test]
fn an_error_fails_the_action_even_with_on_error_fail_and_keeps_nothing_but_the_results() {
    let unit = modes_unit();
    let before = store_bytes(&unit);
    let out = exercise(&unit, "err");
    // A failing action never fails the hook: `on-error: fail` is for hooks.
    assert_success(&out);
    let state = unit.state();
    assert_eq!(state["action-failed"], "deliberate failure");
    assert_eq!(state["action-results"], json!({"partial": "yes"}));
    assert_eq!(
        store_bytes(&unit),
        before,
        "the scope and the data written before failing"
    );
    assert!(unit.calls_of("status-set").is_empty());
    assert!(
        unit.debug_log().contains(
            "ERROR action exercise failed: handler `exercise` returned an error: deliberate failure; nothing this event stored is kept"
        ),
        "{}",
        unit.debug_log()
    );
}

#[test]
fn a_trap_fails_the_action_with_the_reason_and_keeps_nothing() {
    let unit = modes_unit();
    let before = store_bytes(&unit);
    let out = exercise(&unit, "panic");
    assert_success(&out);
    let failed = unit.state()["action-failed"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        failed.starts_with("handler `exercise` panicked or aborted; its stderr ends with: "),
        "{failed}"
    );
    assert!(failed.contains("deliberate panic"), "{failed}");
    assert_eq!(store_bytes(&unit), before);
    assert!(unit.calls_of("status-set").is_empty());
}

#[test]
fn a_failing_tool_fails_the_action_naming_it_and_its_exit_code() {
    let unit = modes_unit();
    for (tool, code, message) in [
        ("action-get", 2, "option provided but not defined: --format"),
        ("action-log", 1, "not running an action"),
        (
            "action-set",
            2,
            "key \"done\" must start and end with lowercase alphanumeric",
        ),
    ] {
        unit.update_state(|s| {
            s["fail"] = json!({tool: {"code": code, "stderr": format!("ERROR {message}")}})
        });
        assert_success(&exercise(&unit, "log-then-results"));
        assert_eq!(
            unit.state()["action-failed"],
            format!("{tool} failed (exit {code}): {message}"),
            "{tool}"
        );
    }
}

#[test]
fn when_no_action_runs_for_juju_the_hook_fails_naming_action_fail() {
    let unit = modes_unit();
    unit.update_state(|s| s["action-params"] = json!({"mode": "results"}));
    // Juju's tools find no action (the variable they read is not set):
    // every action tool says so, exit 1, action-fail included.
    let mut cmd = unit.dispatch_command("actions/exercise", &[("JUJU_ACTION_UUID", "9")]);
    cmd.env_remove("JUJU_ACTION_NAME");
    let context = support::context_id(&cmd).expect("a context id");
    let out = cmd.output().expect("run dispatch");
    let _ = unit.end_hook(&context, out.status.success());
    assert_failure(&out);
    assert!(
        stderr(&out).contains(
            "action exercise could not be failed: action-fail exited with code 1: not running an action"
        ),
        "{}",
        stderr(&out)
    );
}
