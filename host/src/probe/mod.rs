//! Readiness probes (DESIGN §5): declared in wasm-charm.yaml, run by the host
//! with a timeout, retries and back-off, gating `active` through the scope
//! `probe/<name>`, maintenance within a grace period and blocked after it.
//!
//! * [`spec`]: the declarations ([`ProbeSpec`]), parsed with the manifest.
//! * `tcp`, `http`, `process`, `systemd`: one attempt of each kind.
//! * [`run`]: retries with back-off, and all gated probes of an event at
//!   once under one budget.
//! * [`clock`]: the injectable time source.
//!
//! The `probe` WIT interface ([`Probes`]) still answers every name
//! `undeclared`; running a declared probe for a guest is [`run::with_retries`]
//! over [`run::attempt`].

pub mod clock;
pub(crate) mod http;
mod process;
pub mod run;
pub mod spec;
mod systemd;
mod tcp;

#[cfg(test)]
mod tests;

pub use clock::{Clock, ManualClock, SystemClock};
pub use run::{Outcome, ProbeEnv};
pub use spec::{Expect, ProbeSpec, Target};

use crate::bindings::probe::{Host, ProbeError, ProbeResult};

/// The result of one probe run: whether its expectation held, and what was
/// seen, phrased for a status message ("port 127.0.0.1:8774 not listening").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub healthy: bool,
    pub detail: String,
}

impl Check {
    pub fn healthy(detail: impl Into<String>) -> Self {
        Check {
            healthy: true,
            detail: detail.into(),
        }
    }

    pub fn unhealthy(detail: impl Into<String>) -> Self {
        Check {
            healthy: false,
            detail: detail.into(),
        }
    }
}

/// What one attempt of a kind saw, before `expect` is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Up: `detail` says so, `still` is the message when it should be down.
    Up { detail: String, still: String },
    /// Down, and why.
    Down(String),
    /// Could not be told (no systemd, `/proc` unreadable): unhealthy whatever
    /// the expectation.
    Unknown(String),
}

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
