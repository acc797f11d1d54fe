//! Declared apt packages: whether one is installed (`dpkg-query`), and
//! installing those that are not (`apt-get install`, non-interactive, the
//! configuration files already there kept), retried with back-off while
//! another process holds the dpkg lock (unattended-upgrades, cloud-init, a
//! machine charm next door), within the handler's deadline.

use super::process::Ran;
use super::tool_error;
use crate::bindings::workload::WorkloadError;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// What `dpkg-query -W -f='${Status}'` prints for an installed package.
const INSTALLED: &str = "install ok installed";
/// apt-get's exit code for any error, the lock held included.
const APT_ERROR: i32 = 100;
/// The first wait for the lock, doubled at each retry up to [`MAX_WAIT`].
pub const FIRST_WAIT: Duration = Duration::from_millis(500);
pub const MAX_WAIT: Duration = Duration::from_secs(5);
/// The time an attempt after a wait must have before the deadline: less,
/// and it would only be killed, hiding that the lock was the problem.
pub const ATTEMPT_ROOM: Duration = Duration::from_secs(1);

/// The arguments of `dpkg-query` asking for `package`'s status.
pub fn query_argv(package: &str) -> Vec<String> {
    ["-W", "-f=${Status}", "--", package]
        .map(str::to_string)
        .to_vec()
}

/// The arguments of `apt-get` installing `packages`: assume yes, quiet, and
/// keep configuration files the machine already has (as charms do), so an
/// upgrade never stops at a dpkg prompt.
pub fn install_argv(packages: &[String]) -> Vec<String> {
    let mut argv: Vec<String> = [
        "install",
        "-y",
        "-q",
        "-o",
        "Dpkg::Options::=--force-confold",
    ]
    .map(str::to_string)
    .to_vec();
    argv.extend(packages.iter().cloned());
    argv
}

/// Whether `dpkg-query` found `package` installed. Exit 1 with nothing on
/// stdout is dpkg's "no packages found matching": not installed.
pub fn read_installed(ran: &Ran) -> Result<bool, WorkloadError> {
    let status = String::from_utf8_lossy(&ran.stdout);
    match ran.code() {
        Some(0) => Ok(status.trim() == INSTALLED),
        Some(1) if status.trim().is_empty() => Ok(false),
        _ => Err(tool_error("dpkg-query", ran)),
    }
}

/// The line of apt-get's stderr saying the dpkg lock is held (it names the
/// lock file and, often, the process holding it); `None` for any other
/// failure.
pub fn lock_held(ran: &Ran) -> Option<String> {
    if ran.code() != Some(APT_ERROR) {
        return None;
    }
    let stderr = String::from_utf8_lossy(&ran.stderr);
    stderr
        .lines()
        .find(|l| {
            l.contains("Could not get lock")
                || l.contains("Unable to acquire the dpkg frontend lock")
        })
        .map(|l| l.trim().trim_start_matches("E: ").to_string())
}

/// What to do after an attempt that found the lock held, `waited` the wait
/// before it (zero before the first retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Wait this long, then try again.
    Retry(Duration),
    /// No wait fits before the deadline.
    GiveUp,
}

/// The next wait: [`FIRST_WAIT`], then twice the last, at most
/// [`MAX_WAIT`], and only if after it [`ATTEMPT_ROOM`] is left for an
/// attempt.
pub fn after_lock(waited: Duration, now: Instant, deadline: Instant) -> Next {
    let wait = if waited.is_zero() {
        FIRST_WAIT
    } else {
        (waited * 2).min(MAX_WAIT)
    };
    match now.checked_add(wait + ATTEMPT_ROOM) {
        Some(attempt_end) if attempt_end <= deadline => Next::Retry(wait),
        _ => Next::GiveUp,
    }
}

/// The time source of the lock's back-off.
pub trait Pause {
    fn now(&self) -> Instant;
    fn sleep(&self, d: Duration);
}

/// The machine's monotonic clock.
pub struct RealPause;

impl Pause for RealPause {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// Run `attempt` (one `apt-get install`) until it is not refused for the
/// lock, waiting on `pause` between attempts, all before `deadline`.
pub fn install_with_retries(
    mut attempt: impl FnMut() -> Result<Ran, WorkloadError>,
    pause: &dyn Pause,
    deadline: Instant,
) -> Result<(), WorkloadError> {
    let mut waited = Duration::ZERO;
    loop {
        let ran = attempt()?;
        if ran.code() == Some(0) {
            return Ok(());
        }
        let Some(lock) = lock_held(&ran) else {
            return Err(tool_error("apt-get", &ran));
        };
        match after_lock(waited, pause.now(), deadline) {
            Next::Retry(wait) => {
                pause.sleep(wait);
                waited = wait;
            }
            Next::GiveUp => {
                return Err(WorkloadError::Unavailable(format!(
                    "apt-get could not install: another process holds the dpkg lock, and \
                     the handler's deadline leaves no time to wait for it ({lock})"
                )));
            }
        }
    }
}

/// `dpkg-query` on `package`.
pub fn installed(
    dpkg_query: &Path,
    package: &str,
    deadline: Instant,
) -> Result<bool, WorkloadError> {
    let mut cmd = Command::new(dpkg_query);
    cmd.args(query_argv(package));
    read_installed(&super::run_tool("dpkg-query", &mut cmd, deadline)?)
}

/// `apt-get install` of `packages`, retried while the lock is held.
pub fn install(
    apt_get: &Path,
    packages: &[String],
    pause: &dyn Pause,
    deadline: Instant,
) -> Result<(), WorkloadError> {
    let attempt = || {
        let mut cmd = Command::new(apt_get);
        cmd.args(install_argv(packages))
            .env("DEBIAN_FRONTEND", "noninteractive");
        super::run_tool("apt-get", &mut cmd, deadline)
    };
    install_with_retries(attempt, pause, deadline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::workload::ToolFailure;
    use std::cell::RefCell;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran::exited(code, stdout, stderr)
    }

    const LOCKED: &str = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)\n\
                          E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n";

    #[test]
    fn argv() {
        assert_eq!(query_argv("nginx"), ["-W", "-f=${Status}", "--", "nginx"]);
        assert_eq!(
            install_argv(&["nginx".into(), "libpq5".into()]),
            [
                "install",
                "-y",
                "-q",
                "-o",
                "Dpkg::Options::=--force-confold",
                "nginx",
                "libpq5"
            ]
        );
    }

    #[test]
    fn installed_is_read_from_the_status_words() {
        assert_eq!(
            read_installed(&ran(0, "install ok installed", "")),
            Ok(true)
        );
        assert_eq!(
            read_installed(&ran(0, "deinstall ok config-files", "")),
            Ok(false)
        );
        let none = ran(1, "", "dpkg-query: no packages found matching nginx\n");
        assert_eq!(read_installed(&none), Ok(false));
        assert_eq!(
            read_installed(&ran(2, "", "dpkg-query: error: broken\n")),
            Err(WorkloadError::Failed(ToolFailure {
                tool: "dpkg-query".into(),
                code: Some(2),
                message: "dpkg-query: error: broken".into()
            }))
        );
    }

    #[test]
    fn the_lock_is_told_from_other_failures() {
        assert_eq!(
            lock_held(&ran(100, "", LOCKED)).as_deref(),
            Some(
                "Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)"
            )
        );
        let older = "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n";
        assert!(lock_held(&ran(100, "", older)).is_some());
        assert_eq!(
            lock_held(&ran(100, "", "E: Unable to locate package nope\n")),
            None
        );
        assert_eq!(lock_held(&ran(1, "", LOCKED)), None);
    }

    #[test]
    fn waits_double_up_to_the_cap_and_never_past_the_deadline() {
        let now = Instant::now();
        let far = now + Duration::from_secs(600);
        assert_eq!(
            after_lock(Duration::ZERO, now, far),
            Next::Retry(FIRST_WAIT)
        );
        assert_eq!(
            after_lock(FIRST_WAIT, now, far),
            Next::Retry(FIRST_WAIT * 2)
        );
        assert_eq!(
            after_lock(Duration::from_secs(4), now, far),
            Next::Retry(MAX_WAIT)
        );
        assert_eq!(after_lock(MAX_WAIT, now, far), Next::Retry(MAX_WAIT));
        let room = FIRST_WAIT + ATTEMPT_ROOM;
        assert_eq!(
            after_lock(Duration::ZERO, now, now + room),
            Next::Retry(FIRST_WAIT)
        );
        assert_eq!(
            after_lock(Duration::ZERO, now, now + room - Duration::from_millis(1)),
            Next::GiveUp
        );
    }

    /// A clock that moves only when slept on.
    struct FakePause {
        now: RefCell<Instant>,
        slept: RefCell<Vec<Duration>>,
    }

    impl Pause for FakePause {
        fn now(&self) -> Instant {
            *self.now.borrow()
        }
        fn sleep(&self, d: Duration) {
            self.slept.borrow_mut().push(d);
            *self.now.borrow_mut() += d;
        }
    }

    fn pause() -> FakePause {
        FakePause {
            now: RefCell::new(Instant::now()),
            slept: RefCell::new(Vec::new()),
        }
    }

    #[test]
    fn retries_while_locked_then_succeeds() {
        let p = pause();
        let mut answers = vec![ran(0, "", ""), ran(100, "", LOCKED), ran(100, "", LOCKED)];
        let deadline = p.now() + Duration::from_secs(30);
        let r = install_with_retries(|| Ok(answers.pop().unwrap()), &p, deadline);
        assert_eq!(r, Ok(()));
        assert_eq!(*p.slept.borrow(), [FIRST_WAIT, FIRST_WAIT * 2]);
    }

    #[test]
    fn gives_up_at_the_deadline_naming_the_lock() {
        let p = pause();
        let deadline = p.now() + Duration::from_secs(4);
        let mut calls = 0;
        let r = install_with_retries(
            || {
                calls += 1;
                Ok(ran(100, "", LOCKED))
            },
            &p,
            deadline,
        );
        let Err(WorkloadError::Unavailable(m)) = r else {
            panic!("{r:?}")
        };
        assert!(m.contains("/var/lib/dpkg/lock-frontend"), "{m}");
        // 0.5 + 1 = 1.5 s waited; after a 2 s wait less than a second would
        // be left for an attempt.
        assert_eq!(*p.slept.borrow(), [FIRST_WAIT, FIRST_WAIT * 2]);
        assert_eq!(calls, 3);
    }

    #[test]
    fn other_failures_are_not_retried() {
        let p = pause();
        let r = install_with_retries(
            || {
                Ok(ran(
                    100,
                    "Reading package lists...\n",
                    "E: Unable to locate package nope\n",
                ))
            },
            &p,
            p.now() + Duration::from_secs(30),
        );
        assert_eq!(
            r,
            Err(WorkloadError::Failed(ToolFailure {
                tool: "apt-get".into(),
                code: Some(100),
                message: "E: Unable to locate package nope".into()
            }))
        );
        assert!(p.slept.borrow().is_empty());
    }
}
