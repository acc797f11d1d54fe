//! The grace machine of one gated probe (DESIGN §5), pure: no I/O, no clock
//! of its own. Given the declaration, what the store kept from earlier
//! events, this event's check and the time, it gives the state to keep and
//! the status of the probe's scope `probe/<name>`.
//!
//! * A healthy check clears the scope (`None`) and ends any failure.
//! * The grace period starts at the first failing event after a pass, or
//!   after the probe never ran; [`ProbeState::restart_grace`] starts it
//!   again (the charm restarted what the probe watches).
//! * Within the grace period a failing probe is maintenance, after it
//!   blocked; `grace: 0s` is blocked at once. The message is the check's
//!   detail, which names what is wrong and where.
//! * A waiting check (what it watches is not there yet) is `waiting`, with
//!   no grace period started: the period starts at its first real failure.
//! * Time read backwards (a clock set back) counts as no time passed.
//! * Whether a probe gates is the manifest's `gate` until a handler chooses
//!   ([`ProbeState::set_gate`]); a probe that starts gating starts its grace
//!   period.

use super::Check;
use crate::charm_dir::probes::ProbeSpec;
use crate::status_kind::Kind;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch: how the state keeps a time.
pub type Millis = u64;

/// `t` in [`Millis`]; a time before 1970 is 0.
pub fn millis(t: SystemTime) -> Millis {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What one probe keeps between events (the status store persists it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeState {
    /// The last check, `None` before the probe first ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<LastCheck>,
    /// When the current run of failing events began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_since: Option<Millis>,
    /// Where the grace period runs from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_start: Option<Millis>,
    /// A handler's choice of whether the probe gates; `None`: the
    /// manifest's `gate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<bool>,
}

/// One check as kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastCheck {
    pub healthy: bool,
    pub detail: String,
    /// When it was made (the last attempt). A check that finds what the
    /// kept one found is not saved on its own (no store write for a healthy
    /// update-status), so this is the last check that changed the store.
    pub at: Millis,
    /// Since when the probe has been healthy, or unhealthy, without a
    /// break.
    #[serde(default)]
    pub since: Millis,
    /// The process a process probe found (its pid also in `detail`), where
    /// the next event looks first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// The status a failing probe gives its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeStatus {
    /// `Maintenance` within the grace period, `Blocked` after it;
    /// `Waiting` while what the probe watches is not there yet.
    pub kind: Kind,
    pub message: String,
}

impl ProbeState {
    /// The next state and the scope's status (`None`: healthy, clear the
    /// scope) after `check` at `now`.
    pub fn evaluate(
        &self,
        spec: &ProbeSpec,
        check: &Check,
        now: SystemTime,
    ) -> (ProbeState, Option<ScopeStatus>) {
        let now = millis(now);
        let since = match &self.last {
            Some(l) if l.healthy == check.healthy => l.since.min(now),
            _ => now,
        };
        let last = Some(LastCheck {
            healthy: check.healthy,
            detail: check.detail.clone(),
            at: now,
            since,
            pid: check.pid,
        });
        if check.healthy {
            let next = ProbeState {
                last,
                failing_since: None,
                grace_start: None,
                gate: self.gate,
            };
            return (next, None);
        }
        if check.waiting {
            let next = ProbeState {
                last,
                failing_since: None,
                grace_start: None,
                gate: self.gate,
            };
            let status = ScopeStatus {
                kind: Kind::Waiting,
                message: check.detail.clone(),
            };
            return (next, Some(status));
        }
        let was_failing = self.last.as_ref().is_some_and(|l| !l.healthy);
        let (failing_since, grace_start) = if was_failing {
            // A restart noted during this failure moved `grace_start` on.
            // A kept time after `now` is the wall clock having jumped back:
            // the grace period starts again now, rather than lasting the
            // jump's length on top of itself.
            (
                self.failing_since.unwrap_or(now).min(now),
                self.grace_start.unwrap_or(now).min(now),
            )
        } else {
            (now, now)
        };
        let elapsed = Duration::from_millis(now.saturating_sub(grace_start));
        let kind = if spec.grace.is_zero() || elapsed >= spec.grace {
            Kind::Blocked
        } else {
            Kind::Maintenance
        };
        let next = ProbeState {
            last,
            failing_since: Some(failing_since),
            grace_start: Some(grace_start),
            gate: self.gate,
        };
        let status = ScopeStatus {
            kind,
            message: check.detail.clone(),
        };
        (next, Some(status))
    }

    /// Start the grace period again at `now`: the charm restarted what the
    /// probe watches, so a failure from now on is maintenance for `grace`.
    pub fn restart_grace(&mut self, now: SystemTime) {
        self.grace_start = Some(millis(now));
    }

    /// Whether the probe gates readiness now.
    pub fn gates(&self, spec: &ProbeSpec) -> bool {
        self.gate.unwrap_or(spec.gate)
    }

    /// A handler chose whether the probe gates, at `now`. A probe that
    /// starts gating starts its grace period: what it watches may only now
    /// be expected to be up (or, for `expect: down`, down).
    pub fn set_gate(&mut self, gate: bool, spec: &ProbeSpec, now: SystemTime) {
        if gate && !self.gates(spec) {
            self.failing_since = None;
            self.grace_start = Some(millis(now));
        }
        self.gate = Some(gate);
    }
}
