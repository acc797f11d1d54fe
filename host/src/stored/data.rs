//! The data section of the scope store: the charm's own keys and values, and
//! the changes one handler makes to them. Pure: the store file, the offline
//! state and the handlers all see the same [`Data`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The charm's own data, key to value. A handler reads it through a shared
/// reference ([`Arc`]), so starting a handler copies nothing, whatever the
/// data's size; applying a handler's [`Changes`] copies it only if something
/// still holds that reference.
///
/// Decoding checks no bound: data an older host or an operator stored is
/// read as it is, so that no stored value can fail every later hook; the
/// bounds hold for every write ([`super::Stored`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Data(Arc<BTreeMap<String, String>>);

impl Data {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Every key and value, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// What the bound on the total counts: the bytes of every key and value.
    pub fn bytes(&self) -> usize {
        self.0.iter().map(|(k, v)| entry_bytes(k, v)).sum()
    }

    /// Apply one handler's changes.
    pub fn apply(&mut self, changes: Changes) {
        if changes.0.is_empty() {
            return;
        }
        let map = Arc::make_mut(&mut self.0);
        for (key, value) in changes.0 {
            match value {
                Some(value) => map.insert(key, value),
                None => map.remove(&key),
            };
        }
    }
}

impl FromIterator<(String, String)> for Data {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Data(Arc::new(iter.into_iter().collect()))
    }
}

/// What one entry counts towards the total.
pub fn entry_bytes(key: &str, value: &str) -> usize {
    key.len() + value.len()
}

/// The document holds the map itself: `"data": {"key": "value"}`.
impl Serialize for Data {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Data {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(deserializer).map(|map| Data(Arc::new(map)))
    }
}

/// One handler's changes, not yet applied: per key, the new value, or `None`
/// to remove it. One entry per key, however often the handler wrote it, so
/// the changes are bounded by the keys the data may hold.
/// In the store's journal, the map itself: `{"key": "value", "gone": null}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Changes(pub(super) BTreeMap<String, Option<String>>);

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The changes that make `after` of `before`: each key whose value
    /// differs, with its new value, or `None` for one removed.
    pub fn between(before: &Data, after: &Data) -> Changes {
        if Arc::ptr_eq(&before.0, &after.0) {
            return Changes::default();
        }
        let mut changes = BTreeMap::new();
        for (key, value) in after.0.iter() {
            if before.0.get(key) != Some(value) {
                changes.insert(key.clone(), Some(value.clone()));
            }
        }
        for key in before.0.keys() {
            if !after.0.contains_key(key) {
                changes.insert(key.clone(), None);
            }
        }
        Changes(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(items: &[(&str, Option<&str>)]) -> Changes {
        Changes(
            items
                .iter()
                .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                .collect(),
        )
    }

    #[test]
    fn applying_changes_sets_and_removes() {
        let mut data: Data = [("a".to_string(), "1".to_string())].into_iter().collect();
        data.apply(changes(&[("a", None), ("b", Some("2")), ("c", None)]));
        assert_eq!(data.iter().collect::<Vec<_>>(), [("b", "2")]);
        assert_eq!(data.bytes(), 2);
    }

    #[test]
    fn applying_copies_only_data_still_shared() {
        let mut data: Data = [("a".to_string(), "1".to_string())].into_iter().collect();
        let before = Arc::as_ptr(&data.0);
        data.apply(changes(&[("b", Some("2"))]));
        assert_eq!(Arc::as_ptr(&data.0), before, "not shared: changed in place");
        let reader = data.clone();
        data.apply(changes(&[("c", Some("3"))]));
        assert_ne!(Arc::as_ptr(&data.0), before, "shared: copied");
        assert_eq!(reader.len(), 2, "what the reader holds does not change");
        assert_eq!(data.len(), 3);
    }

    #[test]
    fn the_changes_between_two_data_make_one_of_the_other() {
        let before: Data = [("a", "1"), ("b", "2"), ("c", "3")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let after: Data = [("a", "1"), ("b", "20"), ("d", "4")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let between = Changes::between(&before, &after);
        assert_eq!(
            between,
            changes(&[("b", Some("20")), ("c", None), ("d", Some("4"))])
        );
        let mut made = before.clone();
        made.apply(between);
        assert_eq!(made, after);
        assert!(Changes::between(&after, &after.clone()).is_empty());
    }

    #[test]
    fn the_document_holds_the_map() {
        let data: Data = [("k".to_string(), "v\0\u{2028}".to_string())]
            .into_iter()
            .collect();
        let json = serde_json::to_string(&data).unwrap();
        assert_eq!(json, "{\"k\":\"v\\u0000\u{2028}\"}");
        assert_eq!(serde_json::from_str::<Data>(&json).unwrap(), data);
    }
}
