//! What an outcome shows of the event, and how, from the protocol's reply.

use super::*;
use serde_json::json;

fn outcome() -> Outcome {
    let reply = json!({
        "failed": false, "error": null, "ignored": null,
        "handlers": [{"name": "config", "result": "cleared"}],
        "failures": [],
        "status-set": {"unit": true, "app": false},
        "scopes": {"unit": {
            "handler/config": {"current": null, "history": [
                {"status": "blocked", "message": "no kind", "event": "install", "time": 1},
                {"status": null, "event": "config-changed", "time": 2},
            ]},
            "paused": {"current": {"status": "active", "message": "paused", "since": 3},
                       "history": [{"status": "active", "message": "paused", "event": "action pause", "time": 3}]},
        }, "app": {}},
        "stored": {"migrated": "\"2024.1\""},
        "probes": {},
        "gates": {"api": true, "down": false},
        "probe-lines": ["  api  never ran"],
        "state": {
            "status": {"unit": {"status": "waiting", "message": "later"}},
            "log": ["INFO wrote /etc/app.conf"],
            "action-results": {"backup.id": "b-1"},
            "machine": {"services": {"api": {"active": "active", "enabled": "enabled"}},
                        "packages": ["api"], "calls": ["systemctl start -- api"]},
            "containers": {"web": {"files": {"/a": {"hex": "6869"}}, "services": {"web": "backoff"}}},
        },
    });
    let reply: crate::reply::Reply = serde_json::from_value(reply).unwrap();
    let next = State::new().file("/etc/app.conf", "x\n");
    Outcome::from_reply("app", "config-changed", reply, next).unwrap()
}

#[test]
fn scopes_and_their_history() {
    let out = outcome();
    assert_eq!(out.scope("handler/config"), None);
    assert_eq!(out.scope("paused"), Some(Status::active("paused")));
    assert_eq!(
        out.scopes().keys().collect::<Vec<_>>(),
        [&"paused".to_string()]
    );
    assert_eq!(
        out.scope_history("handler/config"),
        [
            ScopeChange {
                status: Some(Status::blocked("no kind")),
                event: "install".into()
            },
            ScopeChange {
                status: None,
                event: "config-changed".into()
            },
        ]
    );
    assert!(out.app_scopes().is_empty() && out.app_scope_history("x").is_empty());
}

#[test]
fn the_rest_is_read_from_the_saved_state() {
    let out = outcome();
    assert!(out.ok() && !out.failed() && out.failures().is_empty());
    assert_eq!(out.unit_status(), Some(Status::waiting("later")));
    assert!(out.unit_status_set() && !out.app_status_set());
    assert_eq!(out.app_status(), None);
    assert_eq!(out.stored("migrated"), Some("\"2024.1\""));
    assert_eq!(
        out.stored_as::<String>("migrated").as_deref(),
        Some("2024.1")
    );
    assert_eq!(out.action_result("backup.id"), Some("b-1"));
    assert!(out.logged("wrote /etc/app.conf"));
    assert_eq!(out.file_text("/etc/app.conf"), Some("x\n"));
    assert_eq!(out.service("api"), ("active", "enabled"));
    assert_eq!(out.service("other"), ("inactive", "disabled"));
    assert_eq!(out.packages(), ["api"]);
    assert_eq!(out.handler("config"), Some(&Handler::Cleared));
    assert_eq!(out.gating(), ["api"]);
    assert_eq!(out.probe("api"), None);
    assert_eq!(out.pebble_file("web", "/a").as_deref(), Some("hi"));
    assert_eq!(out.pebble_service("web", "web"), Some("backoff"));
    assert_eq!(out.state(), out.next);
    assert_eq!(
        out.state().get("log"),
        Some(json!(["INFO wrote /etc/app.conf"]))
    );
}

#[test]
fn a_status_this_harness_does_not_know_is_refused() {
    let reply = json!({
        "failed": false, "error": null, "ignored": null, "failures": [],
        "handlers": [{"name": "h", "result": "set", "status": {"status": "error", "message": "x"}}],
        "status-set": {"unit": false, "app": false}, "scopes": {"unit": {}, "app": {}},
        "stored": {}, "probes": {}, "gates": {}, "probe-lines": [], "state": {},
    });
    let reply: crate::reply::Reply = serde_json::from_value(reply).unwrap();
    let e = Outcome::from_reply("app", "install", reply, State::new())
        .err()
        .unwrap();
    assert!(e.to_string().contains("status `error`"), "{e}");
}

#[test]
#[should_panic(expected = "not a")]
fn stored_values_of_another_type_panic() {
    let _ = outcome().stored_as::<bool>("migrated");
}

#[test]
fn the_display_shows_what_happened() {
    let shown = outcome().to_string();
    for part in [
        "config-changed on charm app: ok",
        "handler config: cleared",
        "unit status: waiting: later (status-set)",
        "unit scope handler/config: cleared",
        "    at install: blocked: no kind",
        "stored migrated = \"2024.1\"",
        "action result backup.id: \"b-1\"",
        "log: INFO wrote /etc/app.conf",
        "machine: systemctl start -- api",
        "probe api  never ran",
        "file /etc/app.conf (2 bytes)",
    ] {
        assert!(shown.contains(part), "{part:?} not in:\n{shown}");
    }
    assert_eq!(format!("{:?}", outcome()), shown);
}
