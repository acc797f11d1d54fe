//! The gateway charm, packed by `wasm-charm pack` and dispatched as Juju would
//! dispatch it: the sequence of the original problem report, asserting on the
//! exact `status-set` argv Juju receives. Each test runs on the Rust charm
//! (`examples/gateway`) and on the same charm in Python
//! (`examples/gateway-py`), which must be indistinguishable to Juju.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;

use serde_json::json;
use support::{Unit, assert_success, packed};

const RUST: &str = "examples/gateway";
const PYTHON: &str = "examples/gateway-py";

fn gateway(project: &str, leader: bool) -> Unit {
    let unit = Unit::on_simulator(&packed(project), "gateway/0");
    // Juju's config-get returns the defaults of config.yaml.
    unit.set_state(json!({
        "leader": leader,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    unit
}

/// Dispatch, expect success, and return the status-set calls it made.
fn status_sets(unit: &Unit, run: impl FnOnce(&Unit) -> std::process::Output) -> Vec<Vec<String>> {
    unit.clear_calls();
    let out = run(unit);
    assert_success(&out);
    unit.calls_of("status-set")
}

fn set(kind: &str, message: &str) -> Vec<Vec<String>> {
    vec![vec![
        "status-set".to_string(),
        kind.to_string(),
        "--".to_string(),
        message.to_string(),
    ]]
}

#[test]
fn scoped_statuses_survive_other_handlers_success() {
    scoped_statuses_survive(RUST);
}

#[test]
fn scoped_statuses_survive_other_handlers_success_in_python() {
    scoped_statuses_survive(PYTHON);
}

fn scoped_statuses_survive(project: &str) {
    let unit = gateway(project, true);

    // install: no config, no relation. Both problems are kept; the older wins.
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("install")),
        set("blocked", "Config item `kind` must be set (+1 more)")
    );

    // config-changed fixes the config. The pilot handler does not even run,
    // but its problem is still shown: the original bug showed active here.
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        set("blocked", "Waiting for istio-pilot relation")
    );

    // The relation appears without its data.
    unit.update_state(|s| {
        s["relations"]["istio-pilot:1"] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {}, "unit-data": {"pilot/0": {}},
        })
    });
    assert_eq!(
        status_sets(&unit, |u| u.relation_event(
            "changed",
            "istio-pilot:1",
            Some("pilot/0")
        )),
        set("waiting", "Waiting for istio-pilot relation data")
    );

    // The pilot publishes its service: nothing is wrong any more.
    unit.update_state(|s| {
        s["relations"]["istio-pilot:1"]["app-data"] =
            json!({"service-name": "pilot", "service-port": "15010"})
    });
    assert_eq!(
        status_sets(&unit, |u| u.relation_event(
            "changed",
            "istio-pilot:1",
            None
        )),
        set("active", "")
    );

    // update-status and an unchanged config change nothing: no status-set.
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("update-status")),
        Vec::<Vec<String>>::new()
    );
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        Vec::<Vec<String>>::new()
    );

    // relation-broken: Juju still lists the relation during the hook; the
    // host hides it, as ops does, so the handler sees it gone.
    assert_eq!(
        status_sets(&unit, |u| u.relation_event("broken", "istio-pilot:1", None)),
        set("blocked", "Waiting for istio-pilot relation")
    );
    unit.update_state(|s| {
        s["relations"]
            .as_object_mut()
            .unwrap()
            .remove("istio-pilot:1");
    });

    // The config breaks again: two problems, the older one first.
    unit.update_state(|s| s["config"]["kind"] = json!(""));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        set("blocked", "Waiting for istio-pilot relation (+1 more)")
    );

    // Juju received exactly what the host wrote, and the application status
    // was never touched (no app scope exists, so Juju derives it).
    let state = unit.state();
    assert_eq!(
        state["status"]["unit"],
        json!({"status": "blocked", "message": "Waiting for istio-pilot relation (+1 more)"})
    );
    assert_eq!(state["status"]["app"], json!(null));

    // Every scope is in the store, in full, with its history.
    let store: serde_json::Value = serde_json::from_slice(
        &std::fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        store["unit"]["handler/pilot"]["current"]["status"],
        "blocked"
    );
    assert_eq!(
        store["unit"]["handler/config"]["current"]["status"],
        "blocked"
    );
    let pilot_events: Vec<&str> = store["unit"]["handler/pilot"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        pilot_events,
        [
            "install",
            "istio-pilot-relation-changed",
            "istio-pilot-relation-changed",
            "istio-pilot-relation-broken"
        ]
    );
    assert_eq!(
        store["written"]["unit"]["message"],
        "Waiting for istio-pilot relation (+1 more)"
    );

    // `wasm-charm status` shows every scope in full, ranked, with history.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("status")
        .arg(unit.charm_dir())
        .output()
        .unwrap();
    assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "unit: blocked \"Waiting for istio-pilot relation (+1 more)\""
    );
    assert_eq!(lines[1], "app: never written (left to Juju)");
    assert_eq!(lines[2], "unit scopes, most important first:");
    assert!(
        lines[3].starts_with("  handler/pilot ")
            && lines[3].ends_with("\"Waiting for istio-pilot relation\""),
        "{text}"
    );
    assert_eq!(
        text.matches("istio-pilot-relation-changed").count(),
        2,
        "{text}"
    );
    assert!(text.contains("  handler/config "), "{text}");
}

#[test]
fn hook_tools_are_called_once_per_question() {
    hook_tools_once(RUST);
}

#[test]
fn hook_tools_are_called_once_per_question_in_python() {
    hook_tools_once(PYTHON);
}

fn hook_tools_once(project: &str) {
    let unit = gateway(project, true);
    unit.update_state(|s| {
        s["config"]["kind"] = json!("egress");
        s["relations"]["istio-pilot:4"] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {"service-name": "p", "service-port": "1"},
        });
    });
    unit.clear_calls();
    assert_success(&unit.dispatch("install"));
    let tools: Vec<String> = unit.calls().into_iter().map(|c| c[0].clone()).collect();
    // Three handlers ask for config, leadership and the relation: each tool
    // runs once, and the answer is active.
    let count = |t: &str| tools.iter().filter(|x| *x == t).count();
    assert_eq!(count("config-get"), 1, "{tools:?}");
    assert_eq!(count("is-leader"), 1, "{tools:?}");
    assert_eq!(count("relation-ids"), 1, "{tools:?}");
    assert_eq!(
        unit.calls_of("relation-get"),
        vec![vec![
            "relation-get",
            "--format=json",
            "-r",
            "istio-pilot:4",
            "--app",
            "--",
            "-",
            "pilot"
        ]]
    );
    assert_eq!(unit.calls_of("status-set"), set("active", ""));

    // An event no handler observes runs no tool at all, and needs neither
    // the compiled artifact nor an instance: the declarations are cached.
    let cache = unit.charm_dir().join(".wasm-charm/cache");
    let artifacts = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
            .collect()
    };
    for a in artifacts() {
        std::fs::remove_file(a).unwrap();
    }
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit.calls(), Vec::<Vec<String>>::new());
    assert_eq!(
        artifacts(),
        Vec::<std::path::PathBuf>::new(),
        "update-status compiled the component"
    );
    // The charm's files, as an earlier event parsed them, are kept beside
    // the declarations; a file edited since (upgrade-charm writes them) is
    // read anew at the next event.
    assert!(cache.join("charm-files.json").is_file());
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!("{}\nready-message: Serving\n", text.trim_end()),
    )
    .unwrap();
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(unit.calls_of("status-set"), set("active", "Serving"));

    // The next event that runs a handler compiles it again.
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(artifacts().len(), 1);
}

#[test]
fn leadership_is_its_own_scope() {
    leadership(RUST);
}

#[test]
fn leadership_is_its_own_scope_in_python() {
    leadership(PYTHON);
}

fn leadership(project: &str) {
    let unit = gateway(project, false);
    unit.update_state(|s| {
        s["config"]["kind"] = json!("ingress");
        s["relations"]["istio-pilot:1"] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {"service-name": "p", "service-port": "1"},
        });
    });
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("install")),
        set("waiting", "Waiting for leadership")
    );
    // The relation handler succeeding again does not erase it.
    assert_eq!(
        status_sets(&unit, |u| u.relation_event(
            "changed",
            "istio-pilot:1",
            Some("pilot/0")
        )),
        Vec::<Vec<String>>::new()
    );
    unit.update_state(|s| s["leader"] = json!(true));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("leader-elected")),
        set("active", "")
    );
}

/// A store past 1 MiB (here by data an older host stored, which decoding
/// does not bound) is written whole once more, marked as journaled, and
/// from then on each event that changes it appends its change to the
/// journal beside it: the document stays as it was, and the next event,
/// `wasm-charm status` and the statuses Juju gets all see the journaled
/// changes.
#[test]
fn a_large_store_journals_each_event_and_every_reader_replays_it() {
    let unit = gateway(RUST, true);
    assert_success(&unit.dispatch("install"));
    let host = unit.charm_dir().join(".wasm-charm");
    let document = host.join("scopes.json");
    let journal = host.join("scopes.journal");
    let mut store: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&document).unwrap()).unwrap();
    let big = "x".repeat(60 << 10);
    for i in 0..20 {
        store["data"][format!("k{i}")] = json!(big);
    }
    std::fs::write(&document, serde_json::to_vec(&store).unwrap()).unwrap();
    let marked = |bytes: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["format"].clone()
    };

    // Written whole: the document it replaces was large, so it is marked.
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        set("blocked", "Waiting for istio-pilot relation")
    );
    let rewritten = std::fs::read(&document).unwrap();
    assert_eq!(marked(&rewritten), json!(3));
    assert!(!journal.exists());

    // Two events journaled: the config breaks, then is fixed again.
    unit.update_state(|s| s["config"]["kind"] = json!(""));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        set("blocked", "Waiting for istio-pilot relation (+1 more)")
    );
    unit.update_state(|s| s["config"]["kind"] = json!("egress"));
    assert_eq!(
        status_sets(&unit, |u| u.dispatch("config-changed")),
        set("blocked", "Waiting for istio-pilot relation")
    );
    assert_eq!(
        std::fs::read(&document).unwrap(),
        rewritten,
        "not rewritten"
    );
    let lines = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(lines.lines().count(), 3, "a header and two events: {lines}");
    assert!(
        lines.len() < 8 << 10,
        "the changes only: {} bytes",
        lines.len()
    );

    // `wasm-charm status` reads the store the last event left.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(["status", "--json"])
        .arg(unit.charm_dir())
        .output()
        .unwrap();
    assert_success(&out);
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let history = shown["unit"]["handler/config"]["history"]
        .as_array()
        .unwrap();
    // The config handler clears its scope once the config is right: set at
    // install, cleared, set and cleared again by the two journaled events.
    let statuses: Vec<Option<&str>> = history.iter().map(|c| c["status"].as_str()).collect();
    assert_eq!(
        statuses,
        [Some("blocked"), None, Some("blocked"), None],
        "{history:?}"
    );
    assert_eq!(shown["data"]["k19"].as_str().map(str::len), Some(60 << 10));
}
