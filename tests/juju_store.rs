//! The `juju` backend of the scope store (DESIGN §6): the store kept in
//! Juju's server-side charm state through `state-get` / `state-set --file -`
//! / `state-delete`, against fake tools that hold those writes until the hook
//! ends and commit them only when it exited 0, with Juju's quotas. Charms are
//! dispatched as Juju runs them; `store:` is written into their
//! wasm-charm.yaml, and a Kubernetes unit is one whose `JUJU_MACHINE_ID` is
//! exported empty, as Juju exports it there.

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::{add_db_relation, set_mode, stderr, store_path};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use support::{Unit, assert_failure, assert_success, copy_charm, packed};
use wasm_charm_host::status::store_chunks;

/// What Juju exports on a Kubernetes unit: no machine.
const KUBERNETES: &[(&str, &str)] = &[("JUJU_MACHINE_ID", "")];

const SHOW_STATUS: &[(&str, &str)] = &[
    ("JUJU_ACTION_NAME", "show-status"),
    ("JUJU_ACTION_UUID", "1"),
];

/// Sets `store:` in the unit's wasm-charm.yaml.
fn use_store(unit: &Unit, store: &str) {
    unit.append_to("wasm-charm.yaml", &format!("\nstore: {store}\n"));
}

/// Juju's committed charm state, as the fake holds it.
fn charm_state(unit: &Unit) -> BTreeMap<String, String> {
    serde_json::from_value(unit.state()["charm-state"].clone()).unwrap_or_default()
}

/// The store document Juju's charm state holds (`Value::Null` when none).
fn juju_store(unit: &Unit) -> Value {
    match store_chunks::join(&charm_state(unit)) {
        Ok(Some(doc)) => serde_json::from_str(&doc).expect("the store is JSON"),
        Ok(None) => Value::Null,
        Err(e) => panic!("the charm state holds no whole store: {e}"),
    }
}

/// The current status and message of unit scope `name` of `store`.
fn current(store: &Value, name: &str) -> (String, String) {
    let c = &store["unit"][name]["current"];
    (
        c["status"].as_str().unwrap_or("-").to_string(),
        c["message"].as_str().unwrap_or("-").to_string(),
    )
}

/// The names of the tools called since the last `clear_calls`.
fn tools_called(unit: &Unit) -> Vec<String> {
    unit.calls().into_iter().map(|c| c[0].clone()).collect()
}

fn count(calls: &[String], tool: &str) -> usize {
    calls.iter().filter(|c| *c == tool).count()
}

/// The gateway with no config: two problems from install on.
fn gateway(store: &str) -> Unit {
    let unit = Unit::on_simulator(&packed("examples/gateway"), "gateway/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    use_store(&unit, store);
    unit
}

/// The hostile charm (`tests/guests/hostile`) with `store: juju`, `mode`
/// set, leading.
fn hostile(mode: &str) -> Unit {
    let unit = hostile_charm::unit(mode);
    use_store(&unit, "juju");
    unit
}

/// Replaces the unit's charm directory by a fresh copy of `packed` with
/// `store:` set, as a new pod starts from the charm alone: everything the
/// host wrote in the charm directory is gone.
fn replace_pod(unit: &Unit, packed: &Path, store: &str) {
    let charm = unit.charm_dir();
    std::fs::remove_dir_all(charm).expect("wipe the charm directory");
    copy_charm(packed, charm).expect("copy the packed charm into the new pod");
    // What `pack` put there (the precompiled component) is back; no store.
    assert!(!store_path(unit).exists());
    use_store(unit, store);
}

// ------------------------------------------------------------ keeping scopes

#[test]
fn scopes_live_in_jujus_charm_state_read_once_per_event() {
    let unit = gateway("juju");
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": "Config item `kind` must be set (+1 more)"})
    );
    // Nothing in the charm directory; the store is in Juju's state, whole.
    assert!(!unit.charm_dir().join(".wasm-charm/scopes.json").exists());
    let state = charm_state(&unit);
    assert_eq!(
        state.keys().collect::<Vec<_>>(),
        ["wasm-charm.store", "wasm-charm.store.0"]
    );
    let store = juju_store(&unit);
    assert_eq!(
        current(&store, "handler/config"),
        ("blocked".into(), "Config item `kind` must be set".into())
    );
    assert_eq!(
        current(&store, "handler/pilot"),
        ("blocked".into(), "Waiting for istio-pilot relation".into())
    );

    // The next event reads it (one state-get), fixes one problem, and the
    // other is still shown: it came back from Juju's state.
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    unit.clear_calls();
    assert_success(&unit.dispatch("config-changed"));
    let calls = tools_called(&unit);
    assert_eq!(count(&calls, "state-get"), 1, "{calls:?}");
    assert_eq!(count(&calls, "state-set"), 1, "{calls:?}");
    assert_eq!(
        unit.calls_of("state-set"),
        vec![vec!["state-set", "--file", "-"]]
    );
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": "Waiting for istio-pilot relation"})
    );
    let store = juju_store(&unit);
    assert_eq!(store["unit"]["handler/config"]["current"], Value::Null);
    assert_eq!(
        store["unit"]["handler/config"]["history"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    // An event that changes nothing reads the state and writes nothing.
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(tools_called(&unit), ["state-get"]);
}

#[test]
fn a_replaced_pod_finds_every_scope_and_shows_the_same_status() {
    let packed = packed("examples/gateway");
    let unit = gateway("juju");
    assert_success(&unit.dispatch_with("hooks/install", KUBERNETES));
    let shown = unit.state()["status"]["unit"].clone();
    assert_eq!(
        shown,
        json!({"status": "blocked", "message": "Config item `kind` must be set (+1 more)"})
    );
    let before = juju_store(&unit);

    // Kubernetes replaces the pod: a fresh charm directory, Juju's state kept.
    replace_pod(&unit, &packed, "juju");
    unit.clear_calls();
    assert_success(&unit.dispatch_with("hooks/start", KUBERNETES));
    // No handler observes start: the merge of the stored scopes is what
    // Juju shows already, so nothing is written, the store included.
    assert_eq!(tools_called(&unit), ["state-get"]);
    assert_eq!(unit.state()["status"]["unit"], shown);
    assert_eq!(juju_store(&unit), before);

    // show-status, in a hook, reads the store from Juju's state.
    unit.clear_calls();
    assert_success(&unit.dispatch_with("actions/show-status", &[SHOW_STATUS, KUBERNETES].concat()));
    let sets = unit.calls_of("action-set");
    let report = sets[0][1].strip_prefix("report=").expect("report first");
    assert!(
        report.starts_with("unit: blocked \"Config item `kind` must be set (+1 more)\""),
        "{report}"
    );
    for scope in ["handler/config", "handler/pilot"] {
        assert!(report.contains(scope), "{scope} in {report}");
    }

    // The config is fixed: the relation's problem, stored before the pod
    // went, is still there.
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_success(&unit.dispatch_with("hooks/config-changed", KUBERNETES));
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": "Waiting for istio-pilot relation"})
    );
}

#[test]
fn with_a_local_store_a_replaced_pod_forgets_its_scopes() {
    // Why the juju backend exists: the same events with the store in the
    // charm directory show active once the pod is replaced.
    let packed = packed("examples/gateway");
    let unit = gateway("local");
    assert_success(&unit.dispatch_with("hooks/install", KUBERNETES));
    assert!(store_path(&unit).exists());
    replace_pod(&unit, &packed, "local");
    unit.clear_calls();
    assert_success(&unit.dispatch_with("hooks/start", KUBERNETES));
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "active", "message": ""})
    );
    assert_eq!(count(&tools_called(&unit), "state-get"), 0);
}

// ------------------------------------------------------------ failed hooks

#[test]
fn a_trapping_handler_leaves_jujus_state_exactly_as_it_was() {
    let unit = hostile("stored-write");
    assert_success(&unit.dispatch("install"));
    let before = unit.state()["charm-state"].clone();
    assert_eq!(juju_store(&unit)["data"]["count"], "1");

    set_mode(&unit, "stored-write-then-panic");
    unit.clear_calls();
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    assert!(
        stderr(&out).contains("handler `hostile` panicked"),
        "{}",
        stderr(&out)
    );
    // The event stopped before its store was written; Juju's state and
    // the pending writes are as before.
    assert_eq!(count(&tools_called(&unit), "state-set"), 0);
    assert_eq!(unit.state()["charm-state"], before);
    assert_eq!(unit.pending(), Value::Null);

    // The retry counts once.
    set_mode(&unit, "stored-write");
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(juju_store(&unit)["data"]["count"], "2");
}

#[test]
fn an_error_under_on_error_fail_leaves_jujus_state_exactly_as_it_was() {
    let unit = hostile("stored-write");
    unit.append_to("wasm-charm.yaml", "on-error: fail\n");
    assert_success(&unit.dispatch("install"));
    let before = unit.state()["charm-state"].clone();

    set_mode(&unit, "stored-write-then-err");
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    assert!(
        stderr(&out).contains("(on-error: fail)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(unit.state()["charm-state"], before);
    assert_eq!(juju_store(&unit)["data"].get("errored"), None);
}

#[test]
fn a_hook_juju_cannot_commit_keeps_neither_its_store_nor_its_relation_data() {
    // A controller configured with a smaller `max-charm-state-size` than
    // Juju's default: the host's own check passes, the state-set is sent,
    // and Juju refuses the commit after the process exited 0. Both the store
    // and the relation data are dropped together: with the local file, the
    // store would have been kept already.
    let unit = hostile("stored-relation-write");
    add_db_relation(&unit);
    unit.update_state(|s| s["max-charm-state-size"] = json!(200));
    let out = unit.dispatch("install");
    assert_failure(&out);
    assert!(
        stderr(&out).contains("max allowed charm state size (200) exceeded"),
        "{}",
        stderr(&out)
    );
    assert_eq!(unit.calls_of("state-set").len(), 1);
    assert_eq!(charm_state(&unit), BTreeMap::new());
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({})
    );

    // The controller's limit raised again, Juju's retry keeps both.
    unit.update_state(|s| {
        if let Some(state) = s.as_object_mut() {
            state.remove("max-charm-state-size");
        }
    });
    assert_success(&unit.dispatch("install"));
    assert_eq!(juju_store(&unit)["data"]["count"], "1");
    assert_eq!(
        unit.state()["relations"]["db:1"]["local-unit-data"],
        json!({"written-by": "hostile"})
    );
}

#[test]
fn a_store_past_the_quota_is_refused_before_anything_is_written() {
    let unit = hostile("ok");
    assert_success(&unit.dispatch("install"));
    // Charm state an earlier revision of the charm left: 1.2 MB of it.
    unit.update_state(|s| {
        s["charm-state"]["#notices#"] = json!("n".repeat(1_200_000));
    });
    let before = unit.state();

    // 15 values of 64 KiB: the stored data's own bound (1 MiB) lets them
    // in, but beside the other keys the unit's 2 MiB would not hold them.
    set_mode(&unit, "stored-fill");
    unit.clear_calls();
    let out = unit.dispatch("config-changed");
    assert_failure(&out);
    let why = stderr(&out);
    assert!(
        why.contains(
            "the scope store does not fit in Juju's charm state: saved, the unit's state would take"
        ),
        "{why}"
    );
    assert!(
        why.contains("over the 2097152 Juju allows per unit"),
        "{why}"
    );
    assert!(why.contains("and 1 other keys take 1200016 bytes"), "{why}");
    assert!(why.contains("Nothing was saved"), "{why}");
    // Refused before any write: no state-set, no status-set, and Juju's
    // state and the unit's status as they were.
    let calls = tools_called(&unit);
    assert_eq!(count(&calls, "state-set"), 0, "{calls:?}");
    assert_eq!(count(&calls, "status-set"), 0, "{calls:?}");
    let after = unit.state();
    assert_eq!(after["charm-state"], before["charm-state"]);
    assert_eq!(after["status"], before["status"]);
    // The reason is in the unit's log too.
    assert!(
        unit.debug_log()
            .contains("does not fit in Juju's charm state")
    );
}

#[test]
fn a_store_of_many_chunks_comes_back_whole() {
    let unit = hostile("stored-fill");
    assert_success(&unit.dispatch("install"));
    let state = charm_state(&unit);
    // Nearly 1 MiB of data (15 values of 64 KiB and the marker's): 16
    // chunks and the header, each within Juju's 64 KiB.
    let chunks = state
        .keys()
        .filter(|k| k.starts_with("wasm-charm.store."))
        .count();
    assert_eq!(chunks, 16, "{:?}", state.keys().collect::<Vec<_>>());
    assert!(state.values().all(|v| v.len() <= 64 << 10));
    let store = juju_store(&unit);
    assert_eq!(store["data"].as_object().map(|d| d.len()), Some(16));

    // The next event reads every chunk back, and its marker changes one.
    set_mode(&unit, "stored-read");
    assert_success(&unit.dispatch("config-changed"));
    let store = juju_store(&unit);
    assert_eq!(store["data"]["marker"], "config-changed");
    assert_eq!(
        store["data"]["fill-14"].as_str().map(str::len),
        Some(64 << 10)
    );
}

// ------------------------------------------------------------ the choice

#[test]
fn auto_picks_juju_on_kubernetes_and_local_on_machines() {
    let on_kubernetes = gateway("auto");
    assert_success(&on_kubernetes.dispatch_with("hooks/install", KUBERNETES));
    assert!(!store_path(&on_kubernetes).exists());
    assert_eq!(
        current(&juju_store(&on_kubernetes), "handler/pilot").0,
        "blocked"
    );

    // The machine's unit (support's `JUJU_MACHINE_ID=0`): the local file,
    // and no charm-state tool is even called.
    let on_a_machine = gateway("auto");
    assert_success(&on_a_machine.dispatch("install"));
    assert!(store_path(&on_a_machine).exists());
    assert_eq!(on_a_machine.state().get("charm-state"), None);
    let calls = tools_called(&on_a_machine);
    assert!(!calls.iter().any(|c| c.starts_with("state-")), "{calls:?}");
}

#[test]
fn a_bad_store_value_fails_naming_the_file_and_field() {
    let unit = gateway("kubernetes");
    let out = unit.dispatch("install");
    assert_failure(&out);
    assert!(
        stderr(&out).contains(
            "wasm-charm.yaml: field `store`: `kubernetes` is not one of auto, local, juju"
        ),
        "{}",
        stderr(&out)
    );
}

// ------------------------------------------------------------ reading it

#[test]
fn wasm_charm_status_outside_a_hook_says_where_a_juju_store_is() {
    let unit = gateway("juju");
    assert_success(&unit.dispatch("install"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("status")
        .arg(unit.charm_dir())
        .output()
        .expect("run wasm-charm status");
    assert_eq!(out.status.code(), Some(1));
    let why = stderr(&out);
    assert!(
        why.contains("keeps its scope store in Juju's charm state (`store: juju` in wasm-charm.yaml), which only a hook can read: run the show-status action"),
        "{why}"
    );
}

#[test]
fn offline_runs_keep_a_juju_store_in_the_simulated_charm_state() {
    let unit = hostile("stored-write");
    let state = unit.dir().join("offline.yaml");
    std::fs::write(&state, "config: {mode: stored-write}\n").expect("write the state");
    let charm = unit.charm_dir();
    support::offline_ok(charm, &state, &["--event", "install"]);
    let text = std::fs::read_to_string(&state).expect("read the state");
    let saved: Value = serde_saphyr::from_str(&text).expect("the state is YAML");
    assert!(saved["scopes"].is_null(), "{text}");
    let charm_state: BTreeMap<String, String> =
        serde_json::from_value(saved["charm-state"].clone()).expect("charm-state is a map");
    let doc = store_chunks::join(&charm_state).unwrap().expect("a store");
    assert!(doc.contains("\"count\":\"1\""), "{doc}");

    // A failed hook keeps none of it.
    std::fs::write(
        &state,
        text.replace("mode: stored-write", "mode: stored-write-then-panic"),
    )
    .expect("write the state");
    let out = support::offline_run(charm, &state, &["--event", "config-changed"]);
    assert_eq!(out.status.code(), Some(1));
    let after: Value = serde_saphyr::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(after["charm-state"], saved["charm-state"]);

    // `wasm-charm status --state` reads it from there.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("status")
        .arg(charm)
        .arg("--state")
        .arg(&state)
        .output()
        .expect("run wasm-charm status");
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("handler/hostile"), "{shown}");
    assert!(stderr(&out).contains("`charm-state`"), "{}", stderr(&out));
}
