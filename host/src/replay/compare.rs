//! What a replayed event did against what the recording says it did: the
//! calls made, the exit code, failures, handler results, the statuses
//! written and the store left. Pure: text in, differences out.

use crate::record::format::{Outcome, Recorded, ToolCall};

/// One way the replay differs, with the lines that show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub what: String,
    pub lines: Vec<String>,
}

impl Difference {
    fn one(what: &str, recorded: impl std::fmt::Debug, replayed: impl std::fmt::Debug) -> Self {
        Difference {
            what: what.to_string(),
            lines: vec![
                format!("recorded: {recorded:?}"),
                format!("replayed: {replayed:?}"),
            ],
        }
    }

    fn diff(what: &str, recorded: &[String], replayed: &[String]) -> Option<Self> {
        (recorded != replayed).then(|| Difference {
            what: format!("{what} (- recorded, + replayed)"),
            lines: render(&diff(recorded, replayed), 2),
        })
    }
}

/// The differences between `recorded` and a replay that made `calls`,
/// ended as `outcome` and had `notes` on its answers. Empty: the same.
pub fn compare(
    recorded: &Recorded,
    calls: &[ToolCall],
    outcome: &Outcome,
    notes: &[String],
) -> Vec<Difference> {
    let was = &recorded.outcome;
    let mut out = Vec::new();
    if was.exit != outcome.exit {
        out.push(Difference::one("exit code", was.exit, outcome.exit));
    }
    out.extend(Difference::diff(
        "failures",
        &was.failures,
        &outcome.failures,
    ));
    let handlers = |o: &Outcome| -> Vec<String> {
        o.handlers
            .iter()
            .map(|h| format!("{}: {}", h.handler, h.result))
            .collect()
    };
    out.extend(Difference::diff(
        "handler results",
        &handlers(was),
        &handlers(outcome),
    ));
    for (what, a, b) in [
        ("unit status", &was.unit, &outcome.unit),
        ("application status", &was.app, &outcome.app),
        ("ignored", &was.ignored, &outcome.ignored),
        ("action failed", &was.action_failed, &outcome.action_failed),
    ] {
        if a != b {
            out.push(Difference::one(what, a, b));
        }
    }
    if was.wrote != outcome.wrote {
        out.push(Difference::one(
            "statuses written",
            &was.wrote,
            &outcome.wrote,
        ));
    }
    let lines = |calls: &[ToolCall]| -> Vec<String> { calls.iter().map(ToolCall::line).collect() };
    out.extend(Difference::diff(
        "hook-tool calls",
        &lines(&recorded.calls),
        &lines(calls),
    ));
    // Which host saved the store is no difference of the event's: a
    // recording of an older release replays the same on this one.
    let unmarked = |v: &Option<serde_json::Value>| v.as_ref().map(crate::status::store::unmarked);
    let (was_store, store) = (unmarked(&was.store), unmarked(&outcome.store));
    if was_store != store {
        let pretty = |v: &Option<serde_json::Value>| -> Vec<String> {
            v.as_ref()
                .and_then(|v| serde_json::to_string_pretty(v).ok())
                .unwrap_or_else(|| "(none)".to_string())
                .lines()
                .map(str::to_string)
                .collect()
        };
        out.extend(Difference::diff(
            "store after the event",
            &pretty(&was_store),
            &pretty(&store),
        ));
    }
    if !notes.is_empty() {
        out.push(Difference {
            what: "answers".to_string(),
            lines: notes.to_vec(),
        });
    }
    out
}

/// One line of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// Past this many cells the common subsequence is not searched: the
/// differing middle is shown removed, then added.
const MAX_CELLS: usize = 4_000_000;

/// A line diff of `a` to `b` (a longest common subsequence).
pub fn diff<'a>(a: &'a [String], b: &'a [String]) -> Vec<Edit<'a>> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut edits: Vec<Edit<'a>> = a[..prefix].iter().map(|l| Edit::Same(l)).collect();
    if am.len().saturating_mul(bm.len()) > MAX_CELLS {
        edits.extend(am.iter().map(|l| Edit::Removed(l)));
        edits.extend(bm.iter().map(|l| Edit::Added(l)));
    } else {
        // lcs[i][j]: the common subsequence of am[i..] and bm[j..].
        let (n, m) = (am.len(), bm.len());
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if am[i] == bm[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                edits.push(Edit::Same(&am[i]));
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
                // Removals first: a changed line reads as `-` then `+`.
                edits.push(Edit::Removed(&am[i]));
                i += 1;
            } else {
                edits.push(Edit::Added(&bm[j]));
                j += 1;
            }
        }
    }
    edits.extend(a[a.len() - suffix..].iter().map(|l| Edit::Same(l)));
    edits
}

/// The diff as lines (`  `, `- `, `+ `), with `context` unchanged lines
/// around each change and `…` for those left out.
pub fn render(edits: &[Edit<'_>], context: usize) -> Vec<String> {
    let changed: Vec<usize> = edits
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, Edit::Same(_)))
        .map(|(i, _)| i)
        .collect();
    let near = |i: usize| changed.iter().any(|c| c.abs_diff(i) <= context);
    let mut out = Vec::new();
    let mut skipped = false;
    for (i, e) in edits.iter().enumerate() {
        match e {
            Edit::Same(l) if near(i) => {
                out.push(format!("  {l}"));
                skipped = false;
            }
            Edit::Same(_) => {
                if !skipped {
                    out.push("  …".to_string());
                    skipped = true;
                }
            }
            Edit::Removed(l) => {
                out.push(format!("- {l}"));
                skipped = false;
            }
            Edit::Added(l) => {
                out.push(format!("+ {l}"));
                skipped = false;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::format::{Backend, FORMAT, HandlerRun};
    use proptest::prelude::*;

    fn lines(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_changed_line_is_removed_then_added_in_context() {
        let a = lines("1 2 3 4 5 6 7 8");
        let b = lines("1 2 3 4 x 6 7 8");
        assert_eq!(
            render(&diff(&a, &b), 1),
            ["  …", "  4", "- 5", "+ x", "  6", "  …"]
        );
        assert_eq!(render(&diff(&a, &a), 1), ["  …"]);
    }

    #[test]
    fn the_same_replay_has_no_difference_and_a_changed_one_says_what() {
        let outcome = Outcome {
            exit: 0,
            handlers: vec![HandlerRun {
                handler: "pilot".into(),
                result: "set blocked: a".into(),
            }],
            unit: Some("blocked: a".into()),
            wrote: vec!["unit".into()],
            ..Outcome::default()
        };
        let calls = vec![ToolCall::exited_ok(
            &["status-set", "blocked", "--", "a"],
            "",
        )];
        let recorded = Recorded {
            format: FORMAT,
            host: "x".into(),
            event: Some("install".into()),
            time: 0,
            env: Default::default(),
            backend: Backend::Local,
            store: None,
            store_previous: false,
            store_left_sha256: None,
            store_error: None,
            calls: calls.clone(),
            probes: vec![],
            clock: vec![],
            workload: vec![],
            outcome: outcome.clone(),
        };
        assert_eq!(compare(&recorded, &calls, &outcome, &[]), vec![]);

        let changed = Outcome {
            exit: 1,
            handlers: vec![HandlerRun {
                handler: "pilot".into(),
                result: "set blocked: b".into(),
            }],
            unit: Some("blocked: b".into()),
            ..outcome.clone()
        };
        let new_calls = vec![ToolCall::exited_ok(
            &["status-set", "blocked", "--", "b"],
            "",
        )];
        let d = compare(&recorded, &new_calls, &changed, &["note".into()]);
        let whats: Vec<&str> = d.iter().map(|d| d.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "exit code",
                "handler results (- recorded, + replayed)",
                "unit status",
                "hook-tool calls (- recorded, + replayed)",
                "answers"
            ]
        );
        assert_eq!(
            d[3].lines,
            ["- status-set blocked -- a", "+ status-set blocked -- b"]
        );
        assert_eq!(
            d[2].lines,
            [
                "recorded: Some(\"blocked: a\")",
                "replayed: Some(\"blocked: b\")"
            ]
        );
    }

    proptest! {
        #[test]
        fn a_diff_holds_both_sides(
            a in proptest::collection::vec("[abc]", 0..30),
            b in proptest::collection::vec("[abc]", 0..30),
        ) {
            let edits = diff(&a, &b);
            let old: Vec<&str> = edits.iter().filter_map(|e| match e {
                Edit::Same(l) | Edit::Removed(l) => Some(*l),
                Edit::Added(_) => None,
            }).collect();
            let new: Vec<&str> = edits.iter().filter_map(|e| match e {
                Edit::Same(l) | Edit::Added(l) => Some(*l),
                Edit::Removed(_) => None,
            }).collect();
            prop_assert_eq!(old, a.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(new, b.iter().map(String::as_str).collect::<Vec<_>>());
            let same = edits.iter().filter(|e| matches!(e, Edit::Same(_))).count();
            // A longest common subsequence: no shorter than the identical case.
            if a == b {
                prop_assert_eq!(same, a.len());
            }
            prop_assert!(same <= a.len().min(b.len()));
        }
    }
}
