//! The provider on one unit, through the harness: the leader answers a
//! request with endpoints and a user secret, made once per relation; a
//! request that does not fit is skipped and logged; a replica writes
//! nothing.

use wasm_charm_testing::{Charm, Event, Relation, State, Status};

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

fn requested() -> State {
    State::new().unit("db/0").relation(
        Relation::new("database:1", "app")
            .unit("app/0")
            .app_data("database", "orders"),
    )
}

#[test]
fn the_leader_answers_a_request_with_endpoints_and_a_granted_user_secret() {
    let out = charm().run(
        &requested(),
        Event::relation_changed("database").remote_unit("app/0"),
    );
    out.assert_ok();
    let bag = out.relation("database:1").expect("the relation").local_app;
    assert_eq!(bag.get("database").map(String::as_str), Some("orders"));
    assert_eq!(
        bag.get("endpoints").map(String::as_str),
        Some("10.0.0.10:5432")
    );
    let uri = bag.get("secret-user").expect("a secret-user");
    assert!(uri.starts_with("secret:"), "{uri}");
    assert_eq!(
        out.scope("handler/database"),
        Some(Status::active("serving 1 database"))
    );
}

#[test]
fn a_replica_writes_nothing_on_the_relation() {
    let out = charm().run(
        &requested().leader(false),
        Event::relation_changed("database").remote_unit("app/0"),
    );
    out.assert_ok();
    assert!(
        out.relation("database:1")
            .expect("the relation")
            .local_app
            .is_empty()
    );
    assert_eq!(
        out.scope("handler/database"),
        Some(Status::active("replica"))
    );
}

/// A requirer's bag that does not fit the interface is skipped and logged,
/// naming the relation and the field; the other relations are answered.
#[test]
fn a_request_that_does_not_fit_is_skipped_and_the_others_answered() {
    let state = requested().relation(
        Relation::new("database:2", "shop")
            .unit("shop/0")
            .app_data("database", "shop")
            .app_data("requested-secrets", "username,password"),
    );
    let out = charm().run(
        &state,
        Event::relation_changed("database")
            .relation("database:1")
            .remote_unit("app/0"),
    );
    out.assert_ok();
    assert!(
        out.logged("skipped: database:2, the remote application's bag (postgresql_client v0): field `requested-secrets`"),
        "{:?}",
        out.logs()
    );
    assert!(
        out.relation("database:2")
            .expect("the relation")
            .local_app
            .is_empty()
    );
    let answered = out.relation("database:1").expect("the relation").local_app;
    assert_eq!(answered.get("database").map(String::as_str), Some("orders"));
    assert_eq!(
        out.scope("handler/database"),
        Some(Status::active("serving 1 database"))
    );
}

/// The relation's user is made once, in a secret granted to the relation
/// and labelled for it; the next answer finds it by that label.
#[test]
fn the_relations_user_is_made_once_and_found_again_by_its_label() {
    let event = || Event::relation_changed("database").remote_unit("app/0");
    let first = charm().run(&requested(), event());
    first.assert_ok();
    let made: Vec<&String> = first
        .tool_calls()
        .iter()
        .filter(|c| c.starts_with("secret-add") || c.starts_with("secret-grant"))
        .collect();
    assert_eq!(made.len(), 2, "{:?}", first.tool_calls());
    assert!(
        made[0].contains("--label wasm-charm.database.database.1"),
        "{made:?}"
    );
    assert!(made[1].contains("--relation database:1"), "{made:?}");
    let uri = first
        .relation("database:1")
        .expect("the relation")
        .local_app["secret-user"]
        .clone();

    assert!(
        first
            .tool_calls()
            .iter()
            .any(|c| c.starts_with("relation-set")),
        "{:?}",
        first.tool_calls()
    );
    let again = charm().run(&first.state(), event());
    again.assert_ok();
    assert!(
        !again
            .tool_calls()
            .iter()
            // Nothing new: no user made, and the bag, unchanged, not written.
            .any(|c| c.starts_with("secret-add") || c.starts_with("relation-set")),
        "{:?}",
        again.tool_calls()
    );
    assert_eq!(
        again
            .relation("database:1")
            .expect("the relation")
            .local_app["secret-user"],
        uri
    );
}
