//! Running probes: one attempt of a kind, retries with back-off, and all the
//! gated probes of an event at once under one time budget.

use super::clock::Clock;
use super::process::SharedScan;
use super::{Check, Seen, http, pebble, systemd, tcp};
use crate::charm_dir::probes::{Expect, ProbeSpec, Target};
use crate::duration::show_duration;
use crate::workload_root::WorkloadRoot;
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
    /// Where Pebble sockets are looked up (`/`, or `WASM_CHARM_ROOT`).
    pub root: WorkloadRoot,
}

impl Default for ProbeEnv {
    fn default() -> Self {
        ProbeEnv {
            systemctl: PathBuf::from("systemctl"),
            proc: PathBuf::from("/proc"),
            root: WorkloadRoot::machine(),
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
    attempt_sharing(spec, env, &SharedScan::default(), deadline)
}

/// [`attempt`], a process probe reading `scan`, which the process probes
/// run at the same time share.
fn attempt_sharing(
    spec: &ProbeSpec,
    env: &ProbeEnv,
    scan: &SharedScan,
    deadline: Instant,
) -> Check {
    let seen = match &spec.target {
        Target::Systemd { unit } => systemd::check(&env.systemctl, unit, deadline),
        Target::Process { name } => scan.find(&env.proc, name, deadline),
        Target::Tcp(addr) => tcp::check(addr, deadline),
        Target::Http(target) => http::check(target, deadline),
        Target::PebbleService { container, service } => {
            pebble::service(&env.root, container, service, deadline)
        }
        Target::PebbleCheck { container, check } => {
            pebble::check(&env.root, container, check, deadline)
        }
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
            (Seen::Waiting(d), _) => Check::waiting(d),
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
        // Waiting is no failure to retry: what is missing appears between
        // events, not within the backoff.
        if check.healthy
            || check.waiting
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

/// How probes are run in this process: what the kinds reach, the time
/// source, and outcomes given in place of running (offline scenarios, from
/// the state file).
#[derive(Clone)]
pub struct Prober {
    pub env: ProbeEnv,
    pub clock: Arc<dyn Clock>,
    /// Outcomes by probe name, used instead of running those probes.
    pub scripted: BTreeMap<String, Check>,
    /// Sees every run, or answers in its place (`crate::record`, `crate::replay`).
    pub tap: Option<Arc<dyn ProbeTap>>,
}

/// What sees each probe run of an event, or answers it from elsewhere.
pub trait ProbeTap: Send + Sync {
    /// The outcome to give instead of running probe `name`; `None`: run it.
    fn answer(&self, _name: &str) -> Option<Outcome> {
        None
    }
    /// Probe `name` ran, with `outcome` (not called for one `answer` gave).
    fn seen(&self, _name: &str, _outcome: &Outcome) {}
}

impl Default for Prober {
    /// The machine itself: `systemctl` on `PATH`, `/proc`, the system clock.
    fn default() -> Self {
        Prober {
            env: ProbeEnv::default(),
            clock: Arc::new(super::SystemClock),
            scripted: BTreeMap::new(),
            tap: None,
        }
    }
}

impl std::fmt::Debug for Prober {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prober")
            .field("env", &self.env)
            .field("scripted", &self.scripted)
            .finish_non_exhaustive()
    }
}

impl Prober {
    /// Run probe `name` (declared as `spec`) with its retries, finishing by
    /// `budget`; a scripted outcome is answered at once.
    pub fn run(&self, name: &str, spec: &ProbeSpec, budget: Instant) -> Outcome {
        self.run_sharing(name, spec, budget, &SharedScan::default())
    }

    /// [`Prober::run`], its first attempt reading `scan` if it is a process
    /// probe; a retry, later, reads `/proc` afresh.
    fn run_sharing(
        &self,
        name: &str,
        spec: &ProbeSpec,
        budget: Instant,
        scan: &SharedScan,
    ) -> Outcome {
        let Some(tap) = &self.tap else {
            return self.run_untapped(name, spec, budget, scan);
        };
        if let Some(outcome) = tap.answer(name) {
            return outcome;
        }
        let outcome = self.run_untapped(name, spec, budget, scan);
        tap.seen(name, &outcome);
        outcome
    }

    fn run_untapped(
        &self,
        name: &str,
        spec: &ProbeSpec,
        budget: Instant,
        scan: &SharedScan,
    ) -> Outcome {
        if let Some(check) = self.scripted.get(name) {
            return Outcome {
                check: check.clone(),
                attempts: 1,
            };
        }
        let mut shared = Some(scan);
        with_retries(spec, self.clock.as_ref(), budget, |deadline| {
            match shared.take() {
                Some(scan) => attempt_sharing(spec, &self.env, scan, deadline),
                None => attempt(spec, &self.env, deadline),
            }
        })
    }
}

/// Run the probes `names` of `specs` at once, one thread each, for at most
/// `budget`. A probe still running then is unhealthy with a message saying
/// so (its thread is left to end at its own deadline; its answer is
/// dropped).
pub fn run_all(
    specs: &BTreeMap<String, ProbeSpec>,
    names: &[&str],
    prober: &Prober,
    budget: Duration,
) -> BTreeMap<String, Outcome> {
    let end = Instant::now() + budget;
    let (tx, rx) = mpsc::channel();
    let mut outcomes = BTreeMap::new();
    let mut running = 0;
    let chosen = || names.iter().filter_map(|n| Some((*n, specs.get(*n)?)));
    // One scan of the process table for all the process probes.
    let scan = Arc::new(SharedScan::default());
    for (probe, spec) in chosen() {
        let (tx, name, owned, prober, scan) = (
            tx.clone(),
            probe.to_string(),
            spec.clone(),
            prober.clone(),
            scan.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name(format!("probe-{name}"))
            .spawn(move || {
                let outcome = prober.run_sharing(&name, &owned, end, &scan);
                // The receiver is gone only once the budget is spent.
                let _ = tx.send((name, outcome));
            });
        match spawned {
            Ok(_) => running += 1,
            Err(e) => {
                outcomes.insert(
                    probe.to_string(),
                    Outcome {
                        check: Check::unhealthy(format!(
                            "{}: cannot start the probe: {e}",
                            spec.target
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
                running -= 1;
                // A failure seen once the budget is spent is an attempt the
                // budget cut short: it is reported as such below, whichever
                // thread noticed the end first.
                let late = Instant::now() >= end;
                if !late || outcome.check.healthy || outcome.check.waiting {
                    outcomes.insert(name, outcome);
                }
            }
            Err(_) => break,
        }
    }
    for (name, spec) in chosen() {
        outcomes.entry(name.to_string()).or_insert_with(|| Outcome {
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
