//! HTTP probe: one GET over HTTP/1.1 with hyper, on a current-thread tokio
//! runtime of the attempt's own (the probe runs on a thread of its own).
//! The body is read up to [`MAX_BODY`]; a body match looks only there.

use super::Seen;
use super::spec::HttpTarget;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Empty};
use hyper_util::rt::TokioIo;
use std::time::Instant;

/// How much of an answer's body is read.
pub const MAX_BODY: usize = 64 << 10;

/// One attempt, finished by `deadline`.
pub(crate) fn check(target: &HttpTarget, deadline: Instant) -> Seen {
    let url = &target.url;
    let runtime = match client_runtime() {
        Ok(r) => r,
        Err(e) => return Seen::Unknown(format!("{url}: cannot start the HTTP client: {e}")),
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let answer = runtime.block_on(async { tokio::time::timeout(left, get(target)).await });
    match answer {
        Err(_) => Seen::Down(format!("{url} did not answer in time")),
        Ok(Err(Failure::Request(e))) => {
            Seen::Unknown(format!("{url}: cannot make the request: {e}"))
        }
        Ok(Err(Failure::Connect(e))) => Seen::Down(format!("{url} not answering ({e})")),
        Ok(Err(Failure::Http(e))) => Seen::Down(format!("{url} gave no valid HTTP answer ({e})")),
        Ok(Ok((status, body))) => judge(target, status, &body),
    }
}

/// Whether the answer is the one expected.
fn judge(target: &HttpTarget, status: u16, body: &[u8]) -> Seen {
    let url = &target.url;
    let status_ok = match target.status {
        Some(want) => status == want,
        None => (200..300).contains(&status),
    };
    if !status_ok {
        return Seen::Down(match target.status {
            Some(want) => format!("{url} answered {status}, expected {want}"),
            None => format!("{url} answered {status}"),
        });
    }
    if let Some(want) = &target.body {
        let found = body.windows(want.len()).any(|w| w == want.as_bytes());
        if !found {
            return Seen::Down(format!("{url} answered {status}, body does not match"));
        }
    }
    Seen::Up {
        detail: format!("{url} answered {status}"),
        still: format!("{url} still answering {status}"),
    }
}

enum Failure {
    Request(String),
    Connect(std::io::Error),
    Http(hyper::Error),
}

async fn get(target: &HttpTarget) -> Result<(u16, Vec<u8>), Failure> {
    let addr = &target.addr;
    let stream = tokio::net::TcpStream::connect((addr.host.as_str(), addr.port))
        .await
        .map_err(Failure::Connect)?;
    let request = hyper::Request::get(target.path.as_str())
        .header(hyper::header::HOST, addr.to_string())
        .header(hyper::header::USER_AGENT, "wasm-charm-probe")
        .header(hyper::header::CONNECTION, "close")
        .body(Empty::<Bytes>::new())
        .map_err(|e| Failure::Request(e.to_string()))?;
    let answer = exchange(stream, request, MAX_BODY)
        .await
        .map_err(Failure::Http)?;
    Ok((answer.status, answer.body))
}

/// A current-thread tokio runtime for one blocking HTTP exchange (a probe
/// attempt, a Pebble call): the caller's thread drives it.
pub(crate) fn client_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
}

/// An HTTP answer, its body read up to a bound.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: Vec<u8>,
    /// The body went on past the bound: `body` holds only its start.
    pub cut: bool,
}

/// Send `request` over `io` (a connected stream) as HTTP/1.1 and read the
/// answer's body up to `limit` bytes. Runs inside a tokio runtime.
pub(crate) async fn exchange<I, B>(
    io: I,
    request: hyper::Request<B>,
    limit: usize,
) -> Result<Answer, hyper::Error>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await?;
    // The connection is driven beside the request; dropped with the runtime.
    tokio::spawn(connection);
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    let (parts, mut body) = response.into_parts();
    let mut read = Vec::new();
    let mut cut = false;
    loop {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    let take = data.len().min(limit - read.len());
                    read.extend_from_slice(&data[..take]);
                    if take < data.len() {
                        cut = true;
                        break;
                    }
                }
            }
            Some(Err(e)) => return Err(e),
            None => break,
        }
    }
    Ok(Answer {
        status,
        headers: parts.headers,
        body: read,
        cut,
    })
}
