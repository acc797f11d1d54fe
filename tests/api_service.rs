//! The api-service example (`examples/api-service`) through its lifecycle,
//! dispatched as Juju would with the fake hook tools, against a real
//! workload the test starts and stops: an HTTP server in this process (the
//! API's port and health endpoint) and real processes named as the
//! workload's (`sleep` with its `argv[0]` set).
//!
//! Tests run in parallel and a process probe sees every process of the
//! machine, so each test starts its processes under names of its own
//! (`api-service-<pid>-<n>`) and rewrites the probe targets of its unit's
//! copy of the manifest (`Unit` copies the packed charm) to those names and
//! to its own port. The rewritten manifest also makes every probe one
//! attempt with no retry, and its grace periods either zero (the probes of
//! a unit in service: blocked at once) or an hour (the `expect: down` probes
//! of a paused unit: maintenance while the services stop), so no assertion
//! depends on how much real time passes.

#[path = "support/reserved_port.rs"]
mod reserved_port;
mod support;

use reserved_port::ReservedPort;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;
use support::{Unit, assert_success, packed};

/// The workload's processes, by the names the example's manifest gives them.
const API: &str = "api-service";
const WORKER: &str = "api-worker";
const SCHEDULER: &str = "api-scheduler";

/// The address the example's manifest probes.
const MANIFEST_ADDR: &str = "127.0.0.1:8774";

const READY: &str = "Unit is ready";
const PAUSED: &str = "Unit is paused; run the resume action";

// ---------------------------------------------------------------------------
// The workload: processes and the API's port.

/// The workload's processes, started under names unique to this test,
/// killed and reaped on drop (a failing test leaves none behind).
struct Workload {
    /// Unique name by workload name (`api-service` → `api-service-<pid>-<n>`).
    names: BTreeMap<&'static str, String>,
    running: BTreeMap<&'static str, Child>,
}

impl Workload {
    fn new() -> Workload {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let names = [API, WORKER, SCHEDULER]
            .into_iter()
            .map(|p| (p, format!("{p}-{}-{n}", std::process::id())))
            .collect();
        Workload {
            names,
            running: BTreeMap::new(),
        }
    }

    /// The name process `process` of the manifest runs under in this test.
    fn name(&self, process: &str) -> &str {
        &self.names[process]
    }

    /// Start `process`: `sleep` with `argv[0]` set to the test's name for
    /// it, which the process probe matches. `spawn` returns once the exec
    /// succeeded, so the probe sees the name at once.
    fn start(&mut self, process: &'static str) {
        assert!(
            !self.running.contains_key(process),
            "{process} already runs"
        );
        let child = Command::new("sleep")
            .arg0(&self.names[process])
            .arg("600")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {process}: {e}"));
        self.running.insert(process, child);
    }

    /// Kill `process` and reap it: it is gone from `/proc` when this returns.
    fn stop(&mut self, process: &str) {
        let mut child = self
            .running
            .remove(process)
            .unwrap_or_else(|| panic!("{process} does not run"));
        let _ = child.kill();
        let _ = child.wait();
    }

    /// The pid of running `process`.
    fn pid(&self, process: &str) -> u32 {
        self.running[process].id()
    }

    fn stop_all(&mut self) {
        let running: Vec<&str> = self.running.keys().copied().collect();
        for process in running {
            self.stop(process);
        }
    }
}

impl Drop for Workload {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// The API's port on 127.0.0.1: serving `GET /healthcheck` from a thread of
/// this process, or closed. Closed, it stays reserved (bound, not
/// listening), so no parallel test and no probe's source port can take it
/// and make "closed" a race.
struct Api {
    port: u16,
    state: ApiState,
}

enum ApiState {
    Closed(ReservedPort),
    Serving {
        stop: Arc<AtomicBool>,
        thread: JoinHandle<TcpListener>,
    },
    /// Only while changing state.
    Changing,
}

impl Api {
    /// A port of its own, closed.
    fn new() -> Api {
        let reserved =
            ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).expect("reserve a port for the API");
        Api {
            port: reserved.port,
            state: ApiState::Closed(reserved),
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Listen and answer.
    fn open(&mut self) {
        let ApiState::Closed(reserved) = std::mem::replace(&mut self.state, ApiState::Changing)
        else {
            panic!("the API port is already open");
        };
        let listener = reserved.listen().expect("listen on the API port");
        listener
            .set_nonblocking(true)
            .expect("make the listener non-blocking");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || serve(listener, &stopped));
        self.state = ApiState::Serving { stop, thread };
    }

    /// Stop listening; the port stays reserved.
    fn close(&mut self) {
        let ApiState::Serving { stop, thread } =
            std::mem::replace(&mut self.state, ApiState::Changing)
        else {
            panic!("the API port is not open");
        };
        stop.store(true, Ordering::Relaxed);
        let listener = thread.join().expect("the API thread panicked");
        drop(listener);
        // The same port again. The connections served are closed, but the
        // last ACK of one may still be on its way: the port is then briefly
        // in use.
        let mut tries = 0;
        let reserved = loop {
            match ReservedPort::on(Ipv4Addr::LOCALHOST.into(), self.port) {
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && tries < 250 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                reserved => break reserved.expect("reserve the API port again"),
            }
        };
        self.state = ApiState::Closed(reserved);
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        if let ApiState::Serving { stop, .. } = &self.state {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// Accept until `stop`, answering each connection on a thread of its own;
/// give the listener back once every connection is closed.
fn serve(listener: TcpListener, stop: &AtomicBool) -> TcpListener {
    let mut answering = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, _)) => answering.push(std::thread::spawn(move || answer(stream))),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => panic!("accept on the API port: {e}"),
        }
    }
    for thread in answering {
        let _ = thread.join();
    }
    listener
}

/// `GET /healthcheck` is 200 `OK`; anything else 404. A connection that
/// sends nothing (the tcp probe's) is closed.
///
/// The client closes first: the server reads to the end before it closes,
/// so none of its connections lingers in TIME_WAIT on the API port, which
/// [`Api::close`] takes back.
fn answer(mut stream: TcpStream) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buf = [0; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let response: &[u8] = if request.starts_with(b"GET /healthcheck ") {
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK"
    } else {
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    };
    if stream.write_all(response).is_err() {
        return;
    }
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
}

// ---------------------------------------------------------------------------
// The unit.

/// The probes the example declares: `(name, expect: down, gate:)`.
const PROBES: &[(&str, bool, bool)] = &[
    ("api-health", false, true),
    ("api-port", false, true),
    ("api-scheduler", false, false),
    ("api-service", false, true),
    ("api-stopped", true, false),
    ("api-worker", false, true),
    ("port-closed", true, false),
    ("scheduler-stopped", true, false),
    ("worker-stopped", true, false),
];

/// A unit of the packed example whose manifest probes this test's port and
/// processes, the leader, with config `release: 2024.1` (config.yaml's
/// default, which Juju would send).
fn api_unit(api: &Api, workload: &Workload) -> Unit {
    let unit = Unit::new(&packed("examples/api-service"), "api-service/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"release": "2024.1"},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    let path = unit.charm_dir().join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&path).expect("read wasm-charm.yaml");
    let mut manifest: Value = serde_saphyr::from_str(&text).expect("wasm-charm.yaml is YAML");
    let probes = manifest["probes"]
        .as_object_mut()
        .expect("the manifest declares probes");
    let declared: Vec<&str> = probes.keys().map(String::as_str).collect();
    let expected: Vec<&str> = PROBES.iter().map(|(name, ..)| *name).collect();
    assert_eq!(declared, expected, "the example's probes changed");
    for ((name, probe), (_, down, gate)) in probes.iter_mut().zip(PROBES) {
        let probe = probe.as_object_mut().expect("a probe is a mapping");
        let expect = probe.get("expect").and_then(Value::as_str);
        assert_eq!(expect == Some("down"), *down, "{name}: expect");
        let gates = probe.get("gate").and_then(Value::as_bool).unwrap_or(true);
        assert_eq!(gates, *gate, "{name}: gate");
        if let Some(Value::String(process)) = probe.get_mut("process") {
            *process = workload.name(process).to_string();
        } else if let Some(Value::String(addr)) = probe.get_mut("tcp") {
            assert_eq!(addr, MANIFEST_ADDR, "{name}");
            *addr = api.addr();
        } else if let Some(Value::String(url)) = probe.get_mut("http") {
            assert!(url.contains(MANIFEST_ADDR), "{name}: {url}");
            *url = url.replace(MANIFEST_ADDR, &api.addr());
        } else {
            panic!("{name}: a target this test does not rewrite: {probe:?}");
        }
        // A failing probe fails at once (refused, not running): the timeout
        // only bounds a healthy answer on a loaded machine.
        probe.insert("timeout".into(), json!("5s"));
        probe.insert("retries".into(), json!(0));
        probe.insert("grace".into(), json!(if *down { "1h" } else { "0s" }));
    }
    // JSON is YAML.
    std::fs::write(&path, manifest.to_string()).expect("write wasm-charm.yaml");
    unit
}

/// Runs action `name` as Juju does, forgetting the results of an earlier one.
fn action(unit: &Unit, name: &str) -> Output {
    unit.update_state(|s| {
        let s = s.as_object_mut().expect("the state is a map");
        s.remove("action-results");
        s.remove("action-failed");
    });
    unit.dispatch_with(
        &format!("actions/{name}"),
        &[("JUJU_ACTION_NAME", name), ("JUJU_ACTION_UUID", "7")],
    )
}

/// The `status-set` call of the unit status `kind: message`.
fn set(kind: &str, message: &str) -> Vec<String> {
    ["status-set", kind, "--", message]
        .map(String::from)
        .to_vec()
}

/// Runs `hook`, expecting success, and returns its `status-set` calls.
#[track_caller]
fn status_sets(unit: &Unit, hook: &str) -> Vec<Vec<String>> {
    unit.clear_calls();
    assert_success(&unit.dispatch(hook));
    unit.calls_of("status-set")
}

/// Runs action `name`, expecting success, and returns its `status-set`
/// calls.
#[track_caller]
fn action_status_sets(unit: &Unit, name: &str) -> Vec<Vec<String>> {
    unit.clear_calls();
    assert_success(&action(unit, name));
    unit.calls_of("status-set")
}

/// Whether a handler ran at the last event: each calls `config-get`.
fn handler_ran(unit: &Unit) -> bool {
    !unit.calls_of("config-get").is_empty()
}

/// Which probes gate now, as the store keeps them (a probe the charm never
/// chose for gates as the manifest says).
fn gating(unit: &Unit) -> Vec<String> {
    let store: Value = serde_json::from_slice(
        &std::fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).expect("read the store"),
    )
    .expect("the store is JSON");
    PROBES
        .iter()
        .filter(|(name, _, gate)| store["probes"][name]["gate"].as_bool().unwrap_or(*gate))
        .map(|(name, ..)| name.to_string())
        .collect()
}

/// The results of `self-check`: `(summary, probes, failure message)`.
fn self_check(unit: &Unit) -> (String, Value, Option<String>) {
    let sets = action_status_sets(unit, "self-check");
    assert!(sets.is_empty(), "self-check changes no status: {sets:?}");
    let state = unit.state();
    let results = &state["action-results"];
    let summary = results["summary"].as_str().expect("a summary").to_string();
    let report = results["report"].as_str().expect("a report");
    assert!(report.ends_with(&format!("{summary}\n")), "{report}");
    let probes =
        serde_json::from_str(results["probes"].as_str().expect("probes")).expect("probes is JSON");
    let failed = state["action-failed"].as_str().map(String::from);
    (summary, probes, failed)
}

// ---------------------------------------------------------------------------
// The tests.

#[test]
fn lifecycle_install_failure_recovery_pause_resume_and_a_new_release() {
    let mut api = Api::new();
    let mut workload = Workload::new();
    let unit = api_unit(&api, &workload);
    let port = api.addr();
    let (api_name, worker, scheduler) = (
        workload.name(API).to_string(),
        workload.name(WORKER).to_string(),
        workload.name(SCHEDULER).to_string(),
    );

    // Installed with the workload up: active, with the manifest's ready
    // message. Start changes nothing, so nothing is written.
    api.open();
    workload.start(API);
    workload.start(WORKER);
    assert_eq!(status_sets(&unit, "install"), vec![set("active", READY)]);
    assert_eq!(
        unit.calls_of("application-version-set"),
        vec![vec!["application-version-set", "--", "2024.1"]]
    );
    assert_eq!(status_sets(&unit, "start"), Vec::<Vec<String>>::new());
    assert_eq!(
        gating(&unit),
        ["api-health", "api-port", "api-service", "api-worker"]
    );

    // The worker dies: at the next update-status, which no handler of the
    // charm observes, the unit is not active and names the process.
    workload.stop(WORKER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("blocked", &format!("process {worker} not running"))]
    );
    assert!(!handler_ran(&unit), "{:?}", unit.calls());

    // self-check says the same, and fails the action: a gating probe is
    // unhealthy. The probes that do not gate are run and reported too.
    let (summary, probes, failed) = self_check(&unit);
    assert_eq!(summary, "9 probes run, 3 of 4 gating probes healthy");
    assert_eq!(
        failed.as_deref(),
        Some(
            format!("1 of 4 gating probes unhealthy: api-worker (process {worker} not running)")
                .as_str()
        )
    );
    assert_eq!(
        probes["api-worker"],
        json!({"healthy": false, "gating": true, "detail": format!("process {worker} not running"), "attempts": 1})
    );
    assert_eq!(probes["api-service"]["healthy"], json!(true));
    assert_eq!(
        probes["api-health"]["detail"],
        json!(format!("http://{port}/healthcheck answered 200"))
    );
    assert_eq!(
        probes["api-stopped"],
        json!({"healthy": false, "gating": false, "detail": format!("process {api_name} still running (pid {})", workload.pid(API)), "attempts": 1})
    );
    assert_eq!(
        probes["scheduler-stopped"],
        json!({"healthy": true, "gating": false, "detail": format!("process {scheduler} not running"), "attempts": 1})
    );

    // The worker is back: active again, with no handler running.
    workload.start(WORKER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("active", READY)]
    );
    assert!(!handler_ran(&unit), "{:?}", unit.calls());

    // Pause while the services still run: the stopped-probes gate instead,
    // within their grace period (maintenance), naming what still runs.
    assert_eq!(
        action_status_sets(&unit, "pause"),
        vec![set(
            "maintenance",
            &format!(
                "process {api_name} still running (pid {}) (+2 more)",
                workload.pid(API)
            )
        )]
    );
    assert_eq!(
        gating(&unit),
        ["api-stopped", "port-closed", "worker-stopped"]
    );

    // The services stop and the port closes: active, and the unit says it
    // is paused.
    workload.stop_all();
    api.close();
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("active", PAUSED)]
    );

    // A config change while paused keeps the unit paused: the services of
    // the release do not start gating again.
    assert_eq!(
        status_sets(&unit, "config-changed"),
        Vec::<Vec<String>>::new()
    );
    assert!(handler_ran(&unit));
    assert_eq!(
        gating(&unit),
        ["api-stopped", "port-closed", "worker-stopped"]
    );

    // Resume while the services are still down: they gate again, blocked
    // (grace 0s here), the health endpoint first (the scopes are set in
    // name order), the others counted.
    let sets = action_status_sets(&unit, "resume");
    assert_eq!(sets.len(), 1, "{sets:?}");
    assert_eq!(sets[0][1], "blocked", "{sets:?}");
    let healthcheck = format!("http://{port}/healthcheck not answering (");
    assert!(
        sets[0][3].starts_with(&healthcheck) && sets[0][3].ends_with(") (+3 more)"),
        "{sets:?}"
    );
    assert_eq!(
        gating(&unit),
        ["api-health", "api-port", "api-service", "api-worker"]
    );

    // The services are started again: active, with the ready message (the
    // paused scope is gone).
    api.open();
    workload.start(API);
    workload.start(WORKER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("active", READY)]
    );

    // Release 2024.2 runs a scheduler: it gates from now on, and the unit
    // is not active until it runs.
    unit.update_state(|s| s["config"]["release"] = json!("2024.2"));
    assert_eq!(
        status_sets(&unit, "config-changed"),
        vec![set("blocked", &format!("process {scheduler} not running"))]
    );
    assert_eq!(
        unit.calls_of("application-version-set"),
        vec![vec!["application-version-set", "--", "2024.2"]]
    );
    workload.start(SCHEDULER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("active", READY)]
    );

    // All five gating probes healthy: self-check succeeds.
    let (summary, probes, failed) = self_check(&unit);
    assert_eq!(summary, "9 probes run, 5 of 5 gating probes healthy");
    assert_eq!(failed, None);
    assert_eq!(
        probes["api-scheduler"],
        json!({"healthy": true, "gating": true, "detail": format!("process {scheduler} running (pid {})", workload.pid(SCHEDULER)), "attempts": 1})
    );
}

#[test]
fn pausing_on_the_release_with_a_scheduler_waits_for_the_scheduler_too() {
    let mut api = Api::new();
    let mut workload = Workload::new();
    let unit = api_unit(&api, &workload);
    unit.update_state(|s| s["config"]["release"] = json!("2024.2"));
    api.open();
    for process in [API, WORKER, SCHEDULER] {
        workload.start(process);
    }
    assert_eq!(status_sets(&unit, "install"), vec![set("active", READY)]);

    action_status_sets(&unit, "pause");
    assert_eq!(
        gating(&unit),
        [
            "api-stopped",
            "port-closed",
            "scheduler-stopped",
            "worker-stopped"
        ]
    );
    // Everything stopped but the scheduler: not paused yet.
    workload.stop(API);
    workload.stop(WORKER);
    api.close();
    let scheduler = workload.name(SCHEDULER).to_string();
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set(
            "maintenance",
            &format!(
                "process {scheduler} still running (pid {})",
                workload.pid(SCHEDULER)
            )
        )]
    );
    workload.stop(SCHEDULER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        vec![set("active", PAUSED)]
    );
}

#[test]
fn an_unknown_release_is_blocked_and_gates_nothing() {
    let mut api = Api::new();
    let mut workload = Workload::new();
    let unit = api_unit(&api, &workload);
    api.open();
    workload.start(API);
    workload.start(WORKER);
    assert_eq!(status_sets(&unit, "install"), vec![set("active", READY)]);

    unit.update_state(|s| s["config"]["release"] = json!("2023.2"));
    assert_eq!(
        status_sets(&unit, "config-changed"),
        vec![set(
            "blocked",
            "Config item `release`: unknown release \"2023.2\" (known: 2024.1, 2024.2)"
        )]
    );
    // Which processes should run is unknown: none is checked, so a dying
    // worker adds nothing to the message.
    assert!(gating(&unit).is_empty(), "{:?}", gating(&unit));
    workload.stop(WORKER);
    assert_eq!(
        status_sets(&unit, "update-status"),
        Vec::<Vec<String>>::new()
    );

    // Fixed: the release's processes gate again, and the dead worker shows.
    unit.update_state(|s| s["config"]["release"] = json!("2024.1"));
    let worker = workload.name(WORKER).to_string();
    assert_eq!(
        status_sets(&unit, "config-changed"),
        vec![set("blocked", &format!("process {worker} not running"))]
    );

    unit.update_state(|s| s["config"]["release"] = json!(""));
    assert_eq!(
        status_sets(&unit, "config-changed"),
        vec![set(
            "blocked",
            "Config item `release` must be set (one of 2024.1, 2024.2)"
        )]
    );
}
