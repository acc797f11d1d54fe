//! The harness's `State` builders, each read back from the YAML it writes.

use super::*;
use serde_json::json;

#[test]
fn the_builder_writes_the_hosts_state_file() {
    let state = State::new()
        .leader(false)
        .unit("gw/3")
        .relation(
            Relation::new("db:1", "pg")
                .unit_data("pg/0", "a", "1")
                .app_data("b", "2")
                .local_unit_data("c", "3")
                .local_app_data("d", "4"),
        )
        .probe_unhealthy("api", "down")
        .service("api", "active", "enabled")
        .package("nginx")
        .command("db-sync", 1, "", "locked")
        .command_timed_out("slow")
        .trusted(true);
    let again = State::from_yaml(&state.to_yaml()).unwrap();
    assert_eq!(again.doc, state.doc);
    assert_eq!(state.get("leader"), Some(json!(false)));
    assert_eq!(state.get("unit"), Some(json!("gw/3")));
    assert_eq!(State::new().get("scopes"), None);
    assert_eq!(
        state.get("relations"),
        Some(json!({"db:1": {
            "app": "pg", "units": ["pg/0"], "app-data": {"b": "2"},
            "unit-data": {"pg/0": {"a": "1"}}, "local-unit-data": {"c": "3"},
            "local-app-data": {"d": "4"}
        }}))
    );
    assert_eq!(
        state.get("probes"),
        Some(json!({"api": {"healthy": false, "detail": "down"}}))
    );
    assert_eq!(
        state.get("machine"),
        Some(json!({
            "services": {"api": {"active": "active", "enabled": "enabled"}},
            "packages": ["nginx"],
            "commands": {
                "db-sync": {"exit": 1, "stdout": "", "stderr": "locked"},
                "slow": {"exit": "timed-out", "stdout": "", "stderr": ""}
            }
        }))
    );
}

#[test]
fn config_values_become_the_flags_run_checks() {
    let state = State::new()
        .config("kind", "ingress")
        .config("port", 8080)
        .config("debug", true)
        .config("name", "");
    assert_eq!(
        state.config,
        [
            ("kind".to_string(), "ingress".to_string()),
            ("port".into(), "8080".into()),
            ("debug".into(), "true".into()),
            ("name".into(), String::new()),
        ]
    );
}

#[test]
#[should_panic(expected = "config `list`")]
fn a_config_list_is_refused() {
    let _ = State::new().config("list", json!([1]));
}

#[test]
fn stored_values_and_scopes_are_seeded_in_order() {
    let state = State::new()
        .stored("migrated", "2024.1")
        .stored("installed", true)
        .stored_text("raw", "3")
        .scope("config", Status::blocked("no kind"))
        .app_scope("db", Status::waiting("no db"));
    assert_eq!(
        serde_json::to_value(&state.seed).unwrap(),
        json!({
            "scopes": [
                {"target": "unit", "name": "config", "status": "blocked", "message": "no kind"},
                {"target": "app", "name": "db", "status": "waiting", "message": "no db"},
            ],
            "stored": {"migrated": "\"2024.1\"", "installed": "true", "raw": "3"},
        })
    );
    // Left to wasm-charm, which keeps them where the charm does.
    assert_eq!(state.get("scopes"), None);
}

#[test]
fn the_builder_writes_pebbles_sections() {
    let state = State::new()
        .can_connect("web", false)
        .pebble_check("web", "alive", false)
        .pebble_exec("web", "check", 1, "", "bad")
        .pebble_service("web", "web", "active")
        .pebble_file("web", "/etc/web.conf", "port = 80\n")
        .pebble_notice("web", "example.com/a", &[("k", "v")])
        .pebble_notice("web", "example.com/b", &[]);
    assert_eq!(
        state.get("containers"),
        Some(json!({"web": {
            "can-connect": false,
            "checks": {"alive": {"status": "down"}},
            "exec": {"check": {"exit": 1, "stdout": "", "stderr": "bad"}},
            "services": {"web": "active"},
            "files": {"/etc/web.conf": "port = 80\n"},
            "notices": [
                {"type": "custom", "key": "example.com/a", "last-data": {"k": "v"}},
                {"type": "custom", "key": "example.com/b", "last-data": {}},
            ],
        }}))
    );
    State::from_yaml(&state.to_yaml()).expect("wasm-charm takes it");
}

#[test]
#[should_panic(expected = "not Pebble's")]
fn a_service_state_pebble_lacks_is_refused() {
    let _ = State::new().pebble_service("web", "web", "running");
}

#[test]
fn sections_are_checked_by_the_hosts_reader() {
    let state = State::new()
        .section("opened-ports", json!({"80/tcp": ["*"]}))
        .section_yaml("leader", "false");
    assert_eq!(state.get("opened-ports"), Some(json!({"80/tcp": ["*"]})));
    assert_eq!(state.get("leader"), Some(json!(false)));
    // `null` puts a section back to its default.
    let state = state.section("leader", Value::Null);
    assert_eq!(state.get("leader"), None);
    let e = State::new()
        .try_section("leadr", true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("state section `leadr`") && e.contains("leadr"),
        "{e}"
    );
    let e = State::new()
        .try_section("machine", json!({"service": {}}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("service"), "{e}");
    assert!(State::from_yaml("leader: maybe\n").is_err());
    assert_eq!(State::from_yaml("").unwrap(), State::new());
}

#[test]
fn secrets_and_storage() {
    let state = State::new()
        .secret(
            "secret:d1ulvkcavc0s73ak2mcg",
            "vault",
            [("token", "s3cret")],
        )
        .storage("data/0", "filesystem", "/srv/data");
    assert_eq!(
        state.get("secrets"),
        Some(json!({"secret:d1ulvkcavc0s73ak2mcg": {
            "owner": "vault",
            "revisions": [{"revision": 1, "content": {"token": "s3cret"}}]
        }}))
    );
    assert_eq!(
        state.get("storage"),
        Some(json!({"data/0": {"kind": "filesystem", "location": "/srv/data"}}))
    );
}

#[test]
fn files_are_written_under_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let state = State::new().file("/etc/app/app.conf", "x = 1\n");
    state.write_files(dir.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("etc/app/app.conf")).unwrap(),
        "x = 1\n"
    );
}

#[test]
#[should_panic(expected = "absolute")]
fn a_relative_file_is_refused() {
    let _ = State::new().file("etc/app.conf", "");
}

/// RFC 7386's appendix A, the same table the host's `merge_patch` is
/// checked against.
#[test]
fn merge_patch_follows_rfc_7386() {
    let examples: Vec<Value> = serde_json::from_str(include_str!(
        "../../tests/merge-patch/rfc7386-examples.json"
    ))
    .expect("the examples are JSON");
    assert_eq!(examples.len(), 11);
    for e in examples {
        let mut doc = e["doc"].clone();
        merge_patch(&mut doc, &e["patch"]);
        assert_eq!(doc, e["result"], "{e}");
    }
}
