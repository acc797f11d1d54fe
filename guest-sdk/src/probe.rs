//! Service probes declared in the charm's manifest, `wasm-charm.yaml`.
//!
//! A charm can run only the probes its manifest declares, by name: it names
//! no host, port or unit of its own. Probes that gate readiness are run by the
//! host at every event without the charm asking: while one fails, the unit is
//! not `active`. A handler can also:
//!
//! * [`run`] a probe to look for itself;
//! * choose which probes gate ([`gate`], [`ungate`], [`gate_only`]), for the current
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

/// A declared probe and whether it gates readiness now.
///
/// ```no_run
/// let gating = wasm_charm::probe::gates().iter().filter(|g| g.gate).count();
/// ```
pub use crate::__bindings::wasm_charm::charm::probe::Gating;
/// What one run of a probe found.
///
/// ```no_run
/// let result = wasm_charm::probe::run("api-port")?;
/// if !result.healthy {
///     wasm_charm::log::warning(result.detail);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::probe::ProbeResult;
/// 0.1.0's name, deprecated (CHANGELOG.md).
#[allow(deprecated)]
pub use crate::deprecated::set_gate;

/// Why a probe call failed. The kind stays through `?` into
/// [`Error`](crate::Error) ([`ErrorKind::Probe`](crate::ErrorKind::Probe)).
///
/// ```no_run
/// use wasm_charm::probe::{self, ProbeError};
///
/// match probe::run("metadata-api") {
///     Err(ProbeError::Undeclared(_)) => {} // an older manifest
///     other => { other?; }
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeError {
    /// No probe of that name is declared in the manifest.
    Undeclared(String),
    /// The probe could not be run at all (not a failed check: that is a
    /// result with `healthy: false`).
    Failed(String),
}

/// What failed, with the host's words.
///
/// ```
/// use wasm_charm::probe::ProbeError;
///
/// assert_eq!(ProbeError::Undeclared("api".into()).to_string(), "undeclared probe: api");
/// ```
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

/// Make probe `name` gate readiness, from this event on (kept across
/// events until a handler chooses again). A probe that starts gating
/// starts its grace period.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// // The metadata API runs only on releases that have it.
/// probe::gate("metadata-api")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn gate(name: &str) -> Result<(), ProbeError> {
    wit::set_gate(name, true)
}

/// Make probe `name` stop gating readiness, from this event on: it no
/// longer holds the unit back, and its scope is cleared.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// probe::ungate("metadata-api")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn ungate(name: &str) -> Result<(), ProbeError> {
    wit::set_gate(name, false)
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
