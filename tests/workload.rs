//! The workload interface (DESIGN §12) through `dispatch`, as Juju runs it:
//! the test charm `workload-calls` makes the calls config option `calls`
//! names and logs each answer (`CALL <call> <answer>`), on the simulated
//! unit's simulated machine (`systemctl`, `apt-get`, `dpkg-query` served
//! by `wasm-charm` beside the hook tools, from the session's `machine`).
//! Declared commands run for real (`sh`, `echo`, `env`).

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::{assert_current, logged, store, store_path};
use serde_json::json;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::{Unit, assert_success, packed};

const CHARM: &str = "tests/guests/workload-calls";

/// A unit of the test charm on the simulated machine, where the units
/// `api-service` (a real `sleep` when started) and `calls-worker` (state
/// only) are defined. Dropping it kills any process the machine started.
struct Machine {
    unit: Unit,
}

impl Machine {
    fn new() -> Machine {
        let unit = Unit::on_simulator(&packed(CHARM), "workload-calls/0");
        unit.update_machine(|m| {
            m["units"] = json!({
                "api-service": {"exec-start": "sleep 300"},
                "calls-worker": {},
            });
        });
        Machine { unit }
    }

    /// `config-changed` with config option `calls` set to `calls`: the
    /// answer logged for each call, in order. The machine's calls are
    /// cleared first.
    fn answers(&self, calls: &str) -> Vec<String> {
        let out = self.config_changed(calls);
        assert_success(&out);
        self.unit
            .debug_log()
            .lines()
            .filter_map(|l| l.strip_prefix("INFO CALL "))
            .map(str::to_string)
            .collect()
    }

    fn config_changed(&self, calls: &str) -> Output {
        self.unit
            .update_state(|s| s["config"]["calls"] = json!(calls));
        self.unit.clear_debug_log();
        self.unit.clear_machine_calls();
        self.unit.dispatch("config-changed")
    }

    /// What the machine's tools were asked since the last `answers`.
    fn calls(&self) -> Vec<String> {
        self.unit.machine_calls()
    }

    /// The pid the machine started `unit`'s command as.
    fn pid(&self, unit: &str) -> String {
        let pid = &self.unit.machine()["services"][unit]["pid"];
        pid.as_u64()
            .unwrap_or_else(|| panic!("no pid of {unit}: {pid}"))
            .to_string()
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        for pid in self.unit.machine_pids() {
            // The unit's process leads a group of its own: kill the group.
            let _ = Command::new("kill")
                // `--`: procps' kill would read `-<pid>` as a signal.
                .args(["-9", "--", &format!("-{pid}")])
                .status();
        }
    }
}

/// Process `pid` is gone: absent, or a zombie no one reaps yet.
fn gone(pid: &str) -> bool {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"));
    match stat {
        Err(_) => true,
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to 5 s for process `pid` to be gone.
fn ends(pid: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

#[test]
fn undeclared_names_are_errors_the_charm_can_report() {
    let m = Machine::new();
    let got = m.answers(
        "service:stop:sshd status:cron run:rm-rf install:api-service,netcat run:fixed:extra",
    );
    assert_eq!(
        got,
        [
            r#"service:stop:sshd Err(Undeclared("service `sshd` is not declared in wasm-charm.yaml workload.services"))"#,
            r#"status:cron Err(Undeclared("service `cron` is not declared in wasm-charm.yaml workload.services"))"#,
            r#"run:rm-rf Err(Undeclared("command `rm-rf` is not declared in wasm-charm.yaml workload.commands"))"#,
            r#"install:api-service,netcat Err(Undeclared("package `netcat` is not declared in wasm-charm.yaml workload.packages.apt"))"#,
            r#"run:fixed:extra Err(Undeclared("command `fixed` takes no arguments from the charm (wasm-charm.yaml workload.commands.fixed.args is false)"))"#,
        ]
    );
    // Nothing reached the machine (not even the declared package).
    assert_eq!(m.calls(), Vec::<String>::new());
    let warnings = logged(&m.unit, "WARNING");
    assert!(
        warnings.contains(
            &"handler `calls`: workload.service: service `sshd` is not declared in wasm-charm.yaml workload.services"
                .to_string()
        ),
        "{warnings:#?}"
    );
    assert_eq!(
        warnings.iter().filter(|w| w.contains("workload.")).count(),
        5,
        "{warnings:#?}"
    );

    // A handler that returns the error with `?` is blocked with its message.
    m.unit
        .update_state(|s| s["config"]["strict"] = json!("sshd"));
    assert_success(&m.config_changed(""));
    assert_current(
        &store(&m.unit),
        "handler/strict",
        "blocked",
        "service `sshd` is not declared in wasm-charm.yaml workload.services",
    );
}

#[test]
fn services_are_systemctl_calls_and_failures_carry_its_words() {
    let m = Machine::new();
    m.unit.update_machine(|m| {
        m["services"]["calls-worker"]["fail"]["start"] = json!(
            "Job for calls-worker.service failed because the control process exited with error code."
        );
    });
    let got = m.answers(
        "status:api-service service:enable:api-service service:start:api-service status:api-service \
         service:reload:calls-worker service:start:calls-worker",
    );
    assert_eq!(
        got,
        [
            r#"status:api-service Ok(ServiceStatus { active: "inactive", enabled: "disabled" })"#,
            "service:enable:api-service Ok(())",
            "service:start:api-service Ok(())",
            r#"status:api-service Ok(ServiceStatus { active: "active", enabled: "enabled" })"#,
            r#"service:reload:calls-worker Err(Failed { tool: "systemctl", code: Some(1), message: "calls-worker.service is not active, cannot reload." })"#,
            r#"service:start:calls-worker Err(Failed { tool: "systemctl", code: Some(1), message: "Job for calls-worker.service failed because the control process exited with error code." })"#,
        ]
    );
    assert_eq!(
        m.calls(),
        [
            "systemctl is-active -- api-service",
            "systemctl is-enabled -- api-service",
            "systemctl enable -- api-service",
            "systemctl start -- api-service",
            "systemctl is-active -- api-service",
            "systemctl is-enabled -- api-service",
            "systemctl reload -- calls-worker",
            "systemctl start -- calls-worker",
        ]
    );
    // The machine started the unit for real, outside the host's process
    // group (which the host kills when systemctl exits); a stop ends it.
    let pid = m.pid("api-service");
    assert!(!gone(&pid), "api-service did not stay up");
    assert_eq!(
        m.answers("service:stop:api-service"),
        ["service:stop:api-service Ok(())"]
    );
    assert!(ends(&pid), "api-service still runs after a stop");
}

#[test]
fn a_restart_restarts_the_grace_period_of_the_probes_watching_the_unit() {
    let m = Machine::new();
    // No process `calls-worker` runs: probe `worker` fails, within its 60 s
    // grace period.
    assert!(m.answers("").is_empty());
    let down = "process calls-worker not running";
    assert_current(&store(&m.unit), "probe/worker", "maintenance", down);

    // Two minutes pass (the store is the only memory of time between
    // events): blocked, and a start does not change that.
    let mut s = store(&m.unit);
    for field in ["grace_start", "failing_since"] {
        let t = s["probes"]["worker"][field].as_u64().expect(field);
        s["probes"]["worker"][field] = json!(t - 120_000);
    }
    fs::write(store_path(&m.unit), serde_json::to_vec(&s).expect("encode"))
        .expect("write the store");
    assert_eq!(
        m.answers("service:start:calls-worker"),
        ["service:start:calls-worker Ok(())"]
    );
    assert_current(&store(&m.unit), "probe/worker", "blocked", down);
    let before = store(&m.unit)["probes"]["worker"]["grace_start"]
        .as_u64()
        .expect("grace_start");

    // A restart of the unit it watches: maintenance again, from now.
    assert_eq!(
        m.answers("service:restart:calls-worker"),
        ["service:restart:calls-worker Ok(())"]
    );
    let s = store(&m.unit);
    assert_current(&s, "probe/worker", "maintenance", down);
    let after = s["probes"]["worker"]["grace_start"]
        .as_u64()
        .expect("grace_start");
    assert!(after >= before + 120_000, "grace_start {before} -> {after}");
}

#[test]
fn commands_run_without_shell_environment_or_stdin_and_report_what_they_did() {
    let m = Machine::new();
    let got = m.answers("run:echo-args:a,b run:env run:pwd run:failing run:missing run:chatty");
    assert_eq!(
        got[..5],
        [
            r#"run:echo-args:a,b Ok(exit=Exit::Code(0) success=true stdout=10:"fixed a b\n" stderr=0:"" truncated=false)"#,
            r#"run:env Ok(exit=Exit::Code(0) success=true stdout=66:"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n" stderr=0:"" truncated=false)"#,
            r#"run:pwd Ok(exit=Exit::Code(0) success=true stdout=13:"/\nstdin done\n" stderr=0:"" truncated=false)"#,
            r#"run:failing Ok(exit=Exit::Code(7) success=false stdout=10:"half done\n" stderr=10:"disk full\n" truncated=false)"#,
            r#"run:missing Err(Unavailable("cannot run `/nonexistent/program`: No such file or directory (os error 2)"))"#,
        ]
    );
    // Both pipes filled at once: read together, each cut at 64 KiB.
    let chatty = &got[5];
    let x80 = "x".repeat(80);
    assert!(
        chatty.starts_with(&format!(
            "run:chatty Ok(exit=Exit::Code(0) success=true stdout=65536:\"{x80}\" stderr=65536:"
        )),
        "{chatty}"
    );
    assert!(chatty.ends_with("truncated=true)"), "{chatty}");
    // No tool of the machine was asked.
    assert_eq!(m.calls(), Vec::<String>::new());
}

#[test]
fn a_command_past_its_timeout_is_killed_with_every_process_it_started() {
    let m = Machine::new();
    let pids = m.unit.dir().join("spawner.pids");
    let start = Instant::now();
    let got = m.answers(&format!("run:spawner:{}", pids.display()));
    let took = start.elapsed();
    assert_eq!(got.len(), 1);
    assert!(
        got[0].ends_with(
            r#"Ok(exit=Exit::TimedOut success=false stdout=0:"" stderr=0:"" truncated=false)"#
        ),
        "{}",
        got[0]
    );
    // Its declared 1 s, not its 300 s, nor the handler's 20 s.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let text = fs::read_to_string(&pids).expect("the command wrote its pids");
    let pids: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(pids.len(), 2, "{text}");
    for pid in pids {
        assert!(ends(pid), "process {pid} outlived its command's timeout");
    }
}

#[test]
fn packages_are_installed_once_the_lock_is_waited_for_and_failures_are_typed() {
    let m = Machine::new();
    m.unit.update_machine(|m| m["packages"] = json!(["libpq5"]));
    assert_eq!(
        m.answers("install:libpq5,api-service"),
        ["install:libpq5,api-service Ok(())"]
    );
    assert_eq!(
        m.calls(),
        [
            "dpkg-query -W -f=${Status} -- api-service",
            "dpkg-query -W -f=${Status} -- libpq5",
            "apt-get install -y -q -o Dpkg::Options::=--force-confold api-service",
        ]
    );
    // Installed now: only asked about.
    assert_eq!(
        m.answers("install:api-service"),
        ["install:api-service Ok(())"]
    );
    assert_eq!(m.calls(), ["dpkg-query -W -f=${Status} -- api-service"]);

    // Another process holds the dpkg lock for two attempts: waited for.
    m.unit.update_machine(|m| m["apt"]["lock-held"] = json!(2));
    assert_eq!(m.answers("install:nope-pkg"), ["install:nope-pkg Ok(())"]);
    let apt: Vec<String> = m
        .calls()
        .into_iter()
        .filter(|c| c.contains("apt-get"))
        .collect();
    assert_eq!(apt.len(), 3, "{apt:#?}");
    let installed = |m: &Machine| m.unit.machine()["packages"].clone();
    assert_eq!(installed(&m), json!(["api-service", "libpq5", "nope-pkg"]));

    // apt-get's own failure, with its words: a repository without it.
    m.unit.update_machine(|m| {
        m["packages"] = json!(["api-service", "libpq5"]);
        m["apt"]["repository"] = json!({"api-service": {}, "libpq5": {}});
    });
    assert_eq!(
        m.answers("install:nope-pkg"),
        [
            r#"install:nope-pkg Err(Failed { tool: "apt-get", code: Some(100), message: "E: Unable to locate package nope-pkg" })"#
        ]
    );
    assert_eq!(installed(&m), json!(["api-service", "libpq5"]));
}

/// `wasm-charm run` of the packed charm with `calls`, with `tools` first on
/// `PATH`: the machine's tools served by `wasm-charm` outside any hook,
/// which fail any call that reaches them, so a real tool call would show.
fn offline(charm: &Path, state: &Path, tools: &Path, calls: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("run")
        .arg(charm)
        .arg("--state")
        .arg(state)
        .args(["--event", "config-changed", "--config"])
        .arg(format!("calls={calls}"))
        .env("PATH", format!("{}:/usr/bin:/bin", tools.display()))
        .env_remove("WASM_CHARM_SIM_SESSION")
        .output()
        .expect("run wasm-charm")
}

#[test]
fn offline_runs_act_on_the_state_files_machine_and_never_on_this_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.yaml");
    let tools = dir.path().join("tools");
    fs::create_dir_all(&tools).expect("create dir");
    for tool in support::MACHINE_TOOLS {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_wasm-charm"), tools.join(tool))
            .expect("link a tool");
    }
    fs::write(
        &state,
        "machine:\n  packages: [libpq5]\n  commands:\n    failing: {exit: 3, stdout: scripted}\n",
    )
    .expect("write state");
    let charm = packed(CHARM);
    let out = offline(
        &charm,
        &state,
        &tools,
        "service:start:api-service status:api-service run:failing run:fixed install:libpq5,api-service \
         service:reload:calls-worker",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "log: INFO CALL service:start:api-service Ok(())",
        r#"log: INFO CALL status:api-service Ok(ServiceStatus { active: "active", enabled: "disabled" })"#,
        r#"log: INFO CALL run:failing Ok(exit=Exit::Code(3) success=false stdout=8:"scripted" stderr=0:"" truncated=false)"#,
        r#"log: INFO CALL run:fixed Ok(exit=Exit::Code(0) success=true stdout=0:"" stderr=0:"" truncated=false)"#,
        "log: INFO CALL install:libpq5,api-service Ok(())",
        r#"log: INFO CALL service:reload:calls-worker Err(Failed { tool: "systemctl", code: Some(1), message: "calls-worker.service is not active, cannot reload." })"#,
        "machine: systemctl start -- api-service",
        "machine: true",
        "machine: apt-get install -y -q -o Dpkg::Options::=--force-confold api-service",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no line {line:?} in:\n{stdout}"
        );
    }
    let text = fs::read_to_string(&state).expect("read state");
    let doc: serde_json::Value = serde_saphyr::from_str(&text).expect("the state is YAML");
    assert_eq!(
        doc["machine"]["services"]["api-service"],
        json!({"active": "active", "enabled": "disabled"})
    );
    assert_eq!(doc["machine"]["packages"], json!(["api-service", "libpq5"]));
    assert_eq!(doc["machine"]["commands"]["failing"]["exit"], json!(3));

    // A scripted command the manifest does not declare: refused, exit 2.
    fs::write(&state, "machine:\n  commands:\n    nope: {}\n").expect("write state");
    let out = offline(&charm, &state, &tools, "");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`machine.commands.nope`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
