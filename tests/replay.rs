//! Recording a unit's events in Juju mode and replaying them: the gateway
//! charm dispatched as Juju would, with fake hook tools, recording each
//! event; `wasm-charm replay` then runs the recording again, with the
//! same component (every event the same) and with a reworded one
//! (`tests/guests/gateway-reworded`: the events whose outcome changed are
//! named, with the diff).
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;

use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{Unit, assert_success, packed};
use wasm_charm_host::status::store::ScopeStore;
use wasm_charm_host::status::{store_chunks, store_juju};

const ON: (&str, &str) = ("WASM_CHARM_RECORD", "on");

fn gateway() -> Unit {
    let unit = Unit::on_simulator(&packed("examples/gateway"), "gateway/0");
    unit.set_state(json!({
        "leader": false,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    unit
}

fn recording(unit: &Unit) -> PathBuf {
    unit.charm_dir().join(".wasm-charm/recording.jsonl")
}

/// A relation hook of `istio-pilot:1`, with `extra` in its environment.
fn pilot_event(unit: &Unit, suffix: &str, extra: &[(&str, &str)]) -> Output {
    let mut env = vec![
        ("JUJU_RELATION", "istio-pilot"),
        ("JUJU_RELATION_ID", "istio-pilot:1"),
        ("JUJU_REMOTE_APP", "pilot"),
        ("JUJU_REMOTE_UNIT", "pilot/0"),
    ];
    env.extend_from_slice(extra);
    unit.dispatch_with(&format!("hooks/istio-pilot-relation-{suffix}"), &env)
}

/// The gateway's life so far, each event dispatched with `extra` in its
/// environment: install, config-changed, the pilot relation joined and
/// changed, leader-elected.
fn live(unit: &Unit, extra: &[(&str, &str)]) {
    assert_success(&unit.dispatch_with("hooks/install", extra));
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_success(&unit.dispatch_with("hooks/config-changed", extra));
    unit.update_state(|s| {
        s["relations"]["istio-pilot:1"] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {}, "unit-data": {"pilot/0": {}},
        })
    });
    assert_success(&pilot_event(unit, "joined", extra));
    unit.update_state(|s| {
        s["relations"]["istio-pilot:1"]["app-data"] =
            json!({"service-name": "pilot", "service-port": "15010"})
    });
    assert_success(&pilot_event(unit, "changed", extra));
    unit.update_state(|s| s["leader"] = json!(true));
    assert_success(&unit.dispatch_with("hooks/leader-elected", extra));
}

fn replay(args: &[&Path]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("replay")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run wasm-charm replay")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON document a line"))
        .collect()
}

#[test]
fn a_recorded_unit_replays_the_same_and_a_changed_component_shows_how() {
    let unit = gateway();
    live(&unit, &[ON]);

    let path = recording(&unit);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "hook answers may be secret");
    let recorded = events(&path);
    let names: Vec<&str> = recorded
        .iter()
        .map(|e| e["event"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        names,
        [
            "install",
            "config-changed",
            "istio-pilot-relation-joined",
            "istio-pilot-relation-changed",
            "leader-elected"
        ]
    );
    // What Juju gave the event, and what the event did.
    let install = &recorded[0];
    assert_eq!(install["env"]["JUJU_UNIT_NAME"], "gateway/0");
    assert!(install["env"].get("PATH").is_none(), "only JUJU_* is kept");
    let calls: Vec<&Value> = install["calls"].as_array().unwrap().iter().collect();
    let status_set = calls
        .iter()
        .find(|c| c["argv"][0] == "status-set")
        .expect("install wrote a status");
    assert_eq!(
        status_set["argv"],
        json!([
            "status-set",
            "blocked",
            "--",
            "Config item `kind` must be set (+2 more)"
        ])
    );
    assert!(status_set["answer"]["exited"]["code"] == 0);
    assert_eq!(install["outcome"]["exit"], 0);
    assert_eq!(install["outcome"]["wrote"], json!(["unit"]));
    assert_eq!(recorded[4]["outcome"]["unit"], json!("active: "));

    // The same component: every event does what it did.
    let out = replay(&[&path]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "event 1 (install): same",
            "event 2 (config-changed): same",
            "event 3 (istio-pilot-relation-joined): same",
            "event 4 (istio-pilot-relation-changed): same",
            "event 5 (leader-elected): same",
        ]
    );
    // The replay touched nothing of the unit.
    assert_eq!(events(&path), recorded);

    // A component whose pilot handler words its message otherwise.
    let reworded = packed("tests/guests/gateway-reworded");
    let out = replay(&[&path, Path::new("--charm"), &reworded]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let verdicts: Vec<&str> = stdout.lines().filter(|l| l.starts_with("event ")).collect();
    assert_eq!(
        verdicts,
        [
            "event 1 (install): 5 differences",
            "event 2 (config-changed): same",
            "event 3 (istio-pilot-relation-joined): same",
            "event 4 (istio-pilot-relation-changed): same",
            "event 5 (leader-elected): same",
        ],
        "{stdout}"
    );
    for shown in [
        // What the handler returned…
        "  handler results (- recorded, + replayed):\n\
         \x20   - config: set blocked: Config item `kind` must be set\n\
         \x20   + config: set blocked: Set config `kind` to ingress or egress\n\
         \x20     pilot: set blocked: Waiting for istio-pilot relation\n",
        // …what the unit shows…
        "  unit status:\n\
         \x20   recorded: Some(\"blocked: Config item `kind` must be set (+2 more)\")\n\
         \x20   replayed: Some(\"blocked: Set config `kind` to ingress or egress (+2 more)\")\n",
        // …what Juju was told…
        "    - status-set blocked -- 'Config item `kind` must be set (+2 more)'\n\
         \x20   + status-set blocked -- 'Set config `kind` to ingress or egress (+2 more)'\n",
        // …the scope kept…
        "  store after the event (- recorded, + replayed):\n",
        // …and the call the recording had no answer for.
        "  answers:\n    hook tool `status-set blocked -- 'Set config `kind` to ingress or egress (+2 more)'` \
         is not in the recording; answered as the recorded \
         `status-set blocked -- 'Config item `kind` must be set (+2 more)'`\n",
    ] {
        assert!(stdout.contains(shown), "{shown}\nnot in\n{stdout}");
    }

    // One event only.
    let out = replay(&[&path, Path::new("--event"), Path::new("2")]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, "event 2 (config-changed): same\n");
}

#[test]
fn the_manifest_bounds_the_recording_and_the_oldest_go() {
    let unit = gateway();
    unit.append_to("wasm-charm.yaml", "record: {events: 2}\n");
    // An operator reading the charm sees that it keeps hook answers.
    let inspect = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("inspect")
        .arg(unit.charm_dir())
        .output()
        .expect("run wasm-charm inspect");
    let (report, stderr) = text(&inspect);
    assert!(inspect.status.success(), "{stderr}");
    assert!(
        report.contains(
            "record: on, the last 2 events within 2097152 bytes in .wasm-charm/recording.jsonl"
        ),
        "{report}"
    );
    assert_success(&unit.dispatch("install"));
    unit.update_state(|s| s["config"]["kind"] = json!("egress"));
    assert_success(&unit.dispatch("config-changed"));
    unit.update_state(|s| s["leader"] = json!(true));
    assert_success(&unit.dispatch("leader-elected"));
    let names: Vec<Value> = events(&recording(&unit))
        .into_iter()
        .map(|e| e["event"].clone())
        .collect();
    assert_eq!(names, [json!("config-changed"), json!("leader-elected")]);

    // The variable overrides the manifest: off records nothing more.
    assert_success(&unit.dispatch_with("hooks/update-status", &[("WASM_CHARM_RECORD", "off")]));
    assert_eq!(events(&recording(&unit)).len(), 2);
    assert_eq!(
        events(&recording(&unit))[1]["event"],
        json!("leader-elected")
    );

    let out = replay(&[&recording(&unit)]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "event 1 (config-changed): same\nevent 2 (leader-elected): same\n"
    );
}

#[test]
fn a_recording_that_cannot_be_written_fails_no_hook() {
    let unit = gateway();
    // A directory where the recording goes: it cannot be written.
    std::fs::create_dir_all(recording(&unit)).unwrap();
    unit.clear_debug_log();
    let out = unit.dispatch_with("hooks/install", &[ON]);
    assert_success(&out);
    assert_eq!(
        unit.calls_of("status-set"),
        [vec![
            "status-set".to_string(),
            "blocked".into(),
            "--".into(),
            "Config item `kind` must be set (+2 more)".into()
        ]]
    );
    let log = unit.debug_log();
    assert!(
        log.lines()
            .any(|l| l.starts_with("WARNING recording the event failed: ")
                && l.contains("recording.jsonl")),
        "{log}"
    );
    // A variable that means nothing is a warning too, and records nothing.
    std::fs::remove_dir(recording(&unit)).unwrap();
    unit.clear_debug_log();
    assert_success(&unit.dispatch_with("hooks/update-status", &[("WASM_CHARM_RECORD", "lots")]));
    assert!(
        unit.debug_log()
            .contains("WARNING WASM_CHARM_RECORD=\"lots\" is not"),
        "{}",
        unit.debug_log()
    );
    assert!(!recording(&unit).exists());
}

#[test]
fn a_bad_recording_is_refused_naming_the_file_and_line() {
    let unit = gateway();
    assert_success(&unit.dispatch_with("hooks/install", &[ON]));
    let good = std::fs::read_to_string(recording(&unit)).unwrap();
    let dir = tempfile::tempdir().unwrap();

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{good}{{\"format\": 1, \"host\": \"x\"}}\n")).unwrap();
    let out = replay(&[&bad, Path::new("--charm"), unit.charm_dir()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("{}: line 2: missing field", bad.display())),
        "{stderr}"
    );
    assert_eq!(stdout, "", "nothing is replayed");

    // A store the host cannot read, named by its field.
    let broken = good.replacen("\"store\":{", "\"store\":{\"bogus\":1,", 1);
    assert_ne!(broken, good);
    std::fs::write(&bad, broken).unwrap();
    let out = replay(&[&bad, Path::new("--charm"), unit.charm_dir()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: event 1: field `store`", bad.display())),
        "{stderr}"
    );

    let out = replay(&[&recording(&unit), Path::new("--event"), Path::new("3")]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--event 3: "), "{stderr}");
    assert!(stderr.contains("holds events 1 to 1"), "{stderr}");

    let out = replay(&[&dir.path().join("missing.jsonl")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("missing.jsonl: cannot read it"));
}

#[test]
fn workload_calls_and_probes_are_answered_from_the_recording() {
    // The simulated machine of tests/workload.rs, its units state only.
    let unit = Unit::on_simulator(&packed("tests/guests/workload-calls"), "workload-calls/0");
    unit.update_machine(|m| m["units"] = json!({"api-service": {}, "calls-worker": {}}));
    let env = [ON];
    unit.update_state(|s| {
        s["config"]["calls"] =
            json!("status:api-service service:enable:calls-worker run:echo-args:hi")
    });
    assert_success(&unit.dispatch_with("hooks/config-changed", &env));
    unit.update_state(|s| s["config"]["calls"] = json!("status:calls-worker"));
    assert_success(&unit.dispatch_with("hooks/config-changed", &env));

    let recorded = events(&recording(&unit));
    let workload: Vec<&Value> = recorded[0]["workload"].as_array().unwrap().iter().collect();
    assert_eq!(
        workload,
        [
            &json!({"call": ["service-state", "api-service"],
                    "answer": {"state": {"active": "inactive", "enabled": "disabled"}}}),
            &json!({"call": ["service", "calls-worker", "enable"], "answer": "done"}),
            &json!({"call": ["run-command", "echo-args", "echo", "fixed", "hi"],
                    "answer": {"output": {"exit": {"code": 0}, "stdout": "fixed hi\n",
                               "stderr": "", "truncated": false}}}),
        ]
    );
    // The process probe `worker` gates: it ran, unhealthy (nothing runs).
    assert_eq!(recorded[0]["probes"][0]["name"], "worker");
    assert_eq!(recorded[0]["probes"][0]["healthy"], false);
    assert!(!recorded[0]["clock"].as_array().unwrap().is_empty());
    assert_eq!(
        recorded[1]["workload"][0]["answer"]["state"]["enabled"],
        "enabled"
    );

    // Replayed outside any unit (no machine tools on PATH): every answer comes
    // from the recording, the probe's grace period from its clock.
    let out = replay(&[&recording(&unit)]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "event 1 (config-changed): same\nevent 2 (config-changed): same\n"
    );
}

#[test]
fn a_juju_store_is_read_back_through_the_recorded_calls() {
    let unit = gateway();
    unit.append_to("wasm-charm.yaml", "store: juju\n");
    assert_success(&unit.dispatch_with("hooks/install", &[ON]));
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_success(&unit.dispatch_with("hooks/config-changed", &[ON]));
    let recorded = events(&recording(&unit));
    assert_eq!(recorded[1]["backend"], "juju");
    assert!(recorded[1].get("store").is_none());
    let tools: Vec<&Value> = recorded[1]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["argv"][0])
        .collect();
    assert!(tools.contains(&&json!("state-get")), "{tools:?}");
    assert!(tools.contains(&&json!("state-set")), "{tools:?}");

    let out = replay(&[&recording(&unit)]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "event 1 (install): same\nevent 2 (config-changed): same\n"
    );
}

/// A store near Juju's 2 MiB: 960 KiB of stored data and 150 scopes with
/// their histories, about 1.9 MB.
fn store_near_2_mib() -> Value {
    let value = "v".repeat(64 << 10);
    let data: serde_json::Map<String, Value> = (0..15)
        .map(|i| (format!("fill-{i:02}"), json!(value.clone())))
        .collect();
    let message = "m".repeat(480);
    let scopes: serde_json::Map<String, Value> = (0..150)
        .map(|i| {
            let history: Vec<Value> = (0..10)
                .map(|h| json!({"status": "waiting", "message": format!("{h} {message}"), "event": "install", "time": 1}))
                .collect();
            let current = json!({"status": "waiting", "message": format!("9 {message}"), "since": 1});
            (format!("scope-{i:03}"), json!({"current": current, "history": history}))
        })
        .collect();
    let store = json!({"format": 2, "clock": 1, "unit": scopes, "data": data});
    let size = serde_json::to_string(&store).expect("encode").len();
    assert!(
        (1_800_000..2_000_000).contains(&size),
        "the store is {size} bytes"
    );
    store
}

/// The hostile charm writing stored data each event, recording, with
/// `store` holding the store of [`store_near_2_mib`]: run four events, then
/// check that each was recorded within the default bounds (2 MiB), the
/// first holding the store once and the next ones only their changes, and
/// that each replays the same.
fn records_and_replays_a_store_near_2_mib(store: &str) {
    let unit = Unit::on_simulator(&packed("tests/guests/hostile"), "hostile/0");
    unit.update_state(|s| {
        s["leader"] = json!(true);
        s["config"] = json!({"mode": "stored-write"});
    });
    unit.append_to(
        "wasm-charm.yaml",
        &format!("record: true\nstore: {store}\n"),
    );
    let doc = store_near_2_mib();
    if store == "juju" {
        // Cut into Juju's charm state as the host's save cuts it.
        let store = ScopeStore::decode(doc.to_string().as_bytes()).expect("a store");
        let keys = store_chunks::split(&store_juju::encode(&store));
        unit.update_state(|s| s["charm-state"] = json!(keys));
    } else {
        let host = unit.charm_dir().join(".wasm-charm");
        std::fs::create_dir_all(&host).expect("create .wasm-charm");
        std::fs::write(host.join("scopes.json"), doc.to_string()).expect("write the store");
    }

    for hook in [
        "config-changed",
        "update-status",
        "config-changed",
        "leader-elected",
    ] {
        assert_success(&unit.dispatch(hook));
    }
    assert!(
        !unit.debug_log().contains("recording the event failed"),
        "{}",
        unit.debug_log()
    );
    let path = recording(&unit);
    let recorded = events(&path);
    assert_eq!(recorded.len(), 4, "every event is recorded");
    let file = std::fs::metadata(&path).expect("the recording").len();
    assert!(file <= 2 << 20, "the recording is {file} bytes");
    assert!(recorded[0]["store"].is_object());
    assert!(
        recorded[1..]
            .iter()
            .all(|e| e["store-previous"] == json!(true))
    );
    let out = replay(&[&path]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.matches(": same").count(), 4, "{stdout}");
    // The stored count moved on with each event: the changes were replayed.
    assert!(
        stdout.contains("event 4 (leader-elected): same"),
        "{stdout}"
    );
}

#[test]
fn a_local_store_near_2_mib_records_and_replays_several_events() {
    records_and_replays_a_store_near_2_mib("local");
}

/// In Juju's charm state the store is also in every `state-get` answer and
/// `state-set` input: those calls keep only the other keys, the store's
/// being made again from the recorded stores when the file is read.
#[test]
fn a_juju_store_near_2_mib_records_and_replays_several_events() {
    records_and_replays_a_store_near_2_mib("juju");
}
