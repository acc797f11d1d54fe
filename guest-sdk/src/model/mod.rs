//! The Juju model, named as in ops' `Model`, `Unit` and `Application`:
//! config ([`load_config`], [`config`]), leadership ([`is_leader`]),
//! names, relations and their data ([`relations`], [`get_relation`]),
//! ports ([`open_port`], [`opened_ports`]), storage ([`storages`],
//! [`request_storage`]), a reboot of the machine ([`reboot`]),
//! networks ([`get_binding`]), secrets ([`get_secret`], [`add_secret`]),
//! [`resources::fetch`], [`get_cloud_spec`], [`goal_state`],
//! [`set_workload_version`] and the event's Juju [`context`].
//!
//! The host answers with Juju's hook tools (each function names its tool in
//! its doc aliases, so the docs' search finds `relation-get` or
//! `network-get`) and caches every read for the whole event, so asking
//! twice costs nothing. Relation writes are kept only if the handler
//! returns, and are sent to Juju once per databag at the end of the event;
//! reads of the local bags include this event's writes so far.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! #[derive(serde::Deserialize)]
//! struct Config {
//!     kind: String,
//! }
//!
//! fn pilot(_event: &Event) -> Outcome {
//!     let config: Config = model::load_config()?;
//!     let Some(relation) = model::get_relation("istio-pilot")? else {
//!         return Ok(Some(Status::blocked("Waiting for istio-pilot relation")));
//!     };
//!     let data = relation.app_data()?;
//!     if model::is_leader()? {
//!         relation.set_local_app_data(&[("kind", config.kind.as_str())])?;
//!     }
//!     match data.get("service-name") {
//!         Some(name) if !name.is_empty() => Ok(None),
//!         _ => Ok(Some(Status::waiting("Waiting for istio-pilot relation data"))),
//!     }
//! }
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;

use crate::__bindings::wasm_charm::charm::model as wit;
use crate::Error;

mod juju;
mod network;
mod ports;
mod relations;
pub mod resources;
mod secrets;
mod storage;

/// A config option's value, typed by its declaration in config.yaml.
///
/// ```no_run
/// use wasm_charm::model::{self, ConfigValue};
///
/// if let Some(ConfigValue::Int(port)) = model::config()?.get("port") {
///     println!("port {port}");
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::model::ConfigValue;
/// 0.1.0's names, deprecated (CHANGELOG.md).
#[allow(deprecated)]
pub use crate::deprecated::{
    ConfigOption, application_version_set, config_options, config_value, credential_get,
    model_name, network_get, network_get_for, relation, resource_get, secret_get, storage,
};
pub use juju::{CloudCredential, CloudSpec, JujuContext, context, get_cloud_spec};
pub use network::{
    BindAddress, Binding, GoalStatus, Goals, InterfaceAddress, Network, get_binding, goal_state,
};
pub use ports::{OpenedPort, PortRange, Protocol, close_port, open_port, opened_ports};
pub use relations::{Databag, Relation, RemoteModel, get_relation, relations};
pub use secrets::{
    Secret, SecretInfo, SecretOptions, SecretOwner, SecretRotate, add_secret, get_secret,
    secret_ids,
};
pub use storage::{StorageInstance, request_storage, storage_get, storage_list, storages};

/// Why a model call failed. Its `Display` names the relation or hook tool.
///
/// Every case but `InvalidArgument` carries the hook tool's own words, so a
/// handler can match the kind and still show Juju's reason. The kind stays
/// through `?` into [`Error`] ([`ErrorKind::Model`](crate::ErrorKind::Model)).
///
/// ```no_run
/// use wasm_charm::model::{self, ModelError};
///
/// match model::storage_get("data/0") {
///     Ok(storage) => println!("mounted at {}", storage.location),
///     Err(ModelError::NotFound(why)) => println!("no such storage: {why}"),
///     Err(other) => return Err(other.into()),
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    /// The relation does not exist, or is being broken.
    RelationNotFound(String),
    /// The call needs leadership and this unit is not the leader.
    NotLeader(String),
    /// The host refused the arguments before asking Juju.
    InvalidArgument(String),
    /// A hook tool failed in a way none of the other cases names.
    ToolFailed(ToolFailure),
    /// What the call names does not exist: a storage instance, a network
    /// binding, a secret, a resource (ops' `SecretNotFoundError`,
    /// `ModelError` of a missing resource).
    NotFound(String),
    /// Juju refused the call (`permission denied`, `access denied`; no
    /// `juju trust` for [`get_cloud_spec`]).
    PermissionDenied(String),
    /// [`get_relation`] was asked for the one relation of an endpoint that
    /// has several (ops' `TooManyRelatedAppsError`).
    TooManyRelations(String),
}

/// What failed, with Juju's words.
///
/// ```
/// use wasm_charm::model::ModelError;
///
/// let e = ModelError::RelationNotFound("db:3".into());
/// assert_eq!(e.to_string(), "relation not found: db:3");
/// ```
impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::RelationNotFound(what) => write!(f, "relation not found: {what}"),
            ModelError::NotLeader(what) => write!(f, "not the leader: {what}"),
            ModelError::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            ModelError::ToolFailed(failure) => failure.fmt(f),
            ModelError::NotFound(what) => write!(f, "not found: {what}"),
            ModelError::PermissionDenied(what) => write!(f, "permission denied: {what}"),
            ModelError::TooManyRelations(what) => write!(f, "too many relations: {what}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// A hook tool that exited non-zero or answered something unreadable.
///
/// ```
/// use wasm_charm::model::{ModelError, ToolFailure};
///
/// let e = ModelError::ToolFailed(ToolFailure {
///     tool: "goal-state".into(),
///     exit_code: 1,
///     message: "connection is shut down".into(),
/// });
/// assert_eq!(e.to_string(), "goal-state failed (exit 1): connection is shut down");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolFailure {
    /// The hook tool (`relation-get`).
    pub tool: String,
    /// Its exit code.
    pub exit_code: i32,
    /// What went wrong: the tool's standard error, or why its answer could
    /// not be read.
    pub message: String,
}

/// `<tool> failed (exit <code>): <message>`.
///
/// ```
/// use wasm_charm::model::ToolFailure;
///
/// let failure = ToolFailure { tool: "relation-get".into(), exit_code: 2, message: "no".into() };
/// assert_eq!(failure.to_string(), "relation-get failed (exit 2): no");
/// ```
impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} failed (exit {}): {}",
            self.tool, self.exit_code, self.message
        )
    }
}

impl std::error::Error for ToolFailure {}

impl ConfigValue {
    /// The value of a `string` option.
    ///
    /// ```
    /// use wasm_charm::model::ConfigValue;
    ///
    /// assert_eq!(ConfigValue::String("ingress".into()).as_str(), Some("ingress"));
    /// assert_eq!(ConfigValue::Int(3).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ConfigValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of an `int` option.
    ///
    /// ```
    /// assert_eq!(wasm_charm::model::ConfigValue::Int(8080).as_i64(), Some(8080));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ConfigValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The value of a `float` option.
    ///
    /// ```
    /// assert_eq!(wasm_charm::model::ConfigValue::Float(0.5).as_f64(), Some(0.5));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ConfigValue::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// The value of a `boolean` option.
    ///
    /// ```
    /// assert_eq!(wasm_charm::model::ConfigValue::Boolean(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ConfigValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }

    /// The URI of a `secret` option.
    ///
    /// ```
    /// use wasm_charm::model::ConfigValue;
    ///
    /// let value = ConfigValue::Secret("secret:cqv1ruvmp25c7ntde3t0".into());
    /// assert_eq!(value.as_secret(), Some("secret:cqv1ruvmp25c7ntde3t0"));
    /// assert_eq!(value.as_str(), None);
    /// ```
    pub fn as_secret(&self) -> Option<&str> {
        match self {
            ConfigValue::Secret(uri) => Some(uri),
            _ => None,
        }
    }

    /// The value as JSON: strings and secret URIs as strings, numbers as
    /// numbers (a float that is not finite as `null`), booleans as booleans.
    ///
    /// ```
    /// use wasm_charm::model::ConfigValue;
    ///
    /// assert_eq!(ConfigValue::Int(3).to_json(), serde_json::json!(3));
    /// assert_eq!(ConfigValue::Float(f64::NAN).to_json(), serde_json::Value::Null);
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            ConfigValue::String(s) | ConfigValue::Secret(s) => Value::String(s.clone()),
            ConfigValue::Int(i) => Value::from(*i),
            ConfigValue::Float(x) => {
                serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)
            }
            ConfigValue::Boolean(b) => Value::Bool(*b),
        }
    }
}

/// The charm's config, deserialized into `T` (ops' `CharmBase.load_config`).
///
/// The options that have a value (set, or a non-null default) form a JSON
/// object, option names as keys (dashes kept: use `#[serde(rename_all =
/// "kebab-case")]` for options named with dashes), that `T` is deserialized
/// from. Options without a value are missing from it: make such fields
/// `Option<_>` or `#[serde(default)]`. A `secret` option is its URI.
///
/// Its error is of kind [`ErrorKind::Model`](crate::ErrorKind::Model) when
/// `config-get` failed, and says `config does not fit the charm's config
/// type` when `T` does not take the options.
///
/// ```no_run
/// #[derive(serde::Deserialize)]
/// #[serde(rename_all = "kebab-case")]
/// struct Config {
///     kind: String,
///     #[serde(default)]
///     log_level: Option<String>,
/// }
///
/// let config: Config = wasm_charm::model::load_config()?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "config-get")]
pub fn load_config<T: DeserializeOwned>() -> Result<T, Error> {
    let options = wit::config()?;
    serde_json::from_value(options_to_json(&options))
        .map_err(|e| Error::from(e).context("config does not fit the charm's config type"))
}

/// Every config option that has a value (set, or a non-null default), by
/// name: ops' `Model.config`.
///
/// ```no_run
/// use wasm_charm::model;
///
/// let config = model::config()?;
/// let kind = config.get("kind").and_then(|v| v.as_str()).unwrap_or("ingress");
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "config-get")]
pub fn config() -> Result<BTreeMap<String, ConfigValue>, ModelError> {
    Ok(wit::config()?
        .into_iter()
        .map(|option| (option.name, option.value))
        .collect())
}

/// Config options as one JSON object, option names as keys.
fn options_to_json(options: &[wit::ConfigOption]) -> serde_json::Value {
    serde_json::Value::Object(
        options
            .iter()
            .map(|option| (option.name.clone(), option.value.to_json()))
            .collect(),
    )
}

/// Whether this unit is the leader of its application (ops'
/// `Unit.is_leader`).
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn leader(_event: &Event) -> Outcome {
///     if !model::is_leader()? {
///         return Ok(Some(Status::waiting("Waiting for leadership")));
///     }
///     Ok(None)
/// }
/// ```
#[doc(alias = "is-leader")]
pub fn is_leader() -> Result<bool, ModelError> {
    wit::is_leader()
}

/// This unit's name (`gateway/0`): ops' `Unit.name`, Juju's
/// `JUJU_UNIT_NAME`.
///
/// ```no_run
/// let unit = wasm_charm::model::unit_name();
/// assert!(unit.contains('/'));
/// ```
pub fn unit_name() -> String {
    wit::unit_name()
}

/// This unit's application (`gateway`): ops' `Application.name`.
///
/// ```no_run
/// let app = wasm_charm::model::app_name();
/// assert!(wasm_charm::model::unit_name().starts_with(&format!("{app}/")));
/// ```
pub fn app_name() -> String {
    wit::app_name()
}

/// The model's name: ops' `Model.name`, Juju's `JUJU_MODEL_NAME`.
///
/// ```no_run
/// wasm_charm::log::info(format!("running in model {}", wasm_charm::model::name()));
/// ```
pub fn name() -> String {
    wit::model_name()
}

/// Set the workload version shown in the Version column of `juju status`
/// (ops' `Unit.set_workload_version`).
///
/// ```no_run
/// wasm_charm::model::set_workload_version("2.4.1")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "application-version-set")]
pub fn set_workload_version(version: &str) -> Result<(), ModelError> {
    wit::application_version_set(version)
}

/// Reboot the machine (ops' `Unit.reboot(now)`, Juju's `juju-reboot`);
/// machine charms only, never during an action (`InvalidArgument`).
///
/// `now: false`: Juju reboots once the hook has ended, if it succeeded; the
/// request is kept only if the handler returns, and the call returns.
///
/// `now: true`: Juju kills the hook at once, keeps nothing of it (relation
/// data, ports, secrets, storage requests, statuses, stored data), reboots,
/// and runs the same event again from the start. So on success the call
/// never returns: the handler stops there and no later handler runs. Write
/// the handler so that running it again after the reboot is right (check
/// first whether the reboot's work is done). It returns only an error, when
/// Juju refused.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn install(_event: &Event) -> Outcome {
///     if !std::path::Path::new("/etc/kernel-configured").exists() {
///         // Configure the kernel, then boot into it before going on.
///         model::reboot(true)?;
///     }
///     Ok(None)
/// }
/// ```
#[doc(alias("juju-reboot", "Unit.reboot"))]
pub fn reboot(now: bool) -> Result<(), ModelError> {
    wit::reboot(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    fn option(name: &str, value: ConfigValue) -> wit::ConfigOption {
        wit::ConfigOption {
            name: name.into(),
            value,
        }
    }

    #[test]
    fn config_options_become_a_json_object() {
        let options = [
            option("kind", ConfigValue::String("ingress".into())),
            option("replicas", ConfigValue::Int(3)),
            option("ratio", ConfigValue::Float(0.5)),
            option("nan", ConfigValue::Float(f64::NAN)),
            option("debug", ConfigValue::Boolean(true)),
            option("password", ConfigValue::Secret("secret:abc".into())),
        ];
        assert_eq!(
            options_to_json(&options),
            json!({
                "kind": "ingress",
                "replicas": 3,
                "ratio": 0.5,
                "nan": null,
                "debug": true,
                "password": "secret:abc",
            })
        );
    }

    #[test]
    fn config_deserializes_into_a_struct() {
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(rename_all = "kebab-case")]
        struct Config {
            kind: String,
            log_level: Option<String>,
            #[serde(default)]
            replicas: u32,
        }
        let options = [
            option("kind", ConfigValue::String("egress".into())),
            option("unused", ConfigValue::Boolean(false)),
        ];
        let config: Config = serde_json::from_value(options_to_json(&options)).unwrap();
        assert_eq!(
            config,
            Config {
                kind: "egress".into(),
                log_level: None,
                replicas: 0
            }
        );
    }

    #[test]
    fn config_value_accessors() {
        assert_eq!(ConfigValue::String("x".into()).as_str(), Some("x"));
        assert_eq!(ConfigValue::Secret("secret:x".into()).as_str(), None);
        assert_eq!(
            ConfigValue::Secret("secret:x".into()).as_secret(),
            Some("secret:x")
        );
        assert_eq!(ConfigValue::Int(7).as_i64(), Some(7));
        assert_eq!(ConfigValue::Int(7).as_f64(), None);
        assert_eq!(ConfigValue::Float(1.5).as_f64(), Some(1.5));
        assert_eq!(ConfigValue::Boolean(true).as_bool(), Some(true));
    }

    #[test]
    fn errors_name_what_failed() {
        let failure = ModelError::ToolFailed(ToolFailure {
            tool: "relation-get".into(),
            exit_code: 2,
            message: "permission denied".into(),
        });
        assert_eq!(
            failure.to_string(),
            "relation-get failed (exit 2): permission denied"
        );
        assert_eq!(
            ModelError::RelationNotFound("db:3".into()).to_string(),
            "relation not found: db:3"
        );
        assert_eq!(
            Error::from(ModelError::NotLeader("relation-set --app".into())).to_string(),
            "not the leader: relation-set --app"
        );
    }
}
