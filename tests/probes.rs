//! Readiness probes gate "active" (DESIGN §5): the gateway charm, all of
//! whose handlers succeed, with a gated `tcp` probe added to its manifest,
//! dispatched as Juju would. The port is a real listener the test opens and
//! closes (port 0, so tests run in parallel).

#[path = "support/reserved_port.rs"]
mod reserved_port;
mod support;

use reserved_port::ReservedPort;
use serde_json::json;
use std::net::Ipv4Addr;
use support::{Unit, assert_success, packed};

/// A gateway unit whose handlers all succeed, with probe `api-port` on
/// 127.0.0.1:`port` (`grace: 0s`: blocked at once, no retry to wait for).
fn ready_gateway(port: u16) -> Unit {
    let unit = Unit::new(&packed("examples/gateway"), "gateway/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"kind": "ingress"},
        "relations": {"istio-pilot:4": {
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {"service-name": "p", "service-port": "1"},
        }},
        "status": {"unit": null, "app": null},
    }));
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let mut text = std::fs::read_to_string(&manifest).unwrap_or_default();
    text.push_str(&format!(
        "probes:\n  api-port:\n    tcp: 127.0.0.1:{port}\n    timeout: 500ms\n    retries: 0\n    grace: 0s\n"
    ));
    std::fs::write(&manifest, text).expect("write wasm-charm.yaml");
    unit
}

/// A port nothing listens on, and nothing else can take meanwhile.
fn closed_port() -> ReservedPort {
    ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).expect("reserve a port")
}

#[test]
fn a_closed_gated_port_keeps_the_unit_from_active_and_its_opening_heals_it() {
    let reserved = closed_port();
    let port = reserved.port;
    let unit = ready_gateway(port);

    // Every handler succeeds, yet the unit is not active: the port is closed.
    assert_success(&unit.dispatch("install"));
    let message = format!("port 127.0.0.1:{port} not listening");
    let sets = unit.calls_of("status-set");
    assert_eq!(sets.len(), 1, "{sets:?}");
    assert_eq!(sets[0][1], "blocked", "{sets:?}");
    assert!(sets[0][3].contains(&message), "{sets:?}");

    // The port opens; update-status, which no gateway handler observes,
    // makes the unit active with no handler running.
    let _listener = reserved.listen().expect("listen on the port");
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(
        unit.calls_of("status-set"),
        vec![vec!["status-set", "active", "--", ""]]
    );
    assert!(
        unit.calls_of("config-get").is_empty(),
        "no handler ran: {:?}",
        unit.calls()
    );
    let store: serde_json::Value = serde_json::from_slice(
        &std::fs::read(unit.charm_dir().join(".wasm-charm/scopes.json")).expect("read the store"),
    )
    .expect("the store is JSON");
    assert!(
        store["unit"]["probe/api-port"]["current"].is_null(),
        "{store:#}"
    );
    assert!(store["probes"]["api-port"].is_object(), "{store:#}");
}

#[test]
fn a_probe_no_longer_declared_takes_its_scope_and_state_with_it() {
    let reserved = closed_port();
    let unit = ready_gateway(reserved.port);
    assert_success(&unit.dispatch("install"));
    // The operator upgrades to a charm without the probe.
    let manifest = unit.charm_dir().join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).expect("read wasm-charm.yaml");
    let kept: String = text
        .lines()
        .take_while(|l| !l.starts_with("probes:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&manifest, kept).expect("write wasm-charm.yaml");
    unit.clear_calls();
    assert_success(&unit.dispatch("update-status"));
    assert_eq!(
        unit.calls_of("status-set"),
        vec![vec!["status-set", "active", "--", ""]]
    );
}
