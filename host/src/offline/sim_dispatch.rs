//! `wasm-charm sim dispatch`: any charm's own `dispatch` (a wasm-charm
//! host, an ops charm's script) run as a process against the simulated
//! Juju of `run`: its hook tools served from the state file by this binary
//! under each tool's name (`tool_session`), the simulated machine's tools
//! too (`served_machine`), Juju's environment set, and the hook ended by
//! the process's exit code through the one commit rule (`end_hook`); the
//! machine is kept whatever the exit code, as it acted at once.

use super::context;
use super::pebble;
use super::report::print_event_record;
use super::run_args::{RunArgs, UsageError};
use super::simulator::{Simulator, end_hook, start_event};
use super::state_file::StateFile;
use super::tool_session::{SESSION_VAR, Session, ToolContext};
use super::{check_state, default_state_path, load_state, save_state, tools, workload_root};
use crate::charm_dir::CharmDir;
use crate::juju_env::JujuEnv;
use crate::workload_root::WorkloadRoot;
use anyhow::Context as _;
use std::os::fd::AsFd as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

/// What one dispatch did.
pub struct Dispatched {
    /// How the process ended.
    pub status: ExitStatus,
    /// Why Juju failed a hook that exited 0 (its commit was refused).
    pub refused: Option<String>,
    /// The state as saved.
    pub state: StateFile,
    pub state_path: PathBuf,
}

impl Dispatched {
    /// Juju's verdict: the process exited 0 and its writes were committed.
    pub fn succeeded(&self) -> bool {
        self.status.success() && self.refused.is_none()
    }
}

pub fn main(args: &RunArgs) -> anyhow::Result<()> {
    let run = execute(args)?;
    let state = &run.state.sim;
    println!("dispatch {}: {}", args.event, run.status);
    for call in &state.last_event.calls {
        println!("call: {call}");
    }
    print_event_record(state, &run.state.machine);
    for (target, written) in [
        ("unit", &state.model.status.unit),
        ("app", &state.model.status.app),
    ] {
        if let Some(w) = written {
            println!("{target} status: {} {:?}", w.status.as_str(), w.message);
        }
    }
    if let Some(why) = &run.refused {
        println!("failure: {why}");
    }
    println!("state: {}", run.state_path.display());
    if !run.succeeded() {
        anyhow::bail!(
            "the hook failed ({}); its relation data, ports, secret changes and charm state \
             were not saved",
            run.refused.as_deref().unwrap_or("dispatch did not exit 0")
        );
    }
    Ok(())
}

/// The packed charm whose own dispatch runs: a project has none until it
/// is packed; anything else is a usage error naming it.
fn packed_charm(path: &Path, given: &Path) -> Result<CharmDir, UsageError> {
    match crate::pack::project::kind(path) {
        Err(not) => Err(UsageError(not.to_string())),
        Ok(crate::pack::project::Kind::Project) => Err(UsageError(format!(
            "{}: a charm project has no dispatch to run; pack it with `wasm-charm pack {}` \
             and give the packed directory",
            path.display(),
            given.display()
        ))),
        Ok(crate::pack::project::Kind::Packed) => {
            CharmDir::load(path).map_err(|e| UsageError(format!("{e:#}")))
        }
    }
}

/// Run `<charm>/dispatch` for `args.event` against the state file, end the
/// hook by its exit code and save the state. The process's own output goes
/// to this one's.
pub fn execute(args: &RunArgs) -> anyhow::Result<Dispatched> {
    let charm_path = std::path::absolute(&args.charm)
        .with_context(|| format!("{}: cannot find it", args.charm.display()))?;
    let charm = packed_charm(&charm_path, &args.charm)?;
    let event = context::check_event(&args.event, &charm.metadata, &charm.actions)?;
    let params = context::action_params(args, &charm, &event)?;
    let state_path = match &args.state {
        Some(path) => path.clone(),
        None => default_state_path(&args.charm)?,
    };
    let root = workload_root(args, &charm, &state_path)?;
    let StateFile {
        sim: mut state,
        mut machine,
    } = load_state(&state_path)?;
    // What the last event did is not this one's.
    machine.calls.clear();
    check_state(&charm, &state, &state_path)?;
    let unit = unit_of(&charm, &state);
    context::apply_operator_flags(args, &charm, &mut state)?;
    let env = context::hook_env(args, &charm, &event, &mut state, &unit)?;
    let hook = Hook {
        charm: &charm,
        root: &root,
        origin: &state_path,
        env: &env,
        params,
        now: crate::juju::unix_now(),
        stdout_to_stderr: false,
    };
    let ran = hook.run(StateFile {
        sim: state,
        machine,
    })?;
    save_state(&state_path, &ran.state.sim, &ran.state.machine)?;
    Ok(Dispatched { state_path, ..ran })
}

/// The unit the state names, else the charm's first.
fn unit_of(charm: &CharmDir, state: &super::sim::SimState) -> String {
    state
        .model
        .unit
        .clone()
        .unwrap_or_else(|| format!("{}/0", charm.metadata.name))
}

/// One hook of a charm's own `dispatch` process against a state in memory:
/// what `sim dispatch` runs on its state file and what the model
/// (`crate::world`) runs on each unit's view. It reads and writes no
/// state file.
pub struct Hook<'a> {
    pub charm: &'a CharmDir,
    pub root: &'a WorkloadRoot,
    /// What messages about the state call it; relative resource paths
    /// start from its directory.
    pub origin: &'a Path,
    /// Juju's environment for the hook, the unit's name in it.
    pub env: &'a JujuEnv,
    /// What `action-get` answers (an action only).
    pub params: serde_json::Map<String, serde_json::Value>,
    pub now: u64,
    /// The process's stdout goes to this one's stderr: for a caller whose
    /// own stdout is an answer (the model's `juju`, the harness).
    pub stdout_to_stderr: bool,
}

impl Hook<'_> {
    /// Run the charm's `dispatch` on `file`, end the hook by its exit code
    /// through the one commit rule, and return the state Juju keeps.
    pub fn run(self, file: StateFile) -> anyhow::Result<Dispatched> {
        let StateFile {
            sim: mut state,
            machine,
        } = file;
        let unit = self
            .env
            .get("JUJU_UNIT_NAME")
            .map_or_else(|| unit_of(self.charm, &state), str::to_string);
        let simulator = Simulator {
            charm: self.charm,
            root: self.root.clone(),
            state_dir: super::simulator::state_dir(self.origin),
            origin: self.origin.to_path_buf(),
            prober: crate::probe::Prober::default(),
        };
        start_event(&mut state, &unit, self.params);
        // Each container's simulated Pebble, served where the process finds
        // it under the workload root, as `run` serves it; it acts at once.
        let containers = pebble::Containers::start(
            self.charm,
            self.root,
            std::mem::take(&mut state.model.containers),
            self.origin,
            self.now,
        )?;
        let before = state.clone();
        let shared = Arc::new(Mutex::new(state));
        let tools = simulator.tools(self.env, &shared, unit, self.now)?;
        let hook = tempfile::Builder::new()
            .prefix("wasm-charm-hook-")
            .tempdir()
            .context("cannot make the hook's directory")?;
        let session = hook.path().join("session.json");
        Session {
            context: Some(ToolContext::of(&tools)),
            state: before.clone(),
            pending_secrets: Default::default(),
            pending_ports: Default::default(),
            pending_storage: Default::default(),
            machine,
        }
        .write(&session)?;
        let bin = link_tools(hook.path())?;
        // The root `run` would use, when the charm has one there to use.
        let root_var = (!self.root.is_machine() && self.root.path().is_dir())
            .then(|| self.root.path().to_path_buf());
        let status = run_dispatch(
            &self.charm.path,
            self.env,
            &bin,
            &session,
            root_var.as_deref(),
            self.stdout_to_stderr,
        )?;
        let (mut after, machine) = {
            let _lock = super::tool_session::lock(&session)?;
            let ended = Session::read(&session)?;
            (ended.state, ended.machine)
        };
        after.model.containers = containers.finish();
        let ended = end_hook(&before, after, self.env, status.success(), self.now);
        Ok(Dispatched {
            status,
            refused: ended.refused,
            state: StateFile {
                sim: ended.state,
                machine,
            },
            state_path: self.origin.to_path_buf(),
        })
    }
}

/// `<dir>/bin` with every served tool, the machine's too, a symlink to
/// this binary.
fn link_tools(dir: &Path) -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find this binary")?;
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).with_context(|| format!("{}: cannot create", bin.display()))?;
    for name in tools::NAMES.iter().chain(&super::machine::TOOLS) {
        std::os::unix::fs::symlink(&exe, bin.join(name))
            .with_context(|| format!("cannot link {name}"))?;
    }
    Ok(bin)
}

/// Run the charm's `dispatch` with the environment Juju gives a hook
/// (reference §1.4): the event's variables, the tools first on `PATH`, the
/// charm directory as working directory, stdin closed.
fn run_dispatch(
    charm: &Path,
    env: &JujuEnv,
    bin: &Path,
    session: &Path,
    root: Option<&Path>,
    stdout_to_stderr: bool,
) -> anyhow::Result<ExitStatus> {
    let dispatch = charm.join("dispatch");
    let mut path = std::ffi::OsString::from(bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()));
    let unit = env.get("JUJU_UNIT_NAME").unwrap_or_default();
    let mut cmd = Command::new(&dispatch);
    cmd.env_clear()
        .envs(env.vars())
        .env("PATH", path)
        .env("LANG", "C.UTF-8")
        .env("CHARM_DIR", charm)
        .env("JUJU_CHARM_DIR", charm)
        .env(
            "JUJU_CONTEXT_ID",
            format!("{unit}-sim-{}", std::process::id()),
        )
        .env(
            "JUJU_MODEL_UUID",
            env.get("JUJU_MODEL_UUID").unwrap_or(super::sim::MODEL_UUID),
        )
        .env(SESSION_VAR, session)
        .current_dir(charm)
        .stdin(Stdio::null());
    if let Some(home) = std::env::var_os("HOME") {
        cmd.env("HOME", home);
    }
    if let Some(root) = root {
        cmd.env(crate::workload_root::ROOT_VAR, root);
    }
    if stdout_to_stderr {
        let err = std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .context("cannot pass stderr on")?;
        cmd.stdout(Stdio::from(err));
    }
    // Juju waits for a hook as long as it runs; a simulation must not
    // stall the machine on a charm that never ends: past its deadline the
    // dispatch is killed with every process it started, and the hook fails.
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| UsageError(format!("{}: cannot run it: {e}", dispatch.display())))?;
    let limit = hook_deadline();
    let killed = crate::hook_tools::kill_group_at(&child, std::time::Instant::now() + limit);
    let status = child
        .wait()
        .with_context(|| format!("{}: cannot wait for it", dispatch.display()))?;
    if killed.fired() {
        eprintln!(
            "wasm-charm: {unit}: {} did not finish within {} s ({DEADLINE_VAR}) and was killed with every process it started; the hook failed",
            dispatch.display(),
            limit.as_secs()
        );
    }
    Ok(status)
}

/// How long a simulated hook may run, in seconds, when not the default.
pub const DEADLINE_VAR: &str = "WASM_CHARM_HOOK_DEADLINE";

/// Five minutes unless `WASM_CHARM_HOOK_DEADLINE` says otherwise: far past
/// any hook a charm means to run, well short of a stalled CI job.
fn hook_deadline() -> std::time::Duration {
    let secs = std::env::var(DEADLINE_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|s| *s > 0)
        .unwrap_or(300);
    std::time::Duration::from_secs(secs)
}
