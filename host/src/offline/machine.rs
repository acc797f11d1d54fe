//! The simulated machine of `wasm-charm run`: the workload calls a handler
//! makes (DESIGN §12) act on this record instead of the machine, which an
//! offline run never touches. It lives in the state file's `machine:`
//! section, beside the simulated Juju's fields (`sim`), and like
//! `status-set` it acts at once: a failed hook keeps what its handlers
//! did to the machine, as it would on a unit.
//!
//! ```yaml
//! machine:
//!   services:                  # each unit as the service calls left it
//!     api-service: {active: active, enabled: enabled}
//!   packages: [api-service]    # installed apt packages
//!   commands:                  # scripted outcomes of declared commands
//!     db-sync: {exit: 1, stdout: "", stderr: "database locked"}
//!     slow: {exit: timed-out}
//!   calls:                     # what the last event did, one line each
//!     - systemctl restart -- api-service
//! ```
//!
//! * `services`: a unit not named is `inactive` and `disabled`; `start` and
//!   `restart` make it `active`, `stop` `inactive`, `enable` and `disable`
//!   set `enabled`; `reload` of a unit that is not active fails as
//!   systemctl does.
//! * `packages`: installing adds to it; a package named is left alone.
//! * `commands`: a command not named here exits 0 and prints nothing;
//!   `exit` is a code or `timed-out`, the output is cut as on a unit. The
//!   operator writes these, and they are kept from run to run; a name the
//!   manifest does not declare is refused.
//! * `calls`: rewritten by every run, as the real tools would have been
//!   run (`systemctl`, `dpkg-query`, `apt-get`, a command's argv).

use crate::bindings::workload::{
    CommandOutput, Exit, ServiceAction, ServiceStatus, ToolFailure, WorkloadError,
};
use crate::workload::{Machine, OUTPUT_LIMIT};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Instant;

/// One unit of the simulated machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimService {
    #[serde(default = "inactive")]
    pub active: String,
    #[serde(default = "disabled")]
    pub enabled: String,
}

fn inactive() -> String {
    "inactive".to_string()
}

fn disabled() -> String {
    "disabled".to_string()
}

impl Default for SimService {
    fn default() -> Self {
        SimService {
            active: inactive(),
            enabled: disabled(),
        }
    }
}

/// How a scripted command ends: a code, or `timed-out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScriptedExit {
    Code(i32),
    Word(ExitWord),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitWord {
    TimedOut,
}

impl Default for ScriptedExit {
    fn default() -> Self {
        ScriptedExit::Code(0)
    }
}

/// What a declared command does offline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScriptedCommand {
    #[serde(default)]
    pub exit: ScriptedExit,
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
}

/// The state file's `machine:` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MachineState {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, SimService>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub packages: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub commands: BTreeMap<String, ScriptedCommand>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
}

impl MachineState {
    pub fn is_empty(&self) -> bool {
        *self == MachineState::default()
    }

    /// A scripted command the manifest does not declare: nothing would
    /// ever run it. The error names the field.
    pub fn check(&self, declared: &crate::charm_dir::Workload) -> Result<(), String> {
        match self
            .commands
            .keys()
            .find(|n| !declared.commands.contains_key(*n))
        {
            None => Ok(()),
            Some(name) => {
                let names: Vec<&str> = declared.commands.keys().map(String::as_str).collect();
                Err(format!(
                    "`machine.commands.{name}`: the charm's wasm-charm.yaml declares no command \
                     `{name}` (declared: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            }
        }
    }
}

/// The simulated machine an offline event's workload calls act on.
#[derive(Debug, Default)]
pub struct SimMachine {
    state: Mutex<MachineState>,
}

impl SimMachine {
    /// The machine as the state file left it, its `calls` cleared for the
    /// event.
    pub fn new(mut state: MachineState) -> Self {
        state.calls.clear();
        SimMachine {
            state: Mutex::new(state),
        }
    }

    /// The machine now.
    pub fn state(&self) -> MachineState {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MachineState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `tool args…`, each argument quoted when it needs it.
pub(crate) fn line(tool: &str, args: &[String]) -> String {
    let mut line = tool.to_string();
    for a in args {
        line.push(' ');
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=/:.,@+${}".contains(c))
        {
            line.push_str(a);
        } else {
            line.push_str(&format!("'{}'", a.replace('\'', "'\\''")));
        }
    }
    line
}

fn systemctl(verb: &str, unit: &str) -> String {
    line("systemctl", &crate::workload::services::argv(verb, unit))
}

impl Machine for SimMachine {
    fn service(&self, unit: &str, action: ServiceAction, _: Instant) -> Result<(), WorkloadError> {
        let verb = crate::workload::services::verb(action);
        let mut state = self.lock();
        state.calls.push(systemctl(verb, unit));
        let service = state.services.entry(unit.to_string()).or_default();
        match action {
            ServiceAction::Start | ServiceAction::Restart => service.active = "active".into(),
            ServiceAction::Stop => service.active = "inactive".into(),
            ServiceAction::Reload if service.active != "active" => {
                return Err(WorkloadError::Failed(ToolFailure {
                    tool: "systemctl".into(),
                    code: Some(1),
                    message: format!("{unit} is not active, cannot reload."),
                }));
            }
            ServiceAction::Reload => {}
            ServiceAction::Enable => service.enabled = "enabled".into(),
            ServiceAction::Disable => service.enabled = "disabled".into(),
        }
        Ok(())
    }

    fn service_state(&self, unit: &str, _: Instant) -> Result<ServiceStatus, WorkloadError> {
        let mut state = self.lock();
        state.calls.push(systemctl("is-active", unit));
        state.calls.push(systemctl("is-enabled", unit));
        let service = state.services.get(unit).cloned().unwrap_or_default();
        Ok(ServiceStatus {
            active: service.active,
            enabled: service.enabled,
        })
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
        let (stdout, cut_out) = bounded(scripted.stdout);
        let (stderr, cut_err) = bounded(scripted.stderr);
        Ok(CommandOutput {
            exit: match scripted.exit {
                ScriptedExit::Code(c) => Exit::Code(c),
                ScriptedExit::Word(ExitWord::TimedOut) => Exit::TimedOut,
            },
            stdout,
            stderr,
            truncated: cut_out || cut_err,
        })
    }

    fn package_installed(&self, package: &str, _: Instant) -> Result<bool, WorkloadError> {
        let mut state = self.lock();
        let query = crate::workload::packages::query_argv(package);
        state.calls.push(line("dpkg-query", &query));
        Ok(state.packages.contains(package))
    }

    fn install_packages(&self, packages: &[String], _: Instant) -> Result<(), WorkloadError> {
        let mut state = self.lock();
        let argv = crate::workload::packages::install_argv(packages);
        state.calls.push(line("apt-get", &argv));
        state.packages.extend(packages.iter().cloned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn services_move_as_systemctl_would_move_them() {
        let m = SimMachine::new(MachineState::default());
        let state = |m: &SimMachine| {
            let s = m.service_state("api", soon()).unwrap();
            (s.active, s.enabled)
        };
        assert_eq!(state(&m), ("inactive".into(), "disabled".into()));
        let e = m.service("api", ServiceAction::Reload, soon()).unwrap_err();
        assert!(
            matches!(e, WorkloadError::Failed(ToolFailure { code: Some(1), .. })),
            "{e:?}"
        );
        m.service("api", ServiceAction::Start, soon()).unwrap();
        m.service("api", ServiceAction::Enable, soon()).unwrap();
        m.service("api", ServiceAction::Reload, soon()).unwrap();
        assert_eq!(state(&m), ("active".into(), "enabled".into()));
        m.service("api", ServiceAction::Stop, soon()).unwrap();
        m.service("api", ServiceAction::Disable, soon()).unwrap();
        assert_eq!(state(&m), ("inactive".into(), "disabled".into()));
        let calls = m.state().calls;
        assert_eq!(calls[0], "systemctl is-active -- api");
        assert_eq!(calls[2], "systemctl reload -- api");
        assert_eq!(calls[3], "systemctl start -- api");
    }

    #[test]
    fn packages_and_commands() {
        let mut state = MachineState::default();
        state.packages.insert("libpq5".into());
        state.commands.insert(
            "db-sync".into(),
            ScriptedCommand {
                exit: ScriptedExit::Code(2),
                stdout: "x".repeat(OUTPUT_LIMIT + 1),
                stderr: "locked".into(),
            },
        );
        state.calls.push("from the last event".into());
        let m = SimMachine::new(state);
        assert!(m.package_installed("libpq5", soon()).unwrap());
        assert!(!m.package_installed("nginx", soon()).unwrap());
        m.install_packages(&["nginx".into()], soon()).unwrap();
        assert!(m.package_installed("nginx", soon()).unwrap());
        let out = m
            .run_command("db-sync", &["manage".into(), "db sync".into()], soon())
            .unwrap();
        assert_eq!(out.exit, Exit::Code(2));
        assert_eq!((out.stdout.len(), out.truncated), (OUTPUT_LIMIT, true));
        assert_eq!(out.stderr, b"locked");
        let out = m.run_command("other", &["true".into()], soon()).unwrap();
        assert_eq!(
            (out.exit, out.stdout.len(), out.truncated),
            (Exit::Code(0), 0, false)
        );
        assert_eq!(
            m.state().calls,
            [
                "dpkg-query -W -f=${Status} -- libpq5",
                "dpkg-query -W -f=${Status} -- nginx",
                "apt-get install -y -q -o Dpkg::Options::=--force-confold nginx",
                "dpkg-query -W -f=${Status} -- nginx",
                "manage 'db sync'",
                "true",
            ]
        );
    }

    #[test]
    fn scripted_commands_must_be_declared() {
        let mut state = MachineState::default();
        state
            .commands
            .insert("db-sync".into(), ScriptedCommand::default());
        let mut declared = crate::charm_dir::Workload::default();
        let e = state.check(&declared).unwrap_err();
        assert!(
            e.contains("`machine.commands.db-sync`") && e.contains("(declared: none)"),
            "{e}"
        );
        declared.commands.insert(
            "db-sync".into(),
            crate::charm_dir::CommandSpec {
                argv: vec!["true".into()],
                args: false,
                timeout: Duration::from_secs(1),
            },
        );
        assert_eq!(state.check(&declared), Ok(()));
    }
}
