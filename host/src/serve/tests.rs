//! The protocol as a client meets it: the hello, refusals naming the line
//! and the versions, and requests answered, on a charm directory whose
//! component is missing (so no guest is built here; the harness's own
//! tests run real charms through the binary).

use super::*;
use serde_json::json;

fn request(value: Value) -> Value {
    answer(&value.to_string(), 1)
}

/// The kind and message of a failure.
fn error(response: &Value) -> (String, String) {
    let e = &response["error"];
    let kind = e["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("no error: {response}"));
    (
        kind.to_string(),
        e["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// A charm directory: metadata.yaml and a manifest, no component.
fn charm(store: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("metadata.yaml"), "name: app\n").unwrap();
    std::fs::write(
        dir.path().join("wasm-charm.yaml"),
        format!("store: {store}\nprobes:\n  port: {{tcp: 127.0.0.1:1, gate: true}}\n"),
    )
    .unwrap();
    dir
}

#[test]
fn the_hello_names_the_protocol_its_version_and_the_host() {
    let hello = protocol::hello();
    assert_eq!(hello["protocol"], "wasm-charm-harness");
    assert_eq!(hello["version"], 1);
    assert_eq!(hello["wasm-charm"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn another_version_is_refused_naming_both() {
    let response = request(json!({"version": 2, "op": "load", "charm": "/x"}));
    let (kind, message) = error(&response);
    assert_eq!(kind, "protocol");
    assert!(
        message.contains("version 2") && message.contains("version 1"),
        "{message}"
    );
    let (kind, message) = error(&request(json!({"op": "load", "charm": "/x"})));
    assert_eq!(kind, "protocol");
    assert!(message.contains("no `version`"), "{message}");
}

#[test]
fn a_malformed_line_is_named() {
    let response = answer("{\"version\": 1, \"op\":", 7);
    let (kind, message) = error(&response);
    assert_eq!(kind, "protocol");
    assert!(message.starts_with("request line 7: not JSON"), "{message}");
    let (_, message) = error(&answer("[1]", 3));
    assert!(message.contains("line 3: not a JSON object"), "{message}");
    let (_, message) = error(&request(json!({"version": 1, "op": "fly"})));
    assert!(message.contains("fly"), "{message}");
    let (_, message) = error(&request(
        json!({"version": 1, "op": "load", "charm": "/x", "chram": 1}),
    ));
    assert!(message.contains("chram"), "{message}");
}

#[test]
fn load_says_what_a_charm_is_and_what_is_not_one() {
    let dir = charm("juju");
    let response = request(json!({"version": 1, "op": "load", "charm": dir.path()}));
    let result = &response["result"];
    assert_eq!(result["name"], "app", "{response}");
    assert_eq!(result["store"], "juju");
    assert_eq!(result["probes"], json!(["port"]));
    let empty = tempfile::tempdir().unwrap();
    let response = request(json!({"version": 1, "op": "load", "charm": empty.path()}));
    let (kind, message) = error(&response);
    assert_eq!(kind, "build");
    assert!(
        message.contains("not a charm directory") && message.contains("metadata.yaml"),
        "{message}"
    );
}

#[test]
fn check_answers_with_the_state_files_own_words() {
    let ok = request(json!({"version": 1, "op": "check", "state": {"leader": false}}));
    assert_eq!(ok, json!({"result": {}}));
    let response = request(json!({"version": 1, "op": "check", "state": {"leadr": true}}));
    let (kind, message) = error(&response);
    assert_eq!(kind, "state");
    assert!(message.contains("leadr"), "{message}");
}

#[test]
fn a_project_that_cannot_be_packed_is_a_build_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
    let response = request(json!({"version": 1, "op": "pack", "project": dir.path()}));
    let (kind, message) = error(&response);
    assert_eq!(kind, "build");
    assert!(
        message.starts_with("cannot pack the charm project "),
        "{message}"
    );
    assert!(message.contains("metadata.yaml: not found"), "{message}");
}

fn run(charm: &Path, root: &Path, state: Value, seed: Value, event: Value) -> Value {
    request(json!({
        "version": 1, "op": "run", "charm": charm, "root": root,
        "state": state, "seed": seed, "event": event,
    }))
}

#[test]
fn a_run_round_trip_of_a_hook_failing_before_its_handlers() {
    let dir = charm("local");
    let root = tempfile::tempdir().unwrap();
    let state =
        json!({"leader": false, "log": ["old"], "machine": {"packages": ["x"], "calls": ["old"]}});
    let seed = json!({"scopes": [{"target": "unit", "name": "config", "status": "blocked", "message": "no kind"}],
                      "stored": {"k": "1"}});
    let response = run(
        dir.path(),
        root.path(),
        state,
        seed,
        json!({"name": "install"}),
    );
    let out = &response["result"];
    assert_eq!(out["failed"], true, "{response}");
    assert!(
        out["error"].as_str().unwrap().contains("charm.wasm"),
        "{response}"
    );
    // The state as given, less the last event's record; the seed is the
    // client's to keep.
    assert_eq!(
        out["state"],
        json!({"leader": false, "machine": {"packages": ["x"]}})
    );
    assert_eq!(out["stored"], json!({"k": "1"}));
    let config = &out["scopes"]["unit"]["config"];
    assert_eq!(config["current"]["status"], "blocked", "{out}");
    assert_eq!(config["history"][0]["event"], run::SEEDED);
    assert_eq!(out["gates"], json!({"port": true}));
    assert_eq!(out["handlers"], json!([]));
    assert!(
        out["probe-lines"][0].as_str().unwrap().contains("port"),
        "{out}"
    );
}

#[test]
fn what_run_refuses_is_a_usage_failure() {
    let dir = charm("local");
    let root = tempfile::tempdir().unwrap();
    let response = run(
        dir.path(),
        root.path(),
        json!({}),
        json!({}),
        json!({"name": "nope"}),
    );
    let (kind, message) = error(&response);
    assert_eq!(kind, "usage", "{response}");
    assert!(message.contains("nope"), "{message}");
    let response = run(
        dir.path(),
        root.path(),
        json!({"leader": "maybe"}),
        json!({}),
        json!({"name": "install"}),
    );
    assert_eq!(error(&response).0, "state", "{response}");
}

#[test]
fn a_juju_store_is_seeded_into_the_charm_state_and_read_back() {
    let mut file = crate::offline::state_file::StateFile::default();
    let seed: protocol::Seed =
        serde_json::from_value(json!({"stored": {"kept": "\"yes\""}})).unwrap();
    run::seed(&mut file, &seed, true).unwrap();
    assert!(file.sim.store.scopes.is_none());
    assert!(
        file.sim
            .model
            .charm_state
            .keys()
            .any(|k| crate::status::store_chunks::is_store_key(k))
    );
    // Seeded again on top: the store comes out of the charm state and
    // goes back in.
    let more: protocol::Seed = serde_json::from_value(json!({"stored": {"more": "2"}})).unwrap();
    run::seed(&mut file, &more, true).unwrap();
    let store = crate::status::store_juju::decode_state(&file.sim.model.charm_state).unwrap();
    assert_eq!(
        (store.data.get("kept"), store.data.get("more")),
        (Some("\"yes\""), Some("2"))
    );
    // A local store stays in `scopes`.
    run::seed(&mut file, &more, false).unwrap();
    assert!(file.sim.store.scopes.is_some() && file.sim.model.charm_state.is_empty());
}

#[test]
fn an_event_carries_every_flag_of_run() {
    let spec: protocol::EventSpec = serde_json::from_value(json!({
        "name": "db-relation-changed", "relation": "db:3", "remote-app": "pg",
        "remote-unit": "pg/1", "remote-app-data": {"host": "10.0.0.1"},
        "remote-unit-data": {"gone": ""}, "params": {"level": 9},
        "config": {"kind": "ingress"},
        "time": {"secs_since_epoch": 7, "nanos_since_epoch": 0},
    }))
    .unwrap();
    let args = spec.run_args("/c".into(), "/r".into());
    assert_eq!(args.event, "db-relation-changed");
    assert_eq!(args.relation.as_deref(), Some("db:3"));
    assert_eq!(
        args.remote_unit_data,
        [crate::offline::KeyValue::new("gone", "")]
    );
    assert_eq!(
        args.config,
        [crate::offline::KeyValue::new("kind", "ingress")]
    );
    assert_eq!(args.param, [crate::offline::Param::new("level", 9)]);
    assert_eq!(args.root.as_deref(), Some(Path::new("/r")));
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(7);
    assert_eq!(args.now, Some(at));
}
