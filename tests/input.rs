//! Input hardening (DESIGN §7: every host function validates its input,
//! bounded per call and per event; text that Juju or the OS cannot carry is
//! rejected or replaced at the call, so that no stored value can fail every
//! later hook). The packed `tests/guests/hostile` charm run as Juju runs it,
//! in the `// input hardening` modes of handler `hostile`.

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::*;
use serde_json::Value;
use support::assert_success;

/// The message of unit scope `handler/hostile`, which these modes use to
/// report what the host answered.
fn hostile_message(unit: &support::Unit) -> String {
    let store = store(unit);
    unit_scope(&store, "handler/hostile")["current"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no handler/hostile message: {:#}", store["unit"]))
        .to_string()
}

/// Current unit scopes in the store.
fn current_unit_scopes(unit: &support::Unit) -> usize {
    let store = store(unit);
    store["unit"].as_object().map_or(0, |m| {
        m.values().filter(|s| !s["current"].is_null()).count()
    })
}

/// Gives the unit's handlers `ms` milliseconds (the hostile charm's few
/// seconds are tight for hundreds of fake-tool processes).
fn set_handler_timeout(unit: &support::Unit, ms: u64) {
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).expect("read wasm-charm.yaml");
    let text: String = text
        .lines()
        .map(
            |line| match line.trim_start().strip_prefix("handler-timeout-ms:") {
                Some(_) => format!("  handler-timeout-ms: {ms}\n"),
                None => format!("{line}\n"),
            },
        )
        .collect();
    assert!(
        text.contains(&format!("handler-timeout-ms: {ms}")),
        "{text}"
    );
    std::fs::write(&manifest, text).expect("write wasm-charm.yaml");
}

// ------------------------------------------------------------ NUL

#[test]
fn nul_in_a_status_message_is_an_error_value_naming_the_scope() {
    let unit = unit("nul-status");
    assert_success(&unit.dispatch("install"));
    let message = hostile_message(&unit);
    assert!(
        message.contains("scope `nul`") && message.contains("NUL"),
        "{message}"
    );
    assert_eq!(unit_scope(&store(&unit), "nul"), &Value::Null);
}

#[test]
fn nul_in_a_log_line_is_replaced_not_lost() {
    let unit = unit("nul-log");
    assert_success(&unit.dispatch("install"));
    assert_eq!(logged(&unit, "WARNING"), ["bad\u{FFFD}line"]);
}

#[test]
fn application_version_with_nul_or_too_long_is_an_invalid_argument() {
    let unit = unit("nul-version");
    assert_success(&unit.dispatch("install"));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("invalid argument: application-version-set") && message.contains("NUL"),
        "{message}"
    );
    set_mode(&unit, "long-version");
    assert_success(&unit.dispatch("config-changed"));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("invalid argument: application-version-set")
            && message.contains("MAX_APPLICATION_VERSION"),
        "{message}"
    );
    assert_eq!(unit.calls_of("application-version-set").len(), 0);
    assert_eq!(unit.state()["application-version"], Value::Null);
}

#[test]
fn nul_in_a_returned_message_is_replaced_and_later_hooks_still_run() {
    let unit = unit("nul-return");
    assert_success(&unit.dispatch("install"));
    let shown = "bad\u{FFFD}message (+1 more)";
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&["status-set", "blocked", "--", shown])]
    );
    assert_current(
        &store(&unit),
        "handler/hostile",
        "blocked",
        "bad\u{FFFD}message",
    );
    for hook in ["update-status", "config-changed"] {
        assert_success(&unit.dispatch(hook));
    }
}

// ------------------------------------------------------------ per-event bounds

/// 200,000 lines within a 2 s deadline, through the stand-in `juju-log`
/// (a process per call): the lines are buffered and sent joined, so the
/// handler returns in time and the unit log gets the bound's worth.
#[test]
fn a_log_flood_is_cut_at_the_per_event_bound_and_the_hook_succeeds() {
    let unit = unit("log-flood");
    set_handler_timeout(&unit, 2_000);
    let out = unit.dispatch("install");
    assert_success(&out);
    assert_current(
        &store(&unit),
        "handler/hostile",
        "active",
        "logged 200000 lines",
    );
    let info = logged(&unit, "INFO");
    assert!(info.len() <= 5, "{} juju-log calls at INFO", info.len());
    let lines: Vec<&str> = info.iter().flat_map(|m| m.split('\n')).collect();
    assert_eq!(lines.len(), 10_000);
    assert_eq!(lines[0], "flood 0");
    assert_eq!(lines[9_999], "flood 9999");
}

#[test]
fn a_log_flood_is_reported_with_one_warning() {
    let unit = unit("log-flood");
    set_handler_timeout(&unit, 2_000);
    assert_success(&unit.dispatch("install"));
    let warnings = logged(&unit, "WARNING");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("190000 messages (")
            && warnings[0].contains("MAX_LOG_MESSAGES_PER_EVENT"),
        "{}",
        warnings[0]
    );
}

#[test]
fn relation_data_past_16_mib_per_event_is_refused_at_the_call() {
    let unit = unit("relation-flood");
    add_db_relation(&unit);
    assert_success(&unit.relation_event("changed", "db:1", Some("pg/0")));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("after 2: invalid argument: relation data write to db:1 refused")
            && message.contains("MAX_RELATION_BYTES_PER_EVENT"),
        "{message}"
    );
    // What was accepted is sent, once.
    assert_eq!(unit.calls_of("relation-set").len(), 1);
    let data = &unit.state()["relations"]["db:1"]["local-unit-data"];
    let keys: Vec<&String> = data
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["a", "b"]);
}

#[test]
fn current_scopes_are_bounded_across_events() {
    let unit = unit("many-scopes");
    assert_success(&unit.dispatch("install"));
    assert_eq!(current_unit_scopes(&unit), 202);
    assert_success(&unit.dispatch("config-changed"));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("scope 54: ") && message.contains("MAX_SCOPES"),
        "{message}"
    );
    // 256, and the handler's own (blocked) scope, which the host sets.
    assert_eq!(current_unit_scopes(&unit), 257);
}

// ------------------------------------------------------------ names

#[test]
fn a_malformed_remote_unit_is_an_invalid_argument_and_tools_get_dashes() {
    let unit = unit("bad-unit");
    add_db_relation(&unit);
    assert_success(&unit.relation_event("changed", "db:1", Some("pg/0")));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("invalid argument: relation-get: `pg/01` is not a unit name"),
        "{message}"
    );
    assert_eq!(unit.calls_of("relation-get"), Vec::<Vec<String>>::new());
    assert_eq!(
        unit.calls_of("relation-ids"),
        vec![argv(&["relation-ids", "--format=json", "--", "db"])]
    );
}

#[test]
fn an_unknown_endpoint_is_an_invalid_argument() {
    let unit = unit("bad-endpoint");
    assert_success(&unit.dispatch("install"));
    let message = hostile_message(&unit);
    assert!(
        message.starts_with("invalid argument: relation endpoint `no-such-endpoint`")
            && message.contains("`db`"),
        "{message}"
    );
    assert_eq!(unit.calls_of("relation-ids"), Vec::<Vec<String>>::new());
}
