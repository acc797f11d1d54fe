//! Pebble's files API (`/v1/files`): push, pull, list, make-dir and remove,
//! with the ownership and listing options the charm may give. Request
//! bodies and targets are pure functions, tested without a socket.

use super::client::{self, Body, Client, Error, MAX_PULL};
use super::{PebbleError, bounded_text, protocol, str_field, wit_error};
use crate::bindings::pebble::{FileInfo, MakeDirOptions, Ownership, PushOptions};
use serde_json::{Value, json};

/// Longest user or group name, and longest list pattern, the charm may send.
pub const MAX_NAME: usize = 256;
/// Longest path the charm may send (Linux's `PATH_MAX`).
pub const MAX_PATH: usize = 4096;
/// Largest file `push` writes: the body is built in the host's memory.
pub const MAX_PUSH: usize = 64 << 20;

/// `GET /v1/files?action=list`' result; permissions are octal text.
pub fn parse_files(result: &Value) -> Option<Vec<FileInfo>> {
    result
        .as_array()?
        .iter()
        .map(|f| {
            Some(FileInfo {
                path: f.get("path")?.as_str()?.to_string(),
                name: str_field(f, "name"),
                kind: str_field(f, "type"),
                size: f.get("size").and_then(Value::as_u64),
                permissions: u32::from_str_radix(&str_field(f, "permissions"), 8).ok()?,
                last_modified: str_field(f, "last-modified"),
                user_id: id_field(f, "user-id"),
                user: f.get("user").and_then(Value::as_str).map(str::to_string),
                group_id: id_field(f, "group-id"),
                group: f.get("group").and_then(Value::as_str).map(str::to_string),
            })
        })
        .collect()
}

fn id_field(v: &Value, name: &str) -> Option<u32> {
    v.get(name)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// The first error of a `/v1/files` result list, as Pebble's error.
pub fn file_result_error(result: &Value) -> Option<Error> {
    result.as_array()?.iter().find_map(|r| {
        let e = r.get("error")?;
        Some(Error::Api {
            status: 200,
            kind: str_field(e, "kind"),
            message: str_field(e, "message"),
        })
    })
}

/// A multipart boundary for one request: long enough for Pebble (32+), and
/// unlikely to be in the data.
pub fn boundary() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("wasm-charm-{:032x}{:08x}", nanos, std::process::id())
}

pub fn permissions_text(p: Option<u32>) -> Option<String> {
    p.map(|p| format!("{:03o}", p & 0o7777))
}

/// Check an ownership's names: `field` says whose (`push options.owner`).
pub fn check_ownership(container: &str, field: &str, owner: &Ownership) -> Result<(), PebbleError> {
    for (name, value) in [("user", &owner.user), ("group", &owner.group)] {
        if let Some(value) = value {
            bounded_text(container, &format!("{field}.{name}"), value, MAX_NAME)?;
        }
    }
    Ok(())
}

/// Add Pebble's `user-id`, `user`, `group-id`, `group` fields for `owner`
/// to `item`, leaving out what is not given.
pub fn add_ownership(item: &mut Value, owner: &Ownership) {
    if let Some(id) = owner.user_id {
        item["user-id"] = json!(id);
    }
    if let Some(name) = &owner.user {
        item["user"] = json!(name);
    }
    if let Some(id) = owner.group_id {
        item["group-id"] = json!(id);
    }
    if let Some(name) = &owner.group {
        item["group"] = json!(name);
    }
}

/// The metadata part of a push of `path`.
pub fn push_metadata(path: &str, options: &PushOptions) -> Value {
    let mut file = json!({"path": path, "make-dirs": options.make_dirs});
    if let Some(p) = permissions_text(options.permissions) {
        file["permissions"] = json!(p);
    }
    add_ownership(&mut file, &options.owner);
    json!({"action": "write", "files": [file]})
}

/// The body of a make-dir of `path`.
pub fn make_dir_body(path: &str, options: &MakeDirOptions) -> Value {
    let mut dir = json!({"path": path, "make-parents": options.make_parents});
    if let Some(p) = permissions_text(options.permissions) {
        dir["permissions"] = json!(p);
    }
    add_ownership(&mut dir, &options.owner);
    json!({"action": "make-dirs", "dirs": [dir]})
}

/// The target of a listing of `path`.
pub fn list_target(path: &str, pattern: Option<&str>, itself: bool) -> String {
    let mut target = format!("/v1/files?action=list&path={}", client::query_value(path));
    if let Some(pattern) = pattern {
        target.push_str(&format!("&pattern={}", client::query_value(pattern)));
    }
    if itself {
        target.push_str("&itself=true");
    }
    target
}

/// A `/v1/files` answer: its first per-path error, if any.
fn files_outcome(container: &str, result: &Value) -> Result<(), PebbleError> {
    match file_result_error(result) {
        Some(e) => Err(wit_error(container, e)),
        None => Ok(()),
    }
}

pub fn push(
    client: &Client,
    container: &str,
    path: &str,
    data: &[u8],
    options: &PushOptions,
) -> Result<(), PebbleError> {
    bounded_text(container, "push path", path, MAX_PATH)?;
    check_ownership(container, "push options.owner", &options.owner)?;
    if data.len() > MAX_PUSH {
        return Err(PebbleError::Invalid(format!(
            "container {container}: push of {path}: {} bytes of data, at most {MAX_PUSH}",
            data.len()
        )));
    }
    let meta = push_metadata(path, options);
    let boundary = boundary();
    let bytes = client::push_body(&boundary, &meta, path, data);
    let result = client
        .sync("POST", "/v1/files", Body::Multipart { boundary, bytes })
        .map_err(|e| wit_error(container, e))?;
    files_outcome(container, &result)
}

pub fn make_dir(
    client: &Client,
    container: &str,
    path: &str,
    options: &MakeDirOptions,
) -> Result<(), PebbleError> {
    bounded_text(container, "make-dir path", path, MAX_PATH)?;
    check_ownership(container, "make-dir options.owner", &options.owner)?;
    let result = client
        .sync(
            "POST",
            "/v1/files",
            Body::Json(make_dir_body(path, options)),
        )
        .map_err(|e| wit_error(container, e))?;
    files_outcome(container, &result)
}

pub fn remove(
    client: &Client,
    container: &str,
    path: &str,
    recursive: bool,
) -> Result<(), PebbleError> {
    bounded_text(container, "remove-path path", path, MAX_PATH)?;
    let body = json!({"action": "remove", "paths": [{"path": path, "recursive": recursive}]});
    let result = client
        .sync("POST", "/v1/files", Body::Json(body))
        .map_err(|e| wit_error(container, e))?;
    files_outcome(container, &result)
}

pub fn list(
    client: &Client,
    container: &str,
    path: &str,
    pattern: Option<&str>,
    itself: bool,
) -> Result<Vec<FileInfo>, PebbleError> {
    bounded_text(container, "list-files path", path, MAX_PATH)?;
    if let Some(pattern) = pattern {
        bounded_text(container, "list-files pattern", pattern, MAX_NAME)?;
    }
    let target = list_target(path, pattern, itself);
    let result = client
        .sync("GET", &target, Body::Empty)
        .map_err(|e| wit_error(container, e))?;
    parse_files(&result).ok_or_else(|| protocol(container, "file list", &result))
}

/// The content of the file at `path`: Pebble answers a multipart body, a
/// `response` part with the JSON envelope and a `files` part per file.
pub fn pull(client: &Client, container: &str, path: &str) -> Result<Vec<u8>, PebbleError> {
    bounded_text(container, "pull path", path, MAX_PATH)?;
    let fail = |e| wit_error(container, e);
    let target = format!("/v1/files?action=read&path={}", client::query_value(path));
    let answer = client
        .send(
            "GET",
            &target,
            Body::Empty,
            Some("multipart/form-data"),
            MAX_PULL + (64 << 10),
        )
        .map_err(fail)?;
    let content_type = answer
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let Some(boundary) = client::boundary_of(content_type) else {
        // An error comes as a plain JSON envelope.
        return client::parse_envelope(answer.status, &answer.body)
            .and_then(|_| {
                Err(Error::Protocol(format!(
                    "a file read answered {content_type:?}, not multipart"
                )))
            })
            .map_err(fail);
    };
    let parts = client::parse_multipart(&answer.body, &boundary).map_err(fail)?;
    let response = parts.iter().find(|p| p.name == "response").ok_or_else(|| {
        fail(Error::Protocol(
            "a file read without its response part".into(),
        ))
    })?;
    let result = client::parse_envelope(answer.status, &response.content)
        .and_then(client::sync_result)
        .map_err(fail)?;
    if let Some(e) = file_result_error(&result) {
        return Err(fail(e));
    }
    let file = parts
        .into_iter()
        .find(|p| p.name == "files" && p.filename.as_deref() == Some(path))
        .ok_or_else(|| fail(Error::Protocol(format!("no content for {path}"))))?;
    if file.content.len() > MAX_PULL {
        return Err(PebbleError::Protocol(format!(
            "container {container}: {path} is larger than {MAX_PULL} bytes, the most pull reads"
        )));
    }
    Ok(file.content)
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
