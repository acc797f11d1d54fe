//! A Pebble API client: HTTP/1.1 over a container's unix socket with hyper
//! (the host's HTTP client, [`crate::http`]), one request per connection,
//! each bounded by a deadline. Pebble's JSON envelope is parsed here
//! (juju-protocol §4.3): `sync` answers carry a `result`, `async` ones a
//! change id to wait for, `error` ones a message and a kind.
//!
//! Request building and answer parsing are pure functions, tested without a
//! socket; [`Client`] only sends and receives.

use crate::http::{Answer, client_runtime, exchange};
use bytes::Bytes;
use http_body_util::Full;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Largest JSON answer read (a plan, a long file listing).
pub const MAX_ANSWER: usize = 4 << 20;
/// Largest file `pull` returns.
pub const MAX_PULL: usize = 8 << 20;

/// Why a Pebble call did not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The socket is not there, or nothing answers on it (the container is
    /// not up yet).
    #[error("cannot connect to Pebble at {socket}: {why}")]
    CannotConnect { socket: String, why: String },
    /// Pebble answered with its error envelope.
    #[error("Pebble answered {status}: {message}{}", if kind.is_empty() { String::new() } else { format!(" ({kind})") })]
    Api {
        status: u16,
        kind: String,
        message: String,
    },
    /// An asynchronous change (start, stop, replan…) ended in error.
    #[error("change {id} failed: {message}")]
    ChangeFailed { id: String, message: String },
    /// The handler's deadline came first.
    #[error("Pebble did not answer within the handler's deadline ({what})")]
    Timeout { what: String },
    /// An answer that is not what Pebble's API documents.
    #[error("unexpected answer from Pebble: {0}")]
    Protocol(String),
}

/// What a request carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Empty,
    Json(Value),
    /// A `multipart/form-data` body with its boundary.
    Multipart {
        boundary: String,
        bytes: Vec<u8>,
    },
}

/// A parsed envelope that is no error.
#[derive(Debug, Clone, PartialEq)]
pub enum Envelope {
    Sync(Value),
    Async { change: String },
}

#[derive(Deserialize)]
struct RawEnvelope {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "status-code")]
    status_code: Option<u16>,
    #[serde(default)]
    result: Value,
    change: Option<String>,
}

/// Build the HTTP request for `method` `target` (path and query) carrying
/// `body`. Pebble accepts any Host; its own clients send `localhost`. A
/// file read must say it accepts `multipart/form-data` (`accept`).
pub fn request(
    method: &str,
    target: &str,
    body: Body,
    accept: Option<&str>,
) -> Result<hyper::Request<Full<Bytes>>, Error> {
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(target)
        .header(hyper::header::HOST, "localhost")
        .header(hyper::header::USER_AGENT, "wasm-charm")
        .header(hyper::header::CONNECTION, "close");
    if let Some(accept) = accept {
        builder = builder.header(hyper::header::ACCEPT, accept);
    }
    let (builder, bytes) = match body {
        Body::Empty => (builder, Vec::new()),
        Body::Json(v) => (
            builder.header(hyper::header::CONTENT_TYPE, "application/json"),
            v.to_string().into_bytes(),
        ),
        Body::Multipart { boundary, bytes } => (
            builder.header(
                hyper::header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            ),
            bytes,
        ),
    };
    builder
        .body(Full::new(Bytes::from(bytes)))
        .map_err(|e| Error::Protocol(format!("cannot build the request {method} {target}: {e}")))
}

/// Parse Pebble's JSON envelope from an answer with HTTP status `status`.
pub fn parse_envelope(status: u16, body: &[u8]) -> Result<Envelope, Error> {
    let raw: RawEnvelope = serde_json::from_slice(body).map_err(|e| {
        Error::Protocol(format!(
            "HTTP {status} with a body that is not Pebble's JSON envelope ({e}): {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ))
    })?;
    match raw.kind.as_str() {
        "sync" => Ok(Envelope::Sync(raw.result)),
        "async" => match raw.change {
            Some(change) if !change.is_empty() => Ok(Envelope::Async { change }),
            _ => Err(Error::Protocol(
                "an async answer without a change id".into(),
            )),
        },
        "error" => {
            let field = |name: &str| {
                raw.result
                    .get(name)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            Err(Error::Api {
                status: raw.status_code.unwrap_or(status),
                kind: field("kind"),
                message: field("message"),
            })
        }
        other => Err(Error::Protocol(format!("envelope type {other:?}"))),
    }
}

/// A `sync` answer's result, refusing an `async` one.
pub fn sync_result(envelope: Envelope) -> Result<Value, Error> {
    match envelope {
        Envelope::Sync(v) => Ok(v),
        Envelope::Async { change } => Err(Error::Protocol(format!(
            "an async answer (change {change}) where a sync one was expected"
        ))),
    }
}

/// The error a finished change reports, if any: its `err`, or its status
/// when that is not `Done`.
pub fn change_failure(change: &Value) -> Option<String> {
    let err = change
        .get("err")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !err.is_empty() {
        return Some(err.to_string());
    }
    match change.get("status").and_then(Value::as_str) {
        Some("Done") | None => None,
        Some(other) => Some(format!("change ended with status {other}")),
    }
}

/// A percent-encoded query value (RFC 3986 unreserved characters kept).
pub fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Pebble's `/v1/files` write request: one `request` part holding the JSON
/// metadata, then one `files` part per file named by its path.
pub fn push_body(boundary: &str, metadata: &Value, path: &str, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 512);
    out.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Type: application/json\r\n\
             Content-Disposition: form-data; name=\"request\"\r\n\r\n{metadata}\r\n\
             --{boundary}\r\nContent-Type: application/octet-stream\r\n\
             Content-Disposition: form-data; name=\"files\"; filename=\"{}\"\r\n\r\n",
            path.replace('\\', "\\\\").replace('"', "\\\"")
        )
        .as_bytes(),
    );
    out.extend_from_slice(data);
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    out
}

/// One part of a multipart body: its form name, file name and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content: Vec<u8>,
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary_of(content_type: &str) -> Option<String> {
    let (media, params) = content_type.split_once(';')?;
    if !media.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.eq_ignore_ascii_case("boundary")
            .then(|| v.trim_matches('"').to_string())
    })
}

/// Split a multipart body into its parts.
pub fn parse_multipart(body: &[u8], boundary: &str) -> Result<Vec<Part>, Error> {
    let bad = |why: &str| Error::Protocol(format!("multipart answer: {why}"));
    let delimiter = format!("--{boundary}");
    let delim = delimiter.as_bytes();
    let mut rest = body;
    let start = find(rest, delim).ok_or_else(|| bad("no boundary"))?;
    rest = &rest[start + delim.len()..];
    let mut parts = Vec::new();
    loop {
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .ok_or_else(|| bad("a boundary not followed by a line end"))?;
        let head_end = find(rest, b"\r\n\r\n").ok_or_else(|| bad("a part without headers"))?;
        let head = String::from_utf8_lossy(&rest[..head_end]).into_owned();
        rest = &rest[head_end + 4..];
        let mut close = b"\r\n".to_vec();
        close.extend_from_slice(delim);
        let end = find(rest, &close).ok_or_else(|| bad("a part without its closing boundary"))?;
        let content = rest[..end].to_vec();
        rest = &rest[end + close.len()..];
        let disposition = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.trim()
                    .eq_ignore_ascii_case("content-disposition")
                    .then(|| v.to_string())
            })
            .ok_or_else(|| bad("a part without Content-Disposition"))?;
        parts.push(Part {
            name: disposition_param(&disposition, "name").unwrap_or_default(),
            filename: disposition_param(&disposition, "filename"),
            content,
        });
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A parameter of a Content-Disposition value, quoted or not.
fn disposition_param(value: &str, name: &str) -> Option<String> {
    let mut rest = value;
    while let Some(i) = rest.find(';') {
        rest = rest[i + 1..].trim_start();
        let (k, v) = rest.split_once('=')?;
        if let Some(quoted) = v.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next()),
                    '"' => break,
                    c => out.push(c),
                }
            }
            if k.trim() == name {
                return Some(out);
            }
        } else if k.trim() == name {
            return Some(v.split(';').next().unwrap_or_default().trim().to_string());
        }
    }
    None
}

/// One container's Pebble, reached through `socket`, every call finished
/// by `deadline`.
#[derive(Debug, Clone)]
pub struct Client {
    socket: PathBuf,
    deadline: Instant,
}

impl Client {
    pub fn new(socket: PathBuf, deadline: Instant) -> Client {
        Client { socket, deadline }
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// When every call ends.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Send one request and read its answer, up to `limit` bytes.
    pub(crate) fn send(
        &self,
        method: &str,
        target: &str,
        body: Body,
        accept: Option<&str>,
        limit: usize,
    ) -> Result<Answer, Error> {
        let what = format!("{method} {}", target.split('?').next().unwrap_or(target));
        let runtime = client_runtime()
            .map_err(|e| Error::Protocol(format!("cannot start the HTTP client: {e}")))?;
        let left = self.deadline.saturating_duration_since(Instant::now());
        runtime
            .block_on(async {
                tokio::time::timeout(left, self.send_async(method, target, body, accept, limit))
                    .await
            })
            .unwrap_or(Err(Error::Timeout { what }))
    }

    /// [`send`](Client::send) inside a runtime, without the deadline: the
    /// caller bounds it.
    pub(crate) async fn send_async(
        &self,
        method: &str,
        target: &str,
        body: Body,
        accept: Option<&str>,
        limit: usize,
    ) -> Result<Answer, Error> {
        let request = request(method, target, body, accept)?;
        let what = format!("{method} {}", target.split('?').next().unwrap_or(target));
        let stream = tokio::net::UnixStream::connect(&self.socket)
            .await
            .map_err(|e| Error::CannotConnect {
                socket: self.socket.display().to_string(),
                why: e.to_string(),
            })?;
        let answer = exchange(stream, request, limit)
            .await
            .map_err(|e| Error::Protocol(format!("{what}: {e}")))?;
        if answer.cut {
            return Err(Error::Protocol(format!(
                "{what}: the answer is longer than {limit} bytes"
            )));
        }
        Ok(answer)
    }

    /// Wait inside a runtime for change `id` to finish, within the
    /// deadline: the change.
    pub(crate) async fn wait_change_value(&self, id: &str) -> Result<Value, Error> {
        let target = self.wait_target(id);
        let answer = self
            .send_async("GET", &target, Body::Empty, None, MAX_ANSWER)
            .await?;
        match parse_envelope(answer.status, &answer.body).and_then(sync_result) {
            Err(Error::Api { status: 504, .. }) => Err(Error::Timeout {
                what: format!("change {id}"),
            }),
            other => other,
        }
    }

    fn wait_target(&self, id: &str) -> String {
        let left = self.deadline.saturating_duration_since(Instant::now());
        // Pebble's own wait ends a little before ours, so its answer (504
        // and a message) arrives rather than a cut connection.
        let wait = left
            .saturating_sub(Duration::from_millis(100))
            .max(Duration::from_millis(1));
        format!(
            "/v1/changes/{}/wait?timeout={}ms",
            query_value(id),
            wait.as_millis()
        )
    }

    /// A JSON call: its envelope.
    pub fn call(&self, method: &str, target: &str, body: Body) -> Result<Envelope, Error> {
        let answer = self.send(method, target, body, None, MAX_ANSWER)?;
        parse_envelope(answer.status, &answer.body)
    }

    /// A JSON call answered `sync`: its result.
    pub fn sync(&self, method: &str, target: &str, body: Body) -> Result<Value, Error> {
        sync_result(self.call(method, target, body)?)
    }

    /// Wait for change `id` to finish, within the deadline; its error if it
    /// failed.
    pub fn wait_change(&self, id: &str) -> Result<(), Error> {
        let target = self.wait_target(id);
        let change = match self.sync("GET", &target, Body::Empty) {
            Err(Error::Api { status: 504, .. }) => {
                return Err(Error::Timeout {
                    what: format!("change {id}"),
                });
            }
            other => other?,
        };
        match change_failure(&change) {
            Some(message) => Err(Error::ChangeFailed {
                id: id.to_string(),
                message,
            }),
            None => Ok(()),
        }
    }

    /// A call that may start a change: waited for when it does.
    pub fn act(&self, method: &str, target: &str, body: Body) -> Result<(), Error> {
        match self.call(method, target, body)? {
            Envelope::Sync(_) => Ok(()),
            Envelope::Async { change } => self.wait_change(&change),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelopes() {
        let ok = br#"{"type":"sync","status-code":200,"status":"OK","result":[{"name":"web"}]}"#;
        assert_eq!(
            parse_envelope(200, ok),
            Ok(Envelope::Sync(json!([{"name": "web"}])))
        );
        let no_result = br#"{"type":"sync","status-code":200,"status":"OK"}"#;
        assert_eq!(
            parse_envelope(200, no_result),
            Ok(Envelope::Sync(Value::Null))
        );
        let change = br#"{"type":"async","status-code":202,"status":"Accepted","change":"42"}"#;
        assert_eq!(
            parse_envelope(202, change),
            Ok(Envelope::Async {
                change: "42".into()
            })
        );
        let err = br#"{"type":"error","status-code":404,"status":"Not Found","result":{"message":"cannot find service \"x\"","kind":"not-found"}}"#;
        assert_eq!(
            parse_envelope(404, err),
            Err(Error::Api {
                status: 404,
                kind: "not-found".into(),
                message: "cannot find service \"x\"".into()
            })
        );
        let bare = br#"{"type":"error","status-code":400,"status":"Bad Request","result":{"message":"label must be set"}}"#;
        let e = parse_envelope(400, bare).unwrap_err();
        assert_eq!(e.to_string(), "Pebble answered 400: label must be set");
        assert!(matches!(
            parse_envelope(502, b"<html>bad gateway</html>"),
            Err(Error::Protocol(m)) if m.contains("HTTP 502") && m.contains("bad gateway")
        ));
        assert!(parse_envelope(202, br#"{"type":"async"}"#).is_err());
        assert!(sync_result(Envelope::Async { change: "1".into() }).is_err());
    }

    #[test]
    fn changes_fail_with_their_error() {
        assert_eq!(
            change_failure(&json!({"status": "Done", "ready": true})),
            None
        );
        assert_eq!(
            change_failure(
                &json!({"status": "Error", "err": "cannot start service: exited quickly"})
            ),
            Some("cannot start service: exited quickly".into())
        );
        assert_eq!(
            change_failure(&json!({"status": "Hold"})),
            Some("change ended with status Hold".into())
        );
    }

    #[test]
    fn requests_carry_their_body_and_type() {
        let r = request(
            "POST",
            "/v1/services",
            Body::Json(json!({"action": "replan"})),
            None,
        )
        .unwrap();
        assert!(r.headers().get("accept").is_none());
        assert_eq!(r.method(), "POST");
        assert_eq!(r.uri(), "/v1/services");
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(r.headers()["host"], "localhost");
        let r = request(
            "POST",
            "/v1/files",
            Body::Multipart {
                boundary: "b".repeat(32),
                bytes: vec![],
            },
            None,
        )
        .unwrap();
        assert_eq!(
            r.headers()["content-type"],
            format!("multipart/form-data; boundary={}", "b".repeat(32))
        );
        assert!(request("GET", "/v1/plan?x=a b", Body::Empty, None).is_err());
        let r = request(
            "GET",
            "/v1/files?action=read&path=/a",
            Body::Empty,
            Some("multipart/form-data"),
        )
        .unwrap();
        assert_eq!(r.headers()["accept"], "multipart/form-data");
        assert_eq!(query_value("/etc/a b&c"), "/etc/a%20b%26c");
    }

    #[test]
    fn a_refusing_socket_cannot_connect_and_a_silent_one_times_out() {
        let dir = tempfile::tempdir().unwrap();
        // A datagram socket: a stream connect to it is refused whoever holds
        // it. (A listener bound then dropped is not enough: a process
        // another test forks meanwhile holds it until its exec, queueing the
        // connection, then cuts it.)
        let refused = dir.path().join("refused.socket");
        let _datagram = std::os::unix::net::UnixDatagram::bind(&refused).unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        match Client::new(refused, far).sync("GET", "/v1/system-info", Body::Empty) {
            Err(Error::CannotConnect { socket, why }) => {
                assert!(
                    socket.ends_with("refused.socket") && !why.is_empty(),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
        // Accepts and never answers: the deadline ends the call.
        let silent = dir.path().join("silent.socket");
        let _listener = std::os::unix::net::UnixListener::bind(&silent).unwrap();
        let started = Instant::now();
        let soon = started + Duration::from_millis(200);
        assert_eq!(
            Client::new(silent, soon).sync("GET", "/v1/plan?format=yaml", Body::Empty),
            Err(Error::Timeout {
                what: "GET /v1/plan".into()
            })
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn multipart_round_trip() {
        let boundary = "x".repeat(32);
        let meta = json!({"action": "write", "files": [{"path": "/etc/a \"b\""}]});
        let body = push_body(&boundary, &meta, "/etc/a \"b\"", b"one\r\n--two");
        let parts = parse_multipart(&body, &boundary).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "request");
        assert_eq!(
            serde_json::from_slice::<Value>(&parts[0].content).unwrap(),
            meta
        );
        assert_eq!(parts[1].name, "files");
        assert_eq!(parts[1].filename.as_deref(), Some("/etc/a \"b\""));
        assert_eq!(parts[1].content, b"one\r\n--two");
        assert_eq!(
            boundary_of("multipart/form-data; boundary=\"abc\""),
            Some("abc".into())
        );
        assert_eq!(boundary_of("application/json"), None);
        assert!(parse_multipart(b"garbage", &boundary).is_err());
        let unterminated =
            format!("--{boundary}\r\nContent-Disposition: form-data; name=a\r\n\r\nxx");
        assert!(parse_multipart(unterminated.as_bytes(), &boundary).is_err());
    }
}
