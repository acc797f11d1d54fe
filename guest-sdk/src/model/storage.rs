//! Storage: `storage-list`, `storage-get`, and ops' `Model.storages`.

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
