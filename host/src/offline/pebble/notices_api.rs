//! `GET /v1/notices` and `GET /v1/notices/<id>`: the notices the state
//! file scripts (the process mode has none), filtered by type and key as
//! Pebble filters them.

use super::api::Sim;
use super::reply::{Reply, Request, error, sync};
use super::state::SimNotice;
use serde_json::{Value, json};

/// The id of the notice at `index`: its own, else its position from 1.
fn id_of(notice: &SimNotice, index: usize) -> String {
    notice.id.clone().unwrap_or_else(|| (index + 1).to_string())
}

/// Whether `notice` passes the filter: any of `types` (none: all), any of
/// `keys` (none: all).
pub fn selected(notice: &SimNotice, types: &[String], keys: &[String]) -> bool {
    (types.is_empty() || types.contains(&notice.type_))
        && (keys.is_empty() || keys.contains(&notice.key))
}

/// A notice as Pebble writes it, `now` for the times not scripted.
pub fn notice_json(notice: &SimNotice, id: &str, now: &str) -> Value {
    let time = |t: &Option<String>| t.clone().unwrap_or_else(|| now.to_string());
    let mut doc = json!({"id": id, "user-id": null, "type": notice.type_, "key": notice.key,
        "first-occurred": time(&notice.first_occurred),
        "last-occurred": time(&notice.last_occurred),
        "last-repeated": time(&notice.last_repeated),
        "occurrences": notice.occurrences.unwrap_or(1)});
    if !notice.last_data.is_empty() {
        doc["last-data"] = json!(notice.last_data);
    }
    if let Some(d) = &notice.repeat_after {
        doc["repeat-after"] = json!(d);
    }
    if let Some(d) = &notice.expire_after {
        doc["expire-after"] = json!(d);
    }
    doc
}

impl Sim {
    pub(super) fn get_notices(&mut self, req: &Request) -> Reply {
        let types = req.list("types");
        let keys = req.list("keys");
        self.calls.push("get-notices".into());
        let now = self.time();
        let list: Vec<Value> = self
            .notices
            .iter()
            .enumerate()
            .filter(|(_, n)| selected(n, &types, &keys))
            .map(|(i, n)| notice_json(n, &id_of(n, i), &now))
            .collect();
        sync(Value::Array(list))
    }

    pub(super) fn get_notice(&mut self, id: &str) -> Reply {
        self.calls.push(format!("get-notice {id}"));
        let now = self.time();
        match self
            .notices
            .iter()
            .enumerate()
            .find(|(i, n)| id_of(n, *i) == id)
        {
            Some((_, n)) => sync(notice_json(n, id, &now)),
            None => error(
                404,
                "not-found",
                &format!("cannot find notice with ID {id:?}"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(type_: &str, key: &str) -> SimNotice {
        SimNotice {
            type_: type_.into(),
            key: key.into(),
            ..SimNotice::default()
        }
    }

    #[test]
    fn filters_by_any_type_and_any_key() {
        let n = notice("custom", "example.com/a");
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(selected(&n, &[], &[]));
        assert!(selected(&n, &s(&["warning", "custom"]), &[]));
        assert!(!selected(&n, &s(&["warning"]), &[]));
        assert!(selected(&n, &s(&["custom"]), &s(&["example.com/a"])));
        assert!(!selected(&n, &[], &s(&["example.com/b"])));
    }

    #[test]
    fn a_notice_has_pebbles_fields() {
        let mut n = notice("custom", "k");
        n.last_data.insert("a".into(), "b".into());
        n.repeat_after = Some("1h0m0s".into());
        let doc = notice_json(&n, "3", "2026-01-01T00:00:00Z");
        assert_eq!(doc["id"], "3");
        assert_eq!(doc["user-id"], Value::Null);
        assert_eq!(doc["occurrences"], 1);
        assert_eq!(doc["last-data"]["a"], "b");
        assert_eq!(doc["repeat-after"], "1h0m0s");
        assert!(doc.get("expire-after").is_none());
        assert_eq!(doc["last-repeated"], "2026-01-01T00:00:00Z");
    }
}
