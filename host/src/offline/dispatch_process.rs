//! The charm's own `dispatch` run as a process for one hook, as Juju runs
//! it, or an operator's commands in the unit's hook context (`juju exec`):
//! Juju's environment, the simulated hook tools first on `PATH` (this
//! binary under each tool's name, answering from the hook's session file:
//! `tool_session`), the charm directory as working directory, stdin
//! closed, and a deadline past which the process and everything it started
//! are killed. [`Simulator::run`](super::Simulator::run) ends the hook by
//! its exit code through the one commit rule; nothing here commits.

use super::machine::MachineState;
use super::run_args::UsageError;
use super::sim::{SimState, SimTools};
use super::tool_session::{SESSION_VAR, Session, ToolContext};
use crate::juju_env::JujuEnv;
use crate::workload_root::WorkloadRoot;
use anyhow::Context as _;
use std::os::fd::AsFd as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// How long a simulated hook may run, in seconds, when not the default.
pub const DEADLINE_VAR: &str = "WASM_CHARM_HOOK_DEADLINE";

/// What runs in the hook's context.
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    /// The charm's `dispatch`. `stdout_to_stderr`: its stdout goes to this
    /// process's stderr, for a caller whose stdout is an answer.
    Dispatch { stdout_to_stderr: bool },
    /// Commands for bash, their output captured (`juju exec`).
    Commands(&'a str),
}

/// How the process ended, and what its tools left.
pub struct Ran {
    pub status: ExitStatus,
    /// The commands' stdout and stderr ([`Program::Commands`] only).
    pub output: Option<(String, String)>,
    pub state: SimState,
    pub machine: MachineState,
}

/// Run `program` once in the charm's directory, its tools answering from
/// `state` as `tools` describe the event.
pub fn run(
    charm: &Path,
    root: &WorkloadRoot,
    env: &JujuEnv,
    tools: &SimTools,
    state: &SimState,
    mut machine: MachineState,
    program: Program<'_>,
) -> anyhow::Result<Ran> {
    // What the last event did is not this one's.
    machine.calls.clear();
    let hook = tempfile::Builder::new()
        .prefix("wasm-charm-hook-")
        .tempdir()
        .context("cannot make the hook's directory")?;
    let session = hook.path().join("session.json");
    Session {
        context: Some(ToolContext::of(tools)),
        state: state.clone(),
        pending_secrets: Default::default(),
        pending_ports: Default::default(),
        pending_storage: Default::default(),
        machine,
    }
    .write(&session)?;
    let bin = link_tools(hook.path())?;
    // The root `run` would use, when the charm has one there to use.
    let root_var = (!root.is_machine() && root.path().is_dir()).then(|| root.path().to_path_buf());
    let hook_env = HookEnv {
        bin: &bin,
        session: &session,
        root: root_var.as_deref(),
        now: tools.now,
    };
    let (status, output) = start(charm, env, &hook_env, program)?;
    let _lock = super::tool_session::lock(&session)?;
    let ended = Session::read(&session)?;
    Ok(Ran {
        status,
        output,
        state: ended.state,
        machine: ended.machine,
    })
}

/// `<dir>/bin` with every served tool, the machine's too, a symlink to
/// this binary.
fn link_tools(dir: &Path) -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find this binary")?;
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).with_context(|| format!("{}: cannot create", bin.display()))?;
    for name in super::tools::NAMES.iter().chain(&super::machine::TOOLS) {
        std::os::unix::fs::symlink(&exe, bin.join(name))
            .with_context(|| format!("cannot link {name}"))?;
    }
    Ok(bin)
}

/// What a hook's process gets besides Juju's environment: the served
/// tools' directory and session, the workload root when the simulation
/// has one, and the model's clock (a wasm charm's handlers read it).
struct HookEnv<'a> {
    bin: &'a Path,
    session: &'a Path,
    root: Option<&'a Path>,
    now: u64,
}

/// Start `program` with the environment Juju gives a hook (reference
/// §1.4) and wait for it, up to the deadline.
fn start(
    charm: &Path,
    env: &JujuEnv,
    hook: &HookEnv<'_>,
    program: Program<'_>,
) -> anyhow::Result<(ExitStatus, Option<(String, String)>)> {
    let HookEnv {
        bin,
        session,
        root,
        now,
    } = *hook;
    let dispatch = match program {
        Program::Dispatch { .. } => charm.join("dispatch"),
        // Juju's exec hands the commands to bash.
        Program::Commands(_) => PathBuf::from("bash"),
    };
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
        .env(crate::event_time::CLOCK_VAR, now.to_string())
        .current_dir(charm)
        .stdin(Stdio::null());
    if let Some(home) = std::env::var_os("HOME") {
        cmd.env("HOME", home);
    }
    if let Some(root) = root {
        cmd.env(crate::workload_root::ROOT_VAR, root);
    }
    match program {
        Program::Dispatch {
            stdout_to_stderr: true,
        } => {
            let err = std::io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .context("cannot pass stderr on")?;
            cmd.stdout(Stdio::from(err));
        }
        Program::Dispatch { .. } => {}
        Program::Commands(commands) => {
            cmd.arg("-c")
                .arg(commands)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
        }
    }
    // Juju waits for a hook as long as it runs; a simulation must not
    // stall the machine on a charm that never ends: past its deadline the
    // dispatch is killed with every process it started, and the hook fails.
    cmd.process_group(0);
    let child = cmd
        .spawn()
        .map_err(|e| UsageError(format!("{}: cannot run it: {e}", dispatch.display())))?;
    let limit = hook_deadline();
    let killed = crate::hook_tools::kill_group_at(&child, std::time::Instant::now() + limit);
    // Both pipes read to their end while it runs (a full pipe would stall
    // it); the deadline's kill ends them.
    let out = child
        .wait_with_output()
        .with_context(|| format!("{}: cannot wait for it", dispatch.display()))?;
    if killed.fired() {
        eprintln!(
            "wasm-charm: {unit}: {} did not finish within {} s ({DEADLINE_VAR}) and was killed with every process it started; the hook failed",
            dispatch.display(),
            limit.as_secs()
        );
    }
    let output = matches!(program, Program::Commands(_)).then(|| {
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    });
    Ok((out.status, output))
}

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
