//! The `pebble` interface and the Pebble probes, through `dispatch` as Juju
//! runs it, against the simulated Pebble in its process mode (`wasm-charm
//! sim pebble`: services, exec and checks real processes, files in a real
//! directory) listening on `<root>/charm/containers/web/pebble.socket` with
//! `WASM_CHARM_ROOT=<root>`. The test charm `pebble-calls` makes the calls
//! its config names and logs each answer as `CALL <name> <answer>`.

use crate::support;
use crate::support::sim_pebble;

use serde_json::json;
use sim_pebble::{SimPebble, alive};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{Unit, assert_success, packed};

/// The simulated Pebble of container `web` under a temp root; stopped
/// (with every service it started) on drop, before the root goes.
struct Pod {
    pebble: SimPebble,
    root: tempfile::TempDir,
}

impl Pod {
    /// The root (`WASM_CHARM_ROOT`) with no Pebble listening yet.
    fn root() -> tempfile::TempDir {
        tempfile::tempdir().expect("temp dir")
    }

    fn start(root: tempfile::TempDir) -> Pod {
        let pebble = SimPebble::start(
            &socket(root.path()),
            &root.path().join("web-fs"),
            root.path(),
            &[],
            &[],
        );
        Pod { pebble, root }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    fn pid_of(&self, service: &str) -> Option<u32> {
        self.pebble.pid_of(service)
    }
}

fn socket(root: &Path) -> PathBuf {
    root.join("charm/containers/web/pebble.socket")
}

const LAYER: &str = "services:
  web:
    override: replace
    command: sleep 300
    startup: enabled
  failing:
    override: replace
    command: 'false'
";

fn unit(calls: &str, layer: &str) -> Unit {
    let unit = Unit::on_simulator(&packed("tests/guests/pebble-calls"), "pc/0");
    set(&unit, calls, layer);
    unit
}

fn set(unit: &Unit, calls: &str, layer: &str) {
    unit.update_state(|s| {
        s["config"]["calls"] = json!(calls);
        s["config"]["layer"] = json!(layer);
    });
}

/// Run `hook` with the root; each call's answer, by name.
fn answers(unit: &Unit, root: &Path, hook: &str, env: &[(&str, &str)]) -> Vec<(String, String)> {
    unit.clear_debug_log();
    let root = root.to_string_lossy().into_owned();
    let mut all = vec![("WASM_CHARM_ROOT", root.as_str())];
    all.extend_from_slice(env);
    let out = unit.dispatch_with(&format!("hooks/{hook}"), &all);
    assert_success(&out);
    unit.debug_log()
        .lines()
        .filter_map(|l| l.strip_prefix("INFO CALL "))
        .map(|a| {
            let (name, answer) = a.split_once(' ').unwrap_or((a, ""));
            (name.to_string(), answer.to_string())
        })
        .collect()
}

fn answer<'a>(got: &'a [(String, String)], call: &str) -> &'a str {
    got.iter()
        .find(|(n, _)| n == call)
        .map(|(_, a)| a.as_str())
        .unwrap_or_else(|| panic!("no answer to {call}: {got:?}"))
}

#[test]
fn before_pebble_listens_can_connect_is_false_and_calls_cannot_connect() {
    let root = Pod::root();
    let unit = unit("can-connect plan undeclared", LAYER);
    let got = answers(&unit, root.path(), "config-changed", &[]);
    assert_eq!(answer(&got, "can-connect"), "Ok(false)");
    let plan = answer(&got, "plan");
    assert!(
        plan.starts_with("Err(CannotConnect(\"container web: cannot connect to Pebble at ")
            && plan.contains("/charm/containers/web/pebble.socket"),
        "{plan}"
    );
    let undeclared = answer(&got, "undeclared");
    assert!(
        undeclared.starts_with("Err(Undeclared(\"no container named \\\"db\\\"")
            && undeclared.contains("(containers: web)"),
        "{undeclared}"
    );
}

#[test]
fn layers_plan_and_services_run_as_real_processes() {
    let pebble = Pod::start(Pod::root());
    let root = pebble.path();
    let unit = unit(
        "can-connect add-layer add-layer plan replan services start-unknown start-failing",
        LAYER,
    );
    let got = answers(&unit, root, "config-changed", &[]);
    assert_eq!(answer(&got, "can-connect"), "Ok(true)");
    // The first add succeeds; the second, same label without combine, is
    // Pebble's 400 reaching the guest typed.
    let adds: Vec<&str> = got
        .iter()
        .filter(|(n, _)| n == "add-layer")
        .map(|(_, a)| a.as_str())
        .collect();
    assert_eq!(
        adds,
        [
            "Ok(())",
            r#"Err(Api(ApiError { status-code: 400, kind: "", message: "layer \"base\" already exists" }))"#
        ]
    );
    let plan = answer(&got, "plan");
    assert!(plan.contains("command: sleep 300"), "{plan}");
    assert_eq!(answer(&got, "replan"), "Ok(())");
    assert_eq!(
        answer(&got, "services"),
        r#"Ok([ServiceInfo { name: "failing", startup: "disabled", current: "inactive" }, ServiceInfo { name: "web", startup: "enabled", current: "active" }])"#
    );
    assert_eq!(
        answer(&got, "start-unknown"),
        r#"Err(Api(ApiError { status-code: 400, kind: "", message: "cannot start services: service \"nope\" does not exist" }))"#
    );
    let failing = answer(&got, "start-failing");
    assert!(
        failing.starts_with("Err(ChangeFailed(")
            && failing.contains(
                "Start service \\\"failing\\\" (service start attempt: exited quickly with code 1, \
                 will restart)"
            ),
        "{failing}"
    );
    // The service is a real process of the simulated Pebble's.
    let pid = pebble.pid_of("web").expect("web's pid");
    assert!(alive(pid), "web (pid {pid}) is running");
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    assert_eq!(comm.trim(), "sleep");

    // A replan with nothing changed leaves the running service alone.
    set(&unit, "replan", "");
    let got = answers(&unit, root, "config-changed", &[]);
    assert_eq!(answer(&got, "replan"), "Ok(())");
    assert_eq!(pebble.pid_of("web"), Some(pid));

    // Combine: a merge layer changes the command of the same label, and a
    // replan restarts the service with it.
    set(
        &unit,
        "combine-layer plan replan",
        "services:\n  web:\n    override: merge\n    command: sleep 301\n",
    );
    let got = answers(&unit, root, "config-changed", &[]);
    assert_eq!(answer(&got, "combine-layer"), "Ok(())");
    let plan = answer(&got, "plan");
    assert!(
        plan.contains("command: sleep 301") && plan.contains("startup: enabled"),
        "{plan}"
    );
    assert_eq!(answer(&got, "replan"), "Ok(())");
    assert!(!alive(pid), "replan replaced the old process");
    let pid = pebble.pid_of("web").expect("web's pid after replan");
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    assert_eq!(cmdline, b"sleep\x00301\x00");

    set(&unit, "restart services stop services start", "");
    let got = answers(&unit, root, "config-changed", &[]);
    assert_eq!(answer(&got, "restart"), "Ok(())");
    assert!(!alive(pid), "restart replaced the process");
    let services: Vec<&str> = got
        .iter()
        .filter(|(n, _)| n == "services")
        .map(|(_, a)| a.as_str())
        .collect();
    assert!(services[0].contains(r#"name: "web", startup: "enabled", current: "active""#));
    assert!(services[1].contains(r#"name: "web", startup: "enabled", current: "inactive""#));
    assert_eq!(answer(&got, "stop"), "Ok(())");
    assert_eq!(answer(&got, "start"), "Ok(())");
    let started = pebble.pid_of("web").expect("web's pid after start");
    assert!(alive(started), "web (pid {started}) is running again");
}

#[test]
fn files_are_pushed_pulled_listed_and_removed() {
    let pebble = Pod::start(Pod::root());
    let root = pebble.path();
    let unit = unit(
        "pull-missing push pull list make-dir make-dir-again remove pull-missing list-missing",
        LAYER,
    );
    let got = answers(&unit, root, "config-changed", &[]);
    let missing: Vec<&str> = got
        .iter()
        .filter(|(n, _)| n == "pull-missing")
        .map(|(_, a)| a.as_str())
        .collect();
    for m in &missing {
        assert!(
            m.starts_with("Some(\"not-found\") Pebble answered 200: ")
                && m.contains("/etc/web/web.conf"),
            "{m}"
        );
    }
    assert_eq!(answer(&got, "push"), "Ok(())");
    assert_eq!(answer(&got, "pull"), r#"Ok("port = 8080\n")"#);
    assert_eq!(
        answer(&got, "list"),
        r#"Ok([("/etc/web/web.conf", "file", Some(12), "600")])"#
    );
    assert_eq!(answer(&got, "make-dir"), "Ok(())");
    let again = answer(&got, "make-dir-again");
    assert!(
        again.starts_with("Err(Api(ApiError { status-code: 200, kind: \"generic-file-error\""),
        "{again}"
    );
    assert_eq!(answer(&got, "remove"), "Ok(())");
    assert_eq!(
        answer(&got, "list-missing"),
        r#"Err(Api(ApiError { status-code: 404, kind: "not-found", message: "stat /nowhere: no such file or directory" }))"#
    );
    // In the container's file system, as Pebble would have written it.
    assert!(root.join("web-fs/var/lib/web/cache").is_dir());
    assert!(!root.join("web-fs/etc/web").exists());
}

/// The unit's status as the fake Juju keeps it.
fn status(unit: &Unit) -> (String, String) {
    let s = unit.state()["status"]["unit"].clone();
    (
        s["status"].as_str().unwrap_or_default().to_string(),
        s["message"].as_str().unwrap_or_default().to_string(),
    )
}

const CHECKED: &str = "services:
  web:
    override: replace
    command: sleep 300
    startup: enabled
checks:
  up:
    override: replace
    level: ready
    period: 100ms
    threshold: 1
    exec:
      command: test -e HEALTHY
";

#[test]
fn pebble_probes_gate_and_check_events_heal_without_update_status() {
    let pebble = Pod::start(Pod::root());
    let root = pebble.path();
    let healthy = root.join("healthy");
    std::fs::write(&healthy, "").unwrap();
    let layer = CHECKED.replace("HEALTHY", &healthy.to_string_lossy());
    let unit = unit("add-layer replan", &layer);
    answers(&unit, root, "config-changed", &[]);
    pebble.pebble.check_is("up", "up");
    assert_eq!(status(&unit), ("active".into(), String::new()));

    // The check fails: check-failed (no update-status) makes the unit
    // blocked at once (grace 0s), naming the check.
    std::fs::remove_file(&healthy).unwrap();
    pebble.pebble.check_is("up", "down");
    set(&unit, "", "");
    let check_env = [
        ("JUJU_WORKLOAD_NAME", "web"),
        ("JUJU_PEBBLE_CHECK_NAME", "up"),
    ];
    answers(&unit, root, "web-pebble-check-failed", &check_env);
    let (kind, message) = status(&unit);
    assert_eq!(kind, "blocked", "{message}");
    assert!(message.contains("check web/up down"), "{message}");

    // It recovers: check-recovered heals it.
    std::fs::write(&healthy, "").unwrap();
    pebble.pebble.check_is("up", "up");
    set(&unit, "", "");
    answers(&unit, root, "web-pebble-check-recovered", &check_env);
    assert_eq!(status(&unit), ("active".into(), String::new()));

    // The service dies: within its grace period the unit is maintenance,
    // naming the service; a restart through Pebble makes it active again.
    let pid = pebble.pid_of("web").expect("web's pid");
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let until = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < until, "web did not die");
        std::thread::sleep(Duration::from_millis(20));
    }
    set(&unit, "", "");
    answers(&unit, root, "update-status", &[]);
    let (kind, message) = status(&unit);
    assert_eq!(kind, "maintenance", "{message}");
    assert!(message.contains("service web/web error"), "{message}");
    set(&unit, "restart", "");
    let got = answers(&unit, root, "config-changed", &[]);
    assert_eq!(answer(&got, "restart"), "Ok(())");
    assert_eq!(status(&unit), ("active".into(), String::new()));
}

#[test]
fn exec_runs_declared_commands_with_their_output_exit_and_timeout() {
    let pebble = Pod::start(Pod::root());
    let root = pebble.path();
    let unit = unit(
        "exec-echo exec-fail exec-args-refused exec-undeclared exec-big exec-hang",
        "",
    );
    let started = Instant::now();
    let got = answers(&unit, root, "config-changed", &[]);
    // The hang is killed at its 1s timeout, not the 20s handler deadline.
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(
        answer(&got, "exec-echo"),
        r#"Exit::Code(0) stdout="hello two words\n" stderr="" truncated=false"#
    );
    // A non-zero exit is an output, stdout and stderr apart.
    assert_eq!(
        answer(&got, "exec-fail"),
        r#"Exit::Code(3) stdout="out\n" stderr="err\n" truncated=false"#
    );
    let refused = answer(&got, "exec-args-refused");
    assert!(
        refused.starts_with("Err(Undeclared(")
            && refused.contains("workload.containers.web.commands.fail.args is false"),
        "{refused}"
    );
    let undeclared = answer(&got, "exec-undeclared");
    assert!(
        undeclared.starts_with("Err(Undeclared(\"command `nope` is not declared for container web"),
        "{undeclared}"
    );
    assert_eq!(
        answer(&got, "exec-big"),
        "Exit::Code(0) stdout=65536 stderr=0 truncated=true"
    );
    assert_eq!(
        answer(&got, "exec-hang"),
        r#"Exit::TimedOut stdout="" stderr="" truncated=false"#
    );
}

#[test]
fn sigterm_stops_every_service_and_removes_the_socket() {
    let mut pod = Pod::start(Pod::root());
    let layer = json!({"action": "add", "label": "l", "format": "yaml", "layer": LAYER});
    let (status, answer) = pod.pebble.request("POST", "/v1/layers", &layer);
    assert_eq!(status, 200, "{answer}");
    let replan = json!({"action": "replan", "services": []});
    let (status, answer) = pod.pebble.request("POST", "/v1/services", &replan);
    assert_eq!(status, 202, "{answer}");
    let pid = pod.pid_of("web").expect("web's pid");
    assert!(alive(pid));
    // SIGTERM reaches the service at once: well before the SIGKILL that
    // would follow 5 s later, and before the guard's own kill.
    let started = Instant::now();
    assert!(pod.pebble.terminate(), "sim pebble did not exit");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(!alive(pid), "web (pid {pid}) was stopped");
    assert!(!socket(pod.path()).exists(), "the socket is removed");
    assert_eq!(pod.pid_of("web"), None);
}

/// A service that ignores SIGHUP (so a signal leaves it running) and a
/// check that passes.
const CALLS_LAYER: &str = "services:
  web:
    override: replace
    command: sh -c 'trap \"\" HUP; sleep 300'
    startup: enabled
checks:
  up:
    override: replace
    period: 1s
    exec: {command: 'true'}
  later:
    override: replace
    startup: disabled
    period: 1s
    exec: {command: 'false'}
";

#[test]
fn newer_calls_are_answered_as_in_memory() {
    let pebble = Pod::start(Pod::root());
    let root = pebble.path();
    let etc = root.join("web-fs/etc/web");
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::write(etc.join("web.conf"), "port = 8080\n").unwrap();
    std::fs::write(etc.join("notes.txt"), "notes").unwrap();
    let unit = unit(
        "add-layer autostart send-signal send-signal-bad stop-checks start-checks exists isdir \
         list-pattern push-owned exec-options notices pull-stream push-setuid push-no-parent \
         make-dir-private list-var all-checks",
        CALLS_LAYER,
    );
    let got = answers(&unit, root, "config-changed", &[]);
    for (call, expected) in support::PEBBLE_CALLS_ALIKE {
        assert_eq!(answer(&got, call), *expected, "{call}");
    }
    let web = pebble.pid_of("web").expect("web started by autostart");
    assert!(alive(web), "web ignores SIGHUP and runs on");
    assert!(answer(&got, "send-signal-bad").contains("is not a signal name"));
    // Only root may give a file away; anyone else's owner is ignored.
    // SAFETY: geteuid(2) reads this process's id and cannot fail.
    let root_user = unsafe { libc::geteuid() } == 0;
    let owned = answer(&got, "push-owned");
    let web_user = std::fs::read_to_string("/etc/passwd")
        .is_ok_and(|p| p.lines().any(|l| l.starts_with("web:")));
    if root_user && !web_user {
        assert!(
            owned.contains("generic-file-error") && owned.contains("unknown user"),
            "{owned}"
        );
    } else {
        assert_eq!(owned, "Ok(())");
    }
    assert_eq!(
        answer(&got, "exec-options"),
        r#"Exit::Code(0) stdout="with options\n" stderr="" truncated=false"#
    );
    // The process mode has no notices to report.
    assert_eq!(answer(&got, "notices"), "Ok([])");
}
