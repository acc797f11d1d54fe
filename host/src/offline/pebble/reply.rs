//! A request as the server read it and the answer to give, with Pebble's
//! JSON envelopes (`sync`, `async`, `error`): what every handler of the API
//! speaks, whichever mode answers.

use super::changes::Changes;
use super::ws::Sink;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A request as the server read it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A comma list that may also be given more than once (`names`).
    pub fn list(&self, key: &str) -> Vec<String> {
        self.query
            .iter()
            .filter(|(k, _)| k == key)
            .flat_map(|(_, v)| v.split(','))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// What to answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A body with its HTTP status and content type.
    Body {
        status: u16,
        content_type: String,
        body: Vec<u8>,
    },
    /// Switch to a websocket of a scripted exec task: what to send on it
    /// (`None` for `control`, which only listens).
    Upgrade {
        output: Option<Vec<u8>>,
        /// On a scripted task's `stdio`: its id, so the stdin sent is
        /// recorded in the container's calls.
        stdin_of: Option<String>,
    },
    /// Switch to a websocket of a running exec task, handed to it.
    Attach(Attach),
    /// Wait for a change that is not ready yet, without holding the
    /// container (the server waits, then answers).
    Wait(Waiter),
}

/// A running task's websocket `id`, and what takes its messages.
#[derive(Clone)]
pub struct Attach {
    pub id: String,
    pub sink: Arc<dyn Sink>,
}

impl std::fmt::Debug for Attach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Attach({})", self.id)
    }
}

impl PartialEq for Attach {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && Arc::ptr_eq(&self.sink, &other.sink)
    }
}

/// A change to wait for, at most `timeout`.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiter {
    pub changes: Changes,
    pub id: String,
    pub timeout: Duration,
}

impl Waiter {
    /// The change once ready, or Pebble's 504 past the timeout.
    pub fn answer(&self) -> Reply {
        match self.changes.wait(&self.id, self.timeout) {
            Some(change) => sync(change),
            None => error(504, "", &format!("timeout waiting for change {}", self.id)),
        }
    }
}

/// The reason phrase of the statuses answered here.
pub fn status_text(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        504 => "Gateway Timeout",
        _ => "Internal Server Error",
    }
}

fn json_reply(status: u16, doc: &Value) -> Reply {
    Reply::Body {
        status,
        content_type: "application/json".into(),
        body: doc.to_string().into_bytes(),
    }
}

pub fn sync(result: Value) -> Reply {
    json_reply(
        200,
        &json!({"type": "sync", "status-code": 200, "status": "OK", "result": result}),
    )
}

pub fn started(change: &str, result: Value) -> Reply {
    let mut doc = json!({"type": "async", "status-code": 202, "status": "Accepted",
        "change": change});
    if !result.is_null() {
        doc["result"] = result;
    }
    json_reply(202, &doc)
}

/// Pebble's error envelope.
pub fn error(status: u16, kind: &str, message: &str) -> Reply {
    let mut result = json!({"message": message});
    if !kind.is_empty() {
        result["kind"] = json!(kind);
    }
    json_reply(
        status,
        &json!({"type": "error", "status-code": status, "status": status_text(status),
            "result": result}),
    )
}

pub fn bad(message: impl AsRef<str>) -> Reply {
    error(400, "", message.as_ref())
}

/// A request's JSON body, or the 400 saying why not.
pub fn json_body(req: &Request) -> Result<Value, Reply> {
    serde_json::from_slice(&req.body).map_err(|e| bad(format!("cannot decode request body: {e}")))
}

/// A request's string field; empty when it is absent or not a string
/// (Pebble then answers as for an empty one).
pub fn text(body: &Value, key: &str) -> String {
    body.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The strings of a request's array field; none when it is absent or not
/// an array (Pebble then answers as for an empty one).
pub fn strings(body: &Value, key: &str) -> Vec<String> {
    body.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub fn names_suffix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(" {}", names.join(" "))
    }
}

/// A percent-encoded query string, decoded.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
