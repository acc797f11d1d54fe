//! The server on a real socket, reached through the host's own Pebble
//! client (the `pebble` interface a handler calls), exec's websockets too.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use super::api::Sim;
use super::server::Server;
use super::state::{SimCheck, SimContainer};
use crate::bindings::pebble::{Host as _, PebbleError};
use crate::bindings::workload::Exit;
use crate::charm_dir::{CommandSpec, ContainerGrant};
use crate::offline::machine::{ScriptedCommand, ScriptedExit};
use crate::pebble::Pebble;
use crate::workload_root::WorkloadRoot;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const LAYER: &str = "services:\n  web:\n    override: replace\n    command: web-server\n    \
                     startup: enabled\nchecks:\n  alive:\n    override: replace\n    \
                     http: {url: 'http://localhost:8080/'}\n";

fn commands() -> BTreeMap<String, CommandSpec> {
    BTreeMap::from([(
        "check-config".to_string(),
        CommandSpec {
            argv: vec!["web-server".into(), "--check".into()],
            args: false,
            timeout: Duration::from_secs(5),
        },
    )])
}

#[test]
fn the_hosts_client_drives_the_simulated_pebble() {
    let dir = tempfile::tempdir().unwrap();
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let socket = super::socket(&root, "web").unwrap();
    let mut state = SimContainer::default();
    state.exec.insert(
        "check-config".into(),
        ScriptedCommand {
            exit: ScriptedExit::Code(1),
            stdout: "x".repeat(200 << 10),
            stderr: "port: bad".into(),
        },
    );
    state.checks.insert("alive".into(), SimCheck::default());
    let sim = Sim::new(state, commands(), "2026-12-01T00:00:00Z".into()).unwrap();
    let server = Server::start(socket.clone(), sim).unwrap();
    let mut pebble = Pebble::new(vec!["web".into()], root).with_commands(BTreeMap::from([(
        "web".to_string(),
        ContainerGrant {
            commands: commands(),
        },
    )]));
    pebble.set_deadline(Instant::now() + Duration::from_secs(20));
    let web = || "web".to_string();
    assert_eq!(pebble.can_connect(web()), Ok(true));
    pebble
        .add_layer(web(), "web".into(), LAYER.into(), true)
        .unwrap();
    pebble.replan(web()).unwrap();
    let services = pebble.get_services(web(), vec![]).unwrap();
    assert_eq!(
        (services[0].name.as_str(), services[0].current.as_str()),
        ("web", "active")
    );
    let checks = pebble
        .get_checks(web(), vec!["alive".into()], None)
        .unwrap();
    assert_eq!(checks[0].status, "up");
    assert!(pebble.get_plan(web()).unwrap().contains("web-server"));
    pebble
        .push(
            web(),
            "/etc/web/web.conf".into(),
            b"port = 1\n".to_vec(),
            crate::bindings::pebble::PushOptions {
                make_dirs: true,
                permissions: Some(0o600),
                owner: crate::pebble::test_values::nobody(),
            },
        )
        .unwrap();
    assert_eq!(
        pebble.pull(web(), "/etc/web/web.conf".into()).unwrap(),
        b"port = 1\n"
    );
    match pebble.pull(web(), "/etc/none".into()) {
        Err(PebbleError::Api(e)) => assert_eq!(e.kind, "not-found"),
        other => panic!("{other:?}"),
    }
    let listed = pebble
        .list_files(web(), "/etc/web".into(), None, false)
        .unwrap();
    assert_eq!(listed[0].permissions, 0o600);
    match pebble.start(web(), vec!["db".into()]) {
        Err(PebbleError::Api(e)) => assert_eq!(e.status_code, 400),
        other => panic!("{other:?}"),
    }
    let options = crate::pebble::test_values::no_exec_options();
    let out = pebble
        .exec(web(), "check-config".into(), vec![], options)
        .unwrap();
    assert_eq!(out.exit, Exit::Code(1));
    // Sent in several frames, cut as on a unit.
    let limit = crate::workload::OUTPUT_LIMIT;
    assert_eq!((out.stdout.len(), out.truncated), (limit, true));
    assert_eq!(out.stderr, b"port: bad");
    let state = server.stop().into_state();
    assert!(!socket.exists(), "the socket goes with the server");
    assert_eq!(pebble.can_connect(web()), Ok(false));
    assert_eq!(
        state.calls,
        [
            "system-info",
            "add-layer web combine",
            "replan",
            "get-services",
            "get-checks alive",
            "get-plan",
            "push /etc/web/web.conf",
            "pull /etc/web/web.conf",
            "pull /etc/none",
            "list-files /etc/web",
            "start db",
            "exec web-server --check",
        ]
    );
    assert_eq!(state.services["web"], super::state::Current::Active);
    assert!(state.files.contains_key("/etc/web/web.conf"));
}

#[test]
fn a_stale_socket_is_replaced_and_anything_else_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pebble.socket");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let sim = || Sim::new(SimContainer::default(), BTreeMap::new(), String::new()).unwrap();
    let server = Server::start(path.clone(), sim()).unwrap();
    // Dropped without `stop`: still stopped, socket removed.
    drop(server);
    assert!(!path.exists());
    // Stopped even when its socket file was removed under it.
    let server = Server::start(path.clone(), sim()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let back = server.stop();
    assert!(back.calls.is_empty());
    std::fs::write(&path, "not a socket").unwrap();
    let e = Server::start(path.clone(), sim()).err().unwrap();
    assert!(e.contains("is not a socket"), "{e}");
}
