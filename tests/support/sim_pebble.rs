//! `wasm-charm sim pebble` for one test: the simulated Pebble in its
//! process mode, serving one container on a unix socket over a real
//! directory, its services, exec and checks real processes. Stopped in
//! `Drop` (it stops what it started), and every service it recorded a pid
//! for is killed with its process group even if it could not.

use serde_json::Value;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct SimPebble {
    child: Child,
    socket: PathBuf,
    /// Where it writes `<service>.pid`.
    state: PathBuf,
}

/// Whether `pid` runs (a zombie does not: the simulated Pebble reaps what
/// it stops).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

impl SimPebble {
    /// Serve `socket` with `root` as the container's file system and pid
    /// files under `state`; `env` set and `unset` removed in its
    /// environment (which its services and exec inherit PATH from).
    pub fn start(
        socket: &Path,
        root: &Path,
        state: &Path,
        env: &[(&str, String)],
        unset: &[&str],
    ) -> SimPebble {
        let mut command = Command::new(env!("CARGO_BIN_EXE_wasm-charm"));
        command
            .args(["sim", "pebble", "--socket"])
            .arg(socket)
            .arg("--root")
            .arg(root)
            .arg("--state")
            .arg(state)
            .stdin(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        for key in unset {
            command.env_remove(key);
        }
        let child = command.spawn().expect("start wasm-charm sim pebble");
        let pebble = SimPebble {
            child,
            socket: socket.to_path_buf(),
            state: state.to_path_buf(),
        };
        let until = Instant::now() + Duration::from_secs(20);
        while !socket.exists() {
            assert!(
                Instant::now() < until,
                "the simulated Pebble did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        pebble
    }

    /// The pid of running service `service`, as it records it.
    pub fn pid_of(&self, service: &str) -> Option<u32> {
        std::fs::read_to_string(self.state.join(format!("{service}.pid")))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Every pid recorded.
    fn pids(&self) -> Vec<u32> {
        let Ok(dir) = std::fs::read_dir(&self.state) else {
            return Vec::new();
        };
        dir.filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "pid"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
            .collect()
    }

    /// One request, asked directly (no event runs): the status and the
    /// JSON answer.
    pub fn request(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let mut stream =
            std::os::unix::net::UnixStream::connect(&self.socket).expect("connect to Pebble");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("ask the simulated Pebble");
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("read the simulated Pebble's answer");
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        let doc = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        (status, doc)
    }

    /// Wait (on the checks' own period) until check `name` is `want`,
    /// asking directly so that no event runs meanwhile.
    pub fn check_is(&self, name: &str, want: &str) {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let target = format!("/v1/checks?names={name}");
            let (_, answer) = self.request("GET", &target, &Value::Null);
            if answer["result"][0]["status"] == want {
                return;
            }
            assert!(Instant::now() < until, "check never {want}: {answer}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl SimPebble {
    /// SIGTERM, as a pod's end would send it: whether it exited (having
    /// stopped its services) within 10 s.
    pub fn terminate(&mut self) -> bool {
        if let Ok(Some(_)) = self.child.try_wait() {
            return true;
        }
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for SimPebble {
    fn drop(&mut self) {
        let services = self.pids();
        if !self.terminate() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // Each service runs in a session (and process group) of its own:
        // killed even if the simulated Pebble could not.
        for pid in services.into_iter().filter(|p| alive(*p)) {
            unsafe { libc::kill(-(pid as i32), libc::SIGKILL) };
        }
    }
}
