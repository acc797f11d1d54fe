//! Differential test: the gateway charm on wasm-charm (`examples/gateway`,
//! packed) against the same charm on `ops` 3.9 (`tests/ops-peer`, which
//! recomputes every status in collect-status at each hook). Each runs in its
//! own unit directory, dispatched as Juju would dispatch it, on the same fake
//! hook tools, with the same fake state before every event.
//!
//! Where `docs/architecture.md` §4 says they must agree, the test checks that
//! they do, at every step:
//! * the workload status kind Juju ends up with (`status.unit` of the fake
//!   state) is the same;
//! * the problems are the same: the non-active statuses ops' collect-status
//!   handlers add (ops logs each one, `Adding unit status …`) are what the
//!   step's inputs call for, and are exactly wasm-charm's non-active scopes
//!   (its store, `<charm>/.wasm-charm/scopes.json`);
//! * so ops' message is the message of one of wasm-charm's problem scopes, or
//!   both are active with the empty ready message;
//! * wasm-charm's message is its winning scope's, followed by ` (+N more)`
//!   with N the number of its other problem scopes, which is the number of
//!   other problems ops added;
//! * neither touches the application status.
//!
//! Where the design makes them differ, the test says so explicitly:
//! * ops calls `status-set` at every event, update-status included;
//!   wasm-charm only when the merged value changed (§4 "none when unchanged");
//! * between problems of the same severity, ops shows the first one its
//!   handlers added, wasm-charm the oldest problem (§4 merge rule).
//!
//! The ops peer is set up once per test process by `setup.sh` in
//! `<workspace>/target/ops-peer` (a venv with ops from PyPI), and reused when
//! that is already done. Every ops unit gets a fresh copy of its charm
//! directory (the venv linked), without the `.unit-state.db` that setup left.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use support::{Unit, packed, workspace_root};

/// A workload status: kind and message.
type Status = (&'static str, &'static str);

const ACTIVE: Status = ("active", "");
/// What the `config` concern reports while `kind` is neither ingress nor egress.
const CONFIG: Status = ("blocked", "Config item `kind` must be set");
/// The `pilot` concern without the istio-pilot relation.
const NO_PILOT: Status = ("blocked", "Waiting for istio-pilot relation");
/// The `pilot` concern with the relation but without the pilot's service.
const NO_PILOT_DATA: Status = ("waiting", "Waiting for istio-pilot relation data");
/// The `leader` concern on a non-leader.
const NOT_LEADER: Status = ("waiting", "Waiting for leadership");

const RELATION: &str = "istio-pilot:1";

// ---------------------------------------------------------------- the ops peer

/// The ops peer's charm directory, `<workspace>/target/ops-peer/charm`, set up
/// once per test process.
fn ops_charm() -> &'static Path {
    static CHARM: OnceLock<PathBuf> = OnceLock::new();
    CHARM.get_or_init(support::ops_peer_charm)
}

// ---------------------------------------------------------------- the peers

/// The same unit, `gateway/0`, twice: on ops and on wasm-charm.
struct Peers {
    ops: Unit,
    wasm: Unit,
    /// wasm-charm's merged unit status after the last step, i.e. what it
    /// last wrote (nothing before the first event).
    wasm_merged: Option<Status>,
}

/// What the ops peer did in one step.
struct OpsSeen {
    /// Its `status-set` calls, argv each.
    sets: Vec<Vec<String>>,
    /// The non-active statuses its collect-status handlers added, in order
    /// (from ops' debug log, which the fake `juju-log` records).
    added: Vec<(String, String)>,
    /// The fake state's `status.unit` afterwards.
    unit: (String, String),
}

/// What the wasm-charm peer did in one step.
struct WasmSeen {
    sets: Vec<Vec<String>>,
    /// Its non-active scopes afterwards, from its store.
    problems: Vec<Scope>,
    unit: (String, String),
}

/// A scope of wasm-charm's store that holds a problem.
#[derive(Debug)]
struct Scope {
    name: String,
    kind: String,
    message: String,
    /// `critical`, `normal` or `low`.
    band: String,
    since: u64,
}

/// What the step's inputs call for, and the statuses each peer must write.
struct Expect {
    /// The non-active statuses ops' collect-status handlers add, in the order
    /// they add them (config, pilot, leader), computed by hand from the
    /// step's state and event. wasm-charm must hold the same problems.
    problems: &'static [Status],
    /// The unit status ops writes.
    ops: Status,
    /// The unit status wasm-charm's merge gives.
    wasm: Status,
}

impl Peers {
    /// Both units with the same initial fake state: leader or not, config
    /// defaults (`kind=""`, as Juju's config-get returns them), no relation.
    fn new(leader: bool) -> Peers {
        let peers = Peers {
            ops: Unit::with_charm_dir_on_simulator(
                ops_charm(),
                "gateway/0",
                &["venv"],
                &[".unit-state.db"],
            ),
            wasm: Unit::on_simulator(&packed("examples/gateway"), "gateway/0"),
            wasm_merged: None,
        };
        assert!(
            !peers.ops.charm_dir().join(".unit-state.db").exists(),
            "the ops unit must start without ops state"
        );
        peers.update_state(|s| {
            *s = json!({
                "leader": leader,
                "config": {"kind": ""},
                "relations": {},
                "status": {"unit": null, "app": null},
            })
        });
        peers
    }

    /// Changes both peers' fake state the same way.
    fn update_state(&self, f: impl Fn(&mut Value)) {
        self.ops.update_state(&f);
        self.wasm.update_state(&f);
    }

    /// Runs one event on both peers and checks everything the design says
    /// they agree on; returns what each did, for the differences.
    fn step(
        &mut self,
        event: &str,
        run: impl Fn(&Unit) -> Output,
        expect: &Expect,
    ) -> (OpsSeen, WasmSeen) {
        assert_eq!(
            inputs(&self.ops.state()),
            inputs(&self.wasm.state()),
            "{event}: the peers' fake states differ before the event"
        );
        for unit in [&self.ops, &self.wasm] {
            unit.clear_calls();
            unit.clear_debug_log();
        }
        let out = run(&self.ops);
        check_ran("ops", event, &self.ops, &out);
        let out = run(&self.wasm);
        check_ran("wasm-charm", event, &self.wasm, &out);

        let ops = OpsSeen {
            sets: self.ops.calls_of("status-set"),
            added: added_statuses(&self.ops.debug_log()),
            unit: unit_status(&self.ops),
        };
        let wasm = WasmSeen {
            sets: self.wasm.calls_of("status-set"),
            problems: problem_scopes(&self.wasm),
            unit: unit_status(&self.wasm),
        };
        let ctx = format!(
            "{event}\n  ops: {:?} added {:?}\n  wasm-charm: {:?} scopes {:?}",
            ops.unit, ops.added, wasm.unit, wasm.problems
        );

        // The problems: what the inputs call for, what ops added, what
        // wasm-charm keeps.
        let want: Vec<(String, String)> = expect.problems.iter().map(|&s| owned(s)).collect();
        assert_eq!(ops.added, want, "ops' collect-status problems: {ctx}");
        let mut kept: Vec<(String, String)> = wasm
            .problems
            .iter()
            .map(|s| (s.kind.clone(), s.message.clone()))
            .collect();
        kept.sort();
        let mut want_sorted = want.clone();
        want_sorted.sort();
        assert_eq!(kept, want_sorted, "wasm-charm's problem scopes: {ctx}");

        // The kind Juju shows is the same.
        assert_eq!(ops.unit.0, wasm.unit.0, "status kinds differ: {ctx}");

        // ops: the most severe status, the first added among equals.
        assert_eq!(ops.unit, owned(expect.ops), "ops' unit status: {ctx}");
        assert_eq!(ops.unit, ops_rule(&ops.added), "ops' rule: {ctx}");
        // wasm-charm: the most severe scope, the oldest among equals, with the
        // count of the other problems, which is the count of ops' others.
        assert_eq!(
            wasm.unit,
            owned(expect.wasm),
            "wasm-charm's unit status: {ctx}"
        );
        assert_eq!(
            wasm.unit,
            wasm_rule(&wasm.problems),
            "wasm-charm's rule: {ctx}"
        );
        let others = ops.added.len().saturating_sub(1);
        assert_eq!(wasm.problems.len().saturating_sub(1), others, "{ctx}");
        if others > 0 {
            assert!(
                wasm.unit.1.ends_with(&format!(" (+{others} more)")),
                "wasm-charm must count ops' {others} other problems: {ctx}"
            );
        } else {
            assert!(!wasm.unit.1.contains(" more)"), "{ctx}");
        }
        // ops' message is one of wasm-charm's problems, or both are active.
        if ops.unit.0 == "active" {
            assert_eq!(ops.unit, owned(ACTIVE), "{ctx}");
            assert_eq!(wasm.unit, owned(ACTIVE), "{ctx}");
            assert!(wasm.problems.is_empty(), "{ctx}");
        } else {
            assert!(
                wasm.problems.iter().any(|s| s.message == ops.unit.1),
                "ops' message is none of wasm-charm's problem scopes: {ctx}"
            );
        }

        // status-set: ops writes once at every event, what Juju then shows;
        // wasm-charm once when the merged value changed, else never.
        assert_eq!(ops.sets.len(), 1, "ops' status-set calls: {:?}", ops.sets);
        let set = &ops.sets[0];
        assert!(
            set.contains(&"--application=False".to_string()),
            "ops set the unit status: {set:?}"
        );
        assert_eq!(
            set[set.len() - 3..],
            [ops.unit.0.clone(), "--".to_string(), ops.unit.1.clone()],
            "ops' status-set is what Juju shows: {ctx}"
        );
        let changed = self.wasm_merged != Some(expect.wasm);
        let want_sets: Vec<Vec<String>> = if changed {
            vec![vec![
                "status-set".into(),
                wasm.unit.0.clone(),
                "--".into(),
                wasm.unit.1.clone(),
            ]]
        } else {
            vec![]
        };
        assert_eq!(
            wasm.sets, want_sets,
            "wasm-charm calls status-set exactly when the merged value changed \
             (from {:?}): {ctx}",
            self.wasm_merged
        );
        self.wasm_merged = Some(expect.wasm);

        // Neither touches the application status (no app scope, no
        // collect-app-status handler): Juju derives it from the units.
        for unit in [&self.ops, &self.wasm] {
            assert_eq!(unit.state()["status"]["app"], Value::Null, "{ctx}");
        }
        (ops, wasm)
    }
}

/// The state without the statuses the charms write: the inputs of an event.
fn inputs(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(map) = state.as_object_mut() {
        map.remove("status");
    }
    state
}

fn owned((kind, message): Status) -> (String, String) {
    (kind.to_string(), message.to_string())
}

/// Panics unless the dispatch exited 0, with its output and the hook-tool
/// calls it made (ops talking to the fake is where surprises would be).
#[track_caller]
fn check_ran(peer: &str, event: &str, unit: &Unit, out: &Output) {
    assert!(
        out.status.success(),
        "{peer} failed on {event}: {}\n--- stderr\n{}\n--- stdout\n{}\n--- hook-tool calls\n{}\n\
         --- juju-log\n{}(a broken ops venv is set up again after removing {})",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout),
        unit.calls()
            .iter()
            .map(|c| format!("{c:?}\n"))
            .collect::<String>(),
        unit.debug_log(),
        workspace_root().join("target/ops-peer").display(),
    );
}

/// The fake state's `status.unit` as (kind, message).
fn unit_status(unit: &Unit) -> (String, String) {
    let state = unit.state();
    let status = &state["status"]["unit"];
    let field = |key: &str| {
        status[key]
            .as_str()
            .unwrap_or_else(|| panic!("status.unit has no {key}: {state:#}"))
            .to_string()
    };
    (field("status"), field("message"))
}

/// The statuses ops' collect-status handlers added, from ops' debug log:
/// ops 3.9 logs `Adding unit status BlockedStatus('…')` for every non-active
/// one (`CollectStatusEvent.add_status`).
fn added_statuses(debug_log: &str) -> Vec<(String, String)> {
    debug_log
        .lines()
        .filter_map(|line| line.strip_prefix("DEBUG "))
        .filter_map(|line| {
            support::without_relation_prefix(line).strip_prefix("Adding unit status ")
        })
        .map(|status| {
            let (class, rest) = status
                .split_once("Status('")
                .unwrap_or_else(|| panic!("unexpected ops status repr {status:?}"));
            let message = rest
                .strip_suffix("')")
                .filter(|m| !m.contains(['\'', '\\']))
                .unwrap_or_else(|| panic!("unexpected ops status repr {status:?}"));
            (class.to_lowercase(), message.to_string())
        })
        .collect()
}

/// wasm-charm's non-active unit scopes, from its store.
fn problem_scopes(unit: &Unit) -> Vec<Scope> {
    let path = unit.charm_dir().join(".wasm-charm/scopes.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let store: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()));
    let scopes = store["unit"]
        .as_object()
        .unwrap_or_else(|| panic!("store has no unit scopes: {store:#}"));
    scopes
        .iter()
        .filter_map(|(name, scope)| {
            let current = scope["current"].as_object()?;
            let text = |key: &str| current.get(key).and_then(Value::as_str).map(str::to_string);
            let kind = text("status").expect("scope status");
            (kind != "active").then(|| Scope {
                name: name.clone(),
                kind,
                message: text("message").unwrap_or_default(),
                band: text("priority").unwrap_or_else(|| "normal".to_string()),
                since: current["since"].as_u64().expect("scope since"),
            })
        })
        .collect()
}

/// blocked > maintenance > waiting > active, as ops and
/// `docs/architecture.md` §4 order them.
fn severity(kind: &str) -> u8 {
    match kind {
        "blocked" => 3,
        "maintenance" => 2,
        "waiting" => 1,
        "active" => 0,
        other => panic!("unexpected status kind {other:?}"),
    }
}

/// ops' rule: the most severe status, the first added among equals; active
/// with no message when none was added.
fn ops_rule(added: &[(String, String)]) -> (String, String) {
    let mut best: Option<&(String, String)> = None;
    for status in added {
        if best.is_none_or(|b| severity(&status.0) > severity(&b.0)) {
            best = Some(status);
        }
    }
    best.cloned().unwrap_or_else(|| owned(ACTIVE))
}

/// The rule of `docs/architecture.md` §4: the most severe scope, then the
/// priority band, then the oldest problem, then the name; its message with
/// ` (+N more)` for the N other problems. Active with the ready message (empty here) otherwise.
fn wasm_rule(problems: &[Scope]) -> (String, String) {
    let band = |b: &str| match b {
        "critical" => 0,
        "normal" => 1,
        _ => 2,
    };
    let Some(winner) = problems.iter().min_by(|a, b| {
        severity(&b.kind)
            .cmp(&severity(&a.kind))
            .then(band(&a.band).cmp(&band(&b.band)))
            .then(a.since.cmp(&b.since))
            .then(a.name.cmp(&b.name))
    }) else {
        return owned(ACTIVE);
    };
    let message = match problems.len() - 1 {
        0 => winner.message.clone(),
        n => format!("{} (+{n} more)", winner.message),
    };
    (winner.kind.clone(), message)
}

// ---------------------------------------------------------------- the tests

#[test]
fn gateway_sequence_on_ops_and_wasm_charm() {
    let mut peers = Peers::new(true);

    // install: no config, no relation. Two problems; both show config's.
    peers.step(
        "install",
        |u| u.dispatch("install"),
        &Expect {
            problems: &[CONFIG, NO_PILOT],
            ops: CONFIG,
            wasm: ("blocked", "Config item `kind` must be set (+1 more)"),
        },
    );

    // config-changed with kind=ingress: ops recomputes the missing relation;
    // wasm-charm still holds the pilot handler's problem from install,
    // although that handler does not observe config-changed.
    peers.update_state(|s| s["config"]["kind"] = json!("ingress"));
    peers.step(
        "config-changed",
        |u| u.dispatch("config-changed"),
        &Expect {
            problems: &[NO_PILOT],
            ops: NO_PILOT,
            wasm: NO_PILOT,
        },
    );

    // The relation appears, without the pilot's data.
    peers.update_state(|s| {
        s["relations"][RELATION] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {}, "unit-data": {"pilot/0": {}},
        })
    });
    peers.step(
        "istio-pilot-relation-changed (no data)",
        |u| u.relation_event("changed", RELATION, Some("pilot/0")),
        &Expect {
            problems: &[NO_PILOT_DATA],
            ops: NO_PILOT_DATA,
            wasm: NO_PILOT_DATA,
        },
    );

    // The pilot publishes its service (remote app data: no remote unit).
    peers.update_state(|s| {
        s["relations"][RELATION]["app-data"] =
            json!({"service-name": "pilot", "service-port": "15010"})
    });
    peers.step(
        "istio-pilot-relation-changed (data)",
        |u| u.relation_event("changed", RELATION, None),
        &Expect {
            problems: &[],
            ops: ACTIVE,
            wasm: ACTIVE,
        },
    );

    // update-status: nothing changed.
    let (ops, wasm) = peers.step(
        "update-status",
        |u| u.dispatch("update-status"),
        &Expect {
            problems: &[],
            ops: ACTIVE,
            wasm: ACTIVE,
        },
    );
    // Design difference (§4: at most one status-set per target per event,
    // none when unchanged): ops recomputes and writes the same status again,
    // wasm-charm writes nothing.
    assert_eq!(
        ops.sets.len(),
        1,
        "ops writes its status at every event: {:?}",
        ops.sets
    );
    assert_eq!(
        wasm.sets,
        Vec::<Vec<String>>::new(),
        "wasm-charm writes no unchanged status"
    );

    // relation-broken: Juju still lists the relation during the hook; both
    // frameworks hide it from the charm. It is gone afterwards.
    peers.step(
        "istio-pilot-relation-broken",
        |u| u.relation_event("broken", RELATION, None),
        &Expect {
            problems: &[NO_PILOT],
            ops: NO_PILOT,
            wasm: NO_PILOT,
        },
    );
    peers.update_state(|s| {
        s["relations"]
            .as_object_mut()
            .expect("relations")
            .remove(RELATION);
    });

    // config-changed with kind="": two blocked problems again.
    peers.update_state(|s| s["config"]["kind"] = json!(""));
    let (ops, wasm) = peers.step(
        "config-changed (kind=\"\")",
        |u| u.dispatch("config-changed"),
        &Expect {
            problems: &[CONFIG, NO_PILOT],
            ops: CONFIG,
            wasm: ("blocked", "Waiting for istio-pilot relation (+1 more)"),
        },
    );
    // Design difference (§4 merge: among equals, the oldest problem first):
    // both are blocked by the same two problems, but ops shows the first
    // status its handlers added (config's, observed first), wasm-charm the
    // oldest problem, the pilot relation's (set at relation-broken, before
    // config's at this event).
    assert_eq!(ops.unit, owned(CONFIG));
    assert_eq!(ops.added, [owned(CONFIG), owned(NO_PILOT)]);
    assert_eq!(
        wasm.unit,
        owned(("blocked", "Waiting for istio-pilot relation (+1 more)"))
    );
    let since = |name: &str| {
        wasm.problems
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no problem scope {name}: {:?}", wasm.problems))
            .since
    };
    assert!(
        since("handler/pilot") < since("handler/config"),
        "the pilot's problem is the older one: {:?}",
        wasm.problems
    );
}

#[test]
fn non_leader_waits_for_leadership_on_both() {
    let mut peers = Peers::new(false);
    // Everything else is fine: config set, the relation with its data.
    peers.update_state(|s| {
        s["config"]["kind"] = json!("ingress");
        s["relations"][RELATION] = json!({
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {"service-name": "pilot", "service-port": "15010"},
            "unit-data": {"pilot/0": {}},
        });
    });
    peers.step(
        "install (not the leader)",
        |u| u.dispatch("install"),
        &Expect {
            problems: &[NOT_LEADER],
            ops: NOT_LEADER,
            wasm: NOT_LEADER,
        },
    );

    // Leadership arrives: nothing is wrong any more.
    peers.update_state(|s| s["leader"] = json!(true));
    peers.step(
        "leader-elected",
        |u| u.dispatch("leader-elected"),
        &Expect {
            problems: &[],
            ops: ACTIVE,
            wasm: ACTIVE,
        },
    );
}
