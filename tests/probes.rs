//! Readiness probes gate "active" (DESIGN §5): the gateway charm, all of
//! whose handlers succeed, with a gated `tcp` probe added to its manifest,
//! dispatched as Juju would. The port is a real listener the test opens and
//! closes (port 0, so tests run in parallel).

use crate::support;
use crate::support::hostile as hostile_charm;
use crate::support::reserved_port;

use hostile_charm::{assert_current, logged, set_mode, store};
use reserved_port::ReservedPort;
use serde_json::json;
use std::net::{Ipv4Addr, TcpListener};
use support::{Unit, assert_failure, assert_success};

/// A gateway unit whose handlers all succeed, with probe `api-port` on
/// 127.0.0.1:`port` (`grace: 0s`: blocked at once, no retry to wait for).
fn ready_gateway(port: u16) -> Unit {
    let unit = support::ready_gateway_on_simulator();
    unit.append_to(
        "wasm-charm.yaml",
        &format!(
            "probes:\n  api-port:\n    tcp: 127.0.0.1:{port}\n    timeout: 500ms\n    retries: 0\n    grace: 0s\n"
        ),
    );
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

/// A unit of the hostile charm in `mode`, whose manifest declares probe `up`
/// (gating, on a real listener) and `extra` (not gating, on a reserved port:
/// blocked at once when it gates).
struct ProbingUnit {
    unit: Unit,
    extra_port: u16,
    _up: TcpListener,
    _extra: ReservedPort,
}

fn probing_unit(mode: &str) -> ProbingUnit {
    probing_unit_with_grace(mode, "0s")
}

fn probing_unit_with_grace(mode: &str, grace: &str) -> ProbingUnit {
    let up = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("listen");
    let up_port = up.local_addr().expect("local addr").port();
    let extra = closed_port();
    let unit = hostile_charm::unit(mode);
    unit.append_to(
        "wasm-charm.yaml",
        &format!(
        "probes:\n  up:\n    tcp: 127.0.0.1:{up_port}\n    retries: 0\n  \
         extra:\n    tcp: 127.0.0.1:{}\n    gate: false\n    timeout: 500ms\n    retries: 0\n    grace: {grace}\n",
        extra.port
    ),
    );
    ProbingUnit {
        unit,
        extra_port: extra.port,
        _up: up,
        _extra: extra,
    }
}

#[test]
fn a_handler_runs_declared_probes_and_gets_what_they_found() {
    let p = probing_unit("probe-run");
    assert_success(&p.unit.dispatch("install"));
    let up = p._up.local_addr().expect("local addr").port();
    assert_current(
        &store(&p.unit),
        "handler/hostile",
        "waiting",
        &format!(
            "up: healthy (port 127.0.0.1:{up} listening); extra: unhealthy (port 127.0.0.1:{} not listening)",
            p.extra_port
        ),
    );
    // Running `extra` made it neither gate nor keep a state.
    let store = store(&p.unit);
    assert!(store["unit"].get("probe/extra").is_none(), "{store:#}");
    assert!(store["probes"].get("extra").is_none(), "{store:#}");
}

#[test]
fn an_undeclared_probe_name_is_an_error_value_and_a_warning_in_the_log() {
    let p = probing_unit("probe");
    assert_success(&p.unit.dispatch("install"));
    let why = "no probe named \"nope\" is declared in wasm-charm.yaml (probes: extra, up)";
    assert_current(
        &store(&p.unit),
        "handler/hostile",
        "waiting",
        &format!("undeclared probe: {why}"),
    );
    assert_eq!(
        logged(&p.unit, "WARNING"),
        [format!("handler `hostile`: probe.run: {why}")]
    );
}

#[test]
fn a_handler_chooses_which_probes_gate_and_the_choice_is_kept() {
    let p = probing_unit("probe-gate-extra");
    let extra_down = format!("port 127.0.0.1:{} not listening", p.extra_port);
    // The handler makes `extra` gate: it is judged at this very event.
    assert_success(&p.unit.dispatch("install"));
    let s = store(&p.unit);
    assert_current(&s, "handler/hostile", "waiting", "gating: extra, up");
    assert_current(&s, "probe/extra", "blocked", &extra_down);
    assert_eq!(s["probes"]["extra"]["gate"], json!(true), "{s:#}");

    // Kept across events: the next handlers see it, and it still gates.
    set_mode(&p.unit, "probe-gates");
    assert_success(&p.unit.dispatch("config-changed"));
    let s = store(&p.unit);
    assert_current(&s, "handler/hostile", "waiting", "gating: extra, up");
    assert_current(&s, "probe/extra", "blocked", &extra_down);

    // Ungated: its scope goes with no other handler touching it.
    set_mode(&p.unit, "probe-ungate-extra");
    assert_success(&p.unit.dispatch("config-changed"));
    let s = store(&p.unit);
    assert!(s["unit"]["probe/extra"]["current"].is_null(), "{s:#}");
    assert_eq!(s["probes"]["extra"]["gate"], json!(false), "{s:#}");
}

#[test]
fn a_gate_chosen_by_a_handler_that_then_fails_is_not_kept() {
    let p = probing_unit("probe-gate-extra-then-panic");
    assert_failure(&p.unit.dispatch("install"));
    // Nothing of the failed event was stored.
    assert!(
        !p.unit.charm_dir().join(".wasm-charm/scopes.json").exists(),
        "a failed first event wrote a store"
    );
    set_mode(&p.unit, "probe-gates");
    assert_success(&p.unit.dispatch("config-changed"));
    let s = store(&p.unit);
    assert_current(&s, "handler/hostile", "waiting", "gating: up");
    assert!(s["unit"].get("probe/extra").is_none(), "{s:#}");
}

#[test]
fn restarting_a_grace_period_turns_blocked_back_into_maintenance() {
    let p = probing_unit_with_grace("probe-gate-extra", "60s");
    let extra_down = format!("port 127.0.0.1:{} not listening", p.extra_port);
    // It starts gating, failing: maintenance, within its grace period.
    assert_success(&p.unit.dispatch("install"));
    assert_current(&store(&p.unit), "probe/extra", "maintenance", &extra_down);

    // Two minutes pass: the store is the only memory of time between
    // events, so moving its times back is the clock moving on.
    let path = p.unit.charm_dir().join(".wasm-charm/scopes.json");
    let mut s = store(&p.unit);
    for field in ["grace_start", "failing_since"] {
        let t = s["probes"]["extra"][field].as_u64().expect(field);
        s["probes"]["extra"][field] = json!(t - 120_000);
    }
    std::fs::write(&path, serde_json::to_vec(&s).expect("encode")).expect("write the store");
    set_mode(&p.unit, "ok");
    assert_success(&p.unit.dispatch("update-status"));
    assert_current(&store(&p.unit), "probe/extra", "blocked", &extra_down);

    // The charm restarts what it watches: maintenance again, for 60 s.
    set_mode(&p.unit, "probe-restart-extra");
    assert_success(&p.unit.dispatch("config-changed"));
    assert_current(&store(&p.unit), "probe/extra", "maintenance", &extra_down);
}
