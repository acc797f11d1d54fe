//! Ports: ops' `Unit.open_port`, `close_port` and `opened_ports`
//! (`open-port`, `close-port`, `opened-ports`).

use super::ModelError;
use crate::__bindings::wasm_charm::charm::ports as wit;

/// One line of `opened-ports`: the ports, and the endpoints they are open
/// for (`None`: every endpoint). ops' `Port`.
///
/// ```no_run
/// for opened in wasm_charm::model::opened_ports()? {
///     println!("{:?} {}-{}", opened.port.protocol, opened.port.from, opened.port.to);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::ports::OpenedPort;
/// A port or a range of ports of one protocol; ICMP has none.
///
/// ```
/// use wasm_charm::model::{PortRange, Protocol};
///
/// assert_eq!(PortRange::tcp(8080), PortRange::range(Protocol::Tcp, 8080, 8080));
/// ```
pub use crate::__bindings::wasm_charm::charm::ports::PortRange;
/// A port protocol, as `open-port` takes it.
///
/// ```
/// use wasm_charm::model::{PortRange, Protocol};
///
/// assert_eq!(PortRange::udp(53).protocol, Protocol::Udp);
/// ```
pub use crate::__bindings::wasm_charm::charm::ports::Protocol;

impl PortRange {
    /// One TCP port.
    ///
    /// ```
    /// let port = wasm_charm::model::PortRange::tcp(8080);
    /// assert_eq!((port.from, port.to), (8080, 8080));
    /// ```
    pub fn tcp(port: u16) -> Self {
        Self {
            protocol: Protocol::Tcp,
            from: port,
            to: port,
        }
    }

    /// One UDP port.
    ///
    /// ```
    /// use wasm_charm::model::{PortRange, Protocol};
    ///
    /// assert_eq!(PortRange::udp(53).protocol, Protocol::Udp);
    /// ```
    pub fn udp(port: u16) -> Self {
        Self {
            protocol: Protocol::Udp,
            from: port,
            to: port,
        }
    }

    /// A range of ports, both ends included (machine charms: Kubernetes
    /// opens ports one by one).
    ///
    /// ```
    /// use wasm_charm::model::{PortRange, Protocol};
    ///
    /// let range = PortRange::range(Protocol::Udp, 9000, 9010);
    /// assert_eq!((range.from, range.to), (9000, 9010));
    /// ```
    pub fn range(protocol: Protocol, from: u16, to: u16) -> Self {
        Self { protocol, from, to }
    }

    /// ICMP.
    ///
    /// ```
    /// use wasm_charm::model::{PortRange, Protocol};
    ///
    /// assert_eq!(PortRange::icmp().protocol, Protocol::Icmp);
    /// ```
    pub fn icmp() -> Self {
        Self {
            protocol: Protocol::Icmp,
            from: 0,
            to: 0,
        }
    }
}

/// Ask Juju to open `port` for every endpoint (`endpoints` empty) or for
/// the endpoints named (ops' `Unit.open_port`). Juju applies it when the
/// hook succeeds: it is kept only if the handler returns, and sent at the
/// end of the event.
///
/// ```no_run
/// use wasm_charm::model::{self, PortRange};
///
/// model::open_port(PortRange::tcp(8080), &[])?;
/// model::open_port(PortRange::udp(53), &["dns"])?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[doc(alias = "open-port")]
pub fn open_port(port: PortRange, endpoints: &[&str]) -> Result<(), ModelError> {
    wit::open_port(port, endpoints_arg(endpoints).as_deref())
}

/// Ask Juju to close `port` (ops' `Unit.close_port`); applied as
/// [`open_port`] is.
///
/// ```no_run
/// use wasm_charm::model::{self, PortRange};
///
/// model::close_port(PortRange::tcp(80), &[])?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[doc(alias = "close-port")]
pub fn close_port(port: PortRange, endpoints: &[&str]) -> Result<(), ModelError> {
    wit::close_port(port, endpoints_arg(endpoints).as_deref())
}

/// The ports open for this unit (ops' `Unit.opened_ports`), with this
/// event's own requests merged in, as Juju's `opened-ports` shows them.
///
/// ```no_run
/// use wasm_charm::model::{self, PortRange};
///
/// let open = model::opened_ports()?.iter().any(|p| p.port == PortRange::tcp(8080));
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[doc(alias = "opened-ports")]
pub fn opened_ports() -> Result<Vec<OpenedPort>, ModelError> {
    wit::opened_ports()
}

fn endpoints_arg(endpoints: &[&str]) -> Option<Vec<String>> {
    (!endpoints.is_empty()).then(|| endpoints.iter().map(|e| e.to_string()).collect())
}
