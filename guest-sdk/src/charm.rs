//! Declaring handlers: [`Charm`] holds them, [`On`] says what each observes.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};

use crate::{Event, EventKind, Outcome, Priority, Status};

/// A handler as the charm declares it to the host: its name, what it
/// observes, its band.
///
/// ```
/// use wasm_charm::prelude::*;
///
/// let charm = Charm::new().observe("config", On::config_changed(), |_| Ok(None));
/// let declared = charm.declarations();
/// assert_eq!(declared[0].name, "config");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Handler;
/// One thing a handler observes: an event kind, for every entity or one.
///
/// ```
/// use wasm_charm::{EventKind, On};
///
/// let on = On::relation_changed("db");
/// assert_eq!(on.observations()[0].kind, EventKind::RelationChanged);
/// assert_eq!(on.observations()[0].entity.as_deref(), Some("db"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Observation;

/// The longest handler name: its scope, `handler/<name>`, must fit the host's
/// 128-byte limit on scope names.
const MAX_HANDLER_NAME: usize = 128 - "handler/".len();

/// A charm: its handlers, in the order they run for an event.
///
/// Build it in the function given to [`export_charm!`](crate::export_charm).
/// A charm author's mistakes that the host would refuse (a duplicate or
/// invalid handler name, a handler observing nothing) panic here, so they
/// show up at the first event with a message naming the handler.
///
/// ```
/// use wasm_charm::prelude::*;
///
/// let charm = Charm::new()
///     .observe("config", On::install() | On::config_changed(), |_event| Ok(None))
///     .observe_with_priority("pilot", On::relation("istio-pilot"), Priority::Critical, |_event| {
///         Ok(Some(Status::waiting("Waiting for istio-pilot relation data")))
///     });
/// assert_eq!(charm.declarations().len(), 2);
/// ```
#[derive(Default)]
pub struct Charm {
    handlers: Vec<Registered>,
}

struct Registered {
    declaration: Handler,
    on: On,
    run: Box<dyn Fn(&Event) -> Outcome>,
}

impl Charm {
    /// A charm without handlers.
    ///
    /// ```
    /// assert!(wasm_charm::Charm::new().declarations().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Add handler `name`, run for every event `on` matches; its scope has
    /// the `normal` priority band.
    ///
    /// # Panics
    ///
    /// If `name` is not 1 to 120 characters of `a-z`, `0-9` and `-`, if the
    /// charm already has a handler of that name, or if `on` is empty.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// fn config(_event: &Event) -> Outcome {
    ///     Ok(None)
    /// }
    ///
    /// let charm = Charm::new().observe("config", On::install() | On::config_changed(), config);
    /// assert_eq!(charm.observers(&Event::Install), ["config"]);
    /// ```
    pub fn observe<F>(self, name: &str, on: On, handler: F) -> Self
    where
        F: Fn(&Event) -> Outcome + 'static,
    {
        self.observe_with_priority(name, on, Priority::Normal, handler)
    }

    /// As [`observe`](Self::observe), with the priority band of the handler's
    /// scope: among scopes of the same severity, `critical` ones are shown
    /// first and `low` ones last.
    ///
    /// # Panics
    ///
    /// As [`observe`](Self::observe).
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// let charm = Charm::new().observe_with_priority("db", On::relation("db"), Priority::Critical, |_| Ok(None));
    /// assert_eq!(charm.declarations()[0].priority, Priority::Critical);
    /// ```
    pub fn observe_with_priority<F>(
        mut self,
        name: &str,
        on: On,
        priority: Priority,
        handler: F,
    ) -> Self
    where
        F: Fn(&Event) -> Outcome + 'static,
    {
        if let Err(problem) = validate_handler_name(name) {
            panic!("wasm-charm: handler name {name:?} is invalid: {problem}");
        }
        if self.handlers.iter().any(|h| h.declaration.name == name) {
            panic!("wasm-charm: the charm declares two handlers named {name:?}");
        }
        if on.is_empty() {
            panic!("wasm-charm: handler {name:?} observes no event");
        }
        self.handlers.push(Registered {
            declaration: Handler {
                name: name.to_owned(),
                observes: on.observations.clone(),
                priority,
            },
            on,
            run: Box::new(handler),
        });
        self
    }

    /// The handlers as the host sees them, in declaration order: what the
    /// component's `declare` returns.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// let charm = Charm::new().observe("a", On::install(), |_| Ok(None)).observe("b", On::start(), |_| Ok(None));
    /// let names: Vec<String> = charm.declarations().into_iter().map(|h| h.name).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn declarations(&self) -> Vec<Handler> {
        self.handlers
            .iter()
            .map(|h| h.declaration.clone())
            .collect()
    }

    /// The names of the handlers that observe `event`, in the order they run.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// let charm = Charm::new().observe("db", On::relation("db"), |_| Ok(None));
    /// assert!(charm.observers(&Event::Install).is_empty());
    /// ```
    pub fn observers(&self, event: &Event) -> Vec<&str> {
        self.handlers
            .iter()
            .filter(|h| h.on.matches(event))
            .map(|h| h.declaration.name.as_str())
            .collect()
    }

    /// Run handler `name` for `event`: what the component's `run` does.
    /// An [`Error`](crate::Error) becomes its message; an unknown name is an
    /// error too.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// let charm = Charm::new().observe("config", On::install(), |_| Ok(Some(Status::blocked("no"))));
    /// assert_eq!(charm.run("config", &Event::Install), Ok(Some(Status::blocked("no"))));
    /// assert!(charm.run("nope", &Event::Install).is_err());
    /// ```
    pub fn run(&self, name: &str, event: &Event) -> Result<Option<Status>, String> {
        let Some(handler) = self.handlers.iter().find(|h| h.declaration.name == name) else {
            return Err(format!("no handler named {name:?} in this charm"));
        };
        (handler.run)(event).map_err(|error| error.to_string())
    }
}

impl fmt::Debug for Charm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.handlers.iter().map(|h| &h.declaration))
            .finish()
    }
}

/// Whether `name` may name a handler: 1 to 120 bytes of `a-z`, `0-9` and `-`.
fn validate_handler_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.len() > MAX_HANDLER_NAME {
        return Err(format!("it is longer than {MAX_HANDLER_NAME} bytes"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-'))
    {
        return Err(format!(
            "{c:?} is not allowed (use lowercase letters, digits and `-`)"
        ));
    }
    Ok(())
}

/// A set of events a handler observes, built from the constructors below and
/// combined with `|`.
///
/// Events that concern one relation endpoint, storage, container or action
/// take its name: `On::relation_changed("db")` observes `db-relation-changed`
/// only. The `any_` constructors observe that event for every name.
///
/// ```
/// use wasm_charm::On;
///
/// let on = On::install() | On::config_changed() | On::relation("db");
/// assert_eq!(on.observations().len(), 7);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct On {
    observations: Vec<Observation>,
}

macro_rules! on_event {
    ($($fn:ident => $kind:ident, $event:literal;)*) => {
        $(
            #[doc = concat!("Observe `", $event, "`.")]
            ///
            /// ```
            /// use wasm_charm::On;
            ///
            #[doc = concat!("let on = On::", stringify!($fn), "();")]
            /// assert_eq!(on.observations().len(), 1);
            /// ```
            pub fn $fn() -> Self {
                Self::kind(EventKind::$kind)
            }
        )*
    };
}

macro_rules! on_entity_event {
    ($($fn:ident, $any:ident => $kind:ident, $event:literal, $what:literal;)*) => {
        $(
            #[doc = concat!("Observe ", $event, " for the ", $what, " called `name` only.")]
            ///
            /// ```
            /// use wasm_charm::On;
            ///
            #[doc = concat!("let on = On::", stringify!($fn), "(\"name\");")]
            /// assert_eq!(on.observations()[0].entity.as_deref(), Some("name"));
            /// ```
            pub fn $fn(name: impl Into<String>) -> Self {
                Self::kind_for(EventKind::$kind, name)
            }

            #[doc = concat!("Observe ", $event, " for every ", $what, ".")]
            ///
            /// ```
            /// use wasm_charm::On;
            ///
            #[doc = concat!("let on = On::", stringify!($any), "();")]
            /// assert_eq!(on.observations()[0].entity, None);
            /// ```
            pub fn $any() -> Self {
                Self::kind(EventKind::$kind)
            }
        )*
    };
}

impl On {
    /// Observe events of `kind`, for every endpoint, storage, container or
    /// action.
    ///
    /// ```
    /// use wasm_charm::{EventKind, On};
    ///
    /// assert_eq!(On::kind(EventKind::Install), On::install());
    /// ```
    pub fn kind(kind: EventKind) -> Self {
        Self {
            observations: vec![Observation { kind, entity: None }],
        }
    }

    /// Observe events of `kind` for one entity: the relation endpoint,
    /// storage, container or action called `name`.
    ///
    /// # Panics
    ///
    /// If events of `kind` concern no entity (see [`EventKind::entity`]).
    ///
    /// ```
    /// use wasm_charm::{EventKind, On};
    ///
    /// assert_eq!(On::kind_for(EventKind::RelationJoined, "db"), On::relation_joined("db"));
    /// ```
    pub fn kind_for(kind: EventKind, name: impl Into<String>) -> Self {
        let name = name.into();
        assert!(
            kind.entity().is_some(),
            "wasm-charm: {kind} events have no entity to observe (asked for {name:?})"
        );
        Self {
            observations: vec![Observation {
                kind,
                entity: Some(name),
            }],
        }
    }

    on_event! {
        install => Install, "install";
        start => Start, "start";
        stop => Stop, "stop";
        remove => Remove, "remove";
        upgrade_charm => UpgradeCharm, "upgrade-charm";
        config_changed => ConfigChanged, "config-changed";
        update_status => UpdateStatus, "update-status";
        leader_elected => LeaderElected, "leader-elected";
        leader_settings_changed => LeaderSettingsChanged, "leader-settings-changed";
        leader_deposed => LeaderDeposed, "leader-deposed";
        pre_series_upgrade => PreSeriesUpgrade, "pre-series-upgrade";
        post_series_upgrade => PostSeriesUpgrade, "post-series-upgrade";
        collect_metrics => CollectMetrics, "collect-metrics";
        meter_status_changed => MeterStatusChanged, "meter-status-changed";
        secret_changed => SecretChanged, "secret-changed";
        secret_rotate => SecretRotate, "secret-rotate";
        secret_remove => SecretRemove, "secret-remove";
        secret_expired => SecretExpired, "secret-expired";
    }

    on_entity_event! {
        relation_created, any_relation_created => RelationCreated, "`<endpoint>-relation-created`", "relation endpoint";
        relation_joined, any_relation_joined => RelationJoined, "`<endpoint>-relation-joined`", "relation endpoint";
        relation_changed, any_relation_changed => RelationChanged, "`<endpoint>-relation-changed`", "relation endpoint";
        relation_departed, any_relation_departed => RelationDeparted, "`<endpoint>-relation-departed`", "relation endpoint";
        relation_broken, any_relation_broken => RelationBroken, "`<endpoint>-relation-broken`", "relation endpoint";
        storage_attached, any_storage_attached => StorageAttached, "`<name>-storage-attached`", "storage";
        storage_detaching, any_storage_detaching => StorageDetaching, "`<name>-storage-detaching`", "storage";
        pebble_ready, any_pebble_ready => PebbleReady, "`<container>-pebble-ready`", "container";
        pebble_custom_notice, any_pebble_custom_notice => PebbleCustomNotice, "`<container>-pebble-custom-notice`", "container";
        pebble_check_failed, any_pebble_check_failed => PebbleCheckFailed, "`<container>-pebble-check-failed`", "container";
        pebble_check_recovered, any_pebble_check_recovered => PebbleCheckRecovered, "`<container>-pebble-check-recovered`", "container";
        action, any_action => Action, "an action's run", "action";
    }

    /// The five relation events (created, joined, changed, departed, broken)
    /// of relation endpoint `endpoint`.
    ///
    /// ```
    /// assert_eq!(wasm_charm::On::relation("db").observations().len(), 5);
    /// ```
    pub fn relation(endpoint: impl Into<String>) -> Self {
        let endpoint = endpoint.into();
        Self::relation_created(endpoint.clone())
            | Self::relation_joined(endpoint.clone())
            | Self::relation_changed(endpoint.clone())
            | Self::relation_departed(endpoint.clone())
            | Self::relation_broken(endpoint)
    }

    /// The five relation events of every endpoint.
    ///
    /// ```
    /// let on = wasm_charm::On::any_relation();
    /// assert!(on.observations().iter().all(|o| o.entity.is_none()));
    /// ```
    pub fn any_relation() -> Self {
        Self::any_relation_created()
            | Self::any_relation_joined()
            | Self::any_relation_changed()
            | Self::any_relation_departed()
            | Self::any_relation_broken()
    }

    /// Both storage events (attached, detaching) of storage `name`.
    ///
    /// ```
    /// assert_eq!(wasm_charm::On::storage("data").observations().len(), 2);
    /// ```
    pub fn storage(name: impl Into<String>) -> Self {
        let name = name.into();
        Self::storage_attached(name.clone()) | Self::storage_detaching(name)
    }

    /// The four secret events (changed, rotate, remove, expired).
    ///
    /// ```
    /// assert_eq!(wasm_charm::On::secret().observations().len(), 4);
    /// ```
    pub fn secret() -> Self {
        Self::secret_changed()
            | Self::secret_rotate()
            | Self::secret_remove()
            | Self::secret_expired()
    }

    /// Every event of every kind, actions included: for a handler that
    /// looks at the whole unit after any event, as `collect-status`
    /// observers do in `ops`. It runs after the handlers declared before it.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// fn overall(_event: &Event) -> Outcome {
    ///     // Look at the whole unit; the host runs this for every event.
    ///     Ok(None)
    /// }
    ///
    /// let charm = Charm::new().observe("overall", On::every_event(), overall);
    /// assert_eq!(charm.observers(&Event::UpdateStatus), ["overall"]);
    /// assert_eq!(charm.observers(&Event::PebbleReady("web".into())), ["overall"]);
    /// ```
    pub fn every_event() -> Self {
        Self {
            observations: EventKind::ALL
                .iter()
                .map(|&kind| Observation { kind, entity: None })
                .collect(),
        }
    }

    /// The observations, in the order they were added, without duplicates.
    ///
    /// ```
    /// use wasm_charm::On;
    ///
    /// assert_eq!((On::install() | On::install()).observations().len(), 1);
    /// ```
    pub fn observations(&self) -> &[Observation] {
        &self.observations
    }

    /// Whether the set observes nothing.
    ///
    /// ```
    /// use wasm_charm::On;
    ///
    /// assert!(On::default().is_empty());
    /// assert!(!On::install().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.observations.is_empty()
    }

    /// Whether `event` is one of the events in the set.
    ///
    /// ```
    /// use wasm_charm::{Event, On};
    ///
    /// assert!(On::install().matches(&Event::Install));
    /// assert!(!On::install().matches(&Event::Start));
    /// ```
    pub fn matches(&self, event: &Event) -> bool {
        let kind = event.kind();
        let entity = event.entity();
        self.observations
            .iter()
            .any(|o| o.kind == kind && (o.entity.is_none() || o.entity.as_deref() == entity))
    }
}

/// Observe events of that kind, for every entity.
///
/// ```
/// use wasm_charm::{EventKind, On};
///
/// assert_eq!(On::from(EventKind::Stop), On::stop());
/// ```
impl From<EventKind> for On {
    fn from(kind: EventKind) -> Self {
        Self::kind(kind)
    }
}

/// Add the other set's observations.
///
/// ```
/// use wasm_charm::On;
///
/// let mut on = On::install();
/// on |= On::start();
/// assert_eq!(on, On::install() | On::start());
/// ```
impl BitOrAssign for On {
    fn bitor_assign(&mut self, other: Self) {
        for observation in other.observations {
            if !self.observations.contains(&observation) {
                self.observations.push(observation);
            }
        }
    }
}

/// Both sets' observations, without duplicates.
///
/// ```
/// use wasm_charm::On;
///
/// assert_eq!((On::install() | On::start()).observations().len(), 2);
/// ```
impl BitOr for On {
    type Output = Self;

    fn bitor(mut self, other: Self) -> Self {
        self |= other;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RelationEvent, RelationRef, StatusKind};

    #[test]
    fn every_kind_lists_the_wit_enum_in_order_once() {
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{kind}");
        }
        let on = On::every_event();
        assert_eq!(on.observations().len(), EventKind::ALL.len());
        assert!(on.observations().iter().all(|o| o.entity.is_none()));
    }

    fn relation_changed(endpoint: &str) -> Event {
        Event::RelationChanged(RelationEvent {
            relation: RelationRef {
                endpoint: endpoint.into(),
                id: 3,
            },
            remote_app: "remote".into(),
            remote_unit: Some("remote/0".into()),
            departing_unit: None,
        })
    }

    #[test]
    fn on_combines_without_duplicates_in_order() {
        let on = On::install() | On::config_changed() | On::install() | On::relation_changed("db");
        let kinds: Vec<_> = on.observations().iter().map(|o| o.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::Install,
                EventKind::ConfigChanged,
                EventKind::RelationChanged
            ]
        );
        assert_eq!(on.observations()[2].entity.as_deref(), Some("db"));
    }

    #[test]
    fn relation_is_the_five_relation_events_of_one_endpoint() {
        let on = On::relation("istio-pilot");
        let kinds: Vec<_> = on.observations().iter().map(|o| o.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::RelationCreated,
                EventKind::RelationJoined,
                EventKind::RelationChanged,
                EventKind::RelationDeparted,
                EventKind::RelationBroken,
            ]
        );
        assert!(
            on.observations()
                .iter()
                .all(|o| o.entity.as_deref() == Some("istio-pilot"))
        );
    }

    #[test]
    fn matching_respects_the_entity() {
        assert!(On::relation("db").matches(&relation_changed("db")));
        assert!(!On::relation("db").matches(&relation_changed("cache")));
        assert!(On::any_relation_changed().matches(&relation_changed("cache")));
        assert!(!On::any_relation_joined().matches(&relation_changed("db")));
        assert!(On::install().matches(&Event::Install));
        assert!(!On::install().matches(&Event::Start));
    }

    #[test]
    #[should_panic(expected = "install events have no entity")]
    fn entity_on_an_event_without_one_panics() {
        let _ = On::kind_for(EventKind::Install, "db");
    }

    #[test]
    fn handler_names() {
        assert!(validate_handler_name("config").is_ok());
        assert!(validate_handler_name("istio-pilot-2").is_ok());
        assert!(validate_handler_name(&"a".repeat(120)).is_ok());
        assert!(validate_handler_name("").is_err());
        assert!(validate_handler_name("Config").is_err());
        assert!(validate_handler_name("a_b").is_err());
        assert!(validate_handler_name("a/b").is_err());
        assert!(validate_handler_name("é").is_err());
        assert!(validate_handler_name(&"a".repeat(121)).is_err());
    }

    #[test]
    #[should_panic(expected = "two handlers named \"config\"")]
    fn duplicate_handler_panics() {
        let _ = Charm::new()
            .observe("config", On::install(), |_| Ok(None))
            .observe("config", On::start(), |_| Ok(None));
    }

    #[test]
    #[should_panic(expected = "handler name \"Config\" is invalid")]
    fn invalid_handler_name_panics() {
        let _ = Charm::new().observe("Config", On::install(), |_| Ok(None));
    }

    #[test]
    #[should_panic(expected = "observes no event")]
    fn handler_observing_nothing_panics() {
        let _ = Charm::new().observe("idle", On::default(), |_| Ok(None));
    }

    #[test]
    fn declarations_and_run() {
        let charm = Charm::new()
            .observe("config", On::install() | On::config_changed(), |_| {
                Ok(Some(Status::blocked("Config item `kind` must be set")))
            })
            .observe_with_priority("db", On::relation("db"), Priority::Low, |event| match event
                .relation()
            {
                Some(r) => Err(crate::Error::msg(format!("broken {}", r.relation))),
                None => Ok(None),
            });

        let declared = charm.declarations();
        assert_eq!(declared.len(), 2);
        assert_eq!(declared[0].name, "config");
        assert_eq!(declared[0].priority, Priority::Normal);
        assert_eq!(declared[0].observes.len(), 2);
        assert_eq!(declared[1].name, "db");
        assert_eq!(declared[1].priority, Priority::Low);

        let status = charm.run("config", &Event::Install).unwrap().unwrap();
        assert_eq!(status.kind, StatusKind::Blocked);
        assert_eq!(status.message, "Config item `kind` must be set");
        assert_eq!(charm.run("db", &Event::Install), Ok(None));
        assert_eq!(
            charm.run("db", &relation_changed("db")),
            Err("broken db:3".to_string())
        );
        assert_eq!(
            charm.run("nope", &Event::Install),
            Err("no handler named \"nope\" in this charm".to_string())
        );

        assert_eq!(charm.observers(&Event::Install), ["config"]);
        assert_eq!(charm.observers(&relation_changed("db")), ["db"]);
        assert!(charm.observers(&Event::Stop).is_empty());
    }
}
