//! The plan's checks run for real, each on a thread of its own every
//! `period` (default 10s), within `timeout` (3s): `exec` (its `command`
//! exits 0), `tcp` (`port` on `host`, default localhost, accepts) or
//! `http` (`url` answers 2xx). A success resets the failure count. A new
//! plan restarts the threads, each check's counts and running as its
//! fate says ([`super::super::check_life`]).

use super::super::check_life::Fate;
use super::super::words;
use super::{in_session, signal_group};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const PERIOD: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(3);
/// How much of an HTTP check's answer is read.
const MAX_ANSWER: u64 = 64 << 10;

#[derive(Debug, Default)]
struct Table {
    /// Bumped by each new plan and at stop: older threads end.
    generation: u64,
    failures: BTreeMap<String, u32>,
    /// Checks stopped by `POST /v1/checks`: their threads run on but
    /// count nothing.
    stopped: BTreeSet<String>,
}

/// The checks' failure counts, shared with their threads.
#[derive(Debug, Clone, Default)]
pub struct Running(Arc<(Mutex<Table>, Condvar)>);

fn duration(def: &Map<String, Value>, key: &str, default: Duration) -> Duration {
    def.get(key)
        .and_then(Value::as_str)
        .and_then(|t| crate::duration::parse_duration(t).ok())
        .unwrap_or(default)
}

impl Running {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.0.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Failures in a row of check `name`.
    pub fn failures(&self, name: &str) -> u32 {
        self.table().failures.get(name).copied().unwrap_or(0)
    }

    pub fn is_stopped(&self, name: &str) -> bool {
        self.table().stopped.contains(name)
    }

    /// Stop (`run` false) or start check `name`: whether that changed it.
    /// A started check counts its failures afresh.
    pub fn set_running(&self, name: &str, run: bool) -> bool {
        let mut table = self.table();
        if run {
            let changed = table.stopped.remove(name);
            if changed {
                table.failures.remove(name);
            }
            changed
        } else {
            table.stopped.insert(name.to_string())
        }
    }

    /// Run the checks of a new plan, each as its fate says.
    pub fn sync(
        &self,
        checks: &BTreeMap<String, Map<String, Value>>,
        fates: &BTreeMap<String, Fate>,
    ) {
        let generation = {
            let mut table = self.table();
            table.generation += 1;
            for (name, fate) in fates {
                match fate {
                    Fate::Keep => {}
                    Fate::Restart => {
                        table.failures.remove(name);
                        table.stopped.remove(name);
                    }
                    Fate::Inactive => {
                        table.failures.remove(name);
                        table.stopped.insert(name.clone());
                    }
                    Fate::Drop => {
                        table.failures.remove(name);
                        table.stopped.remove(name);
                    }
                }
            }
            table.generation
        };
        self.0.1.notify_all();
        for (name, def) in checks {
            let (running, name, def) = (self.clone(), name.clone(), def.clone());
            // A check that cannot get a thread stays at its last count.
            let _ = std::thread::Builder::new()
                .name("offline-pebble-check".into())
                .spawn(move || running.run(&name, &def, generation));
        }
    }

    /// Stop every check's thread.
    pub fn stop(&self) {
        self.table().generation += 1;
        self.0.1.notify_all();
    }

    fn run(&self, name: &str, def: &Map<String, Value>, generation: u64) {
        let period = duration(def, "period", PERIOD);
        let timeout = duration(def, "timeout", TIMEOUT);
        loop {
            let ok = check(def, timeout);
            let table = self.table();
            if table.generation != generation {
                return;
            }
            let mut table = table;
            // A stopped check keeps its thread, so a start needs no new
            // one, and its failures, as Pebble keeps them.
            if !table.stopped.contains(name) {
                let count = table.failures.entry(name.to_string()).or_default();
                *count = if ok { 0 } else { count.saturating_add(1) };
            }
            let (table, _) = self
                .0
                .1
                .wait_timeout_while(table, period, |t| t.generation == generation)
                .unwrap_or_else(|p| p.into_inner());
            if table.generation != generation {
                return;
            }
        }
    }
}

/// One run of a check: whether it passed.
fn check(def: &Map<String, Value>, timeout: Duration) -> bool {
    let until = Instant::now() + timeout;
    if let Some(exec) = def.get("exec") {
        return exec_check(exec, until);
    }
    if let Some(tcp) = def.get("tcp") {
        let host = tcp
            .get("host")
            .and_then(Value::as_str)
            .unwrap_or("localhost");
        let Some(port) = tcp.get("port").and_then(Value::as_u64) else {
            return false;
        };
        return u16::try_from(port).is_ok_and(|p| connects(host, p, until).is_some());
    }
    if let Some(url) = def
        .get("http")
        .and_then(|h| h.get("url"))
        .and_then(Value::as_str)
    {
        return http_ok(url, until);
    }
    false
}

fn exec_check(exec: &Value, until: Instant) -> bool {
    let line = exec
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Ok(argv) = words::split(line) else {
        return false;
    };
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(dir) = exec.get("working-dir").and_then(Value::as_str) {
        command.current_dir(dir);
    }
    let Ok(mut child) = in_session(&mut command).spawn() else {
        return false;
    };
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                signal_group(child.id(), libc::SIGKILL);
                let _ = child.wait();
                return false;
            }
        }
    }
}

fn connects(host: &str, port: u16, until: Instant) -> Option<TcpStream> {
    let addrs = (host, port).to_socket_addrs().ok()?;
    addrs.into_iter().find_map(|a| {
        let left = until.saturating_duration_since(Instant::now());
        (!left.is_zero())
            .then(|| TcpStream::connect_timeout(&a, left).ok())
            .flatten()
    })
}

/// A GET of `url` (`http://host[:port][/path]`) answered 2xx in time.
fn http_ok(url: &str, until: Instant) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => match p.parse() {
            Ok(p) => (h, p),
            Err(_) => return false,
        },
        None => (authority, 80),
    };
    let Some(mut stream) = connects(host, port, until) else {
        return false;
    };
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
        return false;
    }
    let path = if path.is_empty() { "/" } else { path };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    // The whole answer is read (the server closes it), so that closing
    // does not reset a connection with unread bytes; only the status line
    // (`HTTP/1.1 200 OK`) counts.
    let mut head = Vec::new();
    if (&mut stream)
        .take(MAX_ANSWER)
        .read_to_end(&mut head)
        .is_err()
    {
        return false;
    }
    let line = String::from_utf8_lossy(&head[..head.len().min(16)]);
    line.split(' ')
        .nth(1)
        .is_some_and(|s| s.starts_with('2') && s.len() == 3)
}
