//! TCP probe: connect to host:port within the attempt's deadline.

use super::Seen;
use crate::charm_dir::probes::HostPort;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Instant;

/// One attempt. A host name is resolved first (blocking, bounded only by the
/// event's budget); every address it has is tried until one connects.
pub(crate) fn check(addr: &HostPort, deadline: Instant) -> Seen {
    let addrs: Vec<SocketAddr> = match (addr.host.as_str(), addr.port).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => return Seen::Unknown(format!("port {addr}: cannot resolve the host: {e}")),
    };
    let mut timed_out = false;
    for a in &addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            timed_out = true;
            break;
        }
        match TcpStream::connect_timeout(a, left) {
            Ok(_) => {
                return Seen::Up {
                    detail: format!("port {addr} listening"),
                    still: format!("port {addr} still listening"),
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => timed_out = true,
            Err(_) => {}
        }
    }
    if timed_out {
        Seen::Down(format!("port {addr} not listening (no answer in time)"))
    } else {
        Seen::Down(format!("port {addr} not listening"))
    }
}
