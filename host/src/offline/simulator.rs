//! The simulated Juju as a value: a state in, one event run on a charm,
//! an outcome and the next state out ([`Simulator::run`]). It reads and
//! writes no state file and parses no flags: `execute` is the edge that
//! turns a file into a state and flags into an event, for `run`, `sim
//! dispatch`, scenarios and the harness; the model (`crate::world`) gives
//! it each unit's view. The charm runs in this process's sandbox or as its
//! own `dispatch` process ([`Runner`]), and every hook ends through
//! [`end_hook`], the one place Juju's commit rule is written.

use super::commit::end_hook;
use super::dispatch_process::Program;
use super::machine::{Place, SimMachine};
use super::pebble;
use super::sim::{LastEvent, SimState, SimTools};
use super::state_file::StateFile;
use crate::charm_dir::CharmDir;
use crate::dispatch;
use crate::event_time::EventTime;
use crate::hook_tools::HookTools;
use crate::juju_env::JujuEnv;
use crate::probe::Prober;
use crate::probe::systemd::Systemctl;
use crate::show::Report;
use crate::status::backend::ScopeBackend;
use crate::status::store::{ScopeStore, check_format};
use crate::status::store_choice::{self, Backend};
use crate::status::store_file::STATE_DIR;
use crate::status::store_juju::JujuStore;
use crate::workload_root::WorkloadRoot;
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One event as the simulator runs it: Juju's environment for the hook,
/// the action's parameters and the clock.
#[derive(Debug, Clone, Default)]
pub struct SimEvent {
    pub env: JujuEnv,
    /// What `action-get` answers (an action only).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Seconds since the Unix epoch when the event starts.
    pub now: u64,
}

/// How the event's charm code runs.
#[derive(Debug, Clone, Copy)]
pub enum Runner<'a> {
    /// The charm's component in this process's sandbox: `run`, `test`,
    /// scenarios and the harness.
    Sandbox,
    /// The charm's own `dispatch`, or an operator's commands, as a process
    /// whose hook tools this binary serves (`dispatch_process`): `sim
    /// dispatch` and the model, and so any charm, ops ones too.
    Process(Program<'a>),
}

/// What one event did.
pub struct Outcome {
    /// The host's report of the event; of a process, only why Juju failed
    /// it beyond its exit code (its own host reports to its own output).
    pub report: Report,
    /// How the process ended (a process only).
    pub exit: Option<std::process::ExitStatus>,
    /// The commands' stdout and stderr ([`Program::Commands`] only).
    pub output: Option<(String, String)>,
    /// The hook failed: Juju kept nothing it held (see [`end_hook`]).
    pub failed: bool,
}

/// The simulated Juju of one charm, and where its files are looked up.
pub struct Simulator<'c> {
    pub charm: &'c CharmDir,
    /// The directory the charm's declared directories and the simulated
    /// Pebble's sockets are under.
    pub root: WorkloadRoot,
    /// Where relative resource paths start.
    pub state_dir: PathBuf,
    /// What messages about the state call it (the state file's path).
    pub origin: PathBuf,
    pub prober: Prober,
}

impl Simulator<'_> {
    /// Run `event` on the charm against `file`, as `runner` says, and
    /// return the outcome and the state Juju would then have: every
    /// offline event, of every front end and of the model, runs here.
    /// `Err`: the state does not fit the charm, or the hook failed before
    /// any handler ran (nothing changes then, as the dispatch contract says).
    pub fn run(
        &self,
        file: StateFile,
        event: &SimEvent,
        runner: Runner<'_>,
    ) -> anyhow::Result<(Outcome, StateFile)> {
        let StateFile {
            sim: mut state,
            machine,
        } = file;
        let unit = event
            .env
            .get("JUJU_UNIT_NAME")
            .map_or_else(|| self.unit(&state), str::to_string);
        start_event(&mut state, &unit, event.params.clone());
        // Each container's simulated Pebble, served while the event runs
        // and stopped even when it fails early; it acts at once.
        let containers = pebble::Containers::start(
            self.charm,
            &self.root,
            std::mem::take(&mut state.model.containers),
            &self.origin,
            event.now,
        )?;
        // The model as the hook finds it: what changed before the event is
        // the operator's and the remote side's doing, which a failed hook
        // does not undo.
        let before = state.clone();
        let shared = Arc::new(Mutex::new(state));
        let tools = self.tools(&event.env, &shared, unit, event.now)?;
        let (mut report, exit, output, mut after, machine) = match runner {
            Runner::Sandbox => {
                let (report, machine) = self.sandboxed(machine, event, &shared, tools)?;
                let after = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
                (report, None, None, after, machine)
            }
            Runner::Process(program) => {
                let ran = super::dispatch_process::run(
                    &self.charm.path,
                    &self.root,
                    &event.env,
                    &tools,
                    &before,
                    machine,
                    program,
                )?;
                let status = Some(ran.status);
                (
                    Report::default(),
                    status,
                    ran.output,
                    ran.state,
                    ran.machine,
                )
            }
        };
        // Pebble acted at once: kept by a failed hook too.
        after.model.containers = containers.finish();
        // Juju flushes an exec's context whatever the commands' exit code
        // (the uniter's runner: `Flush("run commands", err)` gets only an
        // error of starting or waiting); a hook's is its verdict.
        let exited = output.is_some() || exit.is_none_or(|e| e.success());
        let succeeded = exited && report.failures.is_empty();
        let ended = end_hook(&before, after, &event.env, succeeded, event.now);
        report.failures.extend(ended.refused);
        let outcome = Outcome {
            failed: !exited || !report.failures.is_empty(),
            report,
            exit,
            output,
        };
        let next = StateFile {
            sim: ended.state,
            machine,
        };
        Ok((outcome, next))
    }

    /// The event on the charm's component in the host's sandbox, its tools
    /// over `shared`, its machine under the simulation's own root.
    fn sandboxed(
        &self,
        machine: super::machine::MachineState,
        event: &SimEvent,
        shared: &Arc<Mutex<SimState>>,
        tools: SimTools,
    ) -> anyhow::Result<(Report, super::machine::MachineState)> {
        machine
            .check(&self.charm.manifest.workload)
            .map_err(|e| super::UsageError(format!("{}: {e}", self.origin.display())))?;
        // Unit files are read under a root of the simulation's own only.
        let root = (!self.root.is_machine()).then(|| self.root.path().to_path_buf());
        let place = Place::new(root, &self.state_dir);
        let machine = Arc::new(SimMachine::new(machine, place));
        let mut prober = self.prober.clone();
        prober.env.systemctl = Systemctl::Simulated(machine.clone());
        let tools: Arc<dyn HookTools> = Arc::new(tools);
        let mut backend = self.scope_backend(&event.env, shared, &tools);
        let host_dir = host_dir(&self.origin);
        crate::runtime::cache::seed(&self.charm.path.join(STATE_DIR), &host_dir);
        let report = dispatch::run_event(
            self.charm,
            &event.env,
            dispatch::OnMachine {
                root: &self.root,
                machine: machine.clone(),
                state_dir: &host_dir,
            },
            tools,
            backend.as_mut(),
            &prober,
            EventTime::model(event.now),
        )?;
        Ok((report, machine.state()))
    }

    /// The unit the state names, else the charm's first.
    pub fn unit(&self, state: &SimState) -> String {
        state
            .model
            .unit
            .clone()
            .unwrap_or_else(|| format!("{}/0", self.charm.metadata.name))
    }

    /// The simulated Juju's hook tools for the event, over the shared state.
    pub fn tools(
        &self,
        env: &JujuEnv,
        shared: &Arc<Mutex<SimState>>,
        unit: String,
        now: u64,
    ) -> anyhow::Result<SimTools> {
        Ok(SimTools {
            state: shared.clone(),
            defaults: self.charm.config.defaults.clone(),
            unit,
            action: env.get("JUJU_ACTION_NAME").map(str::to_string),
            departing: env
                .get("JUJU_RELATION_ID")
                .zip(env.get("JUJU_DEPARTING_UNIT"))
                .map(|(r, u)| (r.to_string(), u.to_string())),
            relation: env.get("JUJU_RELATION_ID").map(str::to_string),
            remote_unit: env.get("JUJU_REMOTE_UNIT").map(str::to_string),
            remote_app: env.get("JUJU_REMOTE_APP").map(str::to_string),
            storage: env.get("JUJU_STORAGE_ID").map(str::to_string),
            model_uuid: env
                .get("JUJU_MODEL_UUID")
                .unwrap_or(super::sim::MODEL_UUID)
                .to_string(),
            declared_storage: super::declared_storage(self.charm),
            bindings: super::bindings(self.charm),
            state_dir: std::path::absolute(&self.state_dir).with_context(|| {
                format!("{}: cannot find its directory", self.state_dir.display())
            })?,
            now,
        })
    }

    /// The store as a unit keeps it: `scopes` for a local one (`auto` too,
    /// on a machine's unit), Juju's charm state for `juju` (and `auto` on
    /// a Kubernetes unit, the state's `kubernetes`).
    fn scope_backend(
        &self,
        env: &JujuEnv,
        shared: &Arc<Mutex<SimState>>,
        tools: &Arc<dyn HookTools>,
    ) -> Box<dyn ScopeBackend> {
        match store_choice::choose(self.charm.manifest.store, env) {
            Backend::Local => Box::new(StateBackend(shared.clone())),
            Backend::Juju => Box::new(JujuStore::new(tools.clone())),
        }
    }
}

/// The scope store lives inside the state offline.
struct StateBackend(Arc<Mutex<SimState>>);

impl ScopeBackend for StateBackend {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        let state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let store = state.store.scopes.clone().unwrap_or_default();
        // Same check as the file backend: never use a store this host cannot read.
        check_format(store.format).context("the state file's `scopes`")?;
        Ok(store)
    }
    fn save(&mut self, edit: &crate::status::store_edit::StoreEdit) -> anyhow::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .store
            .scopes = Some(ScopeStore::clone(edit));
        Ok(())
    }
}

/// The state as the event starts: its unit named, what the last event
/// left (log, calls, action results) cleared, the action's parameters set.
fn start_event(
    state: &mut SimState,
    unit: &str,
    params: serde_json::Map<String, serde_json::Value>,
) {
    state.model.unit = Some(unit.to_string());
    state.last_event = LastEvent {
        action_params: params,
        ..LastEvent::default()
    };
}

/// The host's own directory for the simulation whose state file is
/// `origin` (`gateway.offline-state.yaml` → `gateway.offline-state.cache`,
/// beside it, as the workload root is): what it derives from the component
/// (the compiled artifact, the component's identity, its declarations) is
/// kept there, not in the charm directory, which a run leaves as `pack`
/// made it (`wasm-charm verify` refuses any file it did not ship); the
/// artifacts the charm ships are taken from it ([`crate::runtime::cache::seed`]).
pub(super) fn host_dir(origin: &Path) -> PathBuf {
    origin.with_extension("cache")
}

/// `path`'s directory, for relative resource paths.
pub fn state_dir(path: &Path) -> PathBuf {
    crate::atomic_file::parent(path).to_path_buf()
}
