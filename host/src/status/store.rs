//! The scope store: every scope of both targets, their bounded history, the
//! statuses last written to Juju, the probes' state and the charm's own data,
//! as one versioned document (DESIGN §6).
//! Encoding and every change to it are pure; where the document lives is the
//! backend's business (`store_file` for the charm directory, the state file
//! offline).

use super::merge::{Band, Kind, ScopeView, Written};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The document format this host writes (it reads `store_release::OLDEST`
/// and later too).
pub use super::store_release::FORMAT;
/// Changes kept per scope.
pub const HISTORY: usize = 10;
/// Cleared scopes kept (for their history) before the oldest are dropped.
pub const CLEARED_KEPT: usize = 64;

/// Which Juju status a scope feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Unit,
    App,
}

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Unit => "unit",
            Target::App => "app",
        }
    }
}

/// A scope's current status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Current {
    pub status: Kind,
    pub message: String,
    #[serde(default, skip_serializing_if = "is_normal")]
    pub priority: Band,
    /// Logical time the status was set (tie-break: oldest problem first).
    pub since: u64,
}

fn is_normal(b: &Band) -> bool {
    *b == Band::Normal
}

/// One change of a scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// `None`: the scope was cleared.
    pub status: Option<Kind>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The event during which it changed (`config-changed`, `action backup`).
    pub event: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
}

/// A named scope: its current status (none once cleared) and recent changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    pub current: Option<Current>,
    #[serde(default)]
    pub history: Vec<Change>,
}

/// The whole document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeStore {
    pub format: u32,
    /// The release of the host that saved it (`store_release`), as read;
    /// always written as this host's.
    #[serde(default)]
    pub release: super::store_release::WrittenBy,
    /// Logical clock, advanced by every change.
    pub clock: u64,
    #[serde(default)]
    pub unit: BTreeMap<String, Scope>,
    #[serde(default)]
    pub app: BTreeMap<String, Scope>,
    /// What was last written with `status-set`, per target.
    #[serde(default)]
    pub written: WrittenStatuses,
    /// The readiness probes' state between events (DESIGN §5), by probe name;
    /// absent from the document of a charm that declares none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub probes: BTreeMap<String, crate::probe::ProbeState>,
    /// The charm's own key-value data (the `stored` interface); absent from
    /// the document of a charm that stores none, and from documents written
    /// before it existed.
    #[serde(default, skip_serializing_if = "crate::stored::Data::is_empty")]
    pub data: crate::stored::Data,
}

/// The document as written: the store's fields, its format chosen by the
/// writer. Keys and what is left out as [`ScopeStore`]'s.
#[derive(Serialize)]
struct Document<'a> {
    format: u32,
    release: &'a super::store_release::WrittenBy,
    clock: u64,
    unit: &'a BTreeMap<String, Scope>,
    app: &'a BTreeMap<String, Scope>,
    written: &'a WrittenStatuses,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    probes: &'a BTreeMap<String, crate::probe::ProbeState>,
    #[serde(skip_serializing_if = "crate::stored::Data::is_empty")]
    data: &'a crate::stored::Data,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenStatuses {
    pub unit: Option<Written>,
    pub app: Option<Written>,
}

impl Default for ScopeStore {
    fn default() -> Self {
        ScopeStore {
            format: FORMAT,
            release: Default::default(),
            clock: 0,
            unit: BTreeMap::new(),
            app: BTreeMap::new(),
            written: WrittenStatuses::default(),
            probes: BTreeMap::new(),
            data: crate::stored::Data::default(),
        }
    }
}

pub use super::store_release::DecodeError;

/// Whether this host reads documents of format `found`.
pub fn check_format(found: u32) -> Result<(), DecodeError> {
    super::store_release::check(found, None)
}

/// A change a handler (or the host) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    Set {
        target: Target,
        scope: String,
        status: Kind,
        message: String,
        priority: Band,
    },
    Clear {
        target: Target,
        scope: String,
    },
}

/// The probes' states `now` and `then` are the same but for the time of a
/// check that found what the kept one found (same result, same `since`).
fn same_but_recheck_times(
    now: &BTreeMap<String, crate::probe::ProbeState>,
    then: &BTreeMap<String, crate::probe::ProbeState>,
) -> bool {
    now.len() == then.len()
        && now.iter().zip(then).all(|((name, now), (was, then))| {
            name == was
                && match (&now.last, &then.last) {
                    (Some(a), Some(b))
                        if a.healthy == b.healthy
                            && a.detail == b.detail
                            && a.since == b.since
                            && a.pid == b.pid =>
                    {
                        let crate::probe::ProbeState {
                            last: _,
                            failing_since,
                            grace_start,
                            gate,
                        } = now;
                        *failing_since == then.failing_since
                            && *grace_start == then.grace_start
                            && *gate == then.gate
                    }
                    _ => now == then,
                }
        })
}

/// A store's parts other than its scopes: small, so an event keeps them
/// whole and compares them whole, where the scopes are compared one by one.
pub(super) struct Parts<'a> {
    pub format: u32,
    pub release: &'a super::store_release::WrittenBy,
    pub clock: u64,
    pub written: &'a WrittenStatuses,
    pub probes: &'a BTreeMap<String, crate::probe::ProbeState>,
    pub data: &'a crate::stored::Data,
}

impl Parts<'_> {
    /// Whether these parts say more than `before`'s did (the rule of
    /// [`ScopeStore::worth_saving_over`]).
    pub(super) fn worth_saving_over(&self, before: &Parts) -> bool {
        self.format != before.format
            || self.release != before.release
            || self.clock != before.clock
            || self.written != before.written
            || self.data != before.data
            || !same_but_recheck_times(self.probes, before.probes)
    }
}

impl ScopeStore {
    /// Whether `self` says more than `before` did: any change but the times
    /// at which unchanged probe results were checked again. An update-status
    /// whose probes all find what they found before then saves nothing (a
    /// write and two fsyncs saved per event); the kept `at` is the last check
    /// that changed something, while `since` stays exact.
    ///
    /// One walk over both stores, nothing copied: a large store pays for
    /// this at every event.
    pub fn worth_saving_over(&self, before: &ScopeStore) -> bool {
        self.parts().worth_saving_over(&before.parts())
            || self.unit != before.unit
            || self.app != before.app
    }

    /// Everything but the scopes, borrowed.
    pub(super) fn parts(&self) -> Parts<'_> {
        // Every field named, so that a new one cannot be left out.
        let ScopeStore {
            format,
            release,
            clock,
            unit: _,
            app: _,
            written,
            probes,
            data,
        } = self;
        Parts {
            format: *format,
            release,
            clock: *clock,
            written,
            probes,
            data,
        }
    }

    /// Decode a document, refusing formats this host does not know (its
    /// marker is read first: `store_release`).
    pub fn decode(bytes: &[u8]) -> Result<ScopeStore, DecodeError> {
        Self::decode_marked(bytes).map(|(store, _)| store)
    }

    /// [`Self::decode`], and the format the document was marked with.
    pub fn decode_marked(bytes: &[u8]) -> Result<(ScopeStore, u32), DecodeError> {
        let marker = super::store_release::read(bytes)?;
        super::store_release::check(marker.format, marker.release.as_deref())?;
        let mut store: ScopeStore =
            serde_json::from_slice(bytes).map_err(|e| DecodeError::Invalid(e.to_string()))?;
        // Read, it is this host's to save, in this host's format.
        store.format = FORMAT;
        Ok((store, marker.format))
    }

    /// Encode the document as it is stored, with its marker, locally and in
    /// Juju's charm state alike: compact JSON. Pretty-printing doubles the
    /// bytes (33 MB against 20 MB at 100,000 scopes) and the time to write
    /// and sync them; people read the store through `wasm-charm status`
    /// ([`Self::show`]).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Into memory, only the writer could fail, and a Vec does not.
        let _ = self.encode_to(&mut out);
        out
    }

    /// [`Self::encode`] into `w`, as it goes.
    pub fn encode_to(&self, w: impl std::io::Write) -> std::io::Result<()> {
        self.encode_as(FORMAT, w)
    }

    /// [`Self::encode_to`], marked as format `format` (`store_release`): a
    /// document a journal may continue is marked as such.
    pub fn encode_as(&self, format: u32, mut w: impl std::io::Write) -> std::io::Result<()> {
        let document = Document {
            format,
            release: &self.release,
            clock: self.clock,
            unit: &self.unit,
            app: &self.app,
            written: &self.written,
            probes: &self.probes,
            data: &self.data,
        };
        // Maps with string keys and plain values always serialise: an error
        // is the writer's.
        serde_json::to_writer(&mut w, &document).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    }

    /// The document for people: pretty JSON.
    pub fn show(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).unwrap_or_default();
        out.push('\n');
        out
    }

    pub fn scopes(&self, target: Target) -> &BTreeMap<String, Scope> {
        match target {
            Target::Unit => &self.unit,
            Target::App => &self.app,
        }
    }

    fn scopes_mut(&mut self, target: Target) -> &mut BTreeMap<String, Scope> {
        match target {
            Target::Unit => &mut self.unit,
            Target::App => &mut self.app,
        }
    }

    /// The scopes of a target that currently hold a status, for the merge.
    pub fn views(&self, target: Target) -> impl Iterator<Item = ScopeView<'_>> {
        self.scopes(target).iter().filter_map(|(name, scope)| {
            let c = scope.current.as_ref()?;
            Some(ScopeView {
                name,
                kind: c.status,
                message: &c.message,
                band: c.priority,
                since: c.since,
            })
        })
    }

    /// Whether any scope of the target currently holds a status.
    pub fn has_current(&self, target: Target) -> bool {
        self.scopes(target).values().any(|s| s.current.is_some())
    }

    /// Apply one change made during `event` at `time`. Setting the status a
    /// scope already has changes nothing (not even its age). A new message of
    /// the same kind keeps the age, because `since` is the age of the problem
    /// and ranks scopes in the merge: a handler that rewords its message each
    /// event (a count, a timestamp) must not move its scope behind older ones
    /// and flip the winner; the history still records the new message. A new
    /// kind is a new problem and restarts the age; a new band alone does not.
    pub fn apply(&mut self, write: Write, event: &str, time: u64) {
        self.apply_pruning(write, event, time);
    }

    /// [`Self::apply`], returning the cleared scopes it dropped
    /// ([`CLEARED_KEPT`]) as they were, for an edit's record
    /// (`store_edit`).
    pub(super) fn apply_pruning(
        &mut self,
        write: Write,
        event: &str,
        time: u64,
    ) -> Vec<(String, Scope)> {
        let (target, name) = match &write {
            Write::Set { target, scope, .. } | Write::Clear { target, scope } => {
                (*target, scope.clone())
            }
        };
        let clock = self.clock + 1;
        let scopes = self.scopes_mut(target);
        if matches!(write, Write::Clear { .. }) && !scopes.contains_key(&name) {
            return Vec::new();
        }
        let scope = scopes.entry(name).or_insert(Scope {
            current: None,
            history: Vec::new(),
        });
        let change = match write {
            Write::Clear { .. } => {
                if scope.current.take().is_none() {
                    return Vec::new();
                }
                Change {
                    status: None,
                    message: String::new(),
                    event: event.to_string(),
                    time,
                }
            }
            Write::Set {
                status,
                message,
                priority,
                ..
            } => {
                let since = match &mut scope.current {
                    Some(c) if c.status == status && c.message == message => {
                        c.priority = priority;
                        return Vec::new();
                    }
                    Some(c) if c.status == status => c.since,
                    _ => clock,
                };
                scope.current = Some(Current {
                    status,
                    message: message.clone(),
                    priority,
                    since,
                });
                Change {
                    status: Some(status),
                    message,
                    event: event.to_string(),
                    time,
                }
            }
        };
        let cleared = change.status.is_none();
        scope.history.push(change);
        if scope.history.len() > HISTORY {
            let excess = scope.history.len() - HISTORY;
            scope.history.drain(..excess);
        }
        self.clock = clock;
        // Only a clear adds a cleared scope (the walk is over every scope).
        if cleared {
            self.prune_cleared(target)
        } else {
            Vec::new()
        }
    }

    /// Drop the cleared scopes beyond [`CLEARED_KEPT`], oldest change first,
    /// so scopes of long-gone relations and units do not grow the store forever.
    fn prune_cleared(&mut self, target: Target) -> Vec<(String, Scope)> {
        let scopes = self.scopes_mut(target);
        let mut cleared: Vec<(u64, String)> = scopes
            .iter()
            .filter(|(_, s)| s.current.is_none())
            .map(|(n, s)| (s.history.last().map_or(0, |c| c.time), n.clone()))
            .collect();
        if cleared.len() <= CLEARED_KEPT {
            return Vec::new();
        }
        cleared.sort();
        let excess = cleared.len() - CLEARED_KEPT;
        cleared
            .into_iter()
            .take(excess)
            .filter_map(|(_, name)| scopes.remove_entry(&name))
            .collect()
    }

    /// Names of the scopes of `target` holding a status that match `pred`.
    pub fn current_names(&self, target: Target, pred: impl Fn(&str) -> bool) -> Vec<String> {
        self.scopes(target)
            .iter()
            .filter(|(n, s)| s.current.is_some() && pred(n))
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// A store document (as JSON) without its marker (`store_release`), to
/// compare what two hosts kept whatever their formats.
pub fn unmarked(doc: &serde_json::Value) -> serde_json::Value {
    // Read as a store and written again where it is one: an absent
    // `current` and a `null` one are the same cleared scope.
    let mut doc = serde_json::from_value::<ScopeStore>(doc.clone())
        .ok()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or_else(|| doc.clone());
    if let Some(map) = doc.as_object_mut() {
        map.remove("format");
        map.remove("release");
    }
    doc
}

#[cfg(test)]
#[path = "store_tests.rs"]
pub(crate) mod tests;
