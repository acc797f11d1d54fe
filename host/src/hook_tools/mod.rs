//! Juju's hook tools as the host calls them: argv in, exit code and output
//! back. Juju mode runs the real tools as subprocesses found on `PATH`
//! (reference §2.0: never speak the agent's RPC protocol); the offline mode
//! answers the same calls from the simulated Juju (`crate::offline::sim`).

pub mod ahead;
pub mod plan;

use crate::deadline;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the host's own tool calls may take together after the handlers
/// (relation data, statuses, logs), and after each handler (its log lines):
/// Juju sets no timeout, and a hung tool would hold the machine-wide hook
/// lock. Generous, since a loaded machine runs the tools slowly.
pub const HOST_CALLS_TIMEOUT: Duration = Duration::from_secs(30);

/// What a hook tool answered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolOutput {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl ToolOutput {
    pub fn ok(stdout: impl Into<Vec<u8>>) -> Self {
        ToolOutput {
            code: 0,
            stdout: stdout.into(),
            stderr: String::new(),
        }
    }

    /// Juju's error shape: `ERROR <message>` on stderr with exit code 1
    /// (run-time error) or 2 (bad flags or arguments).
    pub fn error(code: i32, message: impl std::fmt::Display) -> Self {
        ToolOutput {
            code,
            stdout: Vec::new(),
            stderr: format!("ERROR {message}\n"),
        }
    }
}

/// Something that answers hook-tool calls. Shared (`&self`, `Sync`): the
/// event keeps a handle to log with even when a handler's instance is
/// abandoned at its deadline.
pub trait HookTools: Send + Sync {
    /// Run `tool` with `args`, feeding `stdin` when given, finished by
    /// `deadline`. `Err` means the tool could not be run, or did not finish
    /// in time (`ErrorKind::TimedOut`).
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        deadline: Instant,
    ) -> std::io::Result<ToolOutput>;

    /// Start `tool` with `args` (no stdin), its answer collected later by
    /// [`Started::output`]: what a read started ahead of its caller runs
    /// (`ahead`). By default the call is made at once; the real tools
    /// start a process and return.
    fn start(&self, tool: &str, args: &[&str], deadline: Instant) -> Box<dyn Started> {
        Box::new(Answered(self.call(tool, args, None, deadline)))
    }
}

/// A call started by [`HookTools::start`].
pub trait Started: Send {
    /// Its answer, waited for until `deadline` at the latest (the tool is
    /// then stopped as a call's would be).
    fn output(self: Box<Self>, deadline: Instant) -> std::io::Result<ToolOutput>;
}

/// A call already answered.
struct Answered(std::io::Result<ToolOutput>);

impl Started for Answered {
    fn output(self: Box<Self>, _deadline: Instant) -> std::io::Result<ToolOutput> {
        self.0
    }
}

/// The real hook tools, as subprocesses. They inherit the host's environment,
/// which is the hook's (`JUJU_CONTEXT_ID`, the agent socket, `PATH`).
///
/// Each runs in a process group of its own, killed whole at the deadline:
/// Juju sets no timeout on a tool, and one that hangs would otherwise hold
/// the machine-wide hook lock forever.
#[derive(Debug, Default)]
pub struct ProcessTools;

impl HookTools for ProcessTools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let mut running = Running::spawn(tool, args, stdin.is_some(), deadline)?;
        if let (Some(input), Some(mut pipe)) = (stdin, running.child.stdin.take()) {
            // A tool that does not read stdin closes it early: not an error.
            match pipe.write_all(input) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e),
                _ => {}
            }
        }
        running.finish(None)
    }

    fn start(&self, tool: &str, args: &[&str], deadline: Instant) -> Box<dyn Started> {
        match Running::spawn(tool, args, false, deadline) {
            Ok(running) => Box::new(running),
            Err(e) => Box::new(Answered(Err(e))),
        }
    }
}

/// A tool's process, its group's kill armed for the deadline.
struct Running {
    child: std::process::Child,
    killed: GroupKill,
}

impl Running {
    fn spawn(tool: &str, args: &[&str], stdin: bool, deadline: Instant) -> std::io::Result<Self> {
        if Instant::now() >= deadline {
            // Past its deadline a handler is being stopped: start nothing new.
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the deadline has passed",
            ));
        }
        let mut cmd = Command::new(tool);
        cmd.args(args)
            .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let child = cmd.spawn()?;
        let killed = kill_group_at(&child, deadline);
        Ok(Running { child, killed })
    }

    /// Wait for the tool, killed at `sooner` too when given.
    fn finish(self, sooner: Option<Instant>) -> std::io::Result<ToolOutput> {
        let also = sooner.map(|at| kill_group_at(&self.child, at));
        let out = self.child.wait_with_output();
        if self.killed.fired() || also.as_ref().is_some_and(GroupKill::fired) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "it did not finish before the deadline and was killed",
            ));
        }
        let out = out?;
        Ok(ToolOutput {
            // A tool killed by a signal has no code; report it as a failure.
            code: out.status.code().unwrap_or(-1),
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

impl Started for Running {
    fn output(self: Box<Self>, deadline: Instant) -> std::io::Result<ToolOutput> {
        self.finish(Some(deadline))
    }
}

/// Hook tools that answer nothing: every call fails with the reason given,
/// and log lines are dropped. What `declare` runs against, so that a cold
/// cache sees no more of the event than a warm one.
#[derive(Debug)]
pub struct Unavailable(pub &'static str);

impl HookTools for Unavailable {
    fn call(
        &self,
        tool: &str,
        _args: &[&str],
        _stdin: Option<&[u8]>,
        _deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        if tool == "juju-log" {
            return Ok(ToolOutput::ok(""));
        }
        Err(std::io::Error::other(self.0))
    }
}

/// A kill of a child's process group armed for a deadline.
pub struct GroupKill {
    fired: Arc<AtomicBool>,
    reaped: Arc<AtomicBool>,
    _armed: deadline::Armed,
}

impl GroupKill {
    /// Whether the deadline passed and the group was killed.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

impl Drop for GroupKill {
    fn drop(&mut self) {
        // The child was waited for: its pid may be reused from now on.
        self.reaped.store(true, Ordering::SeqCst);
    }
}

/// Kill `child`'s process group (it must lead one: `process_group(0)`) with
/// SIGKILL at `deadline`, unless the returned guard is dropped first.
pub fn kill_group_at(child: &std::process::Child, deadline: Instant) -> GroupKill {
    let fired = Arc::new(AtomicBool::new(false));
    let reaped = Arc::new(AtomicBool::new(false));
    let pid = child.id() as libc::pid_t;
    let (f, r) = (fired.clone(), reaped.clone());
    let armed = deadline::at(deadline, move || {
        if !r.load(Ordering::SeqCst) {
            f.store(true, Ordering::SeqCst);
            // SAFETY: kill(2) with a negative pid signals that process group;
            // it touches no memory of ours.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    });
    GroupKill {
        fired,
        reaped,
        _armed: armed,
    }
}

/// Hook tools for unit tests: answers looked up by tool name (a tool without
/// an answer fails as Juju's would, exit 1), every call recorded.
#[cfg(test)]
pub mod table {
    use super::{HookTools, ToolOutput};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    /// Every call: tool, arguments, stdin.
    pub type Calls = Arc<Mutex<Vec<(String, Vec<String>, Option<String>)>>>;

    pub struct ToolTable {
        answers: BTreeMap<&'static str, ToolOutput>,
        calls: Calls,
    }

    impl ToolTable {
        /// The tools, and the log of their calls.
        pub fn new(answers: &[(&'static str, ToolOutput)]) -> (ToolTable, Calls) {
            let calls = Calls::default();
            let table = ToolTable {
                answers: answers.iter().cloned().collect(),
                calls: calls.clone(),
            };
            (table, calls)
        }
    }

    impl HookTools for ToolTable {
        fn call(
            &self,
            tool: &str,
            args: &[&str],
            stdin: Option<&[u8]>,
            _deadline: std::time::Instant,
        ) -> std::io::Result<ToolOutput> {
            self.calls.lock().unwrap().push((
                tool.to_string(),
                args.iter().map(|a| a.to_string()).collect(),
                stdin.map(|s| String::from_utf8_lossy(s).into_owned()),
            ));
            Ok(self
                .answers
                .get(tool)
                .cloned()
                .unwrap_or_else(|| ToolOutput::error(1, format!("no answer for {tool}"))))
        }
    }
}
