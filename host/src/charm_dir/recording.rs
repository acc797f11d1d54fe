//! wasm-charm.yaml's `record:`: whether a unit's events are recorded for
//! `wasm-charm replay`, and how much of the recording is kept. Part of the
//! manifest, so read with it; `crate::record` keeps the recording within
//! these bounds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much of the recording is kept: the newest `events`, at most `bytes`
/// in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    pub events: usize,
    pub bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            events: 20,
            bytes: 2 << 20,
        }
    }
}

/// What `record.events` may be.
pub const EVENTS: std::ops::RangeInclusive<u64> = 1..=1000;
/// What `record.bytes` may be: room for one event, and not the disk.
pub const BYTES: std::ops::RangeInclusive<u64> = 4096..=(64 << 20);

/// wasm-charm.yaml's `record:`: `true` (the default bounds), `false`, or
/// `{events: N, bytes: N}`. `Err` names the field.
pub fn parse_bounds(value: &Value) -> Result<Option<Bounds>, String> {
    let number = |field: &str, range: &std::ops::RangeInclusive<u64>, v: &Value| {
        v.as_u64().filter(|n| range.contains(n)).ok_or_else(|| {
            format!("field `record.{field}`: {v} is not a whole number in {range:?}")
        })
    };
    match value {
        Value::Bool(false) | Value::Null => Ok(None),
        Value::Bool(true) => Ok(Some(Bounds::default())),
        Value::Object(fields) => {
            let mut bounds = Bounds::default();
            for (field, v) in fields {
                match field.as_str() {
                    "events" => bounds.events = number(field, &EVENTS, v)? as usize,
                    "bytes" => bounds.bytes = number(field, &BYTES, v)? as usize,
                    other => {
                        return Err(format!(
                            "field `record.{other}`: unknown; `record` takes `events` and `bytes`"
                        ));
                    }
                }
            }
            Ok(Some(bounds))
        }
        other => Err(format!(
            "field `record`: {other} is not true, false or {{events: N, bytes: N}}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_manifest_field_is_a_switch_or_bounds() {
        assert_eq!(parse_bounds(&json!(false)), Ok(None));
        assert_eq!(parse_bounds(&json!(true)), Ok(Some(Bounds::default())));
        assert_eq!(
            parse_bounds(&json!({"events": 3})),
            Ok(Some(Bounds {
                events: 3,
                ..Bounds::default()
            }))
        );
        assert_eq!(
            parse_bounds(&json!({"events": 5, "bytes": 8192})),
            Ok(Some(Bounds {
                events: 5,
                bytes: 8192
            }))
        );
        let e = parse_bounds(&json!({"events": 0})).unwrap_err();
        assert!(e.starts_with("field `record.events`: 0"), "{e}");
        let e = parse_bounds(&json!({"bytes": 10})).unwrap_err();
        assert!(e.starts_with("field `record.bytes`: 10"), "{e}");
        let e = parse_bounds(&json!({"event": 2})).unwrap_err();
        assert!(e.starts_with("field `record.event`: unknown"), "{e}");
        let e = parse_bounds(&json!("yes")).unwrap_err();
        assert!(e.starts_with("field `record`: "), "{e}");
    }
}
