//! The host's HTTP client: HTTP/1.1 with hyper over any connected stream
//! (a TCP connection for an HTTP probe, a container's unix socket for
//! Pebble), one request per connection, the answer's body read up to a
//! bound. Both the probes and the Pebble client use it, so it sits below
//! both: it knows neither.

use http_body_util::BodyExt as _;
use hyper_util::rt::TokioIo;

/// A current-thread tokio runtime for one blocking HTTP exchange (a probe
/// attempt, a Pebble call): the caller's thread drives it.
pub fn client_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
}

/// An HTTP answer, its body read up to a bound.
pub struct Answer {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: Vec<u8>,
    /// The body went on past the bound: `body` holds only its start.
    pub cut: bool,
}

/// Send `request` over `io` (a connected stream) as HTTP/1.1 and read the
/// answer's body up to `limit` bytes. Runs inside a tokio runtime.
pub async fn exchange<I, B>(
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
