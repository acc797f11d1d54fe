//! The store in a recording once, then only its changes (issue 20): a unit
//! whose store is near Juju's 2 MiB still records its events within the
//! recording's bounds.
//!
//! Each event of a local store keeps the store as loaded (`store`), unless
//! it is the store the event before it in the file left: then only
//! `store-previous: true`, the file's events being consecutive. What the
//! event left is kept as the changes from what it loaded
//! (`outcome.store-changes`, a JSON merge patch: RFC 7386, `null` removes
//! a key), with the hash of what it left (`store-left-sha256`) for the
//! next event to compare with. The oldest event of the file always holds
//! its whole store: when older events are dropped, the first one kept gets
//! the store back ([`materialize`]). Reading a file ([`resolve`]) turns
//! every event back into whole stores, as recordings of format 1 have them.
//! Pure.

use super::Recorded;
use crate::merge_patch::{apply, diff};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The hash the store `doc` is compared by.
pub fn sha256(doc: &Value) -> String {
    // serde_json's maps are sorted: one document, one text.
    let text = serde_json::to_string(doc).unwrap_or_default();
    crate::text::hex(&Sha256::digest(text.as_bytes()))
}

/// The store `rec` left: what it loaded with its changes, or (format 1,
/// or a juju store) the whole store its outcome holds.
pub fn left(rec: &Recorded, loaded: Option<&Value>) -> Option<Value> {
    match (&rec.outcome.store_changes, loaded) {
        (Some(changes), Some(loaded)) => {
            let mut doc = loaded.clone();
            apply(&mut doc, changes);
            Some(doc)
        }
        _ => rec.outcome.store.clone(),
    }
}

/// Keep `rec`'s store once: its outcome's store as changes from what it
/// loaded, and the hash of what it left. Only for an event that loaded a
/// store (a local one).
pub fn compact(rec: &mut Recorded) {
    let Some(loaded) = &rec.store else {
        return;
    };
    let Some(left) = rec.outcome.store.take() else {
        return;
    };
    rec.store_left_sha256 = Some(sha256(&left));
    rec.outcome.store_changes = Some(diff(loaded, &left));
}

/// Whether the event before `rec` in the file left the store `rec`
/// loaded: `last_line` is that event's document.
pub fn follows(rec: &Recorded, last_line: &str) -> bool {
    let Some(loaded) = &rec.store else {
        return false;
    };
    // Found, not parsed: the line may hold a whole store. Inside a JSON
    // string a quote is escaped, so this is a key; the first such key is
    // the event's own, which comes before its store, calls and outcome.
    const KEY: &str = "\"store-left-sha256\":\"";
    last_line
        .find(KEY)
        .and_then(|at| last_line.get(at + KEY.len()..at + KEY.len() + 64))
        .is_some_and(|sha| sha == sha256(loaded))
}

/// The line of `first` (the oldest event kept) holding its whole store,
/// when it holds only `store-previous`: `dropped` are the events dropped
/// before it, oldest first, whose first holds its whole store. `None`:
/// `first` needs nothing, or its store cannot be made (then it goes too).
pub fn materialize(dropped: &[&str], first: &str) -> Option<Option<String>> {
    let mut rec: Recorded = serde_json::from_str(first).ok()?;
    if !rec.store_previous {
        return Some(None);
    }
    let mut store: Option<Value> = None;
    for line in dropped {
        let old: Recorded = serde_json::from_str(line).ok()?;
        let loaded = if old.store_previous {
            store.take()
        } else {
            old.store.clone()
        };
        store = left(&old, loaded.as_ref());
    }
    rec.store = Some(store?);
    rec.store_previous = false;
    serde_json::to_string(&rec).ok().map(Some)
}

/// Every event of a file read back with whole stores: `store` as loaded,
/// `outcome.store` as left. `Err(n)`: event `n` (0 the first) says the
/// event before it left its store, and there is none.
pub fn resolve(events: &mut [Recorded]) -> Result<(), usize> {
    let mut previous: Option<Value> = None;
    for (n, rec) in events.iter_mut().enumerate() {
        if rec.store_previous {
            rec.store = Some(previous.take().ok_or(n)?);
            rec.store_previous = false;
        }
        let left = left(rec, rec.store.as_ref());
        if rec.outcome.store_changes.take().is_some() {
            rec.outcome.store = left.clone();
        }
        previous = left;
    }
    Ok(())
}
