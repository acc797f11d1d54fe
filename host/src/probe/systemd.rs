//! systemd probe: `systemctl is-active <unit>`, read as systemctl means it.
//!
//! `is-active` prints the unit's active state on stdout and exits 0 when it
//! is `active` (or `reloading`/`refreshing`, which systemd counts as active)
//! and 3 otherwise (`inactive`, `failed`, `activating`, `deactivating`,
//! `maintenance`; an unknown unit is `inactive`). Any other exit with nothing
//! on stdout means systemctl itself failed (no systemd, no bus): the state is
//! unknown, which is neither up nor down.

use super::Seen;
use crate::hook_tools::kill_group_at;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

/// Where a systemd probe asks: a `systemctl` program, or a simulated
/// machine answering as `systemctl` would (the offline simulator's, so
/// that a probe sees the services its handlers started there).
#[derive(Clone)]
pub enum Systemctl {
    /// Found on `PATH` when it is a bare name.
    Program(PathBuf),
    Simulated(Arc<dyn SimulatedSystemctl>),
}

/// A simulated machine's `systemctl is-active <unit>`.
pub trait SimulatedSystemctl: Send + Sync {
    /// Its exit code, stdout and stderr.
    fn is_active(&self, unit: &str) -> (Option<i32>, String, String);
}

impl std::fmt::Debug for Systemctl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Systemctl::Program(p) => f.debug_tuple("Program").field(p).finish(),
            Systemctl::Simulated(_) => f.write_str("Simulated"),
        }
    }
}

impl PartialEq for Systemctl {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Systemctl::Program(a), Systemctl::Program(b)) => a == b,
            (Systemctl::Simulated(a), Systemctl::Simulated(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Systemctl {}

/// One attempt, asking `systemctl`. A program runs in a process group of
/// its own, killed whole at `deadline`.
pub(crate) fn check(systemctl: &Systemctl, unit: &str, deadline: Instant) -> Seen {
    let cmd = format!("systemctl is-active {unit}");
    if Instant::now() >= deadline {
        return Seen::Unknown(format!("{cmd}: no time left to run it"));
    }
    match systemctl {
        Systemctl::Program(program) => run(program, unit, deadline),
        Systemctl::Simulated(machine) => {
            let (code, stdout, stderr) = machine.is_active(unit);
            read(unit, code, &stdout, &stderr)
        }
    }
}

fn run(systemctl: &Path, unit: &str, deadline: Instant) -> Seen {
    let cmd = format!("systemctl is-active {unit}");
    let child = Command::new(systemctl)
        .args(["is-active", unit])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            return Seen::Unknown(format!(
                "cannot run {} for service {unit}: {e}",
                systemctl.display()
            ));
        }
    };
    let killed = kill_group_at(&child, deadline);
    let out = child.wait_with_output();
    if killed.fired() {
        return Seen::Unknown(format!("{cmd} did not answer in time and was killed"));
    }
    let out = match out {
        Ok(o) => o,
        Err(e) => return Seen::Unknown(format!("{cmd}: {e}")),
    };
    read(
        unit,
        out.status.code(),
        &String::from_utf8_lossy(&out.stdout),
        &String::from_utf8_lossy(&out.stderr),
    )
}

/// What `systemctl is-active <unit>` answered, as systemctl means it.
fn read(unit: &str, code: Option<i32>, stdout: &str, stderr: &str) -> Seen {
    let cmd = format!("systemctl is-active {unit}");
    let word = stdout.lines().next().unwrap_or_default().trim();
    match (code, word) {
        (Some(0), w) => Seen::Up {
            detail: format!(
                "service {unit} is {}",
                if w.is_empty() { "active" } else { w }
            ),
            still: format!("service {unit} still running"),
            pid: None,
        },
        (_, "") => {
            let why = stderr.lines().next().unwrap_or_default().trim();
            let code = code.map_or("killed by a signal".to_string(), |c| format!("exit {c}"));
            Seen::Unknown(format!("{cmd} failed ({code}){}", prefixed(": ", why)))
        }
        (_, "inactive") => Seen::Down(format!("service {unit} not running")),
        (_, "failed") => Seen::Down(format!("systemd unit {unit} is failed")),
        (_, w) if w.ends_with("ing") || w == "maintenance" => {
            Seen::Down(format!("service {unit} not running ({w})"))
        }
        (_, w) => Seen::Down(format!("systemd unit {unit} is {w}")),
    }
}

fn prefixed(prefix: &str, s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("{prefix}{s}")
    }
}
