//! Hostile guests (DESIGN §4 "transactional per handler", §7 sandbox and
//! failure policy): the packed `tests/guests/hostile` charm run as Juju runs
//! it. Handler `marker` (declared first) records the mode it saw in
//! `handler/marker`; handler `hostile` writes scope `hostile-partial`, then
//! does what config option `mode` says. Every test asserts on what Juju and
//! the operator would see: exit code, hook-tool argv, the unit log, the
//! store file.

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::*;
use serde_json::{Value, json};
use support::{assert_failure, assert_success};

// ------------------------------------------------------------ returns

#[test]
fn ok_merges_the_blocked_free_scope_over_the_waiting_marker() {
    let unit = unit("ok");
    let out = unit.dispatch("install");
    assert_success(&out);

    // Blocked `hostile-partial` beats waiting `handler/marker`; one status-set.
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&["status-set", "blocked", "--", PARTIAL_PLUS_MARKER])]
    );
    let store = store(&unit);
    assert_current(&store, "handler/marker", "waiting", "marker saw ok");
    assert_current(
        &store,
        "hostile-partial",
        "blocked",
        "written before failing",
    );
    // `Ok(None)` clears a scope that never existed: nothing is recorded.
    assert_eq!(unit_scope(&store, "handler/hostile"), &Value::Null);
    assert_eq!(store["app"], json!({}));
    assert_eq!(
        store["written"]["unit"],
        json!({"status": "blocked", "message": PARTIAL_PLUS_MARKER})
    );
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": PARTIAL_PLUS_MARKER})
    );
}

#[test]
fn err_blocks_the_handler_scope_and_keeps_its_writes() {
    let unit = unit("err");
    let out = unit.dispatch("install");
    assert_success(&out);

    let store = store(&unit);
    assert_current(&store, "handler/hostile", "blocked", "deliberate failure");
    // The handler returned (with Err): its other writes count.
    assert_current(
        &store,
        "hostile-partial",
        "blocked",
        "written before failing",
    );
    assert_current(&store, "handler/marker", "waiting", "marker saw err");
    assert_eq!(
        logged(&unit, "WARNING"),
        ["handler `hostile` returned an error, shown as blocked: deliberate failure"]
    );
    // Two blocked scopes: the older one (hostile-partial, written first) wins.
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&[
            "status-set",
            "blocked",
            "--",
            "written before failing (+2 more)"
        ])]
    );
}

#[test]
fn err_with_on_error_fail_fails_the_hook_and_keeps_nothing_of_the_event() {
    let unit = unit("err");
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let mut text = std::fs::read_to_string(&manifest).expect("read wasm-charm.yaml");
    text.push_str("on-error: fail\n");
    std::fs::write(&manifest, text).expect("write wasm-charm.yaml");

    let out = unit.dispatch("install");
    assert_failure(&out);
    let why = "handler `hostile` failed: deliberate failure (on-error: fail)";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    assert!(
        logged(&unit, "ERROR").iter().any(|m| m == why),
        "{:?}",
        unit.calls()
    );

    // One event, one transaction (DESIGN §6): the failed hook keeps nothing,
    // not even the scope of the handler before it, which returned.
    assert!(
        !store_path(&unit).exists(),
        "a failed first event stores nothing"
    );
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());
}

// ------------------------------------------------------------ traps

/// A unit that ran `install` in mode `first`, then switched to `then`: the
/// store after install, and the output of `config-changed`, whose calls are
/// the only ones left in the call log.
fn after_install(first: &str, then: &str) -> (support::Unit, Value, std::process::Output) {
    let unit = unit(first);
    assert_success(&unit.dispatch("install"));
    let before = store(&unit);
    set_mode(&unit, then);
    unit.clear_calls();
    let out = unit.dispatch("config-changed");
    (unit, before, out)
}

#[test]
fn panic_fails_the_hook_logs_why_and_keeps_nothing_of_the_event() {
    let (unit, before, out) = after_install("ok", "panic");
    assert_failure(&out);

    let errors = logged(&unit, "ERROR");
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("handler `hostile` panicked") && m.contains("deliberate panic")),
        "no ERROR naming the handler, the panic and its stderr: {errors:#?}"
    );
    assert!(
        unit.debug_log()
            .lines()
            .any(|l| l.starts_with("ERROR handler `hostile` panicked")),
        "debug log:\n{}",
        unit.debug_log()
    );
    assert!(
        stderr(&out).contains("handler `hostile` panicked"),
        "stderr: {}",
        stderr(&out)
    );
    // The guest's stderr reaches the log once, inside the trap report.
    assert_eq!(
        unit.debug_log().matches("deliberate panic").count(),
        1,
        "debug log:\n{}",
        unit.debug_log()
    );

    // Nothing of the event is kept: the store is as before, nothing written.
    assert_eq!(store(&unit), before);
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());
}

#[test]
fn endless_loop_is_stopped_at_the_deadline_and_keeps_nothing_of_the_event() {
    // Mode `err` first, so that `hostile` owns two scopes to lose.
    let (unit, before, out) = after_install("err", "loop");
    assert_failure(&out);

    let why = "handler `hostile` exceeded its time limit of 5000 ms";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    assert!(
        unit.debug_log()
            .lines()
            .any(|l| l.starts_with(&format!("ERROR {why}"))),
        "debug log:\n{}",
        unit.debug_log()
    );
    assert_eq!(store(&unit), before);
}

#[test]
fn a_handlers_own_deadline_replaces_every_handlers() {
    let unit = unit("loop");
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).expect("read wasm-charm.yaml");
    let text = text.replace(
        "  handler-timeout-ms: 5000\n",
        "  handler-timeout-ms: 5000\n  handlers:\n    hostile: {timeout-ms: 300}\n",
    );
    std::fs::write(&manifest, text).expect("write wasm-charm.yaml");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let why = "handler `hostile` exceeded its time limit of 300 ms";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    // The other handler kept every handler's deadline and returned.
    assert!(!stderr(&out).contains("handler `marker` exceeded"));
}

/// Runs `install` in `mode` and asserts the hook failed because handler
/// `hostile` `reason`, keeping nothing of the event.
fn assert_trap(mode: &str, reason: &str) {
    let unit = unit(mode);
    let out = unit.dispatch("install");
    assert_failure(&out);
    let why = format!("handler `hostile` {reason}");
    assert!(stderr(&out).contains(&why), "stderr: {}", stderr(&out));
    assert!(
        logged(&unit, "ERROR").iter().any(|m| m.starts_with(&why)),
        "calls: {:?}",
        unit.calls()
    );
    assert!(
        !store_path(&unit).exists(),
        "a failed first event stores nothing"
    );
}

#[test]
fn memory_hog_is_stopped_at_the_memory_limit() {
    assert_trap("oom", "exceeded its memory limit of 32 MiB");
}

#[test]
fn unbounded_recursion_is_reported_as_a_stack_overflow() {
    assert_trap("stack", "overflowed its stack");
}

// ------------------------------------------------------------ the sandbox

#[test]
fn sandbox_grants_no_environment_arguments_files_or_network() {
    let unit = unit("sandbox");
    assert_success(&unit.dispatch("install"));
    assert_current(
        &store(&unit),
        "handler/hostile",
        "active",
        "env=0 args=0 fs-root=denied fs-cwd=denied net=denied",
    );
}

#[test]
fn guest_stdout_and_stderr_go_to_the_unit_log() {
    let unit = unit("print");
    assert_success(&unit.dispatch("install"));
    let log = unit.debug_log();
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines.contains(&"INFO [hostile] to stdout"),
        "debug log:\n{log}"
    );
    assert!(
        lines.contains(&"WARNING [hostile] to stderr"),
        "debug log:\n{log}"
    );
    assert_eq!(logged(&unit, "INFO"), vec!["[hostile] to stdout"]);
    assert_eq!(logged(&unit, "WARNING"), vec!["[hostile] to stderr"]);
}

#[test]
fn flooding_output_keeps_its_tail_and_the_handler_alive() {
    let unit = unit("flood");
    assert_success(&unit.dispatch("install"));
    assert_current(&store(&unit), "handler/hostile", "active", "flooded");
    let info = logged(&unit, "INFO");
    assert_eq!(info.len(), 1, "one juju-log per stream");
    let line = &info[0];
    assert!(line.starts_with("[hostile] ["), "{}", &line[..60]);
    assert!(
        line.contains(" earlier bytes not kept] "),
        "{}",
        &line[..60]
    );
    assert!(
        line.ends_with("flood line 119999"),
        "{}",
        &line[line.len() - 40..]
    );
    assert!(
        line.len() < 17 << 10,
        "the tail is bounded: {} bytes",
        line.len()
    );
}

#[test]
fn undeclared_probe_is_an_error_value_not_a_trap() {
    let unit = unit("probe");
    let out = unit.dispatch("install");
    assert_success(&out);
    assert_current(
        &store(&unit),
        "handler/hostile",
        "waiting",
        "undeclared probe: no probe named \"nope\" is declared in wasm-charm.yaml (probes: none)",
    );
    assert_eq!(logged(&unit, "ERROR"), Vec::<String>::new());
    // A charm naming a probe its manifest lacks has a bug: the log says so.
    assert_eq!(
        logged(&unit, "WARNING"),
        [
            "handler `hostile`: probe.run: no probe named \"nope\" is declared in wasm-charm.yaml (probes: none)"
        ]
    );
}

#[test]
fn guest_cannot_write_a_host_scope() {
    let unit = unit("bad-scope");
    assert_success(&unit.dispatch("install"));
    let store = store(&unit);
    assert_current(
        &store,
        "handler/hostile",
        "blocked",
        "scope name `handler/evil`: the prefix `handler/` belongs to the host",
    );
    assert_eq!(
        unit_scope(&store, "handler/evil"),
        &Value::Null,
        "{store:#}"
    );
}

// ------------------------------------------------------------ app status

#[test]
fn app_scope_is_written_with_application_by_the_leader() {
    let unit = unit_as("app", true);
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        unit.calls_of("status-set"),
        vec![
            argv(&["status-set", "blocked", "--", PARTIAL_PLUS_MARKER]),
            argv(&[
                "status-set",
                "--application",
                "blocked",
                "--",
                "app problem"
            ]),
        ]
    );
    let store = store(&unit);
    assert_eq!(
        store["app"]["app-scope"]["current"]["message"],
        "app problem"
    );
    assert_eq!(
        unit.state()["status"]["app"],
        json!({"status": "blocked", "message": "app problem"})
    );

    // A new leader-elected means another unit may have led and written the
    // app status meanwhile: the returning leader writes its own again, once.
    unit.clear_calls();
    assert_success(&unit.dispatch("leader-elected"));
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&[
            "status-set",
            "--application",
            "blocked",
            "--",
            "app problem"
        ])]
    );
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());

    // Once the last app scope is cleared, the app status Juju shows would be
    // stale: the leader writes active (the ready message) once, then nothing.
    set_mode(&unit, "app-clear");
    unit.clear_calls();
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&["status-set", "--application", "active", "--", ""])]
    );
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());
}

#[test]
fn app_scope_is_kept_but_not_written_by_a_non_leader() {
    let unit = unit_as("app", false);
    let out = unit.dispatch("install");
    assert_success(&out);
    assert_eq!(
        unit.calls_of("status-set"),
        vec![argv(&["status-set", "blocked", "--", PARTIAL_PLUS_MARKER])]
    );
    assert_eq!(unit.state()["status"]["app"], Value::Null);
    let store = store(&unit);
    // Kept for when this unit leads; nothing written for the app.
    assert_eq!(
        store["app"]["app-scope"]["current"]["message"],
        "app problem"
    );
    assert_eq!(store["written"]["app"], Value::Null);
}

// ------------------------------------------------------------ relations

#[test]
fn relation_scope_is_cleared_when_the_relation_is_broken() {
    let unit = unit("relation-scope");
    add_db_relation(&unit);
    assert_success(&unit.relation_event("joined", "db:1", Some("pg/0")));
    assert_current(
        &store(&unit),
        "relation/db:1",
        "blocked",
        "db relation scope",
    );

    assert_success(&unit.relation_event("broken", "db:1", None));
    let store_after = store(&unit);
    let scope = unit_scope(&store_after, "relation/db:1");
    assert_eq!(scope["current"], Value::Null, "{scope:#}");
    let last = scope["history"]
        .as_array()
        .and_then(|h| h.last())
        .unwrap_or_else(|| panic!("no history: {scope:#}"));
    assert_eq!(last["status"], Value::Null, "{scope:#}");
    assert_eq!(last["event"], "db-relation-broken", "{scope:#}");

    // Juju forgets the relation; it stays cleared.
    unit.update_state(|s| {
        s["relations"].as_object_mut().unwrap().remove("db:1");
    });
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit_scope(&store(&unit), "relation/db:1"), scope);
}

#[test]
fn relation_writes_are_sent_once_at_the_end_of_the_event() {
    let unit = unit("relation-write");
    add_db_relation(&unit);
    assert_success(&unit.relation_event("changed", "db:1", Some("pg/0")));
    assert_eq!(
        unit.calls_of("relation-set"),
        vec![argv(&["relation-set", "-r", "db:1", "--file", "-"])]
    );
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({"written-by": "hostile"})
    );
}

#[test]
fn relation_writes_of_a_trapped_handler_are_never_sent() {
    let unit = unit("relation-write-then-panic");
    add_db_relation(&unit);
    let out = unit.relation_event("changed", "db:1", Some("pg/0"));
    assert_failure(&out);
    assert_eq!(unit.calls_of("relation-set"), Vec::<Vec<String>>::new());
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({})
    );
    assert!(
        stderr(&out).contains("handler `hostile` panicked"),
        "stderr: {}",
        stderr(&out)
    );
}
