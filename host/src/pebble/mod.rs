//! The `pebble` WIT interface (DESIGN §12): Pebble in each container declared
//! in metadata.yaml, reached over `/charm/containers/<name>/pebble.socket`
//! under the workload root (`WASM_CHARM_ROOT` in tests), every call bounded
//! by the handler's deadline.
//!
//! * [`client`]: HTTP over the unix socket and Pebble's envelope.
//! * [`exec`]: the commands the manifest declares for a container, run
//!   through Pebble's exec over [`websocket`]s.
//! * [`files`]: the files API; [`notices`]: Pebble's notices.
//! * [`Pebble`]: the interface for one handler.

pub mod client;
pub mod exec;
pub mod files;
pub mod notices;
pub mod stream;
pub mod websocket;

use crate::bindings::pebble::{
    ApiError, CheckInfo, CheckLevel, ExecOptions, FileInfo, FileReader, Host, HostFileReader,
    MakeDirOptions, Notice, NoticeFilter, PebbleError, PushOptions, ServiceInfo,
};
use crate::bindings::workload::CommandOutput;
use crate::charm_dir::ContainerGrant;
use crate::workload_root::WorkloadRoot;
use client::{Body, Client, Error};
use files::MAX_NAME;
pub use files::parse_files;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wasmtime::component::Resource;

/// How long a call may take when no handler deadline was set (the pipeline
/// always sets one).
const CALL_WITHOUT_DEADLINE: Duration = Duration::from_secs(30);

/// The longest `can-connect` waits for Pebble's answer.
const CAN_CONNECT_WAIT: Duration = Duration::from_secs(5);

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
    /// The files this handler reads a piece at a time (`pull-stream`).
    streams: Arc<Mutex<stream::Streams>>,
}

impl Pebble {
    pub fn new(containers: Vec<String>, root: WorkloadRoot) -> Pebble {
        Pebble {
            containers: Arc::new(containers),
            grants: Arc::default(),
            root,
            deadline: None,
            streams: Arc::default(),
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

    fn lock_streams(&self) -> std::sync::MutexGuard<'_, stream::Streams> {
        // A panic elsewhere while it was held leaves the table usable.
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
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
        bounded_list(
            container,
            &format!("{action} services"),
            &services,
            MAX_NAMES,
            MAX_NAME,
        )?;
        let body = json!({"action": action, "services": services});
        client
            .act("POST", "/v1/services", Body::Json(body))
            .map_err(|e| wit_error(container, e))
    }

    /// Start or stop checks: those that changed.
    fn checks(
        &self,
        container: &str,
        action: &str,
        checks: Vec<String>,
    ) -> Result<Vec<String>, PebbleError> {
        let client = self.client(container)?;
        let field = format!("{action}-checks checks");
        if checks.is_empty() {
            return Err(PebbleError::Invalid(format!(
                "container {container}: {field} names no check"
            )));
        }
        bounded_list(container, &field, &checks, MAX_NAMES, MAX_NAME)?;
        let body = json!({"action": action, "checks": checks});
        let result = client
            .sync("POST", "/v1/checks", Body::Json(body))
            .map_err(|e| wit_error(container, e))?;
        parse_changed(&result).ok_or_else(|| protocol(container, "changed checks", &result))
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

pub fn protocol(container: &str, what: &str, got: &Value) -> PebbleError {
    let shown = got.to_string();
    PebbleError::Protocol(format!(
        "container {container}: {what}: {}",
        &shown[..shown.len().min(200)]
    ))
}

pub fn str_field(v: &Value, name: &str) -> String {
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

/// Most names (services, checks) one call may list.
pub const MAX_NAMES: usize = 256;

/// Refuse `value` of `field` longer than `most` bytes or holding a NUL.
pub fn bounded_text(
    container: &str,
    field: &str,
    value: &str,
    most: usize,
) -> Result<(), PebbleError> {
    if value.len() > most || value.contains('\0') {
        return Err(PebbleError::Invalid(format!(
            "container {container}: {field} is {} bytes or holds a NUL byte (at most {most} bytes)",
            value.len()
        )));
    }
    Ok(())
}

/// Refuse more than `count` values of `field`, or one longer than `each`.
pub fn bounded_list(
    container: &str,
    field: &str,
    values: &[String],
    count: usize,
    each: usize,
) -> Result<(), PebbleError> {
    if values.len() > count {
        return Err(PebbleError::Invalid(format!(
            "container {container}: {field} names {} entries, at most {count}",
            values.len()
        )));
    }
    values
        .iter()
        .try_for_each(|v| bounded_text(container, field, v, each))
}

/// A signal name as Pebble takes it: `SIG` then upper-case letters or
/// digits (`SIGHUP`, `SIGUSR1`, `SIGRTMIN`).
pub fn check_signal(container: &str, signal: &str) -> Result<(), PebbleError> {
    let rest = signal.strip_prefix("SIG").unwrap_or_default();
    let ok = !rest.is_empty()
        && rest.len() <= 16
        && rest
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        let shown: String = signal.chars().take(32).collect();
        Err(PebbleError::Invalid(format!(
            "container {container}: send-signal signal {shown:?} is not a signal name \
             (SIG then upper-case letters, as SIGHUP)"
        )))
    }
}

/// The `POST /v1/signals` body.
pub fn signal_body(signal: &str, services: &[String]) -> Value {
    json!({"signal": signal, "services": services})
}

/// The `GET /v1/checks` target.
pub fn checks_target(names: &[String], level: Option<CheckLevel>) -> String {
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
    if query.is_empty() {
        "/v1/checks".to_string()
    } else {
        format!("/v1/checks?{}", query.join("&"))
    }
}

/// The `POST /v1/checks` answer: the checks that changed.
pub fn parse_changed(result: &Value) -> Option<Vec<String>> {
    result
        .get("changed")?
        .as_array()?
        .iter()
        .map(|c| c.as_str().map(str::to_string))
        .collect()
}

impl Host for Pebble {
    fn can_connect(&mut self, container: String) -> Result<bool, PebbleError> {
        let client = self.client(&container)?;
        // A Pebble that accepts and never answers would otherwise hold the
        // handler to its deadline; ops' client gives up after 5 s too.
        let wait = client.deadline().min(Instant::now() + CAN_CONNECT_WAIT);
        let client = Client::new(client.socket().to_path_buf(), wait);
        // As ops: any failure to reach Pebble or to read its answer is
        // "not now", not an error.
        Ok(client.sync("GET", "/v1/system-info", Body::Empty).is_ok())
    }

    fn add_layer(
        &mut self,
        container: String,
        label: String,
        layer: String,
        combine: bool,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        bounded_text(&container, "add-layer label", &label, MAX_NAME)?;
        if layer.len() > client::MAX_ANSWER {
            return Err(PebbleError::Invalid(format!(
                "container {container}: add-layer layer is {} bytes, at most {}",
                layer.len(),
                client::MAX_ANSWER
            )));
        }
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

    fn autostart(&mut self, container: String) -> Result<(), PebbleError> {
        self.services(&container, "autostart", Vec::new())
    }

    fn send_signal(
        &mut self,
        container: String,
        signal: String,
        services: Vec<String>,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        check_signal(&container, &signal)?;
        if services.is_empty() {
            return Err(PebbleError::Invalid(format!(
                "container {container}: send-signal names no service"
            )));
        }
        bounded_list(
            &container,
            "send-signal services",
            &services,
            MAX_NAMES,
            MAX_NAME,
        )?;
        client
            .sync(
                "POST",
                "/v1/signals",
                Body::Json(signal_body(&signal, &services)),
            )
            .map(drop)
            .map_err(|e| wit_error(&container, e))
    }

    fn get_services(
        &mut self,
        container: String,
        names: Vec<String>,
    ) -> Result<Vec<ServiceInfo>, PebbleError> {
        let client = self.client(&container)?;
        bounded_list(
            &container,
            "get-services names",
            &names,
            MAX_NAMES,
            MAX_NAME,
        )?;
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
        bounded_list(&container, "get-checks names", &names, MAX_NAMES, MAX_NAME)?;
        let target = checks_target(&names, level);
        let result = client
            .sync("GET", &target, Body::Empty)
            .map_err(|e| wit_error(&container, e))?;
        parse_checks(&result).ok_or_else(|| protocol(&container, "checks", &result))
    }

    fn start_checks(
        &mut self,
        container: String,
        checks: Vec<String>,
    ) -> Result<Vec<String>, PebbleError> {
        self.checks(&container, "start", checks)
    }

    fn stop_checks(
        &mut self,
        container: String,
        checks: Vec<String>,
    ) -> Result<Vec<String>, PebbleError> {
        self.checks(&container, "stop", checks)
    }

    fn push(
        &mut self,
        container: String,
        path: String,
        data: Vec<u8>,
        options: PushOptions,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        files::push(&client, &container, &path, &data, &options)
    }

    fn pull(&mut self, container: String, path: String) -> Result<Vec<u8>, PebbleError> {
        let client = self.client(&container)?;
        files::pull(&client, &container, &path)
    }

    fn list_files(
        &mut self,
        container: String,
        path: String,
        pattern: Option<String>,
        itself: bool,
    ) -> Result<Vec<FileInfo>, PebbleError> {
        let client = self.client(&container)?;
        files::list(&client, &container, &path, pattern.as_deref(), itself)
    }

    fn make_dir(
        &mut self,
        container: String,
        path: String,
        options: MakeDirOptions,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        files::make_dir(&client, &container, &path, &options)
    }

    fn remove_path(
        &mut self,
        container: String,
        path: String,
        recursive: bool,
    ) -> Result<(), PebbleError> {
        let client = self.client(&container)?;
        files::remove(&client, &container, &path, recursive)
    }

    fn exec(
        &mut self,
        container: String,
        name: String,
        args: Vec<String>,
        options: ExecOptions,
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
        let refused = |r| match r {
            exec::Refused::Undeclared(m) => PebbleError::Undeclared(m),
            exec::Refused::Unusable(m) => PebbleError::Invalid(m),
        };
        let argv = exec::argv(&container, &name, spec, &args).map_err(refused)?;
        exec::check_options(&container, &name, &options).map_err(refused)?;
        let until = exec::end(spec.timeout, client.deadline(), Instant::now());
        exec::run(&client, &argv, &options, until).map_err(|e| wit_error(&container, e))
    }

    fn pull_stream(
        &mut self,
        container: String,
        path: String,
    ) -> Result<Resource<FileReader>, PebbleError> {
        let client = self.client(&container)?;
        let full = || {
            PebbleError::Invalid(format!(
                "container {container}: pull-stream: {} files are open already, the most at once",
                stream::MAX_OPEN
            ))
        };
        if self.lock_streams().is_full() {
            return Err(full());
        }
        let opened = stream::open(&client, &container, &path)?;
        let id = self.lock_streams().insert(opened).ok_or_else(full)?;
        Ok(Resource::new_own(id))
    }

    fn get_notices(
        &mut self,
        container: String,
        filter: NoticeFilter,
    ) -> Result<Vec<Notice>, PebbleError> {
        let client = self.client(&container)?;
        notices::get_notices(&client, &container, &filter)
    }

    fn get_notice(&mut self, container: String, id: String) -> Result<Notice, PebbleError> {
        let client = self.client(&container)?;
        notices::get_notice(&client, &container, &id)
    }
}

impl HostFileReader for Pebble {
    fn read(&mut self, reader: Resource<FileReader>, max: u32) -> Result<Vec<u8>, PebbleError> {
        match self.lock_streams().get(reader.rep()) {
            Some(stream) => stream.read(max),
            // A handle the host gave out is always in the table until
            // dropped; anything else is a host bug, reported, not a trap.
            None => Err(PebbleError::Protocol(format!(
                "file reader {} is not open",
                reader.rep()
            ))),
        }
    }

    fn drop(&mut self, reader: Resource<FileReader>) -> wasmtime::Result<()> {
        self.lock_streams().remove(reader.rep());
        Ok(())
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

/// The plainest requests, which the tests of the client and of the
/// simulated Pebble share.
#[cfg(test)]
pub(crate) mod test_values {
    use crate::bindings::pebble::{ExecOptions, Ownership};

    /// No user or group: Pebble's default.
    pub(crate) fn nobody() -> Ownership {
        Ownership {
            user: None,
            user_id: None,
            group: None,
            group_id: None,
        }
    }

    /// Exec with nothing of the charm's: no environment, stdin or owner.
    pub(crate) fn no_exec_options() -> ExecOptions {
        ExecOptions {
            environment: vec![],
            working_dir: None,
            run_as: nobody(),
            stdin: vec![],
            combine_stderr: false,
        }
    }
}

#[cfg(test)]
mod fake_tests;
#[cfg(test)]
mod tests;
