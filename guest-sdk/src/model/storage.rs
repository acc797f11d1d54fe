//! Storage: `storage-list`, `storage-get`, `storage-add`, and ops'
//! `Model.storages` and `Model.storages.request`.

use super::ModelError;
use crate::__bindings::wasm_charm::charm::storage as wit;

/// One storage instance attached to this unit (ops' `Storage`: its
/// `full_id` is [`id`](StorageInstance::id), its `location` is
/// [`location`](StorageInstance::location)).
///
/// ```no_run
/// let data = wasm_charm::model::storage_get("data/0")?;
/// println!("{} at {}", data.kind, data.location);
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::storage::StorageInstance;

/// The ids of the instances of storage `name` (metadata.yaml) attached to
/// this unit, sorted (`data/0`, `data/1`).
///
/// ```no_run
/// let ids = wasm_charm::model::storage_list("data")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "storage-list")]
pub fn storage_list(name: &str) -> Result<Vec<String>, ModelError> {
    wit::storage_list(Some(name))
}

/// One storage instance by id (`data/0`): its kind and location.
///
/// ```no_run
/// let location = wasm_charm::model::storage_get("data/0")?.location;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "storage-get")]
pub fn storage_get(id: &str) -> Result<StorageInstance, ModelError> {
    wit::storage_get(id)
}

/// Every instance of storage `name` attached to this unit, as ops'
/// `Model.storages[name]`.
///
/// ```no_run
/// use wasm_charm::model;
///
/// for instance in model::storages("data")? {
///     println!("{} is a {} at {}", instance.id, instance.kind, instance.location);
/// }
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
#[doc(alias("storage-list", "storage-get"))]
pub fn storages(name: &str) -> Result<Vec<StorageInstance>, ModelError> {
    storage_list(name)?
        .iter()
        .map(|id| storage_get(id))
        .collect()
}

/// Ask Juju for `count` more instances of storage `name` (metadata.yaml
/// `storage`), as ops' `Model.storages.request(name, count)`. Juju adds
/// them only if the hook succeeds, so the request is kept only if the
/// handler returns, and sent at the end of the event; each new instance
/// comes later in its own `<name>-storage-attached` event, and
/// [`storages`] does not list it in this one. `InvalidArgument`: a name
/// metadata.yaml does not declare, a count of 0 or over 64.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn more_disks(_event: &Event) -> Outcome {
///     if model::storages("data")?.len() < 2 {
///         model::request_storage("data", 1)?;
///         return Ok(Some(Status::maintenance("Waiting for a second data volume")));
///     }
///     Ok(None)
/// }
/// ```
#[doc(alias("storage-add", "request", "add_storage"))]
pub fn request_storage(name: &str, count: u32) -> Result<(), ModelError> {
    wit::storage_add(name, count)
}
