use super::*;
use crate::status::merge::{Kind, Written};
use crate::status::store::CLEARED_KEPT;
use crate::status::store::tests::{arb_probes, arb_write, set};
use proptest::prelude::*;

/// One event's changes to `edit` besides its scope writes: data keys set or
/// removed, a new written status, new probe states.
fn change_the_rest(
    edit: &mut StoreEdit,
    data: &[(String, Option<String>)],
    written: Option<&str>,
    probes: Option<BTreeMap<String, ProbeState>>,
) {
    let mut kept: BTreeMap<String, String> = edit
        .data
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    for (k, v) in data {
        match v {
            Some(v) => kept.insert(k.clone(), v.clone()),
            None => kept.remove(k),
        };
    }
    *edit.data_mut() = kept.into_iter().collect();
    if let Some(message) = written {
        edit.written_mut().unit = Some(Written {
            status: Kind::Active,
            message: message.into(),
        });
    }
    if let Some(probes) = probes {
        *edit.probes_mut() = probes;
    }
}

/// A store made by `writes`, with `probes`.
fn store_of(writes: Vec<Write>, probes: BTreeMap<String, ProbeState>) -> ScopeStore {
    let mut store = ScopeStore {
        probes,
        ..ScopeStore::default()
    };
    for (i, w) in writes.into_iter().enumerate() {
        store.apply(w, "earlier", i as u64);
    }
    store
}

proptest! {
    /// What an edit finds from its own changes is what the walk over both
    /// stores finds: the same journal entry, the same decision to save; and
    /// undoing it gives the store it began with, for any store and changes.
    #[test]
    fn an_edit_finds_what_the_walk_finds(
        earlier in prop::collection::vec(arb_write(), 0..12),
        before_probes in arb_probes(),
        writes in prop::collection::vec(arb_write(), 0..6),
        data in prop::collection::vec(("[a-c]", prop::option::of("\\PC{0,6}")), 0..3),
        written in prop::option::of("[a-z]{0,4}"),
        probes in prop::option::of(arb_probes()),
    ) {
        let loaded = store_of(earlier, before_probes);
        let mut edit = StoreEdit::begin(loaded.clone());
        for (i, w) in writes.into_iter().enumerate() {
            edit.apply(w, "ev", 100 + i as u64);
        }
        change_the_rest(&mut edit, &data, written.as_deref(), probes);
        let after = ScopeStore::clone(&edit);

        prop_assert_eq!(edit.entry(), store_journal::entry(&loaded, &after));
        prop_assert_eq!(edit.worth_saving(), after.worth_saving_over(&loaded));
        prop_assert_eq!(edit.loaded_clock(), loaded.clock);
        let between = StoreEdit::between(&loaded, after.clone());
        prop_assert_eq!(between.entry(), edit.entry());
        prop_assert_eq!(between.worth_saving(), edit.worth_saving());
        prop_assert_eq!(&between.revert(), &loaded);
        prop_assert_eq!(&edit.revert(), &loaded);
    }
}

/// The walk's edit of the same writes, applied to a copy.
fn walked(loaded: &ScopeStore, writes: &[Write]) -> ScopeStore {
    let mut after = loaded.clone();
    for w in writes {
        after.apply(w.clone(), "ev", 1_000);
    }
    after
}

#[test]
fn cleared_scopes_pruned_by_a_clear_are_undone_and_journaled() {
    // More cleared scopes than are kept, once one more is cleared.
    let mut loaded = ScopeStore::default();
    for i in 0..=CLEARED_KEPT {
        let scope = format!("gone{i:03}");
        loaded.apply(
            set(Target::Unit, &scope, Kind::Blocked, "x"),
            "ev",
            i as u64,
        );
        loaded.apply(
            Write::Clear {
                target: Target::Unit,
                scope,
            },
            "ev",
            i as u64,
        );
    }
    loaded.apply(set(Target::Unit, "last", Kind::Blocked, "x"), "ev", 500);
    let clear = Write::Clear {
        target: Target::Unit,
        scope: "last".into(),
    };
    let after = walked(&loaded, std::slice::from_ref(&clear));
    assert!(
        after.unit.len() < loaded.unit.len(),
        "the clear pruned the oldest"
    );

    let mut edit = StoreEdit::begin(loaded.clone());
    edit.apply(clear, "ev", 1_000);
    assert_eq!(*edit, after);
    let entry = edit.entry();
    assert_eq!(entry, store_journal::entry(&loaded, &after));
    assert!(
        entry.unit.values().any(Option::is_none),
        "the pruned scope is journaled as gone: {entry:?}"
    );
    assert_eq!(edit.revert(), loaded);
}

#[test]
fn an_edit_that_changes_nothing_is_not_worth_saving() {
    let loaded = store_of(
        vec![set(Target::Unit, "a", Kind::Blocked, "x")],
        BTreeMap::new(),
    );
    let mut edit = StoreEdit::begin(loaded.clone());
    // The same status again changes nothing, not even the clock.
    edit.apply(set(Target::Unit, "a", Kind::Blocked, "x"), "ev", 9);
    edit.apply(
        Write::Clear {
            target: Target::App,
            scope: "never-set".into(),
        },
        "ev",
        9,
    );
    assert!(!edit.worth_saving());
    assert_eq!(edit.entry().unit.len(), 0);
    assert_eq!(edit.finish(), loaded);
}
