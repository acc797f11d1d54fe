//! The web-k8s charm on the host's simulated Juju and simulated Pebble,
//! through the wasm-charm-testing harness: the host's own Pebble client
//! talks to a Pebble answered from the state (its plan, services, checks
//! and files), and the probes on Pebble's check and service run against it
//! too, so readiness is decided as on a unit.

use std::time::{Duration, SystemTime};
use wasm_charm_testing::{Charm, Event, Relation, State, Status};

const CONF: &str = "/etc/web/web.conf";

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

/// A fixed time, so that grace periods are decided by the test, not by the
/// machine's clock.
fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + seconds)
}

fn conf(port: u16, greeting: &str) -> String {
    format!(
        "# web-server configuration, written by the web-k8s charm from its\n\
         # config: changes made here are overwritten.\n\
         port = {port}\n\
         greeting = {greeting}\n"
    )
}

/// The unit once its container's Pebble answered `pebble-ready`.
fn ready() -> State {
    let out = charm().run(&State::new(), Event::pebble_ready("web").at(at(0)));
    out.assert_ok();
    out.state()
}

#[test]
fn waits_while_pebble_does_not_answer() {
    let state = State::new().can_connect("web", false);
    let out = charm().run(&state, Event::install());
    out.assert_ok();
    // The probes wait for Pebble: the charm has nothing to say.
    assert_eq!(
        out.unit_status(),
        Some(Status::waiting("waiting for Pebble in web (+1 more)")),
        "{out}"
    );
    assert_eq!(
        out.scope("probe/web-alive"),
        Some(Status::waiting("waiting for Pebble in web")),
        "{out}"
    );
    assert_eq!(out.scope("handler/web"), None, "{out}");
    assert!(out.pebble_calls("web").is_empty(), "{out}");
    assert_eq!(out.pebble_file("web", CONF), None, "{out}");
}

#[test]
fn pebble_ready_pushes_the_file_adds_the_layer_and_serves() {
    let out = charm().run(&State::new(), Event::pebble_ready("web"));
    out.assert_ok();
    assert_eq!(out.unit_status(), Some(Status::active("Serving")), "{out}");
    // The handler reads the file back first (it is pushed only when its
    // bytes differ) and asks about the service (a running one is
    // restarted); after it, the host's probes read Pebble's check and
    // service, concurrently, in either order.
    let calls = out.pebble_calls("web");
    assert_eq!(
        calls[..calls.len().min(6)],
        [
            "system-info",
            "pull /etc/web/web.conf",
            "push /etc/web/web.conf",
            "get-services web",
            "add-layer web combine",
            "replan",
        ],
        "{out}"
    );
    let mut probes = calls[6..].to_vec();
    probes.sort();
    assert_eq!(probes, ["get-checks alive", "get-services web"], "{out}");
    assert_eq!(out.pebble_layers("web"), ["web"]);
    assert_eq!(out.pebble_service("web", "web"), Some("active"), "{out}");
    assert_eq!(
        out.pebble_file("web", CONF),
        Some(conf(8080, "Hello from web-k8s"))
    );
    // Both probes gate once the layer is in, and found the server up.
    assert_eq!(out.gating(), ["web-alive", "web-service"], "{out}");
    assert_eq!(
        out.probe("web-service").map(|(healthy, _)| healthy),
        Some(true)
    );
}

#[test]
fn a_config_change_pushes_and_restarts_only_when_the_file_changes() {
    let changed = charm().run(&ready().config("port", 9000), Event::config_changed());
    changed.assert_ok();
    assert!(changed.logged("restarting web"), "{changed}");
    let calls = changed.pebble_calls("web");
    assert!(
        calls.contains(&"push /etc/web/web.conf".to_string()),
        "{changed}"
    );
    assert!(calls.contains(&"restart web".to_string()), "{changed}");
    assert_eq!(
        changed.pebble_file("web", CONF),
        Some(conf(9000, "Hello from web-k8s"))
    );
    assert_eq!(changed.unit_status(), Some(Status::active("Serving")));

    // The same config again: the file's bytes are the same, so nothing is
    // pushed and nothing restarted.
    let again = charm().run(&changed.state(), Event::config_changed());
    again.assert_ok();
    let calls = again.pebble_calls("web");
    assert!(
        !calls
            .iter()
            .any(|c| c.starts_with("push") || c.starts_with("restart")),
        "{again}"
    );
}

#[test]
fn unusable_config_blocks_and_leaves_the_container_alone() {
    let out = charm().run(&ready().config("port", 70000), Event::config_changed());
    out.assert_ok();
    let status = out.unit_status().expect("a status was written");
    assert_eq!(
        status.kind,
        wasm_charm_testing::StatusKind::Blocked,
        "{out}"
    );
    assert!(status.message.contains("port"), "{out}");
    assert_eq!(
        out.pebble_file("web", CONF),
        Some(conf(8080, "Hello from web-k8s")),
        "{out}"
    );
}

#[test]
fn a_failing_check_is_maintenance_within_its_grace_then_blocked_then_heals() {
    let down = ready().pebble_check("web", "alive", false);
    let failed = charm().run(
        &down,
        Event::pebble_check_failed("web").check("alive").at(at(10)),
    );
    failed.assert_ok();
    assert!(failed.logged("Pebble check web/alive failed"), "{failed}");
    assert_eq!(
        failed.unit_status(),
        Some(Status::maintenance(
            "check web/alive down (3 of 3 failures)"
        )),
        "{failed}"
    );
    // Past the probe's 30 s grace period, still down: blocked, with no
    // handler deciding it.
    let later = charm().run(&failed.state(), Event::update_status().at(at(50)));
    later.assert_ok();
    assert_eq!(
        later.unit_status(),
        Some(Status::blocked("check web/alive down (3 of 3 failures)")),
        "{later}"
    );
    // The check comes back: active again.
    let up = later.state().pebble_check("web", "alive", true);
    let recovered = charm().run(
        &up,
        Event::pebble_check_recovered("web")
            .check("alive")
            .at(at(60)),
    );
    recovered.assert_ok();
    assert_eq!(recovered.unit_status(), Some(Status::active("Serving")));
}

#[test]
fn check_config_runs_the_declared_command_through_pebble_exec() {
    let state = ready().pebble_exec("web", "check-config", 0, "port 8080\n", "");
    let out = charm().run(&state, Event::action("check-config"));
    out.assert_ok();
    assert_eq!(out.action_result("output"), Some("port 8080\n"), "{out}");
    assert_eq!(out.action_failed(), None, "{out}");
    assert!(
        out.pebble_calls("web")
            .contains(&"exec web-server --check /etc/web/web.conf".to_string()),
        "{out}"
    );

    let state = ready().pebble_exec("web", "check-config", 1, "", "greeting: too long\n");
    let out = charm().run(&state, Event::action("check-config"));
    assert_eq!(
        out.action_failed(),
        Some("web-server finds /etc/web/web.conf unusable: greeting: too long"),
        "{out}"
    );
}

#[test]
fn related_units_are_told_the_port() {
    let state = ready()
        .config("port", 9000)
        .relation(Relation::new("website:3", "proxy").unit("proxy/0"));
    let out = charm().run(
        &state,
        Event::relation_joined("website").remote_unit("proxy/0"),
    );
    out.assert_ok();
    let data = out.relation("website:3").expect("the relation is there");
    assert_eq!(
        data.local_unit.get("port").map(String::as_str),
        Some("9000"),
        "{out}"
    );
}
