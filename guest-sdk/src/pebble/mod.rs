//! Pebble in the workload containers of a Kubernetes (sidecar) charm, named
//! as in ops: a [`Container`] ([`get_container`]) for each container
//! declared in metadata.yaml `containers:`, with its layers and plan
//! ([`Layer`], [`Plan`]), services, checks and files.
//!
//! Calls act at once, as Pebble does (a started service stays started even
//! if the handler fails afterwards), and each is bounded by the handler's
//! deadline. A container whose Pebble is not up yet answers
//! [`can_connect`](Container::can_connect) with `false`, and its other calls
//! with [`PebbleError::CannotConnect`]. Commands run through
//! [`exec`](Container::exec) are those wasm-charm.yaml declares;
//! [`get_notices`](Container::get_notices) and [`NoticeEvent::notice`]
//! read Pebble's notices.
//!
//! [`NoticeEvent::notice`]: crate::NoticeEvent::notice
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
//!     if !web.can_connect() {
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

mod container;
mod exec;
mod files;
mod layer;
mod notices;
mod yaml;

/// 0.1.0's name, deprecated (CHANGELOG.md).
#[allow(deprecated)]
pub use crate::deprecated::container;
pub use exec::ExecOptions;
pub use files::{ListFilesOptions, MakeDirOptions, PullStream, PushOptions, RemovePathOptions};
pub use notices::{Notice, NoticeFilter};

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
    /// What the charm asked for was refused before Pebble was asked: too
    /// long, too many, a NUL byte, a signal name that is not one (ops
    /// raises `TypeError` or `ValueError` for such input). Says which
    /// field.
    Invalid(String),
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
            PebbleError::Invalid(what) => write!(f, "invalid: {what}"),
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
/// if web.can_connect() {
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
