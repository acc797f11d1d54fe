//! `/v1/files`: read (multipart, one part per file then the `response`
//! part), list, write (multipart), make-dirs and remove, over whichever
//! file system the container has, with Pebble's per-file errors.

use super::api::Sim;
use super::backend::Files;
use super::files::{Entry, FileError, Owner, owner_not_found, owner_of, parent, permissions_of};
use super::reply::{Reply, Request, bad, error, json_body, sync, text};
use super::state::{DIR_MODE, FILE_MODE};
use crate::pebble::client::{boundary_of, parse_multipart};
use serde_json::{Value, json};

fn file_error(e: &FileError) -> Value {
    json!({"kind": e.kind, "message": e.message})
}

fn file_result(path: &str, done: Result<(), FileError>) -> Value {
    match done {
        Ok(()) => json!({"path": path}),
        Err(e) => json!({"path": path, "error": file_error(&e)}),
    }
}

/// A user or group name Pebble gives beside its id.
fn account(id: u32) -> Option<&'static str> {
    (id == 0).then_some("root")
}

impl Sim {
    pub(super) fn get_files(&mut self, req: &Request) -> Reply {
        let path = req.param("path").unwrap_or_default().to_string();
        match req.param("action") {
            Some("read") => {
                self.calls.push(format!("pull {path}"));
                self.read(&path)
            }
            Some("list") => {
                self.calls.push(format!("list-files {path}"));
                let itself = req.param("itself") == Some("true");
                let pattern = req.param("pattern").unwrap_or_default();
                if super::glob::matches(pattern, "").is_err() {
                    return bad("syntax error in pattern");
                }
                match self.fs.list(&path, itself) {
                    Ok(entries) => sync(Value::Array(
                        entries
                            .iter()
                            .filter(|e| {
                                pattern.is_empty()
                                    || super::glob::matches(pattern, &e.name) == Ok(true)
                            })
                            .map(|e| self.file_info(e))
                            .collect(),
                    )),
                    Err(e) if e.kind == "not-found" => error(404, e.kind, &e.message),
                    Err(e) => error(400, e.kind, &e.message),
                }
            }
            other => bad(format!("invalid action {:?}", other.unwrap_or_default())),
        }
    }

    fn file_info(&self, e: &Entry) -> Value {
        let (modified, user_id, group_id) = match &e.stat {
            Some(s) => (s.modified.clone(), s.user_id, s.group_id),
            None => (self.time(), 0, 0),
        };
        let mut info = json!({"path": e.path, "name": e.name,
            "type": if e.dir { "directory" } else { "file" },
            "permissions": format!("{:03o}", e.mode), "last-modified": modified,
            "user-id": user_id, "group-id": group_id});
        if let Some(user) = account(user_id) {
            info["user"] = json!(user);
        }
        if let Some(group) = account(group_id) {
            info["group"] = json!(group);
        }
        // In memory, the owner a push or make-dir named, as named.
        if e.stat.is_none()
            && let Some(owner) = self.owners.get(&e.path)
        {
            let fields = [
                ("user-id", owner.user_id.map(|i| json!(i))),
                ("user", owner.user.as_ref().map(|u| json!(u))),
                ("group-id", owner.group_id.map(|i| json!(i))),
                ("group", owner.group.as_ref().map(|g| json!(g))),
            ];
            for (key, value) in fields {
                match (value, info.as_object_mut()) {
                    (Some(v), Some(map)) => {
                        map.insert(key.into(), v);
                    }
                    (None, Some(map)) => {
                        map.remove(key);
                    }
                    _ => {}
                }
            }
        }
        if let Some(size) = e.size {
            info["size"] = json!(size);
        }
        info
    }

    /// A file read: multipart, the file's part then the `response` part.
    fn read(&self, path: &str) -> Reply {
        let boundary = "wasm-charm-offline-pebble-0123456789abcdef";
        let mut body = Vec::new();
        let result = match self.fs.read(path) {
            Ok(bytes) => {
                body.extend_from_slice(
                    format!(
                        "--{boundary}\r\nContent-Type: application/octet-stream\r\n\
                         Content-Disposition: form-data; name=\"files\"; filename=\"{}\"\r\n\r\n",
                        path.replace('\\', "\\\\").replace('"', "\\\"")
                    )
                    .as_bytes(),
                );
                body.extend_from_slice(&bytes);
                body.extend_from_slice(b"\r\n");
                json!([{"path": path}])
            }
            Err(e) => json!([{"path": path, "error": file_error(&e)}]),
        };
        let envelope = json!({"type": "sync", "status-code": 200, "status": "OK",
            "result": result});
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Type: application/json\r\n\
                 Content-Disposition: form-data; name=\"response\"\r\n\r\n{envelope}\r\n\
                 --{boundary}--\r\n"
            )
            .as_bytes(),
        );
        Reply::Body {
            status: 200,
            content_type: format!("multipart/form-data; boundary={boundary}"),
            body,
        }
    }

    pub(super) fn post_files(&mut self, req: &Request) -> Reply {
        let content_type = req.content_type.as_deref().unwrap_or_default();
        if let Some(boundary) = boundary_of(content_type) {
            return self.write(req, &boundary);
        }
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let entries = |key: &str| {
            body.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let flag = |e: &Value, k: &str| e.get(k).and_then(Value::as_bool) == Some(true);
        let path_of = |e: &Value| e.get("path").and_then(Value::as_str).map(str::to_string);
        let mut results = Vec::new();
        match body.get("action").and_then(Value::as_str) {
            Some("make-dirs") => {
                for dir in entries("dirs") {
                    let path = path_of(&dir).unwrap_or_default();
                    self.calls.push(format!("make-dir {path}"));
                    // Pebble's order: the mode, then the owner, then the directory.
                    let done = permissions_of(&dir, DIR_MODE).and_then(|mode| {
                        let owner = owner_of(&dir)?;
                        self.known(&owner)?;
                        // Pebble gives the parents it makes the directory's
                        // mode and owner too.
                        let parents = if flag(&dir, "make-parents") {
                            self.missing_parents(&path)
                        } else {
                            Vec::new()
                        };
                        self.fs.make_dir(&path, flag(&dir, "make-parents"), mode)?;
                        for made in parents {
                            self.own(&made, owner.clone())?;
                        }
                        self.own(&path, owner)
                    });
                    results.push(file_result(&path, done));
                }
            }
            Some("remove") => {
                for entry in entries("paths") {
                    let path = path_of(&entry).unwrap_or_default();
                    self.calls.push(format!("remove-path {path}"));
                    let done = self.fs.remove(&path, flag(&entry, "recursive"));
                    if done.is_ok() {
                        let below = format!("{path}/");
                        self.owners
                            .retain(|p, _| p != &path && !p.starts_with(&below));
                    }
                    results.push(file_result(&path, done));
                }
            }
            other => {
                return bad(format!("invalid action {:?}", other.unwrap_or_default()));
            }
        }
        sync(Value::Array(results))
    }

    /// The ancestors of `path` that do not exist yet, nearest first.
    fn missing_parents(&self, path: &str) -> Vec<String> {
        let mut missing = Vec::new();
        let mut at = parent(path);
        while at != "/" && self.fs.list(at, true).is_err() {
            missing.push(at.to_string());
            at = parent(at);
        }
        missing
    }

    /// Pebble looks the owner's names up before it writes: refused, per
    /// file, when the simulated container lacks them (a real directory's
    /// are looked up as it chowns).
    fn known(&self, owner: &Owner) -> Result<(), FileError> {
        let Files::Memory(fs) = &self.fs else {
            return Ok(());
        };
        match fs.unknown_name(owner.user.as_deref(), owner.group.as_deref()) {
            Some((name, user)) => Err(owner_not_found(&name, user)),
            None => Ok(()),
        }
    }

    /// `path` now belongs to `owner`: kept beside it in memory; chowned
    /// in the process mode only when running as root, since nobody else
    /// may give a file away (then the owner is accepted and ignored).
    fn own(&mut self, path: &str, owner: Owner) -> Result<(), FileError> {
        match &self.fs {
            Files::Memory(_) => {
                if owner.is_set() {
                    self.owners.insert(path.to_string(), owner);
                } else {
                    self.owners.remove(path);
                }
                Ok(())
            }
            Files::Dir(fs) => fs.chown(path, &owner),
        }
    }

    fn write(&mut self, req: &Request, boundary: &str) -> Reply {
        let parts = match parse_multipart(&req.body, boundary) {
            Ok(p) => p,
            Err(e) => return bad(e.to_string()),
        };
        let Some(meta) = parts
            .iter()
            .find(|p| p.name == "request")
            .and_then(|p| serde_json::from_slice::<Value>(&p.content).ok())
        else {
            return bad("a file write without its JSON `request` part");
        };
        if meta.get("action").and_then(Value::as_str) != Some("write") {
            return bad("a multipart file request must have action \"write\"");
        }
        let files = meta
            .get("files")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut results = Vec::new();
        for file in files {
            let path = text(&file, "path");
            self.calls.push(format!("push {path}"));
            let make_dirs = file.get("make-dirs").and_then(Value::as_bool) == Some(true);
            let content = parts
                .iter()
                .find(|p| p.name == "files" && p.filename.as_deref() == Some(path.as_str()));
            let done = match content {
                None => Err(FileError {
                    kind: "generic-file-error",
                    message: format!("no file content for path {path:?}"),
                }),
                Some(part) => owner_of(&file).and_then(|owner| {
                    self.known(&owner)?;
                    // Pebble makes the directories before it reads the mode.
                    let mode = permissions_of(&file, FILE_MODE).inspect_err(|_| {
                        if make_dirs {
                            let _ = self.fs.make_dir(parent(&path), true, DIR_MODE);
                        }
                    })?;
                    self.fs
                        .write(&path, part.content.clone(), make_dirs, mode)?;
                    self.own(&path, owner)
                }),
            };
            results.push(file_result(&path, done));
        }
        sync(Value::Array(results))
    }
}
