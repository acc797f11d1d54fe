//! What Juju says of the event and the model beyond the event record:
//! the environment's context and the cloud spec.

use super::{ModelError, wit};

/// The credential of a [`CloudSpec`] (ops' `CloudCredential`).
///
/// ```no_run
/// let spec = wasm_charm::model::get_cloud_spec()?;
/// if let Some(credential) = spec.credential {
///     println!("auth type {}", credential.auth_type);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::model::CloudCredential;
/// The model's cloud, as `credential-get` gives it (ops' `CloudSpec`).
///
/// ```no_run
/// let spec = wasm_charm::model::get_cloud_spec()?;
/// println!("{} cloud {} in {:?}", spec.type_, spec.name, spec.region);
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::model::CloudSpec;
/// The Juju context of this event that no event record carries: what Juju
/// exports to every hook.
///
/// ```no_run
/// let context = wasm_charm::model::context();
/// println!("model {} on Juju {}", context.model_uuid, context.juju_version);
/// ```
pub use crate::__bindings::wasm_charm::charm::model::JujuContext;

/// This event's Juju context: model UUID (ops' `Model.uuid`), Juju version
/// (ops' `JujuVersion`), availability zone, machine, principal unit,
/// proxies, and the target base of a pre-series-upgrade
/// (`JUJU_TARGET_BASE`).
///
/// ```no_run
/// use wasm_charm::model;
///
/// let context = model::context();
/// if let Some(base) = context.target_base {
///     println!("upgrading to {base} on Juju {}", context.juju_version);
/// }
/// ```
pub fn context() -> JujuContext {
    wit::context()
}

/// The model's cloud and credential (ops' `Model.get_cloud_spec`). Needs
/// `juju trust`: without it, [`ModelError::PermissionDenied`].
///
/// ```no_run
/// use wasm_charm::model::{self, ModelError};
///
/// match model::get_cloud_spec() {
///     Ok(spec) => println!("cloud endpoint {:?}", spec.endpoint),
///     Err(ModelError::PermissionDenied(_)) => println!("run `juju trust` first"),
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "credential-get")]
pub fn get_cloud_spec() -> Result<CloudSpec, ModelError> {
    wit::credential_get()
}
