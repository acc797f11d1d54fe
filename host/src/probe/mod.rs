//! Readiness probes (DESIGN §5): declared in wasm-charm.yaml, run by the host
//! with a timeout, retries and back-off, gating `active` through the scope
//! `probe/<name>`, maintenance within a grace period and blocked after it.
//!
//! * [`spec`]: the declarations ([`ProbeSpec`]), parsed with the manifest.
//! * `tcp`, `http`, `process`, `systemd`: one attempt of each kind.
//! * [`run`]: retries with back-off, and all gated probes of an event at
//!   once under one budget.
//! * [`state`]: the pure grace machine, whose [`ProbeState`] the status store
//!   keeps between events.
//! * [`clock`]: the injectable time source.
//!
//! # Wiring it into an event (for the pipeline)
//!
//! After the handlers, with the states the store kept:
//!
//! ```ignore
//! let clock: Arc<dyn Clock> = Arc::new(SystemClock);
//! let assessed = probe::assess(&charm.manifest.probes, &kept_states,
//!                              &ProbeEnv::default(), clock, budget);
//! for (name, a) in assessed {
//!     // a.status: None → clear scope probe::scope_name(&name);
//!     //           Some(s) → set it to s.kind / s.message
//!     // a.state: keep for the next event
//! }
//! ```
//!
//! When the charm restarts what a probe watches:
//! `probe::restart_grace(&mut kept_states, name, clock.now())`.
//!
//! The `probe` WIT interface ([`Probes`]) still answers every name
//! `undeclared`; running a declared probe for a guest is [`run::with_retries`]
//! over [`run::attempt`].

pub mod clock;
pub(crate) mod http;
mod process;
pub mod run;
pub mod spec;
pub mod state;
mod systemd;
mod tcp;

#[cfg(test)]
mod tests;

pub use clock::{Clock, ManualClock, SystemClock};
pub use run::{Outcome, ProbeEnv};
pub use spec::{Expect, ProbeSpec, Target};
pub use state::{ProbeState, ScopeStatus};

use crate::bindings::probe::{Host, ProbeError, ProbeResult};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

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

impl From<Check> for ProbeResult {
    /// The WIT interface's shape of a check.
    fn from(c: Check) -> Self {
        ProbeResult {
            healthy: c.healthy,
            detail: c.detail,
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

/// The scope a probe's status goes to.
pub fn scope_name(probe: &str) -> String {
    format!("probe/{probe}")
}

/// One gated probe after an event: what it found, the state to keep and the
/// status of its scope (`None`: clear it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessed {
    pub outcome: Outcome,
    pub state: ProbeState,
    pub status: Option<ScopeStatus>,
}

/// Run the gated probes of `specs` at once within `budget` and judge each
/// against the state kept from earlier events (`states`; a probe without one
/// never ran). The time of judgement is `clock.now()` once all have
/// finished.
pub fn assess(
    specs: &BTreeMap<String, ProbeSpec>,
    states: &BTreeMap<String, ProbeState>,
    env: &ProbeEnv,
    clock: Arc<dyn Clock>,
    budget: Duration,
) -> BTreeMap<String, Assessed> {
    let outcomes = run::run_gated(specs, env, clock.clone(), budget);
    let now = clock.now();
    outcomes
        .into_iter()
        .map(|(name, outcome)| {
            let spec = &specs[&name];
            let prev = states.get(&name).cloned().unwrap_or_default();
            let (state, status) = prev.evaluate(spec, &outcome.check, now);
            let assessed = Assessed {
                outcome,
                state,
                status,
            };
            (name, assessed)
        })
        .collect()
}

/// Start probe `name`'s grace period again at `now` (the charm restarted
/// what it watches: a workload call, DESIGN §12, or the probe interface).
pub fn restart_grace(states: &mut BTreeMap<String, ProbeState>, name: &str, now: SystemTime) {
    states
        .entry(name.to_string())
        .or_default()
        .restart_grace(now);
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
