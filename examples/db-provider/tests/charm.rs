//! The provider on one unit, through the harness: the leader answers a
//! request with endpoints and a user secret; a replica writes nothing.

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
