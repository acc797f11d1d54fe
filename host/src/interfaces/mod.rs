//! The host interfaces a charm imports, each one unit behind one trait
//! ([`Interface`]), and the one list of them ([`registry!`] below). The
//! pipeline (`crate::dispatch`) and the runtime (`crate::runtime`) loop over
//! the registered interfaces and name none of them.
//!
//! An interface's life in one event:
//!
//! 1. [`Interface::link`]: its WIT functions are added to the linker, once
//!    per loaded component;
//! 2. [`Interface::validate`]: its part of the charm is checked, once per
//!    event, before any guest code runs;
//! 3. [`Interface::event`]: its per-event state is built from the event's
//!    immutable context ([`Setup`]), or [`Interface::declaring`]'s while
//!    the component declares its handlers, reaching nothing of the event;
//! 4. for each handler: [`Interface::begin`] from the store as the earlier
//!    handlers left it, [`Interface::instance`] makes the instance's state,
//!    the handler runs, and [`Interface::finish`] gives the event state back
//!    with the handler's writes as data; the pipeline then either keeps them
//!    ([`Interface::keep`], the handler returned) or drops them (it failed);
//! 5. at the end of an event that succeeded, [`Interface::commit`] sends
//!    what the interface holds back for Juju's commit (relation data); an
//!    event that failed drops the states whole, which discards it, as Juju
//!    discards what a failed hook sent.
//!
//! **Type erasure.** The registry is a declarative macro that generates one
//! struct with a field per interface ([`EventStates`] for the event,
//! [`InstanceStates`] for an instance, [`HandlerWrites`] for a handler's
//! writes) and the loops over them. A host call reaches its state by a field
//! projection the compiler resolves (`fn(&mut HandlerState) -> &mut
//! ScopeWrites`, as before), so it costs nothing per call; a
//! `Vec<Box<dyn Any>>` or a map keyed by `TypeId` would cost a lookup and a
//! downcast on every host call, and lose the types the pipeline reads
//! ([`EventStates::get`]). The field names appear in the registry line and in
//! the generated code only.
//!
//! **Where the units live.** Each unit is a file here (`interfaces/status.rs`
//! adapts `crate::status` to the trait), not inside its interface's module:
//! the units read the store, the event context and each other's states,
//! which sit beside or above the interface modules, so a unit inside
//! `crate::status` would make `status` and `interfaces` import each other.
//! The interface modules below know nothing of the pipeline.

mod action;
mod instance;
mod model;
mod network;
mod pebble;
mod ports;
mod probe;
mod relations;
mod secrets;
mod status;
mod storage;
mod stored;
mod workload;
#[macro_use]
mod states;
#[cfg(test)]
mod tests;

use crate::bindings::model::LogLevel;
use crate::charm_dir::CharmDir;
use crate::context::EventContext;
use crate::hook_tools::HookTools;
use crate::model::{GuestLines, Model};
use crate::probe::Prober;
use crate::status::store::ScopeStore;
use crate::workload::Machine;
use std::sync::Arc;
use std::time::Instant;
use wasmtime::component::Linker;

pub use instance::HandlerState;
// The two units the pipeline names: the model (the host's own log lines,
// status-set, leadership) and the action (failing it).
pub use action::ActionInterface;
pub use model::ModelInterface;

// The registered interfaces, one line each (`field: Type`); every loop calls
// them in this order.
registry! {
    status: status::StatusInterface,
    model: model::ModelInterface,
    relations: relations::RelationsInterface,
    ports: ports::PortsInterface,
    storage: storage::StorageInterface,
    network: network::NetworkInterface,
    secrets: secrets::SecretsInterface,
    probe: probe::ProbeInterface,
    stored: stored::StoredInterface,
    action: action::ActionInterface,
    pebble: pebble::PebbleInterface,
    workload: workload::WorkloadInterface,
}

/// One host interface: how it links, builds its states, runs with each
/// handler and ends with the event. Implemented by a zero-sized type named
/// after the interface (`StatusInterface`); registered by one line in
/// [`registry!`].
pub trait Interface: 'static {
    /// What the interface holds for one event, handed from handler to
    /// handler (the model's caches and kept relation writes, say).
    type Event: Send + 'static;
    /// What one handler's instance holds: what its WIT functions reach.
    type Instance: Send + 'static;
    /// What one handler wrote, as data, until the pipeline keeps or drops
    /// it; `Default` is "nothing" (an instance abandoned at its deadline).
    type Writes: Default;

    /// Add the interface's WIT functions to `linker`; they reach the
    /// instance's state through [`HandlerState`]'s `states`
    /// (`|s| s.states.get_mut::<Self>()`).
    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()>;

    /// Check the interface's part of the charm (metadata, manifest) once,
    /// before any guest code runs; `Err` fails the event, naming the field.
    fn validate(_charm: &CharmDir) -> Result<(), String> {
        Ok(())
    }

    /// The state for one event, from its immutable context.
    fn event(setup: &Setup<'_>) -> Self::Event;

    /// The state for the instance that declares the component's handlers:
    /// it must reach nothing of a live event (what `declare` sees may not
    /// depend on whether the declarations were cached).
    fn declaring(declaring: &Declaring<'_>) -> Self::Event;

    /// A handler starts, with `store` as the earlier handlers left it.
    fn begin(_event: &mut Self::Event, _store: &ScopeStore) {}

    /// The state of the instance that runs `start.handler` (or `declare`).
    fn instance(event: Self::Event, start: &Start<'_>) -> Self::Instance;

    /// The instance ended, however: the event state back, and what the
    /// handler wrote. Warnings for the unit log (a charm naming what its
    /// manifest lacks) go to `warnings`, logged whatever the handler's fate.
    fn finish(instance: Self::Instance, warnings: &mut Vec<String>) -> (Self::Event, Self::Writes);

    /// The handler returned: keep what it wrote, for the next handlers and
    /// the end of the event.
    fn keep(_event: &mut Self::Event, _writes: Self::Writes, _to: &mut Keep<'_>) {}

    /// The event succeeded so far: send what this interface held back until
    /// then (Juju commits it with the hook). `Err` fails the hook.
    fn commit(_event: &mut Self::Event) -> Result<(), String> {
        Ok(())
    }
}

/// What every interface builds its state for one event from.
pub struct Setup<'a> {
    /// The event's immutable context: the charm, the event, who this unit is.
    pub ctx: &'a EventContext<'a>,
    /// What answers hook-tool calls.
    pub tools: Arc<dyn HookTools>,
    /// How probes run, and the clock.
    pub prober: &'a Prober,
    /// What the workload calls act on.
    pub machine: Arc<dyn Machine>,
    /// The guest's log lines not yet sent, kept for the event whatever
    /// becomes of the instance that logged them.
    pub guest_lines: Arc<GuestLines>,
}

/// What the instance that declares the handlers is built from: the charm's
/// files, and, within an event, the event (`None` for `wasm-charm inspect`).
pub struct Declaring<'a> {
    /// `None` for a bare component.
    pub charm: Option<&'a CharmDir>,
    pub ctx: Option<&'a EventContext<'a>>,
    pub prober: &'a Prober,
}

/// The instance about to run.
pub struct Start<'a> {
    /// The handler's name (`declare` for the declarations).
    pub handler: &'a str,
    /// When everything it causes must have finished.
    pub deadline: Instant,
}

/// Where a returned handler's writes go: the event's store, as of this
/// event, described as its history names it.
pub struct Keep<'a> {
    pub store: &'a mut crate::status::store_edit::StoreEdit,
    pub described: &'a str,
    /// Seconds since the Unix epoch.
    pub now: u64,
}

/// A registered interface's state within `Self`, the generated
/// [`EventStates`] or [`InstanceStates`]: what [`EventStates::get`] and
/// `get_mut` return.
pub trait Holds<I: Interface> {
    type State;
    fn state(&self) -> &Self::State;
    fn state_mut(&mut self) -> &mut Self::State;
}

/// One interface's instance state out of a [`Split`], for as long as the
/// split borrows the [`InstanceStates`].
pub trait Lends<'a, I: Interface> {
    fn lend(&mut self) -> Option<&'a mut I::Instance>;
}

impl EventStates {
    /// Interface `I`'s state for this event, where a step of the pipeline
    /// is about that interface (the statuses it writes are the model's
    /// tool calls, say).
    pub fn get<I: Interface>(&self) -> &<Self as Holds<I>>::State
    where
        Self: Holds<I>,
    {
        <Self as Holds<I>>::state(self)
    }

    pub fn get_mut<I: Interface>(&mut self) -> &mut <Self as Holds<I>>::State
    where
        Self: Holds<I>,
    {
        <Self as Holds<I>>::state_mut(self)
    }

    /// The unit log the host writes its own lines to (`juju-log`): the
    /// model interface's, whatever else is registered.
    pub fn host_log(&mut self) -> &mut Model {
        self.get_mut::<ModelInterface>()
    }

    /// Log `line` at `level` in the unit log.
    pub fn log(&mut self, level: LogLevel, line: &str) {
        self.host_log().log(level, line);
    }
}

impl InstanceStates {
    /// Interface `I`'s state in this instance: what its WIT functions reach.
    pub fn get_mut<I: Interface>(&mut self) -> &mut <Self as Holds<I>>::State
    where
        Self: Holds<I>,
    {
        <Self as Holds<I>>::state_mut(self)
    }

    /// The unit log, as [`EventStates::host_log`].
    pub fn host_log(&mut self) -> &mut Model {
        self.get_mut::<ModelInterface>()
    }
}

impl<'a> Split<'a> {
    /// Interface `I`'s instance state. Panics when it was taken from this
    /// split already: a WIT function takes each state once.
    pub fn take<I: Interface>(&mut self) -> &'a mut I::Instance
    where
        Self: Lends<'a, I>,
    {
        <Self as Lends<'a, I>>::lend(self).expect("each interface's state is lent once per split")
    }
}
