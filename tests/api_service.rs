//! The api-service example (`examples/api-service`) managing its own
//! workload through its lifecycle, dispatched as Juju would on the
//! simulated Juju's hook tools and its simulated machine (`systemctl`,
//! `apt-get`, `dpkg-query` served by `wasm-charm` beside the hook tools,
//! from the unit's session), with a root under which the charm's declared
//! directories and the machine's unit files are found (`WASM_CHARM_ROOT`).
//!
//! "Installing" the package `api-service` runs its payload, a fake workload
//! (`tests/workloads/api-service`): three unit files whose
//! `ExecStart` runs real processes named `api-service`, `api-worker` and
//! `api-scheduler`, the API listening on the port of the configuration file
//! the charm wrote, and the migration program `api-service-manage`. So the
//! host's probes see what the charm really started and stopped.
//!
//! The example's manifest probes port 8774; each unit's copy of it (`Unit`
//! copies the packed charm) is rewritten to a port the test reserves, which
//! the test also sets as config `port`. The migration program is found
//! under the root, where the fake package's payload put it (`<root>/usr/bin`): the
//! host searches a root's system directories before the machine's. Each
//! probe makes one attempt,
//! and keeps its declared grace period: the test moves time on by moving
//! the times the store keeps back, so nothing waits for real time but a
//! process coming up or going away.
//!
//! Process probes see every process of the machine and the fake workload's
//! processes have the real names: the tests that start them take
//! [`machine_lock`].
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;
use crate::support::reserved_port;

use reserved_port::ReservedPort;
use serde_json::{Value, json};
use std::fs;
use std::net::{Ipv4Addr, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use support::{Unit, assert_success, packed, workspace_root};

/// The workload's units, and the processes they run.
const API: &str = "api-service";
const WORKER: &str = "api-worker";
const SCHEDULER: &str = "api-scheduler";
const SERVICES: [&str; 3] = [API, WORKER, SCHEDULER];

/// The address the example's manifest probes.
const MANIFEST_ADDR: &str = "127.0.0.1:8774";
/// The migration program as the example's manifest declares it.
const DB_SYNC_ARGV: [&str; 3] = ["api-service-manage", "db", "sync"];

const READY: &str = "Unit is ready";
const PAUSED: &str = "Unit is paused; run the resume action";
const INSTALLED: &str = "api-service 2024.1 installed; the services start at the start event";

/// How long a process may take to come up or go away, or the API to listen.
const SETTLE: Duration = Duration::from_secs(15);

/// Held by every test that starts the workload's processes.
fn machine_lock() -> MutexGuard<'static, ()> {
    static MACHINE: Mutex<()> = Mutex::new(());
    // A failed test poisons it; the next one still runs alone.
    MACHINE.lock().unwrap_or_else(|p| p.into_inner())
}

// ---------------------------------------------------------------------------
// The machine.

/// The test's side of the simulated machine: the workload's knobs and
/// logs (`<dir>/knobs`, `API_SERVICE_KNOBS`), the root of the charm's
/// declared paths and of the unit files (`<dir>/root`), the API's port,
/// reserved for the test (bound, never listening, with `SO_REUSEADDR`: the
/// API shares it while it listens, and while it does not, no other socket
/// can take it), and, once [`api_unit`] made the unit, its session, which
/// holds the machine's state.
///
/// Dropping it kills every process its units started (each leads a process
/// group of its own) and every stray process the test started, even when
/// the test failed; then the directory goes, and a workload process that
/// somehow survived exits when it sees its knobs directory gone.
struct FakeMachine {
    dir: tempfile::TempDir,
    port: ReservedPort,
    strays: Vec<Child>,
    session: OnceLock<PathBuf>,
}

impl FakeMachine {
    fn new() -> FakeMachine {
        let dir = tempfile::Builder::new()
            .prefix("api-machine-")
            .tempdir()
            .expect("create the machine's directory");
        for sub in ["knobs", "root"] {
            fs::create_dir(dir.path().join(sub)).expect("create the machine");
        }
        FakeMachine {
            dir,
            port: reserve_shared_port(),
            strays: Vec::new(),
            session: OnceLock::new(),
        }
    }

    /// The machine is `unit`'s: apt's repository has `api-service`, whose
    /// payload installs the fake workload.
    fn attach(&self, unit: &Unit) {
        let payload = workspace_root().join("tests/workloads/api-service/install");
        unit.update_machine(|m| {
            m["apt"]["repository"] = json!({"api-service": {"payload": payload}});
        });
        let session = unit.dir().join("state.json");
        assert!(session.is_file(), "no session {}", session.display());
        self.session
            .set(session)
            .expect("a machine serves one unit");
    }

    /// The workload's knobs and logs (`API_SERVICE_KNOBS`).
    fn knobs(&self) -> PathBuf {
        self.dir.path().join("knobs")
    }

    /// `WASM_CHARM_ROOT`.
    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn port(&self) -> u16 {
        self.port.port
    }

    /// The environment a dispatch gets besides Juju's: the root, and the
    /// workload's knobs for its payload.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("WASM_CHARM_ROOT", self.root().display().to_string()),
            ("API_SERVICE_KNOBS", self.knobs().display().to_string()),
        ]
    }

    /// Write `text` to `path` under the knobs directory.
    fn set(&self, path: &str, text: &str) {
        let path = self.knobs().join(path);
        fs::create_dir_all(path.parent().expect("a parent")).expect("create a directory");
        fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// Remove `path` under the knobs directory.
    fn unset(&self, path: &str) {
        let path = self.knobs().join(path);
        fs::remove_file(&path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
    }

    /// The API runs but does not listen until [`FakeMachine::release_api`].
    fn hold_api(&self) {
        self.set("hold/api-service", "");
    }

    /// The API listens (a held one at once).
    fn release_api(&self) {
        self.unset("hold/api-service");
    }

    /// The session file holding the machine's state.
    fn session(&self) -> &PathBuf {
        self.session.get().expect("api_unit attached the machine")
    }

    /// The machine's state (`machine:`), `null` when unreadable.
    fn state(&self) -> Value {
        let file: Option<Value> = self
            .session
            .get()
            .and_then(|path| fs::read_to_string(path).ok())
            .and_then(|text| serde_json::from_str(&text).ok());
        file.map_or(Value::Null, |mut f| f["machine"].take())
    }

    /// Change the machine's state: the operator's script.
    fn script(&self, f: impl FnOnce(&mut Value)) {
        let path = self.session();
        let text = fs::read_to_string(path).expect("read the session");
        let mut file: Value = serde_json::from_str(&text).expect("the session is JSON");
        f(&mut file["machine"]);
        let tmp = path.with_extension("json.tmp");
        fs::write(&tmp, file.to_string()).expect("write the session");
        fs::rename(&tmp, path).expect("replace the session");
    }

    /// What the machine's tools were asked, one call a line, since the last
    /// [`FakeMachine::clear_calls`].
    fn calls(&self) -> Vec<String> {
        let state = self.state();
        state["calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The calls of the `systemctl` verbs that change a unit (`start -- api-worker`).
    fn service_calls(&self) -> Vec<String> {
        self.calls()
            .iter()
            .filter_map(|c| c.strip_prefix("systemctl "))
            .filter(|c| !c.starts_with("is-"))
            .map(str::to_string)
            .collect()
    }

    fn clear_calls(&self) {
        self.script(|m| {
            if let Some(map) = m.as_object_mut() {
                map.remove("calls");
            }
        });
    }

    /// Every run of the migration: `db sync release=<release>`, with
    /// ` failed` when it failed.
    fn db_syncs(&self) -> Vec<String> {
        fs::read_to_string(self.knobs().join("db-sync.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The configuration file the charm wrote, as the API reads it.
    fn config_file(&self) -> String {
        let path = self.root().join("etc/api-service/api-service.conf");
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// `enabled` or `disabled`, as the machine keeps it.
    fn enabled(&self, service: &str) -> String {
        let state = self.state();
        state["services"][service]["enabled"]
            .as_str()
            .unwrap_or("disabled")
            .to_string()
    }

    /// The pid the machine started `service` as, recorded or not, alive or
    /// not.
    fn recorded_pid(&self, service: &str) -> Option<u32> {
        let state = self.state();
        state["services"][service]["pid"]
            .as_u64()
            .and_then(|pid| u32::try_from(pid).ok())
    }

    /// The pid the machine started `service` as, while it lives.
    fn pid(&self, service: &str) -> Option<u32> {
        self.recorded_pid(service).filter(|pid| alive(*pid))
    }

    /// Wait until `service` runs as a process named after it (the probe's
    /// name); its pid.
    #[track_caller]
    fn wait_running(&self, service: &str) -> u32 {
        let mut pid = None;
        self.wait_for(&format!("{service} to run"), || {
            pid = self
                .pid(service)
                .filter(|p| process_name(*p).as_deref() == Some(service));
            pid.is_some()
        });
        pid.unwrap_or_default()
    }

    /// Wait until process `pid` is gone (or a zombie no one reaps).
    #[track_caller]
    fn wait_gone(&self, pid: u32) {
        self.wait_for(&format!("process {pid} to end"), || !alive(pid));
    }

    /// Wait until the API accepts connections.
    #[track_caller]
    fn wait_listening(&self) {
        let addr = (Ipv4Addr::LOCALHOST, self.port());
        self.wait_for("the API to listen", || TcpStream::connect(addr).is_ok());
    }

    /// Wait until nothing listens on the API's port.
    #[track_caller]
    fn wait_closed(&self) {
        let addr = (Ipv4Addr::LOCALHOST, self.port());
        self.wait_for("the API's port to close", || {
            TcpStream::connect(addr).is_err()
        });
    }

    #[track_caller]
    fn wait_for(&self, what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + SETTLE;
        while !done() {
            assert!(
                Instant::now() < deadline,
                "waited {SETTLE:?} for {what}\n{}",
                self.describe()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kill `service`'s processes behind the charm's back (and systemd's:
    /// the unit stays `active` in the machine's state, as a crashed one
    /// would), and
    /// wait until they are gone.
    #[track_caller]
    fn kill(&self, service: &str) -> u32 {
        let pid = self
            .pid(service)
            .unwrap_or_else(|| panic!("{service} does not run\n{}", self.describe()));
        kill_group(pid);
        self.wait_gone(pid);
        pid
    }

    /// Start a process named `name` that no unit knows of (started by
    /// hand); killed on drop.
    fn stray(&mut self, name: &str) -> u32 {
        let child = Command::new("sleep")
            .arg0(name)
            .arg("600")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start a stray {name}: {e}"));
        let pid = child.id();
        self.strays.push(child);
        pid
    }

    /// Kill the stray process `pid` and reap it.
    fn kill_stray(&mut self, pid: u32) {
        let i = self
            .strays
            .iter()
            .position(|c| c.id() == pid)
            .unwrap_or_else(|| panic!("no stray process {pid}"));
        let mut child = self.strays.remove(i);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// What the machine's tools were asked and what each service said,
    /// for a failure message.
    fn describe(&self) -> String {
        let mut text = format!("--- machine.calls\n{}\n", self.calls().join("\n"));
        let logs = self.session.get().map(|s| s.with_file_name("machine"));
        for service in SERVICES {
            let Some(logs) = &logs else { break };
            let out = logs.join(format!("{service}.out"));
            if let Ok(words) = fs::read_to_string(out) {
                text.push_str(&format!("--- {service}.out\n{words}\n"));
            }
        }
        text
    }
}

impl Drop for FakeMachine {
    fn drop(&mut self) {
        for service in SERVICES {
            if let Some(pid) = self.recorded_pid(service) {
                kill_group(pid);
            }
        }
        for mut child in self.strays.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A free port of 127.0.0.1, reserved with `SO_REUSEADDR` (which
/// [`ReservedPort::on`] sets when it is given a port), so that the fake API,
/// which sets it too, can listen on it while the test holds it.
fn reserve_shared_port() -> ReservedPort {
    for _ in 0..100 {
        let port = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0)
            .expect("reserve a port")
            .port;
        // Another test may take it between the two: then try another.
        if let Ok(shared) = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), port) {
            return shared;
        }
    }
    panic!("no port of 127.0.0.1 could be reserved twice in a row");
}

/// SIGKILL the process group led by `pid`.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) takes no pointers; a group that is gone is ESRCH.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
}

/// Process `pid` runs: it exists and is not a zombie.
fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// The base name of process `pid`'s `argv[0]`.
fn process_name(pid: u32) -> Option<String> {
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv0 = cmdline.split(|b| *b == 0).next()?;
    let base = argv0.rsplit(|b| *b == b'/').next()?;
    Some(String::from_utf8_lossy(base).into_owned())
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

/// A unit of the packed example on `machine`, the leader, with config
/// `release: 2024.1`, `debug: false` and `port` the machine's (Juju sends
/// every option, defaults included). Its manifest probes the machine's port,
/// each probe with one attempt, and runs the migration program where the
/// fake package installs it.
fn api_unit(machine: &FakeMachine) -> Unit {
    let unit = Unit::on_simulator(&packed("examples/api-service"), "api-service/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"release": "2024.1", "debug": false, "port": machine.port()},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    machine.attach(&unit);
    let path = unit.charm_dir().join("wasm-charm.yaml");
    let text = fs::read_to_string(&path).expect("read wasm-charm.yaml");
    let mut manifest: Value = serde_saphyr::from_str(&text).expect("wasm-charm.yaml is YAML");
    let addr = format!("127.0.0.1:{}", machine.port());

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
        if let Some(Value::String(process)) = probe.get("process") {
            assert!(SERVICES.contains(&process.as_str()), "{name}: {process}");
        } else if let Some(Value::String(target)) = probe.get_mut("tcp") {
            assert_eq!(target, MANIFEST_ADDR, "{name}");
            *target = addr.clone();
        } else if let Some(Value::String(url)) = probe.get_mut("http") {
            assert!(url.contains(MANIFEST_ADDR), "{name}: {url}");
            *url = url.replace(MANIFEST_ADDR, &addr);
        } else {
            panic!("{name}: a target this test does not know: {probe:?}");
        }
        // A failing probe fails at once (refused, not running): the timeout
        // only bounds a healthy answer on a loaded machine.
        probe.insert("timeout".into(), json!("5s"));
        probe.insert("retries".into(), json!(0));
    }

    // The migration program is found where the fake package put it,
    // `<root>/usr/bin`: under a root, declared commands are searched there
    // first.
    let argv = &manifest["workload"]["commands"]["db-sync"]["argv"];
    assert_eq!(*argv, json!(DB_SYNC_ARGV), "the example's db-sync changed");

    // JSON is YAML.
    fs::write(&path, manifest.to_string()).expect("write wasm-charm.yaml");
    unit
}

/// The configuration file the charm writes for `release`, `debug`, `port`.
fn config_text(release: &str, debug: bool, port: u16) -> String {
    format!(
        "# api-service configuration, written by the api-service charm from its\n\
         # config: changes made here are overwritten.\n\
         [DEFAULT]\n\
         release = {release}\n\
         debug = {debug}\n\
         \n\
         [api]\n\
         port = {port}\n"
    )
}

/// Runs hook `hook` on `machine`, expecting success; its `status-set` calls.
/// The hook tools' and the machine's call logs are cleared first.
#[track_caller]
fn hook(unit: &Unit, machine: &FakeMachine, hook: &str) -> Vec<Vec<String>> {
    let out = dispatch(unit, machine, &format!("hooks/{hook}"), &[]);
    assert_ok(&out, machine);
    unit.calls_of("status-set")
}

/// Runs action `name` as Juju does, expecting the process to succeed; its
/// `status-set` calls.
#[track_caller]
fn action(unit: &Unit, machine: &FakeMachine, name: &str) -> Vec<Vec<String>> {
    unit.update_state(|s| {
        let s = s.as_object_mut().expect("the state is a map");
        s.remove("action-results");
        s.remove("action-failed");
    });
    let out = dispatch(
        unit,
        machine,
        &format!("actions/{name}"),
        &[("JUJU_ACTION_NAME", name), ("JUJU_ACTION_UUID", "7")],
    );
    assert_ok(&out, machine);
    unit.calls_of("status-set")
}

fn dispatch(unit: &Unit, machine: &FakeMachine, path: &str, extra: &[(&str, &str)]) -> Output {
    unit.clear_calls();
    unit.clear_debug_log();
    machine.clear_calls();
    let env = machine.env();
    let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(extra);
    unit.dispatch_with(path, &all)
}

#[track_caller]
fn assert_ok(out: &Output, machine: &FakeMachine) {
    if !out.status.success() {
        eprintln!("{}", machine.describe());
    }
    assert_success(out);
}

/// The `status-set` call of the unit status `kind: message`.
fn set(kind: &str, message: &str) -> Vec<String> {
    ["status-set", kind, "--", message]
        .map(String::from)
        .to_vec()
}

/// Asserts `sets` is one unit status of `kind` whose message starts with
/// `start` (the rest names how many more scopes fail, which depends on how
/// far the processes just started got).
#[track_caller]
fn assert_one(sets: &[Vec<String>], kind: &str, start: &str) {
    assert_eq!(sets.len(), 1, "{sets:?}");
    assert_eq!(sets[0][1], kind, "{sets:?}");
    assert!(sets[0][3].starts_with(start), "{sets:?}");
}

/// The unit's status as Juju shows it: `(kind, message)`.
fn unit_status(unit: &Unit) -> (String, String) {
    let state = unit.state();
    let status = &state["status"]["unit"];
    let text = |key: &str| status[key].as_str().unwrap_or_default().to_string();
    (text("status"), text("message"))
}

/// Whether a handler ran at the last event: each calls `config-get`.
fn handler_ran(unit: &Unit) -> bool {
    !unit.calls_of("config-get").is_empty()
}

/// The store, `<charm>/.wasm-charm/scopes.json`.
fn store(unit: &Unit) -> Value {
    serde_json::from_slice(
        &fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).expect("read the store"),
    )
    .expect("the store is JSON")
}

/// The current `(kind, message)` of unit scope `scope`, if set.
fn scope(unit: &Unit, scope: &str) -> Option<(String, String)> {
    let current = &store(unit)["unit"][scope]["current"];
    let kind = current["status"].as_str()?;
    Some((kind.to_string(), current["message"].as_str()?.to_string()))
}

/// Which probes gate now, as the store keeps them (a probe the charm never
/// chose for gates as the manifest says).
fn gating(unit: &Unit) -> Vec<String> {
    let store = store(unit);
    PROBES
        .iter()
        .filter(|(name, _, gate)| store["probes"][name]["gate"].as_bool().unwrap_or(*gate))
        .map(|(name, ..)| name.to_string())
        .collect()
}

/// `by` passes for the probes: the store is the only memory of time
/// between events, so moving its times back is the clock moving on.
fn time_passes(unit: &Unit, by: Duration) {
    let by = u64::try_from(by.as_millis()).expect("a short duration");
    let mut store = store(unit);
    support::move_probe_times_back(&mut store, by);
    let path = unit.charm_dir().join(".wasm-charm/scopes.json");
    fs::write(&path, serde_json::to_vec(&store).expect("encode")).expect("write the store");
}

/// The results of `self-check`: `(summary, probes)`; the action must not
/// have failed.
#[track_caller]
fn self_check(unit: &Unit, machine: &FakeMachine) -> (String, Value) {
    let sets = action(unit, machine, "self-check");
    assert!(sets.is_empty(), "self-check changes no status: {sets:?}");
    let state = unit.state();
    assert!(state["action-failed"].is_null(), "{state:#}");
    let results = &state["action-results"];
    let summary = results["summary"].as_str().expect("a summary").to_string();
    let probes =
        serde_json::from_str(results["probes"].as_str().expect("probes")).expect("probes is JSON");
    (summary, probes)
}

// ---------------------------------------------------------------------------
// The tests.

#[test]
fn the_charm_installs_configures_migrates_starts_restarts_pauses_and_stops_its_workload() {
    let _alone = machine_lock();
    let mut m = FakeMachine::new();
    let unit = api_unit(&m);
    let port = m.port();
    let healthcheck = format!("http://127.0.0.1:{port}/healthcheck not answering");

    // Install: the package asked of apt-get, the configuration written from
    // the config, the database migrated. Nothing starts before Juju's start
    // event, and no probe gates yet: the unit says why it waits.
    assert_eq!(hook(&unit, &m, "install"), vec![set("waiting", INSTALLED)]);
    let apt: Vec<String> = m
        .calls()
        .into_iter()
        .filter(|c| c.contains("apt-get "))
        .collect();
    assert_eq!(apt.len(), 1, "{apt:?}");
    assert!(
        apt[0].starts_with("apt-get install ") && apt[0].ends_with(" api-service"),
        "{apt:?}"
    );
    assert_eq!(m.config_file(), config_text("2024.1", false, port));
    assert_eq!(m.db_syncs(), ["db sync release=2024.1"]);
    assert_eq!(m.service_calls(), Vec::<String>::new());
    assert_eq!(gating(&unit), Vec::<String>::new());
    assert_eq!(
        unit.calls_of("application-version-set"),
        vec![vec!["application-version-set", "--", "2024.1"]]
    );

    // config-changed, which Juju runs next: nothing to do, nothing said.
    assert_eq!(hook(&unit, &m, "config-changed"), Vec::<Vec<String>>::new());
    assert_eq!(m.db_syncs(), ["db sync release=2024.1"]);
    assert!(!m.calls().iter().any(|c| c.contains("apt-get ")));
    assert_eq!(m.service_calls(), Vec::<String>::new());

    // Start, the API slow to come up: the release's services start and are
    // enabled, and the unit is not active while the API does not answer
    // (maintenance: the probes' grace period started with them).
    m.hold_api();
    let sets = hook(&unit, &m, "start");
    assert_one(&sets, "maintenance", &healthcheck);
    assert_eq!(
        m.service_calls(),
        [
            "start -- api-service",
            "enable -- api-service",
            "start -- api-worker",
            "enable -- api-worker"
        ]
    );
    let api = m.wait_running(API);
    let worker = m.wait_running(WORKER);
    assert_eq!(m.pid(SCHEDULER), None);
    assert_eq!(
        (m.enabled(API), m.enabled(WORKER)),
        ("enabled".into(), "enabled".into())
    );
    assert_eq!(
        gating(&unit),
        ["api-health", "api-port", "api-service", "api-worker"]
    );
    // The processes run, the port is still closed: the probes say so.
    hook(&unit, &m, "update-status");
    let (kind, message) = unit_status(&unit);
    assert_eq!(kind, "maintenance", "{message}");
    assert!(
        message.starts_with(&healthcheck) && message.ends_with(" (+1 more)"),
        "{message}"
    );
    assert_eq!(
        scope(&unit, "probe/api-port"),
        Some((
            "maintenance".into(),
            format!("port 127.0.0.1:{port} not listening")
        ))
    );
    assert_eq!(scope(&unit, "probe/api-service"), None);
    // The API listens: active, no handler needed.
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);
    assert!(!handler_ran(&unit));
    // The probes found the very processes the units started.
    let (summary, probes) = self_check(&unit, &m);
    assert_eq!(summary, "9 probes run, 4 of 4 gating probes healthy");
    assert_eq!(
        probes["api-service"]["detail"],
        json!(format!("process api-service running (pid {api})"))
    );
    assert_eq!(
        probes["api-worker"]["detail"],
        json!(format!("process api-worker running (pid {worker})"))
    );
    assert_eq!(
        probes["api-health"]["detail"],
        json!(format!("http://127.0.0.1:{port}/healthcheck answered 200"))
    );

    // config-changed with nothing changed: the file's bytes are the same,
    // nothing restarts.
    assert_eq!(hook(&unit, &m, "config-changed"), Vec::<Vec<String>>::new());
    assert_eq!(m.service_calls(), Vec::<String>::new());
    assert_eq!((m.pid(API), m.pid(WORKER)), (Some(api), Some(worker)));

    // The API dies behind the charm's back: the next update-status, which
    // runs no handler, shows it; maintenance within the grace period,
    // blocked once it passed.
    m.kill(API);
    let sets = hook(&unit, &m, "update-status");
    assert_one(&sets, "maintenance", &healthcheck);
    assert!(sets[0][3].ends_with(" (+2 more)"), "{sets:?}");
    assert!(!handler_ran(&unit));
    assert_eq!(
        scope(&unit, "probe/api-service"),
        Some((
            "maintenance".into(),
            "process api-service not running".into()
        ))
    );
    time_passes(&unit, Duration::from_secs(600));
    let sets = hook(&unit, &m, "update-status");
    assert_one(&sets, "blocked", &healthcheck);
    assert_eq!(
        scope(&unit, "probe/api-service"),
        Some(("blocked".into(), "process api-service not running".into()))
    );

    // The operator turns debug on: the file is rewritten, the dead API
    // started, the worker restarted (a new process), and the grace period of
    // every probe of what restarted starts again: maintenance, not blocked.
    m.hold_api();
    unit.update_state(|s| s["config"]["debug"] = json!(true));
    let sets = hook(&unit, &m, "config-changed");
    assert_one(&sets, "maintenance", &healthcheck);
    assert_eq!(m.config_file(), config_text("2024.1", true, port));
    assert_eq!(
        m.service_calls(),
        ["start -- api-service", "restart -- api-worker"]
    );
    let api = m.wait_running(API);
    let restarted = m.wait_running(WORKER);
    assert_ne!(restarted, worker, "the worker was not restarted");
    let worker = restarted;
    for probe in ["probe/api-port", "probe/api-health"] {
        let (kind, _) = scope(&unit, probe).unwrap_or_else(|| panic!("{probe} is not set"));
        assert_eq!(kind, "maintenance", "{probe}");
    }
    assert_eq!(m.db_syncs(), ["db sync release=2024.1"]);
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);

    // Release 2024.2: the database is migrated again, the services restart
    // on the new file, and the scheduler starts and gates.
    m.hold_api();
    unit.update_state(|s| s["config"]["release"] = json!("2024.2"));
    let sets = hook(&unit, &m, "config-changed");
    assert_one(&sets, "maintenance", &healthcheck);
    assert_eq!(
        m.db_syncs(),
        ["db sync release=2024.1", "db sync release=2024.2"]
    );
    assert_eq!(m.config_file(), config_text("2024.2", true, port));
    assert_eq!(
        m.service_calls(),
        [
            "restart -- api-service",
            "restart -- api-worker",
            "start -- api-scheduler",
            "enable -- api-scheduler"
        ]
    );
    assert_eq!(
        unit.calls_of("application-version-set"),
        vec![vec!["application-version-set", "--", "2024.2"]]
    );
    assert_eq!(
        gating(&unit),
        [
            "api-health",
            "api-port",
            "api-scheduler",
            "api-service",
            "api-worker"
        ]
    );
    let restarted = m.wait_running(API);
    assert_ne!(restarted, api, "the API was not restarted");
    let api = restarted;
    let scheduler = m.wait_running(SCHEDULER);
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);
    let (summary, probes) = self_check(&unit, &m);
    assert_eq!(summary, "9 probes run, 5 of 5 gating probes healthy");
    assert_eq!(
        probes["api-scheduler"]["detail"],
        json!(format!("process api-scheduler running (pid {scheduler})"))
    );

    // Pause, with a scheduler someone started by hand still running: every
    // service is stopped and disabled, the stopped-probes gate instead, and
    // the unit is paused only once nothing of the workload runs any more.
    let stray = m.stray(SCHEDULER);
    let sets = action(&unit, &m, "pause");
    assert_one(&sets, "maintenance", "process ");
    assert!(sets[0][3].contains(" still running (pid "), "{sets:?}");
    assert_eq!(
        m.service_calls(),
        [
            "stop -- api-service",
            "disable -- api-service",
            "stop -- api-worker",
            "disable -- api-worker",
            "stop -- api-scheduler",
            "disable -- api-scheduler"
        ]
    );
    assert_eq!(
        gating(&unit),
        [
            "api-stopped",
            "port-closed",
            "scheduler-stopped",
            "worker-stopped"
        ]
    );
    for pid in [api, worker, scheduler] {
        m.wait_gone(pid);
    }
    m.wait_closed();
    for service in SERVICES {
        assert_eq!(m.enabled(service), "disabled", "{service}");
    }
    hook(&unit, &m, "update-status");
    assert_eq!(
        unit_status(&unit),
        (
            "maintenance".into(),
            format!("process api-scheduler still running (pid {stray})")
        )
    );
    m.kill_stray(stray);
    assert_eq!(
        hook(&unit, &m, "update-status"),
        vec![set("active", PAUSED)]
    );

    // A config change while paused: the file is rewritten, nothing starts.
    unit.update_state(|s| s["config"]["debug"] = json!(false));
    assert_eq!(hook(&unit, &m, "config-changed"), Vec::<Vec<String>>::new());
    assert_eq!(m.config_file(), config_text("2024.2", false, port));
    assert_eq!(m.service_calls(), Vec::<String>::new());
    assert_eq!(
        gating(&unit),
        [
            "api-stopped",
            "port-closed",
            "scheduler-stopped",
            "worker-stopped"
        ]
    );

    // Resume: the services are enabled and started again, and the unit is
    // ready once they answer.
    m.hold_api();
    let sets = action(&unit, &m, "resume");
    assert_one(&sets, "maintenance", &healthcheck);
    for service in SERVICES {
        assert!(
            m.service_calls().contains(&format!("start -- {service}")),
            "{service}: {:?}",
            m.service_calls()
        );
        m.wait_running(service);
        assert_eq!(m.enabled(service), "enabled", "{service}");
    }
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);

    // Back to 2024.1: migrated to it again, and the scheduler, which it
    // does not run, is stopped and disabled, and no longer gates.
    let scheduler = m.wait_running(SCHEDULER);
    m.hold_api();
    unit.update_state(|s| s["config"]["release"] = json!("2024.1"));
    let sets = hook(&unit, &m, "config-changed");
    assert_one(&sets, "maintenance", &healthcheck);
    assert_eq!(
        m.service_calls(),
        [
            "restart -- api-service",
            "restart -- api-worker",
            "stop -- api-scheduler",
            "disable -- api-scheduler"
        ]
    );
    assert_eq!(
        m.db_syncs().last().map(String::as_str),
        Some("db sync release=2024.1")
    );
    m.wait_gone(scheduler);
    assert_eq!(
        gating(&unit),
        ["api-health", "api-port", "api-service", "api-worker"]
    );
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);

    // Stop: the unit is going away; its services stop and stay stopped.
    let (api, worker) = (m.wait_running(API), m.wait_running(WORKER));
    assert_eq!(
        hook(&unit, &m, "stop"),
        vec![set(
            "maintenance",
            "api-service stopped: the unit is being removed"
        )]
    );
    m.wait_gone(api);
    m.wait_gone(worker);
    for service in SERVICES {
        assert_eq!(m.enabled(service), "disabled", "{service}");
    }
    assert_eq!(gating(&unit), Vec::<String>::new());
}

#[test]
fn a_failed_migration_is_blocked_with_its_words_and_starts_nothing_until_it_succeeds() {
    let _alone = machine_lock();
    let m = FakeMachine::new();
    let unit = api_unit(&m);
    let port = m.port();
    m.set(
        "fail/db-sync",
        "Traceback (most recent call last):\n  File \"manage.py\", line 12, in sync\n\
         api_service.db.DBConnectionError: cannot reach mysql://10.0.0.5/api\n",
    );
    let blocked = "db-sync failed for release 2024.1 (exit 1): \
                   api_service.db.DBConnectionError: cannot reach mysql://10.0.0.5/api";

    // The last line of its stderr in the status, all of it in the log.
    assert_eq!(hook(&unit, &m, "install"), vec![set("blocked", blocked)]);
    assert!(
        unit.debug_log()
            .contains("Traceback (most recent call last):"),
        "{}",
        unit.debug_log()
    );
    assert_eq!(m.db_syncs(), ["db sync release=2024.1 failed"]);
    assert_eq!(m.config_file(), config_text("2024.1", false, port));

    // Start: the migration is tried again, and nothing starts against a
    // database it could not migrate.
    assert_eq!(hook(&unit, &m, "start"), Vec::<Vec<String>>::new());
    assert_eq!(m.db_syncs().len(), 2, "{:?}", m.db_syncs());
    assert_eq!(m.service_calls(), Vec::<String>::new());
    assert_eq!(gating(&unit), Vec::<String>::new());

    // The database is back; the operator's next change migrates, and the
    // services start (the start event came).
    m.unset("fail/db-sync");
    m.hold_api();
    unit.update_state(|s| s["config"]["debug"] = json!(true));
    let sets = hook(&unit, &m, "config-changed");
    assert_one(
        &sets,
        "maintenance",
        &format!("http://127.0.0.1:{port}/healthcheck not answering"),
    );
    assert_eq!(
        m.db_syncs(),
        [
            "db sync release=2024.1 failed",
            "db sync release=2024.1 failed",
            "db sync release=2024.1"
        ]
    );
    m.wait_running(API);
    m.wait_running(WORKER);
    m.release_api();
    m.wait_listening();
    assert_eq!(hook(&unit, &m, "update-status"), vec![set("active", READY)]);
    // Migrated once: later events leave the database alone.
    assert_eq!(hook(&unit, &m, "upgrade-charm"), Vec::<Vec<String>>::new());
    assert_eq!(m.db_syncs().len(), 3, "{:?}", m.db_syncs());
}

#[test]
fn a_package_apt_cannot_install_is_blocked_and_tried_again_at_the_next_event() {
    // Nothing starts here: no process of the workload's names.
    let m = FakeMachine::new();
    let unit = api_unit(&m);
    m.script(|m| m["apt"]["repository"] = json!({}));

    let sets = hook(&unit, &m, "install");
    assert_one(&sets, "blocked", "Cannot install api-service: ");
    assert!(
        sets[0][3].contains("E: Unable to locate package api-service"),
        "{sets:?}"
    );
    assert!(!m.root().join("etc/api-service/api-service.conf").exists());
    assert_eq!(m.db_syncs(), Vec::<String>::new());
    assert_eq!(gating(&unit), Vec::<String>::new());

    // The archive has it now: installed, configured and migrated at the
    // next event.
    let payload = workspace_root().join("tests/workloads/api-service/install");
    m.script(|m| m["apt"]["repository"] = json!({"api-service": {"payload": payload}}));
    assert_eq!(
        hook(&unit, &m, "config-changed"),
        vec![set("waiting", INSTALLED)]
    );
    assert_eq!(m.config_file(), config_text("2024.1", false, m.port()));
    assert_eq!(m.db_syncs(), ["db sync release=2024.1"]);
    // Installed: later events do not ask apt-get again.
    assert_eq!(hook(&unit, &m, "config-changed"), Vec::<Vec<String>>::new());
    assert!(!m.calls().iter().any(|c| c.contains("apt-get ")));
}

#[test]
fn a_config_the_charm_cannot_use_is_blocked_and_gates_nothing() {
    // Nothing starts here: no process of the workload's names.
    let m = FakeMachine::new();
    let unit = api_unit(&m);
    unit.update_state(|s| s["config"]["release"] = json!("2023.2"));
    assert_eq!(
        hook(&unit, &m, "install"),
        vec![set(
            "blocked",
            "Config item `release`: unknown release \"2023.2\" (known: 2024.1, 2024.2)"
        )]
    );
    // The package does not depend on the release; its configuration and
    // the migration do, so neither happened.
    assert_eq!(m.state()["packages"], json!(["api-service"]));
    assert!(!m.root().join("etc/api-service/api-service.conf").exists());
    assert_eq!(m.db_syncs(), Vec::<String>::new());
    assert_eq!(gating(&unit), Vec::<String>::new());

    unit.update_state(|s| s["config"]["release"] = json!(""));
    assert_eq!(
        hook(&unit, &m, "config-changed"),
        vec![set(
            "blocked",
            "Config item `release` must be set (one of 2024.1, 2024.2)"
        )]
    );
    unit.update_state(|s| {
        s["config"]["release"] = json!("2024.1");
        s["config"]["port"] = json!(70000);
    });
    assert_eq!(
        hook(&unit, &m, "config-changed"),
        vec![set(
            "blocked",
            "Config item `port`: 70000 is not a port (1 to 65535)"
        )]
    );
    assert_eq!(gating(&unit), Vec::<String>::new());

    // Fixed: configured and migrated, waiting for the start event.
    unit.update_state(|s| s["config"]["port"] = json!(m.port()));
    assert_eq!(
        hook(&unit, &m, "config-changed"),
        vec![set("waiting", INSTALLED)]
    );
    assert_eq!(m.config_file(), config_text("2024.1", false, m.port()));
    assert_eq!(m.db_syncs(), ["db sync release=2024.1"]);
}
