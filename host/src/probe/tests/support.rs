//! Things the tests start, each stopped by its guard's `Drop`, so a failing
//! test leaves nothing running.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A tiny HTTP/1.1 server on port 0 answering every GET with the current
/// status and body; or, when `silent`, reading the request and never
/// answering.
pub struct HttpServer {
    pub addr: SocketAddr,
    status: Arc<AtomicU16>,
    body: Arc<Mutex<String>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    pub fn start(bind: &str) -> std::io::Result<HttpServer> {
        Self::start_with(bind, false)
    }

    pub fn start_silent(bind: &str) -> std::io::Result<HttpServer> {
        Self::start_with(bind, true)
    }

    fn start_with(bind: &str, silent: bool) -> std::io::Result<HttpServer> {
        let listener = TcpListener::bind(bind)?;
        let addr = listener.local_addr()?;
        let status = Arc::new(AtomicU16::new(200));
        let body = Arc::new(Mutex::new("ok".to_string()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, b, st) = (status.clone(), body.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut line = String::new();
                // The request line and headers, up to the empty line.
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if line == "\r\n" {
                        break;
                    }
                    line.clear();
                }
                if silent {
                    held.push(conn);
                    continue;
                }
                let status = s.load(Ordering::SeqCst);
                let body = b.lock().unwrap().clone();
                let _ = write!(
                    conn,
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Ok(HttpServer {
            addr,
            status,
            body,
            stop,
            thread: Some(thread),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn answer(&self, status: u16, body: &str) {
        self.status.store(status, Ordering::SeqCst);
        *self.body.lock().unwrap() = body.to_string();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag and closes the listener.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A child process, killed and reaped on drop.
pub struct ChildGuard(pub Option<Child>);

impl ChildGuard {
    pub fn spawn(cmd: &mut Command) -> ChildGuard {
        ChildGuard(Some(cmd.spawn().expect("start the test's process")))
    }

    pub fn pid(&self) -> u32 {
        self.0.as_ref().unwrap().id()
    }

    /// Kill it, leaving it a zombie until [`ChildGuard::reap`].
    pub fn kill(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
        }
    }

    pub fn reap(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.reap();
    }
}

/// Wait (bounded) until `/proc/<pid>/stat` says the process is a zombie.
pub fn wait_zombie(pid: u32) {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, t)| t.trim_start().starts_with('Z'))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("process {pid} did not become a zombie");
}

/// Wait (bounded) until the process `pid` shows `comm`: a spawn returns
/// once the child's exec has begun, and the kernel names the process a
/// moment later, so a probe made at once can still see the parent's name.
pub fn wait_comm(pid: u32, comm: &str) {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        let now = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if now.trim_end() == comm {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("process {pid} is not named {comm}");
}

/// The systemctl stand-in copied into a directory of its own, with the unit
/// states the test sets.
pub struct SystemctlStandIn {
    dir: tempfile::TempDir,
}

impl SystemctlStandIn {
    pub fn new() -> SystemctlStandIn {
        let dir = tempfile::tempdir().unwrap();
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/probe-fixtures/systemctl");
        // A symlink, not a copy: a script this process has just written can
        // fail to start with ETXTBSY while another test thread forks with the
        // write descriptor still open. `$0` stays the link, so `units/` is ours.
        std::os::unix::fs::symlink(&fixture, dir.path().join("systemctl")).unwrap();
        std::fs::create_dir(dir.path().join("units")).unwrap();
        SystemctlStandIn { dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join("systemctl")
    }

    pub fn set(&self, unit: &str, state: &str) {
        std::fs::write(
            self.dir.path().join("units").join(unit),
            format!("{state}\n"),
        )
        .unwrap();
    }
}

// Shared with the integration tests, which need the same race-free closed port.
#[path = "../../../../tests/support/reserved_port.rs"]
mod reserved_port;
pub use reserved_port::ReservedPort;
