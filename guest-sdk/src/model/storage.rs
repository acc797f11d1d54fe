//! Storage: `storage-list`, `storage-get`.

use super::{ModelError, wit};

pub use crate::__bindings::wasm_charm::charm::model::StorageInstance;

/// The ids of the instances of storage `name` (metadata.yaml) attached to
/// this unit, sorted (`data/0`, `data/1`).
pub fn storage_list(name: &str) -> Result<Vec<String>, ModelError> {
    wit::storage_list(Some(name))
}

/// One storage instance by id (`data/0`): its kind and location.
pub fn storage_get(id: &str) -> Result<StorageInstance, ModelError> {
    wit::storage_get(id)
}

/// Every instance of storage `name` attached to this unit, as ops'
/// `model.storages[name]`.
///
/// ```no_run
/// use wasm_charm::model;
///
/// for instance in model::storage("data")? {
///     println!("{} is a {} at {}", instance.id, instance.kind, instance.location);
/// }
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
pub fn storage(name: &str) -> Result<Vec<StorageInstance>, ModelError> {
    storage_list(name)?
        .iter()
        .map(|id| storage_get(id))
        .collect()
}
