//! Running probes: one attempt of a kind, retries with back-off, and all the
//! gated probes of an event at once under one time budget.

use super::clock::Clock;
use super::spec::{Expect, ProbeSpec, Target, show_duration};
use super::{Check, Seen, http, process, systemd, tcp};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// What the probe kinds reach on the machine: passed in, never read from
/// globals, so a test can point them at stand-ins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeEnv {
    /// The `systemctl` to run; a bare name is looked up on `PATH`.
    pub systemctl: PathBuf,
    /// The proc file system the process probe scans.
    pub proc: PathBuf,
}

impl Default for ProbeEnv {
    fn default() -> Self {
        ProbeEnv {
            systemctl: PathBuf::from("systemctl"),
            proc: PathBuf::from("/proc"),
        }
    }
}

/// One probe's result at an event: its last attempt, and how many were made
/// (0: it never finished one within the budget).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub check: Check,
    pub attempts: u32,
}

/// One attempt of `spec`, finished by `deadline` (the earlier of its own
/// timeout and whatever budget the caller has).
pub fn attempt(spec: &ProbeSpec, env: &ProbeEnv, deadline: Instant) -> Check {
    let seen = match &spec.target {
        Target::Systemd { unit } => systemd::check(&env.systemctl, unit, deadline),
        Target::Process { name } => process::check(&env.proc, name, deadline),
        Target::Tcp(addr) => tcp::check(addr, deadline),
        Target::Http(target) => http::check(target, deadline),
    };
    seen.against(spec.expect)
}

impl Seen {
    /// The check this observation makes for `expect`. A state that could
    /// not be told is unhealthy either way.
    pub(crate) fn against(self, expect: Expect) -> Check {
        match (self, expect) {
            (Seen::Up { detail, .. }, Expect::Up) => Check::healthy(detail),
            (Seen::Up { still, .. }, Expect::Down) => Check::unhealthy(still),
            (Seen::Down(d), Expect::Down) => Check::healthy(d),
            (Seen::Down(d), Expect::Up) | (Seen::Unknown(d), _) => Check::unhealthy(d),
        }
    }
}

/// Up to `1 + spec.retries` attempts until one is healthy, waiting
/// `backoff`, `2 × backoff`, `4 × backoff`… on `clock` between them. Each
/// attempt gets `spec.timeout`, cut to `budget`; a retry whose wait would
/// reach past `budget` is not made.
pub fn with_retries(
    spec: &ProbeSpec,
    clock: &dyn Clock,
    budget: Instant,
    mut attempt: impl FnMut(Instant) -> Check,
) -> Outcome {
    let mut wait = spec.backoff;
    let mut attempts = 0;
    loop {
        let deadline = Instant::now()
            .checked_add(spec.timeout)
            .map_or(budget, |d| d.min(budget));
        let check = attempt(deadline);
        attempts += 1;
        if check.healthy
            || attempts > spec.retries
            || Instant::now()
                .checked_add(wait)
                .is_none_or(|resume| resume >= budget)
        {
            return Outcome { check, attempts };
        }
        clock.sleep(wait);
        wait = wait.saturating_mul(2);
    }
}

/// Run every gated probe of `specs` at once, one thread each, for at most
/// `budget`. A probe still running then is unhealthy with a message saying
/// so (its thread is left to end at its own deadline; its answer is
/// dropped).
pub fn run_gated(
    specs: &BTreeMap<String, ProbeSpec>,
    env: &ProbeEnv,
    clock: Arc<dyn Clock>,
    budget: Duration,
) -> BTreeMap<String, Outcome> {
    let end = Instant::now() + budget;
    let (tx, rx) = mpsc::channel();
    let mut outcomes = BTreeMap::new();
    let mut running = 0;
    for (probe, spec) in specs.iter().filter(|(_, s)| s.gate) {
        let (tx, name, spec, env, clock) = (
            tx.clone(),
            probe.clone(),
            spec.clone(),
            env.clone(),
            clock.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name(format!("probe-{name}"))
            .spawn(move || {
                let outcome = with_retries(&spec, clock.as_ref(), end, |deadline| {
                    attempt(&spec, &env, deadline)
                });
                // The receiver is gone only once the budget is spent.
                let _ = tx.send((name, outcome));
            });
        match spawned {
            Ok(_) => running += 1,
            Err(e) => {
                outcomes.insert(
                    probe.clone(),
                    Outcome {
                        check: Check::unhealthy(format!(
                            "{}: cannot start the probe: {e}",
                            specs[probe].target
                        )),
                        attempts: 0,
                    },
                );
            }
        }
    }
    drop(tx);
    while running > 0 {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((name, outcome)) => {
                outcomes.insert(name, outcome);
                running -= 1;
            }
            Err(_) => break,
        }
    }
    for (name, spec) in specs.iter().filter(|(_, s)| s.gate) {
        outcomes.entry(name.clone()).or_insert_with(|| Outcome {
            check: Check::unhealthy(format!(
                "{}: no answer within the event's probe budget of {}",
                spec.target,
                show_duration(budget)
            )),
            attempts: 0,
        });
    }
    outcomes
}
