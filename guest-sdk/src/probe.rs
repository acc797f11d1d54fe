//! Service probes declared in the charm's manifest, `wasm-charm.yaml`.
//!
//! A charm can run only the probes its manifest declares, by name: it names
//! no host, port or unit of its own. Probes that gate readiness are run by the
//! host at every event without the charm asking; [`run`] is for a handler
//! that wants to look for itself.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! fn api(_event: &Event) -> Outcome {
//!     let result = probe::run("api")?;
//!     if !result.healthy {
//!         return Ok(Some(Status::maintenance(format!("api: {}", result.detail))));
//!     }
//!     Ok(None)
//! }
//! ```

use std::fmt;

use crate::__bindings::wasm_charm::charm::probe as wit;

pub use crate::__bindings::wasm_charm::charm::probe::ProbeResult;

/// Why a probe could not be run.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeError {
    /// No probe of that name is declared in the manifest.
    Undeclared(String),
    /// The probe could not be run at all (not a failed check: that is a
    /// result with `healthy: false`).
    Failed(String),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Undeclared(what) => write!(f, "undeclared probe: {what}"),
            ProbeError::Failed(what) => write!(f, "probe could not run: {what}"),
        }
    }
}

impl std::error::Error for ProbeError {}

/// Run probe `name` once, now.
pub fn run(name: &str) -> Result<ProbeResult, ProbeError> {
    wit::run(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_display_their_reason() {
        assert_eq!(
            ProbeError::Undeclared("nope".into()).to_string(),
            "undeclared probe: nope"
        );
        assert_eq!(
            ProbeError::Failed("no pebble socket".into()).to_string(),
            "probe could not run: no pebble socket"
        );
    }
}
