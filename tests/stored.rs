//! The charm's own data (WIT `stored`, DESIGN §6): a key-value store kept in
//! the scope store between events, transactional per handler like scopes,
//! and consistent with Juju's commit rule. The packed hostile charm runs as
//! Juju runs it, against fake hook tools that commit like Juju: in the
//! `stored-*` modes handler `marker` (first) stores the event it ran for
//! under `marker`, and handler `hostile` writes, reads, or writes and then
//! fails (tests/guests/hostile).

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::*;
use serde_json::{Value, json};
use support::{Unit, assert_failure, assert_success};

/// The data section of the unit's store file.
fn data(unit: &Unit) -> Value {
    store(unit)["data"].clone()
}

/// Adds `on-error: fail` to the charm's manifest.
fn on_error_fail(unit: &Unit) {
    unit.append_to("wasm-charm.yaml", "on-error: fail\n");
}

/// Makes hook tool `tool` fail as a tool whose controller connection broke.
fn break_tool(unit: &Unit, tool: &str) {
    unit.replace_tool(
        tool,
        &format!("#!/bin/sh\necho 'ERROR {tool}: connection is shut down' >&2\nexit 1\n"),
    );
}

// ------------------------------------------------------------ survival

#[test]
fn data_survives_events_and_a_later_handler_reads_an_earlier_ones() {
    let unit = unit("stored-write");
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        data(&unit),
        json!({"count": "1", "last-event": "install", "marker": "install"})
    );
    assert_current(&store(&unit), "handler/hostile", "active", "stored count 1");

    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        data(&unit),
        json!({"count": "2", "last-event": "config-changed", "marker": "config-changed"})
    );

    // A later event reads what earlier ones kept, and handler `hostile` reads
    // what `marker` stored before it in the same event.
    set_mode(&unit, "stored-read");
    assert_success(&unit.dispatch("update-status"));
    assert_current(
        &store(&unit),
        "handler/hostile",
        "waiting",
        "stored: count=2; last-event=config-changed; marker=update-status",
    );
}

#[test]
fn an_error_shown_as_blocked_keeps_the_data_written_before_it() {
    let unit = unit("stored-write-then-err");
    assert_success(&unit.dispatch("install"));
    // The handler returned (with Err, on-error: block): its writes count.
    assert_eq!(
        data(&unit),
        json!({"errored": "written before an error", "marker": "install"})
    );
    assert_current(
        &store(&unit),
        "handler/hostile",
        "blocked",
        "deliberate failure after a stored write",
    );
}

// ------------------------------------------------------------ failures

#[test]
fn a_handler_that_traps_keeps_no_data_and_neither_does_its_event() {
    let unit = unit("stored-write");
    assert_success(&unit.dispatch("install"));
    let before = store_bytes(&unit);

    set_mode(&unit, "stored-write-then-panic");
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    assert!(
        stderr(&out).contains("handler `hostile` panicked"),
        "stderr: {}",
        stderr(&out)
    );
    // Neither the trapped handler's write nor `marker`'s (which returned)
    // is kept: the store file is as it was.
    assert_eq!(store_bytes(&unit), before);

    // The next event sees the data as install left it.
    set_mode(&unit, "stored-read");
    assert_success(&unit.dispatch("config-changed"));
    assert_current(
        &store(&unit),
        "handler/hostile",
        "waiting",
        "stored: count=1; last-event=install; marker=config-changed",
    );
}

#[test]
fn a_later_handler_failing_the_hook_drops_an_earlier_handlers_data_and_the_retry_counts_once() {
    let unit = unit("stored-write");
    on_error_fail(&unit);
    assert_success(&unit.dispatch("install"));
    let before = store_bytes(&unit);

    // `marker` stores, returns; `hostile` stores, then fails the hook.
    set_mode(&unit, "stored-write-then-err");
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    let why = "handler `hostile` failed: deliberate failure after a stored write (on-error: fail)";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    assert_eq!(store_bytes(&unit), before);

    // Juju retries the hook (the charm fixed meanwhile): it counts once, as
    // if the failed run had never been.
    set_mode(&unit, "stored-write");
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        data(&unit),
        json!({"count": "2", "last-event": "config-changed", "marker": "config-changed"})
    );
}

#[test]
fn a_hook_failing_after_the_handlers_keeps_neither_data_nor_relation_data_and_its_retry_keeps_both()
{
    let unit = unit("stored-relation-write");
    add_db_relation(&unit);
    break_tool(&unit, "status-set");

    let out = unit.dispatch("install");
    assert_failure(&out);
    assert!(
        stderr(&out).contains("writing the unit status failed"),
        "stderr: {}",
        stderr(&out)
    );
    // The relation data was sent (Juju holds it until the hook ends), and
    // dropped with the failed hook; the store was never saved.
    assert_eq!(
        unit.calls_of("relation-set"),
        vec![argv(&["relation-set", "-r", "db:1", "--file", "-"])]
    );
    assert_eq!(unit.pending(), Value::Null);
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({})
    );
    assert!(
        !store_path(&unit).exists(),
        "a failed first event stores nothing"
    );

    // Juju retries install once the controller answers again: the same
    // result as a first run that had succeeded, in both places.
    unit.restore_tool("status-set");
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        data(&unit),
        json!({"count": "1", "last-event": "install", "marker": "install"})
    );
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({"written-by": "hostile"})
    );
}

// ------------------------------------------------------------ bounds

#[test]
fn a_key_or_value_past_its_bound_is_an_error_value_and_the_hook_goes_on() {
    let unit = unit("stored-bounds");
    assert_success(&unit.dispatch("install"));
    let store = store(&unit);
    let message = unit_scope(&store, "handler/hostile")["current"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let errors: Vec<&str> = message.split(" | ").collect();
    assert_eq!(
        errors,
        [
            "stored key \"bad key\" has ' '; use a-z A-Z 0-9 - _ . : /",
            "stored value of \"big\" is 65537 bytes; the limit is 65536 (MAX_VALUE, Juju's limit for one value of charm state)",
            "stored key \"bad=key\" has '='; use a-z A-Z 0-9 - _ . : /",
        ]
    );
    // Refused writes change nothing.
    assert_eq!(store["data"], json!({"marker": "install"}));
}

#[test]
fn stored_data_is_bounded_in_total_across_events() {
    let unit = unit("stored-fill");
    // 15 values of 64 KiB and `marker` fit in 1 MiB; the 16th does not.
    let refused = |total: usize| {
        format!(
            "after 15: stored key \"fill-15\" not set: the stored data would be {total} bytes, keys and values counted; the limit is 1048576 (MAX_TOTAL); delete keys that are no longer needed"
        )
    };
    let fill = 15 * (7 + 65536);
    assert_success(&unit.dispatch("install"));
    let kept = store(&unit);
    let marker = "marker".len() + "install".len();
    assert_current(
        &kept,
        "handler/hostile",
        "blocked",
        &refused(fill + marker + 7 + 65536),
    );
    let data = kept["data"].as_object().cloned().unwrap_or_default();
    assert_eq!(data.len(), 16, "15 values and the marker");

    // The next event counts what the store holds: the same values again fit,
    // the 16th still does not.
    assert_success(&unit.dispatch("config-changed"));
    let marker = "marker".len() + "config-changed".len();
    assert_current(
        &store(&unit),
        "handler/hostile",
        "blocked",
        &refused(fill + marker + 7 + 65536),
    );
}

// ------------------------------------------------------------ offline

#[test]
fn offline_runs_keep_data_in_the_state_file_and_a_failed_run_keeps_none() {
    let charm = support::packed(HOSTILE);
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state.yaml");
    let run = |args: &[&str]| support::offline_run(&charm, &state, args);
    let read_state = || std::fs::read_to_string(&state).expect("read the state file");

    let out = support::offline_ok(
        &charm,
        &state,
        &["--event", "install", "--config", "mode=stored-write"],
    );
    assert!(
        out.contains("stored data: 3 keys, 36 bytes with the keys\n"),
        "{out}"
    );
    assert!(
        out.contains("  count                        1 bytes\n"),
        "{out}"
    );
    support::offline_ok(&charm, &state, &["--event", "config-changed"]);
    let kept = read_state();

    let out = run(&[
        "--event",
        "config-changed",
        "--config",
        "mode=stored-write-then-panic",
    ]);
    assert_failure(&out);
    let after: serde_json::Value =
        serde_saphyr::from_str(&read_state()).expect("the state file is YAML");
    let before: serde_json::Value = serde_saphyr::from_str(&kept).expect("YAML");
    assert_eq!(after["scopes"], before["scopes"]);
    assert_eq!(
        before["scopes"]["data"],
        json!({"count": "2", "last-event": "config-changed", "marker": "config-changed"})
    );
}
