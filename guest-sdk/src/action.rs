//! The action that runs: its parameters, its results, its failure and its
//! progress messages, named as ops' `ActionEvent` names them
//! ([`load_params`], [`params`], [`set_results`], [`fail`], [`log`]), and
//! answered by Juju's `action-get`, `action-set`, `action-fail` and
//! `action-log`.
//!
//! A handler observes an action with [`On::action`](crate::On::action). Its
//! parameters are typed by the action's schema in `actions.yaml`, and
//! deserialised with serde, as the config is:
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! fn charm() -> Charm {
//!     Charm::new().observe("backup", On::action("backup"), backup)
//! }
//! wasm_charm::export_charm!(charm);
//!
//! // actions.yaml:
//! //   backup:
//! //     params:
//! //       target: {type: string}
//! //       compress: {type: boolean, default: true}
//! //     required: [target]
//! #[derive(serde::Deserialize)]
//! struct Params {
//!     target: String,
//!     compress: bool,
//! }
//!
//! fn backup(_event: &Event) -> Outcome {
//!     let params: Params = action::load_params()?;
//!     if !params.target.starts_with('/') {
//!         // The action fails with this message; the handler succeeded.
//!         action::fail(format!("target {:?} is not an absolute path", params.target))?;
//!         return Ok(None);
//!     }
//!     action::log(format!("Backing up to {}", params.target))?;
//!     // ... the work ...
//!     action::set_results([
//!         ("backup.target", params.target.as_str()),
//!         ("backup.compressed", if params.compress { "yes" } else { "no" }),
//!     ])?;
//!     Ok(None)
//! }
//! # fn main() {}
//! ```
//!
//! What an action's handler returns sets no scope: an action leaves no unit
//! status behind (a status it returns is ignored, with a warning in the
//! unit's log). A scope set with [`status::set`](crate::status::set) is kept
//! when the handler returns, as in any event: a `pause` action can say the
//! unit is paused.
//!
//! Two ways to fail:
//!
//! * [`fail`]: the action ran and its answer is "failed, because…". The
//!   handler goes on and returns; what it wrote (scopes, relation data) is
//!   kept, like ops' `event.fail()`.
//! * returning `Err(error)`, or a panic: the handler could not do its work.
//!   The action fails with the error's message (`action-fail`), and the
//!   event keeps nothing of what its handlers wrote, as a failed hook keeps
//!   nothing. The unit does not go into error: a failing action never does
//!   in Juju. `on-error` in `wasm-charm.yaml` does not apply to actions.
//!
//! Results, failures and progress messages reach Juju at the call, and stay
//! whatever the handler does next: they are the action's output, not the
//! unit's state. Every call made outside an action is
//! [`ActionError::NotInAction`].

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::__bindings::wasm_charm::charm::action as wit;
use crate::Error;
use crate::model::ToolFailure;

/// Why an action call failed. Its `Display` names the call, key, parameter
/// or hook tool. The kind stays through `?` into [`Error`]
/// ([`ErrorKind::Action`](crate::ErrorKind::Action)).
///
/// ```no_run
/// use wasm_charm::action::{self, ActionError};
///
/// match action::set_results([("Bad_Key", "x")]) {
///     Err(ActionError::InvalidArgument(why)) => action::fail(why)?,
///     other => other?,
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ActionError {
    /// The event is not an action: only an action has parameters and
    /// results.
    NotInAction(String),
    /// The host refused the arguments before running the tool: a result
    /// key Juju refuses, a value over the argv limit, NUL, a per-event
    /// bound.
    InvalidArgument(String),
    /// The parameters Juju gave do not fit the action's schema in
    /// `actions.yaml`.
    InvalidParams(String),
    /// An action tool failed.
    ToolFailed(ToolFailure),
}

/// What failed, naming the call, key, parameter or hook tool.
///
/// ```
/// use wasm_charm::action::ActionError;
///
/// let e = ActionError::InvalidParams("parameter `target` is required".into());
/// assert_eq!(e.to_string(), "invalid action parameters: parameter `target` is required");
/// ```
impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::NotInAction(what) => write!(f, "not in an action: {what}"),
            ActionError::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            ActionError::InvalidParams(what) => write!(f, "invalid action parameters: {what}"),
            ActionError::ToolFailed(failure) => failure.fmt(f),
        }
    }
}

impl std::error::Error for ActionError {}

/// The action's parameters, deserialised into `T` (ops'
/// `ActionEvent.load_params`).
///
/// They form one JSON object, parameter names as keys (dashes kept: use
/// `#[serde(rename_all = "kebab-case")]` for parameters named with
/// dashes), each checked by the host against the type actions.yaml
/// declares, with the declared defaults filled in. A parameter that is not
/// required and has no default may be missing: make its field `Option<_>`
/// or `#[serde(default)]`. `serde_json::Value` takes them as they are.
///
/// ```no_run
/// #[derive(serde::Deserialize)]
/// #[serde(rename_all = "kebab-case")]
/// struct Params {
///     target: String,
///     #[serde(default)]
///     keep_days: Option<u32>,
/// }
///
/// let params: Params = wasm_charm::action::load_params()?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
///
/// Its error is of kind [`ErrorKind::Action`](crate::ErrorKind::Action)
/// when the host refused (outside an action, parameters that do not fit
/// actions.yaml), and says `the action's parameters do not fit the charm's
/// parameter type` when `T` does not take them.
#[doc(alias = "action-get")]
pub fn load_params<T: DeserializeOwned>() -> Result<T, Error> {
    let text = wit::params()?;
    serde_json::from_str(&text).map_err(|e| {
        Error::from(e).context("the action's parameters do not fit the charm's parameter type")
    })
}

/// The action's parameters as they are: one JSON object, parameter names
/// as keys (ops' `ActionEvent.params`), checked against actions.yaml and
/// with its defaults filled in.
///
/// ```no_run
/// let params = wasm_charm::action::params()?;
/// let target = params.get("target").and_then(|v| v.as_str()).unwrap_or("/srv/backups");
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "action-get")]
pub fn params() -> Result<serde_json::Map<String, serde_json::Value>, ActionError> {
    let text = wit::params()?;
    serde_json::from_str(&text).map_err(|e| {
        ActionError::InvalidParams(format!(
            "the host gave parameters that are no JSON object: {e}"
        ))
    })
}

/// Add results: dotted keys (`backup.size` nests `size` under `backup`)
/// and string values. A key set again is replaced.
///
/// Keys follow Juju's rule, checked before anything is sent: each
/// dot-separated segment is lowercase letters, digits and inner dashes, and
/// none is `stdout`, `stdout-encoding`, `stderr` or `stderr-encoding`. Each
/// `key=value` travels as one argument of `action-set`, 128 KiB at most: a
/// longer one is refused, naming the key; split it over several keys. A
/// refused call sets none of its results. ops' `ActionEvent.set_results`,
/// with the keys dotted already (see [`set_results_from`] for nested
/// values).
///
/// ```no_run
/// use wasm_charm::action;
///
/// let size = 1_234_567_u64;
/// action::set_results([("backup.id", "b-42".to_string()), ("backup.bytes", size.to_string())])?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "action-set")]
pub fn set_results<K, V>(results: impl IntoIterator<Item = (K, V)>) -> Result<(), ActionError>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    let results: Vec<(String, String)> = results
        .into_iter()
        .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string()))
        .collect();
    wit::set_results(&results)
}

/// Add the results `value` serialises to: nested maps and structs become
/// dotted keys (as ops' `set_results` flattens a dict), strings stay as
/// they are, numbers and booleans become their JSON text, arrays their
/// JSON text, and `None` (null) sets nothing. The top level must be a map
/// or a struct. Keys follow [`set_results`]' rule: name Rust fields for
/// Juju with `#[serde(rename_all = "kebab-case")]`.
///
/// ```no_run
/// #[derive(serde::Serialize)]
/// #[serde(rename_all = "kebab-case")]
/// struct Backup {
///     id: String,
///     size_bytes: u64,
///     databases: Vec<String>,
/// }
///
/// #[derive(serde::Serialize)]
/// struct Results {
///     backup: Backup,
/// }
///
/// // backup.id=b-42 backup.size-bytes=1024 backup.databases=["users"]
/// wasm_charm::action::set_results_from(&Results {
///     backup: Backup { id: "b-42".into(), size_bytes: 1024, databases: vec!["users".into()] },
/// })?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "action-set")]
pub fn set_results_from<T: Serialize + ?Sized>(value: &T) -> Result<(), Error> {
    let value = serde_json::to_value(value)
        .map_err(|e| Error::msg(format!("the action's results do not serialise: {e}")))?;
    let results = flatten(value)?;
    wit::set_results(&results.into_iter().collect::<Vec<_>>())?;
    Ok(())
}

/// Fail the action with `message` (ops' `ActionEvent.fail`): once the event ends, the action's
/// status is `failed` with this message (`juju run` prints it). The handler
/// goes on; what it writes is kept. A later call replaces the message; an
/// empty one gives Juju's default.
///
/// ```no_run
/// use wasm_charm::action;
///
/// action::fail("target /etc is not writable")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "action-fail")]
pub fn fail(message: impl AsRef<str>) -> Result<(), ActionError> {
    wit::fail(message.as_ref())
}

/// Send a progress message (ops' `ActionEvent.log`), shown at once by `juju run` and
/// `juju show-operation`.
///
/// ```no_run
/// use wasm_charm::action;
///
/// for (i, db) in ["users", "orders"].iter().enumerate() {
///     action::log(format!("database {}/2: {db}", i + 1))?;
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "action-log")]
pub fn log(message: impl AsRef<str>) -> Result<(), ActionError> {
    wit::log(message.as_ref())
}

/// Nested maps as dotted keys, values as strings (see [`set_results_from`]).
fn flatten(value: serde_json::Value) -> Result<BTreeMap<String, String>, Error> {
    let serde_json::Value::Object(map) = value else {
        return Err(Error::msg(format!(
            "the action's results must serialise to a map of keys to values, not {value}"
        )));
    };
    let mut out = BTreeMap::new();
    flatten_into(map, "", &mut out)?;
    Ok(out)
}

fn flatten_into(
    map: serde_json::Map<String, serde_json::Value>,
    prefix: &str,
    out: &mut BTreeMap<String, String>,
) -> Result<(), Error> {
    use serde_json::Value;
    for (key, value) in map {
        let key = format!("{prefix}{key}");
        let text = match value {
            Value::Null => continue,
            Value::Object(inner) => {
                flatten_into(inner, &format!("{key}."), out)?;
                continue;
            }
            Value::String(s) => s,
            other => other.to_string(),
        };
        if out.insert(key.clone(), text).is_some() {
            return Err(Error::msg(format!(
                "the action's results give key `{key}` twice (a dotted key and a nested one)"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_maps_become_dotted_keys() {
        let flat = flatten(json!({
            "backup": {"id": "b-1", "bytes": 10, "ok": true, "dbs": ["a", "b"], "none": null},
            "ratio": 0.5,
            "empty": {},
        }))
        .unwrap();
        let want: BTreeMap<String, String> = [
            ("backup.bytes", "10"),
            ("backup.dbs", r#"["a","b"]"#),
            ("backup.id", "b-1"),
            ("backup.ok", "true"),
            ("ratio", "0.5"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(flat, want);
    }

    #[test]
    fn clashing_or_flat_values_are_refused() {
        let e = flatten(json!({"a.b": "1", "a": {"b": "2"}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the action's results give key `a.b` twice (a dotted key and a nested one)"
        );
        let e = flatten(json!("just text")).unwrap_err();
        assert!(e.to_string().contains("must serialise to a map"), "{e}");
    }

    #[test]
    fn errors_display_their_reason() {
        assert_eq!(
            ActionError::NotInAction("action.params: the event is install".into()).to_string(),
            "not in an action: action.params: the event is install"
        );
        assert_eq!(
            ActionError::InvalidParams("parameter `target` is required".into()).to_string(),
            "invalid action parameters: parameter `target` is required"
        );
        assert_eq!(
            ActionError::ToolFailed(ToolFailure {
                tool: "action-set".into(),
                exit_code: 2,
                message: "bad key".into(),
            })
            .to_string(),
            "action-set failed (exit 2): bad key"
        );
    }
}
