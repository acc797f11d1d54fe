//! The workload on the machine: systemd units, programs and apt packages
//! that the charm's manifest, `wasm-charm.yaml`, declares.
//!
//! A handler can touch only what the manifest's `workload:` section names,
//! and the host checks every call against it: anything else is
//! [`WorkloadError::Undeclared`] (and a warning in the unit's log).
//!
//! ```yaml
//! workload:
//!   services: [api-service]          # systemd units
//!   commands:                        # programs, by name
//!     db-sync:
//!       argv: [api-service-manage, db, sync]
//!       args: false                  # true: the charm may append arguments
//!       timeout: 5m
//!   packages:
//!     apt: [api-service]
//! ```
//!
//! These calls act at once: a service started stays started even if the
//! handler fails afterwards. They all finish by the handler's deadline.
//!
//! * [`install`]: apt packages, skipping those installed, waiting while
//!   another process holds the dpkg lock.
//! * [`service`] and its shorthands ([`start`], [`restart`], …):
//!   `systemctl`. A [`restart`] also starts again the grace period of the
//!   probes that watch the unit, so a service still starting shows as
//!   maintenance, not blocked.
//! * [`service_status`]: `systemctl is-active` and `is-enabled`.
//! * [`run`]: a declared command, without a shell, with an empty
//!   environment but `PATH`, killed with all it started past its timeout.
//! * [`write_if_changed`]: a file under a declared directory, replaced
//!   whole and only when its content changes.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! fn install(_event: &Event) -> Outcome {
//!     workload::install(&["api-service"])?;
//!     let sync = workload::run("db-sync", &[])?;
//!     if !sync.success() {
//!         return Ok(Some(Status::blocked(format!(
//!             "db sync failed: {}",
//!             sync.stderr_text().trim()
//!         ))));
//!     }
//!     workload::enable("api-service")?;
//!     workload::restart("api-service")?;
//!     Ok(None)
//! }
//! ```

use std::fmt;

use crate::__bindings::wasm_charm::charm::workload as wit;

/// What a command did: how it ended, and its output.
///
/// ```no_run
/// let out = wasm_charm::workload::run("db-sync", &[])?;
/// println!("{:?}: {}", out.exit, out.stdout_text());
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::workload::CommandOutput;
/// How a command ended.
///
/// ```no_run
/// use wasm_charm::workload::{self, Exit};
///
/// match workload::run("db-sync", &[])?.exit {
///     Exit::Code(0) => {}
///     Exit::Code(code) => println!("exit {code}"),
///     Exit::Signal(signal) => println!("killed by signal {signal}"),
///     Exit::TimedOut => println!("timed out"),
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::workload::Exit;
/// What [`service`] does to a declared systemd unit.
///
/// ```no_run
/// use wasm_charm::workload::{self, ServiceAction};
///
/// workload::service("api-service", ServiceAction::Reload)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::workload::ServiceAction;
/// A declared unit's state, as `systemctl is-active` and `is-enabled`
/// print it.
///
/// ```no_run
/// let state = wasm_charm::workload::service_status("api-service")?;
/// let running = state.active == "active";
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::workload::ServiceStatus;

/// Why a workload call did not do what was asked. The kind stays through
/// `?` into [`Error`](crate::Error)
/// ([`ErrorKind::Workload`](crate::ErrorKind::Workload)).
///
/// ```no_run
/// use wasm_charm::workload::{self, WorkloadError};
///
/// match workload::install(&["api-service"]) {
///     Err(WorkloadError::Unavailable(why)) => println!("try again later: {why}"),
///     other => other?,
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkloadError {
    /// The manifest does not declare that service, command or package (or
    /// does not let the charm append arguments to that command). The
    /// message says which, and the field of `wasm-charm.yaml` to change.
    Undeclared(String),
    /// The tool ran and refused (`systemctl`, `apt-get`, `dpkg-query`).
    Failed {
        /// The program, e.g. `systemctl`.
        tool: String,
        /// Its exit code; `None` when a signal ended it.
        code: Option<i32>,
        /// What it said (its standard error, or standard output when that
        /// was empty).
        message: String,
    },
    /// The tool could not be run at all, did not finish in time, or waited
    /// in vain for a lock another process held (dpkg's).
    Unavailable(String),
}

/// The host's message for `Undeclared` and `Unavailable`;
/// `<tool> failed (exit <code>): <message>` for `Failed`.
///
/// ```
/// use wasm_charm::workload::WorkloadError;
///
/// let e = WorkloadError::Failed { tool: "systemctl".into(), code: Some(5), message: "not found".into() };
/// assert_eq!(e.to_string(), "systemctl failed (exit 5): not found");
/// ```
impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::Undeclared(what) | WorkloadError::Unavailable(what) => f.write_str(what),
            WorkloadError::Failed {
                tool,
                code: Some(code),
                message,
            } => write!(f, "{tool} failed (exit {code}): {message}"),
            WorkloadError::Failed {
                tool,
                code: None,
                message,
            } => write!(f, "{tool} failed (killed by a signal): {message}"),
        }
    }
}

impl std::error::Error for WorkloadError {}

/// The WIT's error, with its tool failure's fields spread.
impl From<wit::WorkloadError> for WorkloadError {
    fn from(e: wit::WorkloadError) -> Self {
        match e {
            wit::WorkloadError::Undeclared(what) => WorkloadError::Undeclared(what),
            wit::WorkloadError::Failed(f) => WorkloadError::Failed {
                tool: f.tool,
                code: f.code,
                message: f.message,
            },
            wit::WorkloadError::Unavailable(what) => WorkloadError::Unavailable(what),
        }
    }
}

impl CommandOutput {
    /// Whether the command exited with code 0.
    ///
    /// ```
    /// use wasm_charm::workload::{CommandOutput, Exit};
    ///
    /// let out = CommandOutput { exit: Exit::Code(0), stdout: vec![], stderr: vec![], truncated: false };
    /// assert!(out.success());
    /// let out = CommandOutput { exit: Exit::TimedOut, ..out };
    /// assert!(!out.success());
    /// ```
    pub fn success(&self) -> bool {
        self.exit == Exit::Code(0)
    }

    /// Its standard output as text (invalid UTF-8 replaced by `�`).
    ///
    /// ```
    /// use wasm_charm::workload::{CommandOutput, Exit};
    ///
    /// let out = CommandOutput {
    ///     exit: Exit::Code(0),
    ///     stdout: b"3 migrations\n".to_vec(),
    ///     stderr: vec![0xff],
    ///     truncated: false,
    /// };
    /// assert_eq!(out.stdout_text(), "3 migrations\n");
    /// assert_eq!(out.stderr_text(), "\u{fffd}");
    /// ```
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Its standard error as text (invalid UTF-8 replaced by `�`).
    ///
    /// ```
    /// use wasm_charm::workload::{CommandOutput, Exit};
    ///
    /// let out = CommandOutput { exit: Exit::Code(1), stdout: vec![], stderr: b"no db\n".to_vec(), truncated: false };
    /// assert_eq!(out.stderr_text().trim(), "no db");
    /// ```
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Apply `action` to the declared unit `name` (`systemctl <action> <name>`),
/// at once. A non-zero exit is [`WorkloadError::Failed`], with systemctl's
/// words.
///
/// ```no_run
/// use wasm_charm::workload::{self, ServiceAction};
///
/// workload::service("api-service", ServiceAction::Reload)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn service(name: &str, action: ServiceAction) -> Result<(), WorkloadError> {
    Ok(wit::service(name, action)?)
}

/// Start the declared unit `name`.
///
/// ```no_run
/// wasm_charm::workload::start("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn start(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Start)
}

/// Stop the declared unit `name`.
///
/// ```no_run
/// wasm_charm::workload::stop("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn stop(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Stop)
}

/// Restart the declared unit `name`, and start again the grace period of
/// the probes that watch it (a `systemd` probe of the unit, a `process`
/// probe of its name) when the handler returns.
///
/// ```no_run
/// wasm_charm::workload::restart("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn restart(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Restart)
}

/// Make the declared unit `name` re-read its configuration.
///
/// ```no_run
/// wasm_charm::workload::reload("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn reload(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Reload)
}

/// Start the declared unit `name` at boot.
///
/// ```no_run
/// wasm_charm::workload::enable("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn enable(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Enable)
}

/// Do not start the declared unit `name` at boot.
///
/// ```no_run
/// wasm_charm::workload::disable("api-service")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn disable(name: &str) -> Result<(), WorkloadError> {
    service(name, ServiceAction::Disable)
}

/// The state of the declared unit `name`: `systemctl is-active` and
/// `is-enabled`, as they print it.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn check(_event: &Event) -> Outcome {
///     let state = workload::service_status("api-service")?;
///     if state.active == "failed" {
///         return Ok(Some(Status::blocked("api-service failed; see journalctl -u api-service")));
///     }
///     Ok(None)
/// }
/// ```
pub fn service_status(name: &str) -> Result<ServiceStatus, WorkloadError> {
    Ok(wit::service_state(name)?)
}

/// Run the declared command `name`: its argv from the manifest, then
/// `args` (refused as [`WorkloadError::Undeclared`] unless the manifest
/// says `args: true`). A non-zero exit is an output, not an error: look at
/// [`CommandOutput::success`]. Past its declared timeout (or the
/// handler's deadline) it is killed with everything it started in its
/// process group, and its exit is [`Exit::TimedOut`]. What it leaves
/// running in its group when it exits is killed too (a daemon must
/// `setsid`).
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn migrate(_event: &Event) -> Outcome {
///     let out = workload::run("db-migrate", &["--to", "head"])?;
///     if !out.success() {
///         return Err(Error::msg(format!("migration failed: {}", out.stderr_text().trim())));
///     }
///     log::info(out.stdout_text());
///     Ok(None)
/// }
/// ```
pub fn run(name: &str, args: &[&str]) -> Result<CommandOutput, WorkloadError> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    Ok(wit::run_command(name, &args)?)
}

/// Install the declared apt packages `packages` (those not installed yet),
/// non-interactively, waiting while another process holds the dpkg lock.
/// It must finish within the handler's deadline (30 s unless
/// `limits.handler-timeout-ms` in `wasm-charm.yaml` says more): give a
/// handler that installs large packages the time they take.
///
/// ```no_run
/// wasm_charm::workload::install(&["api-service", "libpq5"])?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn install(packages: &[&str]) -> Result<(), WorkloadError> {
    let packages: Vec<String> = packages.iter().map(|p| p.to_string()).collect();
    Ok(wit::install_packages(&packages)?)
}

/// Write `contents` to `path` (under a directory `workload.files`
/// grants) unless it holds exactly that already; whether it changed. The
/// new text goes to `<path>.new` beside it and is renamed over it, so a
/// service never reads half a file; an unchanged file is not touched, so
/// nothing need restart for it.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn configure(_event: &Event) -> Outcome {
///     if workload::write_if_changed("/etc/api-service/api.conf", "port = 8774\n")? {
///         workload::restart("api-service")?;
///     }
///     Ok(None)
/// }
/// ```
pub fn write_if_changed(path: &str, contents: impl AsRef<[u8]>) -> Result<bool, crate::Error> {
    use crate::Error;
    let contents = contents.as_ref();
    match std::fs::read(path) {
        Ok(old) if old == contents => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::from(e).context(format!("cannot read {path}"))),
    }
    let new = format!("{path}.new");
    std::fs::write(&new, contents)
        .map_err(|e| Error::from(e).context(format!("cannot write {new}")))?;
    std::fs::rename(&new, path)
        .map_err(|e| Error::from(e).context(format!("cannot replace {path}")))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_when_it_differs_and_left_when_it_does_not() {
        let dir = std::env::temp_dir().join(format!("wasm-charm-sdk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("app.conf");
        let path = path.to_str().unwrap();
        assert!(write_if_changed(path, "a = 1\n").unwrap());
        assert!(!write_if_changed(path, "a = 1\n").unwrap());
        assert!(write_if_changed(path, "a = 2\n").unwrap());
        assert_eq!(std::fs::read_to_string(path).unwrap(), "a = 2\n");
        assert!(!std::path::Path::new(&format!("{path}.new")).exists());
        let missing = dir.join("no-such-dir/app.conf");
        let e = write_if_changed(missing.to_str().unwrap(), "x").unwrap_err();
        assert!(e.to_string().contains("cannot write"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_display_their_reason_and_convert() {
        let undeclared = "service `x` is not declared in wasm-charm.yaml workload.services";
        assert_eq!(
            WorkloadError::Undeclared(undeclared.into()).to_string(),
            undeclared
        );
        let failed = WorkloadError::from(wit::WorkloadError::Failed(wit::ToolFailure {
            tool: "systemctl".into(),
            code: Some(5),
            message: "Unit x.service not found.".into(),
        }));
        assert_eq!(
            failed,
            WorkloadError::Failed {
                tool: "systemctl".into(),
                code: Some(5),
                message: "Unit x.service not found.".into()
            }
        );
        assert_eq!(
            failed.to_string(),
            "systemctl failed (exit 5): Unit x.service not found."
        );
        let killed = WorkloadError::Failed {
            tool: "apt-get".into(),
            code: None,
            message: "".into(),
        };
        assert_eq!(killed.to_string(), "apt-get failed (killed by a signal): ");
        let handler_error = crate::Error::from(WorkloadError::Unavailable("dpkg lock held".into()));
        assert_eq!(handler_error.to_string(), "dpkg lock held");
    }
}
