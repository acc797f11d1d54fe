//! The scope store rendered for people: `wasm-charm status` and the report of
//! `wasm-charm run`, and what one event did ([`Report`]), which that report
//! shows. Pure: strings in, strings out.

use crate::bindings::Status;
use crate::probe::ProbeState;
use crate::status::merge::{Merged, Written, rank};
use crate::status::store::{ScopeStore, Target};
use crate::stored::Data;
use std::collections::{BTreeMap, BTreeSet};

/// How one handler ended, as reported to the operator.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerResult {
    Set(Status),
    Cleared,
    Error(String),
    Trapped(String),
    /// During an action: the handler returned, and its value set no scope
    /// (an action leaves no unit status behind); a status it returned is
    /// kept here, and ignored.
    ActionDone(Option<Status>),
}

/// What one event did.
#[derive(Debug, Default)]
pub struct Report {
    /// The event, as `describe` names it; `None` for an unknown hook.
    pub event: Option<String>,
    /// Why nothing ran, for an unknown hook.
    pub ignored: Option<String>,
    pub handlers: Vec<(String, HandlerResult)>,
    pub unit: Option<Merged>,
    pub app: Option<Merged>,
    /// Targets whose status was written with `status-set`.
    pub wrote: Vec<Target>,
    /// Reasons the hook fails; empty when it succeeds. A failed event keeps
    /// nothing: the store is as it was before it.
    pub failures: Vec<String>,
    /// The store after the event (as loaded, when the event failed).
    pub store: ScopeStore,
    /// During an action: the message the action was failed with (by a
    /// handler's `action.fail`, or by the host for a handler's error or
    /// trap). A failed action is no failed hook: the process exits 0.
    pub action_failed: Option<String>,
}

/// One line per scope holding a status, most important first (the merge's
/// order), with its band and the event and time it was set.
pub fn scope_lines(store: &ScopeStore, target: Target, history: bool) -> Vec<String> {
    let mut views: Vec<_> = store.views(target).collect();
    views.sort_by(rank);
    let mut out = Vec::new();
    for v in views {
        out.push(format!(
            "  {:<28} {:<11} {:<8} {:?}",
            v.name,
            v.kind.as_str(),
            format!("{:?}", v.band).to_lowercase(),
            v.message
        ));
        if history && let Some(scope) = store.scopes(target).get(v.name) {
            for c in &scope.history {
                let what = match c.status {
                    Some(k) => format!("{} {:?}", k.as_str(), c.message),
                    None => "cleared".to_string(),
                };
                out.push(format!("      {} {:<28} {what}", utc(c.time), c.event));
            }
        }
    }
    out
}

/// `blocked "message"`, or a note that nothing was written.
pub fn written_line(w: Option<&Written>) -> String {
    match w {
        Some(w) => format!("{} {:?}", w.status.as_str(), w.message),
        None => "never written (left to Juju)".to_string(),
    }
}

/// Two lines per probe, by name: its last result (healthy, unhealthy or
/// no result kept) with the check's detail, then since when that result holds,
/// when it was last checked, whether it gates readiness and who chose, and
/// where its grace period runs from while it fails.
///
/// `states` are what the store keeps; `gates`, when the manifest is known,
/// whether each declared probe gates now ([`crate::probe::gates`]): every
/// declared probe is shown then, one with no result kept included, and a kept
/// one no longer declared says so. Without it, a probe whose gating no
/// handler chose gates as the manifest says ("manifest default").
pub fn probe_lines(
    states: &BTreeMap<String, ProbeState>,
    gates: Option<&BTreeMap<String, bool>>,
) -> Vec<String> {
    let names: BTreeSet<&String> = states
        .keys()
        .chain(gates.into_iter().flatten().map(|(n, _)| n))
        .collect();
    let mut out = Vec::new();
    for name in names {
        let state = states.get(name);
        let last = state.and_then(|s| s.last.as_ref());
        out.push(match last {
            Some(l) => format!(
                "  {name:<28} {:<11} {:?}",
                if l.healthy { "healthy" } else { "unhealthy" },
                l.detail
            ),
            None => format!("  {name:<28} no result"),
        });
        let chosen = state.and_then(|s| s.gate);
        let gate = match (gates.map(|g| g.get(name).copied()), chosen) {
            (Some(None), _) => "no longer declared in wasm-charm.yaml".to_string(),
            (Some(Some(g)), Some(_)) | (None, Some(g)) => {
                format!("{} (a handler's choice)", gating(g))
            }
            (Some(Some(g)), None) => format!("{} (the manifest's gate)", gating(g)),
            (None, None) => "gate: manifest default".to_string(),
        };
        let mut about = Vec::new();
        if let Some(l) = last {
            about.push(format!(
                "since {}, recorded {}",
                utc_millis(l.since),
                utc_millis(l.at)
            ));
        }
        about.push(gate);
        if let Some(start) = state.and_then(|s| s.grace_start) {
            about.push(format!("grace from {}", utc_millis(start)));
        }
        out.push(format!("      {}", about.join("; ")));
    }
    out
}

/// A heading and one line per key of the charm's own data, sorted, with the
/// size of its value. Values are never shown: they are the charm's, and may
/// be private. Nothing when no data is stored.
pub fn data_lines(data: &Data) -> Vec<String> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!(
        "stored data: {} keys, {} bytes with the keys",
        data.len(),
        data.bytes()
    )];
    out.extend(
        data.iter()
            .map(|(key, value)| format!("  {key:<28} {} bytes", value.len())),
    );
    out
}

fn gating(gate: bool) -> &'static str {
    if gate { "gating" } else { "not gating" }
}

/// Everything `wasm-charm status` shows: the statuses last written, every
/// scope ranked (with its history when `history`), every probe's last
/// result ([`probe_lines`], `gates` as there) and the keys of the charm's
/// own data ([`data_lines`]).
pub fn status_report(
    store: &ScopeStore,
    history: bool,
    gates: Option<&BTreeMap<String, bool>>,
) -> String {
    let mut out = vec![
        format!("unit: {}", written_line(store.written.unit.as_ref())),
        format!("app: {}", written_line(store.written.app.as_ref())),
    ];
    for target in [Target::Unit, Target::App] {
        let lines = scope_lines(store, target, history);
        if !lines.is_empty() {
            out.push(format!("{} scopes, most important first:", target.as_str()));
            out.extend(lines);
        }
    }
    let cleared: Vec<&String> = [Target::Unit, Target::App]
        .iter()
        .flat_map(|t| store.scopes(*t).iter())
        .filter(|(_, s)| s.current.is_none() && !s.history.is_empty())
        .map(|(n, _)| n)
        .collect();
    if !cleared.is_empty() {
        out.push(format!(
            "cleared scopes with history: {}",
            cleared
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let probes = probe_lines(&store.probes, gates);
    if !probes.is_empty() {
        out.push("probes, last result and since when:".to_string());
        out.extend(probes);
    }
    out.extend(data_lines(&store.data));
    out.join("\n") + "\n"
}

/// Milliseconds since the Unix epoch as [`utc`], to the second.
pub fn utc_millis(millis: u64) -> String {
    utc(millis / 1000)
}

/// Seconds since the Unix epoch as RFC 3339 UTC (`2026-11-29T16:22:16Z`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm, proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::state::LastCheck;
    use crate::status::merge::{Band, Kind};
    use crate::status::store::Write;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_969_336), "2026-11-29T16:22:16Z");
    }

    #[test]
    fn report_ranks_and_keeps_history() {
        let mut s = ScopeStore::default();
        let set = |scope: &str, status, message: &str| Write::Set {
            target: Target::Unit,
            scope: scope.into(),
            status,
            message: message.into(),
            priority: Band::Normal,
        };
        s.apply(set("w", Kind::Waiting, "wait"), "install", 0);
        s.apply(set("b", Kind::Blocked, "stop"), "config-changed", 60);
        s.apply(
            Write::Clear {
                target: Target::Unit,
                scope: "w".into(),
            },
            "start",
            120,
        );
        let text = status_report(&s, true, None);
        assert_eq!(
            text,
            "unit: never written (left to Juju)\n\
             app: never written (left to Juju)\n\
             unit scopes, most important first:\n  \
             b                            blocked     normal   \"stop\"\n      \
             1970-01-01T00:01:00Z config-changed               blocked \"stop\"\n\
             cleared scopes with history: w\n"
        );
    }

    /// A store keeping three probes: `api` failing since 00:01:00 (checked
    /// at 00:02:00, its grace period restarted at 00:01:30), `web` healthy
    /// since 00:00:10 with a handler's choice that it does not gate, and
    /// `old` chosen to gate by a handler before it ever ran.
    fn probes() -> ScopeStore {
        let mut s = ScopeStore::default();
        s.probes.insert(
            "api".into(),
            ProbeState {
                last: Some(LastCheck {
                    healthy: false,
                    detail: "port 127.0.0.1:8774 not listening".into(),
                    at: 120_000,
                    since: 60_000,
                    pid: None,
                }),
                failing_since: Some(60_000),
                grace_start: Some(90_500),
                gate: None,
            },
        );
        s.probes.insert(
            "web".into(),
            ProbeState {
                last: Some(LastCheck {
                    healthy: true,
                    detail: "http://127.0.0.1/ answered 200".into(),
                    at: 120_999,
                    since: 10_000,
                    pid: None,
                }),
                gate: Some(false),
                ..ProbeState::default()
            },
        );
        s.probes.insert(
            "old".into(),
            ProbeState {
                gate: Some(true),
                grace_start: Some(5_000),
                ..ProbeState::default()
            },
        );
        s
    }

    #[test]
    fn report_shows_each_probe_since_when_and_whether_it_gates() {
        let s = probes();
        // Without the manifest: what the store knows.
        assert_eq!(
            status_report(&s, true, None),
            "unit: never written (left to Juju)\n\
             app: never written (left to Juju)\n\
             probes, last result and since when:\n  \
             api                          unhealthy   \"port 127.0.0.1:8774 not listening\"\n      \
             since 1970-01-01T00:01:00Z, recorded 1970-01-01T00:02:00Z; gate: manifest default; grace from 1970-01-01T00:01:30Z\n  \
             old                          no result\n      \
             gating (a handler's choice); grace from 1970-01-01T00:00:05Z\n  \
             web                          healthy     \"http://127.0.0.1/ answered 200\"\n      \
             since 1970-01-01T00:00:10Z, recorded 1970-01-01T00:02:00Z; not gating (a handler's choice)\n"
        );
        // With the manifest: every declared probe, `new` never ran; `old`
        // is no longer declared.
        let gates: BTreeMap<String, bool> = [
            ("api".to_string(), true),
            ("new".to_string(), false),
            ("web".to_string(), false),
        ]
        .into();
        assert_eq!(
            probe_lines(&s.probes, Some(&gates)),
            [
                "  api                          unhealthy   \"port 127.0.0.1:8774 not listening\"",
                "      since 1970-01-01T00:01:00Z, recorded 1970-01-01T00:02:00Z; gating (the manifest's gate); grace from 1970-01-01T00:01:30Z",
                "  new                          no result",
                "      not gating (the manifest's gate)",
                "  old                          no result",
                "      no longer declared in wasm-charm.yaml; grace from 1970-01-01T00:00:05Z",
                "  web                          healthy     \"http://127.0.0.1/ answered 200\"",
                "      since 1970-01-01T00:00:10Z, recorded 1970-01-01T00:02:00Z; not gating (a handler's choice)",
            ]
        );
        // No probes, no section.
        assert!(probe_lines(&BTreeMap::new(), Some(&BTreeMap::new())).is_empty());
        assert!(!status_report(&ScopeStore::default(), true, None).contains("probes"));
    }

    #[test]
    fn report_lists_the_stored_keys_and_sizes_never_the_values() {
        let s = ScopeStore {
            data: [
                ("password".to_string(), "hunter2".to_string()),
                ("count".to_string(), "12".to_string()),
            ]
            .into_iter()
            .collect(),
            ..ScopeStore::default()
        };
        assert_eq!(
            status_report(&s, true, None),
            "unit: never written (left to Juju)\n\
             app: never written (left to Juju)\n\
             stored data: 2 keys, 22 bytes with the keys\n  \
             count                        2 bytes\n  \
             password                     7 bytes\n"
        );
        // No data, no section.
        assert!(data_lines(&Data::default()).is_empty());
    }
}
