//! Services as real processes: the plan's `command` split as a shell would
//! (no shell runs it), its `environment` over this process's, in its
//! `working-dir`, in a session of its own. As Pebble's okay-delay does, a
//! service that exits within [`OKAY_DELAY`] fails to start. `current` is
//! `active` while it runs, `inactive` before it starts and once stopped,
//! `error` when it exited by itself (Pebble would go through `backoff` and
//! restart it; this never restarts a service on its own).

use super::super::service_words::{self, StartWord};
use super::super::state::Current;
use super::super::words;
use super::{exit_code, in_session, signal_group};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Pebble waits 1s; a test's service that fails, fails at once.
pub const OKAY_DELAY: Duration = Duration::from_millis(300);
/// How long a stopped service has between SIGTERM and SIGKILL.
pub const KILL_DELAY: Duration = Duration::from_secs(5);
/// How often a process is looked at while waiting for it to end.
const POLL: Duration = Duration::from_millis(10);

struct Service {
    child: Child,
    /// Stopped through Pebble, rather than exited by itself.
    stopped: bool,
}

/// The services started, by name; each one's pid also in
/// `<state dir>/<service>.pid` while it runs, for a test to find.
#[derive(Default)]
pub struct Processes {
    pub state_dir: Option<PathBuf>,
    services: BTreeMap<String, Service>,
}

impl std::fmt::Debug for Processes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.services.keys()).finish()
    }
}

/// A value of a service's `environment`, as text.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Wait for `child` until `until`; its exit status if it ended.
fn wait_until(child: &mut Child, until: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(POLL),
            _ => return None,
        }
    }
}

impl Processes {
    pub fn new(state_dir: Option<PathBuf>) -> Processes {
        Processes {
            state_dir,
            services: BTreeMap::new(),
        }
    }

    pub fn current(&mut self, name: &str) -> Current {
        match self.services.get_mut(name) {
            None => Current::Inactive,
            Some(s) if s.stopped => Current::Inactive,
            Some(s) => match s.child.try_wait() {
                Ok(None) => Current::Active,
                _ => Current::Error,
            },
        }
    }

    fn pid_file(&self, name: &str) -> Option<PathBuf> {
        self.state_dir
            .as_ref()
            .map(|d| d.join(format!("{name}.pid")))
    }

    /// Start `name` as `def` defines it, unless it runs; `Ok(false)` when
    /// it was running. The error is Pebble's words for the task.
    pub fn start(&mut self, name: &str, def: &Map<String, Value>) -> Result<bool, String> {
        if self.current(name) == Current::Active {
            return Ok(false);
        }
        let line = def
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let argv = words::split(line).map_err(|e| format!("cannot parse service command: {e}"))?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| "cannot start service: no command".to_string())?;
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::null());
        if let Some(Value::Object(env)) = def.get("environment") {
            command.envs(env.iter().map(|(k, v)| (k, text(v))));
        }
        if let Some(dir) = def.get("working-dir").and_then(Value::as_str) {
            command.current_dir(dir);
        }
        let child = in_session(&mut command).spawn().map_err(|e| {
            let word = match e.kind() {
                std::io::ErrorKind::NotFound => StartWord::NotFound,
                std::io::ErrorKind::PermissionDenied => StartWord::PermissionDenied,
                _ => return format!("cannot start service: {e}"),
            };
            service_words::cannot_start(program, word)
        })?;
        if let Some(file) = self.pid_file(name) {
            // Only a test reads it: a service runs without it.
            let _ = std::fs::write(file, child.id().to_string());
        }
        // A service stopped or ended before is replaced (already reaped).
        let service = Service {
            child,
            stopped: false,
        };
        let service = match self.services.entry(name.to_string()) {
            std::collections::btree_map::Entry::Occupied(mut o) => {
                o.insert(service);
                o.into_mut()
            }
            std::collections::btree_map::Entry::Vacant(v) => v.insert(service),
        };
        if let Some(status) = wait_until(&mut service.child, Instant::now() + OKAY_DELAY) {
            return Err(service_words::exited_quickly(def, exit_code(status)));
        }
        Ok(true)
    }

    /// Stop `name`: SIGTERM to its process group, SIGKILL after
    /// [`KILL_DELAY`].
    pub fn stop(&mut self, name: &str) {
        let pid_file = self.pid_file(name);
        let Some(service) = self.services.get_mut(name) else {
            return;
        };
        service.stopped = true;
        let child = &mut service.child;
        if matches!(child.try_wait(), Ok(None)) {
            signal_group(child.id(), libc::SIGTERM);
            if wait_until(child, Instant::now() + KILL_DELAY).is_none() {
                signal_group(child.id(), libc::SIGKILL);
                let _ = child.wait();
            }
        }
        if let Some(file) = pid_file {
            let _ = std::fs::remove_file(file);
        }
    }

    /// Signal `name`'s process group, if it runs.
    pub fn signal(&mut self, name: &str, signal: i32) {
        if let Some(service) = self.services.get(name) {
            signal_group(service.child.id(), signal);
        }
    }

    /// Stop every service started.
    pub fn stop_all(&mut self) {
        let names: Vec<String> = self.services.keys().cloned().collect();
        names.iter().for_each(|n| self.stop(n));
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        self.stop_all();
    }
}
