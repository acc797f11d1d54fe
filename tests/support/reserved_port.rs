//! A TCP port bound but not listening, for tests of "not listening": shared
//! by the host's probe unit tests (which include this file with `#[path]`)
//! and the integration tests.

use std::net::TcpListener;

/// A TCP port bound but not listening: connections to it are refused, and no
/// other socket can take it meanwhile (not a parallel test's listener, not
/// the probe's own connection as its source port), so "not listening" is
/// never a race. [`ReservedPort::listen`] turns it into a listener on the
/// same port.
pub struct ReservedPort {
    fd: std::os::fd::OwnedFd,
    pub port: u16,
}

impl ReservedPort {
    /// A free port of `ip` (`port` 0), or that very port again.
    pub fn on(ip: std::net::IpAddr, port: u16) -> std::io::Result<ReservedPort> {
        use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
        let domain = if ip.is_ipv6() {
            libc::AF_INET6
        } else {
            libc::AF_INET
        };
        // SAFETY: socket(2) with constant arguments; the fd is owned at once.
        let raw = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let one: libc::c_int = 1;
        // Only to take a given port back past its TIME_WAIT connections: on a
        // fresh port, SO_REUSEADDR would let another such socket share it.
        if port != 0 {
            // SAFETY: a valid fd and a pointer to an int of the size given.
            unsafe {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_REUSEADDR,
                    (&one as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
        }
        let bound = match ip {
            std::net::IpAddr::V4(v4) => {
                let addr = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: port.to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from(v4).to_be(),
                    },
                    sin_zero: [0; 8],
                };
                // SAFETY: a valid fd and a sockaddr_in of the size given.
                unsafe {
                    libc::bind(
                        fd.as_raw_fd(),
                        (&addr as *const libc::sockaddr_in).cast(),
                        std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                    )
                }
            }
            std::net::IpAddr::V6(v6) => {
                let addr = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: port.to_be(),
                    sin6_flowinfo: 0,
                    sin6_addr: libc::in6_addr {
                        s6_addr: v6.octets(),
                    },
                    sin6_scope_id: 0,
                };
                // SAFETY: a valid fd and a sockaddr_in6 of the size given.
                unsafe {
                    libc::bind(
                        fd.as_raw_fd(),
                        (&addr as *const libc::sockaddr_in6).cast(),
                        std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                    )
                }
            }
        };
        if bound < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // std reads the bound port back for us through a borrowed socket.
        let std_socket = std::net::TcpListener::from(fd);
        let port = std_socket.local_addr()?.port();
        Ok(ReservedPort {
            fd: std_socket.into(),
            port,
        })
    }

    /// Listen on the reserved port.
    pub fn listen(self) -> std::io::Result<TcpListener> {
        use std::os::fd::AsRawFd as _;
        // SAFETY: a valid, bound socket fd.
        if unsafe { libc::listen(self.fd.as_raw_fd(), 16) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(TcpListener::from(self.fd))
    }
}
