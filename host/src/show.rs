//! The scope store rendered for people: `wasm-charm status` and the report of
//! `wasm-charm run`. Pure: strings in, strings out.

use crate::status::merge::{Written, rank};
use crate::status::store::{ScopeStore, Target};

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

/// Everything `wasm-charm status` shows.
pub fn status_report(store: &ScopeStore, history: bool) -> String {
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
    out.join("\n") + "\n"
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
        let text = status_report(&s, true);
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
}
