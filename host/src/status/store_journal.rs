//! The journal of a large local store: the changes of each event since the
//! document was last written whole, one line of JSON each, so that an event
//! that changes one scope of a large store appends that scope, not the whole
//! document. Pure: stores in, lines out, and back; `store_file` decides when
//! to journal and does the I/O.
//!
//! ```text
//! {"journal":1,"base_bytes":19664554,"base_clock":100000}    the header
//! {"clock":100001,"unit":{"handler/h7":{"current":…,"history":[…]}}}
//! {"clock":100001,"unit":{"handler/h9":null},"data":{"k":"v","gone":null}}
//! ```
//!
//! Every entry assigns: a scope's whole new value (`null`: gone), each
//! changed data key's value, and the written statuses, the probes' state and
//! the clock whole when they changed. Replaying entries is therefore
//! idempotent: a document that already holds an entry's values is left as
//! it is by replaying it. That is what makes rewriting the document safe:
//! the event that rewrites it appends its own entry first, so a crash before
//! the journal is removed leaves a journal every value of which the new
//! document holds ([`leftover`]).
//!
//! The header names the document the journal continues (its length and
//! clock when the journal began): a journal beside another document (one
//! restored from a backup, say) is refused unless it is such a leftover.

use super::store::{Parts, Scope, ScopeStore, WrittenStatuses};
use crate::probe::ProbeState;
use crate::stored::Changes;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The journal layout this host writes and reads.
pub const LAYOUT: u32 = 1;

/// The first line: which document the journal continues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub journal: u32,
    /// The document's length in bytes when the journal began.
    pub base_bytes: u64,
    /// The document's clock then.
    pub base_clock: u64,
}

impl Header {
    pub fn new(base_bytes: u64, base_clock: u64) -> Header {
        Header {
            journal: LAYOUT,
            base_bytes,
            base_clock,
        }
    }
}

/// One event's changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub clock: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unit: BTreeMap<String, Option<Scope>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub app: BTreeMap<String, Option<Scope>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<WrittenStatuses>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<BTreeMap<String, ProbeState>>,
    #[serde(default, skip_serializing_if = "Changes::is_empty")]
    pub data: Changes,
}

/// What changed from `before` to `after`, as assignments.
pub fn entry(before: &ScopeStore, after: &ScopeStore) -> Entry {
    Entry::of(
        &before.parts(),
        &after.parts(),
        scopes_changed(&before.unit, &after.unit),
        scopes_changed(&before.app, &after.app),
    )
}

impl Entry {
    /// The entry for a store whose parts went from `before` to `after`, with
    /// the scopes changed already found (by a walk, or by an event's edit).
    pub(super) fn of(
        before: &Parts,
        after: &Parts,
        unit: BTreeMap<String, Option<Scope>>,
        app: BTreeMap<String, Option<Scope>>,
    ) -> Entry {
        Entry {
            clock: after.clock,
            unit,
            app,
            written: (before.written != after.written).then(|| after.written.clone()),
            probes: (before.probes != after.probes).then(|| after.probes.clone()),
            data: crate::stored::Changes::between(before.data, after.data),
        }
    }
}

/// The scopes whose value differs, by one walk of both sorted maps.
pub(super) fn scopes_changed(
    before: &BTreeMap<String, Scope>,
    after: &BTreeMap<String, Scope>,
) -> BTreeMap<String, Option<Scope>> {
    let mut changed = BTreeMap::new();
    let (mut b, mut a) = (before.iter().peekable(), after.iter().peekable());
    loop {
        match (b.peek(), a.peek()) {
            (None, None) => break,
            (Some((kb, _)), Some((ka, _))) if kb == ka => {
                let ((k, vb), (_, va)) = (b.next().expect("peeked"), a.next().expect("peeked"));
                if vb != va {
                    changed.insert(k.clone(), Some(va.clone()));
                }
            }
            (Some((kb, _)), Some((ka, _))) if kb < ka => {
                let (k, _) = b.next().expect("peeked");
                changed.insert(k.clone(), None);
            }
            (Some(_), None) => {
                let (k, _) = b.next().expect("peeked");
                changed.insert(k.clone(), None);
            }
            (_, Some(_)) => {
                let (k, v) = a.next().expect("peeked");
                changed.insert(k.clone(), Some(v.clone()));
            }
        }
    }
    changed
}

/// Replay `entry` onto `store`.
pub fn apply(store: &mut ScopeStore, entry: Entry) {
    store.clock = entry.clock;
    for (map, changes) in [(&mut store.unit, entry.unit), (&mut store.app, entry.app)] {
        for (scope, value) in changes {
            match value {
                Some(v) => map.insert(scope, v),
                None => map.remove(&scope),
            };
        }
    }
    if let Some(written) = entry.written {
        store.written = written;
    }
    if let Some(probes) = entry.probes {
        store.probes = probes;
    }
    store.data.apply(entry.data);
}

/// Whether replaying `entries` onto `store` would change nothing: the
/// journal is what a crash left behind once the document was rewritten.
pub fn leftover(store: &ScopeStore, entries: &[Entry]) -> bool {
    let mut replayed = store.clone();
    for e in entries {
        apply(&mut replayed, e.clone());
    }
    replayed == *store
}

/// One line of the journal, its newline included.
pub fn line<T: Serialize>(value: &T) -> Vec<u8> {
    // Maps with string keys and plain values always serialise.
    let mut out = serde_json::to_vec(value).unwrap_or_default();
    out.push(b'\n');
    out
}

/// A journal as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// `None`: no complete header (an empty journal, or one torn while it
    /// was begun: no event's save had finished).
    pub header: Option<Header>,
    pub entries: Vec<Entry>,
    /// The bytes that hold complete lines; what follows is a line torn by
    /// a crash, which the next append cuts off.
    pub valid: usize,
}

/// Read a journal. A last line without its newline was torn by a crash
/// during an append that never finished (so its event's save did not
/// either) and is left out; any other line that is not a header or an
/// entry is an error naming its line number.
pub fn read(bytes: &[u8]) -> Result<Read, String> {
    let mut read = Read {
        header: None,
        entries: Vec::new(),
        valid: 0,
    };
    let mut at = 0;
    for (n, piece) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        if piece.last() != Some(&b'\n') {
            break;
        }
        let text = &piece[..piece.len() - 1];
        if n == 0 {
            let header: Header = serde_json::from_slice(text)
                .map_err(|e| format!("line 1 is not the journal's header: {e}"))?;
            if header.journal != LAYOUT {
                return Err(format!(
                    "line 1: journal layout {} (this host reads {LAYOUT})",
                    header.journal
                ));
            }
            read.header = Some(header);
        } else {
            let entry: Entry =
                serde_json::from_slice(text).map_err(|e| format!("line {}: {e}", n + 1))?;
            read.entries.push(entry);
        }
        at += piece.len();
        read.valid = at;
    }
    Ok(read)
}

#[cfg(test)]
#[path = "store_journal_tests.rs"]
mod tests;
