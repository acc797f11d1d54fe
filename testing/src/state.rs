//! The state an event starts from: `wasm-charm run`'s state file (the
//! host's own [`StateFile`]), the config the operator sets, and the files
//! under the workload root.

use crate::error::Error;
use crate::status::Status;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wasm_charm_host::offline::machine::{ExitWord, ScriptedCommand, ScriptedExit, SimService};
use wasm_charm_host::offline::pebble::state::{
    CheckStatus, Current, SimContainer, SimFile, SimNotice,
};
use wasm_charm_host::offline::secrets::{SimRevision, SimSecret};
use wasm_charm_host::offline::sim::{ScriptedProbe, SimRelation, SimStorage};
use wasm_charm_host::offline::state_file::StateFile;
use wasm_charm_host::status::merge::Band;
use wasm_charm_host::status::store::{ScopeStore, Target, Write};
use wasm_charm_host::status::{store_chunks, store_juju};

/// What the simulated Juju and machine know before an event: the state
/// file of `wasm-charm run`, built in code. Every method returns the
/// changed state, so a state reads as one expression; [`Outcome::state`]
/// gives the state after an event, to run the next one from.
///
/// ```
/// use wasm_charm_testing::{Relation, State, Status};
///
/// let state = State::new()
///     .leader(false)
///     .config("kind", "ingress")
///     .relation(Relation::new("istio-pilot:0", "pilot").app_data("service-port", "15010"))
///     .stored("migrated", "2024.1")
///     .scope("config", Status::blocked("no kind"))
///     .file("/etc/gateway/gateway.conf", "kind = ingress\n");
/// assert_eq!(state.get("leader"), Some(serde_json::json!(false)));
/// assert!(state.to_yaml().contains("istio-pilot:0"));
/// ```
///
/// A part of the state file this builder has no method for is set whole,
/// as YAML or any serde value, with [`State::section`] or
/// [`State::section_yaml`]; the host checks it as it reads the file.
///
/// [`Outcome::state`]: crate::Outcome::state
#[derive(Clone, Default, PartialEq)]
pub struct State {
    pub(crate) file: StateFile,
    /// `--config KEY=VALUE` flags: checked against config.yaml by the host.
    pub(crate) config: Vec<(String, String)>,
    /// Files under the workload root, by the path the charm sees.
    pub(crate) files: BTreeMap<PathBuf, Vec<u8>>,
}

impl State {
    /// The state of a new unit: leader, no relations, config.yaml's defaults.
    pub fn new() -> State {
        State::default()
    }

    /// A whole state file, as `wasm-charm run` reads it.
    pub fn from_yaml(text: &str) -> Result<State, Error> {
        let file: StateFile = if text.trim().is_empty() {
            StateFile::default()
        } else {
            serde_saphyr::from_str(text)
                .map_err(|e| Error::State(format!("not a valid state file: {e}")))?
        };
        Ok(State {
            file,
            ..State::default()
        })
    }

    /// The state file as YAML (without the pending config and the files).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(&self.file).unwrap_or_else(|e| format!("(cannot show: {e})\n"))
    }

    /// One section of the state file (`leader`, `relations`, `machine`, …)
    /// as JSON; `None` when the file leaves it out or has it `null`.
    pub fn get(&self, section: &str) -> Option<Value> {
        match serde_json::to_value(&self.file) {
            Ok(Value::Object(mut doc)) => doc.remove(section).filter(|v| !v.is_null()),
            _ => None,
        }
    }

    /// Set a config option, checked at the run against config.yaml's option
    /// and type as `wasm-charm run --config` checks it. An empty string sets
    /// `""`.
    ///
    /// # Panics
    /// When `value` is a list or map: config options are scalars.
    pub fn config(mut self, key: &str, value: impl Into<Value>) -> State {
        let value = match value.into() {
            Value::String(s) => s,
            Value::Null => String::new(),
            v @ (Value::Bool(_) | Value::Number(_)) => v.to_string(),
            other => panic!("config `{key}`: {other} is not a string, number or boolean"),
        };
        self.config.push((key.to_string(), value));
        self
    }

    /// Whether this unit leads its application (a lone unit does: `true`).
    pub fn leader(mut self, leader: bool) -> State {
        self.file.sim.model.leader = leader;
        self
    }

    /// This unit's name. Default: `<charm name>/0`.
    pub fn unit(mut self, name: &str) -> State {
        self.file.sim.model.unit = Some(name.to_string());
        self
    }

    /// A relation, replacing one of the same id.
    pub fn relation(mut self, relation: Relation) -> State {
        self.file
            .sim
            .model
            .relations
            .insert(relation.id, relation.sim);
        self
    }

    /// A value of the charm's stored data, as `stored::set` keeps it (JSON).
    ///
    /// # Panics
    /// When `value` does not serialise to JSON.
    pub fn stored(self, key: &str, value: impl Serialize) -> State {
        let text = serde_json::to_string(&value)
            .unwrap_or_else(|e| panic!("stored `{key}`: cannot encode it as JSON: {e}"));
        self.stored_text(key, &text)
    }

    /// A value of the charm's stored data, as the exact text kept.
    pub fn stored_text(mut self, key: &str, text: &str) -> State {
        let store = self.store_mut();
        let mut data: BTreeMap<String, String> = store
            .data
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        data.insert(key.to_string(), text.to_string());
        store.data = data.into_iter().collect();
        self
    }

    /// A unit scope holding `status`, as if a previous event had set it.
    pub fn scope(self, name: &str, status: Status) -> State {
        self.set_scope(Target::Unit, name, status)
    }

    /// An application scope holding `status`.
    pub fn app_scope(self, name: &str, status: Status) -> State {
        self.set_scope(Target::App, name, status)
    }

    fn set_scope(mut self, target: Target, name: &str, status: Status) -> State {
        let write = Write::Set {
            target,
            scope: name.to_string(),
            status: crate::status::host_kind(status.kind),
            message: status.message,
            priority: Band::Normal,
        };
        self.store_mut().apply(write, "(the test's state)", 0);
        self
    }

    /// The scope store, taken out of Juju's charm state when a `store:
    /// juju` charm's previous event left it there: the run puts it back
    /// where the charm keeps it.
    pub(crate) fn store_mut(&mut self) -> &mut ScopeStore {
        let sim = &mut self.file.sim;
        if sim.store.scopes.is_none()
            && sim
                .model
                .charm_state
                .keys()
                .any(|k| store_chunks::is_store_key(k))
        {
            let store = store_juju::decode_state(&sim.model.charm_state).unwrap_or_else(|e| {
                panic!("the state's `charm-state` holds no scope store this host reads: {e}")
            });
            sim.model
                .charm_state
                .retain(|k, _| !store_chunks::is_store_key(k));
            sim.store.scopes = Some(store);
        }
        sim.store.scopes.get_or_insert_with(ScopeStore::default)
    }

    /// The state file as the run writes it: the scope store where the
    /// charm keeps it (`store: juju`: Juju's charm state).
    pub(crate) fn file_for(&self, juju_store: bool) -> StateFile {
        let mut file = self.file.clone();
        if juju_store && let Some(store) = file.sim.store.scopes.take() {
            let doc = store_juju::encode(&store);
            file.sim
                .model
                .charm_state
                .retain(|k, _| !store_chunks::is_store_key(k));
            file.sim.model.charm_state.extend(store_chunks::split(&doc));
        }
        file
    }

    /// Script probe `name` healthy: the run answers it instead of running
    /// it (a probe not scripted runs for real, as on the unit).
    pub fn probe_healthy(self, name: &str) -> State {
        self.probe(name, true, None)
    }

    /// Script probe `name` unhealthy, having seen `detail` (the status
    /// message it gives).
    pub fn probe_unhealthy(self, name: &str, detail: &str) -> State {
        self.probe(name, false, Some(detail))
    }

    /// Script probe `name` waiting for what it watches to appear (a
    /// container whose Pebble does not answer yet), with `detail`.
    pub fn probe_waiting(mut self, name: &str, detail: &str) -> State {
        self = self.probe(name, false, Some(detail));
        if let Some(p) = self.file.sim.scripts.probes.get_mut(name) {
            p.waiting = true;
        }
        self
    }

    fn probe(mut self, name: &str, healthy: bool, detail: Option<&str>) -> State {
        let outcome = ScriptedProbe {
            healthy,
            waiting: false,
            detail: detail.map(str::to_string),
        };
        self.file
            .sim
            .scripts
            .probes
            .insert(name.to_string(), outcome);
        self
    }

    /// A systemd unit of the simulated machine (`active`, `enabled` as
    /// systemctl says them). A unit not named is inactive and disabled.
    pub fn service(mut self, unit: &str, active: &str, enabled: &str) -> State {
        let service = SimService {
            active: active.to_string(),
            enabled: enabled.to_string(),
            ..SimService::default()
        };
        self.file.machine.services.insert(unit.to_string(), service);
        self
    }

    /// An apt package installed on the simulated machine.
    pub fn package(mut self, name: &str) -> State {
        self.file.machine.packages.insert(name.to_string());
        self
    }

    /// What the declared command `name` does: exits `code` having printed
    /// `stdout` and `stderr`. A command not scripted exits 0, silent.
    pub fn command(mut self, name: &str, code: i32, stdout: &str, stderr: &str) -> State {
        let command = ScriptedCommand {
            exit: ScriptedExit::Code(code),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
        };
        self.file.machine.commands.insert(name.to_string(), command);
        self
    }

    /// The declared command `name` runs past its timeout.
    pub fn command_timed_out(mut self, name: &str) -> State {
        let command = ScriptedCommand {
            exit: ScriptedExit::Word(ExitWord::TimedOut),
            ..ScriptedCommand::default()
        };
        self.file.machine.commands.insert(name.to_string(), command);
        self
    }

    /// Whether the Pebble of `container` (metadata.yaml `containers:`)
    /// answers; a container is reachable unless this says otherwise, as
    /// once its pod is up.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().can_connect("web", false);
    /// assert!(state.to_yaml().contains("can-connect: false"));
    /// ```
    pub fn can_connect(mut self, container: &str, reachable: bool) -> State {
        self.container(container).can_connect = reachable;
        self
    }

    /// Pebble's health check `check` of `container`, up or down (down:
    /// with as many failures as its threshold).
    pub fn pebble_check(mut self, container: &str, check: &str, up: bool) -> State {
        let status = if up {
            CheckStatus::Up
        } else {
            CheckStatus::Down
        };
        let check = self.container(container).checks.entry(check.to_string());
        check.or_default().status = status;
        self
    }

    /// What the command `name` that wasm-charm.yaml declares for
    /// `container` does through Pebble's exec: exits `code` having printed
    /// `stdout` and `stderr`. One not scripted exits 0, silent.
    pub fn pebble_exec(
        mut self,
        container: &str,
        name: &str,
        code: i32,
        stdout: &str,
        stderr: &str,
    ) -> State {
        let command = ScriptedCommand {
            exit: ScriptedExit::Code(code),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
        };
        let exec = &mut self.container(container).exec;
        exec.insert(name.to_string(), command);
        self
    }

    /// Service `service` of `container`'s Pebble, with Pebble's `current`
    /// state: `active`, `inactive`, `backoff` or `error`.
    ///
    /// # Panics
    /// For any other word.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().pebble_service("web", "web", "active");
    /// assert!(state.to_yaml().contains("web: active"));
    /// ```
    pub fn pebble_service(mut self, container: &str, service: &str, current: &str) -> State {
        let current = match current {
            "active" => Current::Active,
            "inactive" => Current::Inactive,
            "backoff" => Current::Backoff,
            "error" => Current::Error,
            other => panic!(
                "service `{service}` of `{container}`: `{other}` is not Pebble's \
                 (active, inactive, backoff, error)"
            ),
        };
        let services = &mut self.container(container).services;
        services.insert(service.to_string(), current);
        self
    }

    /// A text file in `container`, as Pebble would pull it (mode 644).
    pub fn pebble_file(mut self, container: &str, path: &str, text: &str) -> State {
        let files = &mut self.container(container).files;
        files.insert(path.to_string(), SimFile::Text(text.to_string()));
        self
    }

    /// A custom notice `key` that `container`'s Pebble recorded, with
    /// `data` as its last data; its id is its position among the
    /// container's notices, from 1 (what `--notice-id` names for a
    /// `<container>-pebble-custom-notice` event).
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().pebble_notice("web", "example.com/a", &[("k", "v")]);
    /// assert!(state.to_yaml().contains("key: example.com/a"));
    /// ```
    pub fn pebble_notice(mut self, container: &str, key: &str, data: &[(&str, &str)]) -> State {
        let notice = SimNotice {
            type_: "custom".into(),
            key: key.to_string(),
            last_data: data
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..SimNotice::default()
        };
        self.container(container).notices.push(notice);
        self
    }

    fn container(&mut self, name: &str) -> &mut SimContainer {
        self.file
            .sim
            .model
            .containers
            .entry(name.to_string())
            .or_default()
    }

    /// A file under the workload root, at the path the charm sees
    /// (`/etc/api-service/api-service.conf`); the charm reaches it only
    /// inside a directory its wasm-charm.yaml declares.
    ///
    /// # Panics
    /// When `path` is not absolute.
    pub fn file(mut self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> State {
        let path = path.as_ref();
        assert!(
            path.is_absolute(),
            "file `{}`: give the path the charm sees, absolute",
            path.display()
        );
        self.files
            .insert(path.to_path_buf(), contents.as_ref().to_vec());
        self
    }

    /// The files under the workload root, by the path the charm sees.
    pub fn files(&self) -> &BTreeMap<PathBuf, Vec<u8>> {
        &self.files
    }

    /// A secret by id (`secret:` and 20 characters): `owner` is
    /// `application` or `unit` for the charm's own, else the application
    /// that shared it; one revision with `content`. Other fields through
    /// [`State::section`] (`secrets`).
    pub fn secret<K, V>(
        mut self,
        id: &str,
        owner: &str,
        content: impl IntoIterator<Item = (K, V)>,
    ) -> State
    where
        K: Into<String>,
        V: Into<String>,
    {
        let secret = SimSecret {
            owner: owner.to_string(),
            revisions: vec![SimRevision {
                revision: 1,
                content: content
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            }],
            ..SimSecret::default()
        };
        self.file.sim.model.secrets.insert(id.to_string(), secret);
        self
    }

    /// A storage instance attached to the unit (`data/0`, `filesystem`,
    /// its mount point).
    pub fn storage(mut self, id: &str, kind: &str, location: &str) -> State {
        let storage = SimStorage {
            kind: kind.to_string(),
            location: location.to_string(),
        };
        self.file.sim.model.storage.insert(id.to_string(), storage);
        self
    }

    /// Whether the operator ran `juju trust` (credential-get answers).
    pub fn trusted(mut self, trusted: bool) -> State {
        self.file.sim.model.trusted = trusted;
        self
    }

    /// The file the operator provided for resource `name` (absolute).
    pub fn resource(mut self, name: &str, file: impl Into<PathBuf>) -> State {
        self.file
            .sim
            .model
            .resources
            .insert(name.to_string(), file.into());
        self
    }

    /// Change one section of the state file, from any serde value
    /// (`serde_json::json!`), merged into what is there: maps key by key,
    /// a `null` removing its key, anything else replacing (a JSON merge
    /// patch, so an edit of one container's checks keeps its layers);
    /// `null` for the whole section removes it. Sections this builder has
    /// no method for (`networks`, `opened-ports`, `credential`) are set
    /// this way; [`State::replace_section`] replaces one whole.
    ///
    /// # Panics
    /// When the state file does not take it; [`State::try_section`] returns
    /// the error instead.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().section(
    ///     "networks",
    ///     serde_json::json!({"admin": {"address": "192.168.1.5"}}),
    /// );
    /// assert!(state.to_yaml().contains("192.168.1.5"));
    /// ```
    pub fn section(self, name: &str, value: impl Serialize) -> State {
        self.try_section(name, value)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`State::section`], from YAML text.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().section_yaml("machine", "packages: [nginx]\n");
    /// assert_eq!(state.get("machine"), Some(serde_json::json!({"packages": ["nginx"]})));
    /// ```
    pub fn section_yaml(self, name: &str, yaml: &str) -> State {
        let value: Value = serde_saphyr::from_str(yaml)
            .unwrap_or_else(|e| panic!("state section `{name}`: not YAML: {e}"));
        self.section(name, value)
    }

    /// [`State::section`], returning what the host says of a section it
    /// does not take.
    pub fn try_section(self, name: &str, value: impl Serialize) -> Result<State, Error> {
        self.edit_section(name, value, true)
    }

    /// Set one section whole, dropping what it held.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new()
    ///     .config("port", 8080)
    ///     .replace_section("config", serde_json::json!({"kind": "ingress"}));
    /// assert_eq!(state.get("config"), Some(serde_json::json!({"kind": "ingress"})));
    /// ```
    pub fn replace_section(self, name: &str, value: impl Serialize) -> State {
        self.edit_section(name, value, false)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn edit_section(
        mut self,
        name: &str,
        value: impl Serialize,
        merge: bool,
    ) -> Result<State, Error> {
        let at = |e: &dyn std::fmt::Display| Error::State(format!("state section `{name}`: {e}"));
        let value = serde_json::to_value(value).map_err(|e| at(&e))?;
        let mut doc = match serde_json::to_value(&self.file).map_err(|e| at(&e))? {
            Value::Object(doc) => doc,
            _ => serde_json::Map::new(),
        };
        match doc.get_mut(name) {
            _ if value.is_null() => {
                doc.remove(name);
            }
            Some(old) if merge => wasm_charm_host::offline::state_file::merge_patch(old, &value),
            _ => {
                doc.insert(name.to_string(), value);
            }
        }
        self.file = serde_json::from_value(Value::Object(doc)).map_err(|e| at(&e))?;
        Ok(self)
    }

    /// Write the files under `root`, as the charm's paths there.
    pub(crate) fn write_files(&self, root: &Path) -> Result<(), Error> {
        for (path, bytes) in &self.files {
            let at = crate::files::under(root, path);
            if let Some(parent) = at.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| Error::Io(format!("{}: cannot create: {e}", parent.display())))?;
            }
            std::fs::write(&at, bytes)
                .map_err(|e| Error::Io(format!("{}: cannot write: {e}", at.display())))?;
        }
        Ok(())
    }
}

/// The state file as YAML, the config to set, and the files (text as
/// text), for an assertion's message.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "State:\n{}", self.to_yaml())?;
        for (k, v) in &self.config {
            writeln!(f, "config to set: {k}={v}")?;
        }
        for (path, bytes) in &self.files {
            match std::str::from_utf8(bytes) {
                Ok(text) => writeln!(f, "file {}: {text:?}", path.display())?,
                Err(_) => writeln!(f, "file {}: {} bytes", path.display(), bytes.len())?,
            }
        }
        Ok(())
    }
}

/// One relation of the unit, to put in a [`State`]: its id (`db:1`), the
/// remote application, its units, and the data of each side.
///
/// ```
/// use wasm_charm_testing::Relation;
///
/// let db = Relation::new("db:1", "postgresql")
///     .app_data("host", "10.0.0.5")
///     .unit_data("postgresql/0", "ingress-address", "10.0.0.6")
///     .local_app_data("database", "api");
/// assert_eq!(db.id(), "db:1");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    id: String,
    sim: SimRelation,
}

impl Relation {
    /// Relation `id` (`<endpoint>:<n>`) with application `remote_app`, no
    /// remote unit yet, and empty databags.
    pub fn new(id: &str, remote_app: &str) -> Relation {
        Relation {
            id: id.to_string(),
            sim: SimRelation {
                app: remote_app.to_string(),
                ..SimRelation::default()
            },
        }
    }

    /// The relation's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A remote unit (`postgresql/0`) joined.
    pub fn unit(mut self, unit: &str) -> Relation {
        if !self.sim.units.iter().any(|u| u == unit) {
            self.sim.units.push(unit.to_string());
        }
        self
    }

    /// A key of the remote application's databag.
    pub fn app_data(mut self, key: &str, value: &str) -> Relation {
        self.sim.app_data.insert(key.to_string(), value.to_string());
        self
    }

    /// A key of remote unit `unit`'s databag; the unit joins if it had not.
    pub fn unit_data(mut self, unit: &str, key: &str, value: &str) -> Relation {
        self = self.unit(unit);
        self.sim
            .unit_data
            .entry(unit.to_string())
            .or_default()
            .insert(key.to_string(), value.to_string());
        self
    }

    /// A key of this application's databag.
    pub fn local_app_data(mut self, key: &str, value: &str) -> Relation {
        self.sim
            .local_app_data
            .insert(key.to_string(), value.to_string());
        self
    }

    /// A key of this unit's databag.
    pub fn local_unit_data(mut self, key: &str, value: &str) -> Relation {
        self.sim
            .local_unit_data
            .insert(key.to_string(), value.to_string());
        self
    }

    /// The UUID of the model hosting the remote application: a cross-model
    /// relation (`relation-model-get`). Default: this model's.
    pub fn remote_model_uuid(mut self, uuid: &str) -> Relation {
        self.sim.model_uuid = Some(uuid.to_string());
        self
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
