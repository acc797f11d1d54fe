//! The `run` request: the seed written into the store where the charm
//! keeps it, one event through `offline::execute_state`, and the outcome
//! as the protocol's JSON.

use super::protocol::{Failure, FailureKind, RunRequest, Seed};
use crate::charm_dir::{CharmDir, StoreChoice};
use crate::offline::sim::SimState;
use crate::offline::state_file::StateFile;
use crate::offline::{self, UsageError};
use crate::probe;
use crate::show::{HandlerResult, Report};
use crate::status::merge::{Band, Kind};
use crate::status::store::{ScopeStore, Target, Write};
use crate::status::{store_chunks, store_juju};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The event a seeded scope's history names.
pub const SEEDED: &str = "(the test's state)";

/// The keys of what the last event did (docs/offline-state.md), which a
/// hook failing before any handler ran leaves empty; the action's
/// parameters stay.
const LAST_EVENT: &[&str] = &["log", "calls", "action-results", "action-failed", "reboot"];

/// Run the event of `request`.
pub fn run(request: &RunRequest) -> Result<Value, Failure> {
    let origin = match &request.state_file {
        Some(path) => path.clone(),
        None => request.root.with_extension("state.yaml"),
    };
    let charm = match CharmDir::load(&request.charm) {
        Ok(charm) => charm,
        Err(e) => {
            let store = ScopeStore::default();
            return Ok(failed_early(
                &request.state,
                format!("{e:#}"),
                &store,
                BTreeMap::new(),
            ));
        }
    };
    let mut file: StateFile = serde_json::from_value(Value::Object(request.state.clone()))
        .map_err(|e| Failure::new(FailureKind::State, format!("not a valid state: {e}")))?;
    let juju = keeps_store_in_juju(&charm, &file.sim);
    seed(&mut file, &request.seed, juju)?;
    let specs = charm.manifest.probes.clone();
    // What a hook failing before any handler ran leaves.
    let before = store_of(&file.sim).unwrap_or_default();
    let args = request
        .event
        .run_args(request.charm.clone(), request.root.clone());
    match offline::execute_state(&args, charm, file, &origin, offline::Runner::Sandbox) {
        Ok(run) => {
            let gates = probe::gates(&specs, &run.report.store.probes);
            let next = StateFile {
                sim: run.state,
                machine: run.machine,
            };
            let next = serde_json::to_value(&next).map_err(|e| {
                Failure::new(
                    FailureKind::State,
                    format!("cannot encode the next state: {e}"),
                )
            })?;
            Ok(outcome(
                &run.report,
                run.failed,
                None,
                &run.report.store,
                gates,
                next,
            ))
        }
        Err(e) if e.downcast_ref::<UsageError>().is_some() => {
            Err(Failure::new(FailureKind::Usage, format!("{e:#}")))
        }
        Err(e) => {
            let gates = probe::gates(&specs, &before.probes);
            Ok(failed_early(
                &request.state,
                format!("{e:#}"),
                &before,
                gates,
            ))
        }
    }
}

/// Whether the charm keeps its store in Juju's charm state on this
/// simulated unit: `store: juju`, or `auto` on Kubernetes.
fn keeps_store_in_juju(charm: &CharmDir, state: &SimState) -> bool {
    match charm.manifest.store {
        StoreChoice::Juju => true,
        StoreChoice::Auto => state.model.kubernetes,
        StoreChoice::Local => false,
    }
}

/// Write `seed` into the state's store, and put the store where the charm
/// keeps it. Without a seed the state is left exactly as given.
pub fn seed(file: &mut StateFile, seed: &Seed, juju: bool) -> Result<(), Failure> {
    if seed.is_empty() {
        return Ok(());
    }
    let sim = &mut file.sim;
    let mut store = store_of(sim)?;
    for s in &seed.scopes {
        let write = Write::Set {
            target: s.target,
            scope: s.name.clone(),
            status: s.status,
            message: s.message.clone(),
            priority: Band::Normal,
        };
        store.apply(write, SEEDED, 0);
    }
    let mut data: BTreeMap<String, String> = store
        .data
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    data.extend(seed.stored.clone());
    store.data = data.into_iter().collect();
    sim.model
        .charm_state
        .retain(|k, _| !store_chunks::is_store_key(k));
    if juju {
        sim.store.scopes = None;
        let doc = store_juju::encode(&store);
        sim.model.charm_state.extend(store_chunks::split(&doc));
    } else {
        sim.store.scopes = Some(store);
    }
    Ok(())
}

/// The state's scope store: its `scopes`, else the one a `store: juju`
/// charm left in `charm-state`, else an empty one.
fn store_of(sim: &SimState) -> Result<ScopeStore, Failure> {
    if let Some(store) = &sim.store.scopes {
        return Ok(store.clone());
    }
    if sim
        .model
        .charm_state
        .keys()
        .any(|k| store_chunks::is_store_key(k))
    {
        return store_juju::decode_state(&sim.model.charm_state).map_err(|e| {
            Failure::new(
                FailureKind::State,
                format!("`charm-state` holds no scope store this host reads: {e}"),
            )
        });
    }
    Ok(ScopeStore::default())
}

/// The outcome of a hook that failed before any handler ran: the state as
/// given, less what the last event left.
fn failed_early(
    state: &Map<String, Value>,
    error: String,
    store: &ScopeStore,
    gates: BTreeMap<String, bool>,
) -> Value {
    let mut next = state.clone();
    for key in LAST_EVENT {
        next.remove(*key);
    }
    if let Some(Value::Object(machine)) = next.get_mut("machine") {
        machine.remove("calls");
    }
    let report = Report::default();
    outcome(
        &report,
        true,
        Some(error),
        store,
        gates,
        Value::Object(next),
    )
}

/// The protocol's outcome of an event.
fn outcome(
    report: &Report,
    failed: bool,
    error: Option<String>,
    store: &ScopeStore,
    gates: BTreeMap<String, bool>,
    next: Value,
) -> Value {
    let probes: Map<String, Value> = store
        .probes
        .iter()
        .filter_map(|(name, p)| {
            let last = p.last.as_ref()?;
            Some((
                name.clone(),
                json!({"healthy": last.healthy, "detail": last.detail}),
            ))
        })
        .collect();
    let stored: BTreeMap<&str, &str> = store.data.iter().collect();
    json!({
        "failed": failed,
        "error": error,
        "ignored": report.ignored,
        "handlers": report.handlers.iter().map(|(n, r)| handler(n, r)).collect::<Vec<_>>(),
        "failures": report.failures,
        "status-set": {
            "unit": report.wrote.contains(&Target::Unit),
            "app": report.wrote.contains(&Target::App),
        },
        "scopes": {"unit": store.unit, "app": store.app},
        "stored": stored,
        "probes": probes,
        "probe-lines": crate::show::probe_lines(&store.probes, Some(&gates)),
        "gates": gates,
        "state": next,
    })
}

/// How one handler ended.
fn handler(name: &str, result: &HandlerResult) -> Value {
    let status = |s: &crate::bindings::Status| json!({"status": Kind::from(s.kind).as_str(), "message": s.message});
    match result {
        HandlerResult::Set(s) => json!({"name": name, "result": "set", "status": status(s)}),
        HandlerResult::Cleared => json!({"name": name, "result": "cleared"}),
        HandlerResult::Error(m) => json!({"name": name, "result": "error", "message": m}),
        HandlerResult::Trapped(m) => json!({"name": name, "result": "trapped", "message": m}),
        HandlerResult::ActionDone(s) => {
            json!({"name": name, "result": "action-done", "status": s.as_ref().map(status)})
        }
    }
}
