//! The model as a guest and the host call it, against hook tools answering
//! from a table: the cache, the per-handler writes, the bounds and the log.

use super::budget::{
    MAX_APPLICATION_VERSION, MAX_GUEST_TOOL_CALLS_PER_EVENT, MAX_LOG_ARG,
    MAX_LOG_MESSAGES_PER_EVENT, MAX_RELATION_BYTES_PER_EVENT,
};
use super::{Identity, Model, describe_error};
use crate::bindings::RelationRef;
use crate::bindings::model::{
    ConfigOption, ConfigValue, Databag, Host, LocalBag, LogLevel, ModelError,
};
use crate::charm_dir::{ConfigSchema, ConfigType};
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::{Calls, ToolTable};
use std::sync::Arc;

fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
    let (tools, calls) = ToolTable::new(answers);
    let mut schema = ConfigSchema::default();
    schema.options.insert("port".into(), ConfigType::Int);
    schema.options.insert("ratio".into(), ConfigType::Float);
    let identity = Identity {
        unit: "gw/0".into(),
        app: "gw".into(),
        model: "m".into(),
        juju: None,
    };
    (Model::new(Arc::new(tools), schema, identity), calls)
}

fn rel(id: u32) -> RelationRef {
    RelationRef {
        endpoint: "db".into(),
        id,
    }
}

#[test]
fn reads_are_cached_for_the_event() {
    let (mut m, calls) = model(&[
        ("is-leader", ToolOutput::ok("true\n")),
        (
            "config-get",
            ToolOutput::ok(r#"{"port": 80, "ratio": 1, "name": "x", "gone": null}"#),
        ),
    ]);
    assert!(m.is_leader().unwrap());
    assert!(m.is_leader().unwrap());
    let config = m.config().unwrap();
    assert_eq!(m.config().unwrap(), config);
    // Typed by config.yaml: an integral JSON number for a float option is a float.
    assert_eq!(
        config,
        vec![
            ConfigOption {
                name: "name".into(),
                value: ConfigValue::String("x".into())
            },
            ConfigOption {
                name: "port".into(),
                value: ConfigValue::Int(80)
            },
            ConfigOption {
                name: "ratio".into(),
                value: ConfigValue::Float(1.0)
            },
        ]
    );
    assert_eq!(calls.lock().unwrap().len(), 2);
}

#[test]
fn relation_writes_follow_the_handler_and_go_out_once_per_bag() {
    let (mut m, calls) = model(&[
        ("relation-get", ToolOutput::ok(r#"{"a": "1", "b": "2"}"#)),
        ("relation-set", ToolOutput::ok("")),
        ("is-leader", ToolOutput::ok("false")),
        ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
    ]);
    // A trapped handler's writes vanish.
    m.relation_set(rel(1), LocalBag::Unit, vec![("x".into(), "lost".into())])
        .unwrap();
    m.abort_handler();
    // A returned handler's writes are visible to the next one at once.
    m.relation_set(
        rel(1),
        LocalBag::Unit,
        vec![("a".into(), "".into()), ("c".into(), "3".into())],
    )
    .unwrap();
    m.commit_handler();
    m.relation_set(rel(1), LocalBag::Unit, vec![("d".into(), "4".into())])
        .unwrap();
    m.commit_handler();
    let bag = m.relation_get(rel(1), Databag::LocalUnit).unwrap();
    assert_eq!(
        bag,
        vec![
            ("b".into(), "2".into()),
            ("c".into(), "3".into()),
            ("d".into(), "4".into())
        ]
    );
    // The app bag needs leadership.
    assert!(matches!(
        m.relation_set(rel(1), LocalBag::App, vec![("k".into(), "v".into())]),
        Err(ModelError::NotLeader(_))
    ));
    m.flush().unwrap();
    let calls = calls.lock().unwrap();
    let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].1, ["-r", "db:1", "--file", "-"]);
    assert_eq!(sets[0].2.as_deref(), Some(r#"{"a":"","c":"3","d":"4"}"#));
}

#[test]
fn tool_failures_become_typed_errors() {
    let (mut m, _) = model(&[
        (
            "relation-list",
            ToolOutput::error(
                2,
                "invalid value \"db:9\" for option -r: relation not found",
            ),
        ),
        ("relation-ids", ToolOutput::ok("[\"db:1\", \"nonsense\"]")),
        ("config-get", ToolOutput::ok(r#"{"port": "eighty"}"#)),
        ("is-leader", ToolOutput::ok("maybe")),
    ]);
    assert!(matches!(
        m.relation_units(rel(9)),
        Err(ModelError::RelationNotFound(_))
    ));
    let e = describe_error(&m.relation_ids("db".into()).unwrap_err());
    assert!(e.contains("`nonsense` is not `<endpoint>:<id>`"), "{e}");
    let e = describe_error(&m.config().unwrap_err());
    assert!(
        e.contains("option `port` is declared int in config.yaml"),
        "{e}"
    );
    let e = describe_error(&m.is_leader().unwrap_err());
    assert!(
        e.contains("is-leader answered something that is not the expected JSON"),
        "{e}"
    );
    assert!(matches!(
        m.relation_set(rel(1), LocalBag::Unit, vec![("".into(), "v".into())]),
        Err(ModelError::InvalidArgument(_))
    ));
}

fn tool_calls(calls: &Calls, tool: &str) -> Vec<Vec<String>> {
    let calls = calls.lock().unwrap();
    calls
        .iter()
        .filter(|c| c.0 == tool)
        .map(|c| c.1.clone())
        .collect()
}

#[test]
fn log_of_nul_is_carried_by_argv() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    Host::log(&mut m, LogLevel::Info, "guest \0 text".into());
    Model::log(&mut m, LogLevel::Error, "host quoting \0 guest");
    assert_eq!(
        tool_calls(&calls, "juju-log"),
        [
            ["--log-level", "INFO", "--", "guest \u{FFFD} text"],
            ["--log-level", "ERROR", "--", "host quoting \u{FFFD} guest"],
        ]
    );
}

#[test]
fn a_log_message_is_cut_to_one_argv_element() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    Model::log(&mut m, LogLevel::Info, &"é".repeat(MAX_LOG_ARG));
    let logs = tool_calls(&calls, "juju-log");
    assert!(logs[0][3].len() <= MAX_LOG_ARG && logs[0][3].len() > MAX_LOG_ARG - 2);
}

#[test]
fn guest_logs_are_bounded_per_event_and_the_drop_reported_once() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    for i in 0..MAX_LOG_MESSAGES_PER_EVENT + 7 {
        Host::log(&mut m, LogLevel::Debug, format!("line {i}"));
    }
    // The host's own messages are never dropped.
    Model::log(&mut m, LogLevel::Error, "host error");
    m.report_dropped_logs();
    m.report_dropped_logs();
    let logs = tool_calls(&calls, "juju-log");
    assert_eq!(logs.len(), MAX_LOG_MESSAGES_PER_EVENT + 2);
    assert_eq!(logs[MAX_LOG_MESSAGES_PER_EVENT - 1][3], "line 499");
    assert_eq!(logs[MAX_LOG_MESSAGES_PER_EVENT][3], "host error");
    let report = &logs[MAX_LOG_MESSAGES_PER_EVENT + 1];
    assert_eq!(report[1], "WARNING");
    assert!(
        report[3].contains("7 messages (")
            && report[3].contains("500 messages per event (MAX_LOG_MESSAGES_PER_EVENT)"),
        "{}",
        report[3]
    );
}

#[test]
fn guest_log_bytes_are_bounded_per_event() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    let big = "x".repeat(100 << 10);
    for _ in 0..12 {
        Host::log(&mut m, LogLevel::Info, big.clone());
    }
    // Once dropping, a small message is dropped too: no holes.
    Host::log(&mut m, LogLevel::Info, "small".into());
    m.report_dropped_logs();
    let logs = tool_calls(&calls, "juju-log");
    assert_eq!(logs.len(), 10 + 1);
    let report = &logs[10][3];
    assert!(
        report.contains(&format!("3 messages ({} bytes)", 2 * big.len() + 5))
            && report.contains("MAX_LOG_BYTES_PER_EVENT"),
        "{report}"
    );
    // Nothing dropped: nothing reported.
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    Host::log(&mut m, LogLevel::Info, "one".into());
    m.report_dropped_logs();
    assert_eq!(tool_calls(&calls, "juju-log").len(), 1);
}

#[test]
fn guest_tool_calls_are_bounded_per_event_but_not_the_hosts() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    // Failed reads are not cached: each runs the tool.
    for _ in 0..MAX_GUEST_TOOL_CALLS_PER_EVENT {
        assert!(matches!(m.config(), Err(ModelError::ToolFailed(_))));
    }
    let e = describe_error(&m.config().unwrap_err());
    assert!(
        e.contains("config-get not run")
            && e.contains("1000 hook-tool calls")
            && e.contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
        "{e}"
    );
    Host::log(&mut m, LogLevel::Info, "dropped".into());
    assert_eq!(
        tool_calls(&calls, "config-get").len(),
        MAX_GUEST_TOOL_CALLS_PER_EVENT
    );
    // The host still runs its tools, and says what was dropped.
    assert!(matches!(m.leader(), Err(ModelError::ToolFailed(_))));
    Model::log(&mut m, LogLevel::Error, "host");
    m.report_dropped_logs();
    assert_eq!(tool_calls(&calls, "is-leader").len(), 1);
    let logs = tool_calls(&calls, "juju-log");
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs[1][3].contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
        "{}",
        logs[1][3]
    );
}

#[test]
fn pending_relation_data_is_bounded_per_event() {
    let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
    // Each write of `half` under a one-byte key: 3 bytes short of half.
    let half = "v".repeat(MAX_RELATION_BYTES_PER_EVENT / 2 - 4);
    m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
        .unwrap();
    m.commit_handler();
    // Another handler, another relation: the event's total counts.
    m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), half.clone())])
        .unwrap();
    let e = m
        .relation_set(
            rel(2),
            LocalBag::Unit,
            vec![("c".into(), "too much".into())],
        )
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(m) if m.contains("MAX_RELATION_BYTES_PER_EVENT") && m.contains("db:2")),
        "{e:?}"
    );
    // Replacing a key already pending (this handler's or a kept one) is
    // not growth.
    m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), "small".into())])
        .unwrap();
    m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
        .unwrap();
    m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half.clone())])
        .unwrap();
    assert!(
        m.relation_set(rel(2), LocalBag::Unit, vec![("d".into(), "xx".into())])
            .is_err()
    );
    // A trapped handler's writes free their room.
    m.abort_handler();
    m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half)])
        .unwrap();
}

#[test]
fn remote_unit_names_are_checked_before_relation_get() {
    let (mut m, calls) = model(&[("relation-get", ToolOutput::ok(r#"{"k":"v"}"#))]);
    for bad in ["pg/01", "pg/0\0x", "-r", "pg"] {
        let e = m
            .relation_get(rel(1), Databag::RemoteUnit(bad.into()))
            .unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg) if msg.contains(&format!("`{}`", bad.escape_debug()))),
            "{e:?}"
        );
    }
    assert!(tool_calls(&calls, "relation-get").is_empty());
    m.relation_get(rel(1), Databag::RemoteUnit("pg/0".into()))
        .unwrap();
    m.relation_get(rel(1), Databag::LocalApp).unwrap();
    assert_eq!(
        tool_calls(&calls, "relation-get"),
        [
            vec!["--format=json", "-r", "db:1", "--", "-", "pg/0"],
            vec!["--format=json", "-r", "db:1", "--app", "--", "-", "gw"],
        ]
    );
}

#[test]
fn endpoints_are_checked_against_the_charms() {
    let (mut m, calls) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1"]"#))]);
    // Before the endpoints are known: only what argv cannot carry.
    let e = m.relation_ids("d\0b".into()).unwrap_err();
    assert!(matches!(e, ModelError::InvalidArgument(_)), "{e:?}");
    m.set_endpoints(["db".to_string()].into());
    for bad in ["", "cache", "-x", "db:1"] {
        let e = m.relation_ids(bad.into()).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg)
                if msg.contains(&format!("`{bad}` is not one of this charm's")) && msg.contains("`db`")),
            "{e:?}"
        );
    }
    let other = RelationRef {
        endpoint: "cache".into(),
        id: 1,
    };
    assert!(matches!(
        m.relation_units(other.clone()),
        Err(ModelError::InvalidArgument(_))
    ));
    assert!(matches!(
        m.relation_set(other, LocalBag::Unit, vec![("k".into(), "v".into())]),
        Err(ModelError::InvalidArgument(_))
    ));
    assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(1)]);
    assert_eq!(
        tool_calls(&calls, "relation-ids"),
        [["--format=json", "--", "db"]]
    );
}

#[test]
fn application_version_refuses_what_juju_cannot_carry() {
    let (mut m, calls) = model(&[("application-version-set", ToolOutput::ok(""))]);
    let e = m.application_version_set("1.0\0".into()).unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("NUL")),
        "{e:?}"
    );
    let long = "1".repeat(MAX_APPLICATION_VERSION + 1);
    let e = m.application_version_set(long).unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("MAX_APPLICATION_VERSION")),
        "{e:?}"
    );
    m.application_version_set("-1.0".into()).unwrap();
    assert_eq!(
        tool_calls(&calls, "application-version-set"),
        [["--", "-1.0"]]
    );
}

#[test]
fn flush_sends_yaml_safe_json() {
    let (mut m, calls) = model(&[
        ("relation-set", ToolOutput::ok("")),
        ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
    ]);
    m.relation_set(
        rel(1),
        LocalBag::Unit,
        vec![("k".into(), "a\u{7f}b\u{85}c\u{ffff}".into())],
    )
    .unwrap();
    m.commit_handler();
    m.flush().unwrap();
    let calls = calls.lock().unwrap();
    let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
    assert_eq!(
        sets[0].2.as_deref(),
        Some(r#"{"k":"a\u007fb\u0085c\uffff"}"#)
    );
}

#[test]
fn a_breaking_relation_is_hidden_from_relation_ids() {
    let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
    m.set_event_relation(&rel(1), "pg", true);
    assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(2)]);
    // The event's remote app needs no tool call.
    assert_eq!(m.relation_app(rel(1)).unwrap(), Some("pg".into()));
}
