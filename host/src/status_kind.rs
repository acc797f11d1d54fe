//! The kinds of a unit's status a charm's scopes and the host's probes set,
//! as Juju names them. A leaf below both: a failing probe's scope is one of
//! these (`probe::state`), and the status merge ranks them
//! (`status::merge`), so neither owns the word the other needs.

use serde::{Deserialize, Serialize};

/// Status kinds, ordered by severity (the derived `Ord` is the severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Active,
    Waiting,
    Maintenance,
    Blocked,
}

impl Kind {
    /// The word `status-set` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Active => "active",
            Kind::Waiting => "waiting",
            Kind::Maintenance => "maintenance",
            Kind::Blocked => "blocked",
        }
    }
}
