//! The simulated machine as the offline host reaches it, in process: each
//! workload call is the tool call the host would make on a unit, answered
//! by [`super::answer`] and read by the host's own readers, so that `run`
//! and a served tool agree word for word.

use super::{ExitWord, MachineState, Place, ScriptedExit, answer, line};
use crate::bindings::workload::{CommandOutput, Exit, ServiceAction, ServiceStatus, WorkloadError};
use crate::probe::systemd::SimulatedSystemctl;
use crate::workload::process::{Ended, Ran};
use crate::workload::{Machine, OUTPUT_LIMIT, packages, services};
use std::sync::Mutex;
use std::time::Instant;

/// The simulated machine an offline event's workload calls act on.
#[derive(Debug, Default)]
pub struct SimMachine {
    state: Mutex<MachineState>,
    place: Place,
}

impl SimMachine {
    /// The machine as the state file left it, its `calls` cleared for the
    /// event.
    pub fn new(mut state: MachineState, place: Place) -> Self {
        state.calls.clear();
        SimMachine {
            state: Mutex::new(state),
            place,
        }
    }

    /// The machine now.
    pub fn state(&self) -> MachineState {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MachineState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One call of `tool`, as the host's process runner would report it.
    fn tool(&self, tool: &str, args: &[String]) -> Ran {
        let out = answer(tool, args, &mut self.lock(), &self.place);
        Ran {
            ended: Ended::Code(out.code),
            stdout: out.stdout,
            stderr: out.stderr.into_bytes(),
            truncated: false,
        }
    }
}

/// A systemd probe of the simulation asks its machine, as a probe on a
/// unit asks the unit's systemctl; the call is logged with the handlers',
/// as the served tool logs it for a dispatch.
impl SimulatedSystemctl for SimMachine {
    fn is_active(&self, unit: &str) -> (Option<i32>, String, String) {
        let ran = self.tool("systemctl", &services::argv("is-active", unit));
        let stdout = String::from_utf8_lossy(&ran.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
        (ran.code(), stdout, stderr)
    }
}

impl Machine for SimMachine {
    fn service(&self, unit: &str, action: ServiceAction, _: Instant) -> Result<(), WorkloadError> {
        let ran = self.tool("systemctl", &services::argv(services::verb(action), unit));
        match ran.code() {
            Some(0) => Ok(()),
            _ => Err(crate::workload::tool_error("systemctl", &ran)),
        }
    }

    fn service_state(&self, unit: &str, _: Instant) -> Result<ServiceStatus, WorkloadError> {
        let active = self.tool("systemctl", &services::argv("is-active", unit));
        let enabled = self.tool("systemctl", &services::argv("is-enabled", unit));
        services::read_state(&active, &enabled)
    }

    fn run_command(
        &self,
        name: &str,
        argv: &[String],
        _: Instant,
    ) -> Result<CommandOutput, WorkloadError> {
        let mut state = self.lock();
        state.calls.push(match argv.split_first() {
            Some((program, args)) => line(program, args),
            None => String::new(),
        });
        let scripted = state.commands.get(name).cloned().unwrap_or_default();
        let bounded = |text: String| {
            let mut bytes = text.into_bytes();
            let cut = bytes.len() > OUTPUT_LIMIT;
            bytes.truncate(OUTPUT_LIMIT);
            (bytes, cut)
        };
        // As the real machine: a program that cannot start is no output.
        let program = argv.first().map(String::as_str).unwrap_or_default();
        let reason = match scripted.exit {
            ScriptedExit::Word(ExitWord::NotFound) => {
                Some("No such file or directory (os error 2)")
            }
            ScriptedExit::Word(ExitWord::PermissionDenied) => {
                Some("Permission denied (os error 13)")
            }
            _ => None,
        };
        if let Some(reason) = reason {
            return Err(WorkloadError::Unavailable(format!(
                "cannot run `{program}`: {reason}"
            )));
        }
        let (stdout, cut_out) = bounded(scripted.stdout);
        let (stderr, cut_err) = bounded(scripted.stderr);
        Ok(CommandOutput {
            exit: match scripted.exit {
                ScriptedExit::Code(c) => Exit::Code(c),
                ScriptedExit::Word(ExitWord::TimedOut) => Exit::TimedOut,
                // Answered above.
                ScriptedExit::Word(ExitWord::NotFound | ExitWord::PermissionDenied) => {
                    Exit::Code(-1)
                }
            },
            stdout,
            stderr,
            truncated: cut_out || cut_err,
        })
    }

    fn package_installed(&self, package: &str, _: Instant) -> Result<bool, WorkloadError> {
        packages::read_installed(&self.tool("dpkg-query", &packages::query_argv(package)))
    }

    fn install_packages(
        &self,
        packages: &[String],
        deadline: Instant,
    ) -> Result<(), WorkloadError> {
        let attempt = || Ok(self.tool("apt-get", &packages::install_argv(packages)));
        packages::install_with_retries(attempt, &packages::RealPause, deadline)
    }
}
