//! TCP probe: connect to host:port within the attempt's deadline.

use super::Seen;
use crate::charm_dir::probes::HostPort;
use std::time::Instant;

/// One attempt, on the caller's tokio runtime (the event's network probes
/// share one: see [`super::run`]). A host name is resolved first; every
/// address it has is tried until one connects.
pub(crate) async fn attempt(addr: &HostPort, deadline: Instant) -> Seen {
    let left = deadline.saturating_duration_since(Instant::now());
    let resolved = tokio::time::timeout(
        left,
        tokio::net::lookup_host((addr.host.as_str(), addr.port)),
    )
    .await;
    let addrs: Vec<_> = match resolved {
        Err(_) => return Seen::Down(format!("port {addr} not listening (no answer in time)")),
        Ok(Err(e)) => return Seen::Unknown(format!("port {addr}: cannot resolve the host: {e}")),
        Ok(Ok(a)) => a.collect(),
    };
    let mut timed_out = false;
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            timed_out = true;
            break;
        }
        match tokio::time::timeout(left, tokio::net::TcpStream::connect(a)).await {
            Ok(Ok(_)) => {
                return Seen::Up {
                    detail: format!("port {addr} listening"),
                    still: format!("port {addr} still listening"),
                    pid: None,
                };
            }
            Err(_) => timed_out = true,
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::TimedOut => timed_out = true,
            Ok(Err(_)) => {}
        }
    }
    if timed_out {
        Seen::Down(format!("port {addr} not listening (no answer in time)"))
    } else {
        Seen::Down(format!("port {addr} not listening"))
    }
}
