//! The API's newer calls in the state file's mode: signals, checks
//! started and stopped, autostart, notices, list-files' pattern and
//! owners, exec's options.

use super::super::reply::Request;
use super::super::state::{Current, SimContainer, SimNotice};
use super::api_tests::{LAYER, add, envelope, req, result, sim_with};
use super::*;
use crate::pebble::client::{Envelope, Error, push_body};
use crate::pebble::{parse_checks, parse_files};

fn api_error(reply: Reply) -> (u16, String, String) {
    match envelope(reply) {
        Err(Error::Api {
            status,
            kind,
            message,
        }) => (status, kind, message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn signals_reach_running_services_only() {
    let mut state = SimContainer::default();
    state.services.insert("web".into(), Current::Active);
    let mut sim = sim_with(state);
    add(&mut sim, "web", LAYER, false);
    let signal = |s: &str, names: Value| json!({"signal": s, "services": names});
    let ok = sim.route(&req(
        "POST",
        "/v1/signals",
        Some(signal("SIGHUP", json!(["web"]))),
    ));
    assert_eq!(result(ok), json!(true));
    let none = sim.route(&req(
        "POST",
        "/v1/signals",
        Some(signal("SIGHUP", json!([]))),
    ));
    assert_eq!(
        api_error(none),
        (
            400,
            String::new(),
            "must specify one or more services".into()
        )
    );
    let bad = sim.route(&req(
        "POST",
        "/v1/signals",
        Some(signal("hup", json!(["web"]))),
    ));
    assert_eq!(
        api_error(bad),
        (
            500,
            String::new(),
            "cannot send signal to \"web\": invalid signal name \"hup\"".into()
        )
    );
    let unknown = sim.route(&req(
        "POST",
        "/v1/signals",
        Some(signal("SIGHUP", json!(["db"]))),
    ));
    assert_eq!(
        api_error(unknown).2,
        "cannot send signal to \"db\": service is not running"
    );
    assert_eq!(
        &sim.calls[1..],
        [
            "send-signal SIGHUP web",
            "send-signal SIGHUP",
            "send-signal hup web",
            "send-signal SIGHUP db"
        ]
    );
}

#[test]
fn checks_stop_and_start_and_say_which_changed() {
    let mut sim = sim_with(SimContainer::default());
    add(&mut sim, "web", LAYER, false);
    let action = |a: &str, names: Value| json!({"action": a, "checks": names});
    let stop = sim.route(&req(
        "POST",
        "/v1/checks",
        Some(action("stop", json!(["alive"]))),
    ));
    assert_eq!(result(stop), json!({"changed": ["alive"]}));
    let checks = parse_checks(&result(sim.route(&req("GET", "/v1/checks", None)))).unwrap();
    assert_eq!(checks[0].status, "inactive");
    let again = sim.route(&req(
        "POST",
        "/v1/checks",
        Some(action("stop", json!(["alive"]))),
    ));
    assert_eq!(result(again), json!({"changed": []}));
    let start = sim.route(&req(
        "POST",
        "/v1/checks",
        Some(action("start", json!(["alive"]))),
    ));
    assert_eq!(result(start), json!({"changed": ["alive"]}));
    let checks = parse_checks(&result(sim.route(&req("GET", "/v1/checks", None)))).unwrap();
    assert_eq!(checks[0].status, "up");
    let unknown = sim.route(&req(
        "POST",
        "/v1/checks",
        Some(action("start", json!(["x"]))),
    ));
    assert_eq!(
        api_error(unknown).2,
        "cannot start checks: cannot find checks in plan: x"
    );
    let empty = sim.route(&req("POST", "/v1/checks", Some(action("stop", json!([])))));
    assert_eq!(api_error(empty).2, "must specify checks for stop action");
}

#[test]
fn autostart_starts_the_enabled_services_or_says_there_are_none() {
    let mut sim = sim_with(SimContainer::default());
    let autostart = json!({"action": "autostart", "services": []});
    let none = sim.route(&req("POST", "/v1/services", Some(autostart.clone())));
    assert_eq!(api_error(none).1, "no-default-services");
    add(&mut sim, "web", LAYER, false);
    let named = json!({"action": "autostart", "services": ["web"]});
    assert_eq!(
        api_error(sim.route(&req("POST", "/v1/services", Some(named)))).0,
        400
    );
    match envelope(sim.route(&req("POST", "/v1/services", Some(autostart)))) {
        Ok(Envelope::Async { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(sim.into_state().services["web"], Current::Active);
}

#[test]
fn notices_are_filtered_and_read_back_by_id() {
    let mut state = SimContainer::default();
    let notice = |key: &str| SimNotice {
        type_: "custom".into(),
        key: key.into(),
        ..SimNotice::default()
    };
    state.notices.push(notice("example.com/a"));
    let mut b = notice("example.com/b");
    b.id = Some("42".into());
    b.occurrences = Some(3);
    b.last_data.insert("k".into(), "v".into());
    state.notices.push(b);
    let mut sim = sim_with(state);
    let all = result(sim.route(&req("GET", "/v1/notices?types=custom", None)));
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert_eq!(all[0]["id"], "1");
    let keyed = result(sim.route(&req(
        "GET",
        "/v1/notices?keys=example.com/x,example.com/b&types=warning&types=custom",
        None,
    )));
    assert_eq!(keyed.as_array().unwrap().len(), 1);
    assert_eq!(keyed[0]["occurrences"], 3);
    let one = result(sim.route(&req("GET", "/v1/notices/42", None)));
    let parsed = crate::pebble::notices::parse_notice(&one).unwrap();
    assert_eq!(parsed.key, "example.com/b");
    assert_eq!(parsed.last_data, [("k".to_string(), "v".to_string())]);
    let missing = api_error(sim.route(&req("GET", "/v1/notices/7", None)));
    assert_eq!((missing.0, missing.1.as_str()), (404, "not-found"));
    let state = sim.into_state();
    assert_eq!(
        state.notices.len(),
        2,
        "notices are kept for the next event"
    );
}

fn push_owned(sim: &mut Sim, path: &str, owner: Value) -> Value {
    let boundary = "b".repeat(32);
    let mut file = json!({"path": path, "make-dirs": true});
    if let (Some(f), Value::Object(o)) = (file.as_object_mut(), owner) {
        f.extend(o);
    }
    let meta = json!({"action": "write", "files": [file]});
    result(sim.route(&Request {
        method: "POST".into(),
        path: "/v1/files".into(),
        content_type: Some(format!("multipart/form-data; boundary={boundary}")),
        body: push_body(&boundary, &meta, path, b"x\n"),
        ..Request::default()
    }))
}

#[test]
fn list_files_takes_a_pattern_and_shows_owners() {
    let mut sim = sim_with(SimContainer::default());
    let owned = push_owned(
        &mut sim,
        "/etc/web/web.conf",
        json!({"user": "web", "group-id": 33}),
    );
    assert_eq!(owned, json!([{"path": "/etc/web/web.conf"}]));
    push_owned(&mut sim, "/etc/web/notes.txt", json!({}));
    let groupless = push_owned(&mut sim, "/etc/web/g", json!({"group": "web"}));
    assert_eq!(groupless[0]["error"]["kind"], "generic-file-error");
    let list = |sim: &mut Sim, q: &str| {
        result(sim.route(&req("GET", &format!("/v1/files?action=list&{q}"), None)))
    };
    let conf = list(&mut sim, "path=/etc/web&pattern=*.conf");
    let files = parse_files(&conf).unwrap();
    assert_eq!(files.len(), 1, "{conf}");
    assert_eq!(conf[0]["user"], "web");
    assert_eq!(conf[0]["group-id"], 33);
    assert!(conf[0].get("user-id").is_none(), "{conf}");
    let txt = list(&mut sim, "path=/etc/web&pattern=n?tes.[st]xt");
    assert_eq!(txt[0]["user"], "root");
    let itself = list(&mut sim, "path=/etc/web&itself=true");
    assert_eq!(itself[0]["type"], "directory");
    let bad = sim.route(&req(
        "GET",
        "/v1/files?action=list&path=/etc&pattern=[",
        None,
    ));
    assert_eq!(api_error(bad).2, "syntax error in pattern");
    let missing = sim.route(&req("GET", "/v1/files?action=list&path=/nowhere", None));
    assert_eq!(api_error(missing).1, "not-found");
    let dirs = json!({"action": "make-dirs", "dirs": [{"path": "/srv/data",
        "make-parents": true, "user-id": 1000, "group-id": 1000}]});
    assert_eq!(
        result(sim.route(&req("POST", "/v1/files", Some(dirs)))),
        json!([{"path": "/srv/data"}])
    );
    let srv = list(&mut sim, "path=/srv/data&itself=true");
    assert_eq!(
        (srv[0]["user-id"].clone(), srv[0].get("user")),
        (json!(1000), None)
    );
    // The parent it made belongs to the same owner, as in Pebble; one that
    // existed keeps its own.
    let parent = list(&mut sim, "path=/srv&itself=true");
    assert_eq!(parent[0]["user-id"], 1000, "{parent:?}");
    let dirs = json!({"action": "make-dirs", "dirs": [{"path": "/srv/logs/app",
        "make-parents": true, "user-id": 7}]});
    result(sim.route(&req("POST", "/v1/files", Some(dirs))));
    assert_eq!(
        list(&mut sim, "path=/srv/logs&itself=true")[0]["user-id"],
        7
    );
    assert_eq!(list(&mut sim, "path=/srv&itself=true")[0]["user-id"], 1000);
}

#[test]
fn names_the_containers_accounts_lack_are_refused_in_gos_words() {
    let mut sim = sim_with(SimContainer::default());
    // Before the image's files are known, any name is taken.
    assert_eq!(
        push_owned(&mut sim, "/srv/a", json!({"user": "xyz"})),
        json!([{"path": "/srv/a"}])
    );
    let accounts = |sim: &mut Sim, path: &str, text: &[u8]| {
        let boundary = "b0undary";
        let meta = json!({"action": "write", "files": [{"path": path, "make-dirs": true}]});
        result(sim.route(&Request {
            method: "POST".into(),
            path: "/v1/files".into(),
            content_type: Some(format!("multipart/form-data; boundary={boundary}")),
            body: push_body(boundary, &meta, path, text),
            ..Request::default()
        }))
    };
    let written = accounts(
        &mut sim,
        "/etc/passwd",
        b"root:x:0:0::/root:/bin/sh\nweb:x:33:33::/srv:/bin/sh\n",
    );
    assert_eq!(written, json!([{"path": "/etc/passwd"}]));
    accounts(&mut sim, "/etc/group", b"root:x:0:\nweb:x:33:\n");
    assert_eq!(
        push_owned(&mut sim, "/srv/b", json!({"user": "web", "group": "web"})),
        json!([{"path": "/srv/b"}])
    );
    let refused = push_owned(&mut sim, "/srv/c", json!({"user": "xyz"}));
    assert_eq!(
        refused[0]["error"],
        json!({"kind": "generic-file-error",
            "message": "cannot look up user and group: user: unknown user xyz"})
    );
    let dirs = json!({"action": "make-dirs", "dirs": [{"path": "/srv/d",
        "user": "web", "group": "nogroup"}]});
    let made = result(sim.route(&req("POST", "/v1/files", Some(dirs))));
    assert_eq!(
        made[0]["error"]["message"],
        "cannot look up user and group: group: unknown group nogroup"
    );
    // Nothing was written for either.
    let missing = sim.route(&req("GET", "/v1/files?action=list&path=/srv/d", None));
    assert_eq!(api_error(missing).1, "not-found");
    let exec = json!({"command": ["web-server"], "user": "xyz"});
    let (status, _, message) = api_error(sim.route(&req("POST", "/v1/exec", Some(exec))));
    assert_eq!((status, message.as_str()), (400, "user: unknown user xyz"));
}

#[test]
fn exec_options_are_recorded_and_stderr_joins_stdout_unless_split() {
    let mut sim = sim_with(SimContainer::default());
    let body = json!({"command": ["web-server", "--check"], "environment": {"LANG": "C"},
        "working-dir": "/tmp", "user": "web", "split-stderr": false});
    match envelope(sim.route(&req("POST", "/v1/exec", Some(body)))) {
        Ok(Envelope::Async { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(
        sim.calls,
        ["exec web-server --check [env LANG=C, dir /tmp, user web]"]
    );
}

/// The change of services action `body`, once done.
fn done(sim: &mut Sim, body: Value) -> Value {
    let reply = sim.route(&req("POST", "/v1/services", Some(body)));
    let change = match envelope(reply) {
        Ok(Envelope::Async { change }) => change,
        other => panic!("{other:?}"),
    };
    result(sim.route(&req("GET", &format!("/v1/changes/{change}/wait"), None)))
}

#[test]
fn scripted_starts_fail_as_pebble_reports_them() {
    let mut state = SimContainer {
        layers: vec![super::super::plan::parse_layer("web", LAYER).unwrap()],
        ..SimContainer::default()
    };
    state
        .fail_start
        .insert("web".into(), serde_saphyr::from_str("{exit: 1}").unwrap());
    let mut sim = sim_with(state.clone());
    for action in ["start", "restart", "replan", "autostart"] {
        let names = if matches!(action, "start" | "restart") {
            json!(["web"])
        } else {
            json!([])
        };
        let body = json!({"action": action, "services": names});
        let change = done(&mut sim, body);
        assert_eq!(change["status"], "Error", "{action}: {change}");
        assert_eq!(
            change["err"],
            "cannot perform the following tasks:\n- Start service \"web\" (service start \
             attempt: exited quickly with code 1, will restart)",
            "{action}"
        );
        let services = result(sim.route(&req("GET", "/v1/services", None)));
        assert_eq!(services[0]["current"], "backoff", "{action}");
    }
    state
        .fail_start
        .insert("web".into(), serde_saphyr::from_str("not-found").unwrap());
    let mut sim = sim_with(state);
    let body = json!({"action": "start", "services": ["web"]});
    let change = done(&mut sim, body);
    assert_eq!(
        change["err"],
        "cannot perform the following tasks:\n- Start service \"web\" (cannot start service: \
         exec: \"web-server\": executable file not found in $PATH)"
    );
    let state = sim.into_state();
    assert_eq!(state.services["web"], Current::Inactive);
    assert!(state.fail_start.contains_key("web"), "the script stays");
}

#[test]
fn a_scripted_program_that_cannot_start_is_not_found() {
    let mut state = SimContainer::default();
    for (name, word) in [
        ("check-config", "not-found"),
        ("signal", "permission-denied"),
    ] {
        let script = format!("{{exit: {word}}}");
        state
            .exec
            .insert(name.into(), serde_saphyr::from_str(&script).unwrap());
    }
    let mut sim = sim_with(state);
    for argv in [
        json!(["web-server", "--check"]),
        json!(["web-server", "-s", "stop"]),
    ] {
        let body = json!({ "command": argv });
        assert_eq!(
            api_error(sim.route(&req("POST", "/v1/exec", Some(body)))),
            (
                400,
                String::new(),
                "cannot find executable \"web-server\"".into()
            )
        );
    }
}

#[test]
fn disabled_checks_are_inactive_until_started() {
    let layer = "checks:\n  later:\n    override: replace\n    startup: disabled\n    \
                 tcp: {port: 8080}\n  now: {override: replace, tcp: {port: 8081}}\n";
    let mut sim = sim_with(SimContainer::default());
    add(&mut sim, "c", layer, false);
    let status = |sim: &mut Sim| -> Vec<(String, String)> {
        let list = result(sim.route(&req("GET", "/v1/checks", None)));
        list.as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let field = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (
                    field("name"),
                    format!("{} {}", field("startup"), field("status")),
                )
            })
            .collect()
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        status(&mut sim),
        pairs(&[("later", "disabled inactive"), ("now", "enabled up")])
    );
    let start = json!({"action": "start", "checks": ["later"]});
    let changed = result(sim.route(&req("POST", "/v1/checks", Some(start))));
    assert_eq!(changed, json!({"changed": ["later"]}));
    assert_eq!(status(&mut sim)[0].1, "disabled up");
    // Kept through the state file: a started disabled check stays up.
    let mut again = sim_with(sim.into_state());
    assert_eq!(status(&mut again)[0].1, "disabled up");
}
