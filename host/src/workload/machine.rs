//! What answers the workload calls once they are allowed: the machine
//! itself ([`SystemMachine`]: `systemctl`, `apt-get`, `dpkg-query` and the
//! declared programs, as subprocesses), or the offline runner's simulated
//! one (`crate::offline::machine`), which never touches the machine.
//!
//! The capability checks are not here: [`super::Calls`] makes them before
//! any [`Machine`] is asked.

use super::{commands, packages, services};
use crate::bindings::workload::{CommandOutput, ServiceAction, ServiceStatus, WorkloadError};
use std::path::PathBuf;
use std::time::Instant;

/// The machine the workload calls act on. Shared by the handlers of an
/// event (`&self`, `Sync`); every call finishes by `deadline`.
pub trait Machine: Send + Sync {
    /// `systemctl <action> -- <unit>`.
    fn service(
        &self,
        unit: &str,
        action: ServiceAction,
        deadline: Instant,
    ) -> Result<(), WorkloadError>;

    /// `systemctl is-active` and `is-enabled` of `unit`.
    fn service_state(&self, unit: &str, deadline: Instant) -> Result<ServiceStatus, WorkloadError>;

    /// Run command `name` as `argv` (declared, then the guest's arguments)
    /// until it exits or `until` passes (its timeout, cut to the deadline).
    fn run_command(
        &self,
        name: &str,
        argv: &[String],
        until: Instant,
    ) -> Result<CommandOutput, WorkloadError>;

    /// Whether apt package `package` is installed.
    fn package_installed(&self, package: &str, deadline: Instant) -> Result<bool, WorkloadError>;

    /// Install `packages` (none of them installed yet).
    fn install_packages(&self, packages: &[String], deadline: Instant)
    -> Result<(), WorkloadError>;
}

/// The machine the host runs on. The tools are found on `PATH` when their
/// names are bare (the hook's `PATH`, which tests put stand-ins first on),
/// and run with the hook's environment (Juju's proxy settings reach
/// apt-get); declared commands get none of it (see [`commands`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemMachine {
    pub systemctl: PathBuf,
    pub apt_get: PathBuf,
    pub dpkg_query: PathBuf,
    /// The working directory of declared commands: `/`, or the directory
    /// standing for it (`WASM_CHARM_ROOT`, as for declared directories).
    pub command_dir: PathBuf,
}

impl Default for SystemMachine {
    fn default() -> Self {
        SystemMachine {
            systemctl: PathBuf::from("systemctl"),
            apt_get: PathBuf::from("apt-get"),
            dpkg_query: PathBuf::from("dpkg-query"),
            command_dir: PathBuf::from("/"),
        }
    }
}

impl Machine for SystemMachine {
    fn service(
        &self,
        unit: &str,
        action: ServiceAction,
        deadline: Instant,
    ) -> Result<(), WorkloadError> {
        services::act(&self.systemctl, unit, action, deadline)
    }

    fn service_state(&self, unit: &str, deadline: Instant) -> Result<ServiceStatus, WorkloadError> {
        services::state(&self.systemctl, unit, deadline)
    }

    fn run_command(
        &self,
        _name: &str,
        argv: &[String],
        until: Instant,
    ) -> Result<CommandOutput, WorkloadError> {
        commands::run(argv, &self.command_dir, until)
    }

    fn package_installed(&self, package: &str, deadline: Instant) -> Result<bool, WorkloadError> {
        packages::installed(&self.dpkg_query, package, deadline)
    }

    fn install_packages(
        &self,
        packages: &[String],
        deadline: Instant,
    ) -> Result<(), WorkloadError> {
        packages::install(&self.apt_get, packages, &packages::RealPause, deadline)
    }
}
