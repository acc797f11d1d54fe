//! What differs between the two modes of the simulated Pebble, each behind
//! one enum: the state file's simulation (`run`, the harness, scenarios)
//! and real processes over a real directory (`sim pebble`). The API above
//! them is one.

use super::check_life::{self, Fate};
use super::files::{Entry, FileError, Fs};
use super::plan::Plan;
use super::process::checks::Running;
use super::process::exec::Run;
use super::process::files::DirFs;
use super::process::services::Processes;
use super::service_words::{self, StartFailure};
use super::state::{CheckStatus, Current, SimCheck};
use crate::charm_dir::CommandSpec;
use crate::offline::machine::ScriptedCommand;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// The container's file system.
#[derive(Debug)]
pub enum Files {
    Memory(Fs),
    Dir(DirFs),
}

impl Files {
    pub fn read(&self, path: &str) -> Result<Vec<u8>, FileError> {
        match self {
            Files::Memory(fs) => fs.read(path).map(<[u8]>::to_vec),
            Files::Dir(fs) => fs.read(path),
        }
    }

    pub fn write(
        &mut self,
        path: &str,
        bytes: Vec<u8>,
        make_dirs: bool,
        mode: u32,
    ) -> Result<(), FileError> {
        match self {
            Files::Memory(fs) => fs.write(path, bytes, make_dirs, mode),
            Files::Dir(fs) => fs.write(path, &bytes, make_dirs, mode),
        }
    }

    pub fn list(&self, path: &str, itself: bool) -> Result<Vec<Entry>, FileError> {
        match self {
            Files::Memory(fs) => fs.list(path, itself),
            Files::Dir(fs) => fs.list(path, itself),
        }
    }

    pub fn make_dir(&mut self, path: &str, make_parents: bool, mode: u32) -> Result<(), FileError> {
        match self {
            Files::Memory(fs) => fs.make_dir(path, make_parents, mode),
            Files::Dir(fs) => fs.make_dir(path, make_parents, mode),
        }
    }

    pub fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FileError> {
        match self {
            Files::Memory(fs) => fs.remove(path, recursive),
            Files::Dir(fs) => fs.remove(path, recursive),
        }
    }
}

/// The services: their recorded `current` (and the starts the state file
/// scripts to fail), or processes.
#[derive(Debug)]
pub enum Services {
    Recorded {
        current: BTreeMap<String, Current>,
        fail_start: BTreeMap<String, StartFailure>,
    },
    Processes(Processes),
}

impl Services {
    pub fn current(&mut self, name: &str) -> Current {
        match self {
            Services::Recorded { current, .. } => current.get(name).copied().unwrap_or_default(),
            Services::Processes(p) => p.current(name),
        }
    }

    /// Start `name` as `def` says: `Ok(true)` when it started (a recorded
    /// one does unless the state file scripts its start to fail), the
    /// task's error in Pebble's words otherwise.
    pub fn start(&mut self, name: &str, def: &Map<String, Value>) -> Result<bool, String> {
        match self {
            Services::Recorded {
                current,
                fail_start,
            } => {
                if let Some(failure) = fail_start.get(name) {
                    let (error, now) = service_words::scripted(def, *failure);
                    current.insert(name.to_string(), now);
                    return Err(error);
                }
                current.insert(name.to_string(), Current::Active);
                Ok(true)
            }
            Services::Processes(p) => p.start(name, def),
        }
    }

    /// Send `signal` (Pebble's name, `SIGHUP`) to a running `name`; the
    /// error in Pebble's words.
    pub fn signal(&mut self, name: &str, signal: &str) -> Result<(), String> {
        if self.current(name) != Current::Active {
            return Err("service is not running".into());
        }
        let number = signal
            .strip_prefix("SIG")
            .and_then(|_| super::process::signal_number(signal))
            .ok_or_else(|| format!("invalid signal name {signal:?}"))?;
        match self {
            Services::Recorded { .. } => Ok(()),
            Services::Processes(p) => {
                p.signal(name, number);
                Ok(())
            }
        }
    }

    pub fn stop(&mut self, name: &str) {
        match self {
            Services::Recorded { current, .. } => {
                current.insert(name.to_string(), Current::Inactive);
            }
            Services::Processes(p) => p.stop(name),
        }
    }
}

/// The checks: scripted, or running on their period.
#[derive(Debug)]
pub enum Checks {
    Scripted(BTreeMap<String, SimCheck>),
    Running(Running),
}

impl Checks {
    /// How check `name` of `plan` is doing (its threshold of failures
    /// making it down); one the state file does not name is up, or
    /// inactive when its startup is disabled.
    pub fn state(&self, name: &str, plan: &Plan) -> SimCheck {
        match self {
            Checks::Scripted(m) => m.get(name).cloned().unwrap_or_else(|| SimCheck {
                status: if plan.check_enabled(name) {
                    CheckStatus::Up
                } else {
                    CheckStatus::Inactive
                },
                ..SimCheck::default()
            }),
            Checks::Running(r) => {
                let failures = r.failures(name);
                let status = if r.is_stopped(name) {
                    CheckStatus::Inactive
                } else if failures >= plan.threshold(name) {
                    CheckStatus::Down
                } else {
                    CheckStatus::Up
                };
                SimCheck {
                    status,
                    failures: Some(failures),
                    threshold: None,
                }
            }
        }
    }

    /// Start (`run`) or stop check `name` of `plan`: whether that changed
    /// it. As Pebble: a started check counts afresh, a stopped one keeps
    /// its failures.
    pub fn set_running(&mut self, name: &str, run: bool, plan: &Plan) -> bool {
        let now = self.state(name, plan);
        if (now.status != CheckStatus::Inactive) == run {
            return false;
        }
        match self {
            Checks::Scripted(m) => {
                let status = if run {
                    CheckStatus::Up
                } else {
                    CheckStatus::Inactive
                };
                let failures = if run { None } else { now.failures };
                m.insert(
                    name.to_string(),
                    SimCheck {
                        status,
                        failures: failures.filter(|f| *f > 0),
                        threshold: None,
                    },
                );
                true
            }
            Checks::Running(r) => r.set_running(name, run),
        }
    }

    /// The plan was `old` and is now `new`: each check meets its fate
    /// ([`super::check_life`]).
    pub fn plan_changed(&mut self, old: &Plan, new: &Plan) {
        let fates = check_life::fates(old, new, |n| {
            self.state(n, old).status != CheckStatus::Inactive
        });
        match self {
            Checks::Scripted(m) => {
                for (name, fate) in fates {
                    // What the state file says only where the new plan's
                    // default would not say it.
                    let status = match fate {
                        Fate::Drop => {
                            m.remove(&name);
                            continue;
                        }
                        Fate::Keep if m.contains_key(&name) || new.check_enabled(&name) => {
                            continue;
                        }
                        // Running unnamed (up), now disabled: it runs on.
                        Fate::Keep | Fate::Restart => CheckStatus::Up,
                        Fate::Inactive => CheckStatus::Inactive,
                    };
                    m.remove(&name);
                    if (status == CheckStatus::Up) != new.check_enabled(&name) {
                        m.insert(
                            name,
                            SimCheck {
                                status,
                                ..SimCheck::default()
                            },
                        );
                    }
                }
            }
            Checks::Running(r) => r.sync(&new.checks, &fates),
        }
    }
}

impl Drop for Checks {
    /// Running checks end with the container (their threads share only
    /// the counts).
    fn drop(&mut self) {
        if let Checks::Running(r) = self {
            r.stop();
        }
    }
}

/// What exec runs: scripted outcomes of the commands wasm-charm.yaml
/// declares, or any program found on `PATH`, for real.
#[derive(Debug)]
pub enum Exec {
    Scripted {
        outcomes: BTreeMap<String, ScriptedCommand>,
        /// wasm-charm.yaml's commands for this container, which the
        /// outcomes are named after.
        commands: BTreeMap<String, CommandSpec>,
    },
    /// Run in `working_dir` unless the request names one.
    Real { working_dir: PathBuf },
}

/// An exec task: its websockets opened so far, and what they carry.
pub struct Task {
    pub opened: BTreeSet<String>,
    pub io: TaskIo,
}

pub enum TaskIo {
    /// What its websockets send.
    Scripted {
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    Running(Arc<Run>),
}
