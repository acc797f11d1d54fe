//! One child process, as every workload call runs one (`systemctl`,
//! `apt-get`, `dpkg-query`, a declared command): stdin empty, a process
//! group of its own, both output pipes read at once (a child filling one
//! while the host waits on the other would never finish), each kept to its
//! first [`OUTPUT_LIMIT`] bytes and drained past it, and the whole group
//! killed with SIGKILL at the deadline.
//!
//! Nothing is left behind: when the child exits, whatever it started in its
//! group is killed before the child is reaped (its pid, the group's id,
//! stays ours until then, so the kill cannot reach a stranger). A process
//! that left the group (`setsid`, a daemon) is out of reach, as it means to
//! be; its output pipe is waited for only briefly.

use crate::charm_dir::OUTPUT_LIMIT;
use crate::hook_tools::kill_group_at;
use std::io::Read;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// How long the output of a child that exited is waited for: a process that
/// left its group may hold the pipe open for ever.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Code(i32),
    Signal(i32),
    /// Killed at its deadline.
    TimedOut,
}

/// What a child did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub ended: Ended,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Some output was past [`OUTPUT_LIMIT`] and dropped.
    pub truncated: bool,
}

impl Ran {
    /// A child that exited with `code` and wrote `stdout` and `stderr`, for
    /// the tests of what the tools' answers mean.
    #[cfg(test)]
    pub fn exited(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran {
            ended: Ended::Code(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            truncated: false,
        }
    }

    /// The exit code, when it exited on its own.
    pub fn code(&self) -> Option<i32> {
        match self.ended {
            Ended::Code(c) => Some(c),
            _ => None,
        }
    }

    /// Its words: stderr, or stdout when stderr says nothing, trimmed.
    pub fn words(&self) -> String {
        let pick = if self.stderr.iter().any(|b| !b.is_ascii_whitespace()) {
            &self.stderr
        } else {
            &self.stdout
        };
        String::from_utf8_lossy(pick).trim().to_string()
    }
}

/// One output stream as read so far.
#[derive(Default)]
struct Capture {
    kept: Vec<u8>,
    dropped: bool,
}

/// Read `pipe` to its end on a thread of its own, keeping the first
/// `limit` bytes; `done` is told when it ends.
fn capture(
    pipe: Option<impl Read + Send + 'static>,
    limit: usize,
    done: mpsc::Sender<()>,
) -> std::io::Result<Arc<Mutex<Capture>>> {
    let shared = Arc::new(Mutex::new(Capture::default()));
    let Some(mut pipe) = pipe else {
        let _ = done.send(());
        return Ok(shared);
    };
    let out = shared.clone();
    std::thread::Builder::new()
        .name("workload-output".into())
        .spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut c = out.lock().unwrap_or_else(|p| p.into_inner());
                        keep_within(&mut c, &buf[..n], limit);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = done.send(());
        })?;
    Ok(shared)
}

/// Append `chunk` to what `c` keeps, up to `limit` bytes in all.
fn keep_within(c: &mut Capture, chunk: &[u8], limit: usize) {
    let room = limit.saturating_sub(c.kept.len());
    c.kept.extend_from_slice(&chunk[..room.min(chunk.len())]);
    if chunk.len() > room {
        c.dropped = true;
    }
}

/// Run `cmd` (its program, arguments, environment and directory set by the
/// caller) until it exits or `deadline` passes. `Err`: it could not be
/// started.
pub fn run(cmd: &mut Command, deadline: Instant) -> std::io::Result<Ran> {
    if Instant::now() >= deadline {
        return Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "no time is left before the handler's deadline",
        ));
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn()?;
    let killed = kill_group_at(&child, deadline);
    let (done_tx, done) = mpsc::channel();
    let readers = capture(child.stdout.take(), OUTPUT_LIMIT, done_tx.clone())
        .and_then(|out| Ok((out, capture(child.stderr.take(), OUTPUT_LIMIT, done_tx)?)));
    let pid = child.id() as libc::pid_t;
    if readers.is_err() {
        // SAFETY: kill(2) of the child's own group, which exists until the
        // child is reaped below.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    wait_exited(pid);
    // SAFETY: the child has exited but is not reaped, so its pid is still
    // its group's id and no other group can have it.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    let status = child.wait()?;
    let timed_out = killed.fired();
    drop(killed);
    let (out, err) = readers?;
    let until = Instant::now() + DRAIN_AFTER_EXIT;
    for _ in 0..2 {
        if done
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .is_err()
        {
            break;
        }
    }
    let take = |c: &Arc<Mutex<Capture>>| {
        let mut c = c.lock().unwrap_or_else(|p| p.into_inner());
        (std::mem::take(&mut c.kept), c.dropped)
    };
    let ((stdout, cut_out), (stderr, cut_err)) = (take(&out), take(&err));
    let ended = match (timed_out, status.code(), status.signal()) {
        (true, _, _) => Ended::TimedOut,
        (false, Some(code), _) => Ended::Code(code),
        (false, None, Some(signal)) => Ended::Signal(signal),
        (false, None, None) => Ended::Signal(0),
    };
    Ok(Ran {
        ended,
        stdout,
        stderr,
        truncated: cut_out || cut_err,
    })
}

/// Block until child `pid` has exited, leaving it to be reaped.
fn wait_exited(pid: libc::pid_t) {
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) on our own child, writing only into `info`;
        // WNOWAIT leaves it waitable for `Child::wait`.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        cmd
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(20)
    }

    #[test]
    fn keeps_a_bounded_prefix() {
        let mut c = Capture::default();
        keep_within(&mut c, b"abc", 5);
        assert!(!c.dropped);
        keep_within(&mut c, b"defg", 5);
        assert_eq!(c.kept, b"abcde");
        assert!(c.dropped);
        keep_within(&mut c, b"h", 5);
        assert_eq!(c.kept, b"abcde");
    }

    #[test]
    fn exit_codes_signals_and_words() {
        let ran = run(&mut sh("echo out; echo err >&2; exit 3"), soon()).unwrap();
        assert_eq!(ran.ended, Ended::Code(3));
        assert_eq!(ran.code(), Some(3));
        assert_eq!(
            (ran.stdout.as_slice(), ran.stderr.as_slice()),
            (&b"out\n"[..], &b"err\n"[..])
        );
        assert_eq!(ran.words(), "err");
        let ran = run(&mut sh("echo only-out"), soon()).unwrap();
        assert_eq!(ran.words(), "only-out");
        let ran = run(&mut sh("kill -TERM $$"), soon()).unwrap();
        assert_eq!(ran.ended, Ended::Signal(libc::SIGTERM));
        assert_eq!(ran.code(), None);
    }

    #[test]
    fn both_streams_are_read_at_once_and_cut() {
        // 256 KiB on each: a host reading one pipe after the other would
        // leave the child blocked on the second, and hit the deadline.
        let ran = run(
            &mut sh("head -c 262144 /dev/zero >&2; head -c 262144 /dev/zero; echo tail >&2"),
            soon(),
        )
        .unwrap();
        assert_eq!(ran.ended, Ended::Code(0));
        assert_eq!(
            (ran.stdout.len(), ran.stderr.len()),
            (OUTPUT_LIMIT, OUTPUT_LIMIT)
        );
        assert!(ran.truncated);
    }

    #[test]
    fn the_deadline_kills_the_whole_group_and_exit_kills_what_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let script = format!(
            "sleep 300 & echo $! > {p}; echo $$ >> {p}; sleep 300",
            p = pids.display()
        );
        let start = Instant::now();
        let ran = run(
            &mut sh(&script),
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap();
        assert_eq!(ran.ended, Ended::TimedOut);
        assert!(start.elapsed() < Duration::from_secs(10));
        let text = std::fs::read_to_string(&pids).unwrap();
        for pid in text.split_whitespace() {
            assert!(gone(pid), "process {pid} outlived the group kill");
        }

        // Exited on its own, leaving a child in its group: killed too.
        let script = format!("sleep 300 & echo $! > {}", pids.display());
        let ran = run(&mut sh(&script), soon()).unwrap();
        assert_eq!(ran.ended, Ended::Code(0));
        let pid = std::fs::read_to_string(&pids).unwrap();
        assert!(
            gone(pid.trim()),
            "the background child {pid} was left behind"
        );
    }

    #[test]
    fn no_time_left_starts_nothing() {
        let e = run(&mut sh("true"), Instant::now()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
        let e = run(&mut Command::new("/nonexistent/tool"), soon()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }

    /// Whether process `pid` is gone: absent, or a zombie waiting for a
    /// parent that is not this test (init reaps orphans in its own time).
    fn gone(pid: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
            let dead = match &stat {
                Err(_) => true,
                Ok(s) => s
                    .rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
            };
            if dead || Instant::now() > deadline {
                return dead;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
