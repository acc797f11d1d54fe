use super::super::reply::parse_query;
use super::super::state::{Current, SimCheck};
use super::*;
use crate::offline::machine::{ExitWord, ScriptedCommand, ScriptedExit};
use crate::pebble::client::{Envelope, parse_envelope, push_body};
use crate::pebble::client::{boundary_of, parse_multipart};
use crate::pebble::{parse_checks, parse_files, parse_services};
use std::time::Duration;

pub(super) fn sim_with(state: SimContainer) -> Sim {
    let commands = BTreeMap::from([
        (
            "check-config".to_string(),
            CommandSpec {
                argv: vec!["web-server".into(), "--check".into()],
                args: false,
                timeout: Duration::from_secs(5),
            },
        ),
        (
            "signal".to_string(),
            CommandSpec {
                argv: vec!["web-server".into()],
                args: true,
                timeout: Duration::from_secs(5),
            },
        ),
    ]);
    Sim::new(state, commands, "2026-12-01T00:00:00Z".into()).unwrap()
}

pub(super) fn req(method: &str, target: &str, body: Option<Value>) -> Request {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Request {
        method: method.into(),
        path: path.into(),
        query: parse_query(query),
        content_type: body.as_ref().map(|_| "application/json".to_string()),
        body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
    }
}

/// The envelope of a JSON answer, as the host's client parses it.
pub(super) fn envelope(reply: Reply) -> Result<Envelope, crate::pebble::client::Error> {
    match reply {
        Reply::Body { status, body, .. } => parse_envelope(status, &body),
        other => panic!("{other:?}"),
    }
}

pub(super) fn result(reply: Reply) -> Value {
    match envelope(reply) {
        Ok(Envelope::Sync(v)) => v,
        other => panic!("{other:?}"),
    }
}

pub(super) const LAYER: &str = "services:\n  web:\n    override: replace\n    command: web-server\n    \
                     startup: enabled\nchecks:\n  alive:\n    override: replace\n    \
                     level: alive\n    http: {url: 'http://localhost:8080/'}\n";

pub(super) fn add(sim: &mut Sim, label: &str, layer: &str, combine: bool) -> Reply {
    sim.route(&req(
        "POST",
        "/v1/layers",
        Some(
            json!({"action": "add", "label": label, "format": "yaml", "layer": layer,
            "combine": combine}),
        ),
    ))
}

fn services(sim: &mut Sim) -> Vec<(String, String)> {
    parse_services(&result(sim.route(&req("GET", "/v1/services", None))))
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.current))
        .collect()
}

#[test]
fn layers_then_replan_start_the_enabled_services() {
    let mut sim = sim_with(SimContainer::default());
    assert!(services(&mut sim).is_empty());
    assert_eq!(result(add(&mut sim, "web", LAYER, false)), json!(true));
    let again = envelope(add(&mut sim, "web", LAYER, false)).unwrap_err();
    assert!(again.to_string().contains("already exists"), "{again}");
    assert_eq!(services(&mut sim), [("web".into(), "inactive".into())]);
    let plan = result(sim.route(&req("GET", "/v1/plan?format=yaml", None)));
    assert!(plan.as_str().unwrap().contains("web-server"), "{plan}");
    let replan = json!({"action": "replan", "services": []});
    let change = match envelope(sim.route(&req("POST", "/v1/services", Some(replan.clone())))) {
        Ok(Envelope::Async { change }) => change,
        other => panic!("{other:?}"),
    };
    let done = result(sim.route(&req("GET", &format!("/v1/changes/{change}/wait"), None)));
    assert_eq!(crate::pebble::client::change_failure(&done), None);
    assert_eq!(services(&mut sim), [("web".into(), "active".into())]);
    // A changed definition restarts at replan; an unchanged one is left.
    sim.calls.clear();
    let other = LAYER.replace("command: web-server", "command: web-server --v2");
    assert_eq!(result(add(&mut sim, "web", &other, true)), json!(true));
    envelope(sim.route(&req("POST", "/v1/services", Some(replan)))).unwrap();
    assert_eq!(sim.started_with["web"]["command"], "web-server --v2");
    let stop = json!({"action": "stop", "services": ["web"]});
    envelope(sim.route(&req("POST", "/v1/services", Some(stop)))).unwrap();
    assert_eq!(services(&mut sim), [("web".into(), "inactive".into())]);
    let unknown = json!({"action": "start", "services": ["db"]});
    let e = envelope(sim.route(&req("POST", "/v1/services", Some(unknown)))).unwrap_err();
    assert_eq!(
        e,
        crate::pebble::client::Error::Api {
            status: 400,
            kind: String::new(),
            message: "cannot start services: service \"db\" does not exist".into()
        }
    );
    assert_eq!(
        sim.calls,
        [
            "add-layer web combine",
            "replan",
            "stop web",
            "get-services",
            "start db"
        ]
    );
    let e = envelope(sim.route(&req("GET", "/v1/changes/99", None))).unwrap_err();
    assert!(
        matches!(e, crate::pebble::client::Error::Api { status: 404, .. }),
        "{e}"
    );
    let state = sim.into_state();
    assert_eq!(state.services["web"], Current::Inactive);
    assert_eq!(state.layers.len(), 1);
}

#[test]
fn checks_report_the_scripted_status_with_pebbles_defaults() {
    let mut state = SimContainer::default();
    state.checks.insert(
        "alive".into(),
        SimCheck {
            status: super::super::state::CheckStatus::Down,
            ..SimCheck::default()
        },
    );
    let mut empty = sim_with(SimContainer::default());
    assert_eq!(
        result(empty.route(&req("GET", "/v1/checks", None))),
        json!([])
    );
    // A check new to the plan starts afresh, as Pebble starts it.
    add(&mut empty, "web", LAYER, false);
    let fresh = result(empty.route(&req("GET", "/v1/checks?names=alive", None)));
    assert_eq!(fresh[0]["status"], "up", "{fresh}");
    state.layers = vec![super::super::plan::parse_layer("web", LAYER).unwrap()];
    let mut sim = sim_with(state);
    let checks = parse_checks(&result(sim.route(&req(
        "GET",
        "/v1/checks?names=alive&level=alive",
        None,
    ))))
    .unwrap();
    assert_eq!(
        (
            checks[0].status.as_str(),
            checks[0].failures,
            checks[0].threshold
        ),
        ("down", 3, 3)
    );
    let ready = result(sim.route(&req("GET", "/v1/checks?level=ready", None)));
    assert_eq!(ready, json!([]));
    assert!(envelope(sim.route(&req("GET", "/v1/checks?level=high", None))).is_err());
    let named = json!({"action": "replan", "services": ["web"]});
    let e = envelope(sim.route(&req("POST", "/v1/services", Some(named)))).unwrap_err();
    assert!(
        e.to_string().contains("replan accepts no service names"),
        "{e}"
    );
    let none = json!({"action": "stop", "services": []});
    let e = envelope(sim.route(&req("POST", "/v1/services", Some(none)))).unwrap_err();
    assert!(
        e.to_string().contains("must specify services for stop"),
        "{e}"
    );
}

#[test]
fn files_push_pull_list_and_fail_with_pebbles_kinds() {
    let mut sim = sim_with(SimContainer::default());
    let boundary = "b".repeat(32);
    let meta = json!({"action": "write", "files": [{"path": "/etc/web/web.conf",
        "make-dirs": true, "permissions": "600"}]});
    let push = Request {
        method: "POST".into(),
        path: "/v1/files".into(),
        content_type: Some(format!("multipart/form-data; boundary={boundary}")),
        body: push_body(&boundary, &meta, "/etc/web/web.conf", b"port = 1\n"),
        ..Request::default()
    };
    assert_eq!(
        result(sim.route(&push)),
        json!([{"path": "/etc/web/web.conf"}])
    );
    let Reply::Body {
        content_type, body, ..
    } = sim.route(&req(
        "GET",
        "/v1/files?action=read&path=%2Fetc%2Fweb%2Fweb.conf",
        None,
    ))
    else {
        panic!("not a body");
    };
    let parts = parse_multipart(&body, &boundary_of(&content_type).unwrap()).unwrap();
    assert_eq!(parts[0].filename.as_deref(), Some("/etc/web/web.conf"));
    assert_eq!(parts[0].content, b"port = 1\n");
    assert_eq!(parts[1].name, "response");
    let files = parse_files(&result(sim.route(&req(
        "GET",
        "/v1/files?action=list&path=/etc/web",
        None,
    ))))
    .unwrap();
    assert_eq!((files[0].permissions, files[0].size), (0o600, Some(9)));
    let e = envelope(sim.route(&req("GET", "/v1/files?action=list&path=/srv", None))).unwrap_err();
    assert!(
        matches!(&e, crate::pebble::client::Error::Api { status: 404, kind, .. } if kind == "not-found"),
        "{e}"
    );
    let Reply::Body { body, .. } =
        sim.route(&req("GET", "/v1/files?action=read&path=/etc/none", None))
    else {
        panic!("not a body");
    };
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("\"kind\":\"not-found\""), "{text}");
    let made = result(sim.route(&req(
        "POST",
        "/v1/files",
        Some(json!({"action": "make-dirs", "dirs": [{"path": "/var/x", "make-parents": true}]})),
    )));
    assert_eq!(made, json!([{"path": "/var/x"}]));
    let removed = result(sim.route(&req(
        "POST",
        "/v1/files",
        Some(json!({"action": "remove", "paths": [{"path": "/etc"}]})),
    )));
    assert_eq!(removed[0]["error"]["kind"], "generic-file-error");
    let state = sim.into_state();
    assert_eq!(
        state.files["/etc/web/web.conf"].decode(),
        Ok((b"port = 1\n".to_vec(), 0o600))
    );
    assert!(state.dirs.contains("/var/x") && state.dirs.contains("/etc/web"));
}

#[test]
fn exec_answers_the_scripted_outcome_of_the_declared_command() {
    let mut state = SimContainer::default();
    state.exec.insert(
        "check-config".into(),
        ScriptedCommand {
            exit: ScriptedExit::Code(2),
            stdout: "port 1".into(),
            stderr: "bad".into(),
        },
    );
    state.exec.insert(
        "signal".into(),
        ScriptedCommand {
            exit: ScriptedExit::Word(ExitWord::TimedOut),
            ..ScriptedCommand::default()
        },
    );
    let mut sim = sim_with(state);
    let exec = |sim: &mut Sim, argv: &[&str]| {
        let reply = sim.route(&req(
            "POST",
            "/v1/exec",
            Some(json!({"command": argv, "timeout": "5000ms", "split-stderr": true})),
        ));
        let Reply::Body { status, body, .. } = reply else {
            panic!("not a body")
        };
        crate::pebble::exec::parse_started(status, &body)
    };
    let (change, task) = exec(&mut sim, &["web-server", "--check"]).unwrap();
    let done = result(sim.route(&req("GET", &format!("/v1/changes/{change}/wait"), None)));
    assert_eq!(
        crate::pebble::exec::parse_exit(&done),
        Ok(crate::bindings::workload::Exit::Code(2))
    );
    let ws = |sim: &mut Sim, id: &str| {
        sim.route(&req(
            "GET",
            &format!("/v1/tasks/{task}/websocket/{id}"),
            None,
        ))
    };
    assert_eq!(
        ws(&mut sim, "stdio"),
        Reply::Upgrade {
            output: Some(b"port 1".to_vec()),
            stdin_of: Some(task.clone()),
        }
    );
    assert_eq!(
        ws(&mut sim, "stderr"),
        Reply::Upgrade {
            output: Some(b"bad".to_vec()),
            stdin_of: None,
        }
    );
    assert_eq!(
        ws(&mut sim, "control"),
        Reply::Upgrade {
            output: None,
            stdin_of: None
        }
    );
    assert!(envelope(ws(&mut sim, "stdio")).is_err(), "a second stdio");
    // `signal` takes arguments; `--check` with more does not.
    let (change, _) = exec(&mut sim, &["web-server", "-s", "reload"]).unwrap();
    let done = result(sim.route(&req("GET", &format!("/v1/changes/{change}"), None)));
    assert_eq!(
        crate::pebble::exec::parse_exit(&done),
        Ok(crate::bindings::workload::Exit::TimedOut)
    );
    assert!(exec(&mut sim, &["nginx"]).is_err());
    assert!(exec(&mut sim, &[]).is_err());
    assert_eq!(
        sim.calls,
        [
            "exec web-server --check",
            "exec web-server -s reload",
            "exec nginx"
        ]
    );
}

#[test]
fn unknown_paths_and_methods_get_pebbles_errors() {
    let mut sim = sim_with(SimContainer::default());
    let status = |reply: Reply| match reply {
        Reply::Body { status, .. } => status,
        other => panic!("{other:?}"),
    };
    assert_eq!(status(sim.route(&req("GET", "/v1/nothing", None))), 404);
    assert_eq!(status(sim.route(&req("DELETE", "/v1/services", None))), 405);
    assert_eq!(status(sim.route(&req("POST", "/v1/layers", None))), 400);
    let e = envelope(add(&mut sim, "", LAYER, false)).unwrap_err();
    assert!(e.to_string().contains("label must be set"), "{e}");
    let e = envelope(add(
        &mut sim,
        "x",
        "services:\n  web: {override: merge}\n",
        false,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("must define \"command\""), "{e}");
    assert!(sim.layers.is_empty(), "a refused layer is not kept");
    assert_eq!(
        result(sim.route(&req("GET", "/v1/system-info", None)))["version"],
        "wasm-charm-offline"
    );
    assert_eq!(
        parse_query("a=%2F+b&c"),
        [("a".into(), "/ b".into()), ("c".into(), String::new())]
    );
}
