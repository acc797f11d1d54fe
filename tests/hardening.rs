//! Hardening (DESIGN §6 commit rule, §7 deadlines): what a charm's bug or
//! malice cannot do to a unit. The packed `tests/guests/hostile` charm (its
//! handlers `marker` then `hostile`, mode picked by config) run through
//! `dispatch` as Juju runs it. The handler deadline of that charm is 5 s, so
//! the deadline tests take about that long (one takes the host's own 30 s
//! budget): the deadline is real wall-clock time, the property under test.

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::*;
use serde_json::json;
use support::{assert_failure, assert_success};

/// Replaces fake tool `tool` of `unit` by a script that hangs (with a child,
/// so that killing only the tool would not be enough to free its pipes).
fn hang_tool(unit: &support::Unit, tool: &str) {
    unit.replace_tool(tool, "#!/bin/sh\nsleep 3600 &\nsleep 3600\n");
}

// ------------------------------------------------------------ deadlines

#[test]
fn a_handler_sleeping_in_a_wasi_poll_is_stopped_at_its_deadline() {
    let unit = unit("ok");
    assert_success(&unit.dispatch("install"));
    let before = store_bytes(&unit);
    set_mode(&unit, "sleep");
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    let why = "handler `hostile` exceeded its time limit of 5000 ms";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    assert!(
        logged(&unit, "ERROR").iter().any(|m| m.starts_with(why)),
        "{:?}",
        unit.calls()
    );
    assert!(
        stderr(&out).contains("and was abandoned"),
        "{}",
        stderr(&out)
    );
    // The handler's instance was abandoned in its sleep; the line it logged
    // before was buffered, and still sent, before the host's error.
    let calls = unit.calls_of("juju-log");
    let at = |text: &str| {
        calls
            .iter()
            .position(|c| c.last().is_some_and(|m| m.starts_with(text)))
    };
    assert!(
        at("going to sleep") < at(why) && at("going to sleep").is_some(),
        "{calls:?}"
    );
    // The failed event kept nothing, and the lock is free: the next event runs.
    assert_eq!(store_bytes(&unit), before);
    set_mode(&unit, "ok");
    assert_success(&unit.dispatch("config-changed"));
}

#[test]
fn a_hook_tool_hanging_inside_a_handler_is_killed_at_the_deadline() {
    let unit = unit("leader");
    hang_tool(&unit, "is-leader");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let why = "handler `hostile` exceeded its time limit of 5000 ms";
    assert!(stderr(&out).contains(why), "stderr: {}", stderr(&out));
    assert!(
        !store_path(&unit).exists(),
        "a failed first event stores nothing"
    );
}

/// Takes `HOST_CALLS_TIMEOUT` (30 s): the budget of the host's own calls.
#[test]
fn a_hook_tool_hanging_after_the_handlers_fails_the_hook_within_the_budget() {
    let unit = unit("ok");
    hang_tool(&unit, "status-set");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let err = stderr(&out);
    assert!(
        err.contains("writing the unit status failed")
            && err.contains("did not finish before the deadline"),
        "stderr: {err}"
    );
    // Nothing kept: the retry writes the same status again.
    assert!(!store_path(&unit).exists());
}

// ------------------------------------------------------------ declare

#[test]
fn declare_reaches_nothing_of_the_live_event_so_cold_and_warm_runs_agree() {
    // charm() logs a warning in this mode; it runs once per handler run, and
    // in `declare` (cold cache only) it must reach no tool: it cannot even
    // read the config that selects the mode.
    let unit = unit("declare-log");
    assert_success(&unit.dispatch("install"));
    let cold = logged(&unit, "WARNING");
    unit.clear_calls();
    assert_success(&unit.dispatch("config-changed"));
    let warm = logged(&unit, "WARNING");
    assert_eq!(cold, ["charm() ran", "charm() ran"]);
    assert_eq!(warm, cold);
}

// ------------------------------------------------------------ commit rule

#[test]
fn a_failed_hook_keeps_no_scope_and_sends_no_relation_data_of_any_handler() {
    let unit = unit("ok");
    add_db_relation(&unit);
    assert_success(&unit.dispatch("install"));
    let store_before = store_bytes(&unit);
    let relations_before = unit.state()["relations"].clone();

    // marker writes relation data and returns; hostile then panics.
    set_mode(&unit, "marker-writes-then-panic");
    unit.clear_calls();
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    assert_eq!(unit.calls_of("relation-set"), Vec::<Vec<String>>::new());
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());
    assert_eq!(store_bytes(&unit), store_before, "the store is as before");
    assert_eq!(unit.state()["relations"], relations_before);

    // Fixed, the same hook reaches what it would have reached the first time.
    set_mode(&unit, "marker-writes");
    assert_success(&unit.dispatch("config-changed"));
    let store = store(&unit);
    assert_current(
        &store,
        "handler/marker",
        "waiting",
        "marker saw marker-writes",
    );
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({"written-by": "hostile"})
    );
    assert_eq!(unit.calls_of("relation-set").len(), 1);
}

// ------------------------------------------------------------ leadership

#[test]
fn a_new_leader_replaces_the_app_status_a_former_leader_left() {
    // The former leader blocked the application; this unit leads now and
    // holds no app scope (its handlers set none in mode `ok`).
    let unit = unit("ok");
    unit.update_state(|s| {
        s["status"]["app"] = json!({"status": "blocked", "message": "app problem"});
    });
    assert_success(&unit.dispatch("leader-elected"));
    assert_eq!(
        unit.calls_of("status-set")
            .into_iter()
            .filter(|c| c.contains(&"--application".to_string()))
            .collect::<Vec<_>>(),
        vec![argv(&["status-set", "--application", "active", "--", ""])]
    );
    assert_eq!(
        unit.state()["status"]["app"],
        json!({"status": "active", "message": ""})
    );
}

#[test]
fn a_new_leader_leaves_an_app_status_no_leader_ever_set_to_juju() {
    let unit = unit("ok");
    assert_success(&unit.dispatch("leader-elected"));
    assert!(
        unit.calls_of("status-set")
            .iter()
            .all(|c| !c.contains(&"--application".to_string())),
        "{:?}",
        unit.calls()
    );
}

#[test]
fn a_unit_that_lost_leadership_stops_asking_for_it() {
    // As leader, the app scope is written; as a minion, is-leader is asked
    // once more, and then no more while it holds no app scope.
    let unit = unit("app");
    assert_success(&unit.dispatch("install"));
    set_mode(&unit, "app-clear");
    unit.update_state(|s| s["leader"] = json!(false));
    assert_success(&unit.dispatch("config-changed"));
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit.calls_of("is-leader"), Vec::<Vec<String>>::new());
}
