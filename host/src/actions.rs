//! Built-in actions (DESIGN §9): actions the host answers itself for every
//! charm that declares them in actions.yaml. The charm's own handlers run
//! first (a charm may observe the action too); then the host sends its results
//! with one `action-set`, from the scope store as the event left it.
//!
//! * `show-status` (DESIGN §4: "all scopes stay available in full") sends
//!   `report`, the text `wasm-charm status` prints (every scope, ranked, with
//!   its history, and every probe's last result, since when it holds and
//!   whether the probe gates), and `scopes`, the store document as compact
//!   JSON.
//! * `self-check` (DESIGN §5) sends what every declared probe found when run
//!   at this event: `report`, a line per probe, and `probes`, the same as
//!   JSON. The action fails (`action-fail`) when a probe that gates
//!   readiness is unhealthy, so a script running it sees the unit is not
//!   ready; a probe that does not gate (an `expect: down` one while the
//!   service runs, say) is reported, not counted.

use crate::model::{Model, describe_error};
use crate::probe::Assessed;
use crate::status::store::ScopeStore;
use crate::text::argv_text;
use std::collections::BTreeMap;

/// The action that shows every scope in full.
pub const SHOW_STATUS: &str = "show-status";
/// The action that runs every declared probe now.
pub const SELF_CHECK: &str = "self-check";

/// Largest result value sent. Each `key=value` travels as one argv element,
/// which Linux caps at 128 KiB (reference juju-protocol.md §2.0); this
/// leaves room for the key.
pub const MAX_VALUE: usize = 120 * 1024;

/// Answer the action `name` when it is built in, from the store as the event
/// left it and what the probes found at it (`probed`). Any other action is
/// the charm's alone: the host sends nothing for it. `Err` says why the
/// action fails, naming the tool.
pub fn answer(
    name: &str,
    model: &mut Model,
    store: &ScopeStore,
    probed: &BTreeMap<String, Assessed>,
    gates: &BTreeMap<String, bool>,
) -> Result<(), String> {
    let (results, failed) = match name {
        SHOW_STATUS => (show_status(store, Some(gates)), None),
        SELF_CHECK => self_check(probed),
        _ => return Ok(()),
    };
    let args: Vec<String> = results
        .into_iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    model
        .run("action-set", &args, None)
        .map_err(|e| format!("the {name} results were not sent: {}", describe_error(&e)))?;
    if let Some(message) = failed {
        model
            .run("action-fail", &["--", &message], None)
            .map_err(|e| format!("{name} could not fail the action: {}", describe_error(&e)))?;
    }
    Ok(())
}

/// The results of `self-check`, and the action's failure message when a
/// gating probe is unhealthy.
pub fn self_check(
    probed: &BTreeMap<String, Assessed>,
) -> (Vec<(&'static str, String)>, Option<String>) {
    let mut lines = Vec::new();
    let mut json = serde_json::Map::new();
    let mut unhealthy = Vec::new();
    for (name, a) in probed {
        let check = &a.outcome.check;
        lines.push(format!(
            "{name:<24} {:<9} {:<10} {}",
            if check.healthy {
                "healthy"
            } else {
                "unhealthy"
            },
            if a.gating { "gating" } else { "not gating" },
            check.detail
        ));
        json.insert(
            name.clone(),
            serde_json::json!({
                "healthy": check.healthy,
                "gating": a.gating,
                "detail": check.detail,
                "attempts": a.outcome.attempts,
            }),
        );
        if a.gating && !check.healthy {
            unhealthy.push(format!("{name} ({})", check.detail));
        }
    }
    let gating = probed.values().filter(|a| a.gating).count();
    let summary = if probed.is_empty() {
        "no probes are declared in wasm-charm.yaml".to_string()
    } else {
        format!(
            "{} probes run, {} of {gating} gating probes healthy",
            probed.len(),
            gating - unhealthy.len()
        )
    };
    let failed = (!unhealthy.is_empty()).then(|| {
        let message = format!(
            "{} of {gating} gating probes unhealthy: {}",
            unhealthy.len(),
            unhealthy.join("; ")
        );
        bounded(argv_text(&message).into_owned(), MAX_VALUE)
    });
    lines.push(summary.clone());
    let carried = |v: String| bounded(argv_text(&v).into_owned(), MAX_VALUE);
    let results = vec![
        ("summary", carried(summary)),
        ("report", carried(lines.join("\n") + "\n")),
        (
            "probes",
            carried(serde_json::Value::Object(json).to_string()),
        ),
    ];
    (results, failed)
}

/// The results of `show-status`, each value within [`MAX_VALUE`] and
/// carried by argv: a NUL a store holds (one written by an older host) is
/// replaced, before the cut so the bound holds after it. `gates` as
/// [`crate::show::probe_lines`] takes it.
///
/// The charm's own data stays on the unit: the report lists its keys and
/// sizes, and `scopes` is the store document without the data section
/// (action results are kept by the controller; the values may be private).
pub fn show_status(
    store: &ScopeStore,
    gates: Option<&BTreeMap<String, bool>>,
) -> Vec<(&'static str, String)> {
    let report = crate::show::status_report(store, true, gates);
    let without_data = ScopeStore {
        data: Default::default(),
        ..store.clone()
    };
    let scopes = serde_json::to_string(&without_data).unwrap_or_default();
    let carried = |v: String| bounded(argv_text(&v).into_owned(), MAX_VALUE);
    vec![("report", carried(report)), ("scopes", carried(scopes))]
}

/// `value` whole when it fits in `max` bytes; otherwise its head, cut on a
/// character boundary, and a note of how much was left out, `max` bytes at
/// most in all.
fn bounded(mut value: String, max: usize) -> String {
    if value.len() <= max {
        return value;
    }
    let note =
        |more: usize| format!("… [cut: {more} bytes more; see `wasm-charm status` on the unit]");
    // The note is longest for the largest count it could show.
    let end = value.floor_char_boundary(max.saturating_sub(note(value.len()).len()));
    let more = value.len() - end;
    value.truncate(end);
    value.push_str(&note(more));
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charm_dir::ConfigSchema;
    use crate::hook_tools::ToolOutput;
    use crate::hook_tools::table::{Calls, ToolTable};
    use crate::model::Identity;
    use crate::probe::ProbeState;
    use crate::status::merge::{Band, Kind};
    use crate::status::store::{Target, Write};

    fn model(answer: ToolOutput) -> (Model, Calls) {
        let (tools, calls) =
            ToolTable::new(&[("action-set", answer), ("action-fail", ToolOutput::ok(""))]);
        let model = Model::new(
            std::sync::Arc::new(tools),
            ConfigSchema::default(),
            Identity::default(),
        );
        (model, calls)
    }

    fn store() -> ScopeStore {
        let mut s = ScopeStore::default();
        for (scope, message, time) in [("a", "first", 10), ("b", "second = two", 20)] {
            s.apply(
                Write::Set {
                    target: Target::Unit,
                    scope: scope.into(),
                    status: Kind::Blocked,
                    message: message.into(),
                    priority: Band::Normal,
                },
                "config-changed",
                time,
            );
        }
        s
    }

    #[test]
    fn show_status_sends_the_report_and_the_store_in_one_action_set() {
        let store = store();
        let (mut m, calls) = model(ToolOutput::ok(""));
        answer(
            SHOW_STATUS,
            &mut m,
            &store,
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap();
        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 1, "{calls:?}");
        let (tool, args, _) = &calls[0];
        assert_eq!(tool, "action-set");
        assert_eq!(
            args,
            &[
                format!(
                    "report={}",
                    crate::show::status_report(&store, true, Some(&BTreeMap::new()))
                ),
                format!("scopes={}", serde_json::to_string(&store).unwrap()),
            ]
        );
        // The value is everything after the first `=`, as Juju splits it.
        let scopes = args[1].split_once('=').unwrap().1;
        assert_eq!(ScopeStore::decode(scopes.as_bytes()).unwrap(), store);
        assert!(args[0].contains("\"second = two\""), "{}", args[0]);
    }

    #[test]
    fn show_status_sends_the_stored_keys_but_never_their_values() {
        let mut store = store();
        store.data = [("password".to_string(), "hunter2".to_string())]
            .into_iter()
            .collect();
        let results = show_status(&store, None);
        let report = &results[0].1;
        assert!(
            report.contains("password                     7 bytes"),
            "{report}"
        );
        assert!(!report.contains("hunter2"), "{report}");
        let scopes = &results[1].1;
        assert!(
            !scopes.contains("password") && !scopes.contains("hunter2"),
            "{scopes}"
        );
        let sent = ScopeStore::decode(scopes.as_bytes()).unwrap();
        assert_eq!(
            sent,
            ScopeStore {
                data: Default::default(),
                ..store
            }
        );
    }

    #[test]
    fn other_actions_get_nothing_from_the_host() {
        let (mut m, calls) = model(ToolOutput::ok(""));
        answer(
            "backup",
            &mut m,
            &store(),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap();
        answer(
            "show-status-extra",
            &mut m,
            &store(),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap();
        assert!(calls.lock().unwrap().is_empty());
    }

    #[test]
    fn a_failing_action_set_fails_the_action_naming_the_tool() {
        let (mut m, _) = model(ToolOutput::error(1, "not running an action"));
        let e = answer(
            SHOW_STATUS,
            &mut m,
            &store(),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "the show-status results were not sent: action-set exited with code 1: not running an action"
        );
    }

    #[test]
    fn values_are_cut_on_a_char_boundary_with_a_note() {
        // At the bound: whole.
        let exact = "x".repeat(MAX_VALUE);
        assert_eq!(bounded(exact.clone(), MAX_VALUE), exact);
        // One byte over: cut to the bound at most, the note says how much.
        let over = format!("{exact}y");
        let cut = bounded(over.clone(), MAX_VALUE);
        assert!(cut.len() <= MAX_VALUE, "{}", cut.len());
        let (head, note) = cut.split_once('…').unwrap();
        assert!(over.starts_with(head));
        assert_eq!(
            note,
            format!(
                " [cut: {} bytes more; see `wasm-charm status` on the unit]",
                over.len() - head.len()
            )
        );
        // Multi-byte characters are never split, whatever the bound.
        let wide = "é€😀".repeat(50);
        for max in 80..wide.len() {
            let cut = bounded(wide.clone(), max);
            assert!(cut.len() <= max, "max {max}: {} bytes", cut.len());
            let (head, note) = cut.split_once('…').unwrap();
            assert!(wide.starts_with(head), "max {max}");
            let more = wide.len() - head.len();
            assert!(
                note.starts_with(&format!(" [cut: {more} bytes more;")),
                "{note}"
            );
            // Little is lost: at most a split character (3 bytes) and the
            // digits the count turned out shorter than its bound (2 here).
            assert!(cut.len() + 5 >= max, "max {max}: only {} bytes", cut.len());
        }
    }

    #[test]
    fn a_nul_in_a_stored_message_still_reaches_action_set() {
        // A store written by an older host that took NUL in a message.
        let mut s = ScopeStore::default();
        s.apply(
            Write::Set {
                target: Target::Unit,
                scope: "old".into(),
                status: Kind::Blocked,
                message: "bad\0message".into(),
                priority: Band::Normal,
            },
            "install",
            1,
        );
        // Both values quote it escaped (the report as Rust strings, the
        // document as JSON); `argv_text` keeps that true whatever they become.
        for (key, value) in show_status(&s, None) {
            assert!(!value.contains('\0'), "{key}: {value}");
        }
    }

    #[test]
    fn a_huge_store_is_sent_cut_within_the_argv_limit() {
        let mut s = ScopeStore::default();
        for i in 0..200 {
            s.apply(
                Write::Set {
                    target: Target::Unit,
                    scope: format!("scope-{i}"),
                    status: Kind::Blocked,
                    message: "ü".repeat(400),
                    priority: Band::Normal,
                },
                "install",
                i,
            );
        }
        let results = show_status(&s, None);
        assert_eq!(
            results.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            ["report", "scopes"]
        );
        for (key, value) in &results {
            assert!(value.len() <= MAX_VALUE, "{key}: {} bytes", value.len());
            assert!(
                value.ends_with("bytes more; see `wasm-charm status` on the unit]"),
                "{key} not cut"
            );
            // The whole argv element stays under Linux's 128 KiB.
            assert!(key.len() + 1 + value.len() < 128 * 1024);
        }
    }

    /// What one probe found at this event.
    fn assessed(gating: bool, healthy: bool, detail: &str, attempts: u32) -> Assessed {
        let check = crate::probe::Check {
            healthy,
            detail: detail.into(),
            waiting: false,
            pid: None,
        };
        let state = ProbeState::default()
            .evaluate(
                &crate::probe::ProbeSpec::new(crate::probe::Target::Tcp(
                    crate::charm_dir::probes::HostPort {
                        host: "127.0.0.1".into(),
                        port: 1,
                    },
                )),
                &check,
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(60),
            )
            .0;
        Assessed {
            gating,
            outcome: crate::probe::Outcome { check, attempts },
            state,
            status: None,
        }
    }

    fn probed() -> BTreeMap<String, Assessed> {
        [
            (
                "api".to_string(),
                assessed(true, false, "port 127.0.0.1:8774 not listening", 3),
            ),
            (
                "db".to_string(),
                assessed(true, true, "port 127.0.0.1:5432 listening", 1),
            ),
            (
                "paused".to_string(),
                assessed(false, false, "service old-api still running", 1),
            ),
        ]
        .into()
    }

    #[test]
    fn self_check_reports_every_probe_and_fails_naming_the_unhealthy_gating_ones() {
        let (mut m, calls) = model(ToolOutput::ok(""));
        answer(
            SELF_CHECK,
            &mut m,
            &ScopeStore::default(),
            &probed(),
            &BTreeMap::new(),
        )
        .unwrap();
        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 2, "{calls:?}");
        let (tool, args, _) = &calls[0];
        assert_eq!(tool, "action-set");
        assert_eq!(
            args[0],
            "summary=3 probes run, 1 of 2 gating probes healthy"
        );
        assert_eq!(
            args[1],
            "report=\
             api                      unhealthy gating     port 127.0.0.1:8774 not listening\n\
             db                       healthy   gating     port 127.0.0.1:5432 listening\n\
             paused                   unhealthy not gating service old-api still running\n\
             3 probes run, 1 of 2 gating probes healthy\n"
        );
        let json: serde_json::Value =
            serde_json::from_str(args[2].strip_prefix("probes=").unwrap()).unwrap();
        assert_eq!(
            json["api"],
            serde_json::json!({"healthy": false, "gating": true,
                "detail": "port 127.0.0.1:8774 not listening", "attempts": 3})
        );
        assert_eq!(json["paused"]["gating"], false);
        // The message names the unhealthy gating probe and what it saw; the
        // probe that does not gate is not counted.
        assert_eq!(
            calls[1].1,
            [
                "--",
                "1 of 2 gating probes unhealthy: api (port 127.0.0.1:8774 not listening)"
            ]
        );
    }

    #[test]
    fn self_check_with_every_gating_probe_healthy_does_not_fail() {
        let mut probed = probed();
        probed.remove("api");
        let (mut m, calls) = model(ToolOutput::ok(""));
        answer(
            SELF_CHECK,
            &mut m,
            &ScopeStore::default(),
            &probed,
            &BTreeMap::new(),
        )
        .unwrap();
        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(
            calls[0].1[0],
            "summary=2 probes run, 1 of 1 gating probes healthy"
        );

        let (results, failed) = self_check(&BTreeMap::new());
        assert_eq!(failed, None);
        assert_eq!(results[0].1, "no probes are declared in wasm-charm.yaml");
    }

    #[test]
    fn show_status_shows_each_probe_gating_as_the_event_found() {
        // The store as a self-check left it: `api` and `db` gate and were
        // judged; `paused` was run, not judged, and is not kept.
        let mut store = ScopeStore::default();
        let probed = probed();
        for (name, a) in &probed {
            if a.gating {
                store.probes.insert(name.clone(), a.state.clone());
            }
        }
        // Gating as the pipeline works it out from the manifest and the
        // store: a declared probe that does not gate is listed too.
        let gates: BTreeMap<String, bool> = [
            ("api".to_string(), true),
            ("db".to_string(), true),
            ("paused".to_string(), false),
        ]
        .into();
        let (mut m, calls) = model(ToolOutput::ok(""));
        answer(SHOW_STATUS, &mut m, &store, &probed, &gates).unwrap();
        let calls = calls.lock().unwrap();
        let report = calls[0].1[0].strip_prefix("report=").unwrap();
        assert_eq!(
            report,
            crate::show::status_report(&store, true, Some(&gates))
        );
        assert!(
            report.ends_with(
                "probes, last result and since when:\n  \
                 api                          unhealthy   \"port 127.0.0.1:8774 not listening\"\n      \
                 since 1970-01-01T00:01:00Z, recorded 1970-01-01T00:01:00Z; gating (the manifest's gate); grace from 1970-01-01T00:01:00Z\n  \
                 db                           healthy     \"port 127.0.0.1:5432 listening\"\n      \
                 since 1970-01-01T00:01:00Z, recorded 1970-01-01T00:01:00Z; gating (the manifest's gate)\n  \
                 paused                       no result\n      \
                 not gating (the manifest's gate)\n"
            ),
            "{report}"
        );
    }
}
