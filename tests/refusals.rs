//! Juju's refusals at the call (juju-protocol §2.18), shown from a
//! handler: the test charm `model-echo` makes each call Juju can refuse,
//! gets the typed error back at the call, logs it (`CALL <call> <answer>`)
//! and goes on, and the hook succeeds with what was accepted. The same
//! calls run twice: through the packed `dispatch` against the simulated
//! Juju served as hook tools, and in `wasm-charm run`'s embedded simulator.

use crate::support;

use serde_json::{Value, json};
use support::{Unit, assert_success, offline_ok, packed};

/// The application's own secret (`db`), and one `pg` shared with it.
const OWN: &str = "secret:d0aaaaaaaaaaaaaaaaa0";
const SHARED: &str = "secret:d0bbbbbbbbbbbbbbbbb0";

/// A follower of `model-echo` related to `pg` over `db:1`, with port 80
/// open, the application's secret and `pg`'s.
fn state(kubernetes: bool) -> Value {
    let revision = json!([{"revision": 1, "content": {"password": "p"}}]);
    json!({
        "leader": false,
        "kubernetes": kubernetes,
        "relations": {"db:1": {"app": "pg", "units": ["pg/0"]}},
        "opened-ports": {"8000-8100/tcp": ["*"]},
        "secrets": {
            OWN: {"owner": "application", "label": "db", "revisions": revision},
            SHARED: {"owner": "pg", "revisions": revision},
        },
    })
}

const CALLS: &str = "set:OWN remove:OWN set:SHARED grant:SHARED revoke:SHARED \
                     open:8080 close:8050 open:9000-9010 ports after";

fn calls() -> String {
    CALLS.replace("OWN", OWN).replace("SHARED", SHARED)
}

/// Each call and the answer its handler got, in order.
fn answers(log: &str, prefix: &str) -> Vec<(String, String)> {
    log.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| l.split_once(' '))
        .map(|(c, a)| (c.to_string(), a.to_string()))
        .collect()
}

fn check_machine(got: &[(String, String)]) {
    // A follower is not given its application's secrets' metadata (Juju's
    // secrets manager gives it to the leader alone), so to it the
    // application's secret is not one it owns: refused as not found at the
    // call, where Juju would take the change and fail the hook at commit.
    let not_ours = |id: &str| format!(r#"Err(NotFound("secret \"{id}\" not found"))"#);
    let not_leader = not_ours("d0aaaaaaaaaaaaaaaaa0");
    let not_owned = not_ours("d0bbbbbbbbbbbbbbbbb0");
    let conflict = |verb: &str, range: &str| {
        format!(
            "Err(ToolFailed(ToolFailure {{ tool: \"{verb}-port\", exit_code: 1, message: \"cannot {verb} {range} (unit \\\"model-echo/0\\\"): port range conflicts with 8000-8100/tcp (unit \\\"model-echo/0\\\")\" }}))"
        )
    };
    let expected = [
        (format!("set:{OWN}"), not_leader.clone()),
        (format!("remove:{OWN}"), not_leader),
        (format!("set:{SHARED}"), not_owned.clone()),
        (format!("grant:{SHARED}"), not_owned.clone()),
        (format!("revoke:{SHARED}"), not_owned),
        ("open:8080".into(), conflict("open", "8080/tcp")),
        ("close:8050".into(), conflict("close", "8050/tcp")),
        ("open:9000-9010".into(), "Ok(())".into()),
        (
            "ports".into(),
            "Ok([OpenedPort { port: PortRange { protocol: Protocol::Tcp, from: 8000, to: 8100 }, endpoints: None }, OpenedPort { port: PortRange { protocol: Protocol::Tcp, from: 9000, to: 9010 }, endpoints: None }])".into(),
        ),
        ("after".into(), "went on".into()),
    ];
    assert_eq!(got, expected);
}

#[test]
fn a_handler_catches_each_refusal_at_the_call_on_the_served_tools() {
    // Port ranges are a machine's: the charm without its container.
    let unit = Unit::on_simulator_as_machine(&packed("tests/guests/model-echo"), "model-echo/0");
    unit.set_state(state(false));
    unit.update_state(|s| s["config"] = json!({"calls": calls()}));
    let out = unit.dispatch("config-changed");
    assert_success(&out);
    check_machine(&answers(&unit.debug_log(), "INFO CALL "));
    // Only what was accepted is committed.
    assert_eq!(
        unit.state()["opened-ports"],
        json!({"8000-8100/tcp": ["*"], "9000-9010/tcp": ["*"]})
    );
}

#[test]
fn a_handler_catches_each_refusal_at_the_call_in_the_embedded_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let charm = dir.path().join("model-echo");
    support::copy_charm(&packed("tests/guests/model-echo"), &charm).unwrap();
    support::without_containers(&charm).unwrap();
    let path = dir.path().join("state.yaml");
    std::fs::write(&path, serde_saphyr::to_string(&state(false)).unwrap()).unwrap();
    let calls = format!("calls={}", calls());
    let out = offline_ok(
        &charm,
        &path,
        &["--event", "config-changed", "--config", &calls],
    );
    check_machine(&answers(&out, "log: INFO CALL "));
}

#[test]
fn kubernetes_refuses_a_port_range_at_the_call_on_both() {
    let expected = [
        (
            "open:9000-9010".to_string(),
            r#"Err(ToolFailed(ToolFailure { tool: "open-port", exit_code: 1, message: "port ranges are not supported for k8s applications, please specify a single port" }))"#.to_string(),
        ),
        ("open:9000".into(), "Ok(())".into()),
        ("after".into(), "went on".into()),
    ];
    let list = "open:9000-9010 open:9000 after";

    let unit = Unit::on_simulator(&packed("tests/guests/model-echo"), "model-echo/0");
    let mut s = state(true);
    s["opened-ports"] = json!({});
    s["config"] = json!({"calls": list});
    unit.set_state(s.clone());
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(answers(&unit.debug_log(), "INFO CALL "), expected);
    assert_eq!(unit.state()["opened-ports"], json!({"9000/tcp": ["*"]}));

    let charm = packed("tests/guests/model-echo");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.yaml");
    s.as_object_mut().unwrap().remove("config");
    std::fs::write(&path, serde_saphyr::to_string(&s).unwrap()).unwrap();
    let calls = format!("calls={list}");
    let out = offline_ok(
        &charm,
        &path,
        &["--event", "config-changed", "--config", &calls],
    );
    assert_eq!(answers(&out, "log: INFO CALL "), expected);
}

#[test]
fn the_events_own_secret_changes_show_in_its_reads() {
    let unit = Unit::on_simulator(&packed("tests/guests/model-echo"), "model-echo/0");
    let mut s = state(false);
    s["leader"] = json!(true);
    s["config"] =
        json!({"calls": format!("set-label:{OWN} info:{OWN} remove:{OWN} info:{OWN} after")});
    unit.set_state(s);
    assert_success(&unit.dispatch("config-changed"));
    let got = answers(&unit.debug_log(), "INFO CALL ");
    assert_eq!(got[0].1, "Ok(())");
    assert!(
        got[1].1.contains(r#"id: "secret:d0aaaaaaaaaaaaaaaaa0""#)
            && got[1].1.contains(r#"label: Some("renamed")"#),
        "{got:?}"
    );
    assert_eq!(got[2].1, "Ok(())");
    assert!(got[3].1.starts_with("Err(NotFound("), "{got:?}");
    assert_eq!(got[4].1, "went on");
}

#[test]
fn a_secret_known_by_its_label_is_written_by_its_id() {
    let unit = Unit::on_simulator(&packed("tests/guests/model-echo"), "model-echo/0");
    let mut s = state(false);
    s["leader"] = json!(true);
    s["config"] = json!({"calls": "set-by-label:db grant-by-label:db after"});
    unit.set_state(s);
    assert_success(&unit.dispatch("config-changed"));
    let got = answers(&unit.debug_log(), "INFO CALL ");
    assert_eq!(
        got,
        [
            ("set-by-label:db".to_string(), "Ok(())".to_string()),
            ("grant-by-label:db".into(), "Ok(())".into()),
            ("after".into(), "went on".into()),
        ]
    );
    for tool in ["secret-set", "secret-grant"] {
        let sent = unit.calls_of(tool);
        assert!(
            sent.iter().any(|argv| argv.iter().any(|a| a == OWN)),
            "{tool} by id: {sent:?}"
        );
    }
    let secret = &unit.state()["secrets"][OWN];
    assert_eq!(
        secret["revisions"].as_array().map(Vec::len),
        Some(2),
        "{secret}"
    );
}
