//! `wasm-charm run`: the gateway sequence on the embedded simulated Juju,
//! whose state is a YAML file an operator can read and edit.

mod support;

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

    // An unknown hook is not an error, as in Juju.
    std::fs::remove_file(&state).unwrap();
    let out = run(&charm, &state, &["--event", "frobnicate"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("hook `frobnicate` ignored"));
}
