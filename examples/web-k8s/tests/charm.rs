//! The web-k8s charm on the host's simulated Juju and simulated Pebble,
//! through the wasm-charm-testing harness: the host's own Pebble client
//! talks to a Pebble answered from the state (its plan, services, checks
//! and files), and the probes on Pebble's check and service run against it
//! too, so readiness is decided as on a unit.

use serde_json::{Value, json};
use std::time::{Duration, SystemTime};
use wasm_charm_testing::{Charm, Event, Outcome, Relation, State, Status, StatusKind};

const CONF: &str = "/etc/web/web.conf";
/// How the server runs and the charm runs its commands: the image's
/// `_daemon_` user and group, a UTF-8 locale, in `/`.
const AS_THE_SERVER: &str = "[env LANG=C.UTF-8, dir /, user-id 584792, group-id 584792]";
const RELOAD: &str = "example.com/web-server/reload";

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

/// The Pebble calls of the event that contain `text`.
fn calls_with<'a>(out: &'a Outcome, text: &str) -> Vec<&'a str> {
    out.pebble_calls("web")
        .iter()
        .map(String::as_str)
        .filter(|c| c.contains(text))
        .collect()
}

/// The entry of `path` in the state's `containers.web.files`, as the state
/// file holds it (the harness has no accessor for a file's owner and mode).
fn file_entry(out: &Outcome, path: &str) -> Value {
    let containers = out.state().get("containers").expect("a containers section");
    containers["web"]["files"][path].clone()
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
    // bytes differ), has the server check the new one, makes its directory
    // and pushes it, and asks about the service (a running one is
    // restarted or reloaded); after it, the host's probes read Pebble's
    // check and service, concurrently, in either order.
    let validate = format!("exec web-server --check - {AS_THE_SERVER}");
    // The new file itself on the command's stdin (recorded when the
    // simulated Pebble has read it, which may be after the exec's answer).
    let stdin = format!(
        "exec stdin {} bytes (task 2)",
        conf(8080, "Hello from web-k8s").len()
    );
    assert_eq!(calls_with(&out, "exec stdin"), [stdin.as_str()], "{out}");
    let calls: Vec<&str> = out
        .pebble_calls("web")
        .iter()
        .map(String::as_str)
        .filter(|c| !c.starts_with("exec stdin"))
        .collect();
    assert_eq!(
        calls[..calls.len().min(8)],
        [
            "system-info",
            "pull /etc/web/web.conf",
            validate.as_str(),
            "make-dir /etc/web",
            "push /etc/web/web.conf",
            "get-services web",
            "add-layer web combine",
            "replan",
        ],
        "{out}"
    );
    let mut probes = calls[8..].to_vec();
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
fn a_new_port_restarts_the_server_and_the_same_file_changes_nothing() {
    let changed = charm().run(&ready().config("port", 9000), Event::config_changed());
    changed.assert_ok();
    assert!(
        changed.logged("restarting web: its port changed"),
        "{changed}"
    );
    assert_eq!(calls_with(&changed, "push"), ["push /etc/web/web.conf"]);
    assert_eq!(
        calls_with(&changed, "restart"),
        ["restart web"],
        "{changed}"
    );
    assert!(calls_with(&changed, "send-signal").is_empty(), "{changed}");
    assert_eq!(
        changed.pebble_file("web", CONF),
        Some(conf(9000, "Hello from web-k8s"))
    );
    assert_eq!(changed.unit_status(), Some(Status::active("Serving")));

    // The same config again: the file's bytes are the same, so nothing is
    // checked, pushed, restarted or signalled.
    let again = charm().run(&changed.state(), Event::config_changed());
    again.assert_ok();
    for call in ["exec", "make-dir", "push", "restart", "send-signal"] {
        assert!(calls_with(&again, call).is_empty(), "{call}: {again}");
    }
}

#[test]
fn a_new_greeting_is_a_reload_by_sighup_not_a_restart() {
    let out = charm().run(
        &ready().config("greeting", "Grüß dich"),
        Event::config_changed(),
    );
    out.assert_ok();
    assert_eq!(calls_with(&out, "push"), ["push /etc/web/web.conf"]);
    assert_eq!(calls_with(&out, "send-signal"), ["send-signal SIGHUP web"]);
    assert!(calls_with(&out, "restart").is_empty(), "{out}");
    assert!(
        out.logged("reloading web (SIGHUP): /etc/web/web.conf changed"),
        "{out}"
    );
    assert_eq!(out.pebble_file("web", CONF), Some(conf(8080, "Grüß dich")));
    assert_eq!(out.pebble_service("web", "web"), Some("active"));
    assert_eq!(out.unit_status(), Some(Status::active("Serving")));

    // A server that is not running reads its file when it starts: neither
    // signal nor restart, the replan starts it.
    let stopped = ready().pebble_service("web", "web", "inactive");
    let out = charm().run(&stopped.config("greeting", "Hi"), Event::config_changed());
    out.assert_ok();
    assert!(calls_with(&out, "send-signal").is_empty(), "{out}");
    assert!(calls_with(&out, "restart").is_empty(), "{out}");
    assert_eq!(out.pebble_service("web", "web"), Some("active"), "{out}");
}

#[test]
fn the_directory_and_file_belong_to_the_servers_user() {
    let out = charm().run(&State::new(), Event::pebble_ready("web"));
    out.assert_ok();
    assert_eq!(calls_with(&out, "make-dir"), ["make-dir /etc/web"], "{out}");
    // The file: the server's user and group, readable by them only.
    assert_eq!(
        file_entry(&out, CONF),
        json!({
            "content": conf(8080, "Hello from web-k8s"),
            "permissions": "640",
            "owner": {"user-id": 584792, "group-id": 584792},
        }),
        "{out}"
    );
    // The service runs as that user, in the same environment.
    let containers = out.state().get("containers").expect("containers");
    let service = &containers["web"]["layers"][0]["services"]["web"];
    assert_eq!(service["user-id"], 584792, "{service}");
    assert_eq!(service["group-id"], 584792, "{service}");
    assert_eq!(service["environment"], json!({"LANG": "C.UTF-8"}));
    assert_eq!(service["working-dir"], "/");
}

#[test]
fn a_configuration_the_server_refuses_is_not_pushed_and_blocks_with_its_words() {
    // The server's complaint comes on stderr: combined into the output the
    // charm reads, it names what is wrong.
    let refusal = "web-server: <stdin>: port 80: only root may listen below 1024 (uid 584792)\n";
    let state = ready()
        .config("port", 80)
        .pebble_exec("web", "validate-config", 1, "", refusal);
    let out = charm().run(&state, Event::config_changed());
    out.assert_ok();
    let blocked = Status::blocked(format!(
        "web-server refuses the configuration: {}",
        refusal.trim()
    ));
    assert_eq!(out.scope("handler/web"), Some(blocked.clone()), "{out}");
    assert_eq!(out.unit_status(), Some(blocked), "{out}");
    assert!(
        out.logged("web-server refuses the new /etc/web/web.conf (exit 1); the old one stays"),
        "{out}"
    );
    // Checked with the new file on stdin, as the server runs; then nothing
    // else: the old file stays, and the server serves on with it.
    assert_eq!(
        calls_with(&out, "exec web-server"),
        [format!("exec web-server --check - {AS_THE_SERVER}")],
        "{out}"
    );
    let stdin = format!("exec stdin {} bytes", conf(80, "Hello from web-k8s").len());
    assert_eq!(calls_with(&out, &stdin).len(), 1, "{out}");
    for call in ["make-dir", "push", "restart", "send-signal", "add-layer"] {
        assert!(calls_with(&out, call).is_empty(), "{call}: {out}");
    }
    assert_eq!(
        out.pebble_file("web", CONF),
        Some(conf(8080, "Hello from web-k8s"))
    );
    assert_eq!(out.pebble_service("web", "web"), Some("active"));

    // The server accepts the next one: pushed, and the unit is active.
    let fixed = out.state().config("port", 8081);
    let fixed = fixed.pebble_exec("web", "validate-config", 0, "port = 8081\n", "");
    let out = charm().run(&fixed, Event::config_changed());
    out.assert_ok();
    assert_eq!(out.scope("handler/web"), None, "{out}");
    assert_eq!(out.unit_status(), Some(Status::active("Serving")), "{out}");
    assert_eq!(calls_with(&out, "restart"), ["restart web"], "{out}");
}

#[test]
fn the_workloads_reload_notice_is_read_and_answered_with_sighup() {
    let state = ready().pebble_notice("web", RELOAD, &[("reason", "certificates renewed")]);
    let out = charm().run(
        &state,
        Event::pebble_custom_notice("web").notice("1", RELOAD),
    );
    out.assert_ok();
    assert_eq!(calls_with(&out, "notice"), ["get-notice 1"], "{out}");
    assert!(
        out.logged("the workload asks for a reload (certificates renewed; notice 1, 1 times)"),
        "{out}"
    );
    assert_eq!(calls_with(&out, "send-signal"), ["send-signal SIGHUP web"]);
    assert!(
        out.logged("reloading web (SIGHUP): the workload asked"),
        "{out}"
    );
    // The file was the charm's: nothing pushed, nothing restarted.
    for call in ["push", "restart"] {
        assert!(calls_with(&out, call).is_empty(), "{call}: {out}");
    }
    assert_eq!(out.unit_status(), Some(Status::active("Serving")));

    // Someone edited the file in the container meanwhile: the charm's is
    // checked and pushed back, then the server reloads once.
    let edited = state.pebble_file("web", CONF, "port = 8080\ngreeting = edited\n");
    let out = charm().run(
        &edited,
        Event::pebble_custom_notice("web").notice("1", RELOAD),
    );
    out.assert_ok();
    assert_eq!(calls_with(&out, "push"), ["push /etc/web/web.conf"]);
    assert_eq!(calls_with(&out, "send-signal"), ["send-signal SIGHUP web"]);
    assert_eq!(
        out.pebble_file("web", CONF),
        Some(conf(8080, "Hello from web-k8s"))
    );
}

#[test]
fn another_notice_is_not_the_charms_and_signals_nothing() {
    let state = ready().pebble_notice("web", "example.com/other/thing", &[("a", "b")]);
    let out = charm().run(
        &state,
        Event::pebble_custom_notice("web").notice("1", "example.com/other/thing"),
    );
    out.assert_ok();
    assert!(calls_with(&out, "notice").is_empty(), "{out}");
    assert!(calls_with(&out, "send-signal").is_empty(), "{out}");
    assert!(
        out.logged("notice example.com/other/thing of web: not the charm's"),
        "{out}"
    );
    assert_eq!(out.unit_status(), Some(Status::active("Serving")));
}

#[test]
fn unusable_config_blocks_and_leaves_the_container_alone() {
    let out = charm().run(&ready().config("port", 70000), Event::config_changed());
    out.assert_ok();
    let status = out.unit_status().expect("a status was written");
    assert_eq!(status.kind, StatusKind::Blocked, "{out}");
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
        out.pebble_calls("web").contains(&format!(
            "exec web-server --check /etc/web/web.conf {AS_THE_SERVER}"
        )),
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
