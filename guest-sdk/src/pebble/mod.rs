//! Pebble in the workload containers of a Kubernetes (sidecar) charm, named
//! as in ops: a [`Container`] ([`get_container`]) for each container
//! declared in metadata.yaml `containers:`, with its layers and plan
//! ([`Layer`], [`Plan`]), services, checks and files.
//!
//! Calls act at once, as Pebble does (a started service stays started even
//! if the handler fails afterwards), and each is bounded by the handler's
//! deadline. A container whose Pebble is not up yet answers
//! [`can_connect`](Container::can_connect) with `false`, and its other calls
//! with [`PebbleError::CannotConnect`].
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//! use wasm_charm::pebble::{AddLayerOptions, Layer, PushOptions, Service, ServiceStartup};
//!
//! fn layer() -> Layer {
//!     let web = Service {
//!         command: "/usr/bin/web --port 8080".into(),
//!         startup: Some(ServiceStartup::Enabled),
//!         ..Default::default()
//!     };
//!     Layer { services: [("web".to_string(), web)].into(), ..Default::default() }
//! }
//!
//! fn web(_event: &Event) -> Outcome {
//!     let web = pebble::get_container("web");
//!     if !web.can_connect()? {
//!         return Ok(Some(Status::waiting("Waiting for Pebble in web")));
//!     }
//!     web.push("/etc/web/web.conf", "port = 8080\n", PushOptions { make_dirs: true, ..Default::default() })?;
//!     web.add_layer("web", &layer(), AddLayerOptions { combine: true })?;
//!     web.replan()?;
//!     Ok(None)
//! }
//! ```
//!
//! A layer may also be YAML text, as ops takes it:
//!
//! ```no_run
//! use wasm_charm::pebble::{self, AddLayerOptions};
//!
//! const LAYER: &str = "
//! services:
//!   web:
//!     override: replace
//!     command: /usr/bin/web --port 8080
//!     startup: enabled
//! ";
//! pebble::get_container("web").add_layer("web", LAYER, AddLayerOptions::default())?;
//! # Ok::<(), wasm_charm::Error>(())
//! ```

use std::fmt;

use crate::__bindings::wasm_charm::charm::pebble as wit;
use crate::workload::CommandOutput;

mod layer;
mod yaml;

pub use layer::{
    Check, CheckStartup, ExecCheck, HttpCheck, Layer, LogTarget, LogTargetType, Override, Plan,
    Service, ServiceAction, ServiceStartup, TcpCheck,
};
pub use yaml::YamlError;

/// Pebble's error envelope: the HTTP status, Pebble's error kind (see
/// [`ApiErrorKind`]) and its message (ops' `pebble.APIError`).
///
/// ```
/// use wasm_charm::pebble::{ApiError, ApiErrorKind, PebbleError};
///
/// let e = PebbleError::Api(ApiError { status_code: 404, kind: "not-found".into(), message: "no".into() });
/// assert_eq!(e.kind(), Some(ApiErrorKind::NotFound));
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::ApiError;
/// A health check and its state (ops' `pebble.CheckInfo`).
///
/// ```no_run
/// let checks = wasm_charm::pebble::get_container("web").get_checks(&[], None)?;
/// let failing: Vec<&str> = checks.iter().filter(|c| !c.is_up()).map(|c| c.name.as_str()).collect();
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::CheckInfo;
/// A check's level: liveness or readiness (ops' `pebble.CheckLevel`).
///
/// ```no_run
/// use wasm_charm::pebble::{self, CheckLevel};
///
/// let ready = pebble::get_container("web").get_checks(&[], Some(CheckLevel::Ready))?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::CheckLevel;
/// An entry of a directory listing (ops' `pebble.FileInfo`).
///
/// ```no_run
/// for file in wasm_charm::pebble::get_container("web").list_files("/etc/web")? {
///     println!("{} {} {:o}", file.kind, file.path, file.permissions);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::FileInfo;
/// A service of the plan and its state (ops' `pebble.ServiceInfo`).
///
/// ```no_run
/// let services = wasm_charm::pebble::get_container("web").get_services(&["web"])?;
/// let running = services.iter().all(|s| s.is_running());
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::ServiceInfo;

/// Why a Pebble call did not do what was asked (ops' `pebble.APIError`,
/// `ConnectionError`, `ChangeError`, `TimeoutError`, `ProtocolError`). The
/// kind stays through `?` into [`Error`](crate::Error)
/// ([`ErrorKind::Pebble`](crate::ErrorKind::Pebble)).
///
/// ```no_run
/// use wasm_charm::pebble::{self, PebbleError};
///
/// match pebble::get_container("web").replan() {
///     Err(PebbleError::ChangeFailed(why)) => println!("a service did not start: {why}"),
///     other => other?,
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum PebbleError {
    /// The container is not declared in metadata.yaml, or (for
    /// [`Container::exec`]) the command is not declared for it in
    /// wasm-charm.yaml, or takes no arguments.
    Undeclared(String),
    /// The container's Pebble socket is not there or nothing answers on it
    /// (the container is not up yet; ops' `ConnectionError`).
    CannotConnect(String),
    /// Pebble refused the request: its status, error kind and message
    /// (ops' `APIError`, and `PathError` for files).
    Api(ApiError),
    /// An asynchronous change (start, stop, restart, replan) ended in error
    /// (ops' `ChangeError`).
    ChangeFailed(String),
    /// The handler's deadline came before Pebble's answer (ops'
    /// `TimeoutError`).
    Timeout(String),
    /// An answer that is not what Pebble's API documents (ops'
    /// `ProtocolError`).
    Protocol(String),
}

/// The kind of error Pebble answered (its `result.kind`), as ops compares
/// `PathError.kind` and `APIError` kinds.
///
/// ```
/// use wasm_charm::pebble::ApiErrorKind;
///
/// assert_eq!(ApiErrorKind::from("permission-denied"), ApiErrorKind::PermissionDenied);
/// assert_eq!(ApiErrorKind::from("new-kind").as_str(), "new-kind");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiErrorKind {
    /// `not-found`: no such file, service or check.
    NotFound,
    /// `permission-denied`.
    PermissionDenied,
    /// `generic-file-error`: another file error (a directory that exists,
    /// one that is not empty).
    GenericFileError,
    /// `login-required`.
    LoginRequired,
    /// `no-default-services`: replan with no service to start.
    NoDefaultServices,
    /// `system-restart`.
    SystemRestart,
    /// `daemon-restart`.
    DaemonRestart,
    /// A kind this SDK does not name.
    Other(String),
}

impl ApiErrorKind {
    /// Pebble's name for the kind.
    ///
    /// ```
    /// assert_eq!(wasm_charm::pebble::ApiErrorKind::NotFound.as_str(), "not-found");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            ApiErrorKind::NotFound => "not-found",
            ApiErrorKind::PermissionDenied => "permission-denied",
            ApiErrorKind::GenericFileError => "generic-file-error",
            ApiErrorKind::LoginRequired => "login-required",
            ApiErrorKind::NoDefaultServices => "no-default-services",
            ApiErrorKind::SystemRestart => "system-restart",
            ApiErrorKind::DaemonRestart => "daemon-restart",
            ApiErrorKind::Other(kind) => kind,
        }
    }
}

/// The kind Pebble names so.
///
/// ```
/// use wasm_charm::pebble::ApiErrorKind;
///
/// assert_eq!(ApiErrorKind::from("not-found"), ApiErrorKind::NotFound);
/// ```
impl From<&str> for ApiErrorKind {
    fn from(kind: &str) -> Self {
        match kind {
            "not-found" => ApiErrorKind::NotFound,
            "permission-denied" => ApiErrorKind::PermissionDenied,
            "generic-file-error" => ApiErrorKind::GenericFileError,
            "login-required" => ApiErrorKind::LoginRequired,
            "no-default-services" => ApiErrorKind::NoDefaultServices,
            "system-restart" => ApiErrorKind::SystemRestart,
            "daemon-restart" => ApiErrorKind::DaemonRestart,
            other => ApiErrorKind::Other(other.to_string()),
        }
    }
}

/// Pebble's name for the kind.
///
/// ```
/// assert_eq!(wasm_charm::pebble::ApiErrorKind::GenericFileError.to_string(), "generic-file-error");
/// ```
impl fmt::Display for ApiErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PebbleError {
    /// Pebble's error kind, for an error Pebble answered with one.
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, ApiErrorKind};
    ///
    /// match pebble::get_container("web").pull("/etc/web/web.conf") {
    ///     Err(e) if e.kind() == Some(ApiErrorKind::NotFound) => { /* not written yet */ }
    ///     other => { other?; }
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn kind(&self) -> Option<ApiErrorKind> {
        match self {
            PebbleError::Api(e) if !e.kind.is_empty() => Some(ApiErrorKind::from(e.kind.as_str())),
            _ => None,
        }
    }
}

/// What failed: Pebble's status, message and kind, or the host's words.
///
/// ```
/// use wasm_charm::pebble::PebbleError;
///
/// assert_eq!(PebbleError::ChangeFailed("exit 1".into()).to_string(), "Pebble change failed: exit 1");
/// ```
impl fmt::Display for PebbleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PebbleError::Undeclared(what) => write!(f, "undeclared: {what}"),
            PebbleError::CannotConnect(what) => f.write_str(what),
            PebbleError::Api(e) if e.kind.is_empty() => {
                write!(f, "Pebble answered {}: {}", e.status_code, e.message)
            }
            PebbleError::Api(e) => write!(
                f,
                "Pebble answered {}: {} ({})",
                e.status_code, e.message, e.kind
            ),
            PebbleError::ChangeFailed(why) => write!(f, "Pebble change failed: {why}"),
            PebbleError::Timeout(what) | PebbleError::Protocol(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for PebbleError {}

impl ServiceInfo {
    /// Whether the service is running (`current: active`; ops'
    /// `ServiceInfo.is_running`).
    ///
    /// ```
    /// use wasm_charm::pebble::ServiceInfo;
    ///
    /// let web = ServiceInfo { name: "web".into(), startup: "enabled".into(), current: "active".into() };
    /// assert!(web.is_running());
    /// ```
    pub fn is_running(&self) -> bool {
        self.current == "active"
    }
}

impl CheckInfo {
    /// Whether the check passes (`status: up`).
    ///
    /// ```
    /// use wasm_charm::pebble::CheckInfo;
    ///
    /// let alive = CheckInfo { name: "alive".into(), level: "alive".into(), status: "down".into(), failures: 3, threshold: 3 };
    /// assert!(!alive.is_up());
    /// ```
    pub fn is_up(&self) -> bool {
        self.status == "up"
    }
}

/// How [`Container::add_layer`] adds a layer (ops' keyword arguments).
///
/// ```
/// use wasm_charm::pebble::AddLayerOptions;
///
/// assert!(!AddLayerOptions::default().combine);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddLayerOptions {
    /// Combine it into the layer of the same label, if there is one (its
    /// entries' `override` apply); without it, a label that exists is an
    /// error.
    pub combine: bool,
}

/// How [`Container::push`] writes a file (ops' keyword arguments).
///
/// ```
/// use wasm_charm::pebble::PushOptions;
///
/// let options = PushOptions { make_dirs: true, permissions: Some(0o600) };
/// assert_eq!(PushOptions::default().permissions, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PushOptions {
    /// Create the missing parent directories.
    pub make_dirs: bool,
    /// The file's mode; Pebble's default 0o644 when `None`.
    pub permissions: Option<u32>,
}

/// How [`Container::make_dir`] creates a directory (ops' keyword
/// arguments).
///
/// ```
/// use wasm_charm::pebble::MakeDirOptions;
///
/// let options = MakeDirOptions { make_parents: true, ..Default::default() };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MakeDirOptions {
    /// Create the missing parents too, and accept a directory that exists.
    pub make_parents: bool,
    /// The directory's mode; Pebble's default 0o755 when `None`.
    pub permissions: Option<u32>,
}

/// How [`Container::remove_path`] removes (ops' keyword argument).
///
/// ```
/// use wasm_charm::pebble::RemovePathOptions;
///
/// let options = RemovePathOptions { recursive: true };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemovePathOptions {
    /// Remove a directory with everything in it, and accept a path that is
    /// not there (`rm -rf`).
    pub recursive: bool,
}

/// A layer as [`Container::add_layer`] takes it: a [`Layer`], or YAML text
/// (ops takes a `Layer`, a dict or a string).
///
/// ```
/// use wasm_charm::pebble::{Layer, LayerSource};
///
/// let typed = Layer::default();
/// assert!(matches!(LayerSource::from(&typed), LayerSource::Layer(_)));
/// assert!(matches!(LayerSource::from("services: {}"), LayerSource::Yaml(_)));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum LayerSource<'a> {
    /// A typed layer, written as YAML for Pebble.
    Layer(&'a Layer),
    /// YAML text, sent as it is.
    Yaml(&'a str),
}

impl<'a> LayerSource<'a> {
    fn to_yaml(self) -> std::borrow::Cow<'a, str> {
        match self {
            LayerSource::Layer(layer) => layer.to_yaml().into(),
            LayerSource::Yaml(text) => text.into(),
        }
    }
}

/// A typed layer.
///
/// ```
/// use wasm_charm::pebble::{Layer, LayerSource};
///
/// let layer = Layer::default();
/// let source: LayerSource = (&layer).into();
/// ```
impl<'a> From<&'a Layer> for LayerSource<'a> {
    fn from(layer: &'a Layer) -> Self {
        LayerSource::Layer(layer)
    }
}

/// YAML text.
///
/// ```
/// use wasm_charm::pebble::LayerSource;
///
/// let source: LayerSource = "summary: empty".into();
/// ```
impl<'a> From<&'a str> for LayerSource<'a> {
    fn from(text: &'a str) -> Self {
        LayerSource::Yaml(text)
    }
}

/// YAML text.
///
/// ```
/// use wasm_charm::pebble::LayerSource;
///
/// let text = String::from("summary: empty");
/// let source: LayerSource = (&text).into();
/// ```
impl<'a> From<&'a String> for LayerSource<'a> {
    fn from(text: &'a String) -> Self {
        LayerSource::Yaml(text)
    }
}

/// A workload container declared in metadata.yaml, as ops names it.
///
/// ```no_run
/// let web = wasm_charm::pebble::get_container("web");
/// if web.can_connect()? {
///     web.replan()?;
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    name: String,
}

/// The container `name` of metadata.yaml `containers:` (ops'
/// `Unit.get_container`). Nothing is checked until a call: one to an
/// undeclared container is [`PebbleError::Undeclared`].
///
/// ```
/// use wasm_charm::pebble;
///
/// let web = pebble::get_container("web");
/// assert_eq!(web.name(), "web");
/// ```
pub fn get_container(name: &str) -> Container {
    Container {
        name: name.to_string(),
    }
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

impl Container {
    /// The container's name (ops' `Container.name`).
    ///
    /// ```
    /// assert_eq!(wasm_charm::pebble::get_container("web").name(), "web");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether its Pebble answers now; `false` (not an error) while the
    /// container is not up (ops' `Container.can_connect`).
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn web(_event: &Event) -> Outcome {
    ///     if !pebble::get_container("web").can_connect()? {
    ///         return Ok(Some(Status::waiting("Waiting for the web container")));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn can_connect(&self) -> Result<bool, PebbleError> {
        wit::can_connect(&self.name)
    }

    /// Add a Pebble layer labelled `label`: a [`Layer`] or its YAML text
    /// (ops' `Container.add_layer(label, layer, combine=…)`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, AddLayerOptions, Layer, Service};
    ///
    /// let layer = Layer {
    ///     services: [("web".to_string(), Service { command: "/usr/bin/web".into(), ..Default::default() })].into(),
    ///     ..Default::default()
    /// };
    /// pebble::get_container("web").add_layer("web", &layer, AddLayerOptions { combine: true })?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn add_layer<'a>(
        &self,
        label: &str,
        layer: impl Into<LayerSource<'a>>,
        options: AddLayerOptions,
    ) -> Result<(), PebbleError> {
        let layer = layer.into().to_yaml();
        wit::add_layer(&self.name, label, &layer, options.combine)
    }

    /// The combined plan (ops' `Container.get_plan`).
    ///
    /// ```no_run
    /// let plan = wasm_charm::pebble::get_container("web").get_plan()?;
    /// if let Some(web) = plan.services.get("web") {
    ///     println!("web runs {}", web.command);
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_plan(&self) -> Result<Plan, PebbleError> {
        let text = wit::get_plan(&self.name)?;
        Plan::from_yaml(&text).map_err(|e| {
            PebbleError::Protocol(format!(
                "container {}: cannot read the plan Pebble gave: {e}",
                self.name
            ))
        })
    }

    /// Start the services of the plan that start by default and restart
    /// those whose definition changed, waiting for it to finish (ops'
    /// `Container.replan`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").replan()?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn replan(&self) -> Result<(), PebbleError> {
        wit::replan(&self.name)
    }

    /// Start services, waiting for them to be started (ops'
    /// `Container.start`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").start(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn start(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::start(&self.name, &owned(services))
    }

    /// Stop services, waiting for them to be stopped (ops'
    /// `Container.stop`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").stop(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn stop(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::stop(&self.name, &owned(services))
    }

    /// Restart services, starting those that are stopped (ops'
    /// `Container.restart`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").restart(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn restart(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::restart(&self.name, &owned(services))
    }

    /// The plan's services and their state; all of them when `names` is
    /// empty (ops' `Container.get_services`).
    ///
    /// ```no_run
    /// let services = wasm_charm::pebble::get_container("web").get_services(&["web"])?;
    /// let running = services.iter().all(|s| s.is_running());
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_services(&self, names: &[&str]) -> Result<Vec<ServiceInfo>, PebbleError> {
        wit::get_services(&self.name, &owned(names))
    }

    /// The plan's health checks; all of them when `names` is empty, only
    /// those of `level` when given (ops' `Container.get_checks`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, CheckLevel};
    ///
    /// let checks = pebble::get_container("web").get_checks(&[], Some(CheckLevel::Ready))?;
    /// let down: Vec<&str> = checks.iter().filter(|c| !c.is_up()).map(|c| c.name.as_str()).collect();
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_checks(
        &self,
        names: &[&str],
        level: Option<CheckLevel>,
    ) -> Result<Vec<CheckInfo>, PebbleError> {
        wit::get_checks(&self.name, &owned(names), level)
    }

    /// Write `data` (text or bytes) to the absolute `path` in the container
    /// (ops' `Container.push`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, PushOptions};
    ///
    /// let options = PushOptions { make_dirs: true, permissions: Some(0o600) };
    /// pebble::get_container("web").push("/etc/web/web.conf", "port = 80\n", options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn push(
        &self,
        path: &str,
        data: impl AsRef<[u8]>,
        options: PushOptions,
    ) -> Result<(), PebbleError> {
        wit::push(
            &self.name,
            path,
            data.as_ref(),
            options.make_dirs,
            options.permissions,
        )
    }

    /// The content of the file at the absolute `path` (at most 8 MiB; ops'
    /// `Container.pull`, as bytes).
    ///
    /// ```no_run
    /// let conf = wasm_charm::pebble::get_container("web").pull("/etc/web/web.conf")?;
    /// let text = String::from_utf8_lossy(&conf);
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn pull(&self, path: &str) -> Result<Vec<u8>, PebbleError> {
        wit::pull(&self.name, path)
    }

    /// The entries of the directory at `path`, or the file itself (ops'
    /// `Container.list_files`).
    ///
    /// ```no_run
    /// for f in wasm_charm::pebble::get_container("web").list_files("/etc/web")? {
    ///     wasm_charm::log::info(format!("{} {:o}", f.path, f.permissions));
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn list_files(&self, path: &str) -> Result<Vec<FileInfo>, PebbleError> {
        wit::list_files(&self.name, path)
    }

    /// Create a directory (ops' `Container.make_dir`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, MakeDirOptions};
    ///
    /// let options = MakeDirOptions { make_parents: true, ..Default::default() };
    /// pebble::get_container("web").make_dir("/var/lib/web/cache", options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn make_dir(&self, path: &str, options: MakeDirOptions) -> Result<(), PebbleError> {
        wit::make_dir(&self.name, path, options.make_parents, options.permissions)
    }

    /// Remove a file or an empty directory, or with
    /// [`recursive`](RemovePathOptions::recursive) a directory and all in it
    /// (ops' `Container.remove_path`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, RemovePathOptions};
    ///
    /// pebble::get_container("web").remove_path("/var/lib/web/cache", RemovePathOptions { recursive: true })?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn remove_path(&self, path: &str, options: RemovePathOptions) -> Result<(), PebbleError> {
        wit::remove_path(&self.name, path, options.recursive)
    }

    /// Run the command `name` that wasm-charm.yaml declares for this
    /// container (`workload.containers.<container>.commands.<name>`) through
    /// Pebble's exec (ops' `Container.exec`, of a declared command): its
    /// declared argv, then `args` (refused as [`PebbleError::Undeclared`]
    /// unless the manifest says `args: true`). No shell and an empty
    /// stdin. A non-zero exit is an output, not an error: look at
    /// [`CommandOutput::success`]. Past its declared timeout (or the
    /// handler's deadline) its exit is [`Exit::TimedOut`]. Each stream
    /// keeps its first 64 KiB.
    ///
    /// [`Exit::TimedOut`]: crate::workload::Exit::TimedOut
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn reload(_event: &Event) -> Outcome {
    ///     let out = pebble::get_container("web").exec("reload", &[])?;
    ///     if !out.success() {
    ///         return Ok(Some(Status::blocked(format!(
    ///             "reload failed: {}",
    ///             out.stderr_text().trim()
    ///         ))));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn exec(&self, name: &str, args: &[&str]) -> Result<CommandOutput, PebbleError> {
        wit::exec(&self.name, name, &owned(args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_well_and_keep_their_kind() {
        let e = PebbleError::Api(ApiError {
            status_code: 404,
            kind: "not-found".into(),
            message: "stat /etc/x: no such file or directory".into(),
        });
        assert_eq!(
            e.to_string(),
            "Pebble answered 404: stat /etc/x: no such file or directory (not-found)"
        );
        assert_eq!(e.kind(), Some(ApiErrorKind::NotFound));
        assert_eq!(PebbleError::Timeout("late".into()).kind(), None);
        assert_eq!(
            PebbleError::Undeclared("command `x` of container web".into()).to_string(),
            "undeclared: command `x` of container web"
        );
        assert!(
            ServiceInfo {
                name: "web".into(),
                startup: "enabled".into(),
                current: "active".into()
            }
            .is_running()
        );
    }
}
