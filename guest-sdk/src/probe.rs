//! Service probes declared in the charm's manifest, `wasm-charm.yaml`.
//!
//! A charm can run only the probes its manifest declares, by name: it names
//! no host, port or unit of its own. Probes that gate readiness are run by the
//! host at every event without the charm asking: while one fails, the unit is
//! not `active`. A handler can also:
//!
//! * [`run`] a probe to look for itself;
//! * choose which probes gate ([`set_gate`], [`gate_only`]), for the current
//!   configuration (which processes a release runs) or while paused (the
//!   `expect: down` probes);
//! * [`restart_grace`] after restarting what a probe watches, so a service
//!   that is still starting is shown as maintenance, not blocked.
//!
//! Gating choices and grace restarts take effect when the handler returns,
//! like status writes, and are kept across events.
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

pub use crate::__bindings::wasm_charm::charm::probe::{Gating, ProbeResult};

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

/// Run probe `name` now, with its declared timeout, retries and back-off
/// (cut to the handler's deadline). It changes no status: the probes that
/// gate are run by the host after the handlers anyway.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// let port = probe::run("api-port")?;
/// log::info(&format!("api port healthy: {} ({})", port.healthy, port.detail));
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn run(name: &str) -> Result<ProbeResult, ProbeError> {
    wit::run(name)
}

/// Every declared probe, sorted by name, and whether it gates readiness now
/// (the manifest's `gate:` until a handler chose otherwise).
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// let gating: Vec<String> = probe::gates()
///     .into_iter()
///     .filter(|g| g.gate)
///     .map(|g| g.name)
///     .collect();
/// log::debug(&format!("gating probes: {gating:?}"));
/// ```
pub fn gates() -> Vec<Gating> {
    wit::gates()
}

/// Choose whether probe `name` gates readiness, from this event on. A probe
/// that starts gating starts its grace period; one that stops gating no
/// longer holds the unit back.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// // The metadata API runs only on releases that have it.
/// probe::set_gate("metadata-api", true)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set_gate(name: &str, gate: bool) -> Result<(), ProbeError> {
    wit::set_gate(name, gate)
}

/// Make exactly the probes in `names` gate readiness, and no other declared
/// probe: the per-release process map of a charm, or the `expect: down`
/// probes of a paused unit. Fails, changing nothing, if a name is not
/// declared.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// // Paused: the services must be down, and nothing else counts.
/// probe::gate_only(&["api-stopped", "worker-stopped"])?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn gate_only(names: &[&str]) -> Result<(), ProbeError> {
    let declared = gates();
    if let Some(unknown) = names
        .iter()
        .find(|n| !declared.iter().any(|g| g.name == **n))
    {
        return Err(ProbeError::Undeclared(format!(
            "no probe named `{unknown}` is declared in wasm-charm.yaml"
        )));
    }
    for g in declared {
        let gate = names.contains(&g.name.as_str());
        if g.gate != gate {
            wit::set_gate(&g.name, gate)?;
        }
    }
    Ok(())
}

/// Start probe `name`'s grace period again, after restarting what it
/// watches: for its grace period a failure shows as maintenance (the
/// service is starting), not blocked.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// // ... the api service was just restarted ...
/// probe::restart_grace("api-port")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn restart_grace(name: &str) -> Result<(), ProbeError> {
    wit::restart_grace(name)
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
