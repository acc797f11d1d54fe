//! `GET /v1/notices` and `GET /v1/notices/<id>`: the notices the state
//! file scripts (the process mode starts with none), filtered by type and
//! key as Pebble filters them; `POST /v1/notices`: a custom notice added
//! or repeated, as Pebble's `pebble notify` adds it, in both modes.

use super::api::Sim;
use super::reply::{Reply, Request, bad, error, json_body, sync};
use super::state::SimNotice;
use serde_json::{Value, json};
use std::collections::BTreeMap;

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

/// Pebble's longest custom notice key, and most bytes of its data.
const MAX_KEY: usize = 256;
const MAX_DATA: usize = 4 * 1024;
/// How long Pebble keeps a notice.
const EXPIRE_AFTER: &str = "168h0m0s";

/// One part of a custom key: letters and digits, single `-` between.
fn key_word(word: &str) -> bool {
    !word.is_empty()
        && word.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Whether `key` is in Pebble's `example.com/path` form.
pub fn custom_key(key: &str) -> bool {
    let Some((domain, path)) = key.split_once('/') else {
        return false;
    };
    domain.split('.').count() >= 2
        && domain.split('.').all(key_word)
        && path.split('/').all(key_word)
}

/// Milliseconds as Go writes a duration (`1h0m0s`, `1m30s`, `1.5s`,
/// `500ms`, `0s`).
pub fn go_duration_text(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let (h, m) = (ms / 3_600_000, ms / 60_000 % 60);
    let seconds = match ms % 60_000 {
        s if s % 1000 == 0 => format!("{}", s / 1000),
        s => format!("{}.{:03}", s / 1000, s % 1000)
            .trim_end_matches('0')
            .to_string(),
    };
    match (h, m) {
        (0, 0) => format!("{seconds}s"),
        (0, m) => format!("{m}m{seconds}s"),
        (h, m) => format!("{h}h{m}m{seconds}s"),
    }
}

/// A custom notice asked for: its key, data, and repeat-after (ms).
type Asked = (String, BTreeMap<String, String>, Option<u64>);

/// The notice a `POST /v1/notices` body asks for, or Pebble's refusal.
fn custom_notice(body: &Value) -> Result<Asked, String> {
    let field = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
    if field("action") != "add" {
        return Err(format!("invalid action {:?}", field("action")));
    }
    if field("type") != "custom" {
        return Err(format!(
            "invalid type {:?} (can only add \"custom\" notices)",
            field("type")
        ));
    }
    let key = field("key");
    if !custom_key(key) {
        return Err(format!(
            "invalid key {key:?} (must be in \"example.com/path\" format)"
        ));
    }
    if key.len() > MAX_KEY {
        return Err(format!("key must be {MAX_KEY} bytes or less"));
    }
    let repeat = match field("repeat-after") {
        "" => None,
        d => Some(
            crate::pebble::notices::go_duration_ms(d)
                .ok_or_else(|| format!("invalid repeat-after: time: invalid duration {d:?}"))?,
        ),
    };
    let data = match body.get("data") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(d) if d.to_string().len() > MAX_DATA => {
            return Err(format!(
                "total size of data must be {MAX_DATA} bytes or less"
            ));
        }
        Some(d) => serde_json::from_value(d.clone())
            .map_err(|e| format!("cannot decode notice data: {e}"))?,
    };
    Ok((key.to_string(), data, repeat))
}

impl Sim {
    pub(super) fn post_notice(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let key = body.get("key").and_then(Value::as_str).unwrap_or_default();
        self.calls.push(format!("notify {key}"));
        let (key, data, repeat) = match custom_notice(&body) {
            Ok(n) => n,
            Err(e) => return bad(e),
        };
        let now = self.time();
        let repeat_text = repeat.map(go_duration_text);
        let found = self
            .notices
            .iter()
            .position(|n| n.type_ == "custom" && n.key == key);
        let index = match found {
            Some(i) => {
                let n = &mut self.notices[i];
                n.occurrences = Some(n.occurrences.unwrap_or(1).saturating_add(1));
                // Without repeat-after each occurrence repeats the notice;
                // with it, the simulator's time does not run on: no repeat.
                if repeat.unwrap_or(0) == 0 {
                    n.last_repeated = Some(now.clone());
                }
                i
            }
            None => {
                let next = self
                    .notices
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| id_of(n, i).parse::<u64>().ok())
                    .max()
                    .unwrap_or(0)
                    + 1;
                self.notices.push(SimNotice {
                    id: Some(next.to_string()),
                    type_: "custom".into(),
                    key,
                    first_occurred: Some(now.clone()),
                    last_repeated: Some(now.clone()),
                    expire_after: Some(EXPIRE_AFTER.into()),
                    ..SimNotice::default()
                });
                self.notices.len() - 1
            }
        };
        let n = &mut self.notices[index];
        n.last_occurred = Some(now);
        n.last_data = data;
        n.repeat_after = repeat_text;
        let id = id_of(n, index);
        sync(json!({ "id": id }))
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

    #[test]
    fn custom_keys_and_durations_as_pebble_writes_them() {
        for good in ["example.com/a", "a-b.c9/x/y-z", "x.y/1"] {
            assert!(custom_key(good), "{good}");
        }
        for bad in [
            "example/a",
            "example.com",
            "Example.com/a",
            "a..b/c",
            "a.b/-c",
            "a.b/c/",
        ] {
            assert!(!custom_key(bad), "{bad}");
        }
        assert_eq!(go_duration_text(3_600_000), "1h0m0s");
        assert_eq!(go_duration_text(90_000), "1m30s");
        assert_eq!(go_duration_text(1_500), "1.5s");
        assert_eq!(go_duration_text(500), "500ms");
    }

    #[test]
    fn a_custom_notice_is_added_then_repeated() {
        let mut sim = Sim::empty();
        let post = |sim: &mut Sim, body: Value| {
            let req = Request {
                method: "POST".into(),
                path: "/v1/notices".into(),
                query: Vec::new(),
                content_type: Some("application/json".into()),
                body: body.to_string().into_bytes(),
            };
            match sim.route(&req) {
                Reply::Body { status, .. } => status,
                _ => 0,
            }
        };
        let add = json!({"action": "add", "type": "custom", "key": "example.com/a",
            "data": {"k": "v"}, "repeat-after": "60m"});
        assert_eq!(post(&mut sim, add.clone()), 200);
        assert_eq!(post(&mut sim, add), 200);
        assert_eq!(sim.notices.len(), 1);
        let n = &sim.notices[0];
        assert_eq!((n.id.as_deref(), n.occurrences), (Some("1"), Some(2)));
        assert_eq!(n.repeat_after.as_deref(), Some("1h0m0s"));
        assert_eq!(n.last_data["k"], "v");
        let warning = json!({"action": "add", "type": "warning", "key": "example.com/a"});
        assert_eq!(post(&mut sim, warning), 400);
        let bad_key = json!({"action": "add", "type": "custom", "key": "a"});
        assert_eq!(post(&mut sim, bad_key), 400);
    }
}
