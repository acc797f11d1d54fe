//! One container's simulated Pebble on a real unix socket: a thread
//! accepting connections, a thread per connection reading one HTTP/1.1
//! request (the host's client sends one per connection) and writing the
//! answer [`Sim::route`] gives (after waiting, unlocked, for a change not
//! ready), or switching to a websocket of an exec task ([`super::ws`]).
//! [`Server::stop`] ends every thread and removes the socket.

use super::api::Sim;
use super::reply::{Reply, Request, error, parse_query, status_text};
use super::ws::{Writer, read_loop};
use crate::pebble::websocket::{Message, accept_for};
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Largest request head, and body (a pushed file and its multipart frame).
const MAX_HEAD: usize = 64 << 10;
const MAX_BODY: usize = 16 << 20;

type Connections = Arc<Mutex<Vec<(UnixStream, JoinHandle<()>)>>>;

/// A running server; stopped (threads joined, socket removed) by
/// [`Server::stop`] or when dropped.
pub struct Server {
    path: PathBuf,
    sim: Arc<Mutex<Sim>>,
    stopping: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    /// The listening socket, owned by the accept thread until it ends.
    listener_fd: std::os::fd::RawFd,
    connections: Connections,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Server {
    /// Listen at `path` (its directory made, a stale socket replaced).
    pub fn start(path: PathBuf, sim: Sim) -> Result<Server, String> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        remove_socket(&path)?;
        let listener =
            UnixListener::bind(&path).map_err(|e| format!("{shown}: cannot listen: {e}"))?;
        let listener_fd = std::os::fd::AsRawFd::as_raw_fd(&listener);
        let sim = Arc::new(Mutex::new(sim));
        let stopping = Arc::new(AtomicBool::new(false));
        let connections: Connections = Arc::default();
        let accept = {
            let (sim, stopping, connections) = (sim.clone(), stopping.clone(), connections.clone());
            std::thread::Builder::new()
                .name("offline-pebble".into())
                .spawn(move || accept_loop(&listener, &sim, &stopping, &connections))
                .map_err(|e| format!("{shown}: cannot start its thread: {e}"))?
        };
        Ok(Server {
            path,
            sim,
            stopping,
            accept: Some(accept),
            listener_fd,
            connections,
        })
    }

    fn shutdown(&mut self) {
        let Some(accept) = self.accept.take() else {
            return;
        };
        self.stopping.store(true, Ordering::SeqCst);
        // Wakes the accept; it sees `stopping` and ends. Should the socket
        // file be gone, shutting the listener down wakes it instead.
        if UnixStream::connect(&self.path).is_err() {
            // SAFETY: the accept thread owns the listener until joined
            // below, so the descriptor is still open; shutdown(2) only
            // makes its accept return.
            unsafe { libc::shutdown(self.listener_fd, libc::SHUT_RDWR) };
        }
        let _ = accept.join();
        // Waits on changes answer, running execs end: their threads can
        // then be joined.
        lock(&self.sim).interrupt();
        for (stream, handle) in std::mem::take(&mut *lock(&self.connections)) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            let _ = handle.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }

    /// Stop, and hand back the container as the event left it.
    pub fn stop(mut self) -> Sim {
        self.shutdown();
        let sim = self.sim.clone();
        drop(self);
        match Arc::try_unwrap(sim) {
            Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
            // Every thread holding it was joined: not reached.
            Err(shared) => std::mem::replace(&mut *lock(&shared), Sim::empty()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Remove a socket left by an earlier run; anything else there is refused.
pub fn remove_socket(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt as _;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => std::fs::remove_file(path)
            .map_err(|e| format!("{}: cannot remove the old socket: {e}", path.display())),
        Ok(_) => Err(format!(
            "{}: is there and is not a socket; the simulated Pebble listens there",
            path.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn accept_loop(
    listener: &UnixListener,
    sim: &Arc<Mutex<Sim>>,
    stopping: &AtomicBool,
    connections: &Connections,
) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let Ok(kept) = stream.try_clone() else {
            continue;
        };
        let sim = sim.clone();
        let Ok(handle) = std::thread::Builder::new()
            .name("offline-pebble-conn".into())
            .spawn(move || serve(stream, &sim))
        else {
            continue;
        };
        let mut all = lock(connections);
        // Finished connections leave, so a long event keeps few descriptors.
        let (done, running): (Vec<_>, Vec<_>) = std::mem::take(&mut *all)
            .into_iter()
            .partition(|(_, h)| h.is_finished());
        *all = running;
        all.push((kept, handle));
        drop(all);
        for (_, h) in done {
            let _ = h.join();
        }
    }
}

/// A request's head: what routing needs, and the websocket key of an
/// upgrade.
struct Head {
    request: Request,
    length: usize,
    ws_key: Option<String>,
}

fn parse_head(text: &str) -> Result<Head, String> {
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut words = first.split(' ');
    let (Some(method), Some(target)) = (words.next(), words.next()) else {
        return Err(format!("bad request line {first:?}"));
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut head = Head {
        request: Request {
            method: method.to_string(),
            path: path.to_string(),
            query: parse_query(query),
            ..Request::default()
        },
        length: 0,
        ws_key: None,
    };
    let mut upgrade = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                head.length = value
                    .parse()
                    .map_err(|_| format!("bad Content-Length {value:?}"))?;
            }
            "transfer-encoding" => return Err("chunked bodies are not read here".into()),
            "content-type" => head.request.content_type = Some(value.to_string()),
            "upgrade" => upgrade = value.eq_ignore_ascii_case("websocket"),
            "sec-websocket-key" => head.ws_key = Some(value.to_string()),
            _ => {}
        }
    }
    if !upgrade {
        head.ws_key = None;
    }
    if head.length > MAX_BODY {
        return Err(format!(
            "a body of {} bytes, more than {MAX_BODY}",
            head.length
        ));
    }
    Ok(head)
}

/// Read one request; the bytes read past it (a websocket's first frames).
fn read_request(stream: &mut UnixStream) -> Result<(Head, Vec<u8>), String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err("a request head too long".into());
        }
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection ended within the request".into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut head = parse_head(&String::from_utf8_lossy(&buf[..end]))?;
    let mut rest = buf.split_off(end + 4);
    while rest.len() < head.length {
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection ended within the body".into());
        }
        rest.extend_from_slice(&chunk[..n]);
    }
    let extra = rest.split_off(head.length);
    head.request.body = rest;
    Ok((head, extra))
}

fn write_answer(stream: &mut UnixStream, status: u16, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        status_text(status),
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body));
}

fn serve(mut stream: UnixStream, sim: &Mutex<Sim>) {
    let answer = match read_request(&mut stream) {
        Err(why) => error(400, "", &why),
        Ok((head, extra)) => {
            let reply = lock(sim).route(&head.request);
            let reply = match reply {
                Reply::Wait(waiter) => waiter.answer(),
                other => other,
            };
            match (reply, head.ws_key) {
                (reply @ (Reply::Upgrade { .. } | Reply::Attach(_)), Some(key)) => {
                    upgrade(&mut stream, &key, extra, reply, sim);
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                    return;
                }
                (Reply::Upgrade { .. } | Reply::Attach(_), None) => {
                    error(400, "", "a task's websocket needs a websocket upgrade")
                }
                (reply, _) => reply,
            }
        }
    };
    if let Reply::Body {
        status,
        content_type,
        body,
    } = answer
    {
        write_answer(&mut stream, status, &content_type, &body);
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// An exec websocket: a scripted task's output sent at once and ended as
/// Pebble ends a stream, or the socket handed to the running task; then
/// the client's messages read (its stdin, a signal on control) until it
/// closes.
fn upgrade(stream: &mut UnixStream, key: &str, extra: Vec<u8>, reply: Reply, sim: &Mutex<Sim>) {
    let accept = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
        accept_for(key)
    );
    if stream.write_all(accept.as_bytes()).is_err() {
        return;
    }
    let Ok(writing) = stream.try_clone() else {
        return;
    };
    let writer = Writer::new(writing);
    match reply {
        Reply::Upgrade { output, stdin_of } => {
            if let Some(output) = output
                && writer.output(&output).and_then(|()| writer.end()).is_err()
            {
                return;
            }
            // A scripted command reads nothing: what is sent is counted,
            // and recorded at its end so a test sees it arrive.
            let mut sent: Option<usize> = None;
            read_loop(stream, extra, &writer, |m| match (&stdin_of, m) {
                (Some(_), Message::Binary(data)) => {
                    sent = Some(sent.unwrap_or(0).saturating_add(data.len()));
                }
                (Some(task), Message::Text(text)) if text.contains("\"end\"") => {
                    if let Some(n) = sent.take() {
                        lock(sim)
                            .calls
                            .push(format!("exec stdin {n} bytes (task {task})"));
                    }
                }
                _ => {}
            });
        }
        Reply::Attach(task) => {
            task.sink.attach(&task.id, writer.clone());
            read_loop(stream, extra, &writer, |m| task.sink.message(&task.id, m));
        }
        Reply::Body { .. } | Reply::Wait(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_read_as_the_client_writes_them() {
        let head = parse_head(
            "POST /v1/files?action=list&path=%2Fetc%2Fa%20b HTTP/1.1\r\nhost: localhost\r\n\
             content-type: application/json\r\ncontent-length: 12",
        )
        .unwrap();
        assert_eq!(head.request.method, "POST");
        assert_eq!(head.request.path, "/v1/files");
        assert_eq!(
            head.request.query,
            [
                ("action".to_string(), "list".to_string()),
                ("path".to_string(), "/etc/a b".to_string())
            ]
        );
        assert_eq!(head.length, 12);
        assert_eq!(head.ws_key, None);
        let ws = parse_head(
            "GET /v1/tasks/2/websocket/stdio HTTP/1.1\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Key: abc",
        )
        .unwrap();
        assert_eq!(ws.ws_key.as_deref(), Some("abc"));
        assert!(parse_head("GET\r\n").is_err());
        assert!(parse_head("POST / HTTP/1.1\r\ntransfer-encoding: chunked").is_err());
        assert!(parse_head("POST / HTTP/1.1\r\ncontent-length: 99999999999").is_err());
    }
}
