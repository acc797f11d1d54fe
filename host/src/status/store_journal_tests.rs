use super::*;
use crate::status::merge::{Kind, Written};
use crate::status::store::tests::{arb_write, set};
use crate::status::store::{Target, Write};
use proptest::prelude::*;

/// One event's changes, as the host makes them: scope writes, data keys set
/// or removed, and maybe a new written status.
#[derive(Debug, Clone)]
struct Step {
    writes: Vec<Write>,
    data: Vec<(String, Option<String>)>,
    written: Option<String>,
}

fn arb_step() -> impl Strategy<Value = Step> {
    (
        prop::collection::vec(arb_write(), 0..4),
        prop::collection::vec(("[a-c]", prop::option::of("\\PC{0,6}")), 0..3),
        prop::option::of("[a-z]{0,4}"),
    )
        .prop_map(|(writes, data, written)| Step {
            writes,
            data,
            written,
        })
}

/// The store after `step`, made of `before`.
fn after(before: &ScopeStore, step: &Step, event: u64) -> ScopeStore {
    let mut s = before.clone();
    for w in &step.writes {
        s.apply(w.clone(), "ev", event);
    }
    let mut data: BTreeMap<String, String> =
        s.data.iter().map(|(k, v)| (k.into(), v.into())).collect();
    for (k, v) in &step.data {
        match v {
            Some(v) => data.insert(k.clone(), v.clone()),
            None => data.remove(k),
        };
    }
    s.data = data.into_iter().collect();
    if let Some(message) = &step.written {
        s.written.unit = Some(Written {
            status: Kind::Active,
            message: message.clone(),
        });
    }
    s
}

/// The stores a run of steps makes, the empty store first.
fn history(steps: &[Step]) -> Vec<ScopeStore> {
    let mut stores = vec![ScopeStore::default()];
    for (i, step) in steps.iter().enumerate() {
        let next = after(stores.last().expect("one at least"), step, i as u64);
        stores.push(next);
    }
    stores
}

/// A journal of `stores`' changes after the first, as `store_file` writes it.
fn journal_of(stores: &[ScopeStore]) -> Vec<u8> {
    let mut out = line(&Header::new(10, stores[0].clock));
    for pair in stores.windows(2) {
        out.extend(line(&entry(&pair[0], &pair[1])));
    }
    out
}

proptest! {
    /// Any run of events replays, from the document the journal began at,
    /// to the store the last event saved; an entry written as a line reads
    /// back as it was.
    #[test]
    fn a_journal_replays_to_the_last_store(steps in prop::collection::vec(arb_step(), 0..12)) {
        let stores = history(&steps);
        let bytes = journal_of(&stores);
        let read = read(&bytes).unwrap();
        prop_assert_eq!(read.valid, bytes.len());
        prop_assert_eq!(read.entries.len(), stores.len() - 1);
        let mut replayed = stores[0].clone();
        for e in read.entries {
            apply(&mut replayed, e);
        }
        prop_assert_eq!(&replayed, stores.last().unwrap());
    }

    /// A crash at any byte of the last append leaves the journal of the
    /// events before it: the torn line is left out, and the next append
    /// starts where the complete lines end.
    #[test]
    fn a_torn_last_line_is_the_event_before(
        steps in prop::collection::vec(arb_step(), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let stores = history(&steps);
        let whole = journal_of(&stores);
        let before_last = journal_of(&stores[..stores.len() - 1]);
        let last_line = whole.len() - before_last.len();
        // Anything from nothing of the last line to all of it but its newline.
        let torn = &whole[..before_last.len() + cut.index(last_line)];
        let read = read(torn).unwrap();
        prop_assert_eq!(read.valid, before_last.len());
        let mut replayed = stores[0].clone();
        for e in read.entries {
            apply(&mut replayed, e);
        }
        prop_assert_eq!(&replayed, &stores[stores.len() - 2]);
    }

    /// Replaying a journal onto the document written whole after it (the
    /// crash between that write and the journal's removal) changes nothing.
    #[test]
    fn a_journal_the_document_holds_is_a_leftover(steps in prop::collection::vec(arb_step(), 1..10)) {
        let stores = history(&steps);
        let read = read(&journal_of(&stores)).unwrap();
        let last = stores.last().unwrap();
        prop_assert!(leftover(last, &read.entries));
        let mut replayed = last.clone();
        for e in read.entries.clone() {
            apply(&mut replayed, e);
        }
        prop_assert_eq!(&replayed, last);
    }
}

#[test]
fn an_entry_holds_only_what_changed() {
    let mut before = ScopeStore::default();
    for i in 0..50 {
        before.apply(
            set(Target::Unit, &format!("s{i}"), Kind::Active, "fine"),
            "install",
            1,
        );
    }
    let mut later = before.clone();
    later.apply(
        set(Target::Unit, "s7", Kind::Blocked, "broken"),
        "config-changed",
        2,
    );
    later.apply(
        Write::Clear {
            target: Target::Unit,
            scope: "s9".into(),
        },
        "config-changed",
        2,
    );
    let e = entry(&before, &later);
    assert_eq!(e.unit.len(), 2, "{e:?}");
    assert!(e.app.is_empty() && e.written.is_none() && e.probes.is_none());
    assert!(e.data.is_empty());
    let text = String::from_utf8(line(&e)).unwrap();
    assert!(text.contains("\"s7\"") && text.contains("broken"), "{text}");
    assert!(!text.contains("\"s8\""), "{text}");
    assert!(!leftover(&before, std::slice::from_ref(&e)));
    assert!(leftover(&later, &[e]));
}

#[test]
fn a_line_that_is_not_an_entry_is_an_error_naming_it() {
    let mut bytes = line(&Header::new(1, 0));
    bytes.extend(line(&Entry::default()));
    bytes.extend(b"{\"clock\": \"soon\"}\n");
    let e = read(&bytes).unwrap_err();
    assert!(e.starts_with("line 3:"), "{e}");
    let e = read(b"{\"journal\":2,\"base_bytes\":1,\"base_clock\":0}\n").unwrap_err();
    assert!(e.contains("layout 2"), "{e}");
    let e = read(b"[]\n").unwrap_err();
    assert!(e.contains("line 1 is not the journal's header"), "{e}");
    // A header torn while it was written: no journal yet.
    let read = read(b"{\"journal\":1,\"base_by").unwrap();
    assert_eq!((read.header, read.valid), (None, 0));
}
