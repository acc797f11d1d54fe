use super::fake_tests::{error, serve, sync};
use super::*;

use super::test_values::no_exec_options as no_options;

#[test]
fn results_parse_as_pebble_documents_them() {
    let services = json!([{"name": "web", "startup": "enabled", "current": "active",
        "current-since": "2026-07-01T10:00:00Z"}]);
    assert_eq!(
        parse_services(&services),
        Some(vec![ServiceInfo {
            name: "web".into(),
            startup: "enabled".into(),
            current: "active".into()
        }])
    );
    let checks = json!([{"name": "up", "level": "ready", "startup": "enabled",
        "status": "down", "failures": 3, "threshold": 3},
        {"name": "alive", "status": "up", "threshold": 1}]);
    let checks = parse_checks(&checks).unwrap();
    assert_eq!((checks[0].failures, checks[0].status.as_str()), (3, "down"));
    assert_eq!((checks[1].failures, checks[1].level.as_str()), (0, ""));
    assert_eq!(parse_services(&json!({"not": "a list"})), None);
    assert_eq!(
        parse_changed(&json!({"changed": ["a", "b"]})),
        Some(vec!["a".into(), "b".into()])
    );
    assert_eq!(parse_changed(&json!({"changed": [1]})), None);
    assert_eq!(parse_changed(&json!(["a"])), None);
    assert_eq!(
        checks_target(&["a".into(), "b c".into()], Some(CheckLevel::Ready)),
        "/v1/checks?level=ready&names=a%2Cb%20c"
    );
    assert_eq!(checks_target(&[], None), "/v1/checks");
}

#[test]
fn undeclared_containers_and_missing_sockets() {
    let dir = tempfile::tempdir().unwrap();
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let mut pebble = Pebble::new(vec!["web".into()], root);
    pebble.set_deadline(Instant::now() + Duration::from_secs(5));
    match pebble.can_connect("db".into()) {
        Err(PebbleError::Undeclared(m)) => {
            assert!(m.contains("\"db\"") && m.contains("web"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(pebble.can_connect("web".into()), Ok(false));
    match pebble.get_plan("web".into()) {
        Err(PebbleError::CannotConnect(m)) => {
            assert!(m.contains("charm/containers/web/pebble.socket"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    match pebble.exec("web".into(), "reload".into(), vec![], no_options()) {
        Err(PebbleError::Undeclared(m)) => assert!(
            m.contains("workload.containers.web.commands") && m.contains("`reload`"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        pebble.exec("db".into(), "reload".into(), vec![], no_options()),
        Err(PebbleError::Undeclared(m)) if m.contains("metadata.yaml")
    ));
    assert!(matches!(
        pebble.get_notices(
            "db".into(),
            NoticeFilter {
                types: vec![],
                keys: vec![]
            }
        ),
        Err(PebbleError::Undeclared(_))
    ));
    assert!(matches!(
        pebble.send_signal("db".into(), "SIGHUP".into(), vec!["web".into()]),
        Err(PebbleError::Undeclared(_))
    ));
    // Refused before the (missing) socket is tried.
    let huge = "x".repeat(client::MAX_ANSWER + 1);
    assert!(matches!(
        pebble.add_layer("web".into(), "base".into(), huge, false),
        Err(PebbleError::Invalid(m)) if m.contains("add-layer layer")
    ));
    assert!(matches!(
        pebble.add_layer("web".into(), "l".repeat(MAX_NAME + 1), String::new(), false),
        Err(PebbleError::Invalid(m)) if m.contains("add-layer label")
    ));
    assert!(matches!(
        pebble.start("web".into(), vec!["s".into(); MAX_NAMES + 1]),
        Err(PebbleError::Invalid(m)) if m.contains("start services")
    ));
    assert!(matches!(
        pebble.pull("web".into(), "/".repeat(files::MAX_PATH + 1)),
        Err(PebbleError::Invalid(m)) if m.contains("pull path")
    ));
}

#[test]
fn can_connect_is_false_on_any_failure_to_reach_pebble() {
    // An error answer, then an answer that is not Pebble's envelope.
    let mut fake = serve(vec![
        error(500, "", "internal"),
        (200, "<html>proxy</html>".into()),
        sync(json!({"version": "1.30"})),
    ]);
    assert_eq!(fake.pebble.can_connect("web".into()), Ok(false));
    assert_eq!(fake.pebble.can_connect("web".into()), Ok(false));
    assert_eq!(fake.pebble.can_connect("web".into()), Ok(true));
    let seen = fake.seen();
    assert!(seen.iter().all(|s| s.target == "/v1/system-info"));
}

#[test]
fn can_connect_to_a_silent_pebble_is_false_by_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let socket_dir = dir.path().join("charm/containers/web");
    std::fs::create_dir_all(&socket_dir).unwrap();
    // Accepts (the kernel's backlog) and never answers.
    let _listener = std::os::unix::net::UnixListener::bind(socket_dir.join("pebble.socket"));
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let mut pebble = Pebble::new(vec!["web".into()], root);
    let started = Instant::now();
    pebble.set_deadline(started + Duration::from_millis(300));
    assert_eq!(pebble.can_connect("web".into()), Ok(false));
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn send_signal_posts_the_name_and_services() {
    let mut fake = serve(vec![
        sync(json!(true)),
        error(500, "", "cannot send signal"),
    ]);
    let p = &mut fake.pebble;
    assert_eq!(
        p.send_signal(
            "web".into(),
            "SIGHUP".into(),
            vec!["web".into(), "db".into()]
        ),
        Ok(())
    );
    assert!(matches!(
        p.send_signal("web".into(), "SIGUSR1".into(), vec!["down".into()]),
        Err(PebbleError::Api(ApiError {
            status_code: 500,
            ..
        }))
    ));
    for bad in ["HUP", "sighup", "SIG", "SIGHUP ", "SIGHUP\0", "SIG-1"] {
        match p.send_signal("web".into(), bad.into(), vec!["web".into()]) {
            Err(PebbleError::Invalid(m)) => assert!(m.contains("send-signal signal"), "{m}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert!(matches!(
        p.send_signal("web".into(), "SIGHUP".into(), vec![]),
        Err(PebbleError::Invalid(m)) if m.contains("names no service")
    ));
    let many = vec!["s".to_string(); MAX_NAMES + 1];
    assert!(matches!(
        p.send_signal("web".into(), "SIGHUP".into(), many),
        Err(PebbleError::Invalid(m)) if m.contains("send-signal services")
    ));
    let seen = fake.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].target.as_str()),
        ("POST", "/v1/signals")
    );
    assert_eq!(
        seen[0].json(),
        json!({"signal": "SIGHUP", "services": ["web", "db"]})
    );
}

#[test]
fn checks_start_and_stop_and_services_autostart() {
    let mut fake = serve(vec![
        sync(json!({"changed": ["up"]})),
        sync(json!({"changed": []})),
        error(400, "", "cannot start checks: cannot find check \"nope\""),
        sync(json!({"changed": "up"})),
        (
            202,
            json!({"type": "async", "status-code": 202, "change": "3"}).to_string(),
        ),
        sync(json!({"id": "3", "status": "Done"})),
    ]);
    let p = &mut fake.pebble;
    assert_eq!(
        p.start_checks("web".into(), vec!["up".into(), "alive".into()]),
        Ok(vec!["up".into()])
    );
    assert_eq!(p.stop_checks("web".into(), vec!["up".into()]), Ok(vec![]));
    assert!(matches!(
        p.start_checks("web".into(), vec!["nope".into()]),
        Err(PebbleError::Api(ApiError {
            status_code: 400,
            ..
        }))
    ));
    assert!(matches!(
        p.stop_checks("web".into(), vec!["up".into()]),
        Err(PebbleError::Protocol(m)) if m.contains("changed checks")
    ));
    assert!(matches!(
        p.start_checks("web".into(), vec![]),
        Err(PebbleError::Invalid(m)) if m.contains("start-checks checks names no check")
    ));
    assert_eq!(p.autostart("web".into()), Ok(()));
    let seen = fake.seen();
    assert_eq!(seen[0].target, "/v1/checks");
    assert_eq!(
        seen[0].json(),
        json!({"action": "start", "checks": ["up", "alive"]})
    );
    assert_eq!(seen[1].json(), json!({"action": "stop", "checks": ["up"]}));
    assert_eq!(seen[4].target, "/v1/services");
    assert_eq!(
        seen[4].json(),
        json!({"action": "autostart", "services": []})
    );
    assert!(seen[5].target.starts_with("/v1/changes/3/wait?timeout="));
}

#[test]
fn notices_are_read_with_their_filter() {
    let notice = json!({"id": "4", "type": "custom", "key": "example.com/db",
        "first-occurred": "2026-07-01T10:00:00Z", "last-occurred": "2026-07-01T10:00:00Z",
        "last-repeated": "2026-07-01T10:00:00Z", "occurrences": 1,
        "last-data": {"ready": "yes"}});
    let mut fake = serve(vec![
        sync(json!([notice.clone()])),
        sync(notice),
        error(404, "not-found", "cannot find notice with ID \"9\""),
        sync(json!({"not": "a list"})),
    ]);
    let p = &mut fake.pebble;
    let filter = NoticeFilter {
        types: vec!["custom".into()],
        keys: vec!["example.com/db".into()],
    };
    let got = p.get_notices("web".into(), filter.clone()).unwrap();
    assert_eq!(got[0].last_data, vec![("ready".into(), "yes".into())]);
    assert_eq!(p.get_notice("web".into(), "4".into()).unwrap().id, "4");
    assert!(matches!(
        p.get_notice("web".into(), "9".into()),
        Err(PebbleError::Api(ApiError { status_code: 404, kind, .. })) if kind == "not-found"
    ));
    assert!(matches!(
        p.get_notices("web".into(), filter),
        Err(PebbleError::Protocol(m)) if m.contains("notices")
    ));
    assert!(matches!(
        p.get_notice("web".into(), String::new()),
        Err(PebbleError::Invalid(_))
    ));
    let many = NoticeFilter {
        types: vec![],
        keys: vec!["k".into(); notices::MAX_FILTER + 1],
    };
    assert!(matches!(
        p.get_notices("web".into(), many),
        Err(PebbleError::Invalid(m)) if m.contains("filter.keys")
    ));
    let seen = fake.seen();
    assert_eq!(
        seen[0].target,
        "/v1/notices?types=custom&keys=example.com/db"
    );
    assert_eq!(seen[1].target, "/v1/notices/4");
    assert_eq!(seen[2].target, "/v1/notices/9");
}

#[test]
fn exec_options_are_bounded_before_pebble_is_asked() {
    let spec = crate::charm_dir::CommandSpec {
        argv: vec!["true".into()],
        args: false,
        timeout: Duration::from_secs(5),
    };
    let grant = ContainerGrant {
        commands: [("ok".to_string(), spec)].into(),
    };
    let dir = tempfile::tempdir().unwrap();
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let mut pebble =
        Pebble::new(vec!["web".into()], root).with_commands([("web".to_string(), grant)].into());
    let mut options = no_options();
    options.stdin = vec![0; exec::MAX_STDIN + 1];
    assert!(matches!(
        pebble.exec("web".into(), "ok".into(), vec![], options),
        Err(PebbleError::Invalid(m)) if m.contains("options.stdin")
    ));
    let mut options = no_options();
    options.environment = vec![("A=B".into(), "x".into())];
    assert!(matches!(
        pebble.exec("web".into(), "ok".into(), vec![], options),
        Err(PebbleError::Invalid(m)) if m.contains("options.environment")
    ));
    let mut options = no_options();
    options.working_dir = Some("/a\0b".into());
    assert!(matches!(
        pebble.exec("web".into(), "ok".into(), vec![], options),
        Err(PebbleError::Invalid(m)) if m.contains("options.working-dir")
    ));
    // Valid options reach for the socket, which is not there.
    assert!(matches!(
        pebble.exec("web".into(), "ok".into(), vec![], no_options()),
        Err(PebbleError::CannotConnect(_))
    ));
}
