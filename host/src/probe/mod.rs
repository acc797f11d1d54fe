//! Readiness probes (DESIGN §5): declared in wasm-charm.yaml, run by the host
//! with a timeout, retries and back-off, gating `active` through the scope
//! `probe/<name>`, maintenance within a grace period and blocked after it.
//!
//! * [`spec`]: the declarations ([`ProbeSpec`]), parsed with the manifest.
//!
//! The `probe` WIT interface ([`Probes`]) still answers every name
//! `undeclared`.

pub mod spec;

#[cfg(test)]
mod tests;

pub use spec::{Expect, ProbeSpec, Target};

use crate::bindings::probe::{Host, ProbeError, ProbeResult};

/// The probes declared in the manifest, as the `probe` WIT interface sees
/// them. This version still answers every name `undeclared`.
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
