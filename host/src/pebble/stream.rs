//! `pull-stream`: a file read from Pebble a piece at a time. Pebble answers
//! a file read as one multipart body, the file's content first and the JSON
//! envelope after it; the connection stays open between the guest's reads,
//! and the content is handed on as it arrives, held back only by what could
//! be the start of the closing boundary.

use super::client::{self, Body, Client, Error, MAX_ANSWER};
use super::files::{MAX_PATH, file_result_error};
use super::{PebbleError, bounded_text, wit_error};
use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper_util::rt::TokioIo;
use std::collections::BTreeMap;
use std::time::Instant;

/// Largest piece one read returns.
pub const MAX_PIECE: usize = 1 << 20;
/// Most files open for reading at once in a handler.
pub const MAX_OPEN: usize = 4;
/// Longest part header accepted before the content.
const MAX_HEAD: usize = 16 << 10;

/// One file being read.
pub struct Stream {
    runtime: tokio::runtime::Runtime,
    body: hyper::body::Incoming,
    /// What ends the content: `\r\n--<boundary>`.
    delimiter: Vec<u8>,
    boundary: String,
    /// Read from Pebble and not yet handed on.
    pending: Vec<u8>,
    done: bool,
    deadline: Instant,
    container: String,
    path: String,
}

/// The files open in one handler, by the id their resource carries.
#[derive(Default)]
pub struct Streams {
    next: u32,
    open: BTreeMap<u32, Stream>,
}

impl std::fmt::Debug for Streams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Streams({} open)", self.open.len())
    }
}

impl Streams {
    /// Keep `stream`: its id, or `None` when [`MAX_OPEN`] are open.
    pub fn insert(&mut self, stream: Stream) -> Option<u32> {
        if self.open.len() >= MAX_OPEN {
            return None;
        }
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        self.open.insert(id, stream);
        Some(id)
    }

    pub fn is_full(&self) -> bool {
        self.open.len() >= MAX_OPEN
    }

    pub fn get(&mut self, id: u32) -> Option<&mut Stream> {
        self.open.get_mut(&id)
    }

    pub fn remove(&mut self, id: u32) {
        self.open.remove(&id);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Open `path` on `client`'s Pebble: the stream positioned at the file's
/// content, or Pebble's error for it.
pub fn open(client: &Client, container: &str, path: &str) -> Result<Stream, PebbleError> {
    bounded_text(container, "pull-stream path", path, MAX_PATH)?;
    let fail = |e| wit_error(container, e);
    let runtime = crate::http::client_runtime().map_err(|e| {
        fail(Error::Protocol(format!(
            "cannot start the HTTP client: {e}"
        )))
    })?;
    let target = format!("/v1/files?action=read&path={}", client::query_value(path));
    let request =
        client::request("GET", &target, Body::Empty, Some("multipart/form-data")).map_err(fail)?;
    let deadline = client.deadline();
    let socket = client.socket().to_path_buf();
    let started = runtime.block_on(async {
        tokio::time::timeout_at(deadline.into(), async {
            let io = tokio::net::UnixStream::connect(&socket)
                .await
                .map_err(|e| Error::CannotConnect {
                    socket: socket.display().to_string(),
                    why: e.to_string(),
                })?;
            let http = |e: hyper::Error| Error::Protocol(format!("GET /v1/files: {e}"));
            let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
                .await
                .map_err(http)?;
            // Driven by this stream's runtime at each read.
            tokio::spawn(connection);
            sender.send_request(request).await.map_err(http)
        })
        .await
        .unwrap_or_else(|_| {
            Err(Error::Timeout {
                what: "GET /v1/files".into(),
            })
        })
    });
    let response = started.map_err(fail)?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut stream = Stream {
        runtime,
        body: response.into_body(),
        delimiter: Vec::new(),
        boundary: String::new(),
        pending: Vec::new(),
        done: false,
        deadline,
        container: container.to_string(),
        path: path.to_string(),
    };
    let Some(boundary) = client::boundary_of(&content_type) else {
        // An error comes as a plain JSON envelope.
        let body = stream.rest().map_err(fail)?;
        return Err(fail(
            client::parse_envelope(status, &body)
                .err()
                .unwrap_or_else(|| {
                    Error::Protocol(format!(
                        "a file read answered {content_type:?}, not multipart"
                    ))
                }),
        ));
    };
    stream.delimiter = format!("\r\n--{boundary}").into_bytes();
    stream.boundary = boundary;
    stream.start()?;
    Ok(stream)
}

impl Stream {
    fn fail(&self, e: Error) -> PebbleError {
        wit_error(&self.container, e)
    }

    /// The next frame's data from Pebble, `None` at the body's end.
    fn more(&mut self) -> Result<Option<Bytes>, Error> {
        let (body, deadline) = (&mut self.body, self.deadline);
        let frame = self
            .runtime
            .block_on(async { tokio::time::timeout_at(deadline.into(), body.frame()).await });
        match frame {
            Err(_) => Err(Error::Timeout {
                what: format!("reading {}", self.path),
            }),
            Ok(None) => Ok(None),
            Ok(Some(Err(e))) => Err(Error::Protocol(format!("reading {}: {e}", self.path))),
            // A frame that is not data (trailers) carries no content.
            Ok(Some(Ok(frame))) => Ok(Some(frame.into_data().unwrap_or_default())),
        }
    }

    /// Read the rest of the body into `pending` (at most [`MAX_ANSWER`]
    /// more): what it holds.
    fn rest(&mut self) -> Result<Vec<u8>, Error> {
        let mut out = std::mem::take(&mut self.pending);
        while let Some(data) = self.more()? {
            if out.len() + data.len() > MAX_ANSWER {
                return Err(Error::Protocol(format!(
                    "the answer reading {} is longer than expected",
                    self.path
                )));
            }
            out.extend_from_slice(&data);
        }
        Ok(out)
    }

    /// Read up to the first part's content: a `files` part goes on to be
    /// read; a `response` part first means Pebble's error.
    fn start(&mut self) -> Result<(), PebbleError> {
        let opening = format!("--{}\r\n", self.boundary).into_bytes();
        let head_end = loop {
            if let Some(i) = find(&self.pending, b"\r\n\r\n") {
                break i;
            }
            if self.pending.len() > MAX_HEAD {
                return Err(self.fail(Error::Protocol(
                    "a file read whose first part has no end of headers".into(),
                )));
            }
            match self.more() {
                Ok(Some(data)) => self.pending.extend_from_slice(&data),
                Ok(None) => {
                    return Err(self.fail(Error::Protocol(
                        "a file read that ended before its first part".into(),
                    )));
                }
                Err(e) => return Err(self.fail(e)),
            }
        };
        let head = String::from_utf8_lossy(&self.pending[..head_end]).into_owned();
        if !self.pending.starts_with(&opening) {
            return Err(self.fail(Error::Protocol(
                "a file read that does not start with its boundary".into(),
            )));
        }
        if head.contains("name=\"files\"") {
            self.pending.drain(..head_end + 4);
            return Ok(());
        }
        // No content: the response part says why.
        let body = self.rest().map_err(|e| self.fail(e))?;
        Err(self.fail(self.response_error(&body).unwrap_or_else(|| {
            Error::Protocol(format!("a file read without content for {}", self.path))
        })))
    }

    /// The error the trailing parts of `body` (from the boundary that
    /// opens them) report, if any.
    fn response_error(&self, body: &[u8]) -> Option<Error> {
        let parts = match client::parse_multipart(body, &self.boundary) {
            Ok(parts) => parts,
            Err(e) => return Some(e),
        };
        let Some(response) = parts.iter().find(|p| p.name == "response") else {
            return Some(Error::Protocol(
                "a file read without its response part".into(),
            ));
        };
        match client::parse_envelope(200, &response.content).and_then(client::sync_result) {
            Ok(result) => file_result_error(&result),
            Err(e) => Some(e),
        }
    }

    /// The next piece of at most `max` bytes; empty at the end.
    pub fn read(&mut self, max: u32) -> Result<Vec<u8>, PebbleError> {
        let max = usize::try_from(max)
            .unwrap_or(MAX_PIECE)
            .clamp(1, MAX_PIECE);
        loop {
            if self.done {
                return Ok(Vec::new());
            }
            if let Some(end) = find(&self.pending, &self.delimiter) {
                if end > 0 {
                    let take = end.min(max);
                    return Ok(self.pending.drain(..take).collect());
                }
                // The content is over: what follows is the response part.
                self.done = true;
                self.pending.drain(..2); // the line end before the boundary
                let body = self.rest().map_err(|e| self.fail(e))?;
                return match self.response_error(&body) {
                    Some(e) => Err(self.fail(e)),
                    None => Ok(Vec::new()),
                };
            }
            // All but what could be the start of the delimiter is content.
            let safe = self.pending.len().saturating_sub(self.delimiter.len() - 1);
            if safe > 0 {
                let take = safe.min(max);
                return Ok(self.pending.drain(..take).collect());
            }
            match self.more() {
                Ok(Some(data)) => self.pending.extend_from_slice(&data),
                Ok(None) => {
                    self.done = true;
                    return Err(self.fail(Error::Protocol(format!(
                        "the read of {} ended before its closing boundary",
                        self.path
                    ))));
                }
                Err(e) => {
                    self.done = true;
                    return Err(self.fail(e));
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
