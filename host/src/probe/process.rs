//! Process probe: a live process whose `comm`, or the base name of whose
//! `argv[0]`, is the name. Reads `/proc`; needs no service manager.

use super::Seen;
use std::path::Path;
use std::time::Instant;

/// The kernel cuts `comm` to this many bytes.
const COMM_LEN: usize = 15;

/// One attempt: scan `proc` (the real one is `/proc`). Zombies (state `Z`)
/// and processes that vanish during the scan do not count.
pub(crate) fn check(proc: &Path, name: &str, deadline: Instant) -> Seen {
    let entries = match std::fs::read_dir(proc) {
        Ok(e) => e,
        Err(e) => {
            return Seen::Unknown(format!(
                "process {name}: cannot read {}: {e}",
                proc.display()
            ));
        }
    };
    for entry in entries.flatten() {
        if Instant::now() >= deadline {
            return Seen::Unknown(format!(
                "process {name}: the scan of {} did not finish in time",
                proc.display()
            ));
        }
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let dir = entry.path();
        if matches(&dir, name) {
            return Seen::Up {
                detail: format!("process {name} running (pid {pid})"),
                still: format!("process {name} still running (pid {pid})"),
            };
        }
    }
    Seen::Down(format!("process {name} not running"))
}

fn matches(dir: &Path, name: &str) -> bool {
    // `stat` is `pid (comm) state …`; comm may itself hold `)`.
    let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
        return false;
    };
    let Some((head, tail)) = stat.rsplit_once(')') else {
        return false;
    };
    if tail.trim_start().starts_with('Z') {
        return false;
    }
    let comm = head.split_once('(').map(|(_, c)| c).unwrap_or_default();
    if name.len() <= COMM_LEN && comm == name {
        return true;
    }
    let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else {
        return false;
    };
    let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
    let base = argv0.rsplit(|b| *b == b'/').next().unwrap_or_default();
    !base.is_empty() && base == name.as_bytes()
}
