//! The store as one event edits it: the store itself, changed in place, and
//! what each changed part held before. An event then needs no copy of the
//! store it loaded (a large one costs tens of milliseconds to copy), and
//! what it changed (whether to save, the journal's entry, a failed event's
//! undo) is found from its own changes, not by a walk over every scope.
//! Pure: no I/O.
//!
//! Scopes change only through [`StoreEdit::apply`], which notes each
//! scope's value before its first change; the small parts (written
//! statuses, probes, data, clock) are kept whole when the edit begins.

use super::store::{Parts, Scope, ScopeStore, Target, Write};
use super::store_journal::{self, Entry};
use super::store_release::WrittenBy;
use crate::probe::ProbeState;
use crate::stored::Data;
use std::collections::BTreeMap;
use std::ops::Deref;

/// The store as one event edits it. Reads go through `Deref`; every change
/// through a method, so none escapes the record of what changed.
#[derive(Debug)]
pub struct StoreEdit {
    store: ScopeStore,
    before: Before,
}

/// What the edited parts held when the edit began.
#[derive(Debug)]
struct Before {
    format: u32,
    release: WrittenBy,
    clock: u64,
    written: super::store::WrittenStatuses,
    probes: BTreeMap<String, ProbeState>,
    data: Data,
    /// Each scope changed, as it was (`None`: it did not exist).
    unit: BTreeMap<String, Option<Scope>>,
    app: BTreeMap<String, Option<Scope>>,
}

impl Before {
    fn of(store: &ScopeStore) -> Before {
        Before {
            format: store.format,
            release: store.release.clone(),
            clock: store.clock,
            written: store.written.clone(),
            probes: store.probes.clone(),
            // An `Arc`: shared, not copied.
            data: store.data.clone(),
            unit: BTreeMap::new(),
            app: BTreeMap::new(),
        }
    }

    fn parts(&self) -> Parts<'_> {
        Parts {
            format: self.format,
            release: &self.release,
            clock: self.clock,
            written: &self.written,
            probes: &self.probes,
            data: &self.data,
        }
    }

    fn scopes_mut(&mut self, target: Target) -> &mut BTreeMap<String, Option<Scope>> {
        match target {
            Target::Unit => &mut self.unit,
            Target::App => &mut self.app,
        }
    }
}

impl Deref for StoreEdit {
    type Target = ScopeStore;
    fn deref(&self) -> &ScopeStore {
        &self.store
    }
}

impl StoreEdit {
    /// An event begins editing the store it loaded.
    pub fn begin(store: ScopeStore) -> StoreEdit {
        StoreEdit {
            before: Before::of(&store),
            store,
        }
    }

    /// The edit that made `after` of `before`, found by a walk over both:
    /// for a store changed as a whole (a test, a tool), not by an event.
    pub fn between(before: &ScopeStore, after: ScopeStore) -> StoreEdit {
        let mut was = Before::of(before);
        // The walk's "changed to" read the other way: each differing scope's
        // value in `before`.
        was.unit = store_journal::scopes_changed(&after.unit, &before.unit);
        was.app = store_journal::scopes_changed(&after.app, &before.app);
        StoreEdit {
            store: after,
            before: was,
        }
    }

    /// Apply one change ([`ScopeStore::apply`]), noting what each scope it
    /// touches held before the event first changed it.
    pub fn apply(&mut self, write: Write, event: &str, time: u64) {
        let (target, name) = match &write {
            Write::Set { target, scope, .. } | Write::Clear { target, scope } => (*target, scope),
        };
        let was = self.store.scopes(target).get(name).cloned();
        self.before
            .scopes_mut(target)
            .entry(name.clone())
            .or_insert(was);
        for (pruned, scope) in self.store.apply_pruning(write, event, time) {
            self.before
                .scopes_mut(target)
                .entry(pruned)
                .or_insert(Some(scope));
        }
    }

    /// The probes' state, to change (kept whole when the edit began).
    pub fn probes_mut(&mut self) -> &mut BTreeMap<String, ProbeState> {
        &mut self.store.probes
    }

    /// The charm's data, to change (kept whole when the edit began).
    pub fn data_mut(&mut self) -> &mut Data {
        &mut self.store.data
    }

    /// The statuses last written, to change (kept whole when the edit began).
    pub fn written_mut(&mut self) -> &mut super::store::WrittenStatuses {
        &mut self.store.written
    }

    /// Whether the store says more than it did when the edit began, by the
    /// rule of [`ScopeStore::worth_saving_over`], looking only at what the
    /// event changed.
    pub fn worth_saving(&self) -> bool {
        self.store.parts().worth_saving_over(&self.before.parts())
            || scopes_differ(&self.store.unit, &self.before.unit)
            || scopes_differ(&self.store.app, &self.before.app)
    }

    /// The journal's entry for this edit: what [`store_journal::entry`]
    /// finds by walking both stores, from the scopes changed alone.
    pub fn entry(&self) -> Entry {
        let (now, was) = (&self.store, &self.before);
        Entry::of(
            &was.parts(),
            &now.parts(),
            changed(&now.unit, &was.unit),
            changed(&now.app, &was.app),
        )
    }

    /// The clock when the edit began.
    pub fn loaded_clock(&self) -> u64 {
        self.before.clock
    }

    /// The store as edited.
    pub fn finish(self) -> ScopeStore {
        self.store
    }

    /// The store as it was when the edit began: what a failed event keeps.
    pub fn revert(self) -> ScopeStore {
        let StoreEdit { mut store, before } = self;
        let Before {
            format,
            release,
            clock,
            written,
            probes,
            data,
            unit,
            app,
        } = before;
        store.format = format;
        store.release = release;
        store.clock = clock;
        store.written = written;
        store.probes = probes;
        store.data = data;
        for (map, was) in [(&mut store.unit, unit), (&mut store.app, app)] {
            for (name, scope) in was {
                match scope {
                    Some(scope) => map.insert(name, scope),
                    None => map.remove(&name),
                };
            }
        }
        store
    }
}

/// Whether any scope changed holds now other than it did.
fn scopes_differ(now: &BTreeMap<String, Scope>, was: &BTreeMap<String, Option<Scope>>) -> bool {
    was.iter().any(|(name, was)| now.get(name) != was.as_ref())
}

/// The scopes changed whose value differs now, as assignments.
fn changed(
    now: &BTreeMap<String, Scope>,
    was: &BTreeMap<String, Option<Scope>>,
) -> BTreeMap<String, Option<Scope>> {
    was.iter()
        .filter(|(name, was)| now.get(*name) != was.as_ref())
        .map(|(name, _)| (name.clone(), now.get(name).cloned()))
        .collect()
}

#[cfg(test)]
#[path = "store_edit_tests.rs"]
mod tests;
