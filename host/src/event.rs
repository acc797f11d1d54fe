//! From `JUJU_DISPATCH_PATH` and the hook environment to a typed [`Event`]
//! (reference juju-protocol.md §1.2–§1.5). Pure: no I/O, so every row of
//! Juju's table is checked by unit and property tests.
//!
//! The hook name is matched against Juju's fixed names first, then against
//! the entity suffixes, longest first; the prefix before a suffix is the
//! endpoint, storage or container name with its dashes kept, and must be
//! declared in metadata.yaml. A hook the charm does not know is not an error:
//! Juju counts a missing handler as success, and a charm rolled back to an
//! older revision must not fail on a newer hook.

use crate::bindings::{
    ActionEvent, CheckEvent, Event, EventKind, NoticeEvent, Observation, RelationEvent,
    RelationRef, SecretEvent, StorageEvent,
};
use crate::charm_dir::{Actions, Metadata};
use crate::juju_env::{JujuEnv, MissingVar};

/// What `JUJU_DISPATCH_PATH` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchPath {
    Hook(String),
    Action(String),
}

/// The dispatch path or the environment does not describe a valid event.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EventError {
    #[error(transparent)]
    Missing(#[from] MissingVar),
    #[error("JUJU_DISPATCH_PATH `{0}` is not `hooks/<name>` or `actions/<name>`")]
    BadPath(String),
    #[error("{var} is `{value}`, which does not match the hook `{hook}`")]
    Mismatch {
        var: &'static str,
        value: String,
        hook: String,
    },
    #[error("{var} is `{value}`: {why}")]
    Invalid {
        var: &'static str,
        value: String,
        why: &'static str,
    },
    #[error("action `{0}` is not declared in actions.yaml")]
    UnknownAction(String),
}

/// The outcome of reading the dispatch path.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Event(Event),
    /// A hook this charm has no event for; the host exits 0, as Juju does
    /// for a missing hook.
    Unknown {
        hook: String,
        reason: String,
    },
}

/// Split `JUJU_DISPATCH_PATH`. Juju gives `hooks/<name>` or `actions/<name>`;
/// a leading directory (a legacy `argv[0]` such as `/charm/hooks/install`) is
/// tolerated, since only the last two components carry meaning.
pub fn parse_dispatch_path(path: &str) -> Result<DispatchPath, EventError> {
    let bad = || EventError::BadPath(path.to_string());
    let (dir, name) = path
        .trim_end_matches('/')
        .rsplit_once('/')
        .ok_or_else(bad)?;
    if name.is_empty() {
        return Err(bad());
    }
    match dir.rsplit('/').next() {
        Some("hooks") => Ok(DispatchPath::Hook(name.to_string())),
        Some("actions") => Ok(DispatchPath::Action(name.to_string())),
        _ => Err(bad()),
    }
}

/// Hooks without an entity, with their kinds.
const FIXED: &[(&str, EventKind)] = &[
    ("install", EventKind::Install),
    ("start", EventKind::Start),
    ("stop", EventKind::Stop),
    ("remove", EventKind::Remove),
    ("upgrade-charm", EventKind::UpgradeCharm),
    ("config-changed", EventKind::ConfigChanged),
    ("update-status", EventKind::UpdateStatus),
    ("leader-elected", EventKind::LeaderElected),
    ("leader-settings-changed", EventKind::LeaderSettingsChanged),
    ("leader-deposed", EventKind::LeaderDeposed),
    ("pre-series-upgrade", EventKind::PreSeriesUpgrade),
    ("post-series-upgrade", EventKind::PostSeriesUpgrade),
    ("collect-metrics", EventKind::CollectMetrics),
    ("meter-status-changed", EventKind::MeterStatusChanged),
    ("secret-changed", EventKind::SecretChanged),
    ("secret-rotate", EventKind::SecretRotate),
    ("secret-remove", EventKind::SecretRemove),
    ("secret-expired", EventKind::SecretExpired),
];

/// Every event kind with its WIT name (`relation-changed`, `action`).
pub const ALL_KINDS: &[(EventKind, &str)] = &[
    (EventKind::Install, "install"),
    (EventKind::Start, "start"),
    (EventKind::Stop, "stop"),
    (EventKind::Remove, "remove"),
    (EventKind::UpgradeCharm, "upgrade-charm"),
    (EventKind::ConfigChanged, "config-changed"),
    (EventKind::UpdateStatus, "update-status"),
    (EventKind::LeaderElected, "leader-elected"),
    (EventKind::LeaderSettingsChanged, "leader-settings-changed"),
    (EventKind::LeaderDeposed, "leader-deposed"),
    (EventKind::PreSeriesUpgrade, "pre-series-upgrade"),
    (EventKind::PostSeriesUpgrade, "post-series-upgrade"),
    (EventKind::CollectMetrics, "collect-metrics"),
    (EventKind::MeterStatusChanged, "meter-status-changed"),
    (EventKind::RelationCreated, "relation-created"),
    (EventKind::RelationJoined, "relation-joined"),
    (EventKind::RelationChanged, "relation-changed"),
    (EventKind::RelationDeparted, "relation-departed"),
    (EventKind::RelationBroken, "relation-broken"),
    (EventKind::StorageAttached, "storage-attached"),
    (EventKind::StorageDetaching, "storage-detaching"),
    (EventKind::PebbleReady, "pebble-ready"),
    (EventKind::PebbleCustomNotice, "pebble-custom-notice"),
    (EventKind::PebbleCheckFailed, "pebble-check-failed"),
    (EventKind::PebbleCheckRecovered, "pebble-check-recovered"),
    (EventKind::SecretChanged, "secret-changed"),
    (EventKind::SecretRotate, "secret-rotate"),
    (EventKind::SecretRemove, "secret-remove"),
    (EventKind::SecretExpired, "secret-expired"),
    (EventKind::Action, "action"),
];

/// The WIT name of an event kind.
pub fn kind_name(kind: EventKind) -> &'static str {
    ALL_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("?", |(_, n)| n)
}

/// The event kind of a WIT name.
pub fn kind_from_name(name: &str) -> Option<EventKind> {
    ALL_KINDS.iter().find(|(_, n)| *n == name).map(|(k, _)| *k)
}

/// What an entity prefix names, so it can be checked against metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntityKind {
    Endpoint,
    Storage,
    Container,
}

/// Entity hooks: `<entity><suffix>`, longest suffix first so that
/// `-pebble-check-recovered` is never read as something shorter.
const SUFFIXES: &[(&str, EventKind, EntityKind)] = &[
    (
        "-pebble-check-recovered",
        EventKind::PebbleCheckRecovered,
        EntityKind::Container,
    ),
    (
        "-pebble-custom-notice",
        EventKind::PebbleCustomNotice,
        EntityKind::Container,
    ),
    (
        "-pebble-check-failed",
        EventKind::PebbleCheckFailed,
        EntityKind::Container,
    ),
    (
        "-relation-departed",
        EventKind::RelationDeparted,
        EntityKind::Endpoint,
    ),
    (
        "-storage-detaching",
        EventKind::StorageDetaching,
        EntityKind::Storage,
    ),
    (
        "-storage-attached",
        EventKind::StorageAttached,
        EntityKind::Storage,
    ),
    (
        "-relation-created",
        EventKind::RelationCreated,
        EntityKind::Endpoint,
    ),
    (
        "-relation-changed",
        EventKind::RelationChanged,
        EntityKind::Endpoint,
    ),
    (
        "-relation-joined",
        EventKind::RelationJoined,
        EntityKind::Endpoint,
    ),
    (
        "-relation-broken",
        EventKind::RelationBroken,
        EntityKind::Endpoint,
    ),
    (
        "-pebble-ready",
        EventKind::PebbleReady,
        EntityKind::Container,
    ),
];

/// A hook name's kind and entity, before the environment is read.
/// `None`: not a hook name Juju uses.
pub fn classify_hook(hook: &str) -> Option<(EventKind, Option<&str>)> {
    if let Some((_, kind)) = FIXED.iter().find(|(name, _)| *name == hook) {
        return Some((*kind, None));
    }
    SUFFIXES.iter().find_map(|(suffix, kind, _)| {
        let entity = hook.strip_suffix(suffix)?;
        (!entity.is_empty()).then_some((*kind, Some(entity)))
    })
}

/// The hook name Juju uses for an event kind and entity; the inverse of
/// [`classify_hook`]. Actions have no hook name (`None`).
pub fn hook_name(kind: EventKind, entity: Option<&str>) -> Option<String> {
    if let Some((name, _)) = FIXED.iter().find(|(_, k)| *k == kind) {
        return Some(name.to_string());
    }
    let (suffix, _, _) = SUFFIXES.iter().find(|(_, k, _)| *k == kind)?;
    Some(format!("{}{suffix}", entity?))
}

fn entity_kind(kind: EventKind) -> Option<EntityKind> {
    SUFFIXES
        .iter()
        .find(|(_, k, _)| *k == kind)
        .map(|(_, _, e)| *e)
}

/// Whether the charm declares `entity` for events of `kind`: an endpoint,
/// storage or container of metadata.yaml, or an action of actions.yaml.
/// `Err` says what is missing.
pub fn check_entity(
    kind: EventKind,
    entity: &str,
    metadata: &Metadata,
    actions: &Actions,
) -> Result<(), String> {
    let (declared, missing) = match (kind, entity_kind(kind)) {
        (EventKind::Action, _) => (
            actions.names.iter().any(|a| a == entity),
            "actions.yaml declares no action",
        ),
        (_, Some(EntityKind::Endpoint)) => (
            metadata.endpoints.contains_key(entity),
            "metadata.yaml declares no relation endpoint",
        ),
        (_, Some(EntityKind::Storage)) => (
            metadata.storage.iter().any(|s| s == entity),
            "metadata.yaml declares no storage",
        ),
        (_, Some(EntityKind::Container)) => (
            metadata.containers.iter().any(|c| c == entity),
            "metadata.yaml declares no container",
        ),
        (_, None) => {
            return Err(format!(
                "{} events are not about a named relation, storage, container or action",
                kind_name(kind)
            ));
        }
    };
    if declared {
        Ok(())
    } else {
        Err(format!("{missing} `{entity}`"))
    }
}

/// Turn the environment into the event it describes.
pub fn resolve(
    env: &JujuEnv,
    metadata: &Metadata,
    actions: &Actions,
) -> Result<Resolved, EventError> {
    let hook = match parse_dispatch_path(env.dispatch_path()?)? {
        DispatchPath::Action(name) => return action(env, actions, name).map(Resolved::Event),
        DispatchPath::Hook(hook) => hook,
    };
    let unknown = |reason: String| {
        Ok(Resolved::Unknown {
            hook: hook.clone(),
            reason,
        })
    };
    let Some((kind, entity)) = classify_hook(&hook) else {
        return unknown("not a hook name Juju uses".into());
    };
    if let Some(entity) = entity
        && let Err(reason) = check_entity(kind, entity, metadata, actions)
    {
        return unknown(reason);
    }

    let entity = entity.unwrap_or_default();
    let check = |var: &'static str, value: &str| {
        if value == entity {
            Ok(())
        } else {
            Err(EventError::Mismatch {
                var,
                value: value.to_string(),
                hook: hook.clone(),
            })
        }
    };
    let event = match kind {
        EventKind::Install => Event::Install,
        EventKind::Start => Event::Start,
        EventKind::Stop => Event::Stop,
        EventKind::Remove => Event::Remove,
        EventKind::UpgradeCharm => Event::UpgradeCharm,
        EventKind::ConfigChanged => Event::ConfigChanged,
        EventKind::UpdateStatus => Event::UpdateStatus,
        EventKind::LeaderElected => Event::LeaderElected,
        EventKind::LeaderSettingsChanged => Event::LeaderSettingsChanged,
        EventKind::LeaderDeposed => Event::LeaderDeposed,
        EventKind::PreSeriesUpgrade => Event::PreSeriesUpgrade,
        EventKind::PostSeriesUpgrade => Event::PostSeriesUpgrade,
        EventKind::CollectMetrics => Event::CollectMetrics,
        EventKind::MeterStatusChanged => Event::MeterStatusChanged,
        EventKind::RelationCreated
        | EventKind::RelationJoined
        | EventKind::RelationChanged
        | EventKind::RelationDeparted
        | EventKind::RelationBroken => {
            let r = relation(env, kind, &check)?;
            match kind {
                EventKind::RelationCreated => Event::RelationCreated(r),
                EventKind::RelationJoined => Event::RelationJoined(r),
                EventKind::RelationChanged => Event::RelationChanged(r),
                EventKind::RelationDeparted => Event::RelationDeparted(r),
                _ => Event::RelationBroken(r),
            }
        }
        EventKind::StorageAttached | EventKind::StorageDetaching => {
            let id = env.require("JUJU_STORAGE_ID", "storage hooks name their storage")?;
            check("JUJU_STORAGE_ID", id.split('/').next().unwrap_or(id))?;
            let s = StorageEvent {
                name: entity.to_string(),
                id: id.to_string(),
                kind: env.get("JUJU_STORAGE_KIND").map(str::to_string),
                location: env.get("JUJU_STORAGE_LOCATION").map(str::to_string),
            };
            if kind == EventKind::StorageAttached {
                Event::StorageAttached(s)
            } else {
                Event::StorageDetaching(s)
            }
        }
        EventKind::PebbleReady
        | EventKind::PebbleCustomNotice
        | EventKind::PebbleCheckFailed
        | EventKind::PebbleCheckRecovered => {
            let container =
                env.require("JUJU_WORKLOAD_NAME", "pebble hooks name their container")?;
            check("JUJU_WORKLOAD_NAME", container)?;
            let container = container.to_string();
            match kind {
                EventKind::PebbleReady => Event::PebbleReady(container),
                EventKind::PebbleCustomNotice => {
                    let why = "pebble-custom-notice hooks describe their notice";
                    Event::PebbleCustomNotice(NoticeEvent {
                        container,
                        id: env.require("JUJU_NOTICE_ID", why)?.to_string(),
                        type_: env.require("JUJU_NOTICE_TYPE", why)?.to_string(),
                        key: env.require("JUJU_NOTICE_KEY", why)?.to_string(),
                    })
                }
                _ => {
                    let c = CheckEvent {
                        container,
                        check: env
                            .require(
                                "JUJU_PEBBLE_CHECK_NAME",
                                "pebble check hooks name their check",
                            )?
                            .to_string(),
                    };
                    if kind == EventKind::PebbleCheckFailed {
                        Event::PebbleCheckFailed(c)
                    } else {
                        Event::PebbleCheckRecovered(c)
                    }
                }
            }
        }
        EventKind::SecretChanged
        | EventKind::SecretRotate
        | EventKind::SecretRemove
        | EventKind::SecretExpired => {
            let id = env.require("JUJU_SECRET_ID", "secret hooks name their secret")?;
            let revision = match kind {
                EventKind::SecretRemove | EventKind::SecretExpired => {
                    let var = "JUJU_SECRET_REVISION";
                    let raw =
                        env.require(var, "secret-remove and secret-expired name a revision")?;
                    Some(raw.parse::<u32>().map_err(|_| EventError::Invalid {
                        var,
                        value: raw.to_string(),
                        why: "a revision is a non-negative integer",
                    })?)
                }
                _ => None,
            };
            let s = SecretEvent {
                id: id.to_string(),
                label: env.get("JUJU_SECRET_LABEL").map(str::to_string),
                revision,
            };
            match kind {
                EventKind::SecretChanged => Event::SecretChanged(s),
                EventKind::SecretRotate => Event::SecretRotate(s),
                EventKind::SecretRemove => Event::SecretRemove(s),
                _ => Event::SecretExpired(s),
            }
        }
        EventKind::Action => unreachable!("actions come from the actions/ dispatch path"),
    };
    Ok(Resolved::Event(event))
}

fn relation(
    env: &JujuEnv,
    kind: EventKind,
    check: &dyn Fn(&'static str, &str) -> Result<(), EventError>,
) -> Result<RelationEvent, EventError> {
    let why = "relation hooks name their relation";
    check("JUJU_RELATION", env.require("JUJU_RELATION", why)?)?;
    let var = "JUJU_RELATION_ID";
    let raw = env.require(var, why)?;
    let relation = parse_relation_id(raw).ok_or_else(|| EventError::Invalid {
        var,
        value: raw.to_string(),
        why: "a relation id is `<endpoint>:<number>`",
    })?;
    check(var, &relation.endpoint)?;
    // Juju may leave the remote app empty once the relation is broken.
    let remote_app = if kind == EventKind::RelationBroken {
        env.get("JUJU_REMOTE_APP").unwrap_or_default()
    } else {
        env.require(
            "JUJU_REMOTE_APP",
            "relation hooks name the remote application",
        )?
    };
    Ok(RelationEvent {
        relation,
        remote_app: remote_app.to_string(),
        remote_unit: env.get("JUJU_REMOTE_UNIT").map(str::to_string),
        departing_unit: (kind == EventKind::RelationDeparted)
            .then(|| env.get("JUJU_DEPARTING_UNIT").map(str::to_string))
            .flatten(),
    })
}

fn action(env: &JujuEnv, actions: &Actions, name: String) -> Result<Event, EventError> {
    if let Some(var) = env.get("JUJU_ACTION_NAME")
        && var != name
    {
        return Err(EventError::Mismatch {
            var: "JUJU_ACTION_NAME",
            value: var.to_string(),
            hook: format!("actions/{name}"),
        });
    }
    if !actions.names.contains(&name) {
        return Err(EventError::UnknownAction(name));
    }
    let id = env.require("JUJU_ACTION_UUID", "actions carry Juju's id of the run")?;
    Ok(Event::Action(ActionEvent {
        name,
        id: id.to_string(),
    }))
}

/// `db:3` → endpoint `db`, id 3. The endpoint may itself hold `:`-free dashes.
pub fn parse_relation_id(raw: &str) -> Option<RelationRef> {
    let (endpoint, id) = raw.rsplit_once(':')?;
    if endpoint.is_empty() {
        return None;
    }
    Some(RelationRef {
        endpoint: endpoint.to_string(),
        id: id.parse().ok()?,
    })
}

/// The kind of an event.
pub fn kind_of(event: &Event) -> EventKind {
    match event {
        Event::Install => EventKind::Install,
        Event::Start => EventKind::Start,
        Event::Stop => EventKind::Stop,
        Event::Remove => EventKind::Remove,
        Event::UpgradeCharm => EventKind::UpgradeCharm,
        Event::ConfigChanged => EventKind::ConfigChanged,
        Event::UpdateStatus => EventKind::UpdateStatus,
        Event::LeaderElected => EventKind::LeaderElected,
        Event::LeaderSettingsChanged => EventKind::LeaderSettingsChanged,
        Event::LeaderDeposed => EventKind::LeaderDeposed,
        Event::PreSeriesUpgrade => EventKind::PreSeriesUpgrade,
        Event::PostSeriesUpgrade => EventKind::PostSeriesUpgrade,
        Event::CollectMetrics => EventKind::CollectMetrics,
        Event::MeterStatusChanged => EventKind::MeterStatusChanged,
        Event::RelationCreated(_) => EventKind::RelationCreated,
        Event::RelationJoined(_) => EventKind::RelationJoined,
        Event::RelationChanged(_) => EventKind::RelationChanged,
        Event::RelationDeparted(_) => EventKind::RelationDeparted,
        Event::RelationBroken(_) => EventKind::RelationBroken,
        Event::StorageAttached(_) => EventKind::StorageAttached,
        Event::StorageDetaching(_) => EventKind::StorageDetaching,
        Event::PebbleReady(_) => EventKind::PebbleReady,
        Event::PebbleCustomNotice(_) => EventKind::PebbleCustomNotice,
        Event::PebbleCheckFailed(_) => EventKind::PebbleCheckFailed,
        Event::PebbleCheckRecovered(_) => EventKind::PebbleCheckRecovered,
        Event::SecretChanged(_) => EventKind::SecretChanged,
        Event::SecretRotate(_) => EventKind::SecretRotate,
        Event::SecretRemove(_) => EventKind::SecretRemove,
        Event::SecretExpired(_) => EventKind::SecretExpired,
        Event::Action(_) => EventKind::Action,
    }
}

/// The entity an event is about: endpoint, storage name, container or action.
pub fn entity_of(event: &Event) -> Option<&str> {
    match event {
        Event::RelationCreated(r)
        | Event::RelationJoined(r)
        | Event::RelationChanged(r)
        | Event::RelationDeparted(r)
        | Event::RelationBroken(r) => Some(&r.relation.endpoint),
        Event::StorageAttached(s) | Event::StorageDetaching(s) => Some(&s.name),
        Event::PebbleReady(c) => Some(c),
        Event::PebbleCustomNotice(n) => Some(&n.container),
        Event::PebbleCheckFailed(c) | Event::PebbleCheckRecovered(c) => Some(&c.container),
        Event::Action(a) => Some(&a.name),
        _ => None,
    }
}

/// The relation event's context, for any of the five relation events.
pub fn relation_of(event: &Event) -> Option<&RelationEvent> {
    match event {
        Event::RelationCreated(r)
        | Event::RelationJoined(r)
        | Event::RelationChanged(r)
        | Event::RelationDeparted(r)
        | Event::RelationBroken(r) => Some(r),
        _ => None,
    }
}

/// Whether a handler's observation covers the event.
pub fn observes(observation: &Observation, event: &Event) -> bool {
    observation.kind == kind_of(event)
        && observation
            .entity
            .as_deref()
            .is_none_or(|e| Some(e) == entity_of(event))
}

/// A short name for logs: the hook name, or `action <name>`.
pub fn describe(event: &Event) -> String {
    match event {
        Event::Action(a) => format!("action {}", a.name),
        _ => hook_name(kind_of(event), entity_of(event)).unwrap_or_default(),
    }
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
