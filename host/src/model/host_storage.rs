//! The guest's calls for what the unit is given on disk: its storage
//! instances and its resources, each read once per event.

use super::Model;
use super::errors::failure;
use super::names::{check_name, check_storage_id};
use super::shapes;
use super::tool_calls::Caller;
use crate::bindings::model::{ModelError, StorageInstance};

pub(super) fn storage_list(m: &mut Model, name: Option<String>) -> Result<Vec<String>, ModelError> {
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

pub(super) fn storage_get(m: &mut Model, id: String) -> Result<StorageInstance, ModelError> {
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
