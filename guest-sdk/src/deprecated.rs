//! The names of release 0.1.0 that 0.2.0 replaced (CHANGELOG.md), kept
//! working for one more release: each warns at its use, naming its
//! replacement, and does what it did. They are re-exported where they
//! were (`model::secret_get`, `pebble::container`, …), and all in this one
//! file, so the release that removes them deletes one module.
//!
//! A name whose signature changed in place (`model::config`,
//! `action::params`, most of `Container`'s calls) cannot have a
//! deprecated twin: Rust has no overloading. CHANGELOG.md says how to
//! move those.

#![allow(deprecated)]

use crate::__bindings::wasm_charm::charm::{model as wit_model, network as wit_network};
use crate::model::{self, CloudSpec, ConfigValue, ModelError, Network, Relation, StorageInstance};
use crate::pebble::{self, Container};
use crate::probe::{self, ProbeError};

// ------------------------------------------------------------------ model

/// A config option and its value, as [`config_options`] lists them.
///
/// Use [`model::config`], a map from name to value:
///
/// ```no_run
/// let config = wasm_charm::model::config()?;
/// let kind = config.get("kind").and_then(|v| v.as_str());
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use `model::config()`, a map from option name to value"
)]
pub type ConfigOption = wit_model::ConfigOption;

/// The value of config option `name`; `None` when it has none.
///
/// Use [`model::config`]:
///
/// ```no_run
/// let kind = wasm_charm::model::config()?.remove("kind");
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::config()?.get(name)`")]
pub fn config_value(name: &str) -> Result<Option<ConfigValue>, ModelError> {
    Ok(model::config()?.remove(name))
}

/// Every config option that has a value, in the host's order.
///
/// Use [`model::config`] (by name) or [`model::load_config`] (typed):
///
/// ```no_run
/// for (name, value) in wasm_charm::model::config()? {
///     println!("{name} = {}", value.to_json());
/// }
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use `model::config()` (by name) or `model::load_config::<T>()` (typed)"
)]
pub fn config_options() -> Result<Vec<ConfigOption>, ModelError> {
    wit_model::config()
}

/// The model's name.
///
/// ```
/// # fn f() -> String {
/// wasm_charm::model::name()
/// # }
/// ```
#[deprecated(since = "0.2.0", note = "use `model::name()`")]
pub fn model_name() -> String {
    model::name()
}

/// Set the application version shown in `juju status`.
///
/// ```no_run
/// wasm_charm::model::set_workload_version("1.4.2")?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::set_workload_version(version)`")]
pub fn application_version_set(version: &str) -> Result<(), ModelError> {
    model::set_workload_version(version)
}

/// The model's cloud and credential (`credential-get`).
///
/// ```no_run
/// let spec = wasm_charm::model::get_cloud_spec()?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::get_cloud_spec()`")]
pub fn credential_get() -> Result<CloudSpec, ModelError> {
    model::get_cloud_spec()
}

/// The path of resource `name`, as text.
///
/// ```no_run
/// let path = wasm_charm::model::resources::fetch("workload-image")?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use `model::resources::fetch(name)`, which returns a `PathBuf`"
)]
pub fn resource_get(name: &str) -> Result<String, ModelError> {
    model::resources::fetch(name).map(|path| path.to_string_lossy().into_owned())
}

/// The storage instances of storage `name`.
///
/// ```no_run
/// let data = wasm_charm::model::storages("data")?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::storages(name)`")]
pub fn storage(name: &str) -> Result<Vec<StorageInstance>, ModelError> {
    model::storages(name)
}

/// The one live relation of `endpoint`.
///
/// ```no_run
/// let db = wasm_charm::model::get_relation("db")?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::get_relation(endpoint)`")]
pub fn relation(endpoint: &str) -> Result<Option<Relation>, ModelError> {
    model::get_relation(endpoint)
}

/// A secret by id or label.
///
/// ```no_run
/// let secret = wasm_charm::model::get_secret(None, Some("db-password"))?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::get_secret(id, label)`")]
pub fn secret_get(id: Option<&str>, label: Option<&str>) -> Result<model::Secret, ModelError> {
    model::get_secret(id, label)
}

/// The network of `binding`.
///
/// ```no_run
/// let network = wasm_charm::model::get_binding("website").network()?;
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[deprecated(since = "0.2.0", note = "use `model::get_binding(binding).network()`")]
pub fn network_get(binding: &str) -> Result<Network, ModelError> {
    model::get_binding(binding).network()
}

/// The network of `binding` as seen from `relation` (`network-get -r`).
///
/// Use the relation's binding (its endpoint's, seen from it):
///
/// ```no_run
/// # fn f(relation: &wasm_charm::model::Relation) -> Result<(), wasm_charm::model::ModelError> {
/// let network = wasm_charm::model::get_binding(relation).network()?;
/// # Ok(())
/// # }
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use `model::get_binding(&relation).network()`, the network of the relation's endpoint as seen from it"
)]
pub fn network_get_for(binding: &str, relation: &Relation) -> Result<Network, ModelError> {
    // As 0.1.0 asked: `binding` need not be the relation's endpoint.
    wit_network::network_get(binding, Some(relation.as_ref()))
}

impl Relation {
    /// The relation's endpoint.
    ///
    /// ```
    /// use wasm_charm::{RelationRef, model::Relation};
    ///
    /// let db = Relation::new(RelationRef { endpoint: "db".into(), id: 4 });
    /// assert_eq!(db.name(), "db");
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `Relation::name()`, as ops' `Relation.name`"
    )]
    pub fn endpoint(&self) -> &str {
        self.name()
    }
}

// ------------------------------------------------------------------ pebble

/// The workload container `name`.
///
/// ```
/// let web = wasm_charm::pebble::get_container("web");
/// ```
#[deprecated(since = "0.2.0", note = "use `pebble::get_container(name)`")]
pub fn container(name: &str) -> Container {
    pebble::get_container(name)
}

// ------------------------------------------------------------------- probe

/// Gate readiness on probe `name` (`gate: true`) or stop gating on it.
///
/// ```no_run
/// wasm_charm::probe::gate("web-alive")?;
/// wasm_charm::probe::ungate("web-alive")?;
/// # Ok::<(), wasm_charm::probe::ProbeError>(())
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use `probe::gate(name)` or `probe::ungate(name)`"
)]
pub fn set_gate(name: &str, gate: bool) -> Result<(), ProbeError> {
    if gate {
        probe::gate(name)
    } else {
        probe::ungate(name)
    }
}

// ------------------------------------------------------------------ status

impl crate::StatusKind {
    /// The kind as Juju spells it (the test harness's `Kind::as_str`).
    ///
    /// ```
    /// assert_eq!(wasm_charm::StatusKind::Blocked.name(), "blocked");
    /// ```
    #[deprecated(since = "0.2.0", note = "use `StatusKind::name()`")]
    pub fn as_str(self) -> &'static str {
        self.name()
    }
}

// ------------------------------------------------------------------- error

impl crate::Error {
    /// The message, as the operator will see it: now owned, since the
    /// error keeps its kind and context rather than one string.
    ///
    /// ```
    /// let e = wasm_charm::Error::msg("no").context("reaching the database");
    /// assert_eq!(e.to_string(), "reaching the database: no");
    /// ```
    #[deprecated(since = "0.2.0", note = "use `error.to_string()` (its `Display`)")]
    pub fn message(&self) -> String {
        self.to_string()
    }
}
