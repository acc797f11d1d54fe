//! The per-event context (DESIGN §3, steps 1–2): everything one event needs
//! that does not change while it runs — the charm, the event Juju named, who
//! this unit is — built once from the charm directory and the Juju
//! environment, then only read. The running state (the model's caches, the
//! handlers' writes, the store) lives elsewhere.

use crate::bindings::Event;
use crate::charm_dir::CharmDir;
use crate::event::{self, EventError, Resolved};
use crate::event_time::EventTime;
use crate::juju_env::JujuEnv;
use crate::model::{EventFacts, Identity};
use crate::workload_root::WorkloadRoot;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

/// One event's immutable context.
#[derive(Debug)]
pub struct EventContext<'c> {
    pub charm: &'c CharmDir,
    pub event: Event,
    /// The event as the store's history and the logs name it
    /// (`config-changed`, `action backup`).
    pub described: String,
    pub identity: Identity,
    /// The charm's relation endpoints: the only ones a relation scope or a
    /// relation call may name.
    pub endpoints: BTreeSet<String>,
    /// The host's directory in the charm directory (artifact cache, store).
    pub state_dir: PathBuf,
    /// Where the declared directories are: `/`, or `WASM_CHARM_ROOT`.
    pub workload_root: WorkloadRoot,
    /// Seconds since the Unix epoch when the event started, for the
    /// scopes' history.
    pub now: u64,
    /// The event's clock ([`crate::event_time`]): `now` is its second,
    /// and the handlers' wall clock reads it.
    pub time: EventTime,
    /// What the model knows of the event without asking Juju, built once
    /// and shared by every model of the event.
    pub model_facts: Arc<EventFacts>,
}

/// What the environment names, when it is no event of this charm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    pub hook: String,
    pub reason: String,
}

impl<'c> EventContext<'c> {
    /// Read the event from `env`. `Ok(Err(_))`: a hook this charm has no
    /// event for, which Juju counts as success.
    pub fn new(
        charm: &'c CharmDir,
        env: &JujuEnv,
        workload_root: &WorkloadRoot,
        state_dir: &std::path::Path,
        time: EventTime,
    ) -> Result<Result<EventContext<'c>, Ignored>, EventError> {
        let event = match event::resolve(env, &charm.metadata, &charm.actions)? {
            Resolved::Event(e) => e,
            Resolved::Unknown { hook, reason } => return Ok(Err(Ignored { hook, reason })),
        };
        let identity = Identity {
            unit: env.unit_name()?.to_string(),
            app: env.app_name()?.to_string(),
            model: env.model_name().to_string(),
            juju: Some(env.juju_context()),
            kubernetes: env.on_kubernetes(),
        };
        let endpoints: BTreeSet<String> = charm.metadata.endpoints.keys().cloned().collect();
        let model_facts = Arc::new(model_facts(charm, &event, &identity, &endpoints));
        Ok(Ok(EventContext {
            charm,
            described: event::describe(&event),
            event,
            identity,
            endpoints,
            model_facts,
            state_dir: state_dir.to_path_buf(),
            workload_root: workload_root.clone(),
            now: time.secs(),
            time,
        }))
    }
}

/// The model's facts of `event`: the charm's config options, endpoints,
/// bindings and storage, who this unit is, whether the event is an action,
/// and the relation the event is about.
fn model_facts(
    charm: &CharmDir,
    event: &Event,
    identity: &Identity,
    endpoints: &BTreeSet<String>,
) -> EventFacts {
    let mut facts = EventFacts::new(charm.config.clone(), identity.clone());
    facts.set_endpoints(endpoints.clone());
    facts.set_contracts(&charm.metadata);
    facts.set_extra_bindings(charm.metadata.extra_bindings.iter().cloned().collect());
    facts.set_storage(charm.metadata.storage.iter().cloned().collect());
    facts.set_during_action(matches!(event, Event::Action(_)));
    if let Some(r) = event::relation_of(event) {
        let broken = matches!(event, Event::RelationBroken(_));
        facts.set_event_relation(&r.relation, &r.remote_app, broken);
        if let (Event::RelationDeparted(_), Some(unit)) = (event, &r.departing_unit) {
            facts.set_departing_unit(&r.relation, unit);
        }
    }
    facts
}
