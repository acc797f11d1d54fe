//! The grace machine, on times given to it: no sleeping.

use crate::charm_dir::probes::{HostPort, ProbeSpec, Target};
use crate::probe::Check;
use crate::probe::state::{ProbeState, ScopeStatus, millis};
use crate::status_kind::Kind;
use proptest::prelude::*;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn spec(grace: Duration) -> ProbeSpec {
    let mut s = ProbeSpec::new(Target::Tcp(HostPort {
        host: "127.0.0.1".into(),
        port: 8774,
    }));
    s.grace = grace;
    s
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

const DOWN: &str = "port 127.0.0.1:8774 not listening";

fn kind(status: &Option<ScopeStatus>) -> Option<Kind> {
    status.as_ref().map(|s| s.kind)
}

#[test]
fn grace_from_the_first_failure_then_blocked_and_healed() {
    let spec = spec(Duration::from_secs(60));
    let fail = Check::unhealthy(DOWN);
    // Never ran: the first failure starts the grace period.
    let (s, st) = ProbeState::default().evaluate(&spec, &fail, at(0));
    assert_eq!(
        st,
        Some(ScopeStatus {
            kind: Kind::Maintenance,
            message: DOWN.into()
        })
    );
    let (s, st) = s.evaluate(&spec, &fail, at(59));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    let (s, st) = s.evaluate(&spec, &fail, at(60));
    assert_eq!(kind(&st), Some(Kind::Blocked));
    assert_eq!(st.unwrap().message, DOWN);
    assert_eq!(s.failing_since, Some(millis(at(0))));
    // Recovered: the scope is cleared, the failure forgotten.
    let (s, st) = s.evaluate(&spec, &Check::healthy("port up"), at(61));
    assert_eq!(st, None);
    assert_eq!((s.failing_since, s.grace_start), (None, None));
    // Failing after passing: a new grace period.
    let (s, st) = s.evaluate(&spec, &fail, at(100));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    let (_, st) = s.evaluate(&spec, &fail, at(161));
    assert_eq!(kind(&st), Some(Kind::Blocked));
}

#[test]
fn a_clock_jumping_back_restarts_the_grace_instead_of_stretching_it() {
    let spec = spec(Duration::from_secs(60));
    let fail = Check::unhealthy(DOWN);
    let (s, _) = ProbeState::default().evaluate(&spec, &fail, at(86_400));
    // The clock jumps a day back: still within a grace period, which starts
    // again at the jump and ends 60 s after it, not a day later.
    let (s, st) = s.evaluate(&spec, &fail, at(10));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    assert_eq!(s.grace_start, Some(millis(at(10))));
    assert_eq!(s.failing_since, Some(millis(at(10))));
    let (_, st) = s.evaluate(&spec, &fail, at(70));
    assert_eq!(kind(&st), Some(Kind::Blocked));
}

#[test]
fn waiting_runs_no_grace_and_the_first_real_failure_starts_it() {
    let spec = spec(Duration::from_secs(60));
    let waiting = Check::waiting("waiting for Pebble in web");
    let (s, st) = ProbeState::default().evaluate(&spec, &waiting, at(0));
    assert_eq!(
        st,
        Some(ScopeStatus {
            kind: Kind::Waiting,
            message: "waiting for Pebble in web".into()
        })
    );
    // However long it waits, it never turns blocked.
    let (s, st) = s.evaluate(&spec, &waiting, at(3600));
    assert_eq!(kind(&st), Some(Kind::Waiting));
    assert_eq!((s.failing_since, s.grace_start), (None, None));
    // There, then failing: the grace period starts now.
    let (s, st) = s.evaluate(&spec, &Check::unhealthy(DOWN), at(4000));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    let (s, st) = s.evaluate(&spec, &Check::unhealthy(DOWN), at(4059));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    let (_, st) = s.evaluate(&spec, &Check::unhealthy(DOWN), at(4060));
    assert_eq!(kind(&st), Some(Kind::Blocked));
}

#[test]
fn no_grace_is_blocked_at_once() {
    let (_, st) =
        ProbeState::default().evaluate(&spec(Duration::ZERO), &Check::unhealthy(DOWN), at(0));
    assert_eq!(kind(&st), Some(Kind::Blocked));
}

#[test]
fn a_restart_starts_the_grace_again() {
    let spec = spec(Duration::from_secs(60));
    let fail = Check::unhealthy(DOWN);
    let (s, _) = ProbeState::default().evaluate(&spec, &fail, at(0));
    let (mut s, st) = s.evaluate(&spec, &fail, at(70));
    assert_eq!(kind(&st), Some(Kind::Blocked));
    s.restart_grace(at(80));
    let (s, st) = s.evaluate(&spec, &fail, at(80));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    let (s, st) = s.evaluate(&spec, &fail, at(139));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
    assert_eq!(
        s.failing_since,
        Some(millis(at(0))),
        "still the same failure"
    );
    let (_, st) = s.evaluate(&spec, &fail, at(140));
    assert_eq!(kind(&st), Some(Kind::Blocked));
}

#[test]
fn a_clock_set_back_counts_as_no_time() {
    let spec = spec(Duration::from_secs(60));
    let fail = Check::unhealthy(DOWN);
    let (s, _) = ProbeState::default().evaluate(&spec, &fail, at(1000));
    let (_, st) = s.evaluate(&spec, &fail, at(0));
    assert_eq!(kind(&st), Some(Kind::Maintenance));
}

#[test]
fn the_state_round_trips_through_json() {
    let (s, _) = ProbeState::default().evaluate(
        &spec(Duration::from_secs(1)),
        &Check::unhealthy(DOWN),
        at(5),
    );
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<ProbeState>(&json).unwrap(), s);
    assert_eq!(
        serde_json::from_str::<ProbeState>("{}").unwrap(),
        ProbeState::default()
    );
}

proptest! {
    /// Against a model: an event's status is None when healthy, else
    /// maintenance while less than `grace` has passed since the first failure
    /// of the current run of failures (or the last restart within it), else
    /// blocked.
    #[test]
    fn grace_follows_the_model(
        grace_s in 0u64..120,
        events in proptest::collection::vec((0u64..50, any::<bool>(), any::<bool>()), 1..40),
    ) {
        let spec = spec(Duration::from_secs(grace_s));
        let mut state = ProbeState::default();
        let mut t = 0;
        let mut run_start: Option<u64> = None;
        for (dt, healthy, restart) in events {
            t += dt;
            if restart {
                state.restart_grace(at(t));
            }
            let check = if healthy { Check::healthy("up") } else { Check::unhealthy(DOWN) };
            let (next, status) = state.evaluate(&spec, &check, at(t));
            if healthy {
                prop_assert_eq!(status, None);
                run_start = None;
            } else {
                let start = match run_start {
                    Some(s) if restart => t.max(s),
                    Some(s) => s,
                    None => t,
                };
                run_start = Some(start);
                let expected = if grace_s == 0 || t - start >= grace_s { Kind::Blocked } else { Kind::Maintenance };
                let status = status.unwrap();
                prop_assert_eq!(status.kind, expected);
                prop_assert_eq!(status.message, DOWN);
            }
            prop_assert_eq!(next.last.as_ref().map(|l| (l.healthy, l.at)), Some((healthy, millis(at(t)))));
            state = next;
        }
    }
}
