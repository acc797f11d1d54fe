//! The `probe` WIT interface. A guest runs only probes its manifest declares,
//! by name. This host version declares none: the probe kinds of DESIGN §5
//! (systemd, process, tcp, http, Pebble) come with the manifest's `probes`
//! section, so every name is answered `undeclared` — an error value the
//! handler can act on, never a trap.

use crate::bindings::probe::{Host, ProbeError, ProbeResult};

/// The probes declared in the manifest.
#[derive(Debug, Default)]
pub struct Probes;

impl Host for Probes {
    fn run(&mut self, name: String) -> Result<ProbeResult, ProbeError> {
        Err(ProbeError::Undeclared(format!(
            "no probe named `{name}` is declared in wasm-charm.yaml"
        )))
    }
}

/// Register the `probe` interface, answered by the [`Probes`] that `get`
/// finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Probes,
) -> wasmtime::Result<()> {
    crate::bindings::probe::add_to_linker::<T, wasmtime::component::HasSelf<Probes>>(linker, get)
}
