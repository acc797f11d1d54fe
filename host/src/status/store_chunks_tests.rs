use super::*;
use proptest::prelude::*;

/// A document of `len` bytes or a few less, mixing one- to four-byte
/// characters so that cuts fall inside characters.
fn doc_of(len: usize, seed: u32) -> String {
    let alphabet = ['a', '"', 'é', '€', '😀', '\u{85}', '{', '\\'];
    let mut out = String::with_capacity(len);
    let mut i = seed as usize;
    loop {
        let c = alphabet[i % alphabet.len()];
        if out.len() + c.len_utf8() > len {
            return out;
        }
        out.push(c);
        i = i.wrapping_mul(31).wrapping_add(7);
    }
}

fn keys_of(map: &BTreeMap<String, String>) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

#[test]
fn a_small_document_is_one_chunk_and_a_header() {
    let state = split("{\"format\":1}");
    assert_eq!(keys_of(&state), ["wasm-charm.store", "wasm-charm.store.0"]);
    assert_eq!(state["wasm-charm.store.0"], "{\"format\":1}");
    let header: serde_json::Value = serde_json::from_str(&state[HEADER_KEY]).unwrap();
    assert_eq!(header["layout"], 1);
    assert_eq!(header["chunks"], 1);
    assert_eq!(header["bytes"], 12);
    assert_eq!(join(&state).unwrap().as_deref(), Some("{\"format\":1}"));
}

#[test]
fn chunks_are_cut_at_the_value_bound_on_character_boundaries() {
    // Exactly one value's worth: one chunk; one byte more: two.
    let exact = "x".repeat(MAX_VALUE);
    assert_eq!(split(&exact).len(), 2);
    let over = "x".repeat(MAX_VALUE + 1);
    let state = split(&over);
    assert_eq!(state.len(), 3);
    assert_eq!(state["wasm-charm.store.0"].len(), MAX_VALUE);
    assert_eq!(state["wasm-charm.store.1"], "x");
    // A four-byte character straddling the bound moves whole to the next.
    let straddling = format!("{}😀", "x".repeat(MAX_VALUE - 2));
    let state = split(&straddling);
    assert_eq!(state["wasm-charm.store.0"].len(), MAX_VALUE - 2);
    assert_eq!(state["wasm-charm.store.1"], "😀");
    assert_eq!(join(&state).unwrap().as_deref(), Some(straddling.as_str()));
}

#[test]
fn an_empty_state_holds_no_store_and_other_keys_are_ignored() {
    assert_eq!(join(&BTreeMap::new()), Ok(None));
    let mut state: BTreeMap<String, String> = [("#notices#".to_string(), "[]".to_string())].into();
    assert_eq!(join(&state), Ok(None));
    // A key that only shares the prefix's letters is not the store's.
    state.insert("wasm-charm.stored".into(), "x".into());
    assert_eq!(join(&state), Ok(None));
    state.extend(split("doc"));
    assert_eq!(join(&state).unwrap().as_deref(), Some("doc"));
}

#[test]
fn chunks_without_their_header_are_a_torn_write() {
    let mut state = split("doc");
    state.remove(HEADER_KEY);
    let e = join(&state).unwrap_err();
    assert_eq!(
        e.to_string(),
        "keys `wasm-charm.store.0` hold parts of a scope store but its header `wasm-charm.store` is missing (a torn write)"
    );
}

#[test]
fn a_bad_or_newer_header_is_named() {
    let mut state = split("doc");
    state.insert(HEADER_KEY.into(), "not json".into());
    assert!(matches!(join(&state), Err(LayoutError::BadHeader { .. })));
    state.insert(
        HEADER_KEY.into(),
        r#"{"layout":2,"chunks":1,"bytes":3,"sha256":"x","generation":4}"#.into(),
    );
    let e = join(&state).unwrap_err();
    assert_eq!(e, LayoutError::Newer { found: 2 });
    assert!(e.to_string().contains("upgrade the host"), "{e}");
    state.insert(HEADER_KEY.into(), r#"{"layout":0}"#.into());
    assert!(matches!(join(&state), Err(LayoutError::BadHeader { .. })));
}

#[test]
fn a_non_canonical_chunk_key_is_extra() {
    let mut state = split("doc");
    state.insert("wasm-charm.store.00".into(), "doc".into());
    assert_eq!(
        join(&state),
        Err(LayoutError::Extra {
            key: "wasm-charm.store.00".into(),
            chunks: 1
        })
    );
    let mut state = split("doc");
    state.insert("wasm-charm.store.x".into(), "".into());
    assert!(matches!(join(&state), Err(LayoutError::Extra { .. })));
}

#[test]
fn juju_counts_the_bson_size_of_the_whole_map() {
    // The figures of Juju's own BSON checker test: {"a long key": "bar",
    // "key": "val"} is 5 + (10+3+7) + (3+3+7) = 38 bytes.
    let map: BTreeMap<String, String> = [
        ("a long key".to_string(), "bar".to_string()),
        ("key".to_string(), "val".to_string()),
    ]
    .into();
    assert_eq!(juju_size(&map), 38);
    assert_eq!(juju_size(&BTreeMap::new()), 5);
}

#[test]
fn a_plan_writes_what_changed_deletes_what_is_left_and_keeps_other_keys() {
    let old_doc = doc_of(3 * MAX_VALUE, 1);
    let mut current = split(&old_doc);
    current.insert("#notices#".into(), "[]".into());

    // Unchanged: nothing to write.
    let p = plan(&current, &old_doc).unwrap();
    assert!(p.set.is_empty() && p.delete.is_empty(), "{p:?}");
    assert_eq!(p.size, juju_size(&current));

    // Shorter, with the same first chunk: the header and the new last chunk
    // are written, the chunks past it deleted.
    let old_chunks = split(&old_doc).len() - 1;
    assert!(old_chunks >= 3, "{old_chunks}");
    let new_doc = old_doc[..old_doc.floor_char_boundary(MAX_VALUE + 10)].to_string();
    let p = plan(&current, &new_doc).unwrap();
    assert_eq!(keys_of(&p.set), ["wasm-charm.store", "wasm-charm.store.1"]);
    assert_eq!(p.delete, (2..old_chunks).map(chunk_key).collect::<Vec<_>>());
    assert_eq!(p.keys, 3);
    // Applied, the state holds the new document and the other key.
    let mut after = current.clone();
    after.extend(p.set);
    for k in &p.delete {
        after.remove(k);
    }
    assert_eq!(join(&after).unwrap(), Some(new_doc));
    assert_eq!(after["#notices#"], "[]");
    assert_eq!(p.size, juju_size(&after));
}

#[test]
fn a_document_past_the_unit_quota_is_refused_naming_sizes_and_limit() {
    // The largest document that fits: the quota less the header and the
    // per-key overhead of its 32 chunks.
    let fits = |len: usize| plan(&BTreeMap::new(), &"x".repeat(len)).is_ok();
    let mut low = 0;
    let mut high = MAX_UNIT_STATE;
    while low + 1 < high {
        let mid = (low + high) / 2;
        if fits(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    let largest = low;
    assert!(largest > MAX_UNIT_STATE - 2048, "{largest}");
    let p = plan(&BTreeMap::new(), &"x".repeat(largest)).unwrap();
    assert!(
        p.size <= MAX_UNIT_STATE && p.size > MAX_UNIT_STATE - 16,
        "{}",
        p.size
    );
    let too_large = "x".repeat(largest + 1);
    let e = plan(&BTreeMap::new(), &too_large).unwrap_err();
    assert_eq!(e.size, p.size + 1);
    let keys = split(&too_large).len();
    let text = e.to_string();
    for part in [
        format!("would take {} bytes", e.size),
        "over the 2097152 Juju allows per unit".into(),
        "max-charm-state-size".into(),
        format!("the document is {} bytes in {keys} keys.", largest + 1),
        "Nothing was saved".into(),
        "`store: local`".into(),
    ] {
        assert!(text.contains(&part), "{part:?} in {text}");
    }

    // Other keys count: the same document no longer fits beside them.
    let others: BTreeMap<String, String> = [("#notices#".to_string(), "y".repeat(1000))].into();
    let e = plan(&others, &"x".repeat(largest)).unwrap_err();
    assert!(
        e.to_string()
            .contains(", and 1 other keys take 1016 bytes."),
        "{e}"
    );
}

proptest! {
    // Documents of up to 2 MiB: fewer cases keep the suite quick.
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any document under the quota comes back whole, in values Juju takes.
    #[test]
    fn round_trip(len in 0usize..(MAX_UNIT_STATE - 4096), seed in any::<u32>()) {
        let doc = doc_of(len, seed);
        let p = plan(&BTreeMap::new(), &doc).unwrap();
        prop_assert!(p.size <= MAX_UNIT_STATE);
        for (k, v) in &p.set {
            prop_assert!(k.len() <= 256 && v.len() <= MAX_VALUE, "{k}: {}", v.len());
        }
        prop_assert_eq!(join(&p.set).unwrap(), Some(doc));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A chunk taken away is named as missing.
    #[test]
    fn a_missing_chunk_is_detected(len in 1usize..(6 * MAX_VALUE), seed in any::<u32>(), pick in any::<usize>()) {
        let mut state = split(&doc_of(len, seed));
        let chunks = state.len() - 1;
        let key = chunk_key(pick % chunks);
        state.remove(&key);
        prop_assert_eq!(join(&state), Err(LayoutError::Missing { key, chunks }));
    }

    /// A chunk beyond the header's count is named as extra.
    #[test]
    fn an_extra_chunk_is_detected(len in 1usize..(6 * MAX_VALUE), seed in any::<u32>(), beyond in 0usize..4) {
        let mut state = split(&doc_of(len, seed));
        let chunks = state.len() - 1;
        let key = chunk_key(chunks + beyond);
        state.insert(key.clone(), "x".into());
        prop_assert_eq!(join(&state), Err(LayoutError::Extra { key, chunks }));
    }

    /// A chunk from another write (the same key of a different document)
    /// makes the set a mismatch, never a wrong document.
    #[test]
    fn a_mixed_set_is_detected(
        len in 1usize..(6 * MAX_VALUE),
        seeds in (any::<u32>(), any::<u32>()),
        grow in 0usize..64,
        pick in any::<usize>(),
    ) {
        let (a, b) = (doc_of(len, seeds.0), doc_of(len + grow, seeds.1));
        let mut state = split(&a);
        let other = split(&b);
        let key = chunk_key(pick % (state.len() - 1));
        let Some(foreign) = other.get(&key) else { return Ok(()) };
        prop_assume!(state[&key] != *foreign);
        state.insert(key, foreign.clone());
        let mixed = matches!(join(&state), Err(LayoutError::Mismatch { .. }));
        prop_assert!(mixed);
    }
}
