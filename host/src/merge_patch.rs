//! JSON merge patches (RFC 7386): how a scenario step and the harness edit
//! a section of a state without wiping the rest of it, and how a recording
//! keeps a store as the changes from the one before. Pure.

use serde_json::{Map, Value};

/// `doc` with `patch` applied: maps key by key, `null` removing its key,
/// anything else replacing (a map patching a non-map starts from `{}`).
pub fn apply(doc: &mut Value, patch: &Value) {
    let Value::Object(changes) = patch else {
        *doc = patch.clone();
        return;
    };
    if !doc.is_object() {
        *doc = Value::Object(Map::new());
    }
    if let Value::Object(map) = doc {
        for (k, v) in changes {
            if v.is_null() {
                map.remove(k);
            } else {
                apply(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The patch that makes `from` into `to`. Exact when `to` holds no `null`
/// inside a map (a patch cannot set one).
pub fn diff(from: &Value, to: &Value) -> Value {
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            let mut patch = Map::new();
            for (k, v) in b {
                match a.get(k) {
                    Some(old) if old == v => {}
                    Some(old @ Value::Object(_)) if v.is_object() => {
                        patch.insert(k.clone(), diff(old, v));
                    }
                    _ => {
                        patch.insert(k.clone(), v.clone());
                    }
                }
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                patch.insert(k.clone(), Value::Null);
            }
            Value::Object(patch)
        }
        _ => to.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn a_patch_makes_one_document_the_other() {
        let a = json!({"unit": {"x": {"current": {"status": "blocked"}}, "y": {}}, "clock": 1});
        let b = json!({"unit": {"x": {"current": null}, "z": {"h": [1]}}, "clock": 2});
        let p = diff(&a, &b);
        let mut c = a.clone();
        apply(&mut c, &p);
        // `null` removes: a cleared `current` is read back as absent.
        assert_eq!(c, json!({"unit": {"x": {}, "z": {"h": [1]}}, "clock": 2}));
        assert_eq!(diff(&a, &a), json!({}));
    }

    /// RFC 7386's appendix A, one table for this and the harness's copy
    /// (`testing/src/state.rs`).
    #[test]
    fn rfc_7386_examples() {
        let examples: Vec<Value> = serde_json::from_str(include_str!(
            "../../tests/merge-patch/rfc7386-examples.json"
        ))
        .expect("the examples are JSON");
        assert_eq!(examples.len(), 11);
        for e in examples {
            let mut doc = e["doc"].clone();
            apply(&mut doc, &e["patch"]);
            assert_eq!(doc, e["result"], "{e}");
        }
    }

    /// JSON without `null` inside maps, a few levels deep.
    fn doc() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            any::<bool>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            "[a-c]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                prop::collection::btree_map("[a-d]", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_diff_applied_gives_the_target(a in doc(), b in doc()) {
            let mut c = a.clone();
            apply(&mut c, &diff(&a, &b));
            prop_assert_eq!(c, b);
        }
    }
}
