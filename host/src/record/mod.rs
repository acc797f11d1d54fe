//! Recording a unit's events for `wasm-charm replay` (DESIGN §3: the event
//! pipeline, seen from outside).
//!
//! In Juju mode, when wasm-charm.yaml's `record:` asks or the variable
//! [`RECORD_VAR`] is set, the host keeps, per event, everything the event
//! read from outside the component and what it did: the `JUJU_*`
//! environment, the store as loaded, every hook-tool call with its answer,
//! every probe result and workload call with its result, and the outcome.
//! One JSON document a line in [`FILE_NAME`] under the host's directory of
//! the charm, the newest last, bounded by the manifest's
//! [`Bounds`] (the oldest dropped).
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

use crate::charm_dir::recording::{Bounds, EVENTS};
use std::ffi::OsStr;

/// The variable that turns recording on in Juju mode: `1` or `on` (the
/// manifest's bounds, or the defaults), a number of events to keep from 2
/// up, or `0` / `off` (none, whatever the manifest says).
pub const RECORD_VAR: &str = "WASM_CHARM_RECORD";
/// The recording, in the host's directory of the charm (`.wasm-charm/`).
pub const FILE_NAME: &str = "recording.jsonl";

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
