//! HTTP probe: one GET through the host's HTTP client ([`crate::http`]), on
//! the caller's tokio runtime (the event's network probes share one: see
//! [`super::run`]). The body is read up to [`MAX_BODY`]; a body match looks
//! only there.

use super::Seen;
use crate::charm_dir::probes::HttpTarget;
use crate::http::exchange;
use bytes::Bytes;
use http_body_util::Empty;
use std::time::Instant;

/// How much of an answer's body is read.
pub const MAX_BODY: usize = 64 << 10;

/// One attempt, finished by `deadline`.
pub(crate) async fn attempt(target: &HttpTarget, deadline: Instant) -> Seen {
    let url = &target.url;
    let left = deadline.saturating_duration_since(Instant::now());
    match tokio::time::timeout(left, get(target)).await {
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
        pid: None,
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
