//! Pebble's HTTP API answered from one container's simulated state: a
//! request in, an answer out, no socket (the server carries them). Every
//! change is carried out before the answer, so waiting on it answers at
//! once, as the simulated machine acts at once.

use super::files::{Entry, FileError, Fs};
use super::plan::{self, Plan, SimLayer};
use super::state::{Current, FILE_MODE, SimCheck, SimContainer, SimFile, parse_mode};
use crate::charm_dir::CommandSpec;
use crate::offline::machine::{ExitWord, ScriptedCommand, ScriptedExit, line};
use crate::pebble::client::{boundary_of, parse_multipart};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// A request as the server read it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

impl Request {
    fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A comma list that may also be given more than once (`names`).
    fn list(&self, key: &str) -> Vec<String> {
        self.query
            .iter()
            .filter(|(k, _)| k == key)
            .flat_map(|(_, v)| v.split(','))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// What to answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A body with its HTTP status and content type.
    Body {
        status: u16,
        content_type: String,
        body: Vec<u8>,
    },
    /// Switch to a websocket of an exec task: what to send on it (`None`
    /// for `control`, which only listens).
    Upgrade { output: Option<Vec<u8>> },
}

/// The reason phrase of the statuses answered here.
pub fn status_text(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Internal Server Error",
    }
}

fn json_reply(status: u16, doc: &Value) -> Reply {
    Reply::Body {
        status,
        content_type: "application/json".into(),
        body: doc.to_string().into_bytes(),
    }
}

fn sync(result: Value) -> Reply {
    json_reply(
        200,
        &json!({"type": "sync", "status-code": 200, "status": "OK", "result": result}),
    )
}

fn started(change: &str, result: Value) -> Reply {
    let mut doc = json!({"type": "async", "status-code": 202, "status": "Accepted",
        "change": change});
    if !result.is_null() {
        doc["result"] = result;
    }
    json_reply(202, &doc)
}

/// Pebble's error envelope.
pub fn error(status: u16, kind: &str, message: &str) -> Reply {
    let mut result = json!({"message": message});
    if !kind.is_empty() {
        result["kind"] = json!(kind);
    }
    json_reply(
        status,
        &json!({"type": "error", "status-code": status, "status": status_text(status),
            "result": result}),
    )
}

fn bad(message: impl AsRef<str>) -> Reply {
    error(400, "", message.as_ref())
}

/// An exec task: what its websockets send, and which are open.
#[derive(Debug, Clone, Default)]
struct Task {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    opened: BTreeSet<String>,
}

/// One container's Pebble during an event.
#[derive(Debug, Clone)]
pub struct Sim {
    can_connect: bool,
    layers: Vec<SimLayer>,
    plan: Plan,
    /// Each service's definition when it was last started (at the event's
    /// start: the plan then), which replan compares with the plan now.
    started_with: BTreeMap<String, Map<String, Value>>,
    services: BTreeMap<String, Current>,
    checks: BTreeMap<String, SimCheck>,
    fs: Fs,
    exec: BTreeMap<String, ScriptedCommand>,
    /// wasm-charm.yaml's commands for this container, which the scripted
    /// outcomes are named after.
    commands: BTreeMap<String, CommandSpec>,
    pub calls: Vec<String>,
    changes: BTreeMap<String, Value>,
    tasks: BTreeMap<String, Task>,
    last_id: u64,
    /// When the event began, as the time files were last modified.
    now: String,
}

impl Sim {
    /// The container as the state file has it (checked by
    /// [`super::state::check`]), its calls cleared for the event.
    pub fn new(
        state: SimContainer,
        commands: BTreeMap<String, CommandSpec>,
        now: String,
    ) -> Result<Sim, String> {
        let plan = plan::combine(&state.layers)?;
        let mut files = BTreeMap::new();
        for (path, file) in &state.files {
            files.insert(path.clone(), file.decode()?);
        }
        Ok(Sim {
            can_connect: state.can_connect,
            started_with: plan.services.clone(),
            plan,
            layers: state.layers,
            services: state.services,
            checks: state.checks,
            fs: Fs::new(files, state.dirs),
            exec: state.exec,
            commands,
            calls: Vec::new(),
            changes: BTreeMap::new(),
            tasks: BTreeMap::new(),
            last_id: 0,
            now,
        })
    }

    /// The container for the state file.
    pub fn into_state(self) -> SimContainer {
        let mut services = self.services;
        for name in self.plan.services.keys() {
            services.entry(name.clone()).or_default();
        }
        SimContainer {
            can_connect: self.can_connect,
            layers: self.layers,
            services,
            checks: self.checks,
            files: self
                .fs
                .files
                .iter()
                .map(|(p, (bytes, mode))| (p.clone(), SimFile::encode(bytes, *mode)))
                .collect(),
            dirs: self.fs.dirs,
            exec: self.exec,
            calls: self.calls,
        }
    }

    fn next_id(&mut self) -> String {
        self.last_id += 1;
        self.last_id.to_string()
    }

    /// Answer one request.
    pub fn route(&mut self, req: &Request) -> Reply {
        let parts: Vec<&str> = req.path.trim_start_matches('/').split('/').collect();
        let method = req.method.as_str();
        let allowed = |ok: &[&str]| ok.contains(&method);
        match parts.as_slice() {
            ["v1", "system-info"] if allowed(&["GET"]) => {
                self.calls.push("system-info".into());
                sync(json!({"version": "wasm-charm-offline", "boot-id": "offline"}))
            }
            ["v1", "layers"] if allowed(&["POST"]) => self.add_layer(req),
            ["v1", "plan"] if allowed(&["GET"]) => {
                self.calls.push("get-plan".into());
                match req.param("format") {
                    None | Some("yaml") => sync(Value::String(self.plan.yaml())),
                    Some(f) => bad(format!("invalid format {f:?}")),
                }
            }
            ["v1", "services"] if allowed(&["GET"]) => self.get_services(req),
            ["v1", "services"] if allowed(&["POST"]) => self.services_action(req),
            ["v1", "checks"] if allowed(&["GET"]) => self.get_checks(req),
            ["v1", "changes", id] | ["v1", "changes", id, "wait"] if allowed(&["GET"]) => {
                match self.changes.get(*id) {
                    Some(change) => sync(change.clone()),
                    None => error(
                        404,
                        "not-found",
                        &format!("cannot find change with id \"{id}\""),
                    ),
                }
            }
            ["v1", "files"] if allowed(&["GET"]) => self.get_files(req),
            ["v1", "files"] if allowed(&["POST"]) => self.post_files(req),
            ["v1", "exec"] if allowed(&["POST"]) => self.exec(req),
            ["v1", "tasks", task, "websocket", id] if allowed(&["GET"]) => self.websocket(task, id),
            [
                "v1",
                "system-info" | "layers" | "plan" | "services" | "checks" | "files" | "exec",
            ]
            | ["v1", "changes", ..]
            | ["v1", "tasks", ..] => error(405, "", "method not allowed"),
            _ => error(404, "", "not found"),
        }
    }

    fn json_body(req: &Request) -> Result<Value, Reply> {
        serde_json::from_slice(&req.body)
            .map_err(|e| bad(format!("cannot decode request body: {e}")))
    }

    fn add_layer(&mut self, req: &Request) -> Reply {
        let body = match Self::json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let field = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
        let combine = body.get("combine").and_then(Value::as_bool) == Some(true);
        let label = field("label");
        self.calls.push(format!(
            "add-layer {label}{}",
            if combine { " combine" } else { "" }
        ));
        if field("action") != "add" {
            return bad(format!("invalid action {:?}", field("action")));
        }
        if label.is_empty() {
            return bad("label must be set");
        }
        if field("format") != "yaml" {
            return bad(format!("invalid format {:?}", field("format")));
        }
        let layer = match plan::parse_layer(label, field("layer")) {
            Ok(l) => l,
            Err(e) => return bad(e),
        };
        let mut layers = self.layers.clone();
        match layers.iter_mut().find(|l| l.label == label) {
            Some(_) if !combine => return bad(format!("layer \"{label}\" already exists")),
            Some(existing) => plan::combine_into(existing, &layer),
            None => layers.push(layer),
        }
        match plan::combine(&layers) {
            Ok(plan) => {
                self.layers = layers;
                self.plan = plan;
                sync(Value::Bool(true))
            }
            Err(e) => bad(e),
        }
    }

    fn current(&self, service: &str) -> Current {
        self.services.get(service).copied().unwrap_or_default()
    }

    fn get_services(&mut self, req: &Request) -> Reply {
        let names = req.list("names");
        self.calls
            .push(format!("get-services{}", names_suffix(&names)));
        let list: Vec<Value> = self
            .plan
            .services
            .keys()
            .filter(|n| names.is_empty() || names.contains(n))
            .map(|n| {
                json!({"name": n, "startup": self.plan.startup(n),
                    "current": self.current(n).as_str()})
            })
            .collect();
        sync(Value::Array(list))
    }

    /// Start `name` now, with the definition the plan gives it.
    fn start(&mut self, name: &str) {
        self.services.insert(name.to_string(), Current::Active);
        if let Some(def) = self.plan.services.get(name) {
            self.started_with.insert(name.to_string(), def.clone());
        }
    }

    fn services_action(&mut self, req: &Request) -> Reply {
        let body = match Self::json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let action = body
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let names = strings(&body, "services");
        self.calls.push(format!("{action}{}", names_suffix(&names)));
        // Pebble's checks, in its order and words.
        match action.as_str() {
            "replan" | "autostart" if !names.is_empty() => {
                return bad(format!("{action} accepts no service names"));
            }
            "start" | "stop" | "restart" if names.is_empty() => {
                return bad(format!("must specify services for {action} action"));
            }
            _ => {}
        }
        if let Some(unknown) = names.iter().find(|n| !self.plan.services.contains_key(*n)) {
            return bad(format!(
                "cannot {action} services: service \"{unknown}\" does not exist"
            ));
        }
        let enabled: Vec<String> = self
            .plan
            .services
            .keys()
            .filter(|n| self.plan.startup(n) == "enabled")
            .cloned()
            .collect();
        match action.as_str() {
            "start" | "restart" => names.iter().for_each(|n| self.start(n)),
            "stop" => {
                for n in &names {
                    self.services.insert(n.clone(), Current::Inactive);
                }
            }
            "autostart" if enabled.is_empty() => {
                return error(400, "no-default-services", "no default services");
            }
            "autostart" => enabled.iter().for_each(|n| {
                if self.current(n) != Current::Active {
                    self.start(n);
                }
            }),
            "replan" => {
                // Enabled services not running start; running ones whose
                // definition changed since they started restart.
                let names: Vec<String> = self.plan.services.keys().cloned().collect();
                for n in names {
                    let running = self.current(&n) == Current::Active;
                    let changed = self.started_with.get(&n) != self.plan.services.get(&n);
                    if (running && changed) || (!running && enabled.contains(&n)) {
                        self.start(&n);
                    }
                }
            }
            other => return bad(format!("invalid action {other:?}")),
        }
        let id = self.next_id();
        let change = json!({"id": id, "kind": action, "summary":
            format!("{action} service{}", names_suffix(&names)),
            "status": "Done", "ready": true, "spawn-time": self.now, "ready-time": self.now,
            "tasks": []});
        self.changes.insert(id.clone(), change);
        started(&id, Value::Null)
    }

    fn get_checks(&mut self, req: &Request) -> Reply {
        let names = req.list("names");
        let level = req.param("level");
        self.calls
            .push(format!("get-checks{}", names_suffix(&names)));
        if let Some(l) = level
            && !matches!(l, "alive" | "ready")
        {
            return bad(format!("invalid level {l:?}"));
        }
        let mut list = Vec::new();
        for (name, def) in &self.plan.checks {
            let own_level = def.get("level").and_then(Value::as_str);
            if (!names.is_empty() && !names.contains(name))
                || level.is_some_and(|l| own_level != Some(l))
            {
                continue;
            }
            let state = self.checks.get(name).cloned().unwrap_or_default();
            let threshold = state.threshold.unwrap_or_else(|| self.plan.threshold(name));
            let failures = state.failures.unwrap_or(match state.status {
                super::state::CheckStatus::Down => threshold,
                _ => 0,
            });
            let mut check = json!({"name": name,
                "startup": def.get("startup").and_then(Value::as_str).unwrap_or("enabled"),
                "status": state.status.as_str(), "threshold": threshold});
            if let Some(l) = own_level {
                check["level"] = json!(l);
            }
            if failures > 0 {
                check["failures"] = json!(failures);
            }
            list.push(check);
        }
        sync(Value::Array(list))
    }

    fn get_files(&mut self, req: &Request) -> Reply {
        let path = req.param("path").unwrap_or_default().to_string();
        match req.param("action") {
            Some("read") => {
                self.calls.push(format!("pull {path}"));
                self.read(&path)
            }
            Some("list") => {
                self.calls.push(format!("list-files {path}"));
                let itself = req.param("itself") == Some("true");
                match self.fs.list(&path, itself) {
                    Ok(entries) => sync(Value::Array(
                        entries.iter().map(|e| self.file_info(e)).collect(),
                    )),
                    Err(e) if e.kind == "not-found" => error(404, e.kind, &e.message),
                    Err(e) => error(400, e.kind, &e.message),
                }
            }
            other => bad(format!("invalid action {:?}", other.unwrap_or_default())),
        }
    }

    fn file_info(&self, e: &Entry) -> Value {
        let mut info = json!({"path": e.path, "name": e.name,
            "type": if e.dir { "directory" } else { "file" },
            "permissions": format!("{:03o}", e.mode), "last-modified": self.now,
            "user-id": 0, "user": "root", "group-id": 0, "group": "root"});
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
                body.extend_from_slice(bytes);
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

    fn post_files(&mut self, req: &Request) -> Reply {
        let content_type = req.content_type.as_deref().unwrap_or_default();
        if let Some(boundary) = boundary_of(content_type) {
            return self.write(req, &boundary);
        }
        let body = match Self::json_body(req) {
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
                    let done = self.fs.make_dir(&path, flag(&dir, "make-parents"));
                    results.push(file_result(&path, done));
                }
            }
            Some("remove") => {
                for entry in entries("paths") {
                    let path = path_of(&entry).unwrap_or_default();
                    self.calls.push(format!("remove-path {path}"));
                    let done = self.fs.remove(&path, flag(&entry, "recursive"));
                    results.push(file_result(&path, done));
                }
            }
            other => {
                return bad(format!("invalid action {:?}", other.unwrap_or_default()));
            }
        }
        sync(Value::Array(results))
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
            let path = file
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            self.calls.push(format!("push {path}"));
            let mode = match file.get("permissions").and_then(Value::as_str) {
                None => Some(FILE_MODE),
                Some(p) => parse_mode(p),
            };
            let content = parts
                .iter()
                .find(|p| p.name == "files" && p.filename.as_deref() == Some(path.as_str()));
            let done = match (mode, content) {
                (None, _) => Err(FileError {
                    kind: "generic-file-error",
                    message: "invalid permissions".into(),
                }),
                (_, None) => Err(FileError {
                    kind: "generic-file-error",
                    message: format!("no file content for path {path}"),
                }),
                (Some(mode), Some(part)) => self.fs.write(
                    &path,
                    part.content.clone(),
                    file.get("make-dirs").and_then(Value::as_bool) == Some(true),
                    mode,
                ),
            };
            results.push(file_result(&path, done));
        }
        sync(Value::Array(results))
    }

    /// The declared command `argv` runs: the longest declared argv it
    /// starts with (all of it when the command takes no arguments).
    fn command_of(&self, argv: &[String]) -> Option<&str> {
        self.commands
            .iter()
            .filter(|(_, spec)| {
                argv.starts_with(&spec.argv) && (spec.args || argv.len() == spec.argv.len())
            })
            .max_by_key(|(_, spec)| spec.argv.len())
            .map(|(name, _)| name.as_str())
    }

    fn exec(&mut self, req: &Request) -> Reply {
        let body = match Self::json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let argv = strings(&body, "command");
        let Some((program, args)) = argv.split_first() else {
            return bad("must specify command");
        };
        self.calls.push(format!("exec {}", line(program, args)));
        let Some(name) = self.command_of(&argv).map(str::to_string) else {
            return bad(format!(
                "cannot find executable \"{program}\" (the simulated container runs only \
                 the commands wasm-charm.yaml declares for it)"
            ));
        };
        let scripted = self.exec.get(&name).cloned().unwrap_or_default();
        let timeout = body
            .get("timeout")
            .and_then(Value::as_str)
            .unwrap_or("0s")
            .to_string();
        let change = self.next_id();
        let task = self.next_id();
        let summary = format!("Execute command \"{program}\"");
        let (status, code, err) = match scripted.exit {
            ScriptedExit::Code(c) => ("Done", c, None),
            ScriptedExit::Word(ExitWord::TimedOut) => (
                "Error",
                -1,
                Some(format!(
                    "cannot perform the following tasks:\n- {summary} (timed out after \
                     {timeout}: context deadline exceeded)"
                )),
            ),
        };
        let mut doc = json!({"id": change, "kind": "exec", "summary": summary,
            "status": status, "ready": true, "spawn-time": self.now, "ready-time": self.now,
            "tasks": [{"id": task, "kind": "exec", "summary": summary, "status": status,
                "data": {"exit-code": code}}]});
        if let Some(err) = err {
            doc["err"] = json!(err);
        }
        self.changes.insert(change.clone(), doc);
        self.tasks.insert(
            task.clone(),
            Task {
                stdout: scripted.stdout.into_bytes(),
                stderr: scripted.stderr.into_bytes(),
                opened: BTreeSet::new(),
            },
        );
        started(
            &change,
            json!({"task-id": task, "environment": {}, "working-dir": "/"}),
        )
    }

    fn websocket(&mut self, task: &str, id: &str) -> Reply {
        let Some(t) = self.tasks.get_mut(task) else {
            return error(
                404,
                "not-found",
                &format!("cannot find task with id \"{task}\""),
            );
        };
        if !matches!(id, "control" | "stdio" | "stderr") || !t.opened.insert(id.to_string()) {
            return error(
                404,
                "not-found",
                &format!("cannot find websocket with id \"{id}\""),
            );
        }
        let output = match id {
            "stdio" => Some(t.stdout.clone()),
            "stderr" => Some(t.stderr.clone()),
            _ => None,
        };
        Reply::Upgrade { output }
    }
}

/// The strings of a request's array field; none when it is absent or not
/// an array (Pebble then answers as for an empty one).
fn strings(body: &Value, key: &str) -> Vec<String> {
    body.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn names_suffix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(" {}", names.join(" "))
    }
}

fn file_error(e: &FileError) -> Value {
    json!({"kind": e.kind, "message": e.message})
}

fn file_result(path: &str, done: Result<(), FileError>) -> Value {
    match done {
        Ok(()) => json!({"path": path}),
        Err(e) => json!({"path": path, "error": file_error(&e)}),
    }
}

/// A percent-encoded query string, decoded.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[path = "api_tests.rs"]
mod tests;
