//! From `JUJU_DISPATCH_PATH` and the hook environment to a typed [`Event`]
//! (reference juju-protocol.md §1.2–§1.5). Pure: no I/O, so every row of
//! Juju's table is checked by unit and property tests.
//!
//! The hook name is classified by one table of event kinds ([`ALL_KINDS`]):
//! Juju's fixed names first, then the entity suffixes, longest first; the prefix before a suffix is the
//! endpoint, storage or container name with its dashes kept, and must be
//! declared in metadata.yaml. A hook the charm does not know is not an error:
//! Juju counts a missing handler as success, and a charm rolled back to an
//! older revision must not fail on a newer hook.

use crate::bindings::{
    ActionEvent, CheckEvent, Event, EventKind, NoticeEvent, Observation, RelationEvent,
    SecretEvent, StorageEvent, parse_relation_id,
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
}

/// The outcome of reading the dispatch path.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Event(Event),
    /// A hook this charm has no event for; the host exits 0, as Juju does
    /// for a missing hook. Also an action actions.yaml does not declare: ops
    /// exits 0 for it too.
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

/// What an entity prefix names, so it can be checked against metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityKind {
    Endpoint,
    Storage,
    Container,
}

/// How Juju names the hook of an event kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookForm {
    /// One fixed name (`config-changed`).
    Fixed(&'static str),
    /// `<entity><suffix>` (`db-relation-joined`): the entity is an endpoint,
    /// storage or container declared in metadata.yaml.
    Entity(&'static str, EntityKind),
    /// No hook: actions come from `actions/<name>`.
    Action,
}

use EntityKind::{Container, Endpoint, Storage};
use HookForm::{Action, Entity, Fixed};

/// Every event kind once: its WIT name and how Juju names its hook. The one
/// table every lookup in this module derives from.
pub const ALL_KINDS: &[(EventKind, &str, HookForm)] = &[
    (EventKind::Install, "install", Fixed("install")),
    (EventKind::Start, "start", Fixed("start")),
    (EventKind::Stop, "stop", Fixed("stop")),
    (EventKind::Remove, "remove", Fixed("remove")),
    (
        EventKind::UpgradeCharm,
        "upgrade-charm",
        Fixed("upgrade-charm"),
    ),
    (
        EventKind::ConfigChanged,
        "config-changed",
        Fixed("config-changed"),
    ),
    (
        EventKind::UpdateStatus,
        "update-status",
        Fixed("update-status"),
    ),
    (
        EventKind::LeaderElected,
        "leader-elected",
        Fixed("leader-elected"),
    ),
    (
        EventKind::LeaderSettingsChanged,
        "leader-settings-changed",
        Fixed("leader-settings-changed"),
    ),
    (
        EventKind::LeaderDeposed,
        "leader-deposed",
        Fixed("leader-deposed"),
    ),
    (
        EventKind::PreSeriesUpgrade,
        "pre-series-upgrade",
        Fixed("pre-series-upgrade"),
    ),
    (
        EventKind::PostSeriesUpgrade,
        "post-series-upgrade",
        Fixed("post-series-upgrade"),
    ),
    (
        EventKind::CollectMetrics,
        "collect-metrics",
        Fixed("collect-metrics"),
    ),
    (
        EventKind::MeterStatusChanged,
        "meter-status-changed",
        Fixed("meter-status-changed"),
    ),
    (
        EventKind::RelationCreated,
        "relation-created",
        Entity("-relation-created", Endpoint),
    ),
    (
        EventKind::RelationJoined,
        "relation-joined",
        Entity("-relation-joined", Endpoint),
    ),
    (
        EventKind::RelationChanged,
        "relation-changed",
        Entity("-relation-changed", Endpoint),
    ),
    (
        EventKind::RelationDeparted,
        "relation-departed",
        Entity("-relation-departed", Endpoint),
    ),
    (
        EventKind::RelationBroken,
        "relation-broken",
        Entity("-relation-broken", Endpoint),
    ),
    (
        EventKind::StorageAttached,
        "storage-attached",
        Entity("-storage-attached", Storage),
    ),
    (
        EventKind::StorageDetaching,
        "storage-detaching",
        Entity("-storage-detaching", Storage),
    ),
    (
        EventKind::PebbleReady,
        "pebble-ready",
        Entity("-pebble-ready", Container),
    ),
    (
        EventKind::PebbleCustomNotice,
        "pebble-custom-notice",
        Entity("-pebble-custom-notice", Container),
    ),
    (
        EventKind::PebbleCheckFailed,
        "pebble-check-failed",
        Entity("-pebble-check-failed", Container),
    ),
    (
        EventKind::PebbleCheckRecovered,
        "pebble-check-recovered",
        Entity("-pebble-check-recovered", Container),
    ),
    (
        EventKind::SecretChanged,
        "secret-changed",
        Fixed("secret-changed"),
    ),
    (
        EventKind::SecretRotate,
        "secret-rotate",
        Fixed("secret-rotate"),
    ),
    (
        EventKind::SecretRemove,
        "secret-remove",
        Fixed("secret-remove"),
    ),
    (
        EventKind::SecretExpired,
        "secret-expired",
        Fixed("secret-expired"),
    ),
    (EventKind::Action, "action", Action),
];

fn row(kind: EventKind) -> Option<&'static (EventKind, &'static str, HookForm)> {
    ALL_KINDS.iter().find(|(k, _, _)| *k == kind)
}

/// The WIT name of an event kind.
pub fn kind_name(kind: EventKind) -> &'static str {
    row(kind).map_or("?", |(_, n, _)| n)
}

/// The event kind of a WIT name.
pub fn kind_from_name(name: &str) -> Option<EventKind> {
    ALL_KINDS
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(k, _, _)| *k)
}

/// How Juju names the hook of `kind`.
pub fn hook_form(kind: EventKind) -> HookForm {
    row(kind).map_or(Action, |(_, _, f)| *f)
}

/// A hook name's kind and entity, before the environment is read.
/// `None`: not a hook name Juju uses.
///
/// Fixed names first, so an endpoint named like a fixed hook's prefix cannot
/// shadow it; then entity suffixes, the longest that matches, so that
/// `x-pebble-check-recovered` is never read as a shorter suffix.
pub fn classify_hook(hook: &str) -> Option<(EventKind, Option<&str>)> {
    if let Some((kind, _, _)) = ALL_KINDS
        .iter()
        .find(|(_, _, f)| matches!(f, Fixed(name) if *name == hook))
    {
        return Some((*kind, None));
    }
    ALL_KINDS
        .iter()
        .filter_map(|(kind, _, form)| match form {
            Entity(suffix, _) => {
                let entity = hook.strip_suffix(suffix)?;
                (!entity.is_empty()).then_some((suffix.len(), *kind, entity))
            }
            _ => None,
        })
        .max_by_key(|(len, _, _)| *len)
        .map(|(_, kind, entity)| (kind, Some(entity)))
}

/// The hook name Juju uses for an event kind and entity; the inverse of
/// [`classify_hook`]. Actions have no hook name (`None`).
pub fn hook_name(kind: EventKind, entity: Option<&str>) -> Option<String> {
    match hook_form(kind) {
        Fixed(name) => Some(name.to_string()),
        Entity(suffix, _) => Some(format!("{}{suffix}", entity?)),
        Action => None,
    }
}

/// Every event a charm can receive, as `--event` spells it: the fixed hooks,
/// the hooks of each declared endpoint, storage and container, and
/// `actions/<name>` for each declared action.
pub fn event_names(metadata: &Metadata, actions: &Actions) -> Vec<String> {
    let mut out = Vec::new();
    for (_, _, form) in ALL_KINDS {
        match form {
            Fixed(name) => out.push(name.to_string()),
            Entity(suffix, entity_kind) => {
                let entities: Vec<&String> = match entity_kind {
                    Endpoint => metadata.endpoints.keys().collect(),
                    Storage => metadata.storage.iter().collect(),
                    Container => metadata.containers.iter().collect(),
                };
                out.extend(entities.into_iter().map(|e| format!("{e}{suffix}")));
            }
            Action => out.extend(actions.names.iter().map(|a| format!("actions/{a}"))),
        }
    }
    out
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
    let (declared, missing) = match hook_form(kind) {
        Action => (
            actions.names.iter().any(|a| a == entity),
            "actions.yaml declares no action",
        ),
        Entity(_, Endpoint) => (
            metadata.endpoints.contains_key(entity),
            "metadata.yaml declares no relation endpoint",
        ),
        Entity(_, Storage) => (
            metadata.storage.iter().any(|s| s == entity),
            "metadata.yaml declares no storage",
        ),
        Entity(_, Container) => (
            metadata.containers.iter().any(|c| c == entity),
            "metadata.yaml declares no container",
        ),
        Fixed(_) => {
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

/// Turn the environment into the event it describes: the dispatch path
/// names the hook (or action), the table classifies it, metadata must declare
/// its entity, and the variables of its kind give its context.
pub fn resolve(
    env: &JujuEnv,
    metadata: &Metadata,
    actions: &Actions,
) -> Result<Resolved, EventError> {
    let hook = match parse_dispatch_path(env.dispatch_path()?)? {
        DispatchPath::Action(name) => return action(env, actions, name),
        DispatchPath::Hook(hook) => hook,
    };
    let unknown = |reason: String| Resolved::Unknown {
        hook: hook.clone(),
        reason,
    };
    let Some((kind, entity)) = classify_hook(&hook) else {
        return Ok(unknown("not a hook name Juju uses".into()));
    };
    if let Some(entity) = entity
        && let Err(reason) = check_entity(kind, entity, metadata, actions)
    {
        return Ok(unknown(reason));
    }
    let hook = HookInfo {
        name: &hook,
        entity: entity.unwrap_or_default(),
    };
    let event = match hook_form(kind) {
        Fixed(_) if is_secret(kind) => secret(env, kind)?,
        Fixed(_) => fixed(kind),
        Entity(_, Endpoint) => relation_event(kind, relation(env, kind, &hook)?),
        Entity(_, Storage) => storage(env, kind, &hook)?,
        Entity(_, Container) => pebble(env, kind, &hook)?,
        Action => unreachable!("actions come from the actions/ dispatch path"),
    };
    Ok(Resolved::Event(event))
}

/// The hook being resolved: its name and the entity its name carries.
struct HookInfo<'a> {
    name: &'a str,
    entity: &'a str,
}

impl HookInfo<'_> {
    /// A variable naming the entity must name the hook's.
    fn check(&self, var: &'static str, value: &str) -> Result<(), EventError> {
        if value == self.entity {
            Ok(())
        } else {
            Err(EventError::Mismatch {
                var,
                value: value.to_string(),
                hook: self.name.to_string(),
            })
        }
    }
}

/// The secret events: fixed hook names, with a secret as their context.
pub fn is_secret(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::SecretChanged
            | EventKind::SecretRotate
            | EventKind::SecretRemove
            | EventKind::SecretExpired
    )
}

/// The events that carry no context.
fn fixed(kind: EventKind) -> Event {
    match kind {
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
        other => unreachable!("{} has a context", kind_name(other)),
    }
}

fn relation_event(kind: EventKind, r: RelationEvent) -> Event {
    match kind {
        EventKind::RelationCreated => Event::RelationCreated(r),
        EventKind::RelationJoined => Event::RelationJoined(r),
        EventKind::RelationChanged => Event::RelationChanged(r),
        EventKind::RelationDeparted => Event::RelationDeparted(r),
        _ => Event::RelationBroken(r),
    }
}

fn storage(env: &JujuEnv, kind: EventKind, hook: &HookInfo) -> Result<Event, EventError> {
    let id = env.require("JUJU_STORAGE_ID", "storage hooks name their storage")?;
    hook.check("JUJU_STORAGE_ID", id.split('/').next().unwrap_or(id))?;
    let s = StorageEvent {
        name: hook.entity.to_string(),
        id: id.to_string(),
        kind: env.get("JUJU_STORAGE_KIND").map(str::to_string),
        location: env.get("JUJU_STORAGE_LOCATION").map(str::to_string),
    };
    Ok(if kind == EventKind::StorageAttached {
        Event::StorageAttached(s)
    } else {
        Event::StorageDetaching(s)
    })
}

fn pebble(env: &JujuEnv, kind: EventKind, hook: &HookInfo) -> Result<Event, EventError> {
    let container = env.require("JUJU_WORKLOAD_NAME", "pebble hooks name their container")?;
    hook.check("JUJU_WORKLOAD_NAME", container)?;
    let container = container.to_string();
    Ok(match kind {
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
            let why = "pebble check hooks name their check";
            let c = CheckEvent {
                container,
                check: env.require("JUJU_PEBBLE_CHECK_NAME", why)?.to_string(),
            };
            if kind == EventKind::PebbleCheckFailed {
                Event::PebbleCheckFailed(c)
            } else {
                Event::PebbleCheckRecovered(c)
            }
        }
    })
}

fn secret(env: &JujuEnv, kind: EventKind) -> Result<Event, EventError> {
    let id = env.require("JUJU_SECRET_ID", "secret hooks name their secret")?;
    let revision = match kind {
        EventKind::SecretRemove | EventKind::SecretExpired => {
            let var = "JUJU_SECRET_REVISION";
            let raw = env.require(var, "secret-remove and secret-expired name a revision")?;
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
    Ok(match kind {
        EventKind::SecretChanged => Event::SecretChanged(s),
        EventKind::SecretRotate => Event::SecretRotate(s),
        EventKind::SecretRemove => Event::SecretRemove(s),
        _ => Event::SecretExpired(s),
    })
}

fn relation(env: &JujuEnv, kind: EventKind, hook: &HookInfo) -> Result<RelationEvent, EventError> {
    let why = "relation hooks name their relation";
    hook.check("JUJU_RELATION", env.require("JUJU_RELATION", why)?)?;
    let var = "JUJU_RELATION_ID";
    let raw = env.require(var, why)?;
    let relation = parse_relation_id(raw).ok_or_else(|| EventError::Invalid {
        var,
        value: raw.to_string(),
        why: "a relation id is `<endpoint>:<number>`",
    })?;
    hook.check(var, &relation.endpoint)?;
    let remote_unit = env.get("JUJU_REMOTE_UNIT");
    // Juju may leave the remote app empty: once the relation is broken, and
    // (older agents) where it names the remote unit. As ops does, the app is
    // then the remote unit's.
    let remote_app = match (env.get("JUJU_REMOTE_APP"), remote_unit) {
        (Some(app), _) => app,
        (None, Some(unit)) => match unit.split_once('/') {
            Some((app, _)) if !app.is_empty() => app,
            _ => {
                return Err(EventError::Invalid {
                    var: "JUJU_REMOTE_UNIT",
                    value: unit.to_string(),
                    why: "a unit name is `<application>/<number>`",
                });
            }
        },
        (None, None) if kind == EventKind::RelationBroken => "",
        (None, None) => env.require(
            "JUJU_REMOTE_APP",
            "relation hooks name the remote application",
        )?,
    };
    Ok(RelationEvent {
        relation,
        remote_app: remote_app.to_string(),
        remote_unit: remote_unit.map(str::to_string),
        departing_unit: (kind == EventKind::RelationDeparted)
            .then(|| env.get("JUJU_DEPARTING_UNIT").map(str::to_string))
            .flatten(),
    })
}

fn action(env: &JujuEnv, actions: &Actions, name: String) -> Result<Resolved, EventError> {
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
        return Ok(Resolved::Unknown {
            hook: format!("actions/{name}"),
            reason: format!("actions.yaml declares no action `{name}`"),
        });
    }
    let id = env.require("JUJU_ACTION_UUID", "actions carry Juju's id of the run")?;
    Ok(Resolved::Event(Event::Action(ActionEvent {
        name,
        id: id.to_string(),
    })))
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
pub(crate) mod tests;
