//! `wasm-charm run`: the gateway sequence on the embedded simulated Juju,
//! whose state is a YAML file an operator can read and edit.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::HOSTILE;
use serde_json::json;
use std::path::Path;
use support::{offline_ok as ok, offline_run as run, packed};

fn unit_line(stdout: &str) -> &str {
    stdout
        .lines()
        .find(|l| l.starts_with("unit: "))
        .unwrap_or_else(|| panic!("no unit line in:\n{stdout}"))
}

#[test]
fn gateway_sequence_offline() {
    let charm = packed("examples/gateway");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");

    let out = ok(&charm, &state, &["--event", "install"]);
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"Config item `kind` must be set (+1 more)\" (status-set)"
    );
    assert!(
        out.contains("  handler config: set blocked \"Config item `kind` must be set\""),
        "{out}"
    );
    assert!(out.contains("  handler leader: cleared"), "{out}");
    assert!(out.contains("app: left to Juju"), "{out}");

    let out = ok(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "kind=ingress"],
    );
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"Waiting for istio-pilot relation\" (status-set)"
    );

    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "istio-pilot-relation-changed",
            "--relation",
            "istio-pilot:1",
            "--remote-app",
            "pilot",
        ],
    );
    assert_eq!(
        unit_line(&out),
        "unit: waiting \"Waiting for istio-pilot relation data\" (status-set)"
    );

    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "istio-pilot-relation-changed",
            "--remote-app-data",
            "service-name=pilot",
            "--remote-app-data",
            "service-port=15010",
        ],
    );
    assert_eq!(unit_line(&out), "unit: active \"\" (status-set)");

    // Nothing changes: no status-set.
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert_eq!(unit_line(&out), "unit: active \"\" (unchanged)");

    let out = ok(&charm, &state, &["--event", "istio-pilot-relation-broken"]);
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"Waiting for istio-pilot relation\" (status-set)"
    );

    let out = ok(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "kind="],
    );
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"Waiting for istio-pilot relation (+1 more)\" (status-set)"
    );

    // The state file is YAML a person can read: Juju's side and the scopes.
    let yaml = std::fs::read_to_string(&state).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(doc["status"]["unit"]["status"], "blocked");
    assert_eq!(
        doc["status"]["unit"]["message"],
        "Waiting for istio-pilot relation (+1 more)"
    );
    assert_eq!(
        doc["relations"],
        serde_json::json!({}),
        "the broken relation is gone"
    );
    assert_eq!(doc["config"]["kind"], "");
    assert_eq!(
        doc["scopes"]["unit"]["handler/pilot"]["current"]["status"],
        "blocked"
    );
    assert_eq!(doc["unit"], "gateway/0");
    // The hook-tool calls of the last event, as Juju would have received them.
    assert_eq!(
        doc["calls"],
        serde_json::json!([
            "config-get --format=json",
            "is-leader --format=json",
            "status-set blocked -- 'Waiting for istio-pilot relation (+1 more)'"
        ])
    );
}

#[test]
fn offline_errors_name_what_is_wrong() {
    let charm = packed("examples/gateway");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");

    let out = run(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "knd=x"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("config.yaml declares no option `knd`"));

    let out = run(&charm, &state, &["--event", "istio-pilot-relation-changed"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--remote-app"));

    std::fs::write(&state, "leader: [\n").unwrap();
    let out = run(&charm, &state, &["--event", "install"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("state.yaml: not a valid state file"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "leader: [\n",
        "a bad state file is left alone"
    );

    // Scopes written by a newer host are refused, and the file kept as it is.
    let newer = "scopes:\n  format: 9\n  clock: 0\n";
    std::fs::write(&state, newer).unwrap();
    let out = run(&charm, &state, &["--event", "install"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("written by a newer wasm-charm"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&state).unwrap(), newer);

    // Juju ignores a hook the charm does not know; a person who typed one
    // hears about it, with the closest event of this charm, and nothing is
    // written. (Before: exit 0, "hook `frobnicate` ignored".)
    std::fs::remove_file(&state).unwrap();
    let out = run(&charm, &state, &["--event", "instal"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("did you mean `install`?"), "{stderr}");
    assert!(!state.exists());
}

fn doc(state: &Path) -> serde_json::Value {
    serde_saphyr::from_str(&std::fs::read_to_string(state).unwrap()).unwrap()
}

fn section(state: &Path, key: &str) -> String {
    serde_json::to_string(&doc(state)[key]).unwrap()
}

/// A failed hook commits nothing in Juju: the relation data and the scopes in
/// the state file stay as the hook found them, and the departing unit stays.
/// Before the fix, the state was saved first: the marker handler's scope and
/// the departed unit's removal were kept.
#[test]
fn a_failed_hook_saves_no_relation_data_and_no_scopes() {
    let charm = packed(HOSTILE);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "relations:\n  db:1:\n    app: pg\n    units: [pg/0, pg/1]\n    \
         unit-data:\n      pg/1: {k: v}\n",
    )
    .unwrap();
    ok(
        &charm,
        &state,
        &["--event", "install", "--config", "mode=ok"],
    );
    let relations = section(&state, "relations");
    let scopes = section(&state, "scopes");
    assert!(scopes.contains("marker saw ok"), "{scopes}");

    let out = run(
        &charm,
        &state,
        &[
            "--event",
            "db-relation-departed",
            "--remote-unit",
            "pg/1",
            "--config",
            "mode=panic",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "a failed hook exits 1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("were not saved"), "{stderr}");
    assert_eq!(section(&state, "relations"), relations);
    assert_eq!(section(&state, "scopes"), scopes);
    // What is informational or acts at once in Juju is kept.
    let after = doc(&state);
    assert_eq!(after["config"]["mode"], "panic");
    assert!(
        !after["calls"].as_array().unwrap().is_empty(),
        "the calls of the failed event are kept"
    );
    assert_eq!(after["status"]["unit"]["status"], "blocked");

    // The same event, now succeeding, lets the unit leave.
    ok(
        &charm,
        &state,
        &[
            "--event",
            "db-relation-departed",
            "--remote-unit",
            "pg/1",
            "--config",
            "mode=ok",
        ],
    );
    assert_eq!(doc(&state)["relations"]["db:1"]["units"], json!(["pg/0"]));
}

/// Bad command-line arguments exit 2 (the README's promise); before, a
/// malformed `--config` or `--relation` exited 1.
#[test]
fn bad_arguments_exit_2() {
    let charm = packed("examples/gateway");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    for (args, says) in [
        (
            &["--event", "config-changed", "--config", "kind"][..],
            "--config takes KEY=VALUE",
        ),
        (
            &["--event", "config-changed", "--config", "knd=x"],
            "declares no option `knd`",
        ),
        (&["--event", "install", "--bogus"], "--bogus"),
        (
            &[
                "--event",
                "istio-pilot-relation-changed",
                "--relation",
                "pilot",
                "--remote-app",
                "p",
            ],
            "--relation `pilot`",
        ),
        (&["--event", "istio-pilot-relation-changed"], "--remote-app"),
        (
            &["--event", "install", "--remote-app-data", "k=v"],
            "--remote-app-data",
        ),
        (&["--event", "secret-changed"], "--secret-id"),
    ] {
        let out = run(&charm, &state, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!state.exists(), "{args:?} wrote the state");
    }
}

/// A hook of an endpoint metadata.yaml does not declare records no relation;
/// before, it did, while saying the hook was ignored.
#[test]
fn an_undeclared_endpoint_records_no_relation() {
    let charm = packed("examples/gateway");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    let out = run(
        &charm,
        &state,
        &["--event", "istio-pilo-relation-joined", "--remote-app", "x"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("did you mean `istio-pilot-relation-joined`?"),
        "{stderr}"
    );
    assert!(!state.exists());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn wasm_charm(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(args)
        .output()
        .unwrap()
}

/// Without `--state`, `run` keeps its state beside the charm directory (not
/// inside, where it would ship), and `status` reads that same state and says
/// so; without one, it reads the charm's store and creates nothing.
#[test]
fn default_state_is_beside_the_charm_and_status_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("gw");
    copy_dir(&packed("examples/gateway"), &charm);
    let c = charm.as_os_str();
    let store_dir = charm.join(".wasm-charm");
    let before: Vec<_> = std::fs::read_dir(&store_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();

    let out = wasm_charm(&["status".as_ref(), c]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("reading the charm's store ") && stderr.contains("scopes.json"),
        "{stderr}"
    );
    let after: Vec<_> = std::fs::read_dir(&store_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after, "status created nothing");

    let out = wasm_charm(&["run".as_ref(), c, "--event".as_ref(), "install".as_ref()]);
    assert!(out.status.success(), "{out:?}");
    let state = dir.path().join("gw.offline-state.yaml");
    assert!(state.is_file(), "{out:?}");
    assert!(!charm.join(".wasm-charm/offline-state.yaml").exists());

    let out = wasm_charm(&["status".as_ref(), c]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("reading the offline state ")
            && stderr.contains("gw.offline-state.yaml"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Config item `kind` must be set"),
        "{stdout}"
    );

    // A missing --state is an error, not an empty report.
    let missing = dir.path().join("nope.yaml");
    let out = wasm_charm(&[
        "status".as_ref(),
        c,
        "--state".as_ref(),
        missing.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_documents_the_defaults() {
    let out = wasm_charm(&["run".as_ref(), "--help".as_ref()]);
    let help = String::from_utf8_lossy(&out.stdout);
    for default in [
        ".offline-state.yaml beside the charm directory",
        "<charm name>/0",
        "leadership   true",
        "<endpoint>:<n>",
        "--secret-revision",
        "--notice-id",
        "--storage",
        "the state's `probes`",
        "action failed: <message>",
        "at 10.0.0.10 on 10.0.0.0/24",
        "credential-get fails until the state says `trusted:",
        "the state's `resources`",
        "secret-add makes `secret:<id>` ids",
    ] {
        assert!(help.contains(default), "{default} in:\n{help}");
    }
}

/// Edit the state file as an operator would, through its YAML.
fn edit(state: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut d = doc(state);
    f(&mut d);
    std::fs::write(state, serde_saphyr::to_string(&d).unwrap()).unwrap();
}

/// The state file scripts probe outcomes, so an operator can play "the
/// service went down" offline: a scripted name is answered from the file
/// (here against what the port says), kept from run to run; a probe not
/// scripted runs for real; an undeclared name is refused.
#[test]
fn scripted_probe_outcomes_drive_the_unit_offline() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("gw");
    copy_dir(&packed("examples/gateway"), &charm);
    let manifest = charm.join("wasm-charm.yaml");
    let mut text = std::fs::read_to_string(&manifest).unwrap_or_default();
    for name in ["api-port", "web"] {
        text.push_str(if name == "api-port" { "probes:\n" } else { "" });
        text.push_str(&format!(
            "  {name}:\n    tcp: 127.0.0.1:{port}\n    retries: 0\n    grace: 0s\n"
        ));
    }
    std::fs::write(&manifest, text).unwrap();
    let actions = charm.join("actions.yaml");
    let mut text = std::fs::read_to_string(&actions).unwrap_or_default();
    text.push_str("self-check:\n  description: Run every probe now.\n");
    std::fs::write(&actions, text).unwrap();
    let state = dir.path().join("state.yaml");
    // Every handler of the gateway succeeds with this config and relation.
    std::fs::write(
        &state,
        "config: {kind: ingress}\n\
         relations:\n  istio-pilot:4:\n    app: pilot\n    units: [pilot/0]\n    \
         app-data: {service-name: p, service-port: \"1\"}\n\
         probes:\n  api-port: {healthy: false, detail: \"api answered 503 (scripted)\"}\n",
    )
    .unwrap();

    // The port listens, yet the scripted outcome blocks the unit at once
    // (`grace: 0s`) with the scripted detail; `web`, not scripted, ran for
    // real.
    let out = ok(&charm, &state, &["--event", "install"]);
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"api answered 503 (scripted)\" (status-set)"
    );
    assert!(
        out.contains(
            "probes:\n  api-port                     unhealthy   \"api answered 503 (scripted)\"\n      since "
        ),
        "{out}"
    );
    let web =
        format!("  web                          healthy     \"port 127.0.0.1:{port} listening\"\n");
    assert!(out.contains(&web), "{out}");
    assert!(
        out.contains("  scripted by the state file: api-port\n"),
        "{out}"
    );
    // The scenario stays in the file for the next run.
    assert_eq!(
        doc(&state)["probes"],
        json!({"api-port": {"healthy": false, "detail": "api answered 503 (scripted)"}})
    );
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"api answered 503 (scripted)\" (unchanged)"
    );

    // The self-check action fails on the simulated Juju too, naming the
    // probe; the failure belongs to the run that made it.
    let out = ok(&charm, &state, &["--event", "actions/self-check"]);
    let failed = "1 of 2 gating probes unhealthy: api-port (api answered 503 (scripted))";
    assert!(
        out.contains(&format!("\naction failed: {failed}\n")),
        "{out}"
    );
    assert!(
        out.contains("result summary: 2 probes run, 1 of 2 gating probes healthy\n"),
        "{out}"
    );
    assert_eq!(doc(&state)["action-failed"], failed);
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert!(!out.contains("action failed"), "{out}");
    assert!(doc(&state).get("action-failed").is_none());

    // `wasm-charm status` shows each probe's last result and since when.
    let out = wasm_charm(&[
        "status".as_ref(),
        charm.as_os_str(),
        "--state".as_ref(),
        state.as_os_str(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let probes = stdout
        .split_once("probes, last result and since when:\n")
        .unwrap_or_else(|| panic!("no probes in:\n{stdout}"))
        .1;
    let lines: Vec<&str> = probes.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert_eq!(
        lines[0],
        "  api-port                     unhealthy   \"api answered 503 (scripted)\""
    );
    assert!(lines[1].starts_with("      since "), "{stdout}");
    assert!(
        lines[1].contains("Z; gating (the manifest's gate); grace from "),
        "{stdout}"
    );
    assert_eq!(format!("{}\n", lines[2]), web);
    assert!(
        lines[3].ends_with("Z; gating (the manifest's gate)"),
        "{stdout}"
    );

    // The operator flips the outcome: the unit is active.
    edit(&state, |d| d["probes"]["api-port"]["healthy"] = json!(true));
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert_eq!(unit_line(&out), "unit: active \"\" (status-set)");

    // Without `detail`, the message names the probe and says it is scripted.
    edit(&state, |d| {
        d["probes"]["api-port"] = json!({"healthy": false})
    });
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert_eq!(
        unit_line(&out),
        format!(
            "unit: blocked \"probe api-port (port 127.0.0.1:{port}) unhealthy, as the state \
             file scripts it\" (status-set)"
        )
    );

    // A name the manifest does not declare is a usage error naming the file
    // and the field, and the file is left as it was.
    edit(&state, |d| {
        d["probes"]["api-prot"] = json!({"healthy": true})
    });
    let before = std::fs::read_to_string(&state).unwrap();
    let out = run(&charm, &state, &["--event", "update-status"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: `probes.api-prot`: the charm's wasm-charm.yaml declares no probe `api-prot` \
             (declared: api-port, web)",
            state.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&state).unwrap(), before);
    drop(listener);
}
