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
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One attempt, with `systemctl` the program to run (found on `PATH` when it
/// is a bare name). It runs in a process group of its own, killed whole at
/// `deadline`.
pub(crate) fn check(systemctl: &Path, unit: &str, deadline: Instant) -> Seen {
    let cmd = format!("systemctl is-active {unit}");
    if Instant::now() >= deadline {
        return Seen::Unknown(format!("{cmd}: no time left to run it"));
    }
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    let word = stdout.lines().next().unwrap_or_default().trim();
    match (out.status.code(), word) {
        (Some(0), w) => Seen::Up {
            detail: format!(
                "service {unit} is {}",
                if w.is_empty() { "active" } else { w }
            ),
            still: format!("service {unit} still running"),
            pid: None,
        },
        (_, "") => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let why = stderr.lines().next().unwrap_or_default().trim();
            let code = out
                .status
                .code()
                .map_or("killed by a signal".to_string(), |c| format!("exit {c}"));
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
