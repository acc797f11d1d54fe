//! The simulated machine of `wasm-charm run` and `sim dispatch`: the
//! workload calls a handler makes (DESIGN §12) act on this record instead
//! of the machine, which an offline run never touches. It lives in the
//! state file's `machine:` section, beside the simulated Juju's fields
//! (`sim`), and like `status-set` it acts at once: a failed hook keeps what
//! its handlers did to the machine, as it would on a unit.
//!
//! One implementation answers both ways the host reaches a machine: the
//! tools `systemctl`, `apt-get` and `dpkg-query` ([`answer`]), with the
//! real tools' words, exit codes and output for what the host reads. An
//! offline run's host calls them in process ([`SimMachine`]); a charm's own
//! `dispatch` under `sim dispatch` (or a test's simulated unit) runs
//! `wasm-charm` under their names (`served_machine`), which answers from
//! the hook's session, locked while the tool runs.
//!
//! ```yaml
//! machine:
//!   units:                     # units the operator defines (optional)
//!     api-service: {exec-start: "sleep 300"}
//!     calls-worker: {}
//!   services:                  # each unit as the service calls left it
//!     api-service: {active: active, enabled: enabled, pid: 4242}
//!     calls-worker: {fail: {start: "Job for calls-worker.service failed."}}
//!   packages: [api-service]    # installed apt packages
//!   apt:
//!     repository:              # what apt can install (absent: anything)
//!       api-service: {payload: /path/to/install}
//!       libpq5: {}
//!     lock-held: 2             # the next 2 apt-get calls find the lock held
//!   commands:                  # scripted outcomes of declared commands
//!     db-sync: {exit: 1, stdout: "", stderr: "database locked"}
//!     slow: {exit: timed-out}
//!   calls:                     # what the last event did, one line each
//!     - systemctl restart -- api-service
//! ```
//!
//! * Units: one is defined by an entry of `units` or by a unit file under
//!   the workload root (`<root>/etc/systemd/system/<name>.service`, or
//!   `lib/` or `usr/lib/systemd/system`, what a package installs; never
//!   the machine's own `/etc`), whose first `ExecStart=` line is its
//!   command. A unit of `services` is known too (state only). While the
//!   machine defines no unit at all, every unit is known, state only, as
//!   an operator who scripted none expects; once one is defined, any other
//!   is `Unit <name>.service not found.` (exit 5) as on a unit.
//! * `services`: a unit not named is `inactive` and `disabled`; `start` and
//!   `restart` make it `active`, `stop` `inactive`, `enable` and `disable`
//!   set `enabled`; `reload` of a unit that is not active fails as
//!   systemctl does. A unit with a command runs it for real on `start` and
//!   `restart` (`sh -c`, a process group of its own, stdin empty, output
//!   appended to `<state dir>/machine/<name>.out`, its pid in `pid`);
//!   `stop` kills its group; one that died without a stop is `failed`.
//!   `fail: {<verb>: <words>}` makes that verb fail: the words on stderr,
//!   exit 1 (the operator's script; it stays until removed).
//! * `packages`: installing adds to it; a package named is left alone.
//! * `apt`: with a `repository`, a package not in it is `E: Unable to
//!   locate package <name>` (exit 100, nothing installed); a package's
//!   `payload` program is run on install (the workload root in
//!   `WASM_CHARM_ROOT`, output to `<state dir>/machine/<name>.install.out`)
//!   and its failure fails the install as dpkg's would. `lock-held: N`:
//!   the next N apt-get calls find the dpkg lock held (exit 100).
//! * `commands`: a command not named here exits 0 and prints nothing;
//!   `exit` is a code or `timed-out`, the output is cut as on a unit. The
//!   operator writes these, and they are kept from run to run; a name the
//!   manifest does not declare is refused. (A charm's own `dispatch` runs
//!   its declared commands for real: the host runs them, not a tool.)
//! * `calls`: what the last event did, as the real tools would have been
//!   run (`systemctl`, `dpkg-query`, `apt-get`, a command's argv); cleared
//!   when an event starts.

mod apt;
mod sim_machine;
mod systemctl;
mod units;

pub use sim_machine::SimMachine;
pub use units::{Place, Processes};

use crate::hook_tools::ToolOutput;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The tools the simulated machine answers.
pub const TOOLS: [&str; 3] = ["systemctl", "apt-get", "dpkg-query"];

/// A unit the operator defines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct UnitDefinition {
    /// Run with `sh -c` on `start`; none: the unit is state only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_start: Option<String>,
}

/// One unit of the simulated machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimService {
    #[serde(default = "inactive")]
    pub active: String,
    #[serde(default = "disabled")]
    pub enabled: String,
    /// The process its command runs as, leader of its own group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Scripted failures: a verb's words on stderr, exit 1.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fail: BTreeMap<String, String>,
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
            pid: None,
            fail: BTreeMap::new(),
        }
    }
}

/// A package apt can install.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AptPackage {
    /// A program installing the package's files, run by `install`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<PathBuf>,
}

/// What apt does, as the operator scripts it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AptScript {
    /// The packages apt can find; absent: every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<BTreeMap<String, AptPackage>>,
    /// How many of the next apt-get calls find the dpkg lock held.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lock_held: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a scripted command ends: a code, `timed-out`, or a program that
/// cannot start at all (`not-found`, `permission-denied`).
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
    /// The program is not there: it never starts.
    NotFound,
    /// The program is there but not executable: it never starts.
    PermissionDenied,
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
    pub units: BTreeMap<String, UnitDefinition>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, SimService>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub packages: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub apt: AptScript,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub commands: BTreeMap<String, ScriptedCommand>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
}

fn is_default(apt: &AptScript) -> bool {
    *apt == AptScript::default()
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

/// One call of `tool` (one of [`TOOLS`]) with `args`, as the real tool
/// would answer it, acting on `state` (and, for units with a command and
/// packages with a payload, through `processes`). The call is logged in
/// `state.calls`.
pub fn answer(
    tool: &str,
    args: &[String],
    state: &mut MachineState,
    processes: &dyn Processes,
) -> ToolOutput {
    state.calls.push(line(tool, args));
    match tool {
        "systemctl" => systemctl::call(state, processes, args),
        "apt-get" => apt::apt_get(state, processes, args),
        "dpkg-query" => apt::dpkg_query(state, args),
        _ => ToolOutput {
            code: 127,
            stdout: Vec::new(),
            stderr: format!("{tool}: not a tool of the simulated machine\n"),
        },
    }
}

/// A tool's answer in its own words: `code`, stdout and stderr as given.
fn said(code: i32, stdout: impl Into<Vec<u8>>, stderr: impl Into<String>) -> ToolOutput {
    ToolOutput {
        code,
        stdout: stdout.into(),
        stderr: stderr.into(),
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

#[cfg(test)]
mod tests;
