//! The client on one unit, and with the provider in a model of three
//! units each (`wasm_charm_testing::Model`): every event a real dispatch.

use wasm_charm_testing::{Charm, Event, Model, Relation, State, Status};

const CONFIG: &str = "/etc/db-client/client.conf";
const PASSWORD: &str = "/etc/db-client/password";
const DATABASE_CA: &str = "/etc/db-client/database-ca.pem";

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn without_a_relation_it_is_blocked_and_without_an_answer_it_waits() {
    let out = charm().run(&State::new(), Event::install());
    assert_eq!(
        out.scope("handler/connection"),
        Some(Status::blocked("needs a database relation"))
    );
    let state = State::new().relation(Relation::new("database:1", "db").unit("db/0"));
    let out = charm().run(&state, Event::relation_created("database"));
    out.assert_ok();
    assert_eq!(
        out.relation("database:1")
            .expect("the relation")
            .local_app
            .get("database")
            .map(String::as_str),
        Some("app")
    );
    assert_eq!(
        out.scope("handler/connection"),
        Some(Status::waiting("waiting for database app on database:1"))
    );
}

#[test]
fn with_the_providers_answer_it_connects_as_the_user_of_its_secret() {
    // The other side in one line: a provider that has answered.
    let state =
        State::new().database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u1", "p1");
    let out = charm().run(&state, Event::relation_changed("database"));
    out.assert_ok();
    assert_eq!(
        out.scope("handler/connection"),
        Some(Status::active("connected to 10.0.0.1:5432 as u1"))
    );
    // The workload's configuration, the password apart, and the service
    // started with it: the probe finds it running, so the unit is ready.
    let config = out.file_text(CONFIG).expect("the configuration");
    assert!(
        config.contains("endpoints = 10.0.0.1:5432\nuser = u1\n"),
        "{config}"
    );
    assert!(
        config.contains("password-file = /etc/db-client/password"),
        "{config}"
    );
    assert_eq!(out.file_text(PASSWORD), Some("p1"));
    assert_eq!(out.service("db-client").0, "active");
    assert_eq!(out.scope("probe/db-client"), None);
    assert_eq!(
        out.unit_status(),
        Some(Status::active("connected to 10.0.0.1:5432 as u1"))
    );
}

/// Until the database answered, the service does not run, and the probe
/// says so under the handler's own `blocked`.
#[test]
fn the_service_is_not_started_before_the_database_answered() {
    let out = charm().run(&State::new(), Event::install());
    assert_eq!(out.service("db-client").0, "inactive");
    assert_eq!(out.file_text(CONFIG), None);
    assert_eq!(
        out.scope("probe/db-client"),
        Some(Status::maintenance("service db-client not running"))
    );
    assert_eq!(
        out.unit_status(),
        Some(Status::blocked("needs a database relation (+1 more)"))
    );
}

/// The library's events, told apart by what the unit saw last: the first
/// answer is `database_created`, a new endpoint `endpoints_changed`, the
/// same answer again no event; the waiting scope is gone from the first.
#[test]
fn the_librarys_events_come_once_each_and_the_waiting_scope_clears_itself() {
    let waiting = Status::waiting("waiting for database app on database:1");
    let answered = State::new()
        .scope("handler/connection", waiting)
        .database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u1", "p1");
    let first = charm().run(&answered, Event::relation_changed("database"));
    first.assert_ok();
    assert!(
        first.logged("database created: credentials u1, configuration written, CA none"),
        "{:?}",
        first.logs()
    );
    assert_eq!(
        first.scope("handler/connection"),
        Some(Status::active("connected to 10.0.0.1:5432 as u1"))
    );
    // The same answer once more: the library emits nothing.
    let again = charm().run(&first.state(), Event::relation_changed("database"));
    assert!(
        !again.machine_calls().iter().any(|c| c.contains("start")),
        "unchanged, running: neither started nor restarted: {:?}",
        again.machine_calls()
    );
    assert!(
        again.logged("credentials read: credentials u1, configuration unchanged"),
        "{:?}",
        again.logs()
    );
    // The provider moved: its new endpoints, kept by the unit's store.
    let kept = first
        .stored("wasm-charm.database.database.1")
        .expect("kept");
    let moved = State::new()
        .stored_text("wasm-charm.database.database.1", kept)
        .database_provider("database:1", "pg", "app", "10.0.0.2:5432", "u1", "p1");
    let changed = charm().run(&moved, Event::relation_changed("database"));
    assert!(
        changed.logged("endpoints changed: credentials u1, configuration written"),
        "{:?}",
        changed.logs()
    );
    assert_eq!(
        changed.scope("handler/connection"),
        Some(Status::active("connected to 10.0.0.2:5432 as u1"))
    );
}

/// The provider's CA comes in a second granted secret; a secret-changed
/// reads its newest revision, as it does the user's.
#[test]
fn a_rotated_ca_is_read_at_its_newest_revision() {
    let ca = "secret:d0000000000000000ca0";
    let state = State::new()
        .database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u1", "p1")
        .section_yaml(
            "secrets",
            &format!(
                "{ca}: {{owner: pg, tracking: 1, revisions: [\
                 {{revision: 1, content: {{tls-ca: old-ca}}}}, \
                 {{revision: 2, content: {{tls-ca: new-ca}}}}]}}\n"
            ),
        )
        .section_yaml(
            "relations",
            &format!("database:1: {{app-data: {{tls: 'true', secret-tls: '{ca}'}}}}\n"),
        );
    let read = charm().run(&state, Event::relation_changed("database"));
    assert!(read.logged("CA sent"), "{:?}", read.logs());
    assert_eq!(read.file_text(DATABASE_CA), Some("old-ca"));
    let rotated = charm().run(&read.state(), Event::secret_changed().secret(ca));
    rotated.assert_ok();
    assert_eq!(rotated.file_text(DATABASE_CA), Some("new-ca"));
    assert!(
        rotated
            .file_text(CONFIG)
            .is_some_and(|c| c.contains("database-ca = ")),
        "{:?}",
        rotated.file_text(CONFIG)
    );
    // A new CA is a restart of the service that uses it.
    assert!(
        rotated
            .machine_calls()
            .iter()
            .any(|c| c.contains("restart")),
        "{:?}",
        rotated.machine_calls()
    );
}

#[test]
fn in_a_model_every_unit_connects_with_the_providers_user() {
    let db = Charm::build(concat!(env!("CARGO_MANIFEST_DIR"), "/../db-provider"));
    let model = Model::new();
    model.deploy(&db, "db", 3);
    model.deploy(&charm(), "app", 3);
    model.juju_ok(&["integrate", "app", "db"]);
    let now = model.read();
    let endpoints = "10.0.0.10:5432,10.0.0.11:5432,10.0.0.12:5432";
    assert_eq!(
        now.app_data("db", "database")
            .get("endpoints")
            .map(String::as_str),
        Some(endpoints)
    );
    for unit in now.units("app") {
        assert_eq!(
            now.scope(&unit, "handler/connection"),
            Some(Status::active(format!(
                "connected to {endpoints} as relation_1"
            ))),
            "{unit}: {:?}",
            now.events(&unit)
        );
        // Its service runs (the model's machine answers the probe, as
        // systemctl would), so the unit is ready with the handler's word.
        assert_eq!(now.scope(&unit, "probe/db-client"), None, "{unit}");
        assert_eq!(
            now.unit_status(&unit),
            Some(Status::active(format!(
                "connected to {endpoints} as relation_1"
            ))),
            "{unit}"
        );
    }
    // An hour on the model's clock: one update-status on every unit, and
    // still connected.
    model.juju_ok(&["model-config", "update-status-hook-interval=60m"]);
    model.advance("1h");
    let later = model.read();
    for unit in later.units("app").iter().chain(&later.units("db")) {
        assert_eq!(
            later.events(unit).last().map(String::as_str),
            Some("update-status"),
            "{unit}"
        );
    }
    assert_eq!(
        later.scope("app/2", "handler/connection"),
        now.scope("app/2", "handler/connection")
    );
}
