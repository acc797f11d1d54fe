//! The gateway charm on the host's simulated Juju, through the
//! wasm-charm-testing harness.

use wasm_charm_testing::{Charm, Event, Handler, Relation, State, Status};

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn install_blocks_on_every_concern_and_shows_the_worst() {
    let out = charm().run(&State::new().leader(false), Event::install());
    out.assert_ok();
    assert_eq!(
        out.scope("handler/config"),
        Some(Status::blocked("Config item `kind` must be set")),
        "{out}"
    );
    assert_eq!(
        out.scope("handler/pilot"),
        Some(Status::blocked("Waiting for istio-pilot relation"))
    );
    assert_eq!(
        out.scope("handler/leader"),
        Some(Status::waiting("Waiting for leadership"))
    );
    // The merge: the oldest of the most severe, and how many others.
    assert_eq!(
        out.unit_status(),
        Some(Status::blocked("Config item `kind` must be set (+2 more)"))
    );
    assert!(out.unit_status_set());
    assert_eq!(
        out.handler("config"),
        Some(&Handler::Set(Status::blocked(
            "Config item `kind` must be set"
        )))
    );
}

#[test]
fn fixing_the_config_never_hides_the_relation() {
    let installed = charm().run(&State::new(), Event::install()).state();
    let out = charm().run(&installed.config("kind", "egress"), Event::config_changed());
    assert_eq!(out.scope("handler/config"), None, "{out}");
    assert_eq!(
        out.unit_status(),
        Some(Status::blocked("Waiting for istio-pilot relation"))
    );
    // The scope's history says when it was set and when it cleared.
    let history: Vec<_> = out
        .scope_history("handler/config")
        .into_iter()
        .map(|c| (c.event, c.status.is_some()))
        .collect();
    assert_eq!(
        history,
        [
            ("install".to_string(), true),
            ("config-changed".to_string(), false)
        ]
    );
}

#[test]
fn the_pilot_relation_and_its_data_end_the_wait() {
    let state = State::new().config("kind", "ingress");
    let joined = charm().run(
        &state,
        Event::relation_joined("istio-pilot").remote_app("pilot"),
    );
    assert_eq!(
        joined.scope("handler/pilot"),
        Some(Status::waiting("Waiting for istio-pilot relation data")),
        "{joined}"
    );
    assert_eq!(joined.relation_ids(), ["istio-pilot:0"]);
    let changed = charm().run(
        &joined.state(),
        Event::relation_changed("istio-pilot")
            .remote_app_data("service-name", "pilot")
            .remote_app_data("service-port", "15010"),
    );
    assert_eq!(changed.scope("handler/pilot"), None, "{changed}");
    assert_eq!(changed.unit_status(), Some(Status::active("")));
    let relation = changed.relation("istio-pilot:0").expect("the relation");
    assert_eq!(relation.remote_app, "pilot");
    assert_eq!(relation.remote_app_data["service-port"], "15010");
    // The gateway publishes nothing of its own.
    assert!(relation.local_app.is_empty() && relation.local_unit.is_empty());
}

#[test]
fn half_the_pilots_data_is_still_waiting() {
    let state = State::new().config("kind", "ingress").relation(
        Relation::new("istio-pilot:3", "pilot")
            .unit("pilot/0")
            .app_data("service-name", "pilot"),
    );
    let out = charm().run(&state, Event::relation_changed("istio-pilot"));
    assert_eq!(
        out.unit_status(),
        Some(Status::waiting("Waiting for istio-pilot relation data")),
        "{out}"
    );
}

#[test]
fn leadership_clears_the_leader_scope_and_a_status_written_stays() {
    let state = State::new()
        .leader(false)
        .config("kind", "ingress")
        .relation(
            Relation::new("istio-pilot:0", "pilot")
                .app_data("service-name", "pilot")
                .app_data("service-port", "15010"),
        );
    let follower = charm().run(&state, Event::config_changed());
    assert_eq!(
        follower.unit_status(),
        Some(Status::waiting("Waiting for leadership")),
        "{follower}"
    );
    // update-status runs no handler of this charm: the status stays, and
    // nothing is written again.
    let quiet = charm().run(&follower.state(), Event::update_status());
    assert!(quiet.handlers().is_empty(), "{quiet}");
    assert!(!quiet.unit_status_set());
    assert_eq!(quiet.unit_status(), follower.unit_status());
    let leader = charm().run(&quiet.state().leader(true), Event::leader_elected());
    assert_eq!(leader.scope("handler/leader"), None, "{leader}");
    assert_eq!(leader.unit_status(), Some(Status::active("")));
    assert!(
        leader
            .tool_calls()
            .iter()
            .any(|c| c.starts_with("status-set")),
        "{leader}"
    );
}

#[test]
fn an_event_the_charm_cannot_receive_is_refused_by_name() {
    let e = charm()
        .try_run(&State::new(), Event::relation_joined("db"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("charm gateway, event db-relation-joined"), "{e}");
    let e = charm()
        .try_run(
            &State::new().config("knd", "ingress"),
            Event::config_changed(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("knd"), "{e}");
}
