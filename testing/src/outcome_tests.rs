//! What an outcome shows of the event, and how.

use super::*;
use wasm_charm_host::status::merge::{Band, Kind, Written};
use wasm_charm_host::status::store::{Target, Write};

fn outcome() -> Outcome {
    let mut store = ScopeStore::default();
    let set = |scope: &str, status, message: &str| Write::Set {
        target: Target::Unit,
        scope: scope.to_string(),
        status,
        message: message.to_string(),
        priority: Band::Normal,
    };
    store.apply(
        set("handler/config", Kind::Blocked, "no kind"),
        "install",
        1,
    );
    store.apply(
        Write::Clear {
            target: Target::Unit,
            scope: "handler/config".into(),
        },
        "config-changed",
        2,
    );
    store.apply(set("paused", Kind::Active, "paused"), "action pause", 3);
    store.data = [("migrated".to_string(), "\"2024.1\"".to_string())]
        .into_iter()
        .collect();
    let mut next = State::new()
        .file("/etc/app.conf", "x\n")
        .service("api", "active", "enabled")
        .package("api");
    next.file.sim.model.status.unit = Some(Written {
        status: Kind::Waiting,
        message: "later".into(),
    });
    next.file
        .sim
        .last_event
        .log
        .push("INFO wrote /etc/app.conf".into());
    next.file
        .sim
        .last_event
        .action_results
        .insert("backup.id".into(), "b-1".into());
    next.file
        .machine
        .calls
        .push("systemctl start -- api".into());
    Outcome {
        charm: "app".into(),
        event: "config-changed".into(),
        failed: false,
        error: None,
        ignored: None,
        handlers: vec![("config".into(), Handler::Cleared)],
        failures: vec![],
        unit_written: true,
        app_written: false,
        store,
        gates: [("api".to_string(), true), ("down".to_string(), false)]
            .into_iter()
            .collect(),
        next,
    }
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
    assert_eq!(out.state(), out.next);
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
        "file /etc/app.conf (2 bytes)",
    ] {
        assert!(shown.contains(part), "{part:?} not in:\n{shown}");
    }
    assert_eq!(format!("{:?}", outcome()), shown);
}
