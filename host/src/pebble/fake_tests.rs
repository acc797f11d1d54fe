//! A scripted Pebble for the unit tests: it listens on a container's socket
//! under a temporary workload root, answers each connection with the next
//! canned answer and keeps what each request carried.

use super::Pebble;
use crate::workload_root::WorkloadRoot;
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request as the fake Pebble read it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub target: String,
    pub head: String,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A fake Pebble for container `web` and a [`Pebble`] that reaches it.
pub struct Fake {
    pub pebble: Pebble,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    _dir: tempfile::TempDir,
}

impl Fake {
    /// The requests read so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// A sync answer carrying `result`.
pub fn sync(result: serde_json::Value) -> (u16, String) {
    let body = serde_json::json!({"type": "sync", "status-code": 200, "status": "OK",
        "result": result});
    (200, body.to_string())
}

/// An error answer.
pub fn error(status: u16, kind: &str, message: &str) -> (u16, String) {
    let body = serde_json::json!({"type": "error", "status-code": status,
        "result": {"kind": kind, "message": message}});
    (status, body.to_string())
}

/// Serve `answers` in turn, one per connection, on `web`'s socket.
pub fn serve(answers: Vec<(u16, String)>) -> Fake {
    let dir = tempfile::tempdir().unwrap();
    let socket_dir = dir.path().join("charm/containers/web");
    std::fs::create_dir_all(&socket_dir).unwrap();
    let listener = UnixListener::bind(socket_dir.join("pebble.socket")).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (status, body) in answers {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let Some(request) = read_request(&mut stream) else {
                return;
            };
            keep.lock().unwrap().push(request);
            let answer = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let mut pebble = Pebble::new(vec!["web".into()], root);
    pebble.set_deadline(Instant::now() + Duration::from_secs(10));
    Fake {
        pebble,
        seen,
        _dir: dir,
    }
}

pub fn read_request(stream: &mut std::os::unix::net::UnixStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let mut first = head.lines().next()?.split(' ');
    Some(Seen {
        method: first.next()?.to_string(),
        target: first.next()?.to_string(),
        head,
        body,
    })
}
