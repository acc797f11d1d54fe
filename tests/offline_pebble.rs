//! `wasm-charm run` with the simulated Pebble: the web-k8s example's
//! container answered from the state file's `containers:` section through
//! the host's real Pebble client, over a socket under the run's workload
//! root that exists only while the event runs.

use crate::support;

use serde_json::{Value, json};
use std::path::Path;
use support::{offline_ok as ok, offline_run as run, packed};

fn doc(state: &Path) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(state).unwrap()).unwrap()
}

fn edit(state: &Path, f: impl FnOnce(&mut Value)) {
    let mut d = doc(state);
    f(&mut d);
    std::fs::write(state, serde_saphyr::to_string(&d).unwrap()).unwrap();
}

const CONFIG_FILE: &str = "/etc/web/web.conf";

#[test]
fn files_pushed_are_kept_and_pulled_back_from_the_state() {
    let charm = packed("examples/web-k8s");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    let out = ok(&charm, &state, &["--event", "web-pebble-ready"]);
    assert!(
        out.contains("pebble web: push /etc/web/web.conf\n"),
        "{out}"
    );
    assert!(out.contains("unit: active \"Serving\""), "{out}");
    // Kept with its mode and the owner the push named.
    let pushed = doc(&state)["containers"]["web"]["files"][CONFIG_FILE].clone();
    assert!(
        pushed["content"]
            .as_str()
            .unwrap()
            .contains("port = 8080\n"),
        "{pushed}"
    );
    assert_eq!(pushed["permissions"], "640", "{pushed}");
    assert_eq!(
        pushed["owner"],
        json!({"user-id": 584792, "group-id": 584792}),
        "{pushed}"
    );
    // The socket lives only while the event runs.
    let socket = dir
        .path()
        .join("state.root/charm/containers/web/pebble.socket");
    assert!(!socket.exists(), "{}", socket.display());

    // The same bytes pulled back: nothing pushed, nothing restarted.
    let out = ok(&charm, &state, &["--event", "config-changed"]);
    assert!(
        out.contains("pebble web: pull /etc/web/web.conf\n"),
        "{out}"
    );
    assert!(!out.contains("push"), "{out}");

    // Someone changed the file in the container: pushed again, and the
    // running server restarted.
    edit(&state, |d| {
        d["containers"]["web"]["files"][CONFIG_FILE] = json!("port = 1\n");
    });
    let out = ok(&charm, &state, &["--event", "config-changed"]);
    assert!(
        out.contains("pebble web: push /etc/web/web.conf\n"),
        "{out}"
    );
    assert!(out.contains("pebble web: restart web\n"), "{out}");
    assert_eq!(
        doc(&state)["containers"]["web"]["files"][CONFIG_FILE],
        pushed
    );
    assert_eq!(
        doc(&state)["containers"]["web"]["services"],
        json!({"web": "active"})
    );
}

#[test]
fn exec_answers_the_scripted_outcome() {
    let charm = packed("examples/web-k8s");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "containers:\n  web:\n    exec:\n      check-config: {exit: 2, stdout: 'port 8080', \
         stderr: \"greeting: empty\\n\"}\n",
    )
    .unwrap();
    let out = ok(&charm, &state, &["--event", "actions/check-config"]);
    assert!(out.contains("result output: port 8080\n"), "{out}");
    assert!(
        out.contains(
            "action failed: web-server finds /etc/web/web.conf unusable: greeting: empty\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "pebble web: exec web-server --check /etc/web/web.conf [env LANG=C.UTF-8, dir /, \
             user-id 584792, group-id 584792]\n"
        ),
        "{out}"
    );
    // Kept from run to run until edited; a timeout as Pebble reports one.
    edit(&state, |d| {
        d["containers"]["web"]["exec"]["check-config"] = json!({"exit": "timed-out"});
    });
    let out = ok(&charm, &state, &["--event", "actions/check-config"]);
    assert!(out.contains("action failed: web-server finds"), "{out}");
    // Not scripted: exits 0 and prints nothing.
    edit(&state, |d| {
        d["containers"]["web"]
            .as_object_mut()
            .unwrap()
            .remove("exec");
    });
    let out = ok(&charm, &state, &["--event", "actions/check-config"]);
    assert!(out.contains("result output: \n"), "{out}");
    assert!(!out.contains("action failed"), "{out}");
}

#[test]
fn probes_ask_the_simulated_pebble_and_scripted_ones_still_win() {
    let charm = packed("examples/web-k8s");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    ok(&charm, &state, &["--event", "web-pebble-ready"]);
    edit(&state, |d| {
        d["containers"]["web"]["checks"] = json!({"alive": {"status": "down", "failures": 5}});
    });
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert!(
        out.contains("\"check web/alive down (5 of 3 failures)\""),
        "{out}"
    );
    edit(&state, |d| {
        d["probes"] = json!({"web-alive": {"healthy": true}});
        d["containers"]["web"]["services"] = json!({"web": "error"});
    });
    let out = ok(&charm, &state, &["--event", "update-status"]);
    assert!(
        out.contains("scripted by the state file: web-alive"),
        "{out}"
    );
    assert!(out.contains("\"service web/web error\""), "{out}");
    // Pebble not answering: no socket at all.
    edit(&state, |d| {
        d["containers"]["web"]["can-connect"] = json!(false);
    });
    let out = ok(&charm, &state, &["--event", "config-changed"]);
    assert!(
        out.contains("unit: waiting \"waiting for Pebble in web\""),
        "{out}"
    );
    assert!(!out.contains("pebble web:"), "{out}");
}

#[test]
fn a_container_or_command_the_charm_lacks_is_refused() {
    let charm = packed("examples/web-k8s");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    for (text, field) in [
        (
            "containers:\n  db: {}\n",
            "`containers.db`: metadata.yaml declares no container `db` (containers: web)",
        ),
        (
            "containers:\n  web:\n    exec: {reload: {exit: 1}}\n",
            "`containers.web.exec.reload`: the charm's wasm-charm.yaml declares no command `reload` for container web (declared: check-config, validate-config)",
        ),
        (
            "containers:\n  web:\n    files: {etc/x: a}\n",
            "`containers.web.files.etc/x`",
        ),
        (
            "containers:\n  web:\n    layers: [{label: a, services: {w: {command: x}}}]\n",
            "`containers.web.layers[0]`: layer \"a\" must define \"override\" for service \"w\"",
        ),
    ] {
        std::fs::write(&state, text).unwrap();
        let out = run(&charm, &state, &["--event", "install"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(field), "{text}: {stderr}");
        assert!(stderr.contains(&state.display().to_string()), "{stderr}");
        assert_eq!(std::fs::read_to_string(&state).unwrap(), text, "unchanged");
    }
    // Never the machine's own /charm/containers.
    std::fs::write(&state, "").unwrap();
    let out = run(&charm, &state, &["--event", "install", "--root", "/"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("other than /"), "{stderr}");
}

/// A failed hook commits nothing of Juju's, but Pebble acted at once: the
/// containers stay as the event left them.
#[test]
fn a_failed_hook_keeps_the_containers() {
    let charm = packed("tests/guests/model-echo");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "containers:\n  workload:\n    files: {/etc/a: a}\n    calls: [from before]\n",
    )
    .unwrap();
    let out = run(
        &charm,
        &state,
        &["--event", "config-changed", "--config", "calls=panic"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        doc(&state)["containers"],
        json!({"workload": {"files": {"/etc/a": "a"}, "dirs": ["/etc"]}}),
        "kept, the last event's calls cleared"
    );
}

/// The layer of the `pebble-calls` tests: service `web` enabled, check `up`,
/// check `later` disabled.
const CALLS_LAYER: &str = "services:\n  web:\n    override: replace\n    command: sleep 300\n    \
                           startup: enabled\nchecks:\n  up:\n    override: replace\n    \
                           period: 1s\n    exec: {command: 'true'}\n  later:\n    \
                           override: replace\n    startup: disabled\n    \
                           exec: {command: 'false'}\n";

/// `pebble-calls` making `calls` in a `wasm-charm run` of `event` over the
/// state file's container `web` (`state`, YAML), then each answer by call,
/// and the container as the run left it.
fn run_calls(calls: &str, state_yaml: &str, event: &[&str]) -> (Vec<(String, String)>, Value) {
    let charm = packed("tests/guests/pebble-calls");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(&state, state_yaml).unwrap();
    let calls_arg = format!("calls={calls}");
    let mut args = vec!["--config", calls_arg.as_str()];
    args.extend_from_slice(event);
    let out = ok(&charm, &state, &args);
    let answers = out
        .lines()
        .filter_map(|l| l.split_once("CALL ").map(|(_, a)| a))
        .map(|a| {
            let (name, answer) = a.split_once(' ').unwrap_or((a, ""));
            (name.to_string(), answer.to_string())
        })
        .collect();
    (answers, doc(&state)["containers"]["web"].clone())
}

fn answer<'a>(got: &'a [(String, String)], call: &str) -> &'a str {
    got.iter()
        .find(|(n, _)| n == call)
        .map(|(_, a)| a.as_str())
        .unwrap_or_else(|| panic!("no answer to {call}: {got:?}"))
}

fn calls_state(extra: &str) -> String {
    let layer = CALLS_LAYER.replace('\n', "\n        ");
    format!(
        "containers:\n  web:\n    layers:\n      - label: base\n        \
         {layer}\n    files:\n      /etc/web/web.conf: \"port = 8080\\n\"\n      \
         /etc/web/notes.txt: notes\n{extra}"
    )
}

#[test]
fn pebble_calls_answer_in_memory() {
    let (got, web) = run_calls(
        "autostart send-signal send-signal-bad stop-checks start-checks exists isdir \
         list-pattern push-owned exec-options notices pull-stream push-setuid push-no-parent \
         make-dir-private list-var all-checks",
        &calls_state(
            "    notices:\n      - {key: example.com/a, occurrences: 2, last-data: {k: v}}\n      \
             - {type: warning, key: disk}\n",
        ),
        &["--event", "config-changed"],
    );
    for (call, expected) in support::PEBBLE_CALLS_ALIKE {
        assert_eq!(answer(&got, call), *expected, "{call}");
    }
    // Kept beside the file in memory, whoever runs the test.
    assert_eq!(answer(&got, "push-owned"), "Ok(())");
    let bad = answer(&got, "send-signal-bad");
    assert!(bad.contains("is not a signal name"), "{bad}");
    // A scripted command prints what the state says: nothing here.
    assert_eq!(
        answer(&got, "exec-options"),
        r#"Exit::Code(0) stdout="" stderr="" truncated=false"#
    );
    assert_eq!(
        answer(&got, "notices"),
        r#"Ok([("example.com/a", 2, [("k", "v")])])"#
    );
    let calls: Vec<&str> = web["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for line in [
        "autostart",
        "send-signal SIGHUP web",
        "stop-checks up",
        "start-checks up",
        "exec echo 'with options' [env LANG=C, dir /tmp]",
        "get-notices",
    ] {
        assert!(calls.contains(&line), "{line}: {calls:?}");
    }
    assert!(
        calls.iter().any(|c| c.starts_with("exec stdin 5 bytes")),
        "{calls:?}"
    );
    assert_eq!(web["services"]["web"], "active");
    assert_eq!(web["notices"].as_array().unwrap().len(), 2);
    assert_eq!(
        web["files"]["/etc/web/owned.conf"],
        json!({"content": "owned\n", "owner": {"user": "web", "group-id": 33}})
    );
}

#[test]
fn a_custom_notice_event_reads_its_notice_back() {
    let (got, _) = run_calls(
        "notice-event",
        &calls_state("    notices:\n      - {id: '7', key: example.com/a, last-data: {k: v}}\n"),
        &[
            "--event",
            "web-pebble-custom-notice",
            "--notice-id",
            "7",
            "--notice-key",
            "example.com/a",
        ],
    );
    assert_eq!(
        answer(&got, "notice-event"),
        r#"Ok(("example.com/a", [("k", "v")]))"#
    );
}
