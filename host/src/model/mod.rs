//! The `model` WIT interface: the Juju model, answered by hook tools.
//!
//! One [`Model`] serves a whole event and is handed from handler to handler.
//! It is made of parts that change at different times, each a module:
//!
//! * `facts`: the event's [`EventFacts`] (who the unit is, what the charm
//!   declares, which relation event runs), built once and shared read-only;
//! * `cache`: each read-only tool's answer, so a tool runs at most once per
//!   question in the event (Juju caches per hook context too);
//! * `transaction`: relation data, port, secret and storage requests and a
//!   reboot after the hook, buffered per handler, kept by
//!   [`Model::commit_handler`], dropped by [`Model::abort_handler`], sent
//!   by [`Model::flush`] at the end;
//! * `budget`: the guest's bounds per event and per call (DESIGN §7), and
//!   the deadline of the calls made now;
//! * `log`: the unit log, the guest's dropped lines counted and reported.
//!
//! The guest's calls are bounded: the WIT `model` interface (its `Host` impl
//! in `host`, answered by `host_config`, `host_storage` and `host_network`)
//! and the interfaces that share this state, each implemented in its own
//! module with its `add_to_linker`: `relations` (`host_relations`),
//! `secrets` (`host_secrets`), `ports` (`host_ports`), `storage`
//! (`host_storage`) and `network` (`host_network`). The host's
//! own calls ([`Model::log`], [`Model::run`], [`Model::flush`],
//! [`Model::leader`]) are never counted nor refused: the host must always be
//! able to say why a hook failed.

mod budget;
mod cache;
mod errors;
mod facts;
mod host;
mod host_config;
pub mod host_network;
pub mod host_ports;
pub mod host_relations;
pub mod host_secrets;
pub mod host_storage;
mod log;
mod names;
pub mod port_rules;
pub mod ports;
pub mod secrets;
mod shapes;
mod tool_calls;
mod transaction;

pub use budget::{
    MAX_APPLICATION_VERSION, MAX_GUEST_TOOL_CALLS_PER_EVENT, MAX_LOG_BYTES_PER_EVENT,
    MAX_LOG_MESSAGES_PER_EVENT, MAX_RELATION_BYTES_PER_EVENT, MAX_STORAGE_ADD_COUNT,
    MAX_STORAGE_REQUESTS_PER_EVENT,
};
pub use errors::describe_error;
pub use facts::{EventFacts, Identity};
pub use log::GuestLines;
pub use names::{MAX_NAME, is_app_name, is_unit_name};

#[cfg(test)]
use crate::bindings::RelationRef;
use crate::charm_dir::ConfigSchema;
use crate::hook_tools::HookTools;
use budget::Budget;
use cache::ReadCache;
use log::LogAccount;
#[cfg(test)]
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;
use transaction::Transaction;

/// The model as one event sees it.
pub struct Model {
    tools: Arc<dyn HookTools>,
    facts: Arc<EventFacts>,
    cache: ReadCache,
    transaction: Transaction,
    budget: Budget,
    log_account: LogAccount,
    guest_lines: Arc<GuestLines>,
    /// A handler called `reboot(now)` and Juju took it: the event stops
    /// and keeps nothing (see [`Model::rebooting_now`]).
    rebooting_now: bool,
}

impl Model {
    /// The model of an event whose facts are known at once.
    pub fn for_event(tools: Arc<dyn HookTools>, facts: Arc<EventFacts>) -> Model {
        Model {
            tools,
            facts,
            cache: ReadCache::default(),
            transaction: Transaction::default(),
            budget: Budget::new(),
            log_account: LogAccount::default(),
            guest_lines: Arc::default(),
            rebooting_now: false,
        }
    }

    /// Whether a handler asked Juju to reboot the machine now
    /// (`juju-reboot --now`) and Juju took it: Juju kills the hook and
    /// runs it again after the reboot, so the event stops at that handler,
    /// keeps nothing and sends nothing, as Juju commits nothing of it.
    pub fn rebooting_now(&self) -> bool {
        self.rebooting_now
    }

    /// The model of an event that names no relation, before metadata.yaml's
    /// endpoints and bindings are known (the setters below add them).
    pub fn new(tools: Arc<dyn HookTools>, schema: ConfigSchema, identity: Identity) -> Model {
        Model::for_event(tools, Arc::new(EventFacts::new(schema, identity)))
    }

    /// The event's facts.
    pub fn facts(&self) -> &Arc<EventFacts> {
        &self.facts
    }

    /// See [`EventFacts::set_endpoints`]; tests set the facts one by one, an event
    /// builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_endpoints(&mut self, endpoints: BTreeSet<String>) {
        Arc::make_mut(&mut self.facts).set_endpoints(endpoints);
    }

    /// See [`EventFacts::set_contracts`]; tests set the facts one by one.
    #[cfg(test)]
    pub fn set_contracts(&mut self, metadata: &crate::charm_dir::Metadata) {
        Arc::make_mut(&mut self.facts).set_contracts(metadata);
    }

    /// See [`EventFacts::set_storage`]; tests set the facts one by one, an event
    /// builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_storage(&mut self, storage: BTreeSet<String>) {
        Arc::make_mut(&mut self.facts).set_storage(storage);
    }

    /// See [`EventFacts::set_during_action`]; tests set the facts one by
    /// one, an event builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_during_action(&mut self, during_action: bool) {
        Arc::make_mut(&mut self.facts).set_during_action(during_action);
    }

    /// See [`EventFacts::set_extra_bindings`]; tests set the facts one by one, an event
    /// builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_extra_bindings(&mut self, extra: BTreeSet<String>) {
        Arc::make_mut(&mut self.facts).set_extra_bindings(extra);
    }

    /// See [`EventFacts::set_event_relation`]; tests set the facts one by one, an event
    /// builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_event_relation(&mut self, relation: &RelationRef, remote_app: &str, broken: bool) {
        Arc::make_mut(&mut self.facts).set_event_relation(relation, remote_app, broken);
    }

    /// See [`EventFacts::set_departing_unit`]; tests set the facts one by one, an event
    /// builds them whole (`EventContext::model_facts`).
    #[cfg(test)]
    pub fn set_departing_unit(&mut self, relation: &RelationRef, unit: &str) {
        Arc::make_mut(&mut self.facts).set_departing_unit(relation, unit);
    }

    /// Tool calls from now on must finish by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.budget.set_deadline(deadline);
    }
}

/// Register the `model` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::model::add_to_linker::<T, wasmtime::component::HasSelf<Model>>(linker, get)
}

#[cfg(test)]
mod calls_tests;
#[cfg(test)]
mod refusals_tests;
#[cfg(test)]
mod requests_tests;
#[cfg(test)]
mod tests;
