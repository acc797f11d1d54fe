//! The built-in actions `show-status` and `self-check` (DESIGN §4, §5, §9),
//! dispatched as Juju runs an action: `JUJU_DISPATCH_PATH=actions/<name>`,
//! `JUJU_ACTION_NAME`, `JUJU_ACTION_UUID` and an empty `JUJU_HOOK_NAME`
//! (juju-protocol.md §1.2, §1.3), with the results sent by `action-set` and
//! a failure by `action-fail` (§2.12).
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;
use crate::support::reserved_port;

use reserved_port::ReservedPort;
use serde_json::{Value, json};
use std::net::{Ipv4Addr, TcpListener};
use std::process::{Command, Output};
use support::{Unit, assert_failure, assert_success, offline_ok as run, packed};

const SHOW_STATUS_ENV: &[(&str, &str)] = &[
    ("JUJU_ACTION_NAME", "show-status"),
    ("JUJU_ACTION_UUID", "1"),
];

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The gateway with two problems: the pilot relation missing since install,
/// and the config broken again after it was fixed once.
fn blocked_gateway() -> Unit {
    let unit = Unit::on_simulator(&packed("examples/gateway"), "gateway/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    assert_success(&unit.dispatch("install"));
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    assert_success(&unit.dispatch("config-changed"));
    unit.update_state(|s| s["config"]["kind"] = json!(""));
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": "Waiting for istio-pilot relation (+1 more)"})
    );
    unit
}

fn store_bytes(unit: &Unit) -> Vec<u8> {
    std::fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).expect("read scopes.json")
}

/// Each scope of a report with its history, the times left out:
/// `(scope line words, [change words])`.
fn scopes_of(report: &str) -> Vec<(String, Vec<String>)> {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in report.lines() {
        if let Some(change) = line.strip_prefix("      ") {
            let (_time, what) = change.split_once(' ').expect("a time, then the change");
            out.last_mut()
                .expect("history follows its scope")
                .1
                .push(words(what));
        } else if let Some(scope) = line.strip_prefix("  ") {
            out.push((words(scope), Vec::new()));
        }
    }
    out
}

#[test]
fn show_status_sends_every_scope_in_full_with_its_history() {
    let unit = blocked_gateway();
    let before = store_bytes(&unit);
    unit.clear_calls();
    let out = unit.dispatch_with("actions/show-status", SHOW_STATUS_ENV);
    assert_success(&out);

    // One tool call: the results. Nothing changed, so no status-set.
    let calls = unit.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0][0], "action-set");
    assert_eq!(calls[0].len(), 3, "two results: {calls:?}");
    let report = calls[0][1].strip_prefix("report=").expect("report first");
    let scopes = calls[0][2].strip_prefix("scopes=").expect("scopes second");

    // The report: the merged status, then every scope in full, ranked, each
    // with its history.
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "unit: blocked \"Waiting for istio-pilot relation (+1 more)\"",
            "app: never written (left to Juju)",
            "unit scopes, most important first:",
        ],
        "{report}"
    );
    assert_eq!(
        scopes_of(report),
        [
            (
                "handler/pilot blocked normal \"Waiting for istio-pilot relation\"".to_string(),
                vec!["install blocked \"Waiting for istio-pilot relation\"".to_string()]
            ),
            (
                "handler/config blocked normal \"Config item `kind` must be set\"".to_string(),
                vec![
                    "install blocked \"Config item `kind` must be set\"".to_string(),
                    "config-changed cleared".to_string(),
                    "config-changed blocked \"Config item `kind` must be set\"".to_string(),
                ]
            ),
        ],
        "{report}"
    );
    // The same text `wasm-charm status` prints on the unit.
    let status = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("status")
        .arg(unit.charm_dir())
        .output()
        .expect("run wasm-charm status");
    assert_success(&status);
    assert_eq!(report, String::from_utf8_lossy(&status.stdout));

    // The scopes: the store document itself, which the action left alone.
    let sent: Value = serde_json::from_str(scopes).expect("scopes is JSON");
    let stored: Value = serde_json::from_slice(&before).expect("scopes.json is JSON");
    assert_eq!(sent, stored);
    assert!(!scopes.contains('\n'), "compact JSON");
    assert_eq!(store_bytes(&unit), before, "the action changed the store");

    // Juju holds the results; the unit's status is untouched.
    let state = unit.state();
    assert_eq!(state["action-results"]["report"], report);
    assert_eq!(state["action-results"]["scopes"], scopes);
    assert_eq!(
        state["status"]["unit"]["message"],
        "Waiting for istio-pilot relation (+1 more)"
    );
}

#[test]
fn a_failing_action_set_fails_the_action_naming_the_tool() {
    let unit = blocked_gateway();
    unit.update_state(|s| {
        s["fail"] = json!({"action-set": {"code": 1, "stderr": "ERROR results too large"}})
    });
    let out = unit.dispatch_with("actions/show-status", SHOW_STATUS_ENV);
    assert_failure(&out);
    assert!(
        stderr(&out).contains(
            "the show-status results were not sent: action-set exited with code 1: results too large"
        ),
        "{}",
        stderr(&out)
    );
}

/// An action actions.yaml does not declare (a charm rolled back while it
/// was queued) runs nothing and exits 0, as ops does; the unit's log says
/// why.
#[test]
fn an_undeclared_action_exits_0_with_a_log_line() {
    let unit = blocked_gateway();
    let before = store_bytes(&unit);
    unit.clear_calls();
    unit.clear_debug_log();
    let out = unit.dispatch_with(
        "actions/backup",
        &[("JUJU_ACTION_NAME", "backup"), ("JUJU_ACTION_UUID", "2")],
    );
    assert_success(&out);
    assert_eq!(
        unit.debug_log(),
        "WARNING actions/backup: actions.yaml declares no action `backup`; nothing ran (exit 0, as ops does)\n"
    );
    assert_eq!(tools_called(&unit), ["juju-log"]);
    assert_eq!(store_bytes(&unit), before);
}

fn tools_called(unit: &Unit) -> Vec<String> {
    unit.calls().into_iter().map(|c| c[0].clone()).collect()
}

#[test]
fn show_status_offline_prints_the_report() {
    let charm = packed("examples/gateway");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    run(&charm, &state, &["--event", "install"]);
    run(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "kind=ingress"],
    );
    run(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "kind="],
    );

    let out = run(&charm, &state, &["--event", "actions/show-status"]);
    assert!(out.contains("event: action show-status\n"), "{out}");
    assert!(
        out.contains("unit: blocked \"Waiting for istio-pilot relation (+1 more)\" (unchanged)\n"),
        "{out}"
    );
    // The report, each line indented under its key.
    assert!(
        out.contains(
            "result report:\n    \
             unit: blocked \"Waiting for istio-pilot relation (+1 more)\"\n    \
             app: never written (left to Juju)\n    \
             unit scopes, most important first:\n      \
             handler/pilot "
        ),
        "{out}"
    );
    assert!(out.contains("\n      handler/config "), "{out}");
    let scopes = out
        .lines()
        .find_map(|l| l.strip_prefix("result scopes: "))
        .unwrap_or_else(|| panic!("no scopes result in:\n{out}"));
    let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(scopes).unwrap(),
        doc["scopes"],
        "the scopes result is the state's store"
    );
    assert_eq!(
        doc["calls"].as_array().unwrap().len(),
        1,
        "{}",
        doc["calls"]
    );
    assert!(
        doc["calls"][0]
            .as_str()
            .unwrap()
            .starts_with("action-set 'report=unit: blocked"),
        "{}",
        doc["calls"][0]
    );

    // The results belong to the run that made them.
    run(&charm, &state, &["--event", "update-status"]);
    let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(doc["action-results"], json!({}));
}

const SELF_CHECK_ENV: &[(&str, &str)] = &[
    ("JUJU_ACTION_NAME", "self-check"),
    ("JUJU_ACTION_UUID", "3"),
];

/// A gateway unit whose handlers all succeed, declaring the `self-check`
/// action and three probes (as tests/probes.rs adds one): `api-port`, gated,
/// on a port nothing listens on; `web`, gated, on `listening`; and
/// `paused`, which does not gate (`gate: false`), on the closed port too.
fn probed_gateway(closed: u16, listening: u16) -> Unit {
    let unit = support::ready_gateway_on_simulator();
    unit.append_to(
        "actions.yaml",
        "self-check:\n  description: Run every probe now.\n",
    );
    let probe = |name: &str, port: u16, extra: &str| {
        format!(
            "  {name}:\n    tcp: 127.0.0.1:{port}\n    timeout: 500ms\n    retries: 0\n    grace: 0s\n{extra}"
        )
    };
    unit.append_to(
        "wasm-charm.yaml",
        &format!(
            "probes:\n{}{}{}",
            probe("api-port", closed, ""),
            probe("web", listening, ""),
            probe("paused", closed, "    gate: false\n"),
        ),
    );
    unit
}

#[test]
fn self_check_runs_every_probe_and_fails_naming_the_unhealthy_gating_one() {
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).expect("reserve a port");
    let closed = reserved.port;
    let web = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("listen");
    let listening = web.local_addr().expect("the listener's address").port();
    let unit = probed_gateway(closed, listening);
    assert_success(&unit.dispatch("install"));

    unit.clear_calls();
    assert_success(&unit.dispatch_with("actions/self-check", SELF_CHECK_ENV));
    let down = format!("port 127.0.0.1:{closed} not listening");
    let up = format!("port 127.0.0.1:{listening} listening");
    let state = unit.state();
    let results = &state["action-results"];
    assert_eq!(
        results["summary"], "3 probes run, 1 of 2 gating probes healthy",
        "{results:#}"
    );
    assert_eq!(
        results["report"],
        format!(
            "api-port                 unhealthy gating     {down}\n\
             paused                   unhealthy not gating {down}\n\
             web                      healthy   gating     {up}\n\
             3 probes run, 1 of 2 gating probes healthy\n"
        )
    );
    let probes: Value =
        serde_json::from_str(results["probes"].as_str().expect("probes is a string"))
            .expect("probes is JSON");
    assert_eq!(
        probes,
        json!({
            "api-port": {"healthy": false, "gating": true, "detail": down, "attempts": 1},
            "paused": {"healthy": false, "gating": false, "detail": down, "attempts": 1},
            "web": {"healthy": true, "gating": true, "detail": up, "attempts": 1},
        })
    );
    // The action fails, naming the gating probe that is unhealthy and its
    // port; `paused` does not gate and is not counted.
    let failed = format!("1 of 2 gating probes unhealthy: api-port ({down})");
    assert_eq!(state["action-failed"], failed);
    assert_eq!(
        unit.calls_of("action-fail"),
        vec![vec!["action-fail".to_string(), "--".to_string(), failed]]
    );
    // The unit's status is the gated probe's, as at install: unchanged.
    assert_eq!(state["status"]["unit"]["message"], down);
    assert!(unit.calls_of("status-set").is_empty(), "{:?}", unit.calls());

    // show-status now shows each probe's last result, since when, and
    // whether it gates.
    assert_success(&unit.dispatch_with("actions/show-status", SHOW_STATUS_ENV));
    let report = unit.state()["action-results"]["report"]
        .as_str()
        .expect("a report")
        .to_string();
    let probes_at = report
        .find("probes, last result and since when:\n")
        .unwrap_or_else(|| panic!("no probes in:\n{report}"));
    let lines: Vec<&str> = report[probes_at..].lines().skip(1).collect();
    // Every declared probe: the two that gate, with their kept results,
    // and `paused`, which neither gates nor ever was judged.
    assert_eq!(lines.len(), 6, "{report}");
    assert_eq!(
        lines[0],
        format!("  api-port                     unhealthy   {down:?}")
    );
    let about = |line: &str| -> (String, String) {
        let line = line.strip_prefix("      since ").expect("since when");
        let (times, rest) = line.split_once("; ").expect("then the gate");
        (times.to_string(), rest.to_string())
    };
    let (times, rest) = about(lines[1]);
    assert!(times.contains("Z, recorded "), "{times}");
    assert!(
        rest.starts_with("gating (the manifest's gate); grace from "),
        "{rest}"
    );
    assert_eq!(lines[2], "  paused                       no result");
    assert_eq!(lines[3], "      not gating (the manifest's gate)");
    assert_eq!(
        lines[4],
        format!("  web                          healthy     {up:?}")
    );
    assert_eq!(about(lines[5]).1, "gating (the manifest's gate)");

    // The port opens: every gating probe is healthy, and the action does
    // not fail.
    let _api = reserved.listen().expect("listen on the reserved port");
    unit.update_state(|s| s["action-failed"] = Value::Null);
    unit.clear_calls();
    assert_success(&unit.dispatch_with("actions/self-check", SELF_CHECK_ENV));
    let state = unit.state();
    assert_eq!(
        state["action-results"]["summary"],
        "3 probes run, 2 of 2 gating probes healthy"
    );
    assert!(
        unit.calls_of("action-fail").is_empty(),
        "{:?}",
        unit.calls()
    );
    assert_eq!(state["action-failed"], Value::Null);
    // The gated probe healed the unit, with no handler observing the action.
    assert_eq!(
        unit.calls_of("status-set"),
        vec![vec!["status-set", "active", "--", ""]]
    );
}

/// A built-in action whose results cannot be sent fails the hook before the
/// store is saved: what the event found (here, a probe healed) is not kept,
/// as nothing of any failed hook is.
#[test]
fn a_self_check_whose_results_are_not_sent_keeps_nothing() {
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).expect("reserve a port");
    let web = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("listen");
    let listening = web.local_addr().expect("the listener's address").port();
    let unit = probed_gateway(reserved.port, listening);
    assert_success(&unit.dispatch("install"));
    let before = store_bytes(&unit);

    // The gated port opens: this event's probes would change the store.
    let _api = reserved.listen().expect("listen on the reserved port");
    unit.update_state(|s| {
        s["fail"] = json!({"action-set": {"code": 1, "stderr": "ERROR results too large"}})
    });
    let out = unit.dispatch_with("actions/self-check", SELF_CHECK_ENV);
    assert_failure(&out);
    assert_eq!(store_bytes(&unit), before, "a failed hook saved the store");
}
