//! Each kind against a real thing the test starts and stops; systemctl
//! against the stand-in (tests/probe-fixtures/systemctl).

use super::support::{
    ChildGuard, HttpServer, ReservedPort, SystemctlStandIn, wait_comm, wait_zombie,
};
use crate::charm_dir::probes::{HostPort, HttpTarget, ProbeSpec, Target};
use crate::probe::run::{Prober, attempt, run_all};
use crate::probe::state::millis;
use crate::probe::{Check, Clock as _, Expect, ManualClock, ProbeEnv, ProbeState, assess};
use crate::status_kind::Kind;
use std::collections::{BTreeMap, BTreeSet};
use std::net::{Ipv4Addr, Ipv6Addr, TcpListener};
use std::os::unix::process::CommandExt as _;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

fn once(spec: &ProbeSpec, env: &ProbeEnv) -> Check {
    attempt(spec, env, Instant::now() + spec.timeout)
}

fn tcp(host: &str, port: u16) -> ProbeSpec {
    ProbeSpec::new(Target::Tcp(HostPort {
        host: host.into(),
        port,
    }))
}

fn down(mut spec: ProbeSpec) -> ProbeSpec {
    spec.expect = Expect::Down;
    spec
}

fn http(url: &str, status: Option<u16>, body: Option<&str>) -> ProbeSpec {
    let text = format!("probes:\n  h:\n    http: {{url: '{url}'}}\n");
    let m =
        crate::charm_dir::Manifest::parse(&text, std::path::Path::new("wasm-charm.yaml")).unwrap();
    let Target::Http(mut t) = m.probes["h"].target.clone() else {
        unreachable!()
    };
    t.status = status;
    t.body = body.map(str::to_string);
    ProbeSpec::new(Target::Http(HttpTarget { ..t }))
}

/// Whether this machine can bind IPv6 loopback (containers often cannot).
fn ipv6() -> Option<TcpListener> {
    TcpListener::bind("[::1]:0").ok()
}

#[test]
fn tcp_not_listening_then_listening() {
    let env = ProbeEnv::default();
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let port = reserved.port;
    let up = tcp("127.0.0.1", port);
    assert_eq!(
        once(&up, &env),
        Check::unhealthy(format!("port 127.0.0.1:{port} not listening"))
    );
    assert_eq!(
        once(&down(up.clone()), &env),
        Check::healthy(format!("port 127.0.0.1:{port} not listening"))
    );
    let _listener = reserved.listen().unwrap();
    assert_eq!(
        once(&up, &env),
        Check::healthy(format!("port 127.0.0.1:{port} listening"))
    );
    assert_eq!(
        once(&down(up), &env),
        Check::unhealthy(format!("port 127.0.0.1:{port} still listening"))
    );
}

#[test]
fn tcp_ipv6_literal() {
    let Ok(reserved) = ReservedPort::on(Ipv6Addr::LOCALHOST.into(), 0) else {
        eprintln!("no IPv6 loopback here: skipped");
        return;
    };
    let port = reserved.port;
    let spec = tcp("::1", port);
    assert_eq!(
        once(&spec, &ProbeEnv::default()),
        Check::unhealthy(format!("port [::1]:{port} not listening"))
    );
    let _listener = reserved.listen().unwrap();
    assert_eq!(
        once(&spec, &ProbeEnv::default()),
        Check::healthy(format!("port [::1]:{port} listening"))
    );
}

#[test]
fn http_200_then_503_then_nothing() {
    let env = ProbeEnv::default();
    let server = HttpServer::start("127.0.0.1:0").unwrap();
    let url = server.url("/healthcheck");
    let spec = http(&url, None, None);
    assert_eq!(
        once(&spec, &env),
        Check::healthy(format!("{url} answered 200"))
    );
    assert_eq!(
        once(&down(spec.clone()), &env),
        Check::unhealthy(format!("{url} still answering 200"))
    );
    server.answer(503, "overloaded");
    assert_eq!(
        once(&spec, &env),
        Check::unhealthy(format!("{url} answered 503"))
    );
    let addr = server.addr;
    drop(server);
    let c = once(&spec, &env);
    assert!(!c.healthy);
    assert!(
        c.detail.starts_with(&format!("{url} not answering (")),
        "{}",
        c.detail
    );
    assert!(once(&down(spec), &env).healthy, "nothing answers: down");
    let _ = addr;
}

#[test]
fn http_expected_status_and_body() {
    let env = ProbeEnv::default();
    let server = HttpServer::start("127.0.0.1:0").unwrap();
    let url = server.url("/v1/status?full=1");
    server.answer(204, "");
    assert!(once(&http(&url, Some(204), None), &env).healthy);
    assert_eq!(
        once(&http(&url, Some(200), None), &env),
        Check::unhealthy(format!("{url} answered 204, expected 200"))
    );
    server.answer(200, r#"{"status": "ok", "db": "up"}"#);
    assert!(once(&http(&url, None, Some(r#""db": "up""#)), &env).healthy);
    assert_eq!(
        once(&http(&url, None, Some(r#""db": "down""#)), &env),
        Check::unhealthy(format!("{url} answered 200, body does not match"))
    );
    // A match past the first 64 KiB is not seen.
    server.answer(
        200,
        &format!("{}needle", "x".repeat(crate::probe::http::MAX_BODY)),
    );
    assert!(!once(&http(&url, None, Some("needle")), &env).healthy);
}

#[test]
fn http_ipv6_literal() {
    let Some(probe) = ipv6() else {
        eprintln!("no IPv6 loopback here: skipped");
        return;
    };
    drop(probe);
    let server = HttpServer::start("[::1]:0").unwrap();
    let url = server.url("/");
    assert!(url.starts_with("http://[::1]:"), "{url}");
    assert_eq!(
        once(&http(&url, None, None), &ProbeEnv::default()),
        Check::healthy(format!("{url} answered 200"))
    );
}

#[test]
fn http_that_never_answers_times_out() {
    let server = HttpServer::start_silent("127.0.0.1:0").unwrap();
    let url = server.url("/");
    let mut spec = http(&url, None, None);
    spec.timeout = Duration::from_millis(200);
    assert_eq!(
        once(&spec, &ProbeEnv::default()),
        Check::unhealthy(format!("{url} did not answer in time"))
    );
}

/// A name no other process on the machine has.
fn unique_name(prefix: &str) -> String {
    format!("{prefix}{}", std::process::id() % 100_000)
}

#[test]
fn process_by_comm_started_and_killed() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique_name("wcprb-"); // at most 15 bytes: the whole comm
    let exe = dir.path().join(&name);
    std::fs::copy("/bin/sleep", &exe).unwrap();
    let env = ProbeEnv::default();
    let mut spec = ProbeSpec::new(Target::Process { name: name.clone() });
    // A /proc scan on a loaded machine can take longer than the default 2s.
    spec.timeout = Duration::from_secs(20);
    assert_eq!(
        once(&spec, &env),
        Check::unhealthy(format!("process {name} not running"))
    );
    let mut child = ChildGuard::spawn(Command::new(&exe).arg("600"));
    let pid = child.pid();
    wait_comm(pid, &name);
    assert_eq!(
        once(&spec, &env),
        Check {
            pid: Some(pid),
            ..Check::healthy(format!("process {name} running (pid {pid})"))
        }
    );
    assert_eq!(
        once(&down(spec.clone()), &env),
        Check {
            pid: Some(pid),
            ..Check::unhealthy(format!("process {name} still running (pid {pid})"))
        }
    );
    // Killed but not yet reaped: a zombie, which does not count.
    child.kill();
    wait_zombie(pid);
    assert_eq!(
        once(&spec, &env),
        Check::unhealthy(format!("process {name} not running"))
    );
    child.reap();
    assert!(once(&down(spec), &env).healthy);
}

#[test]
fn process_by_the_base_name_of_argv0() {
    // comm stays `sleep`; argv[0] carries the long name.
    let name = unique_name("api-worker-with-a-long-name-");
    let env = ProbeEnv::default();
    let mut spec = ProbeSpec::new(Target::Process { name: name.clone() });
    // A /proc scan on a loaded machine can take longer than the default 2s.
    spec.timeout = Duration::from_secs(20);
    let child = ChildGuard::spawn(
        Command::new("sleep")
            .arg0(format!("/opt/svc/bin/{name}"))
            .arg("600"),
    );
    wait_comm(child.pid(), "sleep");
    assert_eq!(
        once(&spec, &env),
        Check {
            pid: Some(child.pid()),
            ..Check::healthy(format!("process {name} running (pid {})", child.pid()))
        }
    );
    drop(child);
    assert!(!once(&spec, &env).healthy);
}

/// A process probe looks first where the last event found its process:
/// of two processes of one name, the one the store kept is reported while
/// it lives (though the scan alone finds the other), and once it is a
/// zombie, then gone, the scan finds the other.
#[test]
fn assess_looks_first_where_the_last_event_found_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let name = unique_name("wchint-");
    let exe = dir.path().join(&name);
    std::fs::copy("/bin/sleep", &exe).unwrap();
    let mut children = [
        ChildGuard::spawn(Command::new(&exe).arg("600")),
        ChildGuard::spawn(Command::new(&exe).arg("600")),
    ];
    for child in &children {
        wait_comm(child.pid(), &name);
    }
    let mut spec = ProbeSpec::new(Target::Process { name: name.clone() });
    // A /proc scan on a loaded machine can take longer than the default 2s.
    spec.timeout = Duration::from_secs(20);
    let specs = BTreeMap::from([("worker".to_string(), spec)]);
    let prober = on_clock(Arc::new(ManualClock::new(UNIX_EPOCH)));
    let event = |states: &BTreeMap<String, ProbeState>| {
        let mut a = assess(
            &specs,
            states,
            &BTreeSet::new(),
            &prober,
            Duration::from_secs(30),
        );
        a.remove("worker").unwrap()
    };
    // Nothing kept: the scan finds one, and the state keeps its pid.
    let a = event(&BTreeMap::new());
    let scanned = a.outcome.check.pid.expect("the pid found");
    assert_eq!(a.state.last.as_ref().unwrap().pid, Some(scanned));
    let (other, o) = if scanned == children[0].pid() {
        (children[1].pid(), 1)
    } else {
        (children[0].pid(), 0)
    };
    assert_eq!(children[1 - o].pid(), scanned);
    // Kept: the other. It is the one reported, and kept again.
    let mut kept = a.state.clone();
    kept.last.as_mut().unwrap().pid = Some(other);
    let states = BTreeMap::from([("worker".to_string(), kept)]);
    let a = event(&states);
    assert_eq!(
        a.outcome.check,
        Check {
            pid: Some(other),
            ..Check::healthy(format!("process {name} running (pid {other})"))
        }
    );
    assert_eq!(a.state.last.as_ref().unwrap().pid, Some(other));
    // The kept one is a zombie, then gone: the scan finds the other.
    children[o].kill();
    wait_zombie(other);
    assert_eq!(event(&states).outcome.check.pid, Some(scanned));
    children[o].reap();
    assert_eq!(event(&states).outcome.check.pid, Some(scanned));
}

fn systemd(unit: &str, stand_in: &SystemctlStandIn) -> (ProbeSpec, ProbeEnv) {
    let env = ProbeEnv {
        systemctl: crate::probe::systemd::Systemctl::Program(stand_in.path()),
        ..ProbeEnv::default()
    };
    (ProbeSpec::new(Target::Systemd { unit: unit.into() }), env)
}

#[test]
fn systemd_states_as_systemctl_reports_them() {
    let stand_in = SystemctlStandIn::new();
    let (spec, env) = systemd("nova-api", &stand_in);
    let cases = [
        ("active", Check::healthy("service nova-api is active")),
        ("reloading", Check::healthy("service nova-api is reloading")),
        ("inactive", Check::unhealthy("service nova-api not running")),
        (
            "failed",
            Check::unhealthy("systemd unit nova-api is failed"),
        ),
        (
            "activating",
            Check::unhealthy("service nova-api not running (activating)"),
        ),
        (
            "deactivating",
            Check::unhealthy("service nova-api not running (deactivating)"),
        ),
        (
            "unknown",
            Check::unhealthy("systemd unit nova-api is unknown"),
        ),
    ];
    for (state, want) in cases {
        stand_in.set("nova-api", state);
        assert_eq!(once(&spec, &env), want, "{state}");
    }
    // A unit systemd does not know is `inactive`.
    let (other, _) = systemd("no-such.service", &stand_in);
    assert_eq!(
        once(&other, &env),
        Check::unhealthy("service no-such.service not running")
    );
}

#[test]
fn systemd_expect_down() {
    let stand_in = SystemctlStandIn::new();
    let (spec, env) = systemd("nova-api", &stand_in);
    let spec = down(spec);
    stand_in.set("nova-api", "active");
    assert_eq!(
        once(&spec, &env),
        Check::unhealthy("service nova-api still running")
    );
    stand_in.set("nova-api", "inactive");
    assert_eq!(
        once(&spec, &env),
        Check::healthy("service nova-api not running")
    );
    // No systemd: neither up nor down, so unhealthy either way.
    stand_in.set("nova-api", "nobus");
    let c = once(&spec, &env);
    assert!(!c.healthy);
    assert_eq!(
        c.detail,
        "systemctl is-active nova-api failed (exit 1): System has not been booted with \
         systemd as init system (PID 1). Can't operate."
    );
}

#[test]
fn systemctl_that_hangs_is_killed_at_the_deadline() {
    let stand_in = SystemctlStandIn::new();
    let (mut spec, env) = systemd("stuck", &stand_in);
    stand_in.set("stuck", "hang");
    spec.timeout = Duration::from_millis(300);
    let started = Instant::now();
    assert_eq!(
        once(&spec, &env),
        Check::unhealthy("systemctl is-active stuck did not answer in time and was killed")
    );
    // Killed, not waited out (the stand-in sleeps 600s).
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn systemctl_missing() {
    let env = ProbeEnv {
        systemctl: crate::probe::systemd::Systemctl::Program("/nonexistent/systemctl".into()),
        ..ProbeEnv::default()
    };
    let c = once(&ProbeSpec::new(Target::Systemd { unit: "x".into() }), &env);
    assert!(!c.healthy);
    assert!(
        c.detail
            .starts_with("cannot run /nonexistent/systemctl for service x: "),
        "{}",
        c.detail
    );
}

/// A simulated machine's systemctl, answering as the real one would.
struct Answers(Option<i32>, &'static str, &'static str);

impl crate::probe::systemd::SimulatedSystemctl for Answers {
    fn is_active(&self, _unit: &str) -> (Option<i32>, String, String) {
        (self.0, self.1.to_string(), self.2.to_string())
    }
}

/// A simulated machine is read as systemctl's words are: active is up,
/// inactive down, and systemctl failing with nothing said is unknown,
/// healthy neither way.
#[test]
fn a_simulated_systemctl_is_read_as_the_real_one() {
    let check = |answers: Answers, expect: Expect| {
        let env = ProbeEnv {
            systemctl: crate::probe::systemd::Systemctl::Simulated(std::sync::Arc::new(answers)),
            ..ProbeEnv::default()
        };
        let mut spec = ProbeSpec::new(Target::Systemd { unit: "api".into() });
        spec.expect = expect;
        once(&spec, &env)
    };
    let up = check(Answers(Some(0), "active\n", ""), Expect::Up);
    assert_eq!(up, Check::healthy("service api is active"));
    let down = check(Answers(Some(3), "inactive\n", ""), Expect::Up);
    assert_eq!(down, Check::unhealthy("service api not running"));
    let stopped = check(Answers(Some(3), "inactive\n", ""), Expect::Down);
    assert!(stopped.healthy, "{stopped:?}");
    let broken = check(
        Answers(Some(1), "", "Failed to connect to bus"),
        Expect::Down,
    );
    assert_eq!(
        broken,
        Check::unhealthy("systemctl is-active api failed (exit 1): Failed to connect to bus")
    );
}

/// All gated probes at once: the slow one is cut by the event's budget with
/// a message saying so; the others are not held up by it; an ungated one
/// does not run.
#[test]
fn gated_probes_run_at_once_under_one_budget() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().port();
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let closed = reserved.port;
    let silent = HttpServer::start_silent("127.0.0.1:0").unwrap();
    let mut slow = http(&silent.url("/"), None, None);
    slow.timeout = Duration::from_secs(30);
    let mut refused = tcp("127.0.0.1", closed);
    refused.retries = 0;
    let mut ungated = tcp("127.0.0.1", closed);
    ungated.gate = false;
    let specs: BTreeMap<String, ProbeSpec> = [
        ("open", tcp("127.0.0.1", open)),
        ("refused", refused),
        ("slow", slow),
        ("ungated", ungated),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect();
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH));
    let started = Instant::now();
    // The pipeline runs the probes that gate.
    let gated: Vec<&str> = specs
        .iter()
        .filter(|(_, s)| s.gate)
        .map(|(n, _)| n.as_str())
        .collect();
    // The budget is real time: 3s leaves the refused and open probes room on
    // a loaded machine (500ms did not, once), and only the silent one waits it out.
    let out = run_all(
        &specs,
        &gated,
        &BTreeMap::new(),
        &on_clock(clock),
        Duration::from_secs(3),
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.keys().collect::<Vec<_>>(), ["open", "refused", "slow"]);
    assert!(out["open"].check.healthy);
    assert_eq!(out["open"].attempts, 1);
    assert_eq!(
        out["refused"].check,
        Check::unhealthy(format!("port 127.0.0.1:{closed} not listening"))
    );
    assert_eq!(
        out["slow"].check,
        Check::unhealthy(format!(
            "{}: no answer within the event's probe budget of 3s",
            silent.url("/")
        ))
    );
    assert_eq!(out["slow"].attempts, 0);
}

/// Many probes of every lane at once: each network and process probe that
/// passes takes one attempt; one that fails goes on with its own retries,
/// on the injected clock, and holds up none of the others of its lane.
#[test]
fn lanes_run_first_attempts_together_and_retry_each_failure_alone() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().port();
    let server = HttpServer::start("127.0.0.1:0").unwrap();
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let me = std::fs::read_to_string("/proc/self/comm").unwrap();
    let mut specs = BTreeMap::new();
    for i in 0..4 {
        specs.insert(format!("tcp{i}"), tcp("127.0.0.1", open));
        specs.insert(format!("http{i}"), http(&server.url("/"), None, None));
        specs.insert(
            format!("proc{i}"),
            ProbeSpec::new(Target::Process {
                name: me.trim_end().to_string(),
            }),
        );
    }
    let mut refused = tcp("127.0.0.1", reserved.port);
    refused.retries = 2;
    specs.insert("refused".into(), refused);
    let mut missing = ProbeSpec::new(Target::Process {
        name: unique_name("absent"),
    });
    missing.retries = 1;
    specs.insert("missing".into(), missing);
    let names: Vec<&str> = specs.keys().map(String::as_str).collect();
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH));
    let out = run_all(
        &specs,
        &names,
        &BTreeMap::new(),
        &on_clock(clock.clone()),
        Duration::from_secs(20),
    );
    assert_eq!(out.len(), specs.len());
    for (name, outcome) in &out {
        match name.as_str() {
            "refused" => {
                assert!(!outcome.check.healthy, "{outcome:?}");
                assert_eq!(outcome.attempts, 3, "{outcome:?}");
            }
            "missing" => {
                assert!(!outcome.check.healthy, "{outcome:?}");
                assert!(outcome.check.detail.ends_with("not running"), "{outcome:?}");
                assert_eq!(outcome.attempts, 2, "{outcome:?}");
            }
            _ => {
                assert!(outcome.check.healthy, "{name}: {outcome:?}");
                assert_eq!(outcome.attempts, 1, "{name}");
            }
        }
    }
    // The two failures' back-offs, each on its own: 200 ms and 400 ms for
    // the port, 200 ms for the process.
    let mut sleeps = clock.sleeps();
    sleeps.sort();
    assert_eq!(sleeps, [200, 200, 400].map(Duration::from_millis).to_vec());
}

/// Sees which thread settled each probe's first attempt.
#[derive(Default)]
struct ThreadTap(std::sync::Mutex<Vec<(String, std::thread::ThreadId)>>);

impl crate::probe::run::ProbeTap for ThreadTap {
    fn seen(&self, name: &str, _outcome: &crate::probe::run::Outcome) {
        let mut seen = self.0.lock().unwrap();
        seen.push((name.to_string(), std::thread::current().id()));
    }
}

/// The local probes (TCP, HTTP, process) that pass at once are settled on
/// the caller's own thread: no thread is started for them.
#[test]
fn local_probes_run_on_the_callers_thread() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().port();
    let server = HttpServer::start("127.0.0.1:0").unwrap();
    let me = std::fs::read_to_string("/proc/self/comm").unwrap();
    let specs: BTreeMap<String, ProbeSpec> = [
        ("tcp", tcp("127.0.0.1", open)),
        ("http", http(&server.url("/"), None, None)),
        (
            "proc",
            ProbeSpec::new(Target::Process {
                name: me.trim_end().to_string(),
            }),
        ),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect();
    let names: Vec<&str> = specs.keys().map(String::as_str).collect();
    let tap = Arc::new(ThreadTap::default());
    let prober = Prober {
        tap: Some(tap.clone()),
        ..on_clock(Arc::new(ManualClock::new(UNIX_EPOCH)))
    };
    let out = run_all(
        &specs,
        &names,
        &BTreeMap::new(),
        &prober,
        Duration::from_secs(20),
    );
    for (name, outcome) in &out {
        assert!(outcome.check.healthy, "{name}: {outcome:?}");
        assert_eq!(outcome.attempts, 1, "{name}");
    }
    let mut seen = tap.0.lock().unwrap().clone();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    let here = std::thread::current().id();
    assert_eq!(
        seen,
        ["http", "proc", "tcp"]
            .map(|n| (n.to_string(), here))
            .to_vec()
    );
}

/// The whole path the pipeline takes, event after event, with a real port
/// and the grace period on the injected clock.
#[test]
fn assess_gates_with_grace_and_heals() {
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let port = reserved.port;
    let mut spec = tcp("127.0.0.1", port);
    spec.grace = Duration::from_secs(60);
    let specs = BTreeMap::from([("api-port".to_string(), spec)]);
    let clock = Arc::new(ManualClock::new(
        UNIX_EPOCH + Duration::from_secs(1_000_000),
    ));
    let prober = on_clock(clock.clone());
    let budget = Duration::from_secs(10);
    let mut states: BTreeMap<String, ProbeState> = BTreeMap::new();
    let event = |states: &mut BTreeMap<String, ProbeState>| {
        let mut a = assess(&specs, states, &BTreeSet::new(), &prober, budget);
        let a = a.remove("api-port").unwrap();
        states.insert("api-port".into(), a.state.clone());
        a
    };
    let msg = format!("port 127.0.0.1:{port} not listening");
    // Event 1: never ran, fails: maintenance; 3 attempts, backing off 200ms
    // then 400ms on the injected clock.
    let t0 = clock.now();
    let a = event(&mut states);
    assert_eq!(a.outcome.attempts, 3);
    assert_eq!(
        clock.sleeps(),
        [Duration::from_millis(200), Duration::from_millis(400)]
    );
    assert_eq!(
        a.status.as_ref().map(|s| (s.kind, s.message.as_str())),
        Some((Kind::Maintenance, msg.as_str()))
    );
    assert_eq!(
        a.state.grace_start,
        Some(millis(t0 + Duration::from_millis(600)))
    );
    // Within the grace period: still maintenance.
    clock.advance(Duration::from_secs(58));
    assert_eq!(event(&mut states).status.unwrap().kind, Kind::Maintenance);
    // After it: blocked.
    clock.advance(Duration::from_secs(2));
    let a = event(&mut states);
    assert_eq!(
        a.status.unwrap(),
        crate::probe::ScopeStatus {
            kind: Kind::Blocked,
            message: msg.clone()
        }
    );
    // The service comes up: the scope is cleared.
    let listener = reserved.listen().unwrap();
    clock.advance(Duration::from_secs(5));
    let a = event(&mut states);
    assert_eq!(a.status, None);
    assert_eq!(a.outcome.attempts, 1);
    // Down again after passing: a fresh grace period. The port is reserved
    // again at once, so nothing else can listen there meanwhile.
    drop(listener);
    let _reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), port).unwrap();
    clock.advance(Duration::from_secs(5));
    assert_eq!(event(&mut states).status.unwrap().kind, Kind::Maintenance);
    clock.advance(Duration::from_secs(61));
    assert_eq!(event(&mut states).status.unwrap().kind, Kind::Blocked);
    // The charm restarts the service: maintenance again for the grace period.
    crate::probe::restart_grace(&mut states, "api-port", clock.now());
    assert_eq!(event(&mut states).status.unwrap().kind, Kind::Maintenance);
}

#[test]
fn assess_grace_zero_is_blocked_at_once() {
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let port = reserved.port;
    let mut spec = tcp("127.0.0.1", port);
    spec.grace = Duration::ZERO;
    spec.retries = 0;
    let specs = BTreeMap::from([("p".to_string(), spec)]);
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH));
    let a = assess(
        &specs,
        &BTreeMap::new(),
        &BTreeSet::new(),
        &on_clock(clock),
        Duration::from_secs(10),
    );
    assert_eq!(a["p"].status.as_ref().unwrap().kind, Kind::Blocked);
}

/// The machine's probes, timed by `clock`.
fn on_clock(clock: Arc<ManualClock>) -> Prober {
    Prober {
        clock,
        ..Prober::default()
    }
}
