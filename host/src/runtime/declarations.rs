//! The handler declarations a component exports, as the cache stores them.
//! Pure: encoding and decoding, checked by a round-trip property test.

use crate::bindings::{EventKind, Handler, Observation, Priority};
use crate::event::{kind_from_name, kind_name};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Stored {
    name: String,
    priority: String,
    /// `kind` or `kind entity`.
    observes: Vec<String>,
}

fn priority_name(p: Priority) -> &'static str {
    match p {
        Priority::Critical => "critical",
        Priority::Normal => "normal",
        Priority::Low => "low",
    }
}

pub fn encode(handlers: &[Handler]) -> Vec<u8> {
    let stored: Vec<Stored> = handlers
        .iter()
        .map(|h| Stored {
            name: h.name.clone(),
            priority: priority_name(h.priority).to_string(),
            observes: h
                .observes
                .iter()
                .map(|o| match &o.entity {
                    Some(e) => format!("{} {e}", kind_name(o.kind)),
                    None => kind_name(o.kind).to_string(),
                })
                .collect(),
        })
        .collect();
    serde_json::to_vec(&stored).unwrap_or_default()
}

pub fn decode(bytes: &[u8]) -> Result<Vec<Handler>, String> {
    let stored: Vec<Stored> = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    stored
        .into_iter()
        .map(|s| {
            let priority = match s.priority.as_str() {
                "critical" => Priority::Critical,
                "normal" => Priority::Normal,
                "low" => Priority::Low,
                other => return Err(format!("unknown priority `{other}`")),
            };
            let observes = s
                .observes
                .iter()
                .map(|o| {
                    let (kind, entity) = match o.split_once(' ') {
                        Some((k, e)) => (k, Some(e.to_string())),
                        None => (o.as_str(), None),
                    };
                    let kind: EventKind = kind_from_name(kind)
                        .ok_or_else(|| format!("unknown event kind `{kind}`"))?;
                    Ok(Observation { kind, entity })
                })
                .collect::<Result<_, String>>()?;
            Ok(Handler {
                name: s.name,
                observes,
                priority,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ALL_KINDS;
    use proptest::prelude::*;

    fn arb_handler() -> impl Strategy<Value = Handler> {
        let obs = (
            0..ALL_KINDS.len(),
            proptest::option::of("[a-z][a-z0-9-]{0,10}"),
        )
            .prop_map(|(i, entity)| Observation {
                kind: ALL_KINDS[i].0,
                entity,
            });
        (
            "[a-z][a-z0-9-]{0,10}",
            prop::collection::vec(obs, 0..6),
            prop_oneof![
                Just(Priority::Critical),
                Just(Priority::Normal),
                Just(Priority::Low)
            ],
        )
            .prop_map(|(name, observes, priority)| Handler {
                name,
                observes,
                priority,
            })
    }

    proptest! {
        #[test]
        fn round_trip(handlers in prop::collection::vec(arb_handler(), 0..5)) {
            prop_assert_eq!(decode(&encode(&handlers)), Ok(handlers));
        }
    }

    #[test]
    fn rejects_unknown_names() {
        assert!(decode(br#"[{"name":"a","priority":"urgent","observes":[]}]"#).is_err());
        assert!(decode(br#"[{"name":"a","priority":"low","observes":["explode"]}]"#).is_err());
        assert!(decode(b"garbage").is_err());
    }
}
