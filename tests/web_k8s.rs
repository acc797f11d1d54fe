//! The web-k8s example through `dispatch` as Juju runs a Kubernetes sidecar
//! charm, each test on the Rust charm (`examples/web-k8s`) and on the same
//! charm in Python (`examples/web-k8s-py`), which must be indistinguishable
//! to Juju and to the workload: `JUJU_MACHINE_ID` exported empty (so `store:
//! auto` keeps the store in Juju's charm state), Pebble of container `web`
//! played by the simulated Pebble in its process mode (`wasm-charm sim
//! pebble`) on `<root>/charm/containers/web/pebble.socket` with
//! `WASM_CHARM_ROOT=<root>`. It runs the layer's service as a real process:
//! the image's `web-server`, here tests/web-k8s-fixtures/web-server
//! (Python), found on its PATH, reading the container's files under its
//! root. The process mode reports no Pebble notices, so the workload's
//! reload notice is shown by the harness tests (examples/web-k8s/tests,
//! examples/web-k8s-py/tests) and the scenario (tests/scenarios/web-k8s.yaml)
//! instead.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;
use crate::support::sim_pebble;

use serde_json::{Value, json};
use sim_pebble::{SimPebble, alive};
use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{Unit, assert_success, copy_charm, other_users, packed, workspace_root};
use wasm_charm_host::status::store_chunks;

const RUST: &str = "examples/web-k8s";
const PYTHON: &str = "examples/web-k8s-py";

/// The pod's workload side: the simulated Pebble of container `web` under
/// a temp root (`WASM_CHARM_ROOT`), once started; stopped on drop (it stops
/// its services, which are killed with their process groups whatever
/// happened to it), before the root goes.
struct Pod {
    pebble: Option<SimPebble>,
    root: tempfile::TempDir,
    /// The image's `web-server` as the checkout holds it; staged into the
    /// pod's root when the container comes up.
    server: PathBuf,
}

impl Pod {
    /// A pod whose container is not up: nothing listens on the socket.
    /// Its root is open to every user, as a container's `/` is: the server's
    /// user reaches the image's `web-server` and the container's files.
    fn new() -> Pod {
        Pod::with_server(&workspace_root().join("tests/web-k8s-fixtures/web-server"))
    }

    /// A pod whose image's `web-server` is the fixture at `server`.
    fn with_server(server: &Path) -> Pod {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))
            .expect("open the pod's root");
        Pod {
            root,
            pebble: None,
            server: server.to_path_buf(),
        }
    }

    fn root(&self) -> &Path {
        self.root.path()
    }

    fn socket(&self) -> PathBuf {
        self.root().join("charm/containers/web/pebble.socket")
    }

    /// The container's file system.
    fn fs(&self) -> PathBuf {
        self.root().join("web-fs")
    }

    /// The container comes up: its Pebble listens. The image's
    /// `web-server` is a wrapper on Pebble's PATH that runs the fixture
    /// with the container's root, for the service and any exec alike (an
    /// exec gets only PATH of Pebble's environment). The fixture is staged
    /// in the pod's root, as an image holds its binaries: an exec as the
    /// layer's user could not reach it in a checkout under a private
    /// directory.
    fn start_pebble(&mut self) {
        let bin = self.root().join("image-bin");
        let server = other_users::stage(&self.server, &bin, "web-server.py");
        let wrapper = bin.join("web-server");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nWEB_K8S_CONTAINER_ROOT='{}' exec '{}' \"$@\"\n",
                self.fs().display(),
                server.display()
            ),
        )
        .expect("write the image's web-server");
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the image's web-server");
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
        );
        self.pebble = Some(SimPebble::start(
            &self.socket(),
            &self.fs(),
            self.root(),
            &[("PATH", path)],
            // The HTTP check asks localhost without a proxy.
            &["http_proxy", "HTTP_PROXY"],
        ));
    }

    fn running(&self) -> &SimPebble {
        self.pebble.as_ref().expect("the container is up")
    }

    /// The pid of the running `web` service, as Pebble records it.
    fn server_pid(&self) -> Option<u32> {
        self.running().pid_of("web")
    }

    /// One request to Pebble; its JSON answer.
    fn pebble(&self, method: &str, path: &str, body: &Value) -> Value {
        self.running().request(method, path, body).1
    }

    /// Wait (on Pebble's own check period) until check `alive` is `want`,
    /// asking Pebble directly so that no event runs meanwhile.
    fn check_is(&self, want: &str) {
        self.running().check_is("alive", want);
    }

    /// Make the charm's check fast, as an operator's layer could: every
    /// 100ms, down at the first failure (merged over the charm's layer,
    /// which is added first and only ever combined into).
    fn speed_up_checks(&self) {
        let layer = "checks:\n  alive:\n    override: merge\n    period: 100ms\n    threshold: 1\n";
        let answer = self.pebble(
            "POST",
            "/v1/layers",
            &json!({"action": "add", "label": "test-speed", "format": "yaml", "layer": layer}),
        );
        assert_eq!(answer["status-code"], 200, "{answer}");
    }
}

fn wait_dead(pid: u32) {
    let until = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < until, "pid {pid} did not die");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The user and group the server's files and commands get: the image's
/// `_daemon_` (584792) when the simulated Pebble may give them away, since
/// it runs as root; as anyone else it accepts the owner and ignores it, so
/// they are the test's own.
fn server_ids() -> (u32, u32) {
    // SAFETY: geteuid(2) and getegid(2) read this process's ids; they
    // cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if uid == 0 {
        (584_792, 584_792)
    } else {
        (uid, gid)
    }
}

/// A port nothing listens on now (the kernel's choice, released at once).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// What the server answers on `path` once it listens.
fn get(port: u16, path: &str) -> String {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = write!(
                stream,
                "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            );
            let mut answer = String::new();
            if stream.read_to_string(&mut answer).is_ok() && !answer.is_empty() {
                return answer
                    .split_once("\r\n\r\n")
                    .map(|(_, b)| b.to_string())
                    .unwrap_or(answer);
            }
        }
        assert!(Instant::now() < until, "nothing answers on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Wait until the server on `port` answers `want` on `/`.
fn serves(port: u16, want: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let got = get(port, "/");
        if got == want {
            return;
        }
        assert!(
            Instant::now() < until,
            "port {port} serves {got:?}, not {want:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Juju's environment on a Kubernetes unit, with the pod's root.
fn env<'a>(pod: &'a Pod, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, String)> {
    let mut all = vec![
        ("JUJU_MACHINE_ID", String::new()),
        ("WASM_CHARM_ROOT", pod.root().display().to_string()),
    ];
    all.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    all
}

/// Run `path` (`hooks/…`, `actions/…`); it must succeed.
#[track_caller]
fn dispatch(unit: &Unit, pod: &Pod, path: &str, extra: &[(&str, &str)]) {
    let all = env(pod, extra);
    let all: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_success(&unit.dispatch_with(path, &all));
}

const PEBBLE_READY: &[(&str, &str)] = &[("JUJU_WORKLOAD_NAME", "web")];
const CHECK: &[(&str, &str)] = &[
    ("JUJU_WORKLOAD_NAME", "web"),
    ("JUJU_PEBBLE_CHECK_NAME", "alive"),
];

const CHECK_CONFIG: &[(&str, &str)] = &[
    ("JUJU_ACTION_NAME", "check-config"),
    ("JUJU_ACTION_UUID", "7"),
];

/// The unit's status as the fake Juju shows it.
fn status(unit: &Unit) -> (String, String) {
    let s = unit.state()["status"]["unit"].clone();
    (
        s["status"].as_str().unwrap_or_default().to_string(),
        s["message"].as_str().unwrap_or_default().to_string(),
    )
}

fn active() -> (String, String) {
    ("active".into(), "Serving".into())
}

/// Juju's committed charm state.
fn charm_state(unit: &Unit) -> BTreeMap<String, String> {
    serde_json::from_value(unit.state()["charm-state"].clone()).unwrap_or_default()
}

/// The store document Juju's charm state holds.
fn juju_store(unit: &Unit) -> Value {
    match store_chunks::join(&charm_state(unit)) {
        Ok(Some(doc)) => serde_json::from_str(&doc).expect("the store is JSON"),
        Ok(None) => panic!("no store in Juju's charm state"),
        Err(e) => panic!("the charm state holds no whole store: {e}"),
    }
}

/// `by` passes for the probes: the store is their only memory of time
/// between events, so moving its times back is the clock moving on.
fn time_passes(unit: &Unit, by: Duration) {
    let by = u64::try_from(by.as_millis()).expect("a short duration");
    let mut store = juju_store(unit);
    support::move_probe_times_back(&mut store, by);
    let chunks = store_chunks::split(&store.to_string());
    unit.update_state(|s| {
        let state = s["charm-state"]
            .as_object_mut()
            .expect("Juju's charm state");
        state.retain(|key, _| !store_chunks::is_store_key(key));
        for (key, value) in chunks {
            state.insert(key, json!(value));
        }
    });
}

/// The names of the unit scopes the store holds.
fn scope_names(unit: &Unit) -> Vec<String> {
    juju_store(unit)["unit"]
        .as_object()
        .map(|scopes| scopes.keys().cloned().collect())
        .unwrap_or_default()
}

/// Whether `probe` gates: a handler's choice kept in the store, else the
/// manifest's (both web-k8s probes gate from the start).
fn gates(unit: &Unit, probe: &str) -> bool {
    juju_store(unit)["probes"][probe]["gate"]
        .as_bool()
        .unwrap_or(true)
}

fn config_file(port: u16, greeting: &str) -> String {
    format!(
        "# web-server configuration, written by the web-k8s charm from its\n\
         # config: changes made here are overwritten.\n\
         port = {port}\n\
         greeting = {greeting}\n"
    )
}

/// Kubernetes replaces the charm's pod: a fresh charm directory, Juju's
/// state (config, charm state, statuses) kept. The workload's Pebble is the
/// same: the container's files and processes are not the charm's.
fn replace_charm_dir(unit: &Unit, project: &str) {
    let charm = unit.charm_dir();
    std::fs::remove_dir_all(charm).expect("wipe the charm directory");
    copy_charm(&packed(project), charm).expect("copy the packed charm into the new pod");
}

#[test]
fn a_web_server_pod_from_install_to_a_crash_a_recovery_and_a_new_charm_pod() {
    a_web_server_pod(RUST);
}

#[test]
fn a_web_server_pod_from_install_to_a_crash_a_recovery_and_a_new_charm_pod_in_python() {
    a_web_server_pod(PYTHON);
}

/// The checkout under a directory other users cannot enter (a clone in
/// `/root` or a `mktemp -d`): the image's server still runs as the layer's
/// user, as the pushed configuration's check (an exec as 584792 when the
/// tests run as root) and the service show.
#[test]
fn a_web_server_pod_serves_when_the_checkout_is_under_a_private_directory() {
    let private = tempfile::tempdir().expect("temp dir");
    std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o700))
        .expect("close the checkout's parent");
    let server = private
        .path()
        .join("clone/tests/web-k8s-fixtures/web-server");
    std::fs::create_dir_all(server.parent().expect("the fixtures' directory"))
        .expect("create the private checkout");
    std::fs::copy(
        workspace_root().join("tests/web-k8s-fixtures/web-server"),
        &server,
    )
    .expect("copy the fixture into the private checkout");
    assert_eq!(
        other_users::closed_ancestor(&server).as_deref(),
        Some(private.path())
    );

    let mut pod = Pod::with_server(&server);
    let port = free_port();
    let unit = Unit::on_simulator(&packed(RUST), "web-k8s/0");
    unit.update_state(|s| {
        s["config"] = json!({"port": port, "greeting": "Private"});
    });
    dispatch(&unit, &pod, "hooks/install", &[]);
    pod.start_pebble();
    dispatch(&unit, &pod, "hooks/web-pebble-ready", PEBBLE_READY);
    assert_eq!(status(&unit), active(), "{}", unit.debug_log());
    assert_eq!(
        std::fs::read_to_string(pod.fs().join("etc/web/web.conf")).expect("the pushed file"),
        config_file(port, "Private")
    );
    assert_eq!(get(port, "/"), "Private\n");
}

fn a_web_server_pod(project: &str) {
    let mut pod = Pod::new();
    let port = free_port();
    let unit = Unit::on_simulator(&packed(project), "web-k8s/0");
    unit.update_state(|s| {
        s["config"] = json!({"port": port, "greeting": "Hello"});
    });
    let conf = pod.fs().join("etc/web/web.conf");

    // Install and start come before the container is up: the probes, which
    // gate from the start, wait for Pebble; no grace period runs.
    for hook in ["install", "start"] {
        dispatch(&unit, &pod, &format!("hooks/{hook}"), &[]);
        assert_eq!(
            status(&unit),
            (
                "waiting".into(),
                "waiting for Pebble in web (+1 more)".into()
            ),
            "{hook}"
        );
    }
    assert!(gates(&unit, "web-alive") && gates(&unit, "web-service"));
    assert_eq!(
        juju_store(&unit)["probes"]["web-alive"]["grace-start"],
        Value::Null
    );
    // `store: auto` on Kubernetes: the store is in Juju's charm state.
    assert!(charm_state(&unit).contains_key("wasm-charm.store"));
    assert!(!unit.charm_dir().join(".wasm-charm/scopes.json").exists());

    // The container is up: the file is pushed, the layer added, the server
    // runs as a real process and answers; both probes gate and pass.
    pod.start_pebble();
    dispatch(&unit, &pod, "hooks/web-pebble-ready", PEBBLE_READY);
    assert_eq!(
        std::fs::read_to_string(&conf).expect("the pushed file"),
        config_file(port, "Hello")
    );
    let plan = pod.pebble("GET", "/v1/plan?format=yaml", &Value::Null)["result"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    for part in [
        "command: web-server --config /etc/web/web.conf",
        "startup: enabled",
        &format!("url: http://localhost:{port}/healthz"),
    ] {
        assert!(plan.contains(part), "{part} in {plan}");
    }
    let pid = pod.server_pid().expect("the server's pid");
    assert!(alive(pid));
    assert_eq!(get(port, "/"), "Hello\n");
    assert_eq!(get(port, "/healthz"), "ok\n");
    assert_eq!(status(&unit), active());
    assert!(gates(&unit, "web-alive") && gates(&unit, "web-service"));
    pod.speed_up_checks();
    pod.check_is("up");

    // config-changed with nothing changed: the same process serves on.
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(pod.server_pid(), Some(pid));
    assert!(alive(pid));
    assert_eq!(status(&unit), active());

    // The directory and file are the server's: its user and group (see
    // `server_ids` for what the simulated Pebble does with an owner), the
    // file readable by them only. (The simulated Pebble does not apply
    // make-dir's permissions, so the directory's mode is not checked.)
    let (uid, gid) = server_ids();
    for path in [conf.parent().expect("/etc/web"), conf.as_path()] {
        let meta = std::fs::metadata(path).expect("the pushed file and its directory");
        assert_eq!((meta.uid(), meta.gid()), (uid, gid), "{}", path.display());
    }
    let mode = std::fs::metadata(&conf).expect("the pushed file").mode();
    assert_eq!(mode & 0o777, 0o640);

    // A new greeting, in any language: the server checks the new file (in
    // the UTF-8 locale the charm gives it: in its image's ASCII one it
    // would refuse it), and reads it again on SIGHUP: the same process
    // serves it.
    unit.update_state(|s| s["config"]["greeting"] = json!("Grüß dich"));
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(
        std::fs::read_to_string(&conf).expect("the pushed file"),
        config_file(port, "Grüß dich")
    );
    serves(port, "Grüß dich\n");
    assert_eq!(pod.server_pid(), Some(pid));
    assert!(alive(pid));
    assert_eq!(status(&unit), active());
    assert!(
        unit.debug_log()
            .contains("reloading web (SIGHUP): /etc/web/web.conf changed"),
        "{}",
        unit.debug_log()
    );

    // A new port: the server must listen elsewhere, so it is restarted.
    let port = free_port();
    unit.update_state(|s| s["config"]["port"] = json!(port));
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    wait_dead(pid);
    let pid = pod.server_pid().expect("the restarted server's pid");
    assert!(alive(pid));
    assert_eq!(get(port, "/"), "Grüß dich\n");
    pod.check_is("up");
    assert_eq!(status(&unit), active());

    // A port the server's user may not listen on: the server, run as that
    // user with the new file on its stdin, refuses it (its words came on
    // stderr); the unit is blocked with them, the old file stays and the
    // server serves on.
    unit.update_state(|s| s["config"]["port"] = json!(80));
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(
        status(&unit),
        (
            "blocked".to_string(),
            format!(
                "web-server refuses the configuration: web-server: <stdin>: port 80: \
                 only root may listen below 1024 (uid {uid})"
            )
        )
    );
    assert_eq!(
        std::fs::read_to_string(&conf).expect("the kept file"),
        config_file(port, "Grüß dich")
    );
    assert_eq!(pod.server_pid(), Some(pid));
    unit.update_state(|s| s["config"]["port"] = json!(port));
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(status(&unit), active());
    assert_eq!(pod.server_pid(), Some(pid));

    // The server dies: Pebble's check fails, and check-failed (no handler
    // decides anything) shows it at once, within the grace period as
    // maintenance.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    wait_dead(pid);
    pod.check_is("down");
    dispatch(&unit, &pod, "hooks/web-pebble-check-failed", CHECK);
    let (kind, message) = status(&unit);
    assert_eq!(kind, "maintenance", "{message}");
    assert!(
        message.starts_with("check web/alive down") && message.ends_with("(+1 more)"),
        "{message}"
    );
    assert!(
        unit.debug_log()
            .contains("WARNING Pebble check web/alive failed"),
        "{}",
        unit.debug_log()
    );
    // Past the grace period: blocked, at any event.
    time_passes(&unit, Duration::from_secs(31));
    dispatch(&unit, &pod, "hooks/update-status", &[]);
    let (kind, message) = status(&unit);
    assert_eq!(kind, "blocked", "{message}");

    // Pebble restarts it (the layer's `on-check-failure: restart`; the
    // simulated Pebble does not, so the test asks it as Pebble would), the check recovers,
    // and check-recovered heals the unit without update-status.
    let answer = pod.pebble(
        "POST",
        "/v1/services",
        &json!({"action": "restart", "services": ["web"]}),
    );
    assert_eq!(answer["status-code"], 202, "{answer}");
    let pid = pod
        .server_pid()
        .expect("the server's pid after Pebble's restart");
    assert!(alive(pid));
    pod.check_is("up");
    dispatch(&unit, &pod, "hooks/web-pebble-check-recovered", CHECK);
    assert_eq!(status(&unit), active());

    // An unusable config blocks the unit; the server serves on unchanged.
    unit.update_state(|s| s["config"]["port"] = json!(0));
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    let blocked = (
        "blocked".to_string(),
        "Config item `port`: 0 is not a port (1 to 65535)".to_string(),
    );
    assert_eq!(status(&unit), blocked);
    assert_eq!(pod.server_pid(), Some(pid));
    let scopes = scope_names(&unit);
    assert!(scopes.contains(&"handler/web".to_string()), "{scopes:?}");

    // Kubernetes replaces the charm's pod: every scope, the probes' gating
    // and state come back from Juju's charm state. At an event no handler
    // observes, the unit shows what it showed.
    replace_charm_dir(&unit, project);
    assert!(!unit.charm_dir().join(".wasm-charm/scopes.json").exists());
    dispatch(&unit, &pod, "hooks/update-status", &[]);
    assert_eq!(status(&unit), blocked);
    assert_eq!(scope_names(&unit), scopes);
    assert!(gates(&unit, "web-alive") && gates(&unit, "web-service"));
    // The config is fixed: the file in the container is what it was, so the
    // server is not restarted.
    unit.update_state(|s| s["config"]["port"] = json!(port));
    dispatch(&unit, &pod, "hooks/upgrade-charm", &[]);
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(status(&unit), active());
    assert_eq!(pod.server_pid(), Some(pid));
    assert!(alive(pid));
    assert_eq!(get(port, "/"), "Grüß dich\n");

    // The check-config action: the server, run in the container through
    // Pebble's exec of the declared command, reads its file back.
    dispatch(&unit, &pod, "actions/check-config", CHECK_CONFIG);
    let state = unit.state();
    assert!(state["action-failed"].is_null(), "{state:#}");
    assert_eq!(
        state["action-results"]["output"],
        json!(format!("greeting = Grüß dich\nport = {port}\n"))
    );
    // Someone broke the file in the container: the action fails with the
    // server's words; the next config-changed finds the bytes differ,
    // pushes the file again and restarts the server.
    std::fs::write(&conf, "greeting = Grüß dich\n").expect("break the file");
    dispatch(&unit, &pod, "actions/check-config", CHECK_CONFIG);
    assert_eq!(
        unit.state()["action-failed"],
        json!(
            "web-server finds /etc/web/web.conf unusable: web-server: /etc/web/web.conf: no `port`"
        )
    );
    dispatch(&unit, &pod, "hooks/config-changed", &[]);
    assert_eq!(
        std::fs::read_to_string(&conf).expect("the pushed file"),
        config_file(port, "Grüß dich")
    );
    wait_dead(pid);
    assert!(pod.server_pid().is_some_and(alive));
    assert_eq!(status(&unit), active());
}

#[test]
fn the_website_relation_is_told_the_port() {
    the_website_relation_is_told(RUST);
}

#[test]
fn the_website_relation_is_told_the_port_in_python() {
    the_website_relation_is_told(PYTHON);
}

fn the_website_relation_is_told(project: &str) {
    let unit = Unit::on_simulator(&packed(project), "web-k8s/0");
    unit.update_state(|s| {
        s["config"] = json!({"port": 8080, "greeting": "Hello"});
        s["relations"] = json!({"website:3": {
            "app": "proxy", "units": ["proxy/0"], "unit-data": {"proxy/0": {}}
        }});
    });
    assert_success(&unit.relation_event("joined", "website:3", Some("proxy/0")));
    assert_eq!(
        unit.state()["relations"]["website:3"]["local-unit-data"],
        json!({"port": "8080"})
    );
    // A new port is told at config-changed (the container is not up here:
    // the `web` handler waits for it meanwhile).
    unit.update_state(|s| s["config"]["port"] = json!(8081));
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        unit.state()["relations"]["website:3"]["local-unit-data"],
        json!({"port": "8081"})
    );
}
