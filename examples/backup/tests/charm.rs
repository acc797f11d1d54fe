//! The backup charm's action on the host's simulated Juju, through the
//! wasm-charm-testing harness: typed parameters with actions.yaml's
//! defaults, progress messages, nested results, and both ways the action
//! fails.

use serde_json::json;
use wasm_charm_testing::{Charm, Event, Handler, State, Status};

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

/// The unit after install, with config.yaml's default databases.
fn installed() -> State {
    let out = charm().run(&State::new(), Event::install());
    out.assert_ok();
    out.state()
}

#[test]
fn install_is_ready_with_the_default_databases() {
    let out = charm().run(&State::new(), Event::install());
    out.assert_ok();
    assert_eq!(
        out.unit_status(),
        Some(Status::active("Ready for backups")),
        "{out}"
    );
    assert_eq!(out.handler("config"), Some(&Handler::Cleared));
    assert!(out.scopes().is_empty());
}

#[test]
fn no_databases_blocks() {
    let out = charm().run(
        &installed().config("databases", ""),
        Event::config_changed(),
    );
    assert_eq!(
        out.unit_status(),
        Some(Status::blocked(
            "Config item `databases` must name at least one database"
        )),
        "{out}"
    );
}

#[test]
fn a_backup_reports_its_progress_and_results_with_the_defaults() {
    let out = charm().run(
        &installed(),
        Event::action("backup").param("target", "/srv/backups/"),
    );
    out.assert_ok();
    assert_eq!(out.action_failed(), None, "{out}");
    // compress and level come from actions.yaml's defaults; Juju's id of the
    // run names the backup.
    let results: Vec<(&str, &str)> = out
        .action_results()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        results,
        [
            ("backup.compression", "gzip-6"),
            ("backup.id", "b-1"),
            ("backup.target", "/srv/backups"),
            ("databases.orders", "/srv/backups/b-1/orders.sql.gz"),
            ("databases.users", "/srv/backups/b-1/users.sql.gz"),
        ]
    );
    for line in [
        "Backing up 2 databases to /srv/backups (gzip-6)",
        "users (1/2)",
        "orders (2/2)",
        "Backup b-1 done",
    ] {
        assert!(out.logged(line), "{line:?} not logged:\n{out}");
    }
    // The scope the action keeps: the unit shows it while nothing is wrong.
    let last = Status::active("Last backup b-1 to /srv/backups");
    assert_eq!(out.scope("last-backup"), Some(last.clone()));
    assert_eq!(out.unit_status(), Some(last));
    assert_eq!(out.scope_history("last-backup")[0].event, "action backup");
}

#[test]
fn typed_parameters_choose_the_databases_and_compression() {
    let out = charm().run(
        &installed(),
        Event::action("backup")
            .param("target", "s3://bucket/nightly")
            .param("compress", false)
            .param("databases", json!(["orders"])),
    );
    assert_eq!(out.action_failed(), None, "{out}");
    assert_eq!(out.action_result("backup.compression"), Some("none"));
    assert_eq!(
        out.action_result("databases.orders"),
        Some("s3://bucket/nightly/b-1/orders.sql")
    );
    assert_eq!(out.action_result("databases.users"), None);
}

#[test]
fn a_refused_request_fails_the_action_not_the_hook() {
    let state = installed();
    let out = charm().run(&state, Event::action("backup").param("target", "backups"));
    // action-fail: the process still exits 0, and the unit is untouched.
    out.assert_ok();
    assert_eq!(
        out.action_failed(),
        Some("target `backups` is neither an absolute path nor an s3:// URL"),
        "{out}"
    );
    assert!(out.action_results().is_empty());
    assert_eq!(out.handler("backup"), Some(&Handler::ActionDone(None)));
    assert_eq!(out.unit_status(), Some(Status::active("Ready for backups")));
    // A level past actions.yaml's bounds never reaches the charm: Juju
    // refuses the action against its schema.
    let refused = charm()
        .try_run(
            &state,
            Event::action("backup")
                .param("target", "/srv")
                .param("level", 12),
        )
        .expect_err("Juju refuses a level past the schema's maximum");
    assert!(
        refused
            .to_string()
            .contains("parameter `level`: must be <=9, but got 12"),
        "{refused}"
    );
}

#[test]
fn an_error_fails_the_action_and_keeps_nothing_it_wrote() {
    // A backup ran before: its scope is in the store.
    let before = charm()
        .run(
            &installed(),
            Event::action("backup").param("target", "/srv"),
        )
        .state();
    let out = charm().run(
        &before,
        Event::action("backup")
            .param("target", "/srv/other")
            .param("databases", json!(["users", "billing"])),
    );
    assert_eq!(
        out.action_failed(),
        Some("database `billing` is not served by this unit (config `databases`: users, orders)"),
        "{out}"
    );
    assert!(
        matches!(out.handler("backup"), Some(Handler::Error(e)) if e.contains("billing")),
        "{out}"
    );
    // The scope still tells of the earlier backup.
    assert_eq!(
        out.scope("last-backup"),
        Some(Status::active("Last backup b-1 to /srv"))
    );
}

#[test]
fn parameters_actions_yaml_does_not_allow_are_refused() {
    let e = charm()
        .try_run(&installed(), Event::action("backup"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("target"), "{e}");
    let e = charm()
        .try_run(
            &installed(),
            Event::action("backup")
                .param("target", "/srv")
                .param("level", "high"),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("level"), "{e}");
}

#[test]
fn a_result_key_juju_refuses_fails_the_action_keeping_earlier_results() {
    let state = installed().config("databases", "users,user_db");
    let out = charm().run(&state, Event::action("backup").param("target", "/srv"));
    out.assert_ok();
    let failed = out
        .action_failed()
        .unwrap_or_else(|| panic!("not failed:\n{out}"));
    assert!(failed.contains("databases.user_db"), "{out}");
    // Juju keeps what action-set sent before the failure.
    assert_eq!(
        out.action_result("databases.users"),
        Some("/srv/b-1/users.sql.gz")
    );
    assert_eq!(out.action_result("backup.id"), None);
    // The event keeps nothing else: no last-backup scope.
    assert_eq!(out.scope("last-backup"), None);
}
