//! Running probes: one attempt of a kind, retries with back-off, and all the
//! gated probes of an event at once under one time budget.
//!
//! The local probes of an event make their first attempts on the event's
//! own thread, which would otherwise only wait: the TCP and HTTP probes all
//! at once on one tokio runtime and, while their connections are under
//! way, the process probes one after another on one scan of `/proc`. No
//! thread is started for them: in a process that lives a few milliseconds
//! a thread costs more than a local probe (its stack mapped and unmapped,
//! and each unmap interrupting the other CPUs the process ran on). Each
//! `systemd` and Pebble probe runs on a thread of its own (they wait on a
//! child or a socket). A probe whose first attempt calls for a retry goes
//! on on a thread of its own, so that its back-off holds up no other.

use super::clock::Clock;
use super::process::SharedScan;
use super::systemd::Systemctl;
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
    /// The `systemctl` a systemd probe asks.
    pub systemctl: Systemctl,
    /// The proc file system the process probe scans.
    pub proc: PathBuf,
    /// Where Pebble sockets are looked up (`/`, or `WASM_CHARM_ROOT`).
    pub root: WorkloadRoot,
}

impl Default for ProbeEnv {
    fn default() -> Self {
        ProbeEnv {
            systemctl: Systemctl::Program(PathBuf::from("systemctl")),
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
    attempt_sharing(spec, env, &SharedScan::default(), None, deadline)
}

/// [`attempt`], a process probe reading `scan`, which the process probes
/// run at the same time share, and looking at pid `hint` first.
fn attempt_sharing(
    spec: &ProbeSpec,
    env: &ProbeEnv,
    scan: &SharedScan,
    hint: Option<u32>,
    deadline: Instant,
) -> Check {
    let seen = match &spec.target {
        Target::Systemd { unit } => systemd::check(&env.systemctl, unit, deadline),
        Target::Process { name } => scan.find(&env.proc, name, hint, deadline),
        Target::Tcp(_) | Target::Http(_) => match crate::http::client_runtime() {
            Ok(runtime) => runtime.block_on(network_attempt(spec, deadline)),
            Err(e) => Seen::Unknown(format!(
                "{}: cannot start the network client: {e}",
                spec.target
            )),
        },
        Target::PebbleService { container, service } => {
            pebble::service(&env.root, container, service, deadline)
        }
        Target::PebbleCheck { container, check } => {
            pebble::check(&env.root, container, check, deadline)
        }
    };
    seen.against(spec.expect)
}

/// One attempt of a TCP or HTTP probe, on the caller's runtime.
async fn network_attempt(spec: &ProbeSpec, deadline: Instant) -> Seen {
    match &spec.target {
        Target::Tcp(addr) => tcp::attempt(addr, deadline).await,
        Target::Http(target) => http::attempt(target, deadline).await,
        other => Seen::Unknown(format!("{other}: not a network probe")),
    }
}

/// When an attempt made now must end: its own timeout, cut to `budget`.
fn attempt_deadline(spec: &ProbeSpec, budget: Instant) -> Instant {
    Instant::now()
        .checked_add(spec.timeout)
        .map_or(budget, |d| d.min(budget))
}

impl Seen {
    /// The check this observation makes for `expect`. A state that could
    /// not be told is unhealthy either way.
    pub(crate) fn against(self, expect: Expect) -> Check {
        match (self, expect) {
            (Seen::Up { detail, pid, .. }, Expect::Up) => Check {
                pid,
                ..Check::healthy(detail)
            },
            (Seen::Up { still, pid, .. }, Expect::Down) => Check {
                pid,
                ..Check::unhealthy(still)
            },
            (Seen::Down(d), Expect::Down) => Check::healthy(d),
            (Seen::Down(d), Expect::Up) | (Seen::Unknown(d), _) => Check::unhealthy(d),
            (Seen::Waiting(d), _) => Check::waiting(d),
        }
    }
}

/// Whether the probe's run ends with `check`, its `attempts`th attempt:
/// healthy, waiting (what is missing appears between events, not within
/// the back-off), out of retries, or no time left for the next `wait`.
fn settled(
    spec: &ProbeSpec,
    check: &Check,
    attempts: u32,
    wait: Duration,
    budget: Instant,
) -> bool {
    check.healthy
        || check.waiting
        || attempts > spec.retries
        || Instant::now()
            .checked_add(wait)
            .is_none_or(|resume| resume >= budget)
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
        let check = attempt(attempt_deadline(spec, budget));
        attempts += 1;
        if settled(spec, &check, attempts, wait, budget) {
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
        if let Some(outcome) = self.given(name) {
            return outcome;
        }
        self.retried(name, spec, budget, None)
    }

    /// Probe `name`'s attempts with their retries, `first` the attempt
    /// already made if any; the tap sees the outcome.
    fn retried(
        &self,
        name: &str,
        spec: &ProbeSpec,
        budget: Instant,
        first: Option<Check>,
    ) -> Outcome {
        let mut first = first;
        let outcome = with_retries(spec, self.clock.as_ref(), budget, |deadline| {
            first
                .take()
                .unwrap_or_else(|| attempt(spec, &self.env, deadline))
        });
        self.seen(name, &outcome);
        outcome
    }

    /// The outcome of `name` when it is not to be run: answered by the tap
    /// (a replay), or scripted (offline), which the tap sees.
    fn given(&self, name: &str) -> Option<Outcome> {
        if let Some(outcome) = self.tap.as_ref().and_then(|tap| tap.answer(name)) {
            return Some(outcome);
        }
        let outcome = Outcome {
            check: self.scripted.get(name)?.clone(),
            attempts: 1,
        };
        self.seen(name, &outcome);
        Some(outcome)
    }

    fn seen(&self, name: &str, outcome: &Outcome) {
        if let Some(tap) = &self.tap {
            tap.seen(name, outcome);
        }
    }

    /// Probe `name` made its first attempt, `first`: its outcome sent on
    /// `tx` now if that settles it, else from a thread of its own that goes
    /// on with the retries (reading `/proc` afresh), so that its back-off
    /// holds up no other probe of its lane.
    fn go_on(&self, name: String, spec: ProbeSpec, first: Check, end: Instant, tx: &Sender) {
        if settled(&spec, &first, 1, spec.backoff, end) {
            let outcome = Outcome {
                check: first,
                attempts: 1,
            };
            self.seen(&name, &outcome);
            // The receiver is gone only once the budget is spent.
            let _ = tx.send((name, outcome, Instant::now()));
            return;
        }
        let prober = self.clone();
        spawn_probe(name, &spec.target.to_string(), tx, move |name| {
            prober.retried(name, &spec, end, Some(first))
        });
    }
}

/// Where each probe's outcome goes, with when it was known: a lane that
/// runs on the receiving thread is read only once it has finished.
type Sender = mpsc::Sender<(String, Outcome, Instant)>;

/// Run `work` on a thread named after probe `name` (declared as `target`),
/// its outcome sent on `tx`; a thread that cannot start is an unhealthy
/// outcome, sent at once.
fn spawn_probe(
    name: String,
    target: &str,
    tx: &Sender,
    work: impl FnOnce(&str) -> Outcome + Send + 'static,
) {
    let sender = tx.clone();
    let thread_name = format!("probe-{name}");
    let moved = name.clone();
    let spawned = std::thread::Builder::new()
        .name(thread_name)
        .spawn(move || {
            let outcome = work(&moved);
            let _ = sender.send((moved, outcome, Instant::now()));
        });
    if let Err(e) = spawned {
        let outcome = Outcome {
            check: Check::unhealthy(format!("{target}: cannot start the probe: {e}")),
            attempts: 0,
        };
        let _ = tx.send((name, outcome, Instant::now()));
    }
}

/// The probes of one lane (the network probes, or the process probes): a
/// name, its declaration and the pid where a process probe found its
/// process at the last event, each.
type Lane = Vec<(String, ProbeSpec, Option<u32>)>;

/// The first attempts of the TCP and HTTP probes `network`, all at once on
/// one runtime, and of the process probes `process`, read while those
/// connections are under way; each goes on (see [`Prober::go_on`]) as soon
/// as it has an answer.
fn local_probes(prober: &Prober, network: Lane, process: Lane, end: Instant, tx: &Sender) {
    if network.is_empty() {
        process_lane(prober, process, end, tx);
        return;
    }
    let runtime = match crate::http::client_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            for (name, spec, _) in network {
                let first = Check::unhealthy(format!(
                    "{}: cannot start the network client: {e}",
                    spec.target
                ));
                prober.go_on(name, spec, first, end, tx);
            }
            process_lane(prober, process, end, tx);
            return;
        }
    };
    runtime.block_on(async {
        let mut attempts = tokio::task::JoinSet::new();
        for (name, spec, _) in network {
            attempts.spawn(async move {
                let deadline = attempt_deadline(&spec, end);
                let check = network_attempt(&spec, deadline).await.against(spec.expect);
                (name, spec, check)
            });
        }
        if !process.is_empty() {
            // The tasks start their connections at the first yield; a
            // connection's answer waits in the kernel while `/proc` is read.
            tokio::task::yield_now().await;
            process_lane(prober, process, end, tx);
        }
        while let Some(answer) = attempts.join_next().await {
            // A task ends only by returning: the runtime is ours alone and
            // nothing aborts it.
            if let Ok((name, spec, first)) = answer {
                prober.go_on(name, spec, first, end, tx);
            }
        }
    });
}

/// The first attempts of the process probes `lane`, one after another on
/// one scan of `/proc`, which costs about what one probe costs (or none,
/// when each finds its process where the last event did).
fn process_lane(prober: &Prober, lane: Lane, end: Instant, tx: &Sender) {
    let scan = SharedScan::default();
    for (name, spec, hint) in lane {
        let deadline = attempt_deadline(&spec, end);
        let first = attempt_sharing(&spec, &prober.env, &scan, hint, deadline);
        prober.go_on(name, spec, first, end, tx);
    }
}

/// Run the probes `names` of `specs` at once (as the module describes) for
/// at most `budget`, a process probe looking first at the pid `found`
/// holds for it (where the last event found its process). A
/// probe still running then is unhealthy with a message saying so (its
/// thread is left to end at its own deadline; its answer is dropped).
pub fn run_all(
    specs: &BTreeMap<String, ProbeSpec>,
    names: &[&str],
    found: &BTreeMap<String, u32>,
    prober: &Prober,
    budget: Duration,
) -> BTreeMap<String, Outcome> {
    let end = Instant::now() + budget;
    let (tx, rx) = mpsc::channel();
    let mut outcomes = BTreeMap::new();
    let chosen = || names.iter().filter_map(|n| Some((*n, specs.get(*n)?)));
    let (mut network, mut process) = (Lane::new(), Lane::new());
    let mut running = 0;
    for (name, spec) in chosen() {
        if let Some(outcome) = prober.given(name) {
            outcomes.insert(name.to_string(), outcome);
            continue;
        }
        running += 1;
        let entry = (name.to_string(), spec.clone(), found.get(name).copied());
        match spec.target {
            Target::Tcp(_) | Target::Http(_) => network.push(entry),
            Target::Process { .. } => process.push(entry),
            Target::Systemd { .. } | Target::PebbleService { .. } | Target::PebbleCheck { .. } => {
                let (name, spec, _) = entry;
                let target = spec.target.to_string();
                let alone = prober.clone();
                spawn_probe(name, &target, &tx, move |name| {
                    alone.retried(name, &spec, end, None)
                });
            }
        }
    }
    local_probes(prober, network, process, end, &tx);
    drop(tx);
    while running > 0 {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((name, outcome, known)) => {
                running -= 1;
                // A failure seen once the budget is spent is an attempt the
                // budget cut short: it is reported as such below, whichever
                // thread noticed the end first.
                let late = known >= end;
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
