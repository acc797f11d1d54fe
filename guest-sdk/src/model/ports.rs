//! Ports: `open-port`, `close-port`, `opened-ports`.

use super::{ModelError, wit};

pub use crate::__bindings::wasm_charm::charm::model::{OpenedPort, PortRange, Protocol};

impl PortRange {
    /// One TCP port.
    pub fn tcp(port: u16) -> Self {
        Self {
            protocol: Protocol::Tcp,
            from: port,
            to: port,
        }
    }

    /// One UDP port.
    pub fn udp(port: u16) -> Self {
        Self {
            protocol: Protocol::Udp,
            from: port,
            to: port,
        }
    }

    /// A range of ports, both ends included (machine charms: Kubernetes
    /// opens ports one by one).
    pub fn range(protocol: Protocol, from: u16, to: u16) -> Self {
        Self { protocol, from, to }
    }

    /// ICMP.
    pub fn icmp() -> Self {
        Self {
            protocol: Protocol::Icmp,
            from: 0,
            to: 0,
        }
    }
}

/// Ask Juju to open `port` for every endpoint (`endpoints` empty) or for
/// the endpoints named. Juju applies it when the hook succeeds: it is kept
/// only if the handler returns, and sent at the end of the event.
///
/// ```no_run
/// use wasm_charm::model::{self, PortRange};
///
/// model::open_port(PortRange::tcp(8080), &[])?;
/// model::close_port(PortRange::tcp(80), &[])?;
/// model::open_port(PortRange::udp(53), &["dns"])?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
pub fn open_port(port: PortRange, endpoints: &[&str]) -> Result<(), ModelError> {
    wit::open_port(port, endpoints_arg(endpoints).as_deref())
}

/// Ask Juju to close `port`; applied as [`open_port`] is.
pub fn close_port(port: PortRange, endpoints: &[&str]) -> Result<(), ModelError> {
    wit::close_port(port, endpoints_arg(endpoints).as_deref())
}

/// The ports open for this unit when the event began (this event's own
/// requests are not shown, as in Juju's `opened-ports`).
pub fn opened_ports() -> Result<Vec<OpenedPort>, ModelError> {
    wit::opened_ports()
}

fn endpoints_arg(endpoints: &[&str]) -> Option<Vec<String>> {
    (!endpoints.is_empty()).then(|| endpoints.iter().map(|e| e.to_string()).collect())
}
