//! The process-backed mode of the simulated Pebble (`wasm-charm sim
//! pebble`): the container's file system a real directory, services, exec
//! and checks real processes of this machine, each in a session of its own
//! so that stopping it stops what it started. The API, the layers and the
//! plan, the changes and the socket are the in-memory mode's; only what
//! acts differs, behind the backends of [`super::backend`].
//!
//! * [`files`]: the directory.
//! * [`services`]: services as processes, Pebble's okay-delay.
//! * [`exec`]: a command over its task's websockets.
//! * [`checks`]: each check of the plan run on its period.

pub mod checks;
pub mod exec;
pub mod files;
pub mod services;

use std::os::unix::process::CommandExt as _;
use std::process::Command;

/// Run `command` in a session of its own: its process group is then what
/// a stop or a kill signals. No signal is blocked or ignored in it, as a
/// service manager starts a service: `sim pebble` blocks SIGTERM and SIGINT
/// in its own threads to wait for them, and a process started under
/// `nohup` (or in a shell's background) ignores SIGHUP (or SIGINT and
/// SIGQUIT); a child inherits both, so a stopped service would ignore
/// SIGTERM, and a shell service could not trap a signal ignored at its
/// start (POSIX: such a `trap` is silently not set).
pub fn in_session(command: &mut Command) -> &mut Command {
    // SAFETY: setsid(2), sigemptyset(3), sigprocmask(2) and sigaction(2)
    // are async-signal-safe and touch only the child's own stack and
    // state; they run in the child between fork and exec.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            let mut none = std::mem::zeroed::<libc::sigset_t>();
            libc::sigemptyset(&mut none);
            if libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // exec keeps an ignored signal ignored (handlers it resets).
            let mut default = std::mem::zeroed::<libc::sigaction>();
            default.sa_sigaction = libc::SIG_DFL;
            for signal in 1..32 {
                if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                    libc::sigaction(signal, &default, std::ptr::null_mut());
                }
            }
            Ok(())
        })
    }
}

/// Signal the process group `pid` leads (a session of its own).
pub fn signal_group(pid: u32, signal: i32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // no memory is involved.
        unsafe { libc::kill(-pid, signal) };
    }
}

/// A signal's number from its name (`SIGKILL` or `KILL`).
pub fn signal_number(name: &str) -> Option<i32> {
    let name = name.strip_prefix("SIG").unwrap_or(name);
    Some(match name {
        "HUP" => libc::SIGHUP,
        "INT" => libc::SIGINT,
        "QUIT" => libc::SIGQUIT,
        "KILL" => libc::SIGKILL,
        "USR1" => libc::SIGUSR1,
        "USR2" => libc::SIGUSR2,
        "TERM" => libc::SIGTERM,
        "CONT" => libc::SIGCONT,
        "STOP" => libc::SIGSTOP,
        "WINCH" => libc::SIGWINCH,
        _ => return None,
    })
}

/// An exit status as Pebble gives it: the code, or -1 when a signal ended
/// the process.
pub fn exit_code(status: std::process::ExitStatus) -> i64 {
    status.code().map_or(-1, i64::from)
}

/// The time now, as Pebble writes times.
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    crate::show::utc(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signals `pid` ignores, from its `SigIgn` mask.
    fn ignored(pid: u32) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let mask = status
            .lines()
            .find_map(|l| l.strip_prefix("SigIgn:"))
            .unwrap()
            .trim();
        u64::from_str_radix(mask, 16).unwrap()
    }

    #[test]
    fn a_service_ignores_no_signal_its_starter_ignored() {
        let bit = |signal: i32| 1u64 << (signal - 1);
        let mut command = Command::new("sleep");
        command.arg("30");
        // What a process started under `nohup` and in a background job
        // passes on: SIGHUP, SIGINT and SIGQUIT ignored (set here in the
        // child only, before `in_session` runs).
        // SAFETY: sigaction(2) is async-signal-safe; the child's own state.
        unsafe {
            command.pre_exec(|| {
                let mut ignore = std::mem::zeroed::<libc::sigaction>();
                ignore.sa_sigaction = libc::SIG_IGN;
                for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
                    libc::sigaction(signal, &ignore, std::ptr::null_mut());
                }
                Ok(())
            });
        }
        // `spawn` returns once the exec succeeded: the mask is `sleep`'s.
        let mut child = in_session(&mut command).spawn().unwrap();
        let mask = ignored(child.id());
        signal_group(child.id(), libc::SIGHUP);
        let status = child.wait().unwrap();
        for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
            assert_eq!(mask & bit(signal), 0, "signal {signal} ignored: {mask:#x}");
        }
        // And SIGHUP, sent to its group, ended it.
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(status.signal(), Some(libc::SIGHUP));
    }
}
