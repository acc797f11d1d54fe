//! Write Juju charm handlers in Rust and run them on the `wasm-charm` host.
//!
//! A charm is a list of *handlers*. Each handler observes some Juju events and
//! returns the status of its own scope: `Ok(Some(status))` while it has
//! something to report, `Ok(None)` when all is well. The host runs every
//! handler that observes an event, each in a fresh sandboxed instance, and
//! merges the scopes of all handlers into the unit's status, so one handler's
//! success never hides another handler's problem.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! fn charm() -> Charm {
//!     Charm::new()
//!         .observe("config", On::install() | On::config_changed(), config)
//!         .observe("db", On::install() | On::relation("db"), db)
//! }
//!
//! wasm_charm::export_charm!(charm);
//!
//! #[derive(serde::Deserialize)]
//! struct Config {
//!     port: i64,
//! }
//!
//! /// Blocked while the configured port is not usable.
//! fn config(_event: &Event) -> Outcome {
//!     let config: Config = model::load_config()?;
//!     if !(1..=65535).contains(&config.port) {
//!         return Ok(Some(Status::blocked("Config item `port` must be 1 to 65535")));
//!     }
//!     Ok(None)
//! }
//!
//! /// Waiting until the database application has published its address.
//! fn db(_event: &Event) -> Outcome {
//!     let Some(relation) = model::get_relation("db")? else {
//!         return Ok(Some(Status::blocked("Needs a db relation")));
//!     };
//!     if !relation.app_data()?.contains_key("address") {
//!         return Ok(Some(Status::waiting("Waiting for db address")));
//!     }
//!     Ok(None)
//! }
//! # fn main() {}
//! ```
//!
//! The crate is built for `wasm32-wasip2`:
//! `cargo build --release --target wasm32-wasip2` gives the component that the
//! host loads as `charm.wasm`.
//!
//! # Where things are
//!
//! * [`Charm`], [`On`] and [`export_charm!`]: declare handlers and the events
//!   they observe.
//! * [`Event`] and its context records ([`RelationEvent`], [`StorageEvent`], …):
//!   what a handler runs for.
//! * [`Status`] and the [`status`] module: a handler's return value, and
//!   extra scopes of its own (per relation, per remote unit, free names).
//! * [`model`]: config, leadership, relations and their data, ports,
//!   storage, networks, secrets, resources: ops' `Model`, `Unit` and
//!   `Application`, with ops' names (`get_relation`, `get_secret`,
//!   `get_binding`, `set_workload_version`, …). Each function that runs a
//!   Juju hook tool has that tool's name as a doc alias: search these docs
//!   for `relation-get` or `secret-add`.
//! * [`probe`]: the service probes declared in `wasm-charm.yaml`.
//! * [`pebble`]: Pebble in the workload containers of a Kubernetes charm:
//!   ops' `Container` (layers, plans, services, checks, files, exec), with
//!   typed layers and plans ([`pebble::Layer`], [`pebble::Plan`]).
//! * [`action`]: the running action's parameters, results, failure and
//!   progress messages.
//! * [`stored`]: the charm's own data, kept between events (ops'
//!   `StoredState`).
//! * [`workload`]: the services, commands and packages declared in
//!   `wasm-charm.yaml`, on the machine.
//! * [`log`]: the unit's log (`juju debug-log`).
//! * [`Error`] and [`Outcome`]: `?` works on every error of this crate and on
//!   any [`std::error::Error`], and [`Error::kind`] still tells which
//!   ([`ErrorKind`]).

#![warn(missing_docs)]

#[doc(hidden)]
pub mod __bindings {
    //! The WIT contract (`wit/`), generated once for every charm. Charm code
    //! names these types through the SDK's modules instead.

    wit_bindgen::generate!({
        path: "../wit",
        world: "charm",
        pub_export_macro: true,
        export_macro_name: "__export_charm_world",
        default_bindings_module: "wasm_charm::__bindings",
        additional_derives: [PartialEq],
        // The errors get a readable `Display` of their own (the generated one
        // prints `Debug`), so they are defined in the SDK and used from here.
        with: {
            "wasm-charm:charm/model@0.3.0/model-error": crate::model::ModelError,
            "wasm-charm:charm/model@0.3.0/tool-failure": crate::model::ToolFailure,
            "wasm-charm:charm/probe@0.3.0/probe-error": crate::probe::ProbeError,
            "wasm-charm:charm/pebble@0.3.0/pebble-error": crate::pebble::PebbleError,
            "wasm-charm:charm/action@0.3.0/action-error": crate::action::ActionError,
            "wasm-charm:charm/action@0.3.0/tool-failure": crate::model::ToolFailure,
        },
        additional_type_attributes: {
            "wasm-charm:charm/types@0.3.0/priority": [#[derive(Default)]],
            // A check's level in a typed layer (pebble::Check).
            "wasm-charm:charm/pebble@0.3.0/check-level": [#[derive(serde::Serialize, serde::Deserialize)] #[serde(rename_all = "lowercase")]],
            "wasm-charm:charm/pebble@0.3.0/notice-filter": [#[derive(Default)]],
        },
        // Fields and cases the WIT leaves undocumented.
        additional_member_attributes: {
            "wasm-charm:charm/types@0.3.0/status-kind.active": [#[doc = "All is well."]],
            "wasm-charm:charm/types@0.3.0/status-kind.maintenance": [#[doc = "The charm is doing something that takes a while."]],
            "wasm-charm:charm/types@0.3.0/status-kind.waiting": [#[doc = "Waiting for something outside the charm's control (another application, leadership)."]],
            "wasm-charm:charm/types@0.3.0/status-kind.blocked": [#[doc = "Needs a human: config, a missing relation."]],
            "wasm-charm:charm/types@0.3.0/status.kind": [#[doc = "Workload status kind."]],
            "wasm-charm:charm/types@0.3.0/status.message": [#[doc = "The message shown next to it."]],
            "wasm-charm:charm/types@0.3.0/target.unit": [#[doc = "This unit's status."]],
            "wasm-charm:charm/types@0.3.0/target.app": [#[doc = "The application's status (set by the leader only)."]],
            "wasm-charm:charm/types@0.3.0/priority.critical": [#[doc = "Shown before other scopes of the same severity."]],
            "wasm-charm:charm/types@0.3.0/priority.normal": [#[doc = "The default band."] #[default]],
            "wasm-charm:charm/types@0.3.0/priority.low": [#[doc = "Shown after other scopes of the same severity."]],
            "wasm-charm:charm/types@0.3.0/relation-ref.endpoint": [#[doc = "The endpoint name from metadata.yaml (`istio-pilot`)."]],
            "wasm-charm:charm/types@0.3.0/relation-ref.id": [#[doc = "Juju's relation id (`1` in `istio-pilot:1`)."]],
            "wasm-charm:charm/types@0.3.0/relation-event.relation": [#[doc = "The relation."]],
            "wasm-charm:charm/types@0.3.0/notice-event.container": [#[doc = "The container the notice is about."]],
            "wasm-charm:charm/types@0.3.0/notice-event.id": [#[doc = "Pebble's notice id."]],
            "wasm-charm:charm/types@0.3.0/notice-event.type": [#[doc = "The notice type (`custom`)."]],
            "wasm-charm:charm/types@0.3.0/notice-event.key": [#[doc = "The notice key (`example.com/thing`)."]],
            "wasm-charm:charm/types@0.3.0/check-event.container": [#[doc = "The container the check runs in."]],
            "wasm-charm:charm/types@0.3.0/check-event.check": [#[doc = "The check's name from the Pebble layer."]],
            "wasm-charm:charm/types@0.3.0/secret-event.label": [#[doc = "The secret's label, when it has one."]],
            "wasm-charm:charm/types@0.3.0/observation.kind": [#[doc = "The event kind observed."]],
            "wasm-charm:charm/types@0.3.0/observation.entity": [#[doc = "The endpoint, storage, container or action observed; `None` for all of them."]],
            "wasm-charm:charm/types@0.3.0/handler.observes": [#[doc = "The events the handler runs for."]],
            "wasm-charm:charm/types@0.3.0/event.install": [#[doc = "The charm was installed on the unit: its first event."]],
            "wasm-charm:charm/types@0.3.0/event.start": [#[doc = "The workload should start: after install, and after the machine rebooted."]],
            "wasm-charm:charm/types@0.3.0/event.stop": [#[doc = "The unit is going away: stop the workload."]],
            "wasm-charm:charm/types@0.3.0/event.remove": [#[doc = "The unit is being removed: its last event."]],
            "wasm-charm:charm/types@0.3.0/event.upgrade-charm": [#[doc = "The charm was upgraded."]],
            "wasm-charm:charm/types@0.3.0/event.config-changed": [#[doc = "The config changed; also runs after install and upgrade-charm."]],
            "wasm-charm:charm/types@0.3.0/event.update-status": [#[doc = "Periodic (every 5 minutes by default): a chance to look at the workload."]],
            "wasm-charm:charm/types@0.3.0/event.leader-elected": [#[doc = "This unit became the leader of its application."]],
            "wasm-charm:charm/types@0.3.0/event.leader-settings-changed": [#[doc = "The leader changed the application's leader settings."]],
            "wasm-charm:charm/types@0.3.0/event.leader-deposed": [#[doc = "This unit is no longer the leader."]],
            "wasm-charm:charm/types@0.3.0/event.pre-series-upgrade": [#[doc = "The machine's OS series is about to be upgraded."]],
            "wasm-charm:charm/types@0.3.0/event.post-series-upgrade": [#[doc = "The machine's OS series was upgraded."]],
            "wasm-charm:charm/types@0.3.0/event.collect-metrics": [#[doc = "Juju collects the charm's metrics."]],
            "wasm-charm:charm/types@0.3.0/event.meter-status-changed": [#[doc = "The model's meter status changed."]],
            "wasm-charm:charm/types@0.3.0/event.relation-created": [#[doc = "A relation was created on an endpoint, before any remote unit joined."]],
            "wasm-charm:charm/types@0.3.0/event.relation-joined": [#[doc = "A remote unit joined a relation."]],
            "wasm-charm:charm/types@0.3.0/event.relation-changed": [#[doc = "A remote unit's or the remote application's relation data changed."]],
            "wasm-charm:charm/types@0.3.0/event.relation-departed": [#[doc = "A remote unit left a relation (or this unit is leaving it)."]],
            "wasm-charm:charm/types@0.3.0/event.relation-broken": [#[doc = "A relation is being removed: the last event of that relation."]],
            "wasm-charm:charm/types@0.3.0/event.storage-attached": [#[doc = "A storage instance was attached."]],
            "wasm-charm:charm/types@0.3.0/event.storage-detaching": [#[doc = "A storage instance is about to be detached."]],
            "wasm-charm:charm/types@0.3.0/event.pebble-ready": [#[doc = "A workload container's Pebble is ready."]],
            "wasm-charm:charm/types@0.3.0/event.pebble-custom-notice": [#[doc = "A custom Pebble notice was recorded."]],
            "wasm-charm:charm/types@0.3.0/event.pebble-check-failed": [#[doc = "A Pebble check reached its failure threshold."]],
            "wasm-charm:charm/types@0.3.0/event.pebble-check-recovered": [#[doc = "A failed Pebble check passes again."]],
            "wasm-charm:charm/types@0.3.0/event.secret-changed": [#[doc = "A secret this unit uses has a new revision."]],
            "wasm-charm:charm/types@0.3.0/event.secret-rotate": [#[doc = "A secret this charm owns is due for rotation."]],
            "wasm-charm:charm/types@0.3.0/event.secret-remove": [#[doc = "A revision of a secret this charm owns is no longer used."]],
            "wasm-charm:charm/types@0.3.0/event.secret-expired": [#[doc = "A revision of a secret this charm owns has expired."]],
            "wasm-charm:charm/types@0.3.0/event.action": [#[doc = "An action is being run."]],
            "wasm-charm:charm/types@0.3.0/event-kind.install": [#[doc = "Events of kind [`Event::Install`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.start": [#[doc = "Events of kind [`Event::Start`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.stop": [#[doc = "Events of kind [`Event::Stop`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.remove": [#[doc = "Events of kind [`Event::Remove`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.upgrade-charm": [#[doc = "Events of kind [`Event::UpgradeCharm`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.config-changed": [#[doc = "Events of kind [`Event::ConfigChanged`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.update-status": [#[doc = "Events of kind [`Event::UpdateStatus`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.leader-elected": [#[doc = "Events of kind [`Event::LeaderElected`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.leader-settings-changed": [#[doc = "Events of kind [`Event::LeaderSettingsChanged`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.leader-deposed": [#[doc = "Events of kind [`Event::LeaderDeposed`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.pre-series-upgrade": [#[doc = "Events of kind [`Event::PreSeriesUpgrade`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.post-series-upgrade": [#[doc = "Events of kind [`Event::PostSeriesUpgrade`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.collect-metrics": [#[doc = "Events of kind [`Event::CollectMetrics`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.meter-status-changed": [#[doc = "Events of kind [`Event::MeterStatusChanged`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.relation-created": [#[doc = "Events of kind [`Event::RelationCreated`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.relation-joined": [#[doc = "Events of kind [`Event::RelationJoined`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.relation-changed": [#[doc = "Events of kind [`Event::RelationChanged`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.relation-departed": [#[doc = "Events of kind [`Event::RelationDeparted`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.relation-broken": [#[doc = "Events of kind [`Event::RelationBroken`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.storage-attached": [#[doc = "Events of kind [`Event::StorageAttached`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.storage-detaching": [#[doc = "Events of kind [`Event::StorageDetaching`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.pebble-ready": [#[doc = "Events of kind [`Event::PebbleReady`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.pebble-custom-notice": [#[doc = "Events of kind [`Event::PebbleCustomNotice`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.pebble-check-failed": [#[doc = "Events of kind [`Event::PebbleCheckFailed`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.pebble-check-recovered": [#[doc = "Events of kind [`Event::PebbleCheckRecovered`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.secret-changed": [#[doc = "Events of kind [`Event::SecretChanged`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.secret-rotate": [#[doc = "Events of kind [`Event::SecretRotate`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.secret-remove": [#[doc = "Events of kind [`Event::SecretRemove`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.secret-expired": [#[doc = "Events of kind [`Event::SecretExpired`]."]],
            "wasm-charm:charm/types@0.3.0/event-kind.action": [#[doc = "Events of kind [`Event::Action`]."]],
            "wasm-charm:charm/relations@0.3.0/databag.local-unit": [#[doc = "This unit's bag."]],
            "wasm-charm:charm/relations@0.3.0/databag.local-app": [#[doc = "This application's bag (the leader may read it)."]],
            "wasm-charm:charm/relations@0.3.0/databag.remote-unit": [#[doc = "A remote unit's bag, by unit name (`db/0`)."]],
            "wasm-charm:charm/relations@0.3.0/databag.remote-app": [#[doc = "The remote application's bag."]],
            "wasm-charm:charm/relations@0.3.0/local-bag.unit": [#[doc = "This unit's bag."]],
            "wasm-charm:charm/relations@0.3.0/local-bag.app": [#[doc = "This application's bag (leader only)."]],
            "wasm-charm:charm/model@0.3.0/log-level.debug": [#[doc = "`DEBUG`."]],
            "wasm-charm:charm/model@0.3.0/log-level.info": [#[doc = "`INFO`."]],
            "wasm-charm:charm/model@0.3.0/log-level.warning": [#[doc = "`WARNING`."]],
            "wasm-charm:charm/model@0.3.0/log-level.error": [#[doc = "`ERROR`."]],
            "wasm-charm:charm/model@0.3.0/config-option.name": [#[doc = "The option's name from config.yaml."]],
            "wasm-charm:charm/model@0.3.0/config-option.value": [#[doc = "Its value."]],
            "wasm-charm:charm/model@0.3.0/config-value.string": [#[doc = "A `string` option."]],
            "wasm-charm:charm/model@0.3.0/config-value.int": [#[doc = "An `int` option."]],
            "wasm-charm:charm/model@0.3.0/config-value.float": [#[doc = "A `float` option."]],
            "wasm-charm:charm/model@0.3.0/config-value.boolean": [#[doc = "A `boolean` option."]],
        },
    });
}

pub mod action;
mod charm;
mod deprecated;
mod error;
pub mod event;
pub mod interfaces;
pub mod log;
pub mod model;
pub mod pebble;
pub mod probe;
pub mod status;
pub mod stored;
pub mod workload;

pub use charm::{Charm, Handler, Observation, On};
pub use error::{Error, ErrorKind};
pub use event::{
    ActionEvent, CheckEvent, Event, EventKind, NoticeEvent, RelationEvent, RelationRef,
    SecretEvent, StorageEvent,
};
pub use status::{Priority, Status, StatusKind, Target};

/// This SDK's version (semver: docs/versions.md).
///
/// ```
/// assert!(wasm_charm::VERSION.starts_with("0."));
/// ```
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The version of the WIT package `wasm-charm:charm` this SDK's
/// components import and export: a host runs them if it implements this
/// version (`wasm-charm inspect` shows both).
///
/// ```
/// assert_eq!(wasm_charm::WIT_VERSION, "0.3.0");
/// ```
pub const WIT_VERSION: &str = "0.3.0";

/// What a handler returns: `Ok(Some(status))` sets the handler's scope
/// (`handler/<name>`) to `status`, `Ok(None)` clears it, and `Err(error)`
/// is handled as the manifest's `on-error` says (blocked with the error's
/// message by default). During an action the value sets no scope, and
/// `Err(error)` fails the action with its message (see [`action`]).
///
/// ```
/// use wasm_charm::prelude::*;
///
/// fn leader(_event: &Event) -> Outcome {
///     Ok(Some(Status::waiting("Waiting for leadership")))
/// }
/// ```
pub type Outcome = Result<Option<Status>, Error>;

/// Everything a charm's `lib.rs` usually needs: `use wasm_charm::prelude::*;`.
///
/// ```
/// use wasm_charm::prelude::*;
///
/// fn config(_event: &Event) -> Outcome {
///     let port = model::config()?.get("port").and_then(|v| v.as_i64());
///     log::debug(format!("port {port:?}"));
///     Ok(None)
/// }
///
/// let charm = Charm::new().observe("config", On::config_changed(), config);
/// ```
pub mod prelude {
    pub use crate::{
        Charm, Error, ErrorKind, Event, EventKind, Outcome, Priority, RelationEvent, RelationRef,
        Status, StatusKind, Target,
    };
    pub use crate::{On, action, log, model, pebble, probe, status, stored, workload};
}

/// Make a charm of a function that returns its [`Charm`]: exports the
/// component's `handlers` interface from the calling crate.
///
/// Use it once, in the charm crate's `lib.rs` (crate type `cdylib`). The
/// function is called once per call from the host (each handler runs in a
/// fresh instance), so it should only build the `Charm`.
///
/// ```
/// use wasm_charm::prelude::*;
///
/// fn charm() -> Charm {
///     Charm::new().observe("hello", On::install(), |_event| Ok(None))
/// }
///
/// wasm_charm::export_charm!(charm);
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! export_charm {
    ($charm:expr) => {
        #[doc(hidden)]
        struct __WasmCharmExport;

        impl $crate::__bindings::exports::wasm_charm::charm::handlers::Guest for __WasmCharmExport {
            fn declare() -> $crate::__private::Vec<$crate::Handler> {
                $crate::Charm::declarations(&($charm)())
            }

            fn run(
                handler: $crate::__private::String,
                event: $crate::Event,
            ) -> ::core::result::Result<
                ::core::option::Option<$crate::Status>,
                $crate::__private::String,
            > {
                $crate::Charm::run(&($charm)(), &handler, &event)
            }
        }

        $crate::__bindings::__export_charm_world!(
            __WasmCharmExport with_types_in $crate::__bindings
        );
    };
}

#[doc(hidden)]
pub mod __private {
    //! Names the macros need in the calling crate.
    pub use std::string::String;
    pub use std::vec::Vec;
}
