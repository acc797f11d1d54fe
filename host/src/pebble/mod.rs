//! The `pebble` WIT interface (DESIGN §12): Pebble in each container declared
//! in metadata.yaml, reached over `/charm/containers/<name>/pebble.socket`
//! under the workload root (`WASM_CHARM_ROOT` in tests), every call bounded
//! by the handler's deadline.
//!
//! * [`client`]: HTTP over the unix socket and Pebble's envelope.
//! * [`exec`]: the commands the manifest declares for a container, run
//!   through Pebble's exec over [`websocket`]s.
//! * [`Pebble`]: the interface for one handler.

pub mod client;
pub mod exec;
pub mod websocket;

use crate::bindings::pebble::{
    ApiError, CheckInfo, CheckLevel, FileInfo, Host, PebbleError, ServiceInfo,
};
use crate::bindings::workload::CommandOutput;
use crate::charm_dir::ContainerGrant;
use crate::workload_root::WorkloadRoot;
use client::{Body, Client, Error, MAX_PULL};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a call may take when no handler deadline was set (the pipeline
/// always sets one).
const CALL_WITHOUT_DEADLINE: Duration = Duration::from_secs(30);

/// The socket of `container`'s Pebble, as Juju mounts it.
pub fn socket_path(container: &str) -> String {
    format!("/charm/containers/{container}/pebble.socket")
}

/// A client for `container`'s Pebble under `root`, finishing by
/// `deadline`. `None`: the name makes no path (a `/` or `..` in it).
pub fn client_for(root: &WorkloadRoot, container: &str, deadline: Instant) -> Option<Client> {
    if container.is_empty() || container.contains('/') {
        return None;
    }
    let socket = root.host_path(Path::new(&socket_path(container)))?;
    Some(Client::new(socket, deadline))
}

/// The `pebble` interface for one handler: the declared containers, where
/// their sockets are, and the handler's deadline.
#[derive(Debug, Clone)]
pub struct Pebble {
    containers: Arc<Vec<String>>,
    /// wasm-charm.yaml `workload.containers`: what may be exec'd where.
    grants: Arc<BTreeMap<String, ContainerGrant>>,
    root: WorkloadRoot,
    deadline: Option<Instant>,
}

impl Pebble {
    pub fn new(containers: Vec<String>, root: WorkloadRoot) -> Pebble {
        Pebble {
            containers: Arc::new(containers),
            grants: Arc::default(),
            root,
            deadline: None,
        }
    }

    /// The commands the manifest declares per container, for `exec`.
    pub fn with_commands(mut self, grants: BTreeMap<String, ContainerGrant>) -> Pebble {
        self.grants = Arc::new(grants);
        self
    }

    /// No container: every call is refused as undeclared.
    pub fn none() -> Pebble {
        Pebble::new(Vec::new(), WorkloadRoot::machine())
    }

    /// Calls end by the handler's deadline.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    fn client(&self, container: &str) -> Result<Client, PebbleError> {
        let undeclared = || {
            PebbleError::Undeclared(format!(
                "no container named {container:?} is declared in metadata.yaml (containers: {})",
                if self.containers.is_empty() {
                    "none".to_string()
                } else {
                    self.containers.join(", ")
                }
            ))
        };
        if !self.containers.iter().any(|c| c == container) {
            return Err(undeclared());
        }
        let deadline = self.deadline();
        client_for(&self.root, container, deadline).ok_or_else(undeclared)
    }

    fn deadline(&self) -> Instant {
        self.deadline
            .unwrap_or_else(|| Instant::now() + CALL_WITHOUT_DEADLINE)
    }

    fn services(
        &self,
        container: &str,
        action: &str,
        services: Vec<String>,
    ) -> Result<(), PebbleError> {
        let client = self.client(container)?;
        let body = json!({"action": action, "services": services});
        client
            .act("POST", "/v1/services", Body::Json(body))
            .map_err(|e| wit_error(container, e))
    }
}

/// A client error as the guest gets it, naming the container.
pub fn wit_error(container: &str, e: Error) -> PebbleError {
    match e {
        Error::CannotConnect { .. } => {
            PebbleError::CannotConnect(format!("container {container}: {e}"))
        }
        Error::Api {
            status,
            kind,
            message,
        } => PebbleError::Api(ApiError {
            status_code: status,
            kind,
            message,
        }),
        Error::ChangeFailed { message, .. } => PebbleError::ChangeFailed(message),
        Error::Timeout { .. } => PebbleError::Timeout(format!("container {container}: {e}")),
        Error::Protocol(_) => PebbleError::Protocol(format!("container {container}: {e}")),
    }
}

fn protocol(container: &str, what: &str, got: &Value) -> PebbleError {
    let shown = got.to_string();
    PebbleError::Protocol(format!(
        "container {container}: {what}: {}",
        &shown[..shown.len().min(200)]
    ))
}

fn str_field(v: &Value, name: &str) -> String {
    v.get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn u32_field(v: &Value, name: &str) -> u32 {
    v.get(name)
        .and_then(Value::as_u64)
        .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// `GET /v1/services`' result.
pub fn parse_services(result: &Value) -> Option<Vec<ServiceInfo>> {
    result
        .as_array()?
        .iter()
        .map(|s| {
            Some(ServiceInfo {
                name: s.get("name")?.as_str()?.to_string(),
                startup: str_field(s, "startup"),
                current: str_field(s, "current"),
            })
        })
        .collect()
}

/// `GET /v1/checks`' result; `failures` is omitted by Pebble when 0.
pub fn parse_checks(result: &Value) -> Option<Vec<CheckInfo>> {
    result
        .as_array()?
        .iter()
        .map(|c| {
            Some(CheckInfo {
                name: c.get("name")?.as_str()?.to_string(),
                level: str_field(c, "level"),
                status: str_field(c, "status"),
                failures: u32_field(c, "failures"),
                threshold: u32_field(c, "threshold"),
            })
        })
        .collect()
}

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
            })
        })
        .collect()
}

/// The first error of a `/v1/files` result list, as Pebble's error.
fn file_result_error(result: &Value) -> Option<Error> {
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
fn boundary() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("wasm-charm-{:032x}{:08x}", nanos, std::process::id())
}

fn permissions_text(p: Option<u32>) -> Option<String> {
    p.map(|p| format!("{:03o}", p & 0o7777))
}

impl Host for Pebble {
    fn can_connect(&mut self, container: String) -> Result<bool, PebbleError> {
        let client = self.client(&container)?;
        match client.sync("GET", "/v1/system-info", Body::Empty) {
            Ok(_) => Ok(true),
            Err(Error::CannotConnect { .. } | Error::Timeout { .. }) => Ok(false),
            Err(e) => Err(wit_error(&container, e)),
        }
    }

    fn add_layer(
        &mut self,
        container: String,
        label: String,
        layer: String,
        combine: bool,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        let body = json!({"action": "add", "combine": combine, "label": label,
            "format": "yaml", "layer": layer});
        client
            .sync("POST", "/v1/layers", Body::Json(body))
            .map(drop)
            .map_err(|e| wit_error(&container, e))
    }

    fn get_plan(&mut self, container: String) -> Result<String, PebbleError> {
        let client = self.client(&container)?;
        let plan = client
            .sync("GET", "/v1/plan?format=yaml", Body::Empty)
            .map_err(|e| wit_error(&container, e))?;
        match plan {
            Value::String(s) => Ok(s),
            other => Err(protocol(&container, "a plan that is not YAML text", &other)),
        }
    }

    fn replan(&mut self, container: String) -> Result<(), PebbleError> {
        self.services(&container, "replan", Vec::new())
    }

    fn start(&mut self, container: String, services: Vec<String>) -> Result<(), PebbleError> {
        self.services(&container, "start", services)
    }

    fn stop(&mut self, container: String, services: Vec<String>) -> Result<(), PebbleError> {
        self.services(&container, "stop", services)
    }

    fn restart(&mut self, container: String, services: Vec<String>) -> Result<(), PebbleError> {
        self.services(&container, "restart", services)
    }

    fn get_services(
        &mut self,
        container: String,
        names: Vec<String>,
    ) -> Result<Vec<ServiceInfo>, PebbleError> {
        let client = self.client(&container)?;
        let mut target = "/v1/services".to_string();
        if !names.is_empty() {
            target.push_str(&format!("?names={}", client::query_value(&names.join(","))));
        }
        let result = client
            .sync("GET", &target, Body::Empty)
            .map_err(|e| wit_error(&container, e))?;
        parse_services(&result).ok_or_else(|| protocol(&container, "services", &result))
    }

    fn get_checks(
        &mut self,
        container: String,
        names: Vec<String>,
        level: Option<CheckLevel>,
    ) -> Result<Vec<CheckInfo>, PebbleError> {
        let client = self.client(&container)?;
        let mut query = Vec::new();
        if let Some(level) = level {
            query.push(format!(
                "level={}",
                match level {
                    CheckLevel::Alive => "alive",
                    CheckLevel::Ready => "ready",
                }
            ));
        }
        if !names.is_empty() {
            query.push(format!("names={}", client::query_value(&names.join(","))));
        }
        let target = if query.is_empty() {
            "/v1/checks".to_string()
        } else {
            format!("/v1/checks?{}", query.join("&"))
        };
        let result = client
            .sync("GET", &target, Body::Empty)
            .map_err(|e| wit_error(&container, e))?;
        parse_checks(&result).ok_or_else(|| protocol(&container, "checks", &result))
    }

    fn push(
        &mut self,
        container: String,
        path: String,
        data: Vec<u8>,
        make_dirs: bool,
        permissions: Option<u32>,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        let mut file = json!({"path": path, "make-dirs": make_dirs});
        if let Some(p) = permissions_text(permissions) {
            file["permissions"] = json!(p);
        }
        let meta = json!({"action": "write", "files": [file]});
        let boundary = boundary();
        let bytes = client::push_body(&boundary, &meta, &path, &data);
        let result = client
            .sync("POST", "/v1/files", Body::Multipart { boundary, bytes })
            .map_err(|e| wit_error(&container, e))?;
        match file_result_error(&result) {
            Some(e) => Err(wit_error(&container, e)),
            None => Ok(()),
        }
    }

    fn pull(&mut self, container: String, path: String) -> Result<Vec<u8>, PebbleError> {
        let client = self.client(&container)?;
        let target = format!("/v1/files?action=read&path={}", client::query_value(&path));
        let answer = client
            .send(
                "GET",
                &target,
                Body::Empty,
                Some("multipart/form-data"),
                MAX_PULL + (64 << 10),
            )
            .map_err(|e| wit_error(&container, e))?;
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
                .map_err(|e| wit_error(&container, e));
        };
        let parts = client::parse_multipart(&answer.body, &boundary)
            .map_err(|e| wit_error(&container, e))?;
        let response = parts.iter().find(|p| p.name == "response").ok_or_else(|| {
            wit_error(
                &container,
                Error::Protocol("a file read without its response part".into()),
            )
        })?;
        let result = client::parse_envelope(answer.status, &response.content)
            .and_then(client::sync_result)
            .map_err(|e| wit_error(&container, e))?;
        if let Some(e) = file_result_error(&result) {
            return Err(wit_error(&container, e));
        }
        let file = parts
            .into_iter()
            .find(|p| p.name == "files" && p.filename.as_deref() == Some(path.as_str()))
            .ok_or_else(|| {
                wit_error(
                    &container,
                    Error::Protocol(format!("no content for {path}")),
                )
            })?;
        if file.content.len() > MAX_PULL {
            return Err(PebbleError::Protocol(format!(
                "container {container}: {path} is larger than {MAX_PULL} bytes, the most pull reads"
            )));
        }
        Ok(file.content)
    }

    fn list_files(
        &mut self,
        container: String,
        path: String,
    ) -> Result<Vec<FileInfo>, PebbleError> {
        let client = self.client(&container)?;
        let target = format!("/v1/files?action=list&path={}", client::query_value(&path));
        let result = client
            .sync("GET", &target, Body::Empty)
            .map_err(|e| wit_error(&container, e))?;
        parse_files(&result).ok_or_else(|| protocol(&container, "file list", &result))
    }

    fn make_dir(
        &mut self,
        container: String,
        path: String,
        make_parents: bool,
        permissions: Option<u32>,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        let mut dir = json!({"path": path, "make-parents": make_parents});
        if let Some(p) = permissions_text(permissions) {
            dir["permissions"] = json!(p);
        }
        let result = client
            .sync(
                "POST",
                "/v1/files",
                Body::Json(json!({"action": "make-dirs", "dirs": [dir]})),
            )
            .map_err(|e| wit_error(&container, e))?;
        match file_result_error(&result) {
            Some(e) => Err(wit_error(&container, e)),
            None => Ok(()),
        }
    }

    fn remove_path(
        &mut self,
        container: String,
        path: String,
        recursive: bool,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        let body = json!({"action": "remove", "paths": [{"path": path, "recursive": recursive}]});
        let result = client
            .sync("POST", "/v1/files", Body::Json(body))
            .map_err(|e| wit_error(&container, e))?;
        match file_result_error(&result) {
            Some(e) => Err(wit_error(&container, e)),
            None => Ok(()),
        }
    }

    fn exec(
        &mut self,
        container: String,
        name: String,
        args: Vec<String>,
    ) -> Result<CommandOutput, PebbleError> {
        let client = self.client(&container)?;
        let spec = self
            .grants
            .get(&container)
            .and_then(|g| g.commands.get(&name))
            .ok_or_else(|| {
                PebbleError::Undeclared(format!(
                    "command `{name}` is not declared for container {container} in \
                     wasm-charm.yaml workload.containers.{container}.commands"
                ))
            })?;
        let argv = exec::argv(&container, &name, spec, &args).map_err(|r| match r {
            exec::Refused::Undeclared(m) => PebbleError::Undeclared(m),
            exec::Refused::Unusable(m) => PebbleError::Protocol(m),
        })?;
        let until = exec::end(spec.timeout, client.deadline(), Instant::now());
        exec::run(&client, &argv, until).map_err(|e| wit_error(&container, e))
    }
}

/// Register the `pebble` interface, answered by the [`Pebble`] that `get`
/// finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Pebble,
) -> wasmtime::Result<()> {
    crate::bindings::pebble::add_to_linker::<T, wasmtime::component::HasSelf<Pebble>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_parse_as_pebble_documents_them() {
        let services = json!([{"name": "web", "startup": "enabled", "current": "active",
            "current-since": "2026-07-01T10:00:00Z"}]);
        assert_eq!(
            parse_services(&services),
            Some(vec![ServiceInfo {
                name: "web".into(),
                startup: "enabled".into(),
                current: "active".into()
            }])
        );
        let checks = json!([{"name": "up", "level": "ready", "startup": "enabled",
            "status": "down", "failures": 3, "threshold": 3},
            {"name": "alive", "status": "up", "threshold": 1}]);
        let checks = parse_checks(&checks).unwrap();
        assert_eq!((checks[0].failures, checks[0].status.as_str()), (3, "down"));
        assert_eq!((checks[1].failures, checks[1].level.as_str()), (0, ""));
        let files = json!([{"path": "/etc/web/a.conf", "name": "a.conf", "type": "file",
            "size": 12, "permissions": "644", "last-modified": "2026-07-01T10:00:00Z",
            "user-id": 0, "user": "root", "group-id": 0, "group": "root"}]);
        let files = parse_files(&files).unwrap();
        assert_eq!((files[0].permissions, files[0].size), (0o644, Some(12)));
        assert_eq!(parse_services(&json!({"not": "a list"})), None);
        assert_eq!(
            file_result_error(
                &json!([{"path": "/x", "error": {"kind": "not-found", "message": "gone"}}])
            ),
            Some(Error::Api {
                status: 200,
                kind: "not-found".into(),
                message: "gone".into()
            })
        );
        assert_eq!(file_result_error(&json!([{"path": "/x"}])), None);
    }

    #[test]
    fn undeclared_containers_and_missing_sockets() {
        let dir = std::env::temp_dir().join(format!("pebble-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = WorkloadRoot::new(dir.clone()).unwrap();
        let mut pebble = Pebble::new(vec!["web".into()], root);
        pebble.set_deadline(Instant::now() + Duration::from_secs(5));
        match pebble.can_connect("db".into()) {
            Err(PebbleError::Undeclared(m)) => {
                assert!(m.contains("\"db\"") && m.contains("web"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(pebble.can_connect("web".into()), Ok(false));
        match pebble.get_plan("web".into()) {
            Err(PebbleError::CannotConnect(m)) => {
                assert!(m.contains("charm/containers/web/pebble.socket"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        match pebble.exec("web".into(), "reload".into(), vec![]) {
            Err(PebbleError::Undeclared(m)) => assert!(
                m.contains("workload.containers.web.commands") && m.contains("`reload`"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            pebble.exec("db".into(), "reload".into(), vec![]),
            Err(PebbleError::Undeclared(m)) if m.contains("metadata.yaml")
        ));
        assert_eq!(permissions_text(Some(0o755)), Some("755".into()));
        assert!(boundary().len() >= 32);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
