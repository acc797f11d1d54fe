//! Pebble's HTTP API answered from one container's simulated Pebble: a
//! request in, an answer out, no socket (the server carries them). This
//! file holds the container and the routing; the handlers are by topic in
//! `services_api`, `control_api`, `files_api`, `exec_api` and
//! `notices_api`, the envelopes in `reply`.
//!
//! In the state file's mode every change is carried out before the answer,
//! so waiting on it answers at once, as the simulated machine acts at once.
//! In the process mode (`sim pebble`) an exec change becomes ready when
//! its process ends.

use super::backend::{Checks, Exec, Files, Services, Task, TaskIo};
use super::changes::{Changes, is_ready};
use super::files::Fs;
use super::plan::{self, Plan, SimLayer};
use super::process::checks::Running;
use super::process::files::DirFs;
use super::process::services::Processes;
use super::reply::{Reply, Request, Waiter, bad, error, json_body, sync};
use super::state::{SimContainer, SimFile, SimNotice};
use crate::charm_dir::CommandSpec;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// How long a wait without `timeout` waits.
const WAIT: Duration = Duration::from_secs(3600);

/// One container's Pebble.
#[derive(Debug)]
pub struct Sim {
    pub(super) can_connect: bool,
    pub(super) layers: Vec<SimLayer>,
    pub(super) plan: Plan,
    /// Each service's definition when it was last started (at the event's
    /// start: the plan then), which replan compares with the plan now.
    pub(super) started_with: BTreeMap<String, Map<String, Value>>,
    pub(super) services: Services,
    pub(super) checks: Checks,
    pub(super) fs: Files,
    pub(super) exec: Exec,
    pub calls: Vec<String>,
    pub(super) notices: Vec<SimNotice>,
    /// In memory, the owners pushes and make-dirs named, by path.
    pub(super) owners: BTreeMap<String, super::files::Owner>,
    pub(super) changes: Changes,
    pub(super) tasks: BTreeMap<String, Task>,
    pub(super) last_id: u64,
    /// When the event began, as the time of every change and file; `None`:
    /// the clock's time (process mode).
    pub(super) now: Option<String>,
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.io {
            TaskIo::Scripted { .. } => "scripted",
            TaskIo::Running(_) => "running",
        };
        write!(f, "Task({kind}, opened {:?})", self.opened)
    }
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
        let dir_modes = super::state::dir_modes(&state)?;
        let mut files = BTreeMap::new();
        let mut owners = BTreeMap::new();
        for (path, file) in &state.files {
            files.insert(path.clone(), file.decode()?);
            if let Some(owner) = file.owner() {
                owners.insert(path.clone(), owner.clone());
            }
        }
        Ok(Sim {
            can_connect: state.can_connect,
            started_with: plan.services.clone(),
            plan,
            layers: state.layers,
            services: Services::Recorded {
                current: state.services,
                fail_start: state.fail_start,
            },
            checks: Checks::Scripted(state.checks),
            fs: Files::Memory(Fs::new(files, state.dirs, dir_modes)),
            exec: Exec::Scripted {
                outcomes: state.exec,
                commands,
            },
            calls: Vec::new(),
            notices: state.notices,
            owners,
            changes: Changes::default(),
            tasks: BTreeMap::new(),
            last_id: 0,
            now: Some(now),
        })
    }

    /// A container of real processes over the directory `root` (its file
    /// system, and where exec runs), with no layer yet; each service's pid
    /// written under `state_dir` while it runs.
    pub fn process(root: PathBuf, state_dir: Option<PathBuf>) -> Sim {
        Sim {
            can_connect: true,
            layers: Vec::new(),
            plan: Plan::default(),
            started_with: BTreeMap::new(),
            services: Services::Processes(Processes::new(state_dir)),
            checks: Checks::Running(Running::default()),
            fs: Files::Dir(DirFs { root: root.clone() }),
            exec: Exec::Real { working_dir: root },
            calls: Vec::new(),
            notices: Vec::new(),
            owners: BTreeMap::new(),
            changes: Changes::default(),
            tasks: BTreeMap::new(),
            last_id: 0,
            now: None,
        }
    }

    /// An empty container of the state file's mode.
    pub fn empty() -> Sim {
        let mut sim = Sim::process(PathBuf::new(), None);
        sim.services = Services::Recorded {
            current: BTreeMap::new(),
            fail_start: BTreeMap::new(),
        };
        sim.checks = Checks::Scripted(BTreeMap::new());
        sim.fs = Files::Memory(Fs::default());
        sim.exec = Exec::Scripted {
            outcomes: BTreeMap::new(),
            commands: BTreeMap::new(),
        };
        sim.now = Some(String::new());
        sim
    }

    /// The container for the state file (a process mode's has only its
    /// layers, services and calls).
    pub fn into_state(mut self) -> SimContainer {
        let names: Vec<String> = self.plan.services.keys().cloned().collect();
        let (mut services, fail_start) = match &mut self.services {
            Services::Recorded {
                current,
                fail_start,
            } => (std::mem::take(current), std::mem::take(fail_start)),
            Services::Processes(p) => (
                names.iter().map(|n| (n.clone(), p.current(n))).collect(),
                BTreeMap::new(),
            ),
        };
        for name in names {
            services.entry(name).or_default();
        }
        let (files, dirs, dir_modes) =
            match std::mem::replace(&mut self.fs, Files::Memory(Fs::default())) {
                Files::Memory(fs) => (fs.files, fs.dirs, fs.dir_modes),
                Files::Dir(_) => Default::default(),
            };
        SimContainer {
            can_connect: self.can_connect,
            layers: self.layers,
            services,
            fail_start,
            checks: match &mut self.checks {
                Checks::Scripted(m) => std::mem::take(m),
                Checks::Running(_) => BTreeMap::new(),
            },
            files: files
                .iter()
                .map(|(p, (bytes, mode))| {
                    let file = SimFile::encode(bytes, *mode, self.owners.get(p));
                    (p.clone(), file)
                })
                .collect(),
            dirs,
            dir_permissions: dir_modes
                .into_iter()
                .map(|(p, m)| (p, format!("{m:03o}")))
                .collect(),
            exec: match self.exec {
                Exec::Scripted { outcomes, .. } => outcomes,
                Exec::Real { .. } => BTreeMap::new(),
            },
            notices: self.notices,
            calls: self.calls,
        }
    }

    /// End what waits on this container: every wait answers, every exec
    /// still running is killed.
    pub fn interrupt(&mut self) {
        self.changes.close();
        for task in self.tasks.values() {
            if let TaskIo::Running(run) = &task.io {
                run.kill();
            }
        }
    }

    /// Stop everything this container started: services, checks, execs.
    pub fn shutdown(&mut self) {
        self.interrupt();
        if let Services::Processes(p) = &mut self.services {
            p.stop_all();
        }
        if let Checks::Running(r) = &self.checks {
            r.stop();
        }
    }

    /// The time of a change or a file.
    pub(super) fn time(&self) -> String {
        self.now.clone().unwrap_or_else(super::process::now)
    }

    pub(super) fn next_id(&mut self) -> String {
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
            ["v1", "checks"] if allowed(&["POST"]) => self.checks_action(req),
            ["v1", "signals"] if allowed(&["POST"]) => self.send_signal(req),
            ["v1", "notices"] if allowed(&["GET"]) => self.get_notices(req),
            ["v1", "notices"] if allowed(&["POST"]) => self.post_notice(req),
            ["v1", "notices", id] if allowed(&["GET"]) => self.get_notice(id),
            ["v1", "changes", id] if allowed(&["GET"]) => self.change(id, None),
            ["v1", "changes", id, "wait"] if allowed(&["GET"]) => {
                let timeout = req
                    .param("timeout")
                    .and_then(|t| crate::duration::parse_duration(t).ok());
                self.change(id, Some(timeout.unwrap_or(WAIT)))
            }
            ["v1", "files"] if allowed(&["GET"]) => self.get_files(req),
            ["v1", "files"] if allowed(&["POST"]) => self.post_files(req),
            ["v1", "exec"] if allowed(&["POST"]) => self.exec(req),
            ["v1", "tasks", task, "websocket", id] if allowed(&["GET"]) => self.websocket(task, id),
            [
                "v1",
                "system-info" | "layers" | "plan" | "services" | "checks" | "files" | "exec"
                | "signals" | "notices",
            ]
            | ["v1", "changes" | "notices", ..]
            | ["v1", "tasks", ..] => error(405, "", "method not allowed"),
            _ => error(404, "", "not found"),
        }
    }

    /// Change `id`; with `wait`, once ready (at most that long).
    fn change(&self, id: &str, wait: Option<Duration>) -> Reply {
        match (self.changes.get(id), wait) {
            (None, _) => error(
                404,
                "not-found",
                &format!("cannot find change with id \"{id}\""),
            ),
            (Some(change), Some(timeout)) if !is_ready(&change) => Reply::Wait(Waiter {
                changes: self.changes.clone(),
                id: id.to_string(),
                timeout,
            }),
            (Some(change), _) => sync(change),
        }
    }

    fn add_layer(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
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
            Err(e) => return bad(format!("cannot parse layer YAML: {e}")),
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
                let old = std::mem::replace(&mut self.plan, plan);
                self.checks.plan_changed(&old, &self.plan);
                sync(Value::Bool(true))
            }
            Err(e) => bad(e),
        }
    }
}

#[cfg(test)]
#[path = "api_tests.rs"]
mod api_tests;

#[cfg(test)]
#[path = "api_more_tests.rs"]
mod api_more_tests;
