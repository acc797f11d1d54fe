//! Pebble's notices (`GET /v1/notices`, `GET /v1/notices/<id>`): the
//! request targets and the parsing of a notice, pure and tested without a
//! socket.

use super::client::{self, Body, Client};
use super::{PebbleError, bounded_list, bounded_text, protocol, wit_error};
use crate::bindings::pebble::{Notice, NoticeFilter};
use serde_json::Value;

/// Most types, and most keys, a filter may name.
pub const MAX_FILTER: usize = 64;
/// Longest type or key a filter may name (Pebble's own key limit).
pub const MAX_KEY: usize = 256;
/// Longest notice id the charm may ask for (Pebble's ids are decimal).
pub const MAX_ID: usize = 64;

/// The `GET /v1/notices` target for `filter`: each type and key as its own
/// query parameter, which Pebble reads as a list.
pub fn notices_target(filter: &NoticeFilter) -> String {
    let query: Vec<String> = filter
        .types
        .iter()
        .map(|t| format!("types={}", client::query_value(t)))
        .chain(
            filter
                .keys
                .iter()
                .map(|k| format!("keys={}", client::query_value(k))),
        )
        .collect();
    if query.is_empty() {
        "/v1/notices".to_string()
    } else {
        format!("/v1/notices?{}", query.join("&"))
    }
}

/// One notice as Pebble writes it; `None` when a field it always gives is
/// missing or of the wrong kind.
pub fn parse_notice(v: &Value) -> Option<Notice> {
    let text = |name: &str| v.get(name)?.as_str().map(str::to_string);
    let duration = |name: &str| -> Option<Option<u64>> {
        match v.get(name) {
            None | Some(Value::Null) => Some(None),
            Some(d) => go_duration_ms(d.as_str()?).map(Some),
        }
    };
    let mut last_data: Vec<(String, String)> = match v.get("last-data") {
        None | Some(Value::Null) => Vec::new(),
        Some(data) => data
            .as_object()?
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect::<Option<_>>()?,
    };
    last_data.sort();
    Some(Notice {
        id: text("id")?,
        user_id: match v.get("user-id") {
            None | Some(Value::Null) => None,
            Some(id) => Some(u32::try_from(id.as_u64()?).ok()?),
        },
        type_: text("type")?,
        key: text("key")?,
        first_occurred: text("first-occurred")?,
        last_occurred: text("last-occurred")?,
        last_repeated: text("last-repeated")?,
        occurrences: u32::try_from(v.get("occurrences")?.as_u64()?).unwrap_or(u32::MAX),
        last_data,
        repeat_after_ms: duration("repeat-after")?,
        expire_after_ms: duration("expire-after")?,
    })
}

/// A Go duration as Go writes it (`1h0m0s`, `1.5s`, `300ms`, `0s`) in whole
/// milliseconds; `None` when it is not one or overflows.
pub fn go_duration_ms(text: &str) -> Option<u64> {
    if text == "0" {
        return Some(0);
    }
    let mut rest = text;
    let mut nanos: u128 = 0;
    if rest.is_empty() || rest.starts_with('-') {
        return None;
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(number_end);
        let unit_end = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_end);
        let per: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        nanos = nanos.checked_add(whole.checked_mul(per)?)?;
        // Digits past the nanosecond are dropped, as Go drops them.
        let mut scale = per;
        for digit in fraction.chars() {
            scale /= 10;
            nanos = nanos.checked_add(u128::from(digit.to_digit(10)?) * scale)?;
        }
        rest = tail;
    }
    u64::try_from(nanos / 1_000_000).ok()
}

/// Check a filter's counts and lengths.
fn check_filter(container: &str, filter: &NoticeFilter) -> Result<(), PebbleError> {
    bounded_list(
        container,
        "get-notices filter.types",
        &filter.types,
        MAX_FILTER,
        MAX_KEY,
    )?;
    bounded_list(
        container,
        "get-notices filter.keys",
        &filter.keys,
        MAX_FILTER,
        MAX_KEY,
    )
}

pub fn get_notices(
    client: &Client,
    container: &str,
    filter: &NoticeFilter,
) -> Result<Vec<Notice>, PebbleError> {
    check_filter(container, filter)?;
    let result = client
        .sync("GET", &notices_target(filter), Body::Empty)
        .map_err(|e| wit_error(container, e))?;
    result
        .as_array()
        .and_then(|notices| notices.iter().map(parse_notice).collect())
        .ok_or_else(|| protocol(container, "notices", &result))
}

pub fn get_notice(client: &Client, container: &str, id: &str) -> Result<Notice, PebbleError> {
    bounded_text(container, "get-notice id", id, MAX_ID)?;
    if id.is_empty() {
        return Err(PebbleError::Invalid(format!(
            "container {container}: get-notice id is empty"
        )));
    }
    let target = format!(
        "/v1/notices/{}",
        client::query_value(id).replace('/', "%2F")
    );
    let result = client
        .sync("GET", &target, Body::Empty)
        .map_err(|e| wit_error(container, e))?;
    parse_notice(&result).ok_or_else(|| protocol(container, "notice", &result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_durations() {
        assert_eq!(go_duration_ms("1h0m0s"), Some(3_600_000));
        assert_eq!(go_duration_ms("1.5s"), Some(1500));
        assert_eq!(go_duration_ms("300ms"), Some(300));
        assert_eq!(go_duration_ms("2m30.25s"), Some(150_250));
        assert_eq!(go_duration_ms("0s"), Some(0));
        assert_eq!(go_duration_ms("0"), Some(0));
        assert_eq!(go_duration_ms("1500µs"), Some(1));
        for bad in ["", "1", "-1s", "1x", "s", ".s", "1.2.3s"] {
            assert_eq!(go_duration_ms(bad), None, "{bad}");
        }
        assert_eq!(go_duration_ms(&format!("{}h", u64::MAX)), None);
    }

    #[test]
    fn targets_name_each_type_and_key() {
        let none = NoticeFilter {
            types: vec![],
            keys: vec![],
        };
        assert_eq!(notices_target(&none), "/v1/notices");
        let some = NoticeFilter {
            types: vec!["custom".into(), "warning".into()],
            keys: vec!["example.com/a b".into()],
        };
        assert_eq!(
            notices_target(&some),
            "/v1/notices?types=custom&types=warning&keys=example.com/a%20b"
        );
    }

    #[test]
    fn notices_parse_as_pebble_writes_them() {
        let full = json!({"id": "7", "user-id": 1000, "type": "custom",
            "key": "example.com/db", "first-occurred": "2026-07-01T10:00:00Z",
            "last-occurred": "2026-07-01T11:00:00Z", "last-repeated": "2026-07-01T10:30:00Z",
            "occurrences": 3, "last-data": {"b": "2", "a": "1"},
            "repeat-after": "1h0m0s", "expire-after": "168h0m0s"});
        let n = parse_notice(&full).unwrap();
        assert_eq!((n.id.as_str(), n.type_.as_str()), ("7", "custom"));
        assert_eq!(n.user_id, Some(1000));
        assert_eq!(n.occurrences, 3);
        assert_eq!(
            n.last_data,
            vec![("a".into(), "1".into()), ("b".into(), "2".into())]
        );
        assert_eq!(n.repeat_after_ms, Some(3_600_000));
        assert_eq!(n.expire_after_ms, Some(168 * 3_600_000));
        let public = json!({"id": "8", "user-id": null, "type": "warning", "key": "k",
            "first-occurred": "t", "last-occurred": "t", "last-repeated": "t",
            "occurrences": 1});
        let n = parse_notice(&public).unwrap();
        assert_eq!(
            (n.user_id, n.last_data.len(), n.repeat_after_ms),
            (None, 0, None)
        );
        let mut no_key = public.clone();
        no_key.as_object_mut().unwrap().remove("key");
        assert_eq!(parse_notice(&no_key), None);
        let mut bad_data = public.clone();
        bad_data["last-data"] = json!({"a": 1});
        assert_eq!(parse_notice(&bad_data), None);
        let mut bad_duration = public;
        bad_duration["repeat-after"] = json!("soon");
        assert_eq!(parse_notice(&bad_duration), None);
    }
}
