//! `wasm-charm sim dispatch`: a charm's own `dispatch` process (the packed
//! gateway example's wasm-charm host, the ops peer's script, a shell
//! charm) run against the simulated Juju of `run`, its hook tools served by
//! the `wasm-charm` binary under their names, the hook committed or
//! discarded by the process's exit code.

use crate::support;

use std::fs;
use std::path::Path;
use support::{copy_charm, ops_peer_charm, packed, sim_dispatch};

fn state(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

#[track_caller]
fn ok(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "sim dispatch failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn unit_status(state: &serde_json::Value) -> (String, String) {
    let unit = &state["status"]["unit"];
    (
        unit["status"].as_str().unwrap_or_default().to_string(),
        unit["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// The event that makes every gateway concern ready: the pilot's data, the
/// kind configured, and leadership (the same for both charms).
const PILOT_READY: &[&str] = &[
    "--event",
    "istio-pilot-relation-changed",
    "--remote-app",
    "pilot",
    "--remote-app-data",
    "service-name=p",
    "--remote-app-data",
    "service-port=1",
    "--config",
    "kind=ingress",
    "--leader",
    "true",
];

#[test]
fn the_packed_gateway_runs_its_own_dispatch_against_the_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("gateway");
    copy_charm(&packed("examples/gateway"), &charm).unwrap();
    let st = dir.path().join("state.yaml");

    let out = ok(&sim_dispatch(
        &charm,
        &st,
        &["--event", "install", "--leader", "false"],
    ));
    assert!(out.contains("call: config-get --format=json"), "{out}");
    let s = state(&st);
    assert_eq!(
        unit_status(&s),
        (
            "blocked".into(),
            "Config item `kind` must be set (+2 more)".into()
        ),
        "{s:#}"
    );

    let out = ok(&sim_dispatch(&charm, &st, PILOT_READY));
    assert!(
        out.contains("relation-get --format=json -r istio-pilot:0 --app"),
        "{out}"
    );
    let s = state(&st);
    assert_eq!(s["relations"]["istio-pilot:0"]["app"], "pilot", "{s:#}");
    // The relation handler saw the pilot's data; the config scope is as
    // install left it, the leader scope likewise.
    let (kind, message) = unit_status(&s);
    assert_eq!(kind, "blocked", "{s:#}");
    assert!(
        message.starts_with("Config item `kind` must be set"),
        "{s:#}"
    );

    // config-changed looks at every concern again.
    let out = ok(&sim_dispatch(&charm, &st, &["--event", "config-changed"]));
    assert!(out.contains("unit status: active \"\""), "{out}");
    assert_eq!(unit_status(&state(&st)), ("active".into(), String::new()));
}

#[test]
fn the_ops_peer_runs_against_the_same_simulator() {
    let source = ops_peer_charm();
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("ops");
    fs::create_dir(&charm).unwrap();
    for file in ["dispatch", "metadata.yaml", "config.yaml", "actions.yaml"] {
        fs::copy(source.join(file), charm.join(file)).unwrap();
    }
    copy_charm(&source.join("src"), &charm.join("src")).unwrap();
    std::os::unix::fs::symlink(
        fs::canonicalize(source.join("venv")).unwrap(),
        charm.join("venv"),
    )
    .unwrap();
    let st = dir.path().join("state.yaml");

    let out = ok(&sim_dispatch(
        &charm,
        &st,
        &["--event", "install", "--leader", "false"],
    ));
    assert!(
        out.contains("log: DEBUG Emitting Juju event install."),
        "{out}"
    );
    assert!(out.contains("call: is-leader --format=json"), "{out}");
    assert_eq!(
        unit_status(&state(&st)),
        ("blocked".into(), "Config item `kind` must be set".into())
    );

    let out = ok(&sim_dispatch(&charm, &st, PILOT_READY));
    assert!(
        out.contains("relation-list --format=json -r istio-pilot:0"),
        "{out}"
    );
    assert_eq!(
        unit_status(&state(&st)),
        ("active".into(), String::new()),
        "{out}"
    );
}

/// A charm whose `dispatch` is a shell script: writes through the served
/// tools, then exits with `$EXIT`.
fn shell_charm(dir: &Path, exit: u8) -> std::path::PathBuf {
    let charm = dir.join(format!("shell-{exit}"));
    let script = format!(
        "#!/bin/sh\nset -e\n\
         relation-set -r db:0 --app token=t\n\
         relation-set -r db:0 seen=yes\n\
         echo 'from: file' | relation-set -r db:0 --file -\n\
         relation-get -r db:0 --format=json - shell/0 > got.json\n\
         state-set counter=1\n\
         open-port 8080/tcp\n\
         status-set maintenance 'busy now'\n\
         juju-log -l WARNING careful\n\
         exit {exit}\n"
    );
    support::shell_charm(
        &charm,
        "name: shell\nrequires:\n  db:\n    interface: pg\n",
        &script,
    );
    charm
}

#[test]
fn writes_are_committed_by_exit_zero_and_discarded_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    for (exit, kept) in [(0u8, true), (3, false)] {
        let charm = shell_charm(dir.path(), exit);
        let st = dir.path().join(format!("state-{exit}.yaml"));
        let args = ["--event", "db-relation-changed", "--remote-app", "pg"];
        let out = sim_dispatch(&charm, &st, &args);
        assert_eq!(out.status.success(), kept, "{out:?}");
        if !kept {
            assert_eq!(out.status.code(), Some(1), "{out:?}");
        }
        // The hook's own reads see its writes.
        let got = fs::read_to_string(charm.join("got.json")).unwrap();
        assert_eq!(got, "{\"from\":\"file\",\"seen\":\"yes\"}\n");
        let s = state(&st);
        let rel = &s["relations"]["db:0"];
        assert_eq!(rel["app"], "pg", "the operator's relation stays: {s:#}");
        // Statuses and the log act at once; relation data, charm state
        // and ports only when the hook succeeded.
        assert_eq!(unit_status(&s), ("maintenance".into(), "busy now".into()));
        // A relation hook's records start with the relation (Juju's
        // `juju-log`).
        assert_eq!(s["log"][0], "WARNING db:0: careful", "{s:#}");
        if kept {
            assert_eq!(rel["local-app-data"]["token"], "t", "{s:#}");
            assert_eq!(rel["local-unit-data"]["seen"], "yes", "{s:#}");
            assert_eq!(s["charm-state"]["counter"], "1", "{s:#}");
            assert_eq!(s["opened-ports"]["8080/tcp"][0], "*", "{s:#}");
        } else {
            assert_eq!(rel["local-app-data"], serde_json::json!({}), "{s:#}");
            assert_eq!(rel["local-unit-data"], serde_json::json!({}), "{s:#}");
            assert!(s.get("charm-state").is_none(), "{s:#}");
            assert!(s.get("opened-ports").is_none(), "{s:#}");
        }
    }
}

#[test]
fn a_tool_outside_a_hook_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("is-leader");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_wasm-charm"), &tool).unwrap();
    let out = std::process::Command::new(&tool)
        .env_remove("WASM_CHARM_SIM_SESSION")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("ERROR is-leader: not in a hook"),
        "{stderr}"
    );
}

#[test]
fn a_containers_simulated_pebble_serves_the_dispatch_process() {
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("web");
    copy_charm(&packed("examples/web-k8s"), &charm).unwrap();
    let st = dir.path().join("state.yaml");
    let out = ok(&sim_dispatch(&charm, &st, &["--event", "web-pebble-ready"]));
    assert!(
        out.contains("pebble web: push /etc/web/web.conf\n"),
        "{out}"
    );
    assert!(out.contains("unit status: active \"Serving\""), "{out}");
    let s = state(&st);
    let conf = s["containers"]["web"]["files"]["/etc/web/web.conf"]["content"].as_str();
    assert!(conf.is_some_and(|c| c.contains("port = 8080\n")), "{s:#}");
    // The socket lives only while the event runs.
    let socket = dir
        .path()
        .join("state.root/charm/containers/web/pebble.socket");
    assert!(!socket.exists(), "{}", socket.display());
}

/// Kills, on drop, the process groups the simulated machine of state file
/// `.0` recorded for its units.
struct MachineProcesses(std::path::PathBuf);

impl Drop for MachineProcesses {
    fn drop(&mut self) {
        let text = fs::read_to_string(&self.0).unwrap_or_default();
        let state: serde_json::Value = serde_saphyr::from_str(&text).unwrap_or_default();
        let services = state["machine"]["services"].as_object().cloned();
        for service in services.unwrap_or_default().values() {
            if let Some(pid) = service["pid"].as_u64() {
                let _ = std::process::Command::new("kill")
                    // `--`: procps' kill would read `-<pid>` as a signal.
                    .args(["-9", "--", &format!("-{pid}")])
                    .status();
            }
        }
    }
}

#[test]
fn the_machine_tools_are_served_from_the_state_file_and_act_at_once() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("machine-sh");
    fs::create_dir(&charm).unwrap();
    fs::write(charm.join("metadata.yaml"), "name: machine-sh\n").unwrap();
    // Each tool's words and exit code into a file of the charm directory;
    // the hook fails, and the machine keeps what it did.
    let script = "#!/bin/sh\n\
         systemctl start -- api\n\
         systemctl is-active -- api > active.txt\n\
         systemctl start -- nope 2> nope.txt; echo \"exit $?\" >> nope.txt\n\
         apt-get install -y -q nope-pkg 2> apt.txt; echo \"exit $?\" >> apt.txt\n\
         apt-get install -y -q libpq5 > /dev/null\n\
         dpkg-query -W -f='${Status}' -- libpq5 > dpkg.txt\n\
         exit 3\n";
    fs::write(charm.join("dispatch"), script).unwrap();
    fs::set_permissions(charm.join("dispatch"), fs::Permissions::from_mode(0o755)).unwrap();
    let st = dir.path().join("state.yaml");
    fs::write(
        &st,
        "machine:\n  units:\n    api: {exec-start: exec sleep 300}\n  \
         apt:\n    repository: {libpq5: {}}\n",
    )
    .unwrap();
    let _processes = MachineProcesses(st.clone());

    let out = sim_dispatch(&charm, &st, &["--event", "install"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let read = |name: &str| fs::read_to_string(charm.join(name)).unwrap();
    assert_eq!(read("active.txt"), "active\n");
    assert_eq!(
        read("nope.txt"),
        "Failed to start nope.service: Unit nope.service not found.\nexit 5\n"
    );
    assert_eq!(
        read("apt.txt"),
        "E: Unable to locate package nope-pkg\nexit 100\n"
    );
    assert_eq!(read("dpkg.txt"), "install ok installed");

    let s = state(&st);
    let machine = &s["machine"];
    assert_eq!(machine["packages"], serde_json::json!(["libpq5"]), "{s:#}");
    assert_eq!(machine["services"]["api"]["active"], "active", "{s:#}");
    let pid = machine["services"]["api"]["pid"].as_u64().expect("a pid");
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).expect("the unit runs");
    assert!(stat.contains("(sleep)"), "{stat}");
    assert_eq!(machine["calls"][0], "systemctl start -- api", "{s:#}");
    assert_eq!(machine["calls"].as_array().map(Vec::len), Some(6), "{s:#}");
}
