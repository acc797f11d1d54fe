//! Recording a unit's events for `wasm-charm replay` (DESIGN §3: the event
//! pipeline, seen from outside).
//!
//! In Juju mode, when wasm-charm.yaml's `record:` asks or the variable
//! [`RECORD_VAR`] is set, the host keeps, per event, everything the event
//! read from outside the component and what it did: the `JUJU_*`
//! environment, the store as loaded, every hook-tool call with its answer,
//! every probe result and workload call with its result, and the outcome.
//! One JSON document a line in [`FILE_NAME`] under the host's directory of
//! the charm, the newest last, bounded by [`Bounds`] (the oldest dropped).
//!
//! The file holds hook-tool answers as they were, so it may hold secret
//! content (`secret-get`, config, relation data): it is written with mode
//! 0600, like the store. Recording never changes an event's outcome: a
//! recording that cannot be written is a warning in the unit's log.
//!
//! * [`format`]: the document of one event, and the bounding of the file
//!   (pure).
//! * [`recorder`]: the decorators that see an event's calls, and the file.

pub mod format;
pub mod recorder;

pub use format::{FORMAT, Recorded};
pub use recorder::Recorder;

use serde_json::Value;
use std::ffi::OsStr;

/// The variable that turns recording on in Juju mode: `1` or `on` (the
/// manifest's bounds, or the defaults), a number of events to keep from 2
/// up, or `0` / `off` (none, whatever the manifest says).
pub const RECORD_VAR: &str = "WASM_CHARM_RECORD";
/// The recording, in the host's directory of the charm (`.wasm-charm/`).
pub const FILE_NAME: &str = "recording.jsonl";

/// How much of the recording is kept: the newest `events`, at most `bytes`
/// in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Whether this event is recorded, and within what: the manifest's choice,
/// unless [`RECORD_VAR`] says otherwise. `Err` says why the variable is not
/// understood (nothing is recorded then).
pub fn settings(manifest: Option<Bounds>, var: Option<&OsStr>) -> Result<Option<Bounds>, String> {
    let Some(var) = var else {
        return Ok(manifest);
    };
    let text = var.to_string_lossy();
    match text.trim() {
        "" => Ok(manifest),
        "off" | "false" | "no" | "0" => Ok(None),
        "1" | "on" | "true" | "yes" => Ok(Some(manifest.unwrap_or_default())),
        count => match count.parse::<u64>() {
            Ok(n) if n >= 2 && EVENTS.contains(&n) => Ok(Some(Bounds {
                events: n as usize,
                ..manifest.unwrap_or_default()
            })),
            _ => Err(format!(
                "{RECORD_VAR}={text:?} is not 1/on, 0/off or a number of events from 2 to {}; \
                 nothing is recorded",
                EVENTS.end()
            )),
        },
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

    #[test]
    fn the_variable_overrides_the_manifest() {
        let manifest = Some(Bounds {
            events: 7,
            bytes: 9000,
        });
        let var = |v: &str| settings(manifest, Some(OsStr::new(v)));
        assert_eq!(settings(manifest, None), Ok(manifest));
        assert_eq!(settings(None, None), Ok(None));
        assert_eq!(var("off"), Ok(None));
        assert_eq!(var("0"), Ok(None));
        assert_eq!(var("on"), Ok(manifest));
        assert_eq!(var("1"), Ok(manifest));
        assert_eq!(
            settings(None, Some(OsStr::new("on"))),
            Ok(Some(Bounds::default()))
        );
        assert_eq!(
            var("3"),
            Ok(Some(Bounds {
                events: 3,
                bytes: 9000
            }))
        );
        let e = var("lots").unwrap_err();
        assert!(e.starts_with("WASM_CHARM_RECORD=\"lots\""), "{e}");
        assert!(var("1001").is_err());
    }
}
