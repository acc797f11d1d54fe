//! The state an event starts from: `wasm-charm run`'s state file as a
//! document (docs/offline-state.md), the config the operator sets, what a
//! test seeds into the charm's store, and the files under the workload
//! root.

use crate::error::Error;
use crate::status::Status;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wasm_charm::interfaces::TypedBag;

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
/// [`State::section_yaml`]; `wasm-charm` checks it as it reads the file.
///
/// [`Outcome::state`]: crate::Outcome::state
#[derive(Clone, Default, PartialEq)]
pub struct State {
    /// The state file, section by section.
    pub(crate) doc: Map<String, Value>,
    /// `--config KEY=VALUE` flags: checked against config.yaml by the host.
    pub(crate) config: Vec<(String, String)>,
    /// Scopes and stored data, written by `wasm-charm` into the store
    /// wherever the charm keeps it.
    pub(crate) seed: Seed,
    /// Files under the workload root, by the path the charm sees.
    pub(crate) files: BTreeMap<PathBuf, Vec<u8>>,
}

/// What a test puts in the charm's store, as the protocol's `seed`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Seed {
    pub(crate) scopes: Vec<SeedScope>,
    pub(crate) stored: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SeedScope {
    pub(crate) target: &'static str,
    pub(crate) name: String,
    pub(crate) status: &'static str,
    pub(crate) message: String,
}

impl State {
    /// The state of a new unit: leader, no relations, config.yaml's defaults.
    pub fn new() -> State {
        State::default()
    }

    /// A whole state file, as `wasm-charm run` reads it (and checked as it
    /// reads it).
    pub fn from_yaml(text: &str) -> Result<State, Error> {
        if text.trim().is_empty() {
            return Ok(State::default());
        }
        let invalid =
            |e: &dyn std::fmt::Display| Error::State(format!("not a valid state file: {e}"));
        let doc = match serde_saphyr::from_str::<Value>(text).map_err(|e| invalid(&e))? {
            Value::Object(doc) => doc,
            other => return Err(invalid(&format!("{other} is not a mapping"))),
        };
        check(&doc).map_err(|e| invalid(&e))?;
        Ok(State {
            doc,
            ..State::default()
        })
    }

    /// The state file as YAML (without the pending config, the seed and
    /// the files).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(&self.doc).unwrap_or_else(|e| format!("(cannot show: {e})\n"))
    }

    /// One section of the state file (`leader`, `relations`, `machine`, …)
    /// as JSON; `None` when the file leaves it out or has it `null`.
    pub fn get(&self, section: &str) -> Option<Value> {
        self.doc.get(section).filter(|v| !v.is_null()).cloned()
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
        self.doc.insert("leader".into(), json!(leader));
        self
    }

    /// This unit's name. Default: `<charm name>/0`.
    pub fn unit(mut self, name: &str) -> State {
        self.doc.insert("unit".into(), json!(name));
        self
    }

    /// A relation, replacing one of the same id.
    pub fn relation(mut self, relation: Relation) -> State {
        let body = serde_json::to_value(&relation.body).unwrap_or_default();
        self.at(&["relations"]).insert(relation.id, body);
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
        self.seed.stored.insert(key.to_string(), text.to_string());
        self
    }

    /// A unit scope holding `status`, as if a previous event had set it.
    pub fn scope(self, name: &str, status: Status) -> State {
        self.set_scope("unit", name, status)
    }

    /// An application scope holding `status`.
    pub fn app_scope(self, name: &str, status: Status) -> State {
        self.set_scope("app", name, status)
    }

    fn set_scope(mut self, target: &'static str, name: &str, status: Status) -> State {
        self.seed.scopes.push(SeedScope {
            target,
            name: name.to_string(),
            status: status.kind.name(),
            message: status.message,
        });
        self
    }

    /// Script probe `name` healthy: the run answers it instead of running
    /// it (a probe not scripted runs for real, as on the unit).
    pub fn probe_healthy(self, name: &str) -> State {
        self.probe(name, json!({"healthy": true}))
    }

    /// Script probe `name` unhealthy, having seen `detail` (the status
    /// message it gives).
    pub fn probe_unhealthy(self, name: &str, detail: &str) -> State {
        self.probe(name, json!({"healthy": false, "detail": detail}))
    }

    /// Script probe `name` waiting for what it watches to appear (a
    /// container whose Pebble does not answer yet), with `detail`.
    pub fn probe_waiting(self, name: &str, detail: &str) -> State {
        self.probe(
            name,
            json!({"healthy": false, "waiting": true, "detail": detail}),
        )
    }

    fn probe(mut self, name: &str, outcome: Value) -> State {
        self.at(&["probes"]).insert(name.to_string(), outcome);
        self
    }

    /// A systemd unit of the simulated machine (`active`, `enabled` as
    /// systemctl says them). A unit not named is inactive and disabled.
    pub fn service(mut self, unit: &str, active: &str, enabled: &str) -> State {
        let service = json!({"active": active, "enabled": enabled});
        self.at(&["machine", "services"])
            .insert(unit.to_string(), service);
        self
    }

    /// An apt package installed on the simulated machine.
    pub fn package(mut self, name: &str) -> State {
        let machine = self.at(&["machine"]);
        let mut packages: Vec<Value> = match machine.remove("packages") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        if !packages.iter().any(|p| p == name) {
            packages.push(json!(name));
        }
        machine.insert("packages".into(), Value::Array(packages));
        self
    }

    /// What the declared command `name` does: exits `code` having printed
    /// `stdout` and `stderr`. A command not scripted exits 0, silent.
    pub fn command(mut self, name: &str, code: i32, stdout: &str, stderr: &str) -> State {
        let command = json!({"exit": code, "stdout": stdout, "stderr": stderr});
        self.at(&["machine", "commands"])
            .insert(name.to_string(), command);
        self
    }

    /// The declared command `name` runs past its timeout.
    pub fn command_timed_out(mut self, name: &str) -> State {
        let command = json!({"exit": "timed-out", "stdout": "", "stderr": ""});
        self.at(&["machine", "commands"])
            .insert(name.to_string(), command);
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
        self.at(&["containers", container])
            .insert("can-connect".into(), json!(reachable));
        self
    }

    /// Pebble's health check `check` of `container`, up or down (down:
    /// with as many failures as its threshold).
    pub fn pebble_check(mut self, container: &str, check: &str, up: bool) -> State {
        let status = if up { "up" } else { "down" };
        self.at(&["containers", container, "checks", check])
            .insert("status".into(), json!(status));
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
        let command = json!({"exit": code, "stdout": stdout, "stderr": stderr});
        self.at(&["containers", container, "exec"])
            .insert(name.to_string(), command);
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
        assert!(
            crate::saved::PEBBLE_CURRENT.contains(&current),
            "service `{service}` of `{container}`: `{current}` is not Pebble's \
             (active, inactive, backoff, error)"
        );
        self.at(&["containers", container, "services"])
            .insert(service.to_string(), json!(current));
        self
    }

    /// A text file in `container`, as Pebble would pull it (mode 644).
    pub fn pebble_file(mut self, container: &str, path: &str, text: &str) -> State {
        self.at(&["containers", container, "files"])
            .insert(path.to_string(), json!(text));
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
        let data: Map<String, Value> = data
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let notice = json!({"type": "custom", "key": key, "last-data": data});
        let c = self.at(&["containers", container]);
        match c.get_mut("notices") {
            Some(Value::Array(notices)) => notices.push(notice),
            _ => {
                c.insert("notices".into(), json!([notice]));
            }
        }
        self
    }

    /// The object at `path` in the document, made (or made an object) on
    /// the way.
    fn at(&mut self, path: &[&str]) -> &mut Map<String, Value> {
        let mut at = &mut self.doc;
        for key in path {
            let entry = at.entry(key.to_string()).or_insert_with(|| json!({}));
            if !entry.is_object() {
                *entry = json!({});
            }
            let Value::Object(next) = entry else {
                unreachable!("made an object just above")
            };
            at = next;
        }
        at
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
        let content: Map<String, Value> = content
            .into_iter()
            .map(|(k, v)| (k.into(), Value::String(v.into())))
            .collect();
        let secret = json!({"owner": owner, "revisions": [{"revision": 1, "content": content}]});
        self.at(&["secrets"]).insert(id.to_string(), secret);
        self
    }

    /// A storage instance attached to the unit (`data/0`, `filesystem`,
    /// its mount point).
    pub fn storage(mut self, id: &str, kind: &str, location: &str) -> State {
        let storage = json!({"kind": kind, "location": location});
        self.at(&["storage"]).insert(id.to_string(), storage);
        self
    }

    /// Whether the operator ran `juju trust` (credential-get answers).
    pub fn trusted(mut self, trusted: bool) -> State {
        self.doc.insert("trusted".into(), json!(trusted));
        self
    }

    /// The file the operator provided for resource `name` (absolute).
    pub fn resource(mut self, name: &str, file: impl Into<PathBuf>) -> State {
        let file = file.into();
        self.at(&["resources"])
            .insert(name.to_string(), json!(file));
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

    /// [`State::section`], returning what `wasm-charm` says of a section
    /// the state file does not take.
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
        let mut doc = self.doc.clone();
        match doc.get_mut(name) {
            _ if value.is_null() => {
                doc.remove(name);
            }
            Some(old) if merge => merge_patch(old, &value),
            _ => {
                doc.insert(name.to_string(), value);
            }
        }
        check(&doc).map_err(|e| at(&e))?;
        self.doc = doc;
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

/// Whether the state file takes `doc`, as `wasm-charm` reads it.
fn check(doc: &Map<String, Value>) -> Result<(), Error> {
    crate::server::call(json!({"op": "check", "state": doc})).map(drop)
}

/// Merge `patch` into `into` as a JSON merge patch (RFC 7386): maps key by
/// key, `null` removing its key, anything else replacing (a map patching a
/// non-map starts from `{}`). The host's scenario steps edit a state with
/// `wasm_charm_host::merge_patch::apply`, the same rule; this crate builds
/// no host code, so it keeps this copy, checked against the same RFC table.
fn merge_patch(into: &mut Value, patch: &Value) {
    let Value::Object(changes) = patch else {
        *into = patch.clone();
        return;
    };
    if !into.is_object() {
        *into = Value::Object(Map::new());
    }
    if let Value::Object(map) = into {
        for (k, v) in changes {
            if v.is_null() {
                map.remove(k);
            } else {
                merge_patch(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The state file as YAML, the config to set, the seed and the files
/// (text as text), for an assertion's message.
impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "State:\n{}", self.to_yaml())?;
        for (k, v) in &self.config {
            writeln!(f, "config to set: {k}={v}")?;
        }
        for s in &self.seed.scopes {
            writeln!(
                f,
                "{} scope to set: {} = {}: {}",
                s.target, s.name, s.status, s.message
            )?;
        }
        for (k, v) in &self.seed.stored {
            writeln!(f, "stored to set: {k} = {v}")?;
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
    body: RelationBody,
}

/// A relation as the state file's `relations` has it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
struct RelationBody {
    app: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    units: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    app_data: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    unit_data: BTreeMap<String, BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    local_app_data: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    local_unit_data: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_uuid: Option<String>,
}

impl Relation {
    /// Relation `id` (`<endpoint>:<n>`) with application `remote_app`, no
    /// remote unit yet, and empty databags.
    pub fn new(id: &str, remote_app: &str) -> Relation {
        Relation {
            id: id.to_string(),
            body: RelationBody {
                app: remote_app.to_string(),
                ..RelationBody::default()
            },
        }
    }

    /// The relation's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A remote unit (`postgresql/0`) joined.
    pub fn unit(mut self, unit: &str) -> Relation {
        if !self.body.units.iter().any(|u| u == unit) {
            self.body.units.push(unit.to_string());
        }
        self
    }

    /// A key of the remote application's databag.
    pub fn app_data(mut self, key: &str, value: &str) -> Relation {
        self.body
            .app_data
            .insert(key.to_string(), value.to_string());
        self
    }

    /// A key of remote unit `unit`'s databag; the unit joins if it had not.
    pub fn unit_data(mut self, unit: &str, key: &str, value: &str) -> Relation {
        self = self.unit(unit);
        self.body
            .unit_data
            .entry(unit.to_string())
            .or_default()
            .insert(key.to_string(), value.to_string());
        self
    }

    /// A key of this application's databag.
    pub fn local_app_data(mut self, key: &str, value: &str) -> Relation {
        self.body
            .local_app_data
            .insert(key.to_string(), value.to_string());
        self
    }

    /// A key of this unit's databag.
    pub fn local_unit_data(mut self, key: &str, value: &str) -> Relation {
        self.body
            .local_unit_data
            .insert(key.to_string(), value.to_string());
        self
    }

    /// The remote application's bag holding `value`, one of the SDK's typed
    /// bags (`wasm_charm::interfaces`), encoded as its interface has it:
    /// the other side of an interface in one line.
    ///
    /// ```
    /// use wasm_charm::interfaces::ingress_v2::{IngressUrl, ProviderApp};
    /// use wasm_charm_testing::Relation;
    ///
    /// let traefik = Relation::new("ingress:1", "traefik").unit("traefik/0").app_bag(&ProviderApp {
    ///     ingress: Some(IngressUrl::new("http://gw/dev-web".into())),
    /// });
    /// # let _ = traefik;
    /// ```
    pub fn app_bag(mut self, value: &impl TypedBag) -> Relation {
        apply(&mut self.body.app_data, value);
        self
    }

    /// Remote unit `unit`'s bag holding `value` (see [`Relation::app_bag`]);
    /// the unit joins if it had not.
    pub fn unit_bag(mut self, unit: &str, value: &impl TypedBag) -> Relation {
        self = self.unit(unit);
        apply(
            self.body.unit_data.entry(unit.to_string()).or_default(),
            value,
        );
        self
    }

    /// The UUID of the model hosting the remote application: a cross-model
    /// relation (`relation-model-get`). Default: this model's.
    pub fn remote_model_uuid(mut self, uuid: &str) -> Relation {
        self.body.model_uuid = Some(uuid.to_string());
        self
    }
}

/// A typed bag's changes applied to a bag: an empty value deletes.
fn apply(bag: &mut BTreeMap<String, String>, value: &impl TypedBag) {
    for (k, v) in value.to_bag() {
        if v.is_empty() {
            bag.remove(&k);
        } else {
            bag.insert(k, v);
        }
    }
}

impl State {
    /// A `postgresql_client` provider that has answered, in one line:
    /// relation `relation` (`database:1`) from application `app` (its unit
    /// `<app>/0`), whose bag names `database` and `endpoints` and a user
    /// secret (granted to the relation) holding `username` and `password`,
    /// as Canonical's data platform libraries answer.
    ///
    /// ```
    /// use wasm_charm_testing::State;
    ///
    /// let state = State::new().database_provider("database:1", "pg", "shop", "10.0.0.1:5432", "u", "p");
    /// # let _ = state;
    /// ```
    pub fn database_provider(
        self,
        relation: &str,
        app: &str,
        database: &str,
        endpoints: &str,
        username: &str,
        password: &str,
    ) -> State {
        use wasm_charm::interfaces::postgresql_client_v0::ProviderApp;
        let n = relation.rsplit(':').next().unwrap_or("0");
        // An id as Juju makes them: 20 characters of base32hex, the last 0.
        let digits: String = n.chars().filter(char::is_ascii_digit).take(18).collect();
        let secret = format!("secret:d{digits:0>18}0");
        let answer = ProviderApp {
            database: Some(database.into()),
            endpoints: Some(endpoints.into()),
            secret_user: Some(secret.clone()),
            ..ProviderApp::new()
        };
        self.secret(
            &secret,
            app,
            [("username", username), ("password", password)],
        )
        .relation(
            Relation::new(relation, app)
                .unit(&format!("{app}/0"))
                .app_bag(&answer),
        )
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
