use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn data(items: &[(&str, &str)]) -> Data {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A handler's interface over `items`.
fn stored(items: &[(&str, &str)]) -> Stored {
    let mut s = Stored::default();
    s.begin(&data(items));
    s
}

#[test]
fn keys_are_checked() {
    for ok in [
        "a",
        "Tls.Cert",
        "db:1/password",
        "a-b_c",
        &"k".repeat(MAX_KEY),
    ] {
        assert_eq!(validate_key(ok), Ok(()), "{ok}");
    }
    for (bad, why) in [
        ("", "1 to 128 bytes, got 0"),
        (&"k".repeat(MAX_KEY + 1), "1 to 128 bytes, got 129"),
        ("a=b", "has '='"),
        ("a b", "has ' '"),
        ("a\0", "has '\\0'"),
        ("é", "has 'é'"),
    ] {
        let e = validate_key(bad).unwrap_err();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
    // Every call that names a key checks it, and changes nothing then.
    let mut s = stored(&[]);
    assert!(s.set("a b".into(), "v".into()).is_err());
    assert!(s.delete("a b".into()).is_err());
    assert!(s.take().is_empty());
}

#[test]
fn a_handler_reads_its_own_writes_over_the_stored_data() {
    let mut s = stored(&[("kept", "1"), ("gone", "2"), ("changed", "3")]);
    s.set("changed".into(), "33".into()).unwrap();
    s.set("new".into(), "4".into()).unwrap();
    s.delete("gone".into()).unwrap();
    s.delete("never".into()).unwrap();
    assert_eq!(s.get("kept".into()).as_deref(), Some("1"));
    assert_eq!(s.get("changed".into()).as_deref(), Some("33"));
    assert_eq!(s.get("new".into()).as_deref(), Some("4"));
    assert_eq!(s.get("gone".into()), None);
    assert_eq!(s.get("never".into()), None);
    // A key no write could name is simply not stored.
    assert_eq!(s.get("a b".into()), None);
    assert_eq!(s.keys(), ["changed", "kept", "new"]);

    let mut after = data(&[("kept", "1"), ("gone", "2"), ("changed", "3")]);
    after.apply(s.take());
    assert_eq!(
        after,
        data(&[("changed", "33"), ("kept", "1"), ("new", "4")])
    );
    // The next handler starts from nothing of this one's.
    assert_eq!(s.keys(), Vec::<String>::new());
}

#[test]
fn writes_that_give_back_the_stored_value_change_nothing() {
    let mut s = stored(&[("a", "1")]);
    s.set("a".into(), "1".into()).unwrap();
    s.set("b".into(), "2".into()).unwrap();
    s.delete("b".into()).unwrap();
    s.delete("a".into()).unwrap();
    s.set("a".into(), "1".into()).unwrap();
    assert!(s.take().is_empty());
}

#[test]
fn a_value_past_64_kib_is_refused_naming_the_limit() {
    let mut s = stored(&[]);
    let e = s.set("big".into(), "v".repeat(MAX_VALUE + 1)).unwrap_err();
    assert!(
        e.contains("\"big\"") && e.contains("65537 bytes") && e.contains("limit is 65536"),
        "{e}"
    );
    assert_eq!(s.get("big".into()), None);
    s.set("big".into(), "v".repeat(MAX_VALUE)).unwrap();
    assert_eq!(s.get("big".into()).map(|v| v.len()), Some(MAX_VALUE));
}

#[test]
fn keys_are_bounded_counting_the_stored_data() {
    let full: Data = (0..MAX_KEYS)
        .map(|i| (format!("k{i}"), "v".into()))
        .collect();
    let mut s = Stored::default();
    s.begin(&full);
    // Full: a new key is refused, naming the limit…
    let e = s.set("new".into(), "v".into()).unwrap_err();
    assert!(e.contains("1024 keys") && e.contains("MAX_KEYS"), "{e}");
    // …a stored one may change…
    s.set("k3".into(), "w".into()).unwrap();
    // …and a removal makes room, once.
    s.delete("k0".into()).unwrap();
    s.set("new".into(), "v".into()).unwrap();
    s.set("new".into(), "w".into()).unwrap();
    assert!(s.set("newer".into(), "v".into()).is_err());
    // A key removed then stored again by the handler counts once.
    s.delete("k3".into()).unwrap();
    s.set("k3".into(), "v".into()).unwrap();
    assert!(s.set("newer".into(), "v".into()).is_err());
    assert_eq!(s.keys().len(), MAX_KEYS);
}

#[test]
fn the_total_is_bounded_counting_the_stored_data() {
    // 15 values of 64 KiB and keys of 3 bytes: 1 MiB less 15 * 1024 - 45.
    let value = "v".repeat(MAX_VALUE);
    let stored_data: Data = (0..15)
        .map(|i| (format!("k{i:02}"), value.clone()))
        .collect();
    let mut s = Stored::default();
    s.begin(&stored_data);
    let room = MAX_TOTAL - stored_data.bytes();
    assert_eq!(room, MAX_VALUE - 45);
    let e = s.set("x".into(), "v".repeat(room)).unwrap_err();
    assert!(
        e.contains(&format!("would be {} bytes", MAX_TOTAL + 1))
            && e.contains("limit is 1048576 (MAX_TOTAL)"),
        "{e}"
    );
    s.set("x".into(), "v".repeat(room - 1)).unwrap();
    // Replacing a value counts the new one instead of the old.
    s.set("x".into(), "w".repeat(room - 1)).unwrap();
    assert!(s.set("z".into(), "v".into()).is_err());
    // A removal makes room.
    s.delete("k00".into()).unwrap();
    s.set("y".into(), value.clone()).unwrap();
    let mut after = stored_data.clone();
    after.apply(s.take());
    assert_eq!(after.bytes(), MAX_TOTAL - 2);
}

#[test]
fn data_stored_past_the_bounds_is_read_and_can_shrink() {
    // An operator's or an older host's data: read as it is, never refused.
    let over: Data = (0..MAX_KEYS + 2)
        .map(|i| (format!("k{i}"), "v".into()))
        .collect();
    let mut s = Stored::default();
    s.begin(&over);
    assert_eq!(s.get("k0".into()).as_deref(), Some("v"));
    assert!(s.set("new".into(), "v".into()).is_err());
    s.set("k1".into(), "w".into()).unwrap();
    s.delete("k0".into()).unwrap();
    assert_eq!(s.keys().len(), MAX_KEYS + 1);
}

#[derive(Debug, Clone)]
enum Op {
    Set(String, String),
    Delete(String),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        ("[a-d]{1,2}", "\\PC{0,8}").prop_map(|(k, v)| Op::Set(k, v)),
        "[a-d]{1,2}".prop_map(Op::Delete),
    ]
}

proptest! {
    /// Any sequence of writes over any stored data reads, lists and applies
    /// as the same writes to a plain map.
    #[test]
    fn writes_behave_as_on_a_map(
        start in prop::collection::btree_map("[a-d]{1,2}", "\\PC{0,8}", 0..6),
        ops in prop::collection::vec(arb_op(), 0..30),
    ) {
        let base: Data = start.clone().into_iter().collect();
        let mut model: BTreeMap<String, String> = start;
        let mut s = Stored::default();
        s.begin(&base);
        for op in ops {
            match op {
                Op::Set(k, v) => {
                    s.set(k.clone(), v.clone()).unwrap();
                    model.insert(k, v);
                }
                Op::Delete(k) => {
                    s.delete(k.clone()).unwrap();
                    model.remove(&k);
                }
            }
            prop_assert_eq!(s.keys(), model.keys().cloned().collect::<Vec<_>>());
            let expected: Data = model.clone().into_iter().collect();
            prop_assert_eq!((s.keys, s.bytes), (expected.len(), expected.bytes()));
        }
        for k in ["a", "b", "ab", "dd"] {
            prop_assert_eq!(s.get(k.into()), model.get(k).cloned());
        }
        let mut after = base.clone();
        after.apply(s.take());
        prop_assert_eq!(after, model.into_iter().collect::<Data>());
    }
}
