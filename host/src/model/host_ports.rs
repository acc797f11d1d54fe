//! The WIT `ports` interface, answered by the event's [`Model`]: `open-port`
//! and `close-port` checked at the call by Juju's rules (`port_rules`), then
//! buffered in the running handler's transaction; `opened-ports` read once
//! per event and shown with this event's requests merged in, as Juju
//! shows them.

use super::Model;
use super::errors::failure;
use super::port_rules::{self, Book, Grouped, Pending, Range};
use super::ports::{self, PortRequest};
use super::tool_calls::Caller;
use crate::bindings::model::ModelError;
use crate::bindings::ports::{Host, OpenedPort, PortRange};
use wasmtime::component::{HasSelf, Linker};

impl Host for Model {
    fn open_port(
        &mut self,
        port: PortRange,
        endpoints: Option<Vec<String>>,
    ) -> Result<(), ModelError> {
        request(self, true, port, endpoints)
    }

    fn close_port(
        &mut self,
        port: PortRange,
        endpoints: Option<Vec<String>>,
    ) -> Result<(), ModelError> {
        request(self, false, port, endpoints)
    }

    fn opened_ports(&mut self) -> Result<Vec<OpenedPort>, ModelError> {
        opened_ports(self)
    }
}

/// Register the `ports` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::ports::add_to_linker::<T, HasSelf<Model>>(linker, get)
}

/// Check an `open-port` (`open`) or `close-port` of the running handler by
/// Juju's rules, then buffer it.
fn request(
    m: &mut Model,
    open: bool,
    port: PortRange,
    endpoints: Option<Vec<String>>,
) -> Result<(), ModelError> {
    let request = PortRequest {
        open,
        spec: ports::port_spec(&port)?,
        endpoints: ports::endpoints_arg(endpoints.as_deref())?,
    };
    let tool = request.tool_and_args().0;
    for e in endpoints.iter().flatten() {
        m.facts.check_binding(&format!("{tool} --endpoints"), e)?;
    }
    let opened = opened_at_start(m)?;
    let mut pending = pending(m, &opened);
    let mut book = Book {
        unit: &m.facts.identity().unit,
        kubernetes: m.facts.identity().kubernetes,
        opened: &opened,
        pending: &mut pending,
    };
    let range = ports::to_range(&port);
    for endpoint in each_endpoint(&request) {
        let verdict = if open {
            book.open(endpoint, range)
        } else {
            book.close(endpoint, range)
        };
        verdict.map_err(|message| failure(tool, 1, message))?;
    }
    m.transaction.request_port(request)
}

/// The endpoints a request names one by one; every endpoint is `""`.
fn each_endpoint(request: &PortRequest) -> Vec<&str> {
    match &request.endpoints {
        None => vec![port_rules::ALL],
        Some(list) => list.split(',').collect(),
    }
}

/// The requests this event holds (every one was accepted when made),
/// replayed onto the ports open when it began.
fn pending(m: &Model, opened: &Grouped) -> Pending {
    let mut pending = Pending::default();
    let mut book = Book {
        unit: &m.facts.identity().unit,
        kubernetes: m.facts.identity().kubernetes,
        opened,
        pending: &mut pending,
    };
    for request in m.transaction.port_requests() {
        let Some(range) = Range::parse(&request.spec) else {
            continue;
        };
        for endpoint in each_endpoint(request) {
            // Accepted when made: replaying it cannot be refused.
            let _ = if request.open {
                book.open(endpoint, range)
            } else {
                book.close(endpoint, range)
            };
        }
    }
    pending
}

/// The ports open when the event began, by endpoint.
fn opened_at_start(m: &mut Model) -> Result<Grouped, ModelError> {
    let lines = read_opened(m)?;
    Ok(port_rules::grouped(lines.iter().map(|p| {
        (ports::to_range(&p.port), p.endpoints.as_deref())
    })))
}

fn opened_ports(m: &mut Model) -> Result<Vec<OpenedPort>, ModelError> {
    let opened = opened_at_start(m)?;
    let pending = pending(m, &opened);
    Ok(port_rules::by_range(&port_rules::merged(&opened, &pending))
        .into_iter()
        .map(|(r, endpoints)| OpenedPort {
            port: ports::from_range(r),
            endpoints,
        })
        .collect())
}

fn read_opened(m: &mut Model) -> Result<Vec<OpenedPort>, ModelError> {
    if let Some(p) = &m.cache.opened_ports {
        return Ok(p.clone());
    }
    let lines: Option<Vec<String>> = m.json(
        Caller::Guest,
        "opened-ports",
        &["--format=json", "--endpoints"],
    )?;
    let mut opened = Vec::new();
    for line in lines.unwrap_or_default() {
        opened.push(ports::parse_opened(&line).ok_or_else(|| {
            failure(
                "opened-ports",
                0,
                format!("`{line}` is not `<port>[/<proto>]`, `<from>-<to>[/<proto>]` or `icmp` with its endpoints"),
            )
        })?);
    }
    m.cache.opened_ports = Some(opened.clone());
    Ok(opened)
}
