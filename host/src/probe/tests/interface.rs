//! The `probe` WIT interface as a handler sees it, and how its choices reach
//! the kept states: gating and grace restarts, on times given to them.

use super::support::ReservedPort;
use crate::bindings::probe::{Gating, Host, ProbeError};
use crate::charm_dir::probes::{HostPort, ProbeSpec, Target};
use crate::probe::{Check, Choices, ProbeState, Prober, Probes, gates};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn tcp(port: u16, gate: bool) -> ProbeSpec {
    let mut s = ProbeSpec::new(Target::Tcp(HostPort {
        host: "127.0.0.1".into(),
        port,
    }));
    s.gate = gate;
    s.retries = 0;
    s.timeout = Duration::from_millis(500);
    s
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

fn specs(up: u16, down: u16) -> Arc<BTreeMap<String, ProbeSpec>> {
    Arc::new(BTreeMap::from([
        ("api".to_string(), tcp(up, true)),
        ("extra".to_string(), tcp(down, false)),
    ]))
}

#[test]
fn a_handler_runs_a_declared_probe_for_real_and_gets_a_typed_outcome() {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let up = listener.local_addr().unwrap().port();
    let reserved = ReservedPort::on(Ipv4Addr::LOCALHOST.into(), 0).unwrap();
    let mut probes = Probes::new(specs(up, reserved.port), Prober::default());
    probes.set_deadline(Instant::now() + Duration::from_secs(10));
    let api = probes.run("api".into()).unwrap();
    assert!(api.healthy, "{api:?}");
    assert_eq!(api.detail, format!("port 127.0.0.1:{up} listening"));
    // A probe that does not gate still runs when asked.
    let extra = probes.run("extra".into()).unwrap();
    assert!(!extra.healthy);
    assert_eq!(
        extra.detail,
        format!("port 127.0.0.1:{} not listening", reserved.port)
    );
    assert_eq!(probes.take(), (Choices::default(), vec![]));
}

#[test]
fn a_scripted_outcome_is_answered_without_running() {
    let mut prober = Prober::default();
    prober
        .scripted
        .insert("api".into(), Check::unhealthy("scripted: api down"));
    // Port 1 would be refused; the scripted outcome is answered instead.
    let mut probes = Probes::new(specs(1, 1), prober);
    let api = probes.run("api".into()).unwrap();
    assert_eq!(
        (api.healthy, api.detail.as_str()),
        (false, "scripted: api down")
    );
}

#[test]
fn an_undeclared_name_is_an_error_value_and_a_warning_for_the_log() {
    let mut probes = Probes::new(specs(1, 2), Prober::default());
    let why = "no probe named \"nope\" is declared in wasm-charm.yaml (probes: api, extra)";
    assert_eq!(
        probes.run("nope".into()),
        Err(ProbeError::Undeclared(why.into()))
    );
    assert_eq!(
        probes.set_gate("nope".into(), true),
        Err(ProbeError::Undeclared(why.into()))
    );
    assert_eq!(
        probes.restart_grace("nope".into()),
        Err(ProbeError::Undeclared(why.into()))
    );
    let (choices, warnings) = probes.take();
    assert!(choices.is_empty());
    assert_eq!(
        warnings,
        [
            format!("probe.run: {why}"),
            format!("probe.set-gate: {why}"),
            format!("probe.restart-grace: {why}"),
        ]
    );
    // Taken once: the next handler starts with none.
    assert_eq!(probes.take(), (Choices::default(), vec![]));
}

#[test]
fn gates_show_the_kept_gating_with_this_handlers_choices() {
    let specs = specs(1, 2);
    let mut probes = Probes::new(specs.clone(), Prober::default());
    let gating = |probes: &mut Probes| -> Vec<(String, bool)> {
        probes
            .gates()
            .into_iter()
            .map(|Gating { name, gate }| (name, gate))
            .collect()
    };
    // Before any choice: the manifest's `gate`.
    probes.begin(gates(&specs, &BTreeMap::new()));
    assert_eq!(
        gating(&mut probes),
        [("api".into(), true), ("extra".into(), false)]
    );
    probes.set_gate("extra".into(), true).unwrap();
    probes.set_gate("api".into(), false).unwrap();
    probes.set_gate("api".into(), true).unwrap(); // the last choice counts
    probes.restart_grace("api".into()).unwrap();
    assert_eq!(
        gating(&mut probes),
        [("api".into(), true), ("extra".into(), true)]
    );
    let (choices, _) = probes.take();
    assert_eq!(
        choices.gates,
        BTreeMap::from([("api".into(), true), ("extra".into(), true)])
    );
    assert_eq!(choices.restarts.iter().collect::<Vec<_>>(), ["api"]);

    // The next handler of the event (or the next event) starts from the
    // states those choices made.
    let mut states = BTreeMap::new();
    choices.apply(&specs, &mut states, at(10));
    probes.begin(gates(&specs, &states));
    assert_eq!(
        gating(&mut probes),
        [("api".into(), true), ("extra".into(), true)]
    );
}

#[test]
fn a_probe_that_starts_gating_starts_its_grace_period() {
    let specs = specs(1, 2);
    let mut states: BTreeMap<String, ProbeState> = BTreeMap::new();
    // `extra` ran while not gating, say for a self-check long ago: failing.
    let stale = Check::unhealthy("port 127.0.0.1:2 not listening");
    let mut extra = specs["extra"].clone();
    extra.gate = true;
    let (old, _) = ProbeState::default().evaluate(&extra, &stale, at(0));
    states.insert(
        "extra".into(),
        ProbeState {
            gate: Some(false),
            ..old
        },
    );

    let choices = Choices {
        gates: BTreeMap::from([("extra".into(), true)]),
        ..Choices::default()
    };
    choices.apply(&specs, &mut states, at(1000));
    let kept = &states["extra"];
    assert_eq!(kept.gate, Some(true));
    assert_eq!(
        kept.grace_start,
        Some(crate::probe::state::millis(at(1000)))
    );
    assert_eq!(kept.failing_since, None);
    // Failing at the next event: within the grace period that started when
    // it began to gate (60 s by default), not blocked from the stale failure.
    let (_, status) = kept.evaluate(&specs["extra"], &stale, at(1030));
    assert_eq!(
        status.map(|s| s.kind),
        Some(crate::status_kind::Kind::Maintenance)
    );
    let (_, status) = kept.evaluate(&specs["extra"], &stale, at(1060));
    assert_eq!(
        status.map(|s| s.kind),
        Some(crate::status_kind::Kind::Blocked)
    );
    // Choosing again what it already does changes no time.
    let mut again = states.clone();
    Choices {
        gates: BTreeMap::from([("extra".into(), true)]),
        ..Choices::default()
    }
    .apply(&specs, &mut again, at(2000));
    assert_eq!(again, states);
}

#[test]
fn choices_for_probes_no_longer_declared_are_dropped() {
    let specs = specs(1, 2);
    let mut states = BTreeMap::new();
    Choices {
        gates: BTreeMap::from([("gone".into(), true)]),
        restarts: ["gone".to_string()].into(),
    }
    .apply(&specs, &mut states, at(0));
    assert!(states.is_empty(), "{states:?}");
}
