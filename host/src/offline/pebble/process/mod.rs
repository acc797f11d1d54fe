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
/// a stop or a kill signals. No signal is blocked in it (`sim pebble`
/// blocks SIGTERM and SIGINT in its own threads to wait for them, and a
/// child would inherit that mask: a stopped service would ignore SIGTERM).
pub fn in_session(command: &mut Command) -> &mut Command {
    // SAFETY: setsid(2), sigemptyset(3) and sigprocmask(2) are
    // async-signal-safe and touch only the child's own stack and state;
    // they run in the child between fork and exec.
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
