//! `wasm-charm run`: one event against the embedded simulated Juju. The state
//! (config, leadership, relations and their data, statuses, ports, storage,
//! networks, trust, resources, secrets, the scope store) is a YAML file the
//! operator may edit between runs; flags change it just before the event, as
//! an operator or a remote application would.
//!
//! The path of an event: this file's `execute` (a state file's edge) and
//! `execute_state` (the one place flags become an event, through `context`)
//! hand it to `simulator`'s `Simulator::run`, which every offline event of
//! every front end and of the model (`crate::world`) runs through: the
//! charm in the host's sandbox, or its own `dispatch` as a process
//! (`dispatch_process`, its tools served by `tool_session`), ended by
//! `commit`, the one place Juju's commit rule is written. Below them:
//! `run_args` (the command line), `secret_codec`, `machine`, `network`,
//! `deployment`, `secrets` and `pebble` (each topic's state), `sim` (the
//! state and what the tools know of the event) and `tools` (the simulated
//! Juju's hook tools, with their table). `sim_dispatch` is the `sim
//! dispatch` command over `execute`.

pub(crate) mod action_schema;
mod commit;
pub mod context;
pub mod deployment;
pub mod dispatch_process;
pub mod machine;
pub mod network;
pub mod pebble;
mod report;
pub mod run_args;
pub(crate) mod secret_codec;
pub mod secrets;
pub mod served_machine;
pub mod sim;
pub mod sim_dispatch;
mod sim_format;
pub mod simulator;
pub mod state_file;
mod status_command;
pub mod tool_session;
pub mod tools;

pub use run_args::{KeyValue, Param, RunArgs, UsageError};
pub(crate) use state_file::save_state;
pub use state_file::{default_state_path, load_state};
pub use status_command::{StatusSource, status};

use crate::charm_dir::CharmDir;
use crate::probe::{Check, Prober};
use crate::show::Report;
use crate::workload_root::WorkloadRoot;
pub use commit::end_hook;
pub use dispatch_process::Program;
use machine::MachineState;
use sim::SimState;
pub use simulator::{Outcome, Runner, SimEvent, Simulator};
use state_file::StateFile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn main(args: RunArgs) -> anyhow::Result<()> {
    let run = execute(&args, Runner::Sandbox)?;
    report::print_report(
        &run.report,
        &run.charm,
        &run.state,
        &run.machine,
        &run.state_path,
    );
    if !run.charm.manifest.workload.files.is_empty() || !run.charm.metadata.containers.is_empty() {
        println!("workload root: {}", run.root.display());
    }
    if run.failed {
        anyhow::bail!(
            "the hook failed: {}; its relation data, ports, secret changes, scopes and stored data were not saved",
            run.report.failures.join("; ")
        );
    }
    Ok(())
}

/// What one event did: the report, and the state as saved.
pub struct Executed {
    pub report: Report,
    /// How the charm's `dispatch` process ended ([`Runner::Process`] only).
    pub exit: Option<std::process::ExitStatus>,
    pub charm: CharmDir,
    pub state: SimState,
    pub machine: MachineState,
    pub state_path: PathBuf,
    pub root: PathBuf,
    pub failed: bool,
}

/// Run one event and save the state, printing nothing: `run` and `sim
/// dispatch` print the outcome, `test` checks it. The file's edge of
/// [`execute_state`]. `Err`: a usage error, or a hook that failed before
/// any handler ran (the state file is then unchanged).
pub fn execute(args: &RunArgs, runner: Runner<'_>) -> anyhow::Result<Executed> {
    let state_path = match &args.state {
        Some(path) => path.clone(),
        None => default_state_path(&args.charm)?,
    };
    let charm = match runner {
        Runner::Sandbox => load_charm(&args.charm)?,
        Runner::Process(_) => packed_charm(&args.charm)?,
    };
    // Before the state is read or written: a typo changes nothing.
    let event = checked_event(args, &charm)?;
    let file = load_state(&state_path)?;
    let run = execute_checked(args, charm, event, file, &state_path, runner)?;
    save_state(&state_path, &run.state, &run.machine)?;
    Ok(run)
}

/// The charm `path` names, as `run`, `sim dispatch` and `test` take it: a
/// packed charm directory, or a project packed first (`pack::project`).
/// A directory that is neither, or a charm that cannot be read, is a usage
/// error (exit 2) naming it.
pub fn load_charm(path: &Path) -> anyhow::Result<CharmDir> {
    let dir =
        crate::pack::project::charm_for_run(path).map_err(|e| match e
            .downcast_ref::<crate::pack::project::NotACharm>(
        ) {
            Some(not) => UsageError(not.to_string()).into(),
            None => e,
        })?;
    CharmDir::load(&dir).map_err(|e| UsageError(format!("{e:#}")).into())
}

/// The packed charm whose own `dispatch` runs: a project has none until
/// it is packed; anything else is a usage error naming it.
fn packed_charm(given: &Path) -> anyhow::Result<CharmDir> {
    let path = std::path::absolute(given)
        .map_err(|e| UsageError(format!("{}: cannot find it: {e}", given.display())))?;
    match crate::pack::project::kind(&path) {
        Err(not) => Err(UsageError(not.to_string()).into()),
        Ok(crate::pack::project::Kind::Project) => Err(UsageError(format!(
            "{}: a charm project has no dispatch to run; pack it with `wasm-charm pack {}` \
             and give the packed directory",
            path.display(),
            given.display()
        ))
        .into()),
        Ok(crate::pack::project::Kind::Packed) => {
            CharmDir::load(&path).map_err(|e| UsageError(format!("{e:#}")).into())
        }
    }
}

/// The one way flags become an event: `args` checked against the charm,
/// the operator's changes applied to the state in memory (which this
/// neither reads nor saves), Juju's environment made, and the event run
/// through [`Simulator::run`]. What `execute` runs on a state file and the
/// test harness on a state it keeps; `origin` stands for the state file:
/// messages name it, the workload root defaults beside it, and relative
/// resource paths start from its directory.
pub fn execute_state(
    args: &RunArgs,
    charm: CharmDir,
    file: StateFile,
    origin: &Path,
    runner: Runner<'_>,
) -> anyhow::Result<Executed> {
    let event = checked_event(args, &charm)?;
    execute_checked(args, charm, event, file, origin, runner)
}

/// [`execute_state`] once the event and its parameters are checked (by
/// `execute` before it reads the state file).
fn execute_checked(
    args: &RunArgs,
    charm: CharmDir,
    (event, params): (
        context::RunEvent,
        serde_json::Map<String, serde_json::Value>,
    ),
    file: StateFile,
    origin: &Path,
    runner: Runner<'_>,
) -> anyhow::Result<Executed> {
    let root = workload_root(args, &charm, origin)?;
    let StateFile {
        sim: mut state,
        machine,
    } = file;
    let prober = prober(args, &charm, &state, origin, &root)?;
    check_state(&charm, &state, origin)?;
    let simulator = Simulator {
        charm: &charm,
        root: root.clone(),
        state_dir: simulator::state_dir(origin),
        origin: origin.to_path_buf(),
        prober,
    };
    let unit = simulator.unit(&state);
    context::apply_operator_flags(args, &charm, &mut state)?;
    let env = context::hook_env(args, &charm, &event, &mut state, &unit)?;
    let now = args.now.map_or_else(crate::juju::unix_now, |at| {
        at.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    let event = SimEvent { env, params, now };
    let (outcome, next) = simulator
        .run(
            StateFile {
                sim: state,
                machine,
            },
            &event,
            runner,
        )
        .map_err(|e| e.context("the hook failed; the state file is unchanged"))?;
    Ok(Executed {
        report: outcome.report,
        exit: outcome.exit,
        charm,
        state: next.sim,
        machine: next.machine,
        state_path: origin.to_path_buf(),
        root: root.path().to_path_buf(),
        failed: outcome.failed,
    })
}

/// The event `args` name, checked against the charm, and its action's
/// parameters checked against actions.yaml.
fn checked_event(
    args: &RunArgs,
    charm: &CharmDir,
) -> Result<
    (
        context::RunEvent,
        serde_json::Map<String, serde_json::Value>,
    ),
    UsageError,
> {
    let event = context::check_event(&args.event, &charm.metadata, &charm.actions)?;
    let params = context::action_params(args, charm, &event)?;
    Ok((event, params))
}

/// The directory the charm's declared directories are looked up under:
/// `--root`, `$WASM_CHARM_ROOT`, else beside the state file.
pub(crate) fn workload_root(
    args: &RunArgs,
    charm: &CharmDir,
    state_path: &Path,
) -> Result<WorkloadRoot, UsageError> {
    crate::workload_root::offline_root(
        args.root.as_deref(),
        std::env::var_os(crate::workload_root::ROOT_VAR).as_deref(),
        state_path,
        // The simulated Pebble's sockets live under it too.
        !charm.manifest.workload.files.is_empty() || !charm.metadata.containers.is_empty(),
    )
    .map_err(UsageError)
}

/// The prober of the event: the state's scripted outcomes, under the
/// workload root, on `wasm-charm test`'s clock when it gives one.
fn prober(
    args: &RunArgs,
    charm: &CharmDir,
    state: &SimState,
    state_path: &Path,
    root: &WorkloadRoot,
) -> anyhow::Result<Prober> {
    let mut prober = scripted_prober(charm, state, state_path)?;
    prober.env.root = root.clone();
    if let Some(at) = args.now {
        prober.clock = Arc::new(crate::probe::ManualClock::new(at));
    }
    Ok(prober)
}

/// How `run` runs probes: for real, except those whose outcome the state's
/// `probes` scripts. A scripted name the manifest does not declare is a
/// usage error naming the file and the field: nothing would ever read it.
fn scripted_prober(charm: &CharmDir, state: &SimState, path: &Path) -> anyhow::Result<Prober> {
    let specs = &charm.manifest.probes;
    let mut scripted = BTreeMap::new();
    for (name, outcome) in &state.scripts.probes {
        let Some(spec) = specs.get(name) else {
            let declared = if specs.is_empty() {
                "none".to_string()
            } else {
                specs.keys().cloned().collect::<Vec<_>>().join(", ")
            };
            return Err(UsageError(format!(
                "{}: `probes.{name}`: the charm's wasm-charm.yaml declares no probe `{name}` \
                 (declared: {declared})",
                path.display()
            ))
            .into());
        };
        let detail = outcome.detail.clone().unwrap_or_else(|| {
            format!(
                "probe {name} ({}) {}, as the state file scripts it",
                spec.target,
                if outcome.healthy {
                    "healthy"
                } else {
                    "unhealthy"
                }
            )
        });
        let check = Check {
            healthy: outcome.healthy,
            detail,
            waiting: outcome.waiting,
            pid: None,
        };
        scripted.insert(name.clone(), check);
    }
    Ok(Prober {
        scripted,
        ..Prober::default()
    })
}

/// A new secret's URI as Juju makes them, the `n`th tried at `now`.
pub fn new_secret_uri(now: u64, n: u32) -> String {
    secret_codec::uri(&secret_codec::new_id(now, n))
}

/// metadata.yaml's bindings: its relation endpoints and extra bindings.
pub(crate) fn bindings(charm: &CharmDir) -> std::collections::BTreeSet<String> {
    let m = &charm.metadata;
    m.endpoints
        .keys()
        .chain(&m.extra_bindings)
        .cloned()
        .collect()
}

/// metadata.yaml's storage, each with its kind (`block` or `filesystem`).
pub(crate) fn declared_storage(charm: &CharmDir) -> BTreeMap<String, String> {
    let m = &charm.metadata;
    m.storage
        .iter()
        .map(|name| {
            let kind = if m.block_storage.contains(name) {
                "block"
            } else {
                "filesystem"
            };
            (name.clone(), kind.to_string())
        })
        .collect()
}

/// The state file names only what the charm and Juju can have: bindings of
/// metadata.yaml in `networks`, its resources in `resources`, and secrets by
/// Juju's ids (`secret:<20 characters>`) with an owner. Anything else would
/// never be read, so it is a usage error naming the file and the field.
pub(crate) fn check_state(
    charm: &CharmDir,
    state: &SimState,
    path: &Path,
) -> Result<(), UsageError> {
    let listed = |names: &mut dyn Iterator<Item = &String>| {
        let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let bindings = bindings(charm);
    if let Some(name) = state.model.networks.keys().find(|n| !bindings.contains(*n)) {
        return Err(UsageError(format!(
            "{}: `networks.{name}`: metadata.yaml has no endpoint or extra binding `{name}` \
             (bindings: {})",
            path.display(),
            listed(&mut bindings.iter())
        )));
    }
    let resources = &charm.metadata.resources;
    if let Some(name) = state
        .model
        .resources
        .keys()
        .find(|n| !resources.contains(*n))
    {
        return Err(UsageError(format!(
            "{}: `resources.{name}`: metadata.yaml declares no resource `{name}` (resources: {})",
            path.display(),
            listed(&mut resources.iter())
        )));
    }
    for (id, secret) in &state.model.secrets {
        let canonical = secret_codec::parse_id(id).map(|i| secret_codec::uri(&i));
        if canonical.as_deref() != Some(id.as_str()) {
            return Err(UsageError(format!(
                "{}: `secrets.{id}`: not a secret id as Juju makes them \
                 (`secret:` and 20 characters of 0-9 and a-v, the last 0 or g)",
                path.display()
            )));
        }
        if !secret.is_owned() && !crate::model::is_app_name(&secret.owner) {
            return Err(UsageError(format!(
                "{}: `secrets.{id}.owner`: `{}` is neither `application`, `unit` nor an \
                 application name",
                path.display(),
                secret.owner
            )));
        }
        if secret.revisions.is_empty() {
            return Err(UsageError(format!(
                "{}: `secrets.{id}.revisions`: a secret has at least one revision",
                path.display()
            )));
        }
    }
    Ok(())
}
