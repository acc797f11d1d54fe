//! The Juju event a handler runs for, and its context.
//!
//! Every [`Event`] case is the Juju event of the same name; relation, storage,
//! Pebble, secret and action events carry their context.
//!
//! ```
//! use wasm_charm::{Event, EventKind};
//!
//! fn describe(event: &Event) -> String {
//!     match event.relation() {
//!         Some(r) => format!("{} of {} from {}", event.kind(), r.relation, r.remote_app),
//!         None => event.to_string(),
//!     }
//! }
//!
//! assert_eq!(describe(&Event::ConfigChanged), "config-changed");
//! assert_eq!(EventKind::RelationChanged.to_string(), "relation-changed");
//! ```

use std::fmt;

/// Context of an action: its name and Juju's id of this run (ops'
/// `ActionEvent.id`).
///
/// ```
/// use wasm_charm::{ActionEvent, Event};
///
/// let event = Event::Action(ActionEvent { name: "backup".into(), id: "42".into() });
/// assert_eq!(event.action().map(|a| a.id.as_str()), Some("42"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::ActionEvent;
/// Context of a pebble-check-failed or pebble-check-recovered event.
///
/// ```
/// use wasm_charm::{CheckEvent, Event};
///
/// let event = Event::PebbleCheckFailed(CheckEvent { container: "web".into(), check: "alive".into() });
/// assert_eq!(event.container(), Some("web"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::CheckEvent;
/// The Juju event a handler runs for, with its context.
///
/// ```
/// use wasm_charm::Event;
///
/// assert_eq!(Event::PebbleReady("web".into()).to_string(), "web-pebble-ready");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Event;
/// The kinds of event, without their context: what a handler observes.
///
/// ```
/// use wasm_charm::{Event, EventKind};
///
/// assert_eq!(Event::ConfigChanged.kind(), EventKind::ConfigChanged);
/// ```
pub use crate::__bindings::wasm_charm::charm::types::EventKind;
/// Context of a pebble-custom-notice event.
///
/// ```
/// use wasm_charm::{Event, NoticeEvent};
///
/// let notice = NoticeEvent { container: "web".into(), id: "1".into(), type_: "custom".into(), key: "example.com/a".into() };
/// assert_eq!(Event::PebbleCustomNotice(notice).container(), Some("web"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::NoticeEvent;
/// Context of a relation event.
///
/// ```
/// use wasm_charm::{Event, RelationEvent, RelationRef};
///
/// let event = Event::RelationJoined(RelationEvent {
///     relation: RelationRef { endpoint: "db".into(), id: 1 },
///     remote_app: "postgresql".into(),
///     remote_unit: Some("postgresql/0".into()),
///     departing_unit: None,
/// });
/// assert_eq!(event.to_string(), "db-relation-joined");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::RelationEvent;
/// One relation: its endpoint and Juju's id.
///
/// ```
/// use wasm_charm::RelationRef;
///
/// assert_eq!(RelationRef { endpoint: "istio-pilot".into(), id: 1 }.to_string(), "istio-pilot:1");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::RelationRef;
/// Context of a secret event.
///
/// ```
/// use wasm_charm::{Event, SecretEvent};
///
/// let event = Event::SecretChanged(SecretEvent { id: "secret:abc".into(), label: None, revision: None });
/// assert_eq!(event.secret().map(|s| s.id.as_str()), Some("secret:abc"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::SecretEvent;
/// Context of a storage event.
///
/// ```
/// use wasm_charm::{Event, StorageEvent};
///
/// let event = Event::StorageAttached(StorageEvent { name: "data".into(), id: "data/0".into(), kind: None, location: None });
/// assert_eq!(event.to_string(), "data-storage-attached");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::StorageEvent;

impl Event {
    /// The kind of event, without its context.
    ///
    /// ```
    /// use wasm_charm::{Event, EventKind};
    ///
    /// assert_eq!(Event::Install.kind(), EventKind::Install);
    /// ```
    pub fn kind(&self) -> EventKind {
        match self {
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

    /// What the event concerns, as an [`On`](crate::On) observation names it:
    /// the relation endpoint, storage name, container or action name; `None`
    /// for the other events.
    ///
    /// ```
    /// use wasm_charm::Event;
    ///
    /// assert_eq!(Event::PebbleReady("web".into()).entity(), Some("web"));
    /// assert_eq!(Event::Start.entity(), None);
    /// ```
    pub fn entity(&self) -> Option<&str> {
        if let Some(relation) = self.relation() {
            return Some(&relation.relation.endpoint);
        }
        match self {
            Event::StorageAttached(s) | Event::StorageDetaching(s) => Some(&s.name),
            Event::Action(a) => Some(&a.name),
            _ => self.container(),
        }
    }

    /// The relation event's context, for the five relation events.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// fn db(event: &Event) -> Outcome {
    ///     if let Some(r) = event.relation() {
    ///         log::info(format!("{} from {}", r.relation, r.remote_app));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn relation(&self) -> Option<&RelationEvent> {
        match self {
            Event::RelationCreated(r)
            | Event::RelationJoined(r)
            | Event::RelationChanged(r)
            | Event::RelationDeparted(r)
            | Event::RelationBroken(r) => Some(r),
            _ => None,
        }
    }

    /// The storage event's context, for storage-attached and
    /// storage-detaching.
    ///
    /// ```
    /// use wasm_charm::{Event, StorageEvent};
    ///
    /// let event = Event::StorageDetaching(StorageEvent { name: "data".into(), id: "data/1".into(), kind: None, location: None });
    /// assert_eq!(event.storage().map(|s| s.id.as_str()), Some("data/1"));
    /// ```
    pub fn storage(&self) -> Option<&StorageEvent> {
        match self {
            Event::StorageAttached(s) | Event::StorageDetaching(s) => Some(s),
            _ => None,
        }
    }

    /// The container, for the four Pebble events.
    ///
    /// ```
    /// use wasm_charm::Event;
    ///
    /// assert_eq!(Event::PebbleReady("web".into()).container(), Some("web"));
    /// ```
    pub fn container(&self) -> Option<&str> {
        match self {
            Event::PebbleReady(container) => Some(container),
            Event::PebbleCustomNotice(n) => Some(&n.container),
            Event::PebbleCheckFailed(c) | Event::PebbleCheckRecovered(c) => Some(&c.container),
            _ => None,
        }
    }

    /// The secret event's context, for the four secret events.
    ///
    /// ```
    /// use wasm_charm::{Event, SecretEvent};
    ///
    /// let event = Event::SecretRotate(SecretEvent { id: "secret:x".into(), label: Some("token".into()), revision: None });
    /// assert_eq!(event.secret().and_then(|s| s.label.as_deref()), Some("token"));
    /// ```
    pub fn secret(&self) -> Option<&SecretEvent> {
        match self {
            Event::SecretChanged(s)
            | Event::SecretRotate(s)
            | Event::SecretRemove(s)
            | Event::SecretExpired(s) => Some(s),
            _ => None,
        }
    }

    /// The action's name and id, for an action.
    ///
    /// ```
    /// use wasm_charm::{ActionEvent, Event};
    ///
    /// let event = Event::Action(ActionEvent { name: "pause".into(), id: "7".into() });
    /// assert_eq!(event.action().map(|a| a.name.as_str()), Some("pause"));
    /// ```
    pub fn action(&self) -> Option<&ActionEvent> {
        match self {
            Event::Action(a) => Some(a),
            _ => None,
        }
    }

    /// The unit leaving the relation, for relation-departed (as ops'
    /// `RelationDepartedEvent.departing_unit`): it may be this unit itself.
    /// It is no longer among [`Relation::units`](crate::model::Relation::units),
    /// but its data stays readable during the event.
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn departed(event: &Event) -> Outcome {
    ///     if event.departing_unit() == Some(model::unit_name().as_str()) {
    ///         return Ok(Some(Status::maintenance("Leaving the cluster")));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn departing_unit(&self) -> Option<&str> {
        match self {
            Event::RelationDeparted(r) => r.departing_unit.as_deref(),
            _ => None,
        }
    }
}

/// Juju's name for the event: `install`, `istio-pilot-relation-changed`,
/// `data-storage-attached`, `workload-pebble-ready`, `show-status-action`.
///
/// ```
/// assert_eq!(wasm_charm::Event::UpgradeCharm.to_string(), "upgrade-charm");
/// ```
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entity() {
            Some(entity) => write!(f, "{entity}-{}", self.kind()),
            None => write!(f, "{}", self.kind()),
        }
    }
}

impl EventKind {
    /// Every kind of event, in the order of the WIT `event-kind` enum.
    ///
    /// ```
    /// use wasm_charm::EventKind;
    ///
    /// assert_eq!(EventKind::ALL[0], EventKind::Install);
    /// ```
    pub const ALL: [EventKind; 30] = [
        EventKind::Install,
        EventKind::Start,
        EventKind::Stop,
        EventKind::Remove,
        EventKind::UpgradeCharm,
        EventKind::ConfigChanged,
        EventKind::UpdateStatus,
        EventKind::LeaderElected,
        EventKind::LeaderSettingsChanged,
        EventKind::LeaderDeposed,
        EventKind::PreSeriesUpgrade,
        EventKind::PostSeriesUpgrade,
        EventKind::CollectMetrics,
        EventKind::MeterStatusChanged,
        EventKind::RelationCreated,
        EventKind::RelationJoined,
        EventKind::RelationChanged,
        EventKind::RelationDeparted,
        EventKind::RelationBroken,
        EventKind::StorageAttached,
        EventKind::StorageDetaching,
        EventKind::PebbleReady,
        EventKind::PebbleCustomNotice,
        EventKind::PebbleCheckFailed,
        EventKind::PebbleCheckRecovered,
        EventKind::SecretChanged,
        EventKind::SecretRotate,
        EventKind::SecretRemove,
        EventKind::SecretExpired,
        EventKind::Action,
    ];

    /// The kind's name as Juju spells it, without an entity:
    /// `config-changed`, `relation-changed`, `action`.
    ///
    /// ```
    /// assert_eq!(wasm_charm::EventKind::RelationChanged.name(), "relation-changed");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Install => "install",
            EventKind::Start => "start",
            EventKind::Stop => "stop",
            EventKind::Remove => "remove",
            EventKind::UpgradeCharm => "upgrade-charm",
            EventKind::ConfigChanged => "config-changed",
            EventKind::UpdateStatus => "update-status",
            EventKind::LeaderElected => "leader-elected",
            EventKind::LeaderSettingsChanged => "leader-settings-changed",
            EventKind::LeaderDeposed => "leader-deposed",
            EventKind::PreSeriesUpgrade => "pre-series-upgrade",
            EventKind::PostSeriesUpgrade => "post-series-upgrade",
            EventKind::CollectMetrics => "collect-metrics",
            EventKind::MeterStatusChanged => "meter-status-changed",
            EventKind::RelationCreated => "relation-created",
            EventKind::RelationJoined => "relation-joined",
            EventKind::RelationChanged => "relation-changed",
            EventKind::RelationDeparted => "relation-departed",
            EventKind::RelationBroken => "relation-broken",
            EventKind::StorageAttached => "storage-attached",
            EventKind::StorageDetaching => "storage-detaching",
            EventKind::PebbleReady => "pebble-ready",
            EventKind::PebbleCustomNotice => "pebble-custom-notice",
            EventKind::PebbleCheckFailed => "pebble-check-failed",
            EventKind::PebbleCheckRecovered => "pebble-check-recovered",
            EventKind::SecretChanged => "secret-changed",
            EventKind::SecretRotate => "secret-rotate",
            EventKind::SecretRemove => "secret-remove",
            EventKind::SecretExpired => "secret-expired",
            EventKind::Action => "action",
        }
    }

    /// What an observation of this kind may name: `"relation endpoint"`,
    /// `"storage"`, `"container"` or `"action"`; `None` for events that
    /// concern no such entity.
    ///
    /// ```
    /// use wasm_charm::EventKind;
    ///
    /// assert_eq!(EventKind::PebbleReady.entity(), Some("container"));
    /// assert_eq!(EventKind::Install.entity(), None);
    /// ```
    pub fn entity(self) -> Option<&'static str> {
        match self {
            EventKind::RelationCreated
            | EventKind::RelationJoined
            | EventKind::RelationChanged
            | EventKind::RelationDeparted
            | EventKind::RelationBroken => Some("relation endpoint"),
            EventKind::StorageAttached | EventKind::StorageDetaching => Some("storage"),
            EventKind::PebbleReady
            | EventKind::PebbleCustomNotice
            | EventKind::PebbleCheckFailed
            | EventKind::PebbleCheckRecovered => Some("container"),
            EventKind::Action => Some("action"),
            _ => None,
        }
    }
}

/// The kind's [`name`](EventKind::name).
///
/// ```
/// assert_eq!(wasm_charm::EventKind::Action.to_string(), "action");
/// ```
impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `endpoint:id`, as Juju writes a relation (`istio-pilot:1`).
///
/// ```
/// use wasm_charm::RelationRef;
///
/// assert_eq!(RelationRef { endpoint: "db".into(), id: 3 }.to_string(), "db:3");
/// ```
impl fmt::Display for RelationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.endpoint, self.id)
    }
}

/// Itself, for the functions that take any relation.
///
/// ```
/// use wasm_charm::{RelationRef, status};
///
/// let r = RelationRef { endpoint: "db".into(), id: 3 };
/// assert_eq!(status::relation_scope(&r), "relation/db:3");
/// ```
impl AsRef<RelationRef> for RelationRef {
    fn as_ref(&self) -> &RelationRef {
        self
    }
}

/// The event's relation, for the functions that take any relation.
///
/// ```
/// use wasm_charm::{RelationEvent, RelationRef, status};
///
/// let event = RelationEvent {
///     relation: RelationRef { endpoint: "db".into(), id: 3 },
///     remote_app: "postgresql".into(),
///     remote_unit: None,
///     departing_unit: None,
/// };
/// assert_eq!(status::relation_scope(&event), "relation/db:3");
/// ```
impl AsRef<RelationRef> for RelationEvent {
    fn as_ref(&self) -> &RelationRef {
        &self.relation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_are_unique_and_kebab_case() {
        let mut names: Vec<_> = EventKind::ALL.iter().map(|k| k.name()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EventKind::ALL.len());
    }

    #[test]
    fn juju_event_names() {
        let relation = RelationEvent {
            relation: RelationRef {
                endpoint: "istio-pilot".into(),
                id: 1,
            },
            remote_app: "istio-pilot".into(),
            remote_unit: None,
            departing_unit: None,
        };
        assert_eq!(Event::Install.to_string(), "install");
        assert_eq!(
            Event::RelationBroken(relation.clone()).to_string(),
            "istio-pilot-relation-broken"
        );
        assert_eq!(
            Event::PebbleReady("workload".into()).to_string(),
            "workload-pebble-ready"
        );
        assert_eq!(
            Event::Action(ActionEvent {
                name: "show-status".into(),
                id: "1".into()
            })
            .to_string(),
            "show-status-action"
        );
        assert_eq!(relation.relation.to_string(), "istio-pilot:1");
        assert_eq!(
            Event::RelationJoined(relation).entity(),
            Some("istio-pilot")
        );
        assert_eq!(Event::Start.entity(), None);
    }
}
