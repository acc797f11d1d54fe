//! The simulated Pebble of `wasm-charm run`: during an event, each
//! workload container of metadata.yaml gets a server on a real unix socket
//! where the host's Pebble client looks for it
//! (`/charm/containers/<name>/pebble.socket` under the offline workload
//! root), answering Pebble's API from the state file's `containers:`
//! section. The charm's `pebble` calls and the Pebble probes then take the
//! same path as on a unit. Like the simulated machine, Pebble acts at once:
//! a failed hook keeps what its handlers did to the containers.
//!
//!
//! The same simulated Pebble has a process-backed mode, served on its own
//! by `wasm-charm sim pebble` ([`serve`]) for tests that need a workload
//! that really runs: files in a real directory, services, exec and checks
//! real processes ([`process`]). Only the backends differ ([`backend`]);
//! the API, the plan, the changes and the socket are one.
//!
//! * [`state`]: the section of the state file.
//! * [`plan`]: layers and the plan they combine into; [`plan_rules`]: what
//!   Pebble refuses of them.
//! * [`files`]: the container's file system, in memory.
//! * [`glob`]: list-files' `pattern`.
//! * [`backend`]: what differs between the modes; [`check_life`]: what a
//!   new plan does to each check, in both.
//! * [`process`]: the process mode's backends.
//! * [`reply`]: requests, answers and Pebble's envelopes.
//! * [`changes`]: changes, and waiting on them.
//! * [`api`]: the container and the API's routing, request in and answer
//!   out; its handlers by topic in [`services_api`], [`control_api`]
//!   (signals, checks started and stopped), [`files_api`], [`exec_api`]
//!   and [`notices_api`].
//! * [`ws`]: exec's websockets, server side.
//! * [`server`]: the socket and its threads.
//! * [`serve`]: `wasm-charm sim pebble`.
//! * [`service_words`]: a failed service start in Pebble's words.
//! * [`words`]: a command line split as a shell (and Pebble) would.

pub mod api;
pub mod backend;
pub mod changes;
pub mod check_life;
pub mod control_api;
pub mod exec_api;
pub mod files;
pub mod files_api;
pub mod glob;
pub mod notices_api;
pub mod plan;
pub mod plan_rules;
pub mod process;
pub mod reply;
pub mod serve;
pub mod server;
pub mod service_words;
pub mod services_api;
pub mod state;
pub mod words;
pub mod ws;

use crate::charm_dir::CharmDir;
use crate::workload_root::WorkloadRoot;
use api::Sim;
use server::Server;
use state::SimContainer;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each container's Pebble during one event: served, or (without
/// `can-connect`) kept aside with no socket.
pub struct Containers {
    served: Vec<(String, Server)>,
    unreachable: Vec<(String, Sim)>,
}

/// Where `container`'s socket is under `root`.
fn socket(root: &WorkloadRoot, container: &str) -> Option<PathBuf> {
    root.host_path(Path::new(&crate::pebble::socket_path(container)))
}

impl Containers {
    /// Serve each container of metadata.yaml from `state` (the state
    /// file's section, checked here). `Err`: a usage error naming the
    /// field, or a socket that cannot be made.
    pub fn start(
        charm: &CharmDir,
        root: &WorkloadRoot,
        mut state: BTreeMap<String, SimContainer>,
        state_path: &Path,
        now: u64,
    ) -> anyhow::Result<Containers> {
        let declared = &charm.metadata.containers;
        let grants = &charm.manifest.workload.containers;
        state::check(&state, declared, grants)
            .map_err(|e| super::run_args::UsageError(format!("{}: {e}", state_path.display())))?;
        let mut out = Containers {
            served: Vec::new(),
            unreachable: Vec::new(),
        };
        if declared.is_empty() {
            return Ok(out);
        }
        if root.is_machine() {
            return Err(super::run_args::UsageError(format!(
                "the simulated Pebble of container {} would listen under the machine's own \
                 /charm/containers: name a workload root other than / (--root)",
                declared.join(", ")
            ))
            .into());
        }
        let time = crate::show::utc(now);
        for name in declared {
            let container = state.remove(name).unwrap_or_default();
            let commands = grants
                .get(name)
                .map(|g| g.commands.clone())
                .unwrap_or_default();
            let can_connect = container.can_connect;
            let sim = Sim::new(container, commands, time.clone()).map_err(|e| {
                super::run_args::UsageError(format!(
                    "{}: `containers.{name}`: {e}",
                    state_path.display()
                ))
            })?;
            let path = socket(root, name).ok_or_else(|| {
                anyhow::anyhow!("container {name}: its name makes no socket path")
            })?;
            if can_connect {
                let server = Server::start(path, sim)
                    .map_err(|e| anyhow::anyhow!("container {name}'s simulated Pebble: {e}"))?;
                out.served.push((name.clone(), server));
            } else {
                // No stale socket left for the client to find.
                server::remove_socket(&path)
                    .map_err(|e| anyhow::anyhow!("container {name}: {e}"))?;
                out.unreachable.push((name.clone(), sim));
            }
        }
        Ok(out)
    }

    /// Stop every server: the containers for the state file, those with
    /// nothing to record left out.
    pub fn finish(self) -> BTreeMap<String, SimContainer> {
        let served = self
            .served
            .into_iter()
            .map(|(name, server)| (name, server.stop()));
        served
            .chain(self.unreachable)
            .map(|(name, sim)| (name, sim.into_state()))
            .filter(|(_, c)| !c.is_default())
            .collect()
    }
}

#[cfg(test)]
#[path = "socket_tests.rs"]
mod socket_tests;

#[cfg(test)]
#[path = "process_tests.rs"]
mod process_tests;
