//! What the unit is given on disk, each read once per event: its storage
//! instances, the WIT `storage` interface answered by the event's
//! [`Model`] (with `storage-add`, checked at the call and buffered in the
//! running handler's transaction), and its resources (`resource-get`, the
//! `model` interface's).

use super::Model;
use super::budget::MAX_STORAGE_ADD_COUNT;
use super::errors::failure;
use super::names::{check_name, check_storage_id};
use super::shapes;
use super::tool_calls::Caller;
use crate::bindings::model::ModelError;
use crate::bindings::storage::{Host, StorageInstance};
use wasmtime::component::{HasSelf, Linker};

impl Host for Model {
    fn storage_list(&mut self, name: Option<String>) -> Result<Vec<String>, ModelError> {
        storage_list(self, name)
    }

    fn storage_get(&mut self, id: String) -> Result<StorageInstance, ModelError> {
        storage_get(self, id)
    }

    fn storage_add(&mut self, name: String, count: u32) -> Result<(), ModelError> {
        storage_add(self, name, count)
    }
}

/// Register the `storage` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::storage::add_to_linker::<T, HasSelf<Model>>(linker, get)
}

fn storage_list(m: &mut Model, name: Option<String>) -> Result<Vec<String>, ModelError> {
    if let Some(n) = &name {
        check_name("storage", n)?;
    }
    if let Some(ids) = m.cache.storage_ids.get(&name) {
        return Ok(ids.clone());
    }
    let mut args = vec!["--format=json"];
    if let Some(n) = &name {
        args.extend(["--", n.as_str()]);
    }
    let ids: Option<Vec<String>> = m.json(Caller::Guest, "storage-list", &args)?;
    let mut ids = ids.unwrap_or_default();
    ids.sort();
    m.cache.storage_ids.insert(name, ids.clone());
    Ok(ids)
}

fn storage_get(m: &mut Model, id: String) -> Result<StorageInstance, ModelError> {
    check_storage_id(&id)?;
    if let Some(s) = m.cache.storage.get(&id) {
        return Ok(s.clone());
    }
    let raw: shapes::StorageJson =
        m.json(Caller::Guest, "storage-get", &["--format=json", "-s", &id])?;
    let instance = raw.into_instance(id.clone());
    m.cache.storage.insert(id, instance.clone());
    Ok(instance)
}

/// Check a `storage-add` by what Juju's tool and its commit refuse, then
/// buffer it: Juju adds storage only when the hook succeeds.
fn storage_add(m: &mut Model, name: String, count: u32) -> Result<(), ModelError> {
    check_name("storage", &name)?;
    // Juju's grammar of storage names; `=` or `,` would change the directive.
    let grammar = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !grammar {
        return Err(ModelError::InvalidArgument(format!(
            "storage-add: `{}` is not a storage name (lowercase letters, digits and dashes, starting with a letter)",
            name.escape_debug()
        )));
    }
    m.facts.check_storage(&name)?;
    if count == 0 || count > MAX_STORAGE_ADD_COUNT {
        return Err(ModelError::InvalidArgument(format!(
            "storage-add {name}={count}: the count is 1 to {MAX_STORAGE_ADD_COUNT} (MAX_STORAGE_ADD_COUNT); Juju refuses 0 (`count must be greater than zero`)"
        )));
    }
    m.transaction.request_storage(name, count)
}

pub(super) fn resource_get(m: &mut Model, name: String) -> Result<String, ModelError> {
    check_name("resource", &name)?;
    if let Some(path) = m.cache.resources.get(&name) {
        return Ok(path.clone());
    }
    let out = m.run_as(Caller::Guest, "resource-get", &["--", &name], None)?;
    let path = String::from_utf8_lossy(&out).trim_end().to_string();
    if path.is_empty() {
        return Err(failure(
            "resource-get",
            0,
            format!("resource-get answered no path for resource `{name}`"),
        ));
    }
    m.cache.resources.insert(name, path.clone());
    Ok(path)
}
