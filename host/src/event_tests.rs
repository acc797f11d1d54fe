use super::*;
use crate::bindings::RelationRef;
use crate::charm_dir::{Endpoint, Role};
use proptest::prelude::*;

/// A charm's metadata with every kind of entity, for the tests of modules
/// that read events too.
pub(crate) fn metadata() -> Metadata {
    let ep = |role| Endpoint {
        role,
        interface: "x".into(),
        limit: None,
    };
    Metadata {
        name: "gw".into(),
        endpoints: [
            ("istio-pilot".to_string(), ep(Role::Requires)),
            ("db".to_string(), ep(Role::Requires)),
            ("my-peer".to_string(), ep(Role::Peers)),
            // An endpoint whose name ends like a fixed hook must not confuse.
            ("config".to_string(), ep(Role::Provides)),
        ]
        .into(),
        storage: vec!["data".into(), "cache-dir".into()],
        containers: vec!["work-load".into()],
        ..Metadata::default()
    }
}

pub(crate) fn actions() -> Actions {
    Actions {
        names: vec!["show-status".into(), "backup".into()],
        ..Actions::default()
    }
}

fn env(path: &str, extra: &[(&str, &str)]) -> JujuEnv {
    let mut vars = vec![
        ("JUJU_DISPATCH_PATH", path),
        ("JUJU_UNIT_NAME", "gw/0"),
        ("PATH", "/usr/bin"),
    ];
    vars.extend_from_slice(extra);
    JujuEnv::from_vars(vars)
}

fn resolve_ok(path: &str, extra: &[(&str, &str)]) -> Event {
    match resolve(&env(path, extra), &metadata(), &actions()) {
        Ok(Resolved::Event(e)) => e,
        other => panic!("{path}: {other:?}"),
    }
}

fn rel(
    endpoint: &str,
    id: u32,
    app: &str,
    unit: Option<&str>,
    departing: Option<&str>,
) -> RelationEvent {
    RelationEvent {
        relation: RelationRef {
            endpoint: endpoint.into(),
            id,
        },
        remote_app: app.into(),
        remote_unit: unit.map(Into::into),
        departing_unit: departing.map(Into::into),
    }
}

#[test]
fn every_fixed_hook_of_the_table() {
    let fixed = ALL_KINDS.iter().filter_map(|(kind, _, form)| match form {
        HookForm::Fixed(name) => Some((*name, kind)),
        _ => None,
    });
    for (name, kind) in fixed {
        let mut extra = vec![];
        if name.starts_with("secret-") {
            extra = vec![
                ("JUJU_SECRET_ID", "secret:abc"),
                ("JUJU_SECRET_LABEL", "tls"),
                ("JUJU_SECRET_REVISION", "3"),
            ];
        }
        let e = resolve_ok(&format!("hooks/{name}"), &extra);
        assert_eq!(kind_of(&e), *kind, "{name}");
        assert_eq!(describe(&e), *name);
    }
}

#[test]
fn relation_hooks_keep_dashes() {
    let vars = [
        ("JUJU_RELATION", "istio-pilot"),
        ("JUJU_RELATION_ID", "istio-pilot:7"),
        ("JUJU_REMOTE_APP", "pilot"),
        ("JUJU_REMOTE_UNIT", "pilot/2"),
    ];
    assert_eq!(
        resolve_ok("hooks/istio-pilot-relation-changed", &vars),
        Event::RelationChanged(rel("istio-pilot", 7, "pilot", Some("pilot/2"), None))
    );
    assert_eq!(
        resolve_ok("hooks/istio-pilot-relation-joined", &vars),
        Event::RelationJoined(rel("istio-pilot", 7, "pilot", Some("pilot/2"), None))
    );
    let mut departed = vars.to_vec();
    departed.push(("JUJU_DEPARTING_UNIT", "pilot/2"));
    assert_eq!(
        resolve_ok("hooks/istio-pilot-relation-departed", &departed),
        Event::RelationDeparted(rel(
            "istio-pilot",
            7,
            "pilot",
            Some("pilot/2"),
            Some("pilot/2")
        ))
    );
    // created and broken have no remote unit; broken may lack the remote app.
    let bare = [
        ("JUJU_RELATION", "my-peer"),
        ("JUJU_RELATION_ID", "my-peer:0"),
        ("JUJU_REMOTE_UNIT", ""),
    ];
    assert_eq!(
        resolve_ok("hooks/my-peer-relation-broken", &bare),
        Event::RelationBroken(rel("my-peer", 0, "", None, None))
    );
    let mut created = bare.to_vec();
    created.push(("JUJU_REMOTE_APP", "gw"));
    assert_eq!(
        resolve_ok("hooks/my-peer-relation-created", &created),
        Event::RelationCreated(rel("my-peer", 0, "gw", None, None))
    );
    // An empty JUJU_REMOTE_APP is the remote unit's application, as ops
    // derives it; without either, a joined hook is refused.
    let no_app = [
        ("JUJU_RELATION", "my-peer"),
        ("JUJU_RELATION_ID", "my-peer:0"),
        ("JUJU_REMOTE_APP", ""),
        ("JUJU_REMOTE_UNIT", "gw/3"),
    ];
    assert_eq!(
        resolve_ok("hooks/my-peer-relation-joined", &no_app),
        Event::RelationJoined(rel("my-peer", 0, "gw", Some("gw/3"), None))
    );
    assert!(
        resolve(
            &env("hooks/my-peer-relation-joined", &bare),
            &metadata(),
            &actions()
        )
        .is_err()
    );
    // An endpoint named like a fixed hook's prefix.
    let cfg = [
        ("JUJU_RELATION", "config"),
        ("JUJU_RELATION_ID", "config:1"),
        ("JUJU_REMOTE_APP", "a"),
    ];
    assert_eq!(
        kind_of(&resolve_ok("hooks/config-relation-changed", &cfg)),
        EventKind::RelationChanged
    );
}

#[test]
fn storage_pebble_secret_and_action_context() {
    assert_eq!(
        resolve_ok(
            "hooks/cache-dir-storage-attached",
            &[
                ("JUJU_STORAGE_ID", "cache-dir/3"),
                ("JUJU_STORAGE_KIND", "filesystem"),
                ("JUJU_STORAGE_LOCATION", "/srv/cache")
            ]
        ),
        Event::StorageAttached(StorageEvent {
            name: "cache-dir".into(),
            id: "cache-dir/3".into(),
            kind: Some("filesystem".into()),
            location: Some("/srv/cache".into()),
        })
    );
    let wl = ("JUJU_WORKLOAD_NAME", "work-load");
    assert_eq!(
        resolve_ok("hooks/work-load-pebble-ready", &[wl]),
        Event::PebbleReady("work-load".into())
    );
    assert_eq!(
        resolve_ok(
            "hooks/work-load-pebble-custom-notice",
            &[
                wl,
                ("JUJU_NOTICE_ID", "12"),
                ("JUJU_NOTICE_TYPE", "custom"),
                ("JUJU_NOTICE_KEY", "example.com/a")
            ]
        ),
        Event::PebbleCustomNotice(NoticeEvent {
            container: "work-load".into(),
            id: "12".into(),
            type_: "custom".into(),
            key: "example.com/a".into(),
        })
    );
    for (hook, failed) in [
        ("hooks/work-load-pebble-check-failed", true),
        ("hooks/work-load-pebble-check-recovered", false),
    ] {
        let c = CheckEvent {
            container: "work-load".into(),
            check: "up".into(),
        };
        let want = if failed {
            Event::PebbleCheckFailed(c)
        } else {
            Event::PebbleCheckRecovered(c)
        };
        assert_eq!(
            resolve_ok(hook, &[wl, ("JUJU_PEBBLE_CHECK_NAME", "up")]),
            want
        );
    }
    assert_eq!(
        resolve_ok("hooks/secret-changed", &[("JUJU_SECRET_ID", "secret:x")]),
        Event::SecretChanged(SecretEvent {
            id: "secret:x".into(),
            label: None,
            revision: None
        })
    );
    assert_eq!(
        resolve_ok(
            "actions/show-status",
            &[
                ("JUJU_ACTION_NAME", "show-status"),
                ("JUJU_ACTION_UUID", "42")
            ]
        ),
        Event::Action(ActionEvent {
            name: "show-status".into(),
            id: "42".into()
        })
    );
}

#[test]
fn unknown_hooks_are_ignored_not_errors() {
    for path in [
        "hooks/frobnicate",
        "hooks/nope-relation-changed",
        "hooks/other-pebble-ready",
        "hooks/gone-storage-detaching",
        "hooks/-relation-changed",
        "actions/explode",
    ] {
        match resolve(&env(path, &[]), &metadata(), &actions()) {
            Ok(Resolved::Unknown { .. }) => {}
            other => panic!("{path}: {other:?}"),
        }
    }
}

#[test]
fn bad_environments_are_clear_errors() {
    let m = metadata();
    let a = actions();
    let e = resolve(&JujuEnv::from_vars([("JUJU_UNIT_NAME", "gw/0")]), &m, &a).unwrap_err();
    assert!(e.to_string().contains("JUJU_DISPATCH_PATH"), "{e}");
    let e = resolve(&env("install", &[]), &m, &a).unwrap_err();
    assert_eq!(e, EventError::BadPath("install".into()));
    let e = resolve(
        &env("hooks/db-relation-changed", &[("JUJU_RELATION", "db")]),
        &m,
        &a,
    )
    .unwrap_err();
    assert!(e.to_string().contains("JUJU_RELATION_ID"), "{e}");
    let e = resolve(
        &env(
            "hooks/db-relation-changed",
            &[
                ("JUJU_RELATION", "istio-pilot"),
                ("JUJU_RELATION_ID", "db:1"),
            ],
        ),
        &m,
        &a,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            EventError::Mismatch {
                var: "JUJU_RELATION",
                ..
            }
        ),
        "{e}"
    );
    let e = resolve(
        &env(
            "hooks/db-relation-changed",
            &[
                ("JUJU_RELATION", "db"),
                ("JUJU_RELATION_ID", "db:x"),
                ("JUJU_REMOTE_APP", "a"),
            ],
        ),
        &m,
        &a,
    )
    .unwrap_err();
    assert!(e.to_string().contains("`<endpoint>:<number>`"), "{e}");
    let e = resolve(
        &env("hooks/secret-expired", &[("JUJU_SECRET_ID", "s")]),
        &m,
        &a,
    )
    .unwrap_err();
    assert!(e.to_string().contains("JUJU_SECRET_REVISION"), "{e}");
    let e = resolve(&env("actions/backup", &[]), &m, &a).unwrap_err();
    assert!(e.to_string().contains("JUJU_ACTION_UUID"), "{e}");
}

#[test]
fn kind_names_cover_every_kind_once() {
    for (kind, name, _) in ALL_KINDS {
        assert_eq!(kind_from_name(name), Some(*kind));
        assert_eq!(kind_name(*kind), *name);
        assert_eq!(
            ALL_KINDS.iter().filter(|(k, _, _)| k == kind).count(),
            1,
            "{name}"
        );
    }
    // Only the action kind has no hook name.
    let no_hook: Vec<_> = ALL_KINDS
        .iter()
        .filter(|(k, _, _)| hook_name(*k, Some("x")).is_none())
        .collect();
    assert_eq!(no_hook, [&(EventKind::Action, "action", HookForm::Action)]);
}

#[test]
fn dispatch_paths() {
    assert_eq!(
        parse_dispatch_path("hooks/install"),
        Ok(DispatchPath::Hook("install".into()))
    );
    assert_eq!(
        parse_dispatch_path("/var/lib/juju/charm/hooks/db-relation-joined"),
        Ok(DispatchPath::Hook("db-relation-joined".into()))
    );
    assert_eq!(
        parse_dispatch_path("actions/a-b"),
        Ok(DispatchPath::Action("a-b".into()))
    );
    for bad in ["", "install", "hooks/", "other/install", "./dispatch"] {
        assert!(parse_dispatch_path(bad).is_err(), "{bad}");
    }
}

#[test]
fn observations_match_kind_and_entity() {
    let e = Event::RelationChanged(rel("db", 1, "pg", None, None));
    let o = |kind, entity: Option<&str>| Observation {
        kind,
        entity: entity.map(Into::into),
    };
    assert!(observes(&o(EventKind::RelationChanged, None), &e));
    assert!(observes(&o(EventKind::RelationChanged, Some("db")), &e));
    assert!(!observes(&o(EventKind::RelationChanged, Some("db2")), &e));
    assert!(!observes(&o(EventKind::RelationJoined, Some("db")), &e));
    assert!(observes(&o(EventKind::Install, None), &Event::Install));
    assert!(!observes(
        &o(EventKind::Install, Some("x")),
        &Event::Install
    ));
}

fn entity_kinds() -> Vec<EventKind> {
    ALL_KINDS
        .iter()
        .filter(|(_, _, f)| matches!(f, HookForm::Entity(..)))
        .map(|(k, _, _)| *k)
        .collect()
}

proptest! {
    /// Any entity name Juju allows (lowercase, digits, dashes, even ones that
    /// end like another suffix) round-trips through the hook name.
    #[test]
    fn hook_names_round_trip(
        entity in "[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,4}",
        which in 0usize..11,
    ) {
        prop_assert_eq!(entity_kinds().len(), 11);
        let kind = entity_kinds()[which];
        let hook = hook_name(kind, Some(&entity)).unwrap();
        prop_assert_eq!(classify_hook(&hook), Some((kind, Some(entity.as_str()))));
    }

    /// Relation hooks for any endpoint name resolve to that endpoint and id.
    #[test]
    fn relation_events_resolve(
        endpoint in "[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,5}){0,3}",
        id in 0u32..100_000,
        which in 0usize..5,
    ) {
        let suffix = ["created", "joined", "changed", "departed", "broken"][which];
        let mut m = metadata();
        m.endpoints.insert(endpoint.clone(), Endpoint { role: Role::Requires, interface: "i".into(), limit: None });
        let rid = format!("{endpoint}:{id}");
        let e = env(
            &format!("hooks/{endpoint}-relation-{suffix}"),
            &[("JUJU_RELATION", &endpoint), ("JUJU_RELATION_ID", &rid), ("JUJU_REMOTE_APP", "r")],
        );
        let Ok(Resolved::Event(ev)) = resolve(&e, &m, &actions()) else {
            return Err(TestCaseError::fail("not resolved"));
        };
        let r = relation_of(&ev).unwrap();
        prop_assert_eq!(&r.relation.endpoint, &endpoint);
        prop_assert_eq!(r.relation.id, id);
        prop_assert_eq!(entity_of(&ev), Some(endpoint.as_str()));
    }

    /// Whatever the path, resolving never panics.
    #[test]
    fn arbitrary_paths_never_panic(path in "\\PC{0,40}") {
        let _ = resolve(&env(&path, &[]), &metadata(), &actions());
    }
}

#[test]
fn event_names_list_every_declared_entity_and_classify_back() {
    let names = event_names(&metadata(), &actions());
    for want in [
        "install",
        "secret-expired",
        "istio-pilot-relation-departed",
        "cache-dir-storage-detaching",
        "work-load-pebble-check-recovered",
        "actions/backup",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // 18 fixed hooks, 5 per endpoint, 2 per storage, 4 per container, 1 per action.
    assert_eq!(names.len(), 18 + 5 * 4 + 2 * 2 + 4 + 2);
    for name in names.iter().filter(|n| !n.starts_with("actions/")) {
        let (kind, entity) = classify_hook(name).unwrap();
        assert_eq!(hook_name(kind, entity).as_deref(), Some(name.as_str()));
        if let Some(entity) = entity {
            check_entity(kind, entity, &metadata(), &actions()).unwrap();
        }
    }
}
