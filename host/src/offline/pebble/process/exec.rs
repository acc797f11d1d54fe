//! Exec as a real process: started, as Pebble starts it, once the task's
//! `stdio` websocket (and `stderr` with `split-stderr`) is open, waiting at
//! most [`OPEN_WAIT`]; binary messages on `stdio` are its stdin and
//! `{"command":"end"}` closes it; its output goes back as binary messages,
//! each stream ended by `{"command":"end"}`; a `signal` command on
//! `control` goes to it. Past its timeout its process group is killed and
//! the change fails with Pebble's words. The change's single task carries
//! its exit code (-1 when a signal ended it).

use super::super::changes::{Changes, exec_done, timed_out};
use super::super::ws::{Sink, Writer};
use super::{exit_code, in_session, now, signal_group, signal_number};
use crate::pebble::websocket::Message;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How long the I/O websockets have to open.
pub const OPEN_WAIT: Duration = Duration::from_secs(5);
/// How long output may still flow once the process ended (a child it left
/// behind may hold the pipe).
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// The id of user (`user`) or group `name` on this system.
pub fn account(name: &str, user: bool) -> Option<u32> {
    super::files::account_id(name, user)
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Spec {
    pub argv: Vec<String>,
    pub environment: BTreeMap<String, String>,
    pub working_dir: PathBuf,
    /// `None`: no timeout; with the request's text, for Pebble's words.
    pub timeout: Option<(Duration, String)>,
    pub split_stderr: bool,
    /// Whom it runs as: ids when running as root, else the server's own.
    pub uid: Option<u32>,
    pub gid: Option<u32>,
}

#[derive(Default)]
struct Io {
    writers: BTreeMap<String, Writer>,
    pid: Option<u32>,
    done: bool,
    /// Killed (at shutdown) before or while it started.
    cancelled: bool,
    /// A signal sent on control before the process started, for it.
    early_signal: Option<i32>,
}

/// One exec task: its websockets and its process.
pub struct Run {
    split_stderr: bool,
    io: Mutex<Io>,
    opened: Condvar,
    /// To the thread writing stdin; dropped at the client's end of input.
    stdin: Mutex<Option<Sender<Vec<u8>>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start `spec` for change `change` of `changes`, on a thread of its own.
pub fn start(spec: Spec, changes: Changes, change: String) -> Arc<Run> {
    let (stdin, input) = channel();
    let run = Arc::new(Run {
        split_stderr: spec.split_stderr,
        io: Mutex::default(),
        opened: Condvar::new(),
        stdin: Mutex::new(Some(stdin)),
    });
    let runner = run.clone();
    let (changes2, change2) = (changes.clone(), change.clone());
    let spawned = std::thread::Builder::new()
        .name("offline-pebble-exec".into())
        .spawn(move || runner.run(&spec, input, &changes2, &change2));
    if let Err(e) = spawned {
        let why = format!("cannot start: {e}");
        changes.update(&change, |c| exec_done(c, -1, Some(&why), &now()));
    }
    run
}

impl Sink for Run {
    fn attach(&self, id: &str, writer: Writer) {
        lock(&self.io).writers.insert(id.to_string(), writer);
        self.opened.notify_all();
    }

    fn message(&self, id: &str, message: Message) {
        match (id, message) {
            ("stdio", Message::Binary(data)) => {
                if let Some(stdin) = lock(&self.stdin).as_ref() {
                    let _ = stdin.send(data);
                }
            }
            ("stdio", Message::Text(text)) if command(&text) == Some("end") => {
                lock(&self.stdin).take();
            }
            ("control", Message::Text(text)) if command(&text) == Some("signal") => {
                self.signal(&text);
            }
            _ => {}
        }
    }
}

/// A websocket text message's `command`.
fn command(text: &str) -> Option<&'static str> {
    let doc: Value = serde_json::from_str(text).ok()?;
    match doc.get("command")?.as_str()? {
        "end" => Some("end"),
        "signal" => Some("signal"),
        _ => None,
    }
}

impl Run {
    /// Kill the process (at shutdown), if it still runs.
    pub fn kill(&self) {
        let mut io = lock(&self.io);
        io.cancelled = true;
        if let (Some(pid), false) = (io.pid, io.done) {
            signal_group(pid, libc::SIGKILL);
        }
        drop(io);
        self.opened.notify_all();
        lock(&self.stdin).take();
    }

    fn signal(&self, text: &str) {
        let doc: Value = serde_json::from_str(text).unwrap_or_default();
        let Some(number) = doc
            .pointer("/signal/name")
            .and_then(Value::as_str)
            .and_then(signal_number)
        else {
            return;
        };
        let mut io = lock(&self.io);
        match (io.pid, io.done) {
            (None, false) => io.early_signal = Some(number),
            (Some(pid), false) => send_signal(pid, number),
            (_, true) => {}
        }
    }

    /// The output websockets once open: `stdio`, and `stderr` when split.
    fn wait_open(&self) -> Option<(Writer, Option<Writer>)> {
        let wanted = |io: &Io| {
            io.writers.contains_key("stdio")
                && (!self.split_stderr || io.writers.contains_key("stderr"))
        };
        let (io, _) = self
            .opened
            .wait_timeout_while(lock(&self.io), OPEN_WAIT, |io| !wanted(io) && !io.cancelled)
            .unwrap_or_else(|p| p.into_inner());
        if !wanted(&io) || io.cancelled {
            return None;
        }
        let stdio = io.writers.get("stdio")?.clone();
        let stderr = self
            .split_stderr
            .then(|| io.writers.get("stderr").cloned())
            .flatten();
        Some((stdio, stderr))
    }

    fn run(&self, spec: &Spec, input: Receiver<Vec<u8>>, changes: &Changes, change: &str) {
        let finish = |code: i64, why: Option<String>| {
            changes.update(change, |c| exec_done(c, code, why.as_deref(), &now()));
        };
        let Some((stdio, stderr)) = self.wait_open() else {
            lock(&self.io).done = true;
            return finish(-1, Some("timeout waiting for websocket connections".into()));
        };
        let (mut child, out, err) = match spawn(spec) {
            Ok(spawned) => spawned,
            Err(e) => {
                lock(&self.io).done = true;
                let _ = stdio.end();
                if let Some(w) = &stderr {
                    let _ = w.end();
                }
                return finish(-1, Some(format!("cannot start: {e}")));
            }
        };
        {
            let mut io = lock(&self.io);
            io.pid = Some(child.id());
            // Killed while it was starting: it ends at once.
            if io.cancelled {
                signal_group(child.id(), libc::SIGKILL);
            } else if let Some(number) = io.early_signal.take() {
                send_signal(child.id(), number);
            }
        }
        if let Some(stdin) = child.stdin.take() {
            feed(stdin, input);
        }
        let (drained, pumps) = channel();
        let mut streams = 1;
        pump(out, stdio, drained.clone());
        if let (Some(err), Some(writer)) = (err, stderr) {
            pump(err, writer, drained);
            streams += 1;
        }
        let (status, timed) = wait(&mut child, spec.timeout.as_ref().map(|t| t.0));
        lock(&self.io).done = true;
        lock(&self.stdin).take();
        for _ in 0..streams {
            let _ = pumps.recv_timeout(DRAIN_WAIT);
        }
        match (&spec.timeout, timed) {
            (Some((_, text)), true) => finish(-1, Some(timed_out(text))),
            _ => finish(status.map_or(-1, exit_code), None),
        }
    }
}

/// Signal the process a task started, while `done` is not set (it is set
/// right after the process is reaped).
fn send_signal(pid: u32, number: i32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) on a child of ours; no memory is involved.
        unsafe { libc::kill(pid, number) };
    }
}

/// The process, its stdout (with its stderr unless split) and its stderr.
type Spawned = (Child, std::io::PipeReader, Option<std::io::PipeReader>);

fn spawn(spec: &Spec) -> std::io::Result<Spawned> {
    let (program, args) = spec
        .argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("no command"))?;
    let (out, out_w) = std::io::pipe()?;
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(&spec.environment)
        .current_dir(&spec.working_dir)
        .stdin(Stdio::piped());
    let err = if spec.split_stderr {
        let (err, err_w) = std::io::pipe()?;
        command.stdout(out_w).stderr(err_w);
        Some(err)
    } else {
        command.stdout(out_w.try_clone()?).stderr(out_w);
        None
    };
    if let Some(uid) = spec.uid {
        std::os::unix::process::CommandExt::uid(&mut command, uid);
    }
    if let Some(gid) = spec.gid {
        std::os::unix::process::CommandExt::gid(&mut command, gid);
    }
    // The command (holding the pipes' write ends) goes at the end of this
    // function, so the readers see the end of output with the process's.
    let child = in_session(&mut command).spawn()?;
    Ok((child, out, err))
}

/// Write what the client sends to the process's stdin, until its end.
fn feed(mut stdin: std::process::ChildStdin, input: Receiver<Vec<u8>>) {
    let _ = std::thread::Builder::new()
        .name("offline-pebble-stdin".into())
        .spawn(move || {
            use std::io::Write as _;
            for data in input {
                if stdin.write_all(&data).is_err() {
                    return;
                }
            }
        });
}

/// Send `pipe`'s output on `writer`, then the end; say so on `drained`.
fn pump(mut pipe: std::io::PipeReader, writer: Writer, drained: Sender<()>) {
    let _ = std::thread::Builder::new()
        .name("offline-pebble-output".into())
        .spawn(move || {
            let mut chunk = vec![0u8; 64 << 10];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if writer.output(&chunk[..n]).is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = writer.end();
            let _ = drained.send(());
        });
}

/// Wait for the process, killing its group past `timeout`: its status,
/// and whether it timed out.
fn wait(child: &mut Child, timeout: Option<Duration>) -> (Option<std::process::ExitStatus>, bool) {
    let pid = child.id();
    let Some(timeout) = timeout else {
        return (child.wait().ok(), false);
    };
    let until = std::time::Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (Some(status), false),
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                signal_group(pid, libc::SIGKILL);
                return (child.wait().ok(), true);
            }
            Err(_) => return (None, false),
        }
    }
}
