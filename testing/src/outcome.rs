//! What one event did, read from `wasm-charm serve`'s answer: the
//! outcome's own fields and the state it saved.

use crate::error::Error;
pub use crate::handler::Handler;
use crate::reply::{
    ChangeReply, ProbeReply, Reply, ScopeReply, StatusReply, status_named, unknown,
};
use crate::saved::{self, Saved};
use crate::state::State;
use crate::status::Status;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// One change of a scope, oldest first in [`Outcome::scope_history`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeChange {
    /// The status set; `None`: the scope was cleared.
    pub status: Option<Status>,
    /// The event during which it changed (`config-changed`, `action backup`).
    pub event: String,
}

/// A secret after the event, as Juju keeps it ([`Outcome::secrets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// `secret:…`.
    pub id: String,
    /// `application` or `unit` for the charm's own; for one another
    /// application shared, that application.
    pub owner: String,
    pub label: Option<String>,
    pub description: Option<String>,
    /// The latest revision, and its content.
    pub revision: u32,
    pub content: BTreeMap<String, String>,
    /// The charm's own: who may read it, by relation id (the related
    /// application or some of its units).
    pub grants: BTreeMap<String, Vec<String>>,
}

impl Secret {
    fn of(id: &str, s: &saved::Secret) -> Secret {
        let latest = s.revisions.iter().max_by_key(|r| r.revision);
        Secret {
            id: id.to_string(),
            owner: s.owner.clone(),
            label: s.label.clone(),
            description: s.description.clone(),
            revision: latest.map_or(0, |r| r.revision),
            content: latest.map(|r| r.content.clone()).unwrap_or_default(),
            grants: s.grants.clone(),
        }
    }
}

/// A relation after the event: its remote application and units, and the
/// data of both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationData {
    pub remote_app: String,
    pub remote_units: Vec<String>,
    /// This application's databag.
    pub local_app: BTreeMap<String, String>,
    /// This unit's databag.
    pub local_unit: BTreeMap<String, String>,
    /// The remote application's databag.
    pub remote_app_data: BTreeMap<String, String>,
    /// Each remote unit's databag.
    pub remote_unit_data: BTreeMap<String, BTreeMap<String, String>>,
}

/// What one event did, as the host reported it and saved the state: the
/// statuses written, every scope, relation data, stored data, the
/// action's results, the handlers' results, the log, the hook-tool and
/// machine calls, the files under the workload root, and the state to run
/// the next event from ([`Outcome::state`]).
///
/// A failed hook commits nothing of what Juju buffers (relation data,
/// scopes, stored data); the outcome shows the state as committed.
/// `{}` and `{:?}` show all of it, for a failing assertion's message:
///
/// ```no_run
/// # use wasm_charm_testing::Event;
/// # let charm = wasm_charm_testing::Charm::load("build/gateway");
/// # let state = wasm_charm_testing::State::new();
/// let out = charm.run(&state, Event::install());
/// assert_eq!(out.scope("handler/config"), None, "{out}");
/// ```
#[derive(Clone)]
pub struct Outcome {
    pub(crate) charm: String,
    pub(crate) event: String,
    pub(crate) failed: bool,
    /// Why the hook failed before any handler ran.
    pub(crate) error: Option<String>,
    /// Why nothing ran (a hook the charm does not know).
    pub(crate) ignored: Option<String>,
    pub(crate) handlers: Vec<(String, Handler)>,
    pub(crate) failures: Vec<String>,
    pub(crate) unit_written: bool,
    pub(crate) app_written: bool,
    /// The scopes as committed, by target.
    pub(crate) unit_scopes: BTreeMap<String, ScopeReply>,
    pub(crate) app_scopes: BTreeMap<String, ScopeReply>,
    /// The charm's stored data as committed.
    pub(crate) stored: BTreeMap<String, String>,
    /// Each probe's last result.
    pub(crate) probes: BTreeMap<String, ProbeReply>,
    /// Whether each declared probe gates readiness now.
    pub(crate) gates: BTreeMap<String, bool>,
    /// The probes as `wasm-charm run` shows them.
    pub(crate) probe_lines: Vec<String>,
    /// What the tests read of the saved state.
    pub(crate) saved: Saved,
    /// The state as saved, with the files under the root.
    pub(crate) next: State,
}

impl Outcome {
    /// The outcome of `event` on charm `charm` from the server's reply;
    /// `next`: the state to run the next event from.
    pub(crate) fn from_reply(
        charm: &str,
        event: &str,
        reply: Reply,
        mut next: State,
    ) -> Result<Outcome, Error> {
        let saved: Saved = serde_json::from_value(serde_json::Value::Object(reply.state.clone()))
            .map_err(|e| Error::Io(format!("wasm-charm serve's next state: {e}")))?;
        for scope in reply.scopes.unit.values().chain(reply.scopes.app.values()) {
            scope_status(scope.current.as_ref())?;
            for c in &scope.history {
                change(c)?;
            }
        }
        let handlers = reply
            .handlers
            .iter()
            .map(|h| Ok((h.name.clone(), h.handler()?)))
            .collect::<Result<_, Error>>()?;
        next.doc = reply.state;
        Ok(Outcome {
            charm: charm.to_string(),
            event: event.to_string(),
            failed: reply.failed,
            error: reply.error,
            ignored: reply.ignored,
            handlers,
            failures: reply.failures,
            unit_written: reply.status_set.unit,
            app_written: reply.status_set.app,
            unit_scopes: reply.scopes.unit,
            app_scopes: reply.scopes.app,
            stored: reply.stored,
            probes: reply.probes,
            gates: reply.gates,
            probe_lines: reply.probe_lines,
            saved,
            next,
        })
    }

    /// The event that ran.
    pub fn event(&self) -> &str {
        &self.event
    }

    /// Whether the hook succeeded (exit 0). An action whose handler failed
    /// it is no failed hook: see [`Outcome::action_failed`].
    pub fn ok(&self) -> bool {
        !self.failed
    }

    /// Whether the hook failed (exit 1): nothing buffered was committed.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Why the hook failed: each handler's failure, and a failure before
    /// any handler ran.
    pub fn failures(&self) -> Vec<&str> {
        self.error
            .iter()
            .chain(&self.failures)
            .map(String::as_str)
            .collect()
    }

    /// Panic, showing the whole outcome, unless the hook succeeded.
    #[track_caller]
    pub fn assert_ok(&self) -> &Outcome {
        assert!(!self.failed, "the hook failed:\n{self}");
        self
    }

    /// Panic, showing the whole outcome, unless the hook failed.
    #[track_caller]
    pub fn assert_failed(&self) -> &Outcome {
        assert!(self.failed, "the hook did not fail:\n{self}");
        self
    }

    /// The unit's status as Juju has it after the event (written with
    /// `status-set` now or by an earlier event).
    pub fn unit_status(&self) -> Option<Status> {
        let w = self.saved.status.unit.as_ref()?;
        status_named(&w.status, &w.message)
    }

    /// The application's status as Juju has it (only a leader writes it).
    pub fn app_status(&self) -> Option<Status> {
        let w = self.saved.status.app.as_ref()?;
        status_named(&w.status, &w.message)
    }

    /// Whether this event called `status-set` for the unit (the host writes
    /// only a status that changed).
    pub fn unit_status_set(&self) -> bool {
        self.unit_written
    }

    /// Whether this event called `status-set --application`.
    pub fn app_status_set(&self) -> bool {
        self.app_written
    }

    /// How each handler that ran ended, in the order they ran.
    pub fn handlers(&self) -> &[(String, Handler)] {
        &self.handlers
    }

    /// How handler `name` ended; `None` when it did not run.
    pub fn handler(&self, name: &str) -> Option<&Handler> {
        self.handlers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, h)| h)
    }

    /// The status unit scope `name` holds (a handler's scope is
    /// `handler/<name>`); `None` when it holds none.
    pub fn scope(&self, name: &str) -> Option<Status> {
        current(self.unit_scopes.get(name)?)
    }

    /// The status application scope `name` holds.
    pub fn app_scope(&self, name: &str) -> Option<Status> {
        current(self.app_scopes.get(name)?)
    }

    /// Every unit scope holding a status.
    pub fn scopes(&self) -> BTreeMap<String, Status> {
        currents(&self.unit_scopes)
    }

    /// Every application scope holding a status.
    pub fn app_scopes(&self) -> BTreeMap<String, Status> {
        currents(&self.app_scopes)
    }

    /// The recent changes of unit scope `name`, oldest first.
    pub fn scope_history(&self, name: &str) -> Vec<ScopeChange> {
        history(self.unit_scopes.get(name))
    }

    /// The recent changes of application scope `name`, oldest first.
    pub fn app_scope_history(&self, name: &str) -> Vec<ScopeChange> {
        history(self.app_scopes.get(name))
    }

    /// The declared probes that gate readiness after the event (the
    /// manifest's `gate:`, or a handler's choice).
    pub fn gating(&self) -> Vec<&str> {
        self.gates
            .iter()
            .filter(|(_, gate)| **gate)
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// What probe `name` last found: healthy or not, and the detail (the
    /// message it gives); `None` before it first ran.
    pub fn probe(&self, name: &str) -> Option<(bool, &str)> {
        let last = self.probes.get(name)?;
        Some((last.healthy, last.detail.as_str()))
    }

    /// Relation `id` (`db:1`) after the event; `None` when the unit is not
    /// in it (never was, or a broken relation went).
    pub fn relation(&self, id: &str) -> Option<RelationData> {
        let r = self.saved.relations.get(id)?;
        Some(RelationData {
            remote_app: r.app.clone(),
            remote_units: r.units.clone(),
            local_app: r.local_app_data.clone(),
            local_unit: r.local_unit_data.clone(),
            remote_app_data: r.app_data.clone(),
            remote_unit_data: r.unit_data.clone(),
        })
    }

    /// The ids of the unit's relations.
    pub fn relation_ids(&self) -> Vec<&str> {
        self.saved.relations.keys().map(String::as_str).collect()
    }

    /// A value of the charm's stored data, as kept (`stored::set` keeps JSON).
    pub fn stored(&self, key: &str) -> Option<&str> {
        self.stored.get(key).map(String::as_str)
    }

    /// A value of the charm's stored data, decoded as `stored::get` does.
    ///
    /// # Panics
    /// When the value is not a `T` in JSON.
    #[track_caller]
    pub fn stored_as<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let text = self.stored(key)?;
        Some(serde_json::from_str(text).unwrap_or_else(|e| {
            panic!(
                "stored `{key}` = {text}: not a {}: {e}",
                std::any::type_name::<T>()
            )
        }))
    }

    /// All of the charm's stored data.
    pub fn stored_data(&self) -> BTreeMap<String, String> {
        self.stored.clone()
    }

    /// Every secret Juju keeps after the event, by id (`secret:…`): the
    /// charm's own and those shared with it, each as its owner sees it.
    pub fn secrets(&self) -> BTreeMap<String, Secret> {
        self.saved
            .secrets
            .iter()
            .map(|(id, s)| (id.clone(), Secret::of(id, s)))
            .collect()
    }

    /// The secret with this id or label, as [`Outcome::secrets`] has it.
    pub fn secret(&self, id_or_label: &str) -> Option<Secret> {
        self.secrets()
            .into_values()
            .find(|s| s.id == id_or_label || s.label.as_deref() == Some(id_or_label))
    }

    /// The action's results, by dotted key (`backup.id`).
    pub fn action_results(&self) -> &BTreeMap<String, String> {
        &self.saved.action_results
    }

    /// One action result.
    pub fn action_result(&self, key: &str) -> Option<&str> {
        self.saved.action_results.get(key).map(String::as_str)
    }

    /// The message the action failed with (`action-fail`, or the host's for
    /// a handler's error); `None` when it did not fail.
    pub fn action_failed(&self) -> Option<&str> {
        self.saved.action_failed.as_deref()
    }

    /// The unit log (`juju-log`, and an action's progress messages).
    pub fn logs(&self) -> &[String] {
        &self.saved.log
    }

    /// Whether a line of the log contains `text`.
    pub fn logged(&self, text: &str) -> bool {
        self.logs().iter().any(|l| l.contains(text))
    }

    /// The hook-tool calls the event made (`status-set active …`), one line
    /// each.
    pub fn tool_calls(&self) -> &[String] {
        &self.saved.calls
    }

    /// The calls made on the simulated machine, as the real tools would
    /// have run them (`systemctl start -- api-service`): the handlers'
    /// workload calls, and a `systemd` probe's `systemctl is-active`.
    pub fn machine_calls(&self) -> &[String] {
        &self.saved.machine.calls
    }

    /// A systemd unit of the simulated machine after the event, as
    /// systemctl would say it: (active, enabled). A unit no call started,
    /// stopped, enabled or disabled is as the machine's defaults say
    /// (inactive, disabled).
    pub fn service(&self, unit: &str) -> (&str, &str) {
        match self.saved.machine.services.get(unit) {
            Some(s) => (s.active.as_str(), s.enabled.as_str()),
            None => ("inactive", "disabled"),
        }
    }

    /// The apt packages installed on the simulated machine.
    pub fn packages(&self) -> Vec<&str> {
        self.saved
            .machine
            .packages
            .iter()
            .map(String::as_str)
            .collect()
    }

    /// The file at `path` (as the charm sees it) under the workload root
    /// after the event.
    pub fn file(&self, path: impl AsRef<Path>) -> Option<&[u8]> {
        self.next.files.get(path.as_ref()).map(Vec::as_slice)
    }

    /// The file at `path` as text; `None` when absent or not UTF-8.
    pub fn file_text(&self, path: impl AsRef<Path>) -> Option<&str> {
        std::str::from_utf8(self.file(path)?).ok()
    }

    /// Every file under the workload root after the event.
    pub fn files(&self) -> &BTreeMap<PathBuf, Vec<u8>> {
        &self.next.files
    }

    /// What the event asked of the Pebble of `container`, one line each
    /// (`push /etc/web/web.conf`, `add-layer web combine`, `replan`).
    pub fn pebble_calls(&self, container: &str) -> &[String] {
        self.saved
            .containers
            .get(container)
            .map_or(&[], |c| c.calls.as_slice())
    }

    /// A Pebble service of `container` after the event, as Pebble reports
    /// its `current` (`active`, `inactive`, `backoff`, `error`); `None` for
    /// a service the plan does not have and no call started.
    pub fn pebble_service(&self, container: &str, service: &str) -> Option<&'static str> {
        let current = self
            .saved
            .containers
            .get(container)?
            .services
            .get(service)?;
        saved::PEBBLE_CURRENT
            .into_iter()
            .find(|word| word == current)
    }

    /// A file in `container` after the event, as text; `None` when absent,
    /// unreadable or not UTF-8.
    pub fn pebble_file(&self, container: &str, path: &str) -> Option<String> {
        saved::file_text(self.saved.containers.get(container)?.files.get(path)?)
    }

    /// The labels of the layers in `container`'s plan, oldest first.
    pub fn pebble_layers(&self, container: &str) -> Vec<&str> {
        self.saved
            .containers
            .get(container)
            .map_or(Vec::new(), |c| {
                c.layers.iter().map(|l| l.label.as_str()).collect()
            })
    }

    /// What `application-version-set` last set.
    pub fn application_version(&self) -> Option<&str> {
        self.saved.application_version.as_deref()
    }

    /// The open ports (`80/tcp`).
    pub fn opened_ports(&self) -> Vec<&str> {
        self.saved.opened_ports.keys().map(String::as_str).collect()
    }

    /// The storage instances attached after the event (`data/0`), with
    /// those `storage-add` added when the hook succeeded.
    pub fn storage(&self) -> Vec<&str> {
        self.saved.storage.keys().map(String::as_str).collect()
    }

    /// The reboot the event asked for (`juju-reboot`): `now` (Juju killed
    /// the hook, kept nothing of it and runs it again), `after-hook` (the
    /// hook succeeded), or `None`.
    pub fn reboot(&self) -> Option<&'static str> {
        ["now", "after-hook"]
            .into_iter()
            .find(|r| self.saved.reboot.as_deref() == Some(*r))
    }

    /// The state after the event, to run the next one from: what Juju
    /// committed, the machine as the calls left it, the files under the
    /// root.
    pub fn state(&self) -> State {
        self.next.clone()
    }
}

fn scope_status(current: Option<&StatusReply>) -> Result<Option<Status>, Error> {
    current.map(StatusReply::status).transpose()
}

fn change(c: &ChangeReply) -> Result<ScopeChange, Error> {
    let status = match &c.status {
        Some(kind) => Some(
            status_named(kind, &c.message).ok_or_else(|| unknown(&format!("status `{kind}`")))?,
        ),
        None => None,
    };
    Ok(ScopeChange {
        status,
        event: c.event.clone(),
    })
}

/// Checked when the outcome was made.
fn current(scope: &ScopeReply) -> Option<Status> {
    scope_status(scope.current.as_ref()).ok().flatten()
}

fn currents(scopes: &BTreeMap<String, ScopeReply>) -> BTreeMap<String, Status> {
    scopes
        .iter()
        .filter_map(|(name, s)| Some((name.clone(), current(s)?)))
        .collect()
}

/// Checked when the outcome was made.
fn history(scope: Option<&ScopeReply>) -> Vec<ScopeChange> {
    scope
        .map(|s| s.history.iter().filter_map(|c| change(c).ok()).collect())
        .unwrap_or_default()
}

/// `{k: v, …}` on one line.
fn bag(data: &BTreeMap<String, String>) -> String {
    let items: Vec<String> = data.iter().map(|(k, v)| format!("{k}: {v:?}")).collect();
    format!("{{{}}}", items.join(", "))
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let exit = if self.failed { "FAILED" } else { "ok" };
        writeln!(f, "{} on charm {}: {exit}", self.event, self.charm)?;
        if let Some(why) = &self.ignored {
            writeln!(f, "  ignored: {why}")?;
        }
        if let Some(e) = &self.error {
            writeln!(f, "  failed before any handler ran: {e}")?;
        }
        for (name, h) in &self.handlers {
            writeln!(f, "  handler {name}: {h}")?;
        }
        self.fmt_statuses(f)?;
        self.fmt_scopes(f)?;
        for line in &self.probe_lines {
            writeln!(f, "  probe {}", line.trim_start())?;
        }
        self.fmt_relations(f)?;
        for (k, v) in &self.stored {
            writeln!(f, "  stored {k} = {v}")?;
        }
        self.fmt_action_and_calls(f)?;
        self.fmt_containers(f)?;
        self.fmt_machine(f)?;
        for failure in &self.failures {
            writeln!(f, "  failure: {failure}")?;
        }
        Ok(())
    }
}

/// The parts of `{}`, in the order it shows them.
impl Outcome {
    /// The unit's and the application's statuses, and whether the event
    /// wrote them.
    fn fmt_statuses(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let written = |w: bool| if w { "status-set" } else { "unchanged" };
        let status = |s: Option<Status>| s.map_or("none".to_string(), |s| s.to_string());
        writeln!(
            f,
            "  unit status: {} ({})",
            status(self.unit_status()),
            written(self.unit_written)
        )?;
        writeln!(
            f,
            "  app status: {} ({})",
            status(self.app_status()),
            written(self.app_written)
        )
    }

    /// Every scope, its status now and its history.
    fn fmt_scopes(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (what, scopes) in [("unit", &self.unit_scopes), ("app", &self.app_scopes)] {
            for (name, scope) in scopes {
                let now = current(scope).map_or("cleared".to_string(), |s| s.to_string());
                writeln!(f, "  {what} scope {name}: {now}")?;
                for c in history(Some(scope)) {
                    let s = c.status.map_or("cleared".to_string(), |s| s.to_string());
                    writeln!(f, "    at {}: {s}", c.event)?;
                }
            }
        }
        Ok(())
    }

    /// Each relation, its units and both sides' data.
    fn fmt_relations(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (id, r) in &self.saved.relations {
            writeln!(f, "  relation {id} with {} {:?}", r.app, r.units)?;
            writeln!(f, "    local app: {}", bag(&r.local_app_data))?;
            writeln!(f, "    local unit: {}", bag(&r.local_unit_data))?;
            writeln!(f, "    remote app: {}", bag(&r.app_data))?;
            for (unit, data) in &r.unit_data {
                writeln!(f, "    remote unit {unit}: {}", bag(data))?;
            }
        }
        Ok(())
    }

    /// The action's results and failure, the log, and the hook-tool and
    /// machine calls.
    fn fmt_action_and_calls(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (k, v) in self.action_results() {
            writeln!(f, "  action result {k}: {v:?}")?;
        }
        if let Some(m) = self.action_failed() {
            writeln!(f, "  action failed: {m}")?;
        }
        for line in self.logs() {
            writeln!(f, "  log: {line}")?;
        }
        for line in self.tool_calls() {
            writeln!(f, "  tool: {line}")?;
        }
        for line in self.machine_calls() {
            writeln!(f, "  machine: {line}")?;
        }
        Ok(())
    }

    /// Each container: whether it connects, its calls, its services.
    fn fmt_containers(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (name, c) in &self.saved.containers {
            if !c.can_connect {
                writeln!(f, "  pebble {name}: cannot connect")?;
            }
            for line in &c.calls {
                writeln!(f, "  pebble {name}: {line}")?;
            }
            for (service, current) in &c.services {
                writeln!(f, "  pebble {name} service {service}: {current}")?;
            }
        }
        Ok(())
    }

    /// The machine's services and packages, and the files under the
    /// workload root.
    fn fmt_machine(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (unit, s) in &self.saved.machine.services {
            writeln!(f, "  service {unit}: {} {}", s.active, s.enabled)?;
        }
        let packages = self.packages();
        if !packages.is_empty() {
            writeln!(f, "  packages: {}", packages.join(", "))?;
        }
        for (path, bytes) in &self.next.files {
            writeln!(f, "  file {} ({} bytes)", path.display(), bytes.len())?;
        }
        Ok(())
    }
}

/// The same as `{}`: all of what happened, for `assert!(…, "{out:?}")`.
impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
