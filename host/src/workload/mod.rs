//! The `workload` WIT interface (DESIGN §12): what a handler may change on
//! the machine, as wasm-charm.yaml's `workload:` declares it — systemd units
//! (`services`), programs (`commands`), apt packages (`packages.apt`).
//!
//! Every call is checked against the declaration first: an undeclared name
//! is the guest's `undeclared` error, and a warning in the unit's log (a
//! charm naming what its manifest lacks is a bug). Allowed calls act at
//! once, on the [`Machine`] the event was given (the real one, or the
//! offline runner's), each finished by the handler's deadline. A restart
//! also starts again the grace period of the probes that watch the unit,
//! through the `probe` interface's own per-handler choices, so it takes
//! effect when the handler returns, as `probe.restart-grace` does.
//!
//! * [`machine`]: the [`Machine`] trait and the real [`SystemMachine`].
//! * `services`, `commands`, `packages`: the argv of each call and how its
//!   tool's answer reads. `process`: running one child, bounded.

mod commands;
pub mod machine;
pub(crate) mod packages;
pub(crate) mod process;
pub(crate) mod services;

pub use crate::charm_dir::{MAX_ARGS, MAX_ARGS_BYTES, OUTPUT_LIMIT};
pub use commands::PATH as COMMAND_PATH;
pub use machine::{Machine, SystemMachine};

use crate::bindings::model::LogLevel;
use crate::bindings::workload::{
    CommandOutput, Host, ServiceAction, ServiceStatus, ToolFailure, WorkloadError,
};
use crate::charm_dir::Workload;
use crate::model::Model;
use crate::probe::{ProbeSpec, Probes};
use process::{Ended, Ran};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Workload calls one event may make, all handlers together: each may start
/// processes, and a handler calling in a loop must not hold the unit.
pub const MAX_CALLS_PER_EVENT: usize = 1000;
/// Distinct warnings logged per handler; more are dropped.
const MAX_WARNINGS: usize = 16;
/// Bytes of a tool's words kept in a `failed` error.
const MAX_MESSAGE: usize = 4096;
/// How long a call may take when no handler deadline was set (the pipeline
/// always sets one).
const RUN_WITHOUT_DEADLINE: Duration = Duration::from_secs(30);

/// What one event's handlers may do to the machine, and what does it:
/// the manifest's declaration, the probes watching each unit, the
/// [`Machine`], and the calls made so far. Cheap to clone.
#[derive(Clone)]
pub struct Access {
    declared: Arc<Workload>,
    /// Per declared unit, the probes whose grace period a restart restarts.
    watchers: Arc<BTreeMap<String, Vec<String>>>,
    /// `Err`: every call is `unavailable` with this reason.
    machine: Result<Arc<dyn Machine>, &'static str>,
    calls: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("declared", &self.declared)
            .field("watchers", &self.watchers)
            .field("machine", &self.machine.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

impl Access {
    /// The access an event's handlers get to `machine`.
    pub fn new(
        declared: &Workload,
        probes: &BTreeMap<String, ProbeSpec>,
        machine: Arc<dyn Machine>,
    ) -> Self {
        Access {
            declared: Arc::new(declared.clone()),
            watchers: Arc::new(services::watchers(&declared.services, probes)),
            machine: Ok(machine),
            calls: Arc::default(),
        }
    }

    /// No access: every call, declared or not, is `unavailable` with
    /// `reason` (what `declare` runs with, outside any event).
    pub fn refused(reason: &'static str) -> Self {
        Access {
            declared: Arc::default(),
            watchers: Arc::default(),
            machine: Err(reason),
            calls: Arc::default(),
        }
    }
}

/// The `workload` interface for one handler: the event's [`Access`], the
/// handler's deadline, and the warnings it already logged.
#[derive(Debug)]
pub struct Calls {
    access: Access,
    handler: String,
    deadline: Option<Instant>,
    warned: BTreeSet<String>,
}

impl Calls {
    pub fn new(access: Access, handler: &str) -> Self {
        Calls {
            access,
            handler: handler.to_string(),
            deadline: None,
            warned: BTreeSet::new(),
        }
    }

    /// Every call finishes by the handler's deadline.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    fn deadline(&self) -> Instant {
        self.deadline
            .unwrap_or_else(|| Instant::now() + RUN_WITHOUT_DEADLINE)
    }

    /// The machine, if this call may go on: within the event's bound on
    /// calls, and with a machine at all.
    fn machine(&self) -> Result<Arc<dyn Machine>, WorkloadError> {
        let machine = self
            .access
            .machine
            .clone()
            .map_err(|why| WorkloadError::Unavailable(why.to_string()))?;
        let made = self.access.calls.fetch_add(1, Ordering::SeqCst);
        if made >= MAX_CALLS_PER_EVENT {
            return Err(WorkloadError::Unavailable(format!(
                "more than {MAX_CALLS_PER_EVENT} workload calls in one event; call less often"
            )));
        }
        Ok(machine)
    }
}

/// A name a guest gave, as a message shows it: bounded, so a huge name
/// cannot make a huge log line.
fn shown(name: &str) -> String {
    const MAX: usize = 128;
    if name.len() <= MAX {
        return name.to_string();
    }
    format!("{}…", &name[..name.floor_char_boundary(MAX)])
}

/// `undeclared`, naming what and the field that would declare it.
fn undeclared(what: &str, name: &str, field: &str) -> WorkloadError {
    WorkloadError::Undeclared(format!(
        "{what} `{}` is not declared in wasm-charm.yaml workload.{field}",
        shown(name)
    ))
}

/// `failed`, with the tool's exit code and words (bounded).
pub(crate) fn tool_error(tool: &str, ran: &Ran) -> WorkloadError {
    let mut message = ran.words();
    if message.is_empty() {
        message = match ran.ended {
            Ended::Signal(s) => format!("killed by signal {s}, saying nothing"),
            _ => "it said nothing".to_string(),
        };
    }
    message.truncate(message.floor_char_boundary(MAX_MESSAGE));
    WorkloadError::Failed(ToolFailure {
        tool: tool.to_string(),
        code: ran.code(),
        message,
    })
}

/// Run one of the machine's tools (`systemctl`, `apt-get`, `dpkg-query`)
/// in the C locale, whose words the host reads (apt-get translates its
/// errors): one that cannot be started, or is killed at the deadline, is
/// `unavailable`.
pub(crate) fn run_tool(
    tool: &str,
    cmd: &mut Command,
    deadline: Instant,
) -> Result<Ran, WorkloadError> {
    cmd.env("LC_ALL", "C");
    match process::run(cmd, deadline) {
        Ok(ran) if ran.ended == Ended::TimedOut => Err(WorkloadError::Unavailable(format!(
            "{tool} did not finish before the handler's deadline and was killed"
        ))),
        Ok(ran) => Ok(ran),
        Err(e) => Err(WorkloadError::Unavailable(format!(
            "cannot run {}: {e}",
            cmd.get_program().to_string_lossy()
        ))),
    }
}

/// The interface as an instance reaches it: the handler's [`Calls`], the
/// probes (a restart restarts their grace periods) and the model (for
/// warnings in the unit's log).
pub struct Handle<'a> {
    pub calls: &'a mut Calls,
    pub probes: &'a mut Probes,
    pub model: &'a mut Model,
}

impl Handle<'_> {
    /// Log `why` for call `call` once per handler (bounded).
    fn warn(&mut self, call: &str, why: &WorkloadError) {
        let WorkloadError::Undeclared(why) = why else {
            return;
        };
        let line = format!("handler `{}`: workload.{call}: {why}", self.calls.handler);
        if self.calls.warned.len() < MAX_WARNINGS && self.calls.warned.insert(line.clone()) {
            self.model.log(LogLevel::Warning, &line);
        }
    }

    /// The declared unit `name`, or the error (warned).
    fn service_declared(&mut self, name: &str, call: &str) -> Result<(), WorkloadError> {
        if self.calls.access.declared.services.contains(name) {
            return Ok(());
        }
        let e = undeclared("service", name, "services");
        self.warn(call, &e);
        Err(e)
    }
}

impl Host for Handle<'_> {
    fn service(&mut self, name: String, action: ServiceAction) -> Result<(), WorkloadError> {
        self.service_declared(&name, "service")?;
        let machine = self.calls.machine()?;
        machine.service(&name, action, self.calls.deadline())?;
        if action == ServiceAction::Restart {
            let watching = self.calls.access.watchers.get(&name).cloned();
            for probe in watching.unwrap_or_default() {
                // Declared by construction: the same manifest.
                let _ = crate::bindings::probe::Host::restart_grace(self.probes, probe);
            }
        }
        Ok(())
    }

    fn service_state(&mut self, name: String) -> Result<ServiceStatus, WorkloadError> {
        self.service_declared(&name, "service-state")?;
        let machine = self.calls.machine()?;
        machine.service_state(&name, self.calls.deadline())
    }

    fn run_command(
        &mut self,
        name: String,
        args: Vec<String>,
    ) -> Result<CommandOutput, WorkloadError> {
        let Some(spec) = self.calls.access.declared.commands.get(&name).cloned() else {
            let e = undeclared("command", &name, "commands");
            self.warn("run-command", &e);
            return Err(e);
        };
        let argv =
            commands::argv(&name, &spec, &args).inspect_err(|e| self.warn("run-command", e))?;
        let machine = self.calls.machine()?;
        let until = commands::end(spec.timeout, self.calls.deadline(), Instant::now());
        machine.run_command(&name, &argv, until)
    }

    fn install_packages(&mut self, names: Vec<String>) -> Result<(), WorkloadError> {
        let declared = &self.calls.access.declared.apt;
        if let Some(name) = names.iter().find(|n| !declared.contains(*n)) {
            let e = undeclared("package", name, "packages.apt");
            self.warn("install-packages", &e);
            return Err(e);
        }
        // Declared names are few and distinct; the guest's list may repeat them.
        let wanted: BTreeSet<&String> = names.iter().collect();
        let machine = self.calls.machine()?;
        let deadline = self.calls.deadline();
        let mut missing = Vec::new();
        for package in wanted {
            if !machine.package_installed(package, deadline)? {
                missing.push(package.clone());
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        machine.install_packages(&missing, deadline)
    }
}

struct HandleData;

impl wasmtime::component::HasData for HandleData {
    type Data<'a> = Handle<'a>;
}

/// Register the `workload` interface, answered by the [`Handle`] that `get`
/// makes of an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> Handle<'_>,
) -> wasmtime::Result<()> {
    crate::bindings::workload::add_to_linker::<T, HandleData>(linker, get)
}

#[cfg(test)]
mod tests;
