//! Readiness probes (DESIGN §5): declared in wasm-charm.yaml, run by the host
//! with a timeout, retries and back-off, gating `active` through the scope
//! `probe/<name>`, maintenance within a grace period and blocked after it.
//!
//! * The declarations ([`ProbeSpec`]) are the manifest's, parsed with it in
//!   [`crate::charm_dir::probes`]; they are re-exported here, the probes'
//!   vocabulary.
//! * `tcp`, `http`, `process`, `systemd`: one attempt of each kind.
//! * [`run`]: retries with back-off, and all gated probes of an event at
//!   once under one budget.
//! * [`state`]: the pure grace machine, whose [`ProbeState`] the status store
//!   keeps between events.
//! * [`clock`]: the injectable time source.
//!
//! * [`Probes`]: the `probe` WIT interface: a handler runs a declared probe,
//!   chooses which probes gate, and restarts a grace period. Its choices are
//!   [`Choices`], applied to the kept states only when the handler returned.
//!
//! The pipeline (`dispatch`) calls [`assess`] after the handlers, with the
//! states the store kept, and sets or clears each gating probe's scope.

pub mod clock;
mod http;
mod pebble;
mod process;
pub mod run;
pub mod state;
pub mod systemd;
mod tcp;

#[cfg(test)]
mod tests;

pub use crate::charm_dir::probes::{Expect, ProbeSpec, Target};
pub use clock::{Clock, ManualClock, SystemClock};
pub use run::{Outcome, ProbeEnv, ProbeTap, Prober};
pub use state::{ProbeState, ScopeStatus};

use crate::bindings::probe::{Gating, Host, ProbeError, ProbeResult};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// The result of one probe run: whether its expectation held, and what was
/// seen, phrased for a status message ("port 127.0.0.1:8774 not listening").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub healthy: bool,
    pub detail: String,
    /// Not healthy, but not failing either: what the probe watches is not
    /// there yet (a container whose Pebble does not answer, a check or
    /// service the plan does not have yet). Its scope waits, without a
    /// grace period, until the thing appears and the probe can judge it.
    pub waiting: bool,
    /// The process a process probe found: the store keeps it, and the next
    /// event looks there first.
    pub pid: Option<u32>,
}

impl Check {
    pub fn healthy(detail: impl Into<String>) -> Self {
        Check {
            healthy: true,
            detail: detail.into(),
            waiting: false,
            pid: None,
        }
    }

    pub fn unhealthy(detail: impl Into<String>) -> Self {
        Check {
            healthy: false,
            detail: detail.into(),
            waiting: false,
            pid: None,
        }
    }

    pub fn waiting(detail: impl Into<String>) -> Self {
        Check {
            healthy: false,
            detail: detail.into(),
            waiting: true,
            pid: None,
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
    /// Up: `detail` says so, `still` is the message when it should be down;
    /// `pid`, the process a process probe found.
    Up {
        detail: String,
        still: String,
        pid: Option<u32>,
    },
    /// Down, and why.
    Down(String),
    /// Could not be told (no systemd, `/proc` unreadable): unhealthy whatever
    /// the expectation.
    Unknown(String),
    /// Not there yet (Pebble not answering, not in the plan): waiting
    /// whatever the expectation.
    Waiting(String),
}

/// The scope a probe's status goes to.
pub fn scope_name(probe: &str) -> String {
    format!("probe/{probe}")
}

/// One gated probe after an event: what it found, the state to keep and the
/// status of its scope (`None`: clear it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessed {
    /// Whether the probe gates readiness (one run for a self-check only
    /// does not, and is not judged).
    pub gating: bool,
    pub outcome: Outcome,
    pub state: ProbeState,
    pub status: Option<ScopeStatus>,
}

/// Whether each declared probe gates readiness now, given the states kept:
/// a handler's choice, or the manifest's `gate`.
pub fn gates(
    specs: &BTreeMap<String, ProbeSpec>,
    states: &BTreeMap<String, ProbeState>,
) -> BTreeMap<String, bool> {
    specs
        .iter()
        .map(|(name, spec)| {
            let gate = states.get(name).map_or(spec.gate, |s| s.gates(spec));
            (name.clone(), gate)
        })
        .collect()
}

/// Run the probes that gate now at once within `budget`, plus `also` (a
/// self-check runs them all), and judge each gating one against the state
/// kept from earlier events (`states`; a probe without one never ran). The
/// time of judgement is the clock's once all have finished. Probes in
/// `also` that do not gate are run, not judged: their `Assessed` keeps the
/// state as it was and has no status.
pub fn assess(
    specs: &BTreeMap<String, ProbeSpec>,
    states: &BTreeMap<String, ProbeState>,
    also: &BTreeSet<String>,
    prober: &Prober,
    budget: Duration,
) -> BTreeMap<String, Assessed> {
    let gating = gates(specs, states);
    let names: Vec<&str> = gating
        .iter()
        .filter(|(name, gate)| **gate || also.contains(*name))
        .map(|(name, _)| name.as_str())
        .collect();
    // Where each process probe found its process last: looked at first.
    let found: BTreeMap<String, u32> = states
        .iter()
        .filter_map(|(name, s)| Some((name.clone(), s.last.as_ref()?.pid?)))
        .collect();
    let outcomes = run::run_all(specs, &names, &found, prober, budget);
    let now = prober.clock.now();
    outcomes
        .into_iter()
        .map(|(name, outcome)| {
            let spec = &specs[&name];
            let prev = states.get(&name).cloned().unwrap_or_default();
            let (state, status) = if gating[&name] {
                prev.evaluate(spec, &outcome.check, now)
            } else {
                (prev, None)
            };
            let assessed = Assessed {
                gating: gating[&name],
                outcome,
                state,
                status,
            };
            (name, assessed)
        })
        .collect()
}

/// What one handler chose through the `probe` interface, kept apart until
/// it returns (a handler that fails changes nothing). Bounded by the
/// declared probes: a later choice for the same probe replaces an earlier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choices {
    /// Whether a probe gates, by name.
    pub gates: BTreeMap<String, bool>,
    /// Probes whose grace period starts again.
    pub restarts: BTreeSet<String>,
}

impl Choices {
    pub fn is_empty(&self) -> bool {
        self.gates.is_empty() && self.restarts.is_empty()
    }

    /// Apply to the kept `states` at `now`: gating first, so a probe that
    /// starts gating and is restarted has its grace period from `now`
    /// either way.
    pub fn apply(
        self,
        specs: &BTreeMap<String, ProbeSpec>,
        states: &mut BTreeMap<String, ProbeState>,
        now: SystemTime,
    ) {
        for (name, gate) in self.gates {
            if let Some(spec) = specs.get(&name) {
                states.entry(name).or_default().set_gate(gate, spec, now);
            }
        }
        for name in self.restarts {
            if specs.contains_key(&name) {
                restart_grace(states, &name, now);
            }
        }
    }
}

/// Start probe `name`'s grace period again at `now` (the charm restarted
/// what it watches: a workload call, DESIGN §12, or the probe interface).
pub fn restart_grace(states: &mut BTreeMap<String, ProbeState>, name: &str, now: SystemTime) {
    states
        .entry(name.to_string())
        .or_default()
        .restart_grace(now);
}

/// How long a guest's probe run may take when no handler deadline was set
/// (the pipeline always sets one).
const RUN_WITHOUT_DEADLINE: Duration = Duration::from_secs(30);

/// The `probe` WIT interface for one handler: the declared probes, how they
/// run, the gating the store holds, and the handler's choices so far.
#[derive(Debug)]
pub struct Probes {
    specs: Arc<BTreeMap<String, ProbeSpec>>,
    prober: Prober,
    deadline: Option<Instant>,
    /// Gating as kept when the handler started.
    kept: BTreeMap<String, bool>,
    choices: Choices,
    /// Warnings for the unit's log (an undeclared name), logged by the
    /// pipeline when the handler ends.
    warnings: Vec<String>,
}

impl Probes {
    pub fn new(specs: Arc<BTreeMap<String, ProbeSpec>>, prober: Prober) -> Self {
        Probes {
            specs,
            prober,
            deadline: None,
            kept: BTreeMap::new(),
            choices: Choices::default(),
            warnings: Vec::new(),
        }
    }

    /// Probe runs end by the handler's deadline.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    /// The declared probes.
    pub fn specs(&self) -> &BTreeMap<String, ProbeSpec> {
        &self.specs
    }

    /// Now, by the prober's clock.
    pub fn now(&self) -> SystemTime {
        self.prober.clock.now()
    }

    /// A handler starts, with the gating the store holds.
    pub fn begin(&mut self, kept: BTreeMap<String, bool>) {
        self.kept = kept;
        self.choices = Choices::default();
        self.warnings.clear();
    }

    /// The handler ended: its choices (to apply only if it returned) and
    /// the warnings to log either way.
    pub fn take(&mut self) -> (Choices, Vec<String>) {
        (
            std::mem::take(&mut self.choices),
            std::mem::take(&mut self.warnings),
        )
    }

    /// The declaration of `name`, or the error a guest gets (and a warning
    /// for the log: a charm naming a probe its manifest lacks is a bug).
    fn declared(&mut self, name: &str, call: &str) -> Result<ProbeSpec, ProbeError> {
        if let Some(spec) = self.specs.get(name) {
            return Ok(spec.clone());
        }
        let why = format!(
            "no probe named {name:?} is declared in wasm-charm.yaml (probes: {})",
            if self.specs.is_empty() {
                "none".to_string()
            } else {
                self.specs.keys().cloned().collect::<Vec<_>>().join(", ")
            }
        );
        self.warnings.push(format!("probe.{call}: {why}"));
        Err(ProbeError::Undeclared(why))
    }
}

impl Host for Probes {
    fn run(&mut self, name: String) -> Result<ProbeResult, ProbeError> {
        let spec = self.declared(&name, "run")?;
        let budget = self
            .deadline
            .unwrap_or_else(|| Instant::now() + RUN_WITHOUT_DEADLINE);
        Ok(self.prober.run(&name, &spec, budget).check.into())
    }

    fn gates(&mut self) -> Vec<Gating> {
        self.specs
            .iter()
            .map(|(name, spec)| {
                let kept = self.kept.get(name).copied().unwrap_or(spec.gate);
                let gate = self.choices.gates.get(name).copied().unwrap_or(kept);
                Gating {
                    name: name.clone(),
                    gate,
                }
            })
            .collect()
    }

    fn set_gate(&mut self, name: String, gate: bool) -> Result<(), ProbeError> {
        self.declared(&name, "set-gate")?;
        self.choices.gates.insert(name, gate);
        Ok(())
    }

    fn restart_grace(&mut self, name: String) -> Result<(), ProbeError> {
        self.declared(&name, "restart-grace")?;
        self.choices.restarts.insert(name);
        Ok(())
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
