//! The action tools (reference §2.12): `action-get`, `action-log`,
//! `action-set`, `action-fail`.

use super::args::{Answer, json, parse, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};
use std::collections::BTreeMap;

/// The message of an `action-fail` given none (reference §2.12).
pub const DEFAULT_ACTION_FAIL: &str = "action failed without reason given, check action for errors";

impl SimTools {
    /// `action-get [--format=…] [<key>[.<key>…]]` (reference §2.12): every
    /// parameter, or one by dotted path (`null` when missing).
    pub(super) fn action_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let path = match a.positional.as_slice() {
            [] => None,
            [path] => Some(*path),
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        let mut value = serde_json::Value::Object(state.last_event.action_params.clone());
        if let Some(path) = path {
            for key in path.split('.') {
                value = value.get(key).cloned().unwrap_or(serde_json::Value::Null);
            }
        }
        Ok(json(&value))
    }

    /// `action-log <message…>` (reference §2.12): the words joined with
    /// spaces, a progress message kept in the log as `ACTION <message>`.
    pub(super) fn action_log(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        if a.positional.is_empty() {
            return Err(ToolOutput::error(2, "no message specified"));
        }
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        state
            .last_event
            .log
            .push(format!("ACTION {}", a.positional.join(" ")));
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `action-set` (reference §2).
    pub(super) fn action_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let mut results = Vec::with_capacity(a.positional.len());
        for kv in &a.positional {
            let (key, value) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(
                    2,
                    format!("argument \"{kv}\" must be of the form key...=value"),
                )
            })?;
            check_result_key(key)?;
            results.push((key, value));
        }
        // Juju finds that no action runs only when it stores a result.
        if !results.is_empty() && self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        for (key, value) in results {
            set_result(&mut state.last_event.action_results, key, value);
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `action-fail` (reference §2.12): at most one argument, the message,
    /// checked before the run-time check that an action runs. A later call
    /// replaces the message.
    pub(super) fn action_fail(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let message = match a.positional.as_slice() {
            [] => DEFAULT_ACTION_FAIL,
            [message] => message,
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        state.last_event.action_failed = Some(message.to_string());
        Ok(ToolOutput::ok(Vec::new()))
    }
}

/// Segments of an action result key that Juju keeps for the action's output.
const RESERVED_RESULT_KEYS: &[&str] = &["stdout", "stdout-encoding", "stderr", "stderr-encoding"];

/// An `action-set` key (reference §2.12): dot-separated segments, each
/// matching `^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$` and none reserved. Juju
fn check_result_key(key: &str) -> Result<(), ToolOutput> {
    for segment in key.split('.') {
        if !crate::action::results::is_key_segment(segment) {
            return Err(ToolOutput::error(
                2,
                format!(
                    "key \"{segment}\" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric, hyphens and periods"
                ),
            ));
        }
        if RESERVED_RESULT_KEYS.contains(&segment) {
            return Err(ToolOutput::error(
                2,
                format!("cannot set reserved action key \"{segment}\""),
            ));
        }
    }
    Ok(())
}

/// Store one result by its dotted key. Juju keeps results as nested maps, so
/// a value replaces whatever was nested under its key, and a nested key
/// replaces a value at any of its parents.
fn set_result(results: &mut BTreeMap<String, String>, key: &str, value: &str) {
    let nested = format!("{key}.");
    results.retain(|k, _| {
        !k.starts_with(&nested)
            && !key
                .strip_prefix(k.as_str())
                .is_some_and(|r| r.starts_with('.'))
    });
    results.insert(key.to_string(), value.to_string());
}
