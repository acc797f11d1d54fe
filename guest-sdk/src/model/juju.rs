//! What Juju says of the event and the model beyond the event record:
//! the environment's context, the cloud credential, resources.

use super::{ModelError, wit};

pub use crate::__bindings::wasm_charm::charm::model::{CloudCredential, CloudSpec, JujuContext};

/// This event's Juju context: model UUID, Juju version, availability zone,
/// machine, principal unit, proxies, and the target base of a
/// pre-series-upgrade (`JUJU_TARGET_BASE`).
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

/// The model's cloud and credential (`credential-get`). Needs `juju trust`:
/// without it, [`ModelError::PermissionDenied`].
pub fn credential_get() -> Result<CloudSpec, ModelError> {
    wit::credential_get()
}

/// The path of resource `name` (metadata.yaml `resources`), as ops'
/// `model.resources.fetch`. Juju fetches it if needed; a resource never
/// uploaded is [`ModelError::NotFound`].
pub fn resource_get(name: &str) -> Result<String, ModelError> {
    wit::resource_get(name)
}
