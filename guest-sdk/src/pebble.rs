//! Pebble in the workload containers of a Kubernetes (sidecar) charm, named
//! as in ops: a [`Container`] for each container declared in metadata.yaml
//! `containers:`, with its layers and plan, services, checks and files.
//!
//! Calls act at once, as Pebble does (a started service stays started even
//! if the handler fails afterwards), and each is bounded by the handler's
//! deadline. A container whose Pebble is not up yet answers
//! [`can_connect`](Container::can_connect) with `false`, and its other calls
//! with [`PebbleError::CannotConnect`].
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! const LAYER: &str = "
//! services:
//!   web:
//!     override: replace
//!     command: /usr/bin/web --port 8080
//!     startup: enabled
//! ";
//!
//! fn web(_event: &Event) -> Outcome {
//!     let web = pebble::container("web");
//!     if !web.can_connect()? {
//!         return Ok(Some(Status::waiting("Waiting for Pebble in web")));
//!     }
//!     web.push("/etc/web/web.conf", b"port = 8080\n", true, None)?;
//!     web.add_layer("web", LAYER, true)?;
//!     web.replan()?;
//!     Ok(None)
//! }
//! ```

use std::fmt;

use crate::__bindings::wasm_charm::charm::pebble as wit;

pub use crate::__bindings::wasm_charm::charm::pebble::{
    ApiError, CheckInfo, CheckLevel, FileInfo, ServiceInfo,
};

/// Why a Pebble call did not do what was asked.
#[derive(Clone, Debug, PartialEq)]
pub enum PebbleError {
    /// The container is not declared in metadata.yaml, or (for
    /// [`Container::exec`]) the command is not declared for it in
    /// wasm-charm.yaml, or takes no arguments.
    Undeclared(String),
    /// The container's Pebble socket is not there or nothing answers on it
    /// (the container is not up yet).
    CannotConnect(String),
    /// Pebble refused the request: its status, error kind and message.
    Api(ApiError),
    /// An asynchronous change (start, stop, restart, replan) ended in error.
    ChangeFailed(String),
    /// The handler's deadline came before Pebble's answer.
    Timeout(String),
    /// An answer that is not what Pebble's API documents.
    Protocol(String),
}

impl PebbleError {
    /// Pebble's error kind (`not-found`, `permission-denied`…), for an error
    /// Pebble answered.
    ///
    /// ```no_run
    /// use wasm_charm::pebble;
    ///
    /// match pebble::container("web").pull("/etc/web/web.conf") {
    ///     Err(e) if e.kind() == Some("not-found") => { /* not written yet */ }
    ///     other => { other?; }
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn kind(&self) -> Option<&str> {
        match self {
            PebbleError::Api(e) if !e.kind.is_empty() => Some(&e.kind),
            _ => None,
        }
    }
}

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
    /// Whether the service is running (`current: active`).
    pub fn is_running(&self) -> bool {
        self.current == "active"
    }
}

impl CheckInfo {
    /// Whether the check passes (`status: up`).
    pub fn is_up(&self) -> bool {
        self.status == "up"
    }
}

/// A workload container declared in metadata.yaml, as ops names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    name: String,
}

/// The container `name` of metadata.yaml `containers:`. Nothing is checked
/// until a call: one to an undeclared container is
/// [`PebbleError::Undeclared`].
///
/// ```no_run
/// use wasm_charm::pebble;
///
/// let web = pebble::container("web");
/// assert_eq!(web.name(), "web");
/// ```
pub fn container(name: &str) -> Container {
    Container {
        name: name.to_string(),
    }
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

impl Container {
    /// The container's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether its Pebble answers now; `false` (not an error) while the
    /// container is not up.
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn web(_event: &Event) -> Outcome {
    ///     if !pebble::container("web").can_connect()? {
    ///         return Ok(Some(Status::waiting("Waiting for the web container")));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn can_connect(&self) -> Result<bool, PebbleError> {
        wit::can_connect(&self.name)
    }

    /// Add a Pebble layer (its YAML) labelled `label`; `combine` merges it
    /// into an existing layer of that label.
    ///
    /// ```no_run
    /// use wasm_charm::pebble;
    ///
    /// let layer = "services:\n  web:\n    override: replace\n    command: /usr/bin/web\n";
    /// pebble::container("web").add_layer("web", layer, true)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn add_layer(&self, label: &str, layer: &str, combine: bool) -> Result<(), PebbleError> {
        wit::add_layer(&self.name, label, layer, combine)
    }

    /// The combined plan, as YAML.
    ///
    /// ```no_run
    /// let plan = wasm_charm::pebble::container("web").get_plan()?;
    /// assert!(plan.contains("services"));
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_plan(&self) -> Result<String, PebbleError> {
        wit::get_plan(&self.name)
    }

    /// Start the services of the plan that start by default and restart
    /// those whose definition changed, waiting for it to finish.
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").replan()?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn replan(&self) -> Result<(), PebbleError> {
        wit::replan(&self.name)
    }

    /// Start services, waiting for them to be started.
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").start(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn start(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::start(&self.name, &owned(services))
    }

    /// Stop services, waiting for them to be stopped.
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").stop(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn stop(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::stop(&self.name, &owned(services))
    }

    /// Restart services (starting those that are stopped).
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").restart(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn restart(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::restart(&self.name, &owned(services))
    }

    /// The plan's services and their state; all of them when `names` is
    /// empty.
    ///
    /// ```no_run
    /// let services = wasm_charm::pebble::container("web").get_services(&["web"])?;
    /// let running = services.iter().all(|s| s.is_running());
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_services(&self, names: &[&str]) -> Result<Vec<ServiceInfo>, PebbleError> {
        wit::get_services(&self.name, &owned(names))
    }

    /// The plan's health checks; all of them when `names` is empty, only
    /// those of `level` when given.
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, CheckLevel};
    ///
    /// let checks = pebble::container("web").get_checks(&[], Some(CheckLevel::Ready))?;
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

    /// Write `data` to the absolute `path` in the container; `make_dirs`
    /// creates missing parents; `permissions` the file's mode (0o644 when
    /// `None`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").push("/etc/web/web.conf", b"port = 80\n", true, Some(0o600))?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn push(
        &self,
        path: &str,
        data: &[u8],
        make_dirs: bool,
        permissions: Option<u32>,
    ) -> Result<(), PebbleError> {
        wit::push(&self.name, path, data, make_dirs, permissions)
    }

    /// The content of the file at the absolute `path` (at most 8 MiB).
    ///
    /// ```no_run
    /// let conf = wasm_charm::pebble::container("web").pull("/etc/web/web.conf")?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn pull(&self, path: &str) -> Result<Vec<u8>, PebbleError> {
        wit::pull(&self.name, path)
    }

    /// The entries of the directory at `path`.
    ///
    /// ```no_run
    /// for f in wasm_charm::pebble::container("web").list_files("/etc/web")? {
    ///     wasm_charm::log::info(&format!("{} {:o}", f.path, f.permissions));
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn list_files(&self, path: &str) -> Result<Vec<FileInfo>, PebbleError> {
        wit::list_files(&self.name, path)
    }

    /// Create a directory; `make_parents`: its parents too, and no error if
    /// it exists.
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").make_dir("/var/lib/web/cache", true, None)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn make_dir(
        &self,
        path: &str,
        make_parents: bool,
        permissions: Option<u32>,
    ) -> Result<(), PebbleError> {
        wit::make_dir(&self.name, path, make_parents, permissions)
    }

    /// Remove a file or an empty directory; `recursive`: a directory with
    /// everything in it, and no error if it is not there.
    ///
    /// ```no_run
    /// wasm_charm::pebble::container("web").remove_path("/var/lib/web/cache", true)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn remove_path(&self, path: &str, recursive: bool) -> Result<(), PebbleError> {
        wit::remove_path(&self.name, path, recursive)
    }

    /// Run the command `name` that wasm-charm.yaml declares for this
    /// container (`workload.containers.<container>.commands.<name>`) through
    /// Pebble's exec: its declared argv, then `args` (refused as
    /// [`PebbleError::Undeclared`] unless the manifest says `args: true`).
    /// No shell and an empty stdin. A non-zero exit is an output, not an
    /// error: look at [`CommandOutput::success`]. Past its declared timeout
    /// (or the handler's deadline) its exit is [`Exit::TimedOut`]. Each
    /// stream keeps its first 64 KiB.
    ///
    /// [`CommandOutput::success`]: crate::workload::CommandOutput::success
    /// [`Exit::TimedOut`]: crate::workload::Exit::TimedOut
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn reload(_event: &Event) -> Outcome {
    ///     let out = pebble::container("web").exec("reload", &[])?;
    ///     if !out.success() {
    ///         return Ok(Some(Status::blocked(format!(
    ///             "reload failed: {}",
    ///             out.stderr_text().trim()
    ///         ))));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn exec(
        &self,
        name: &str,
        args: &[&str],
    ) -> Result<crate::workload::CommandOutput, PebbleError> {
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
        assert_eq!(e.kind(), Some("not-found"));
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
