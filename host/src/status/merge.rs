//! Merging scopes into one Juju status (DESIGN §4). Pure: no I/O, no clock.
//!
//! The rule, in order:
//! 1. severity: blocked > maintenance > waiting > active;
//! 2. priority band: critical > normal > low;
//! 3. age: the scope whose current problem started first (lowest `since`);
//! 4. name, bytewise: the last resort, so the result never depends on order
//!    of iteration or hashing.
//!
//! The winner's message is shown, followed by ` (+N more)` when N other scopes
//! are not active, cut to [`MESSAGE_LIMIT`] characters. When no scope is a
//! problem the result is active, with the message of the best-ranked active
//! scope that has one (the same rule: band, age, name), else the charm's
//! ready message: a unit can say it is active and paused, as `ops`'s
//! `ActiveStatus("…")` does.

pub use crate::status_kind::Kind;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// What `juju status` shows of a message before cutting it.
pub const MESSAGE_LIMIT: usize = 120;

/// Priority band; the derived `Ord` puts `Critical` first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    Critical,
    #[default]
    Normal,
    Low,
}

/// One scope as the merge sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeView<'a> {
    pub name: &'a str,
    pub kind: Kind,
    pub message: &'a str,
    pub band: Band,
    /// Logical time the scope's current status was set.
    pub since: u64,
}

/// A status as written to Juju.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    pub status: Kind,
    pub message: String,
}

/// The merge result: what to write, and which scope won.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub written: Written,
    /// The winning scope; `None` when nothing is a problem and no active
    /// scope has a message (the ready message is shown).
    pub winner: Option<String>,
    /// How many other scopes are not active.
    pub others: usize,
}

/// The order scopes are ranked in: most important first.
pub fn rank(a: &ScopeView<'_>, b: &ScopeView<'_>) -> Ordering {
    b.kind
        .cmp(&a.kind)
        .then(a.band.cmp(&b.band))
        .then(a.since.cmp(&b.since))
        .then(a.name.as_bytes().cmp(b.name.as_bytes()))
}

/// Merge scopes into one status.
pub fn merge<'a>(scopes: impl IntoIterator<Item = ScopeView<'a>>, ready_message: &str) -> Merged {
    let (mut problems, active): (Vec<ScopeView<'a>>, Vec<ScopeView<'a>>) =
        scopes.into_iter().partition(|s| s.kind != Kind::Active);
    problems.sort_by(rank);
    let Some(winner) = problems.first() else {
        let said = active
            .into_iter()
            .filter(|s| !s.message.is_empty())
            .min_by(rank);
        return Merged {
            written: Written {
                status: Kind::Active,
                message: cut(said.map_or(ready_message, |s| s.message), ""),
            },
            winner: said.map(|s| s.name.to_string()),
            others: 0,
        };
    };
    let others = problems.len() - 1;
    let suffix = if others > 0 {
        format!(" (+{others} more)")
    } else {
        String::new()
    };
    Merged {
        written: Written {
            status: winner.kind,
            message: cut(winner.message, &suffix),
        },
        winner: Some(winner.name.to_string()),
        others,
    }
}

/// `message` followed by `suffix`, at most [`MESSAGE_LIMIT`] characters; the
/// message is cut on a character boundary and marked with `…`, the suffix is
/// kept whole because the count is what tells the operator to look further.
pub fn cut(message: &str, suffix: &str) -> String {
    let suffix_len = suffix.chars().count();
    if message.chars().count() + suffix_len <= MESSAGE_LIMIT {
        return format!("{message}{suffix}");
    }
    let keep = MESSAGE_LIMIT.saturating_sub(suffix_len + 1);
    let mut out: String = message.chars().take(keep).collect();
    out.push('…');
    out.push_str(suffix);
    out
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
