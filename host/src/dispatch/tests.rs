//! The checks of the declarations (step 3) and the expiry of scopes (step 6).

use super::declarations::{MAX_HANDLERS, validate_handlers};
use super::scopes::expired;
use crate::bindings::{Event, EventKind, Handler, Observation, Priority};
use crate::charm_dir::{Actions, CharmDir, ConfigSchema, Endpoint, Manifest, Metadata, Role};
use crate::status::store::{ScopeStore, Target, Write};
use std::collections::BTreeMap;

fn charm() -> CharmDir {
    CharmDir {
        path: "/charm".into(),
        metadata: Metadata {
            name: "c".into(),
            endpoints: [(
                "db".to_string(),
                Endpoint {
                    role: Role::Requires,
                    interface: "pg".into(),
                    limit: None,
                },
            )]
            .into(),
            storage: vec!["data".into()],
            containers: vec![],
            ..Metadata::default()
        },
        config: ConfigSchema::default(),
        actions: Actions {
            names: vec!["backup".into()],
            ..Actions::default()
        },
        manifest: Manifest::default(),
    }
}

fn handler(name: &str, observes: &[(EventKind, Option<&str>)]) -> Handler {
    Handler {
        name: name.into(),
        observes: observes
            .iter()
            .map(|(kind, entity)| Observation {
                kind: *kind,
                entity: entity.map(Into::into),
            })
            .collect(),
        priority: Priority::Normal,
    }
}

fn check(handlers: Vec<Handler>) -> Result<(), String> {
    validate_handlers(handlers, &charm())
        .map(drop)
        .map_err(|e| e.to_string())
}

#[test]
fn declarations_are_checked_against_the_charm() {
    assert_eq!(
        check(vec![
            handler(
                "a",
                &[
                    (EventKind::Install, None),
                    (EventKind::RelationChanged, Some("db"))
                ]
            ),
            handler(
                "b-2",
                &[
                    (EventKind::Action, Some("backup")),
                    (EventKind::StorageAttached, Some("data"))
                ]
            ),
        ]),
        Ok(())
    );
    let e = check(vec![handler("a", &[]), handler("a", &[])]).unwrap_err();
    assert_eq!(e, "handler `a` is declared twice");
    let e = check(vec![handler("A", &[])]).unwrap_err();
    assert!(e.contains("handler name `A`"), "{e}");
    assert!(check(vec![handler(&"x".repeat(121), &[])]).is_err());
    let e = check(vec![handler(
        "a",
        &[(EventKind::RelationJoined, Some("cache"))],
    )])
    .unwrap_err();
    assert_eq!(
        e,
        "handler `a` observes relation-joined of `cache`, but metadata.yaml declares no relation endpoint `cache`"
    );
    let e = check(vec![handler(
        "a",
        &[(EventKind::PebbleReady, Some("data"))],
    )])
    .unwrap_err();
    assert!(
        e.ends_with("metadata.yaml declares no container `data`"),
        "{e}"
    );
    let e = check(vec![handler("a", &[(EventKind::Action, Some("restore"))])]).unwrap_err();
    assert!(
        e.ends_with("actions.yaml declares no action `restore`"),
        "{e}"
    );
    let e = check(vec![handler("a", &[(EventKind::Install, Some("db"))])]).unwrap_err();
    assert!(e.contains("install events are not about a named"), "{e}");
    let many: Vec<Handler> = (0..=MAX_HANDLERS)
        .map(|i| handler(&format!("h{i}"), &[]))
        .collect();
    let e = check(many).unwrap_err();
    assert_eq!(
        e,
        "the component declares 65 handlers; this host runs at most 64"
    );
}

#[test]
fn owners_gone_expire_their_scopes() {
    use crate::bindings::{RelationEvent, RelationRef};
    use crate::status::merge::{Band, Kind};
    let mut store = ScopeStore::default();
    for (target, scope) in [
        (Target::Unit, "relation/db:1"),
        (Target::App, "relation/db:1"),
        (Target::Unit, "relation/db:2"),
        (Target::Unit, "unit/pg/0"),
        (Target::Unit, "unit/pg/1"),
        (Target::Unit, "handler/kept"),
        (Target::Unit, "handler/removed"),
        (Target::Unit, "free"),
    ] {
        store.apply(
            Write::Set {
                target,
                scope: scope.into(),
                status: Kind::Blocked,
                message: "x".into(),
                priority: Band::Normal,
            },
            "e",
            0,
        );
    }
    let handlers = [handler("kept", &[])];
    let rel = |departing: Option<&str>| RelationEvent {
        relation: RelationRef {
            endpoint: "db".into(),
            id: 1,
        },
        remote_app: "pg".into(),
        remote_unit: departing.map(Into::into),
        departing_unit: departing.map(Into::into),
    };
    assert_eq!(
        expired(
            &store,
            &Event::RelationBroken(rel(None)),
            &handlers,
            &BTreeMap::new()
        ),
        vec![
            (Target::Unit, "handler/removed".to_string()),
            (Target::Unit, "relation/db:1".to_string()),
            (Target::App, "relation/db:1".to_string()),
        ]
    );
    assert_eq!(
        expired(
            &store,
            &Event::RelationDeparted(rel(Some("pg/1"))),
            &handlers,
            &BTreeMap::new()
        ),
        vec![
            (Target::Unit, "handler/removed".to_string()),
            (Target::Unit, "unit/pg/1".to_string()),
        ]
    );
    assert_eq!(
        expired(&store, &Event::UpdateStatus, &handlers, &BTreeMap::new()),
        vec![(Target::Unit, "handler/removed".to_string())]
    );
}
