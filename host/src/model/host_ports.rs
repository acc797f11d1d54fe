//! The WIT `ports` interface, answered by the event's [`Model`]: `open-port`
//! and `close-port` buffered in the running handler's transaction,
//! `opened-ports` read once per event.

use super::Model;
use super::errors::failure;
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

/// Buffer an `open-port` (`open`) or `close-port` of the running handler.
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
    m.transaction.request_port(request)
}

fn opened_ports(m: &mut Model) -> Result<Vec<OpenedPort>, ModelError> {
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
