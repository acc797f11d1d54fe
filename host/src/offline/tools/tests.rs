//! The tools of the simulated Juju answering as Juju does, and the
//! fixture every tool test shares.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use super::actions::DEFAULT_ACTION_FAIL;
use crate::hook_tools::{HookTools, ToolOutput};
use crate::offline::sim::{ScriptedProbe, SimRelation, SimState, SimStorage, SimTools};
use crate::status::merge::{Kind, Written};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

pub(in crate::offline) fn tools(state: SimState) -> SimTools {
    SimTools {
        state: Arc::new(Mutex::new(state)),
        defaults: [("kind".to_string(), serde_json::json!(""))].into(),
        unit: "gw/0".into(),
        action: None,
        departing: None,
        relation: None,
        remote_unit: None,
        remote_app: None,
        storage: None,
        model_uuid: crate::offline::sim::MODEL_UUID.into(),
        declared_storage: [
            ("data".to_string(), "filesystem".to_string()),
            ("disks".into(), "block".into()),
        ]
        .into(),
        bindings: ["db".to_string(), "peer".into(), "admin".into()].into(),
        state_dir: "/nonexistent".into(),
        // 2026-11-29T16:22:16Z
        now: 1_795_969_336,
    }
}

pub(in crate::offline) fn far() -> std::time::Instant {
    std::time::Instant::now() + std::time::Duration::from_secs(3600)
}

pub(in crate::offline) fn call(t: &mut SimTools, tool: &str, args: &[&str]) -> ToolOutput {
    t.call(tool, args, None, far()).unwrap()
}

#[test]
fn ports_and_storage_answer_like_juju() {
    let mut state = SimState::default();
    state.model.storage.insert(
        "data/0".into(),
        SimStorage {
            kind: "filesystem".into(),
            location: "/srv/data".into(),
        },
    );
    let mut t = tools(state);
    assert_eq!(call(&mut t, "open-port", &["80"]).code, 0);
    assert_eq!(
        call(&mut t, "open-port", &["--endpoints", "db", "8000-8100/UDP"]).code,
        0
    );
    assert_eq!(call(&mut t, "open-port", &["0"]).code, 2);
    assert_eq!(
        call(&mut t, "opened-ports", &["--format=json", "--endpoints"]).stdout,
        b"[\"80/tcp (*)\",\"8000-8100/udp (db)\"]\n"
    );
    assert_eq!(call(&mut t, "close-port", &["80/tcp"]).code, 0);
    assert_eq!(
        call(&mut t, "opened-ports", &["--format=json"]).stdout,
        b"[\"8000-8100/udp\"]\n"
    );
    assert_eq!(
        call(&mut t, "storage-list", &["--format=json", "--", "data"]).stdout,
        b"[\"data/0\"]\n"
    );
    assert_eq!(
        call(&mut t, "storage-get", &["--format=json", "-s", "data/0"]).stdout,
        b"{\"kind\":\"filesystem\",\"location\":\"/srv/data\"}\n"
    );
    let missing = call(&mut t, "storage-get", &["--format=json", "-s", "data/9"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("not found"), "{}", missing.stderr);
}

#[test]
fn answers_like_juju() {
    let mut state = SimState::default();
    state.model.relations.insert(
        "db:3".into(),
        SimRelation {
            app: "pg".into(),
            units: vec!["pg/1".into(), "pg/0".into()],
            app_data: [("k".to_string(), "v".to_string())].into(),
            ..SimRelation::default()
        },
    );
    let mut t = tools(state);
    assert_eq!(
        call(&mut t, "config-get", &["--format=json"]).stdout,
        b"{\"kind\":\"\"}\n"
    );
    assert_eq!(
        call(&mut t, "is-leader", &["--format=json"]).stdout,
        b"true\n"
    );
    assert_eq!(
        call(&mut t, "relation-ids", &["--format=json", "db"]).stdout,
        b"[\"db:3\"]\n"
    );
    assert_eq!(
        call(&mut t, "relation-list", &["--format=json", "-r", "db:3"]).stdout,
        b"[\"pg/0\",\"pg/1\"]\n"
    );
    assert_eq!(
        call(
            &mut t,
            "relation-get",
            &["--format=json", "-r", "3", "--app", "-", "pg"]
        )
        .stdout,
        b"{\"k\":\"v\"}\n"
    );
    let bad = call(&mut t, "relation-list", &["--format=json", "-r", "db:9"]);
    assert_eq!(bad.code, 2);
    assert_eq!(
        bad.stderr,
        "ERROR invalid value \"db:9\" for option -r: relation not found\n"
    );
    let bad = call(&mut t, "status-set", &["error", "--", "x"]);
    assert_eq!(bad.code, 2);
    assert_eq!(call(&mut t, "status-set", &["blocked", "--", "-x"]).code, 0);
    assert_eq!(
        t.state.lock().unwrap().model.status.unit,
        Some(Written {
            status: Kind::Blocked,
            message: "-x".into()
        })
    );
    assert_eq!(call(&mut t, "status-get", &["--bogus"]).code, 2);
    assert_eq!(call(&mut t, "is-leader", &["--bogus"]).code, 2);
}

#[test]
fn status_get_reads_back_what_status_set_wrote_as_juju_shows_it() {
    let mut t = tools(SimState::default());
    let text = |o: &ToolOutput| String::from_utf8_lossy(&o.stdout).into_owned();
    let full = ["--include-data", "--format=json"];
    let got = call(&mut t, "status-get", &full);
    assert_eq!(
        text(&got),
        "{\"message\":\"\",\"status\":\"unknown\",\"status-data\":{}}\n"
    );
    assert_eq!(call(&mut t, "status-set", &["waiting", "--", "db"]).code, 0);
    assert_eq!(text(&call(&mut t, "status-get", &[])), "waiting\n");
    assert_eq!(
        text(&call(&mut t, "status-get", &["--format=json"])),
        "{\"status\":\"waiting\"}\n"
    );
    t.state.lock().unwrap().model.leader = true;
    let app = call(
        &mut t,
        "status-get",
        &["--application", "--include-data", "--format=json"],
    );
    let doc: serde_json::Value = serde_json::from_slice(&app.stdout).unwrap();
    assert_eq!(doc["application-status"]["status"], "unknown");
    assert_eq!(
        doc["application-status"]["units"][t.unit.as_str()]["message"],
        "db"
    );
    t.state.lock().unwrap().model.leader = false;
    let refused = call(&mut t, "status-get", &["--application"]);
    assert_eq!(refused.code, 1);
    assert!(text(&refused).is_empty());
}

#[test]
fn action_set_checks_keys_like_juju_and_stores_results() {
    let mut t = tools(SimState::default());
    let results = |t: &SimTools| t.state.lock().unwrap().last_event.action_results.clone();
    // In a hook: a run-time error, after the arguments were checked.
    let out = call(&mut t, "action-set", &["a=1"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "ERROR not running an action\n");
    assert_eq!(call(&mut t, "action-set", &["A=1"]).code, 2);

    t.action = Some("show-status".into());
    let bad_key = |k: &str| {
        format!(
            "key \"{k}\" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric, hyphens and periods"
        )
    };
    for (arg, error) in [
        (
            "noequals",
            "argument \"noequals\" must be of the form key...=value".to_string(),
        ),
        (
            "-foo=1",
            "option provided but not defined: -foo".to_string(),
        ),
        ("foo-=1", bad_key("foo-")),
        ("-=1", "option provided but not defined: -".to_string()),
        ("Foo=1", bad_key("Foo")),
        ("foo!bar=1", bad_key("foo!bar")),
        ("foo..bar=1", bad_key("")),
        (".foo=1", bad_key("")),
        ("foo.=1", bad_key("")),
        ("=1", bad_key("")),
        (
            "stdout=1",
            "cannot set reserved action key \"stdout\"".to_string(),
        ),
        (
            "a.stderr=1",
            "cannot set reserved action key \"stderr\"".to_string(),
        ),
        (
            "stdout-encoding=1",
            "cannot set reserved action key \"stdout-encoding\"".to_string(),
        ),
        (
            "stderr-encoding.x=1",
            "cannot set reserved action key \"stderr-encoding\"".to_string(),
        ),
    ] {
        let out = call(&mut t, "action-set", &["ok=1", arg]);
        assert_eq!(out.code, 2, "{arg}");
        assert_eq!(out.stderr, format!("ERROR {error}\n"), "{arg}");
        assert!(
            results(&t).is_empty(),
            "{arg}: nothing is set when any argument is bad"
        );
    }

    // Values are everything after the first `=`, multi-line and empty included.
    let out = call(
        &mut t,
        "action-set",
        &[
            "a=b=c",
            "x-y.z0=hello world",
            "e=",
            "500=1",
            "5-o-0=two\nlines",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Results accumulate across calls; a key set again takes the new value.
    assert_eq!(call(&mut t, "action-set", &["a=again"]).code, 0);
    assert_eq!(call(&mut t, "action-set", &[]).code, 0);
    let want = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        results(&t),
        want(&[
            ("5-o-0", "two\nlines"),
            ("500", "1"),
            ("a", "again"),
            ("e", ""),
            ("x-y.z0", "hello world"),
        ])
    );
    // Juju nests dotted keys: a value replaces what was under it, and a
    // nested key replaces a value at its parent.
    assert_eq!(call(&mut t, "action-set", &["x-y=flat", "a.b=1"]).code, 0);
    assert_eq!(results(&t)["x-y"], "flat");
    assert!(!results(&t).contains_key("x-y.z0"));
    assert_eq!(results(&t)["a.b"], "1");
    assert!(!results(&t).contains_key("a"));
}

#[test]
fn action_fail_takes_at_most_one_message_and_needs_an_action_like_juju() {
    let mut t = tools(SimState::default());
    let failed = |t: &SimTools| t.state.lock().unwrap().last_event.action_failed.clone();
    // Arguments are checked first (exit 2), then that an action runs
    // (exit 1).
    let out = call(&mut t, "action-fail", &["--", "a", "b", "c d"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "ERROR unrecognized args: [\"b\" \"c d\"]\n");
    let out = call(&mut t, "action-fail", &["--bogus"]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "ERROR option provided but not defined: --bogus\n"
    );
    let out = call(&mut t, "action-fail", &["--", "why"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "ERROR not running an action\n");
    assert_eq!(failed(&t), None);

    t.action = Some("self-check".into());
    let out = call(&mut t, "action-fail", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, b"");
    assert_eq!(failed(&t).as_deref(), Some(DEFAULT_ACTION_FAIL));
    assert_eq!(
        DEFAULT_ACTION_FAIL,
        "action failed without reason given, check action for errors"
    );
    // A later call replaces the message; `--` lets it start with `-`.
    assert_eq!(
        call(&mut t, "action-fail", &["--", "-1 of 2 unhealthy"]).code,
        0
    );
    assert_eq!(failed(&t).as_deref(), Some("-1 of 2 unhealthy"));
    assert_eq!(call(&mut t, "action-fail", &["plain"]).code, 0);
    assert_eq!(failed(&t).as_deref(), Some("plain"));
    // Results and the failure are kept apart, as Juju keeps them.
    assert!(t.state.lock().unwrap().last_event.action_results.is_empty());
    assert_eq!(
        t.state.lock().unwrap().last_event.calls,
        [
            "action-fail -- a b 'c d'  → exit 2",
            "action-fail --bogus  → exit 2",
            "action-fail -- why  → exit 1",
            "action-fail",
            "action-fail -- '-1 of 2 unhealthy'",
            "action-fail plain",
        ]
    );
}

#[test]
fn scripted_probes_are_read_and_written_back() {
    let text = "probes:\n  api-port: {healthy: false, detail: \"port 127.0.0.1:8774 not listening\"}\n  \
                web: {healthy: true}\n";
    let state: SimState = serde_saphyr::from_str(text).unwrap();
    assert_eq!(
        state.scripts.probes,
        [
            (
                "api-port".to_string(),
                ScriptedProbe {
                    healthy: false,
                    waiting: false,
                    detail: Some("port 127.0.0.1:8774 not listening".into())
                }
            ),
            (
                "web".to_string(),
                ScriptedProbe {
                    healthy: true,
                    waiting: false,
                    detail: None
                }
            ),
        ]
        .into()
    );
    let again: SimState =
        serde_saphyr::from_str(&serde_saphyr::to_string(&state).unwrap()).unwrap();
    assert_eq!(again, state);
    // A typo in a scripted outcome is refused, not ignored.
    let e = serde_saphyr::from_str::<SimState>("probes:\n  web: {healty: true}\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("healty"), "{e}");
    // Neither section is written when empty.
    let empty = serde_saphyr::to_string(&SimState::default()).unwrap();
    assert!(!empty.contains("probes"), "{empty}");
    assert!(!empty.contains("action-failed"), "{empty}");
}

#[test]
fn departing_unit_is_not_listed_but_its_data_is_readable() {
    let mut state = SimState::default();
    state.model.relations.insert(
        "db:1".into(),
        SimRelation {
            app: "pg".into(),
            units: vec!["pg/0".into(), "pg/1".into()],
            unit_data: [(
                "pg/1".to_string(),
                [("k".to_string(), "v".to_string())].into(),
            )]
            .into(),
            ..SimRelation::default()
        },
    );
    let mut t = tools(state);
    t.departing = Some(("db:1".into(), "pg/1".into()));
    assert_eq!(
        call(&mut t, "relation-list", &["--format=json", "-r", "1"]).stdout,
        b"[\"pg/0\"]\n"
    );
    assert_eq!(
        call(
            &mut t,
            "relation-get",
            &["--format=json", "-r", "1", "-", "pg/1"]
        )
        .stdout,
        b"{\"k\":\"v\"}\n"
    );
}

#[test]
fn relation_set_reads_stdin_and_deletes_empty() {
    let mut state = SimState::default();
    state
        .model
        .relations
        .insert("db:1".into(), SimRelation::default());
    state
        .model
        .relations
        .get_mut("db:1")
        .unwrap()
        .local_unit_data
        .insert("old".into(), "1".into());
    let t = tools(state);
    let out = t
        .call(
            "relation-set",
            &["-r", "db:1", "--file", "-"],
            Some(br#"{"old":"","new":"2"}"#),
            far(),
        )
        .unwrap();
    assert_eq!(out.code, 0);
    let s = t.state.lock().unwrap();
    assert_eq!(
        s.model.relations["db:1"].local_unit_data,
        [("new".to_string(), "2".to_string())].into()
    );
}

#[test]
fn action_get_answers_the_params_whole_or_by_dotted_path() {
    let params = serde_json::json!({"target": "/srv", "opts": {"level": 3}});
    let mut state = SimState::default();
    state.last_event.action_params = params.as_object().cloned().unwrap_or_default();
    let mut t = tools(state);
    let out = call(&mut t, "action-get", &["--format=json"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "ERROR not running an action\n")
    );
    assert_eq!(call(&mut t, "action-get", &["a", "b"]).code, 2);

    t.action = Some("backup".into());
    let get = |t: &mut SimTools, args: &[&str]| {
        let out = call(t, "action-get", args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        get(&mut t, &["--format=json"]),
        "{\"opts\":{\"level\":3},\"target\":\"/srv\"}\n"
    );
    assert_eq!(get(&mut t, &["--format=json", "opts.level"]), "3\n");
    assert_eq!(get(&mut t, &["--format=json", "opts.nope"]), "null\n");
    let out = call(&mut t, "action-get", &["--format=json", "a", "b"]);
    assert_eq!(out.stderr, "ERROR unrecognized args: [\"b\"]\n");
}

#[test]
fn action_log_keeps_each_progress_message_at_once() {
    let mut t = tools(SimState::default());
    assert_eq!(call(&mut t, "action-log", &["--", "x"]).code, 1);
    t.action = Some("backup".into());
    let out = call(&mut t, "action-log", &[]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "ERROR no message specified\n")
    );
    assert_eq!(call(&mut t, "action-log", &["--", "-1 of", "2"]).code, 0);
    assert_eq!(t.state.lock().unwrap().last_event.log, ["ACTION -1 of 2"]);
}

#[test]
fn a_non_leader_reads_its_own_apps_bag_only_in_a_peer_relation() {
    let mut state = SimState::default();
    state.model.leader = false;
    let bag = |k: &str| [(k.to_string(), "v".to_string())].into();
    state.model.relations.insert(
        "db:1".into(),
        SimRelation {
            app: "pg".into(),
            local_app_data: bag("shared"),
            ..SimRelation::default()
        },
    );
    state.model.relations.insert(
        "peer:2".into(),
        SimRelation {
            app: "gw".into(),
            local_app_data: bag("p"),
            ..SimRelation::default()
        },
    );
    let mut t = tools(state);
    let args = ["--format=json", "-r", "db:1", "--app", "-", "gw"];
    let out = call(&mut t, "relation-get", &args);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "ERROR permission denied\n")
    );
    let args = ["--format=json", "-r", "peer:2", "--app", "-", "gw"];
    let out = call(&mut t, "relation-get", &args);
    assert_eq!((out.code, out.stdout), (0, b"{\"p\":\"v\"}\n".to_vec()));
    t.state.lock().unwrap().model.leader = true;
    let args = ["--format=json", "-r", "db:1", "--app", "-", "gw"];
    let out = call(&mut t, "relation-get", &args);
    assert_eq!(
        (out.code, out.stdout),
        (0, b"{\"shared\":\"v\"}\n".to_vec())
    );
    // Nobody else's bag is readable.
    let out = call(&mut t, "relation-get", &["-r", "db:1", "-", "other/0"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "ERROR permission denied\n")
    );
}

#[test]
fn a_scripted_failure_answers_instead_of_the_tool_and_is_recorded() {
    let state: SimState = serde_saphyr::from_str(
        "fail:\n  relation-get: {code: 2, stderr: 'ERROR permission denied'}\n  is-leader: {}\n",
    )
    .unwrap();
    let mut t = tools(state);
    let out = call(&mut t, "relation-get", &["-r", "db:1"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "ERROR permission denied\n")
    );
    let out = call(&mut t, "is-leader", &[]);
    assert_eq!(
        (out.code, out.stdout, out.stderr.as_str()),
        (1, Vec::new(), "")
    );
    let calls = t.state.lock().unwrap().last_event.calls.clone();
    assert_eq!(
        calls,
        ["relation-get -r db:1  → exit 2", "is-leader  → exit 1"]
    );
}

#[test]
fn juju_log_takes_jujus_levels_in_any_case_and_warns_of_others_at_info() {
    let mut t = tools(SimState::default());
    for (level, message) in [
        ("debug", "a"),
        ("Warn", "b"),
        ("FOO", "c"),
        ("unspecified", "dropped"),
        ("critical", "d"),
    ] {
        let out = call(&mut t, "juju-log", &["-l", level, "--", message]);
        assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{level}");
    }
    assert_eq!(call(&mut t, "juju-log", &["-l", "INFO"]).code, 2);
    // A relation hook's records start with the relation, as Juju's do.
    t.relation = Some("db:1".into());
    assert_eq!(call(&mut t, "juju-log", &["--", "joined"]).code, 0);
    let log = t.state.lock().unwrap().last_event.log.clone();
    assert_eq!(
        log,
        [
            "DEBUG a",
            "WARNING b",
            "WARNING Specified log level of \"FOO\" is not valid",
            "INFO c",
            "CRITICAL d",
            "INFO db:1: joined",
        ]
    );
}
