//! The `model` WIT interface: the Juju model, answered by hook tools.
//!
//! One [`Model`] serves a whole event and is handed from handler to handler.
//! Reads are cached for the event (Juju caches them per hook context too), so
//! each tool runs at most once per question however many handlers ask.
//! Relation writes are buffered per handler: [`Model::commit_handler`] keeps
//! them when the handler returned, [`Model::abort_handler`] drops them when it
//! trapped, and [`Model::flush`] sends one `relation-set --file -` per databag
//! at the end of the event.

pub mod hook_tools;

use crate::bindings::RelationRef;
use crate::bindings::model::{
    ConfigOption, ConfigValue, Databag, Host, LocalBag, LogLevel, ModelError, ToolFailure,
};
use crate::charm_dir::{ConfigSchema, ConfigType};
use hook_tools::{HookTools, ToolOutput};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest value of one relation-set: the whole document travels on stdin,
/// but Juju (main) caps a settings collection at 16 MiB.
const MAX_RELATION_WRITE: usize = 16 << 20;
/// Juju passes a log message as one argv element: Linux caps those at 128 KiB.
const MAX_LOG_ARG: usize = 128 * 1024 - 1;

/// How long the host's own tool calls may take together after the handlers
/// (relation data, statuses, logs), and after each handler (its log lines):
/// Juju sets no timeout, and a hung tool would hold the machine-wide hook
/// lock. Generous, since a loaded machine runs the tools slowly.
pub const HOST_CALLS_TIMEOUT: Duration = Duration::from_secs(30);

/// Who this unit is, for the model calls that need no tool.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub unit: String,
    pub app: String,
    pub model: String,
}

type Bag = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum BagKey {
    LocalUnit,
    LocalApp,
    RemoteUnit(String),
    RemoteApp,
}

#[derive(Default)]
struct Cache {
    config: Option<Vec<ConfigOption>>,
    leader: Option<bool>,
    ids: HashMap<String, Vec<RelationRef>>,
    units: HashMap<u32, Vec<String>>,
    apps: HashMap<u32, Option<String>>,
    bags: HashMap<(u32, BagKey), Bag>,
}

/// Relation writes not yet sent: (relation, bag) → key → value ("" deletes).
type Pending = BTreeMap<(String, u32, bool), Bag>;

/// The model as one event sees it.
pub struct Model {
    tools: Arc<dyn HookTools>,
    /// When the tool calls made now must have finished: the running
    /// handler's deadline, or the event's for the host's own calls.
    deadline: Instant,
    schema: ConfigSchema,
    identity: Identity,
    /// The relation whose relation-broken event runs: hidden from
    /// `relation-ids`, as ops hides it, because Juju still lists it.
    broken: Option<RelationRef>,
    /// The remote app Juju named for the event's relation.
    event_app: Option<(u32, String)>,
    cache: Cache,
    committed: Pending,
    handler: Pending,
}

impl Model {
    pub fn new(tools: Arc<dyn HookTools>, schema: ConfigSchema, identity: Identity) -> Model {
        Model {
            tools,
            deadline: Instant::now() + HOST_CALLS_TIMEOUT,
            schema,
            identity,
            broken: None,
            event_app: None,
            cache: Cache::default(),
            committed: Pending::new(),
            handler: Pending::new(),
        }
    }

    /// Tool calls from now on must finish by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// The hook tools, for the event to log with after a handler was abandoned.
    pub fn tools(&self) -> Arc<dyn HookTools> {
        self.tools.clone()
    }

    /// Tell the model which relation event runs.
    pub fn set_event_relation(&mut self, relation: &RelationRef, remote_app: &str, broken: bool) {
        if !remote_app.is_empty() {
            self.event_app = Some((relation.id, remote_app.to_string()));
        }
        if broken {
            self.broken = Some(relation.clone());
        }
    }

    /// Keep the relation writes of the handler that just returned.
    pub fn commit_handler(&mut self) {
        for (key, changes) in std::mem::take(&mut self.handler) {
            self.committed.entry(key).or_default().extend(changes);
        }
    }

    /// Drop the relation writes of a handler that trapped.
    pub fn abort_handler(&mut self) {
        self.handler.clear();
    }

    /// Send the kept relation writes: one `relation-set` per databag.
    pub fn flush(&mut self) -> Result<(), ModelError> {
        for ((endpoint, id, app), changes) in std::mem::take(&mut self.committed) {
            let doc = serde_json::to_vec(&changes).unwrap_or_default();
            let rel = format!("{endpoint}:{id}");
            let mut args = vec!["-r", rel.as_str()];
            if app {
                args.push("--app");
            }
            args.extend(["--file", "-"]);
            self.run("relation-set", &args, Some(&doc))?;
        }
        Ok(())
    }

    /// Log through `juju-log`; a failure to log is reported on stderr, which
    /// Juju also sends to the unit log, and never fails the event.
    pub fn log(&mut self, level: LogLevel, message: &str) {
        let level = match level {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warning => "WARNING",
            LogLevel::Error => "ERROR",
        };
        let message = &message[..message.floor_char_boundary(MAX_LOG_ARG)];
        if let Err(e) = self.run("juju-log", &["--log-level", level, "--", message], None) {
            eprintln!(
                "wasm-charm: juju-log failed ({}); the message was: {message}",
                describe_error(&e)
            );
        }
    }

    /// Run a tool, turning failures into typed errors that name the tool.
    pub fn run(
        &mut self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, ModelError> {
        let out = self
            .tools
            .call(tool, args, stdin, self.deadline)
            .map_err(|e| failure(tool, -1, format!("cannot run {tool}: {e}")))?;
        classify(tool, out)
    }

    fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        tool: &str,
        args: &[&str],
    ) -> Result<T, ModelError> {
        let out = self.run(tool, args, None)?;
        serde_json::from_slice(&out).map_err(|e| {
            failure(
                tool,
                0,
                format!(
                    "{tool} answered something that is not the expected JSON ({e}): {}",
                    String::from_utf8_lossy(&out).trim()
                ),
            )
        })
    }

    fn bag_key(bag: &Databag) -> BagKey {
        match bag {
            Databag::LocalUnit => BagKey::LocalUnit,
            Databag::LocalApp => BagKey::LocalApp,
            Databag::RemoteUnit(u) => BagKey::RemoteUnit(u.clone()),
            Databag::RemoteApp => BagKey::RemoteApp,
        }
    }

    fn read_bag(&mut self, relation: &RelationRef, bag: &Databag) -> Result<Bag, ModelError> {
        let key = (relation.id, Self::bag_key(bag));
        if let Some(b) = self.cache.bags.get(&key) {
            return Ok(b.clone());
        }
        let (owner, app) = match bag {
            Databag::LocalUnit => (self.identity.unit.clone(), false),
            Databag::LocalApp => (self.identity.app.clone(), true),
            Databag::RemoteUnit(u) => {
                if u.is_empty() || !u.contains('/') {
                    return Err(ModelError::InvalidArgument(format!(
                        "`{u}` is not a unit name (`<app>/<number>`)"
                    )));
                }
                (u.clone(), false)
            }
            Databag::RemoteApp => match self.remote_app(relation)? {
                Some(app) => (app, true),
                None => {
                    return Err(ModelError::RelationNotFound(format!(
                        "{}:{} has no remote application (yet)",
                        relation.endpoint, relation.id
                    )));
                }
            },
        };
        let rel = format!("{}:{}", relation.endpoint, relation.id);
        let mut args = vec!["--format=json", "-r", rel.as_str()];
        if app {
            args.push("--app");
        }
        args.extend(["-", owner.as_str()]);
        let data: Option<Bag> = self.json("relation-get", &args)?;
        let data = data.unwrap_or_default();
        self.cache.bags.insert(key, data.clone());
        Ok(data)
    }

    fn remote_app(&mut self, relation: &RelationRef) -> Result<Option<String>, ModelError> {
        if let Some((id, app)) = &self.event_app
            && *id == relation.id
        {
            return Ok(Some(app.clone()));
        }
        if let Some(app) = self.cache.apps.get(&relation.id) {
            return Ok(app.clone());
        }
        let rel = format!("{}:{}", relation.endpoint, relation.id);
        let app: Option<String> =
            self.json("relation-list", &["--format=json", "-r", &rel, "--app"])?;
        let app = app.filter(|a| !a.is_empty());
        self.cache.apps.insert(relation.id, app.clone());
        Ok(app)
    }

    fn typed_config(
        &self,
        name: &str,
        value: serde_json::Value,
    ) -> Result<Option<ConfigValue>, ModelError> {
        use serde_json::Value as J;
        let declared = self.schema.options.get(name).copied();
        let v = match (declared, value) {
            (_, J::Null) => return Ok(None),
            (Some(ConfigType::String) | None, J::String(s)) => ConfigValue::String(s),
            (Some(ConfigType::Secret), J::String(s)) => ConfigValue::Secret(s),
            (Some(ConfigType::Boolean) | None, J::Bool(b)) => ConfigValue::Boolean(b),
            (Some(ConfigType::Int), J::Number(n)) if n.as_i64().is_some() => {
                ConfigValue::Int(n.as_i64().unwrap_or_default())
            }
            (None, J::Number(n)) if n.as_i64().is_some() => {
                ConfigValue::Int(n.as_i64().unwrap_or_default())
            }
            (Some(ConfigType::Float) | None, J::Number(n)) => {
                ConfigValue::Float(n.as_f64().unwrap_or_default())
            }
            (declared, other) => {
                return Err(failure(
                    "config-get",
                    0,
                    format!(
                        "option `{name}` is declared {} in config.yaml but Juju gave {other}",
                        declared.map_or("untyped".to_string(), |d| format!("{d:?}").to_lowercase())
                    ),
                ));
            }
        };
        Ok(Some(v))
    }
}

/// A model error as the operator should read it, in one line: the
/// generated `Display` of WIT types is their `Debug`.
pub fn describe_error(e: &ModelError) -> String {
    match e {
        ModelError::RelationNotFound(m)
        | ModelError::NotLeader(m)
        | ModelError::InvalidArgument(m) => m.clone(),
        ModelError::ToolFailed(f) if f.message.contains(f.tool.as_str()) => f.message.clone(),
        ModelError::ToolFailed(f) if f.exit_code > 0 => {
            format!("{} exited with code {}: {}", f.tool, f.exit_code, f.message)
        }
        ModelError::ToolFailed(f) => format!("{}: {}", f.tool, f.message),
    }
}

fn failure(tool: &str, exit_code: i32, message: String) -> ModelError {
    ModelError::ToolFailed(ToolFailure {
        tool: tool.to_string(),
        exit_code,
        message,
    })
}

/// Map a tool's answer to Juju's error kinds, the way ops reads them
/// (reference §2.0): stderr names relations not found and missing leadership.
fn classify(tool: &str, out: ToolOutput) -> Result<Vec<u8>, ModelError> {
    if out.code == 0 {
        return Ok(out.stdout);
    }
    let message = out.stderr.trim().trim_start_matches("ERROR ").to_string();
    let message = if message.is_empty() {
        format!("{tool} exited with code {}", out.code)
    } else {
        message
    };
    if message.contains("relation not found") {
        Err(ModelError::RelationNotFound(message))
    } else if message.contains("not the leader")
        || message.contains("cannot write relation settings")
    {
        Err(ModelError::NotLeader(message))
    } else {
        Err(failure(tool, out.code, message))
    }
}

fn validate_changes(changes: &[(String, String)]) -> Result<(), ModelError> {
    let mut size = 0;
    for (k, v) in changes {
        if k.is_empty() || k.contains('=') || k.chars().any(char::is_whitespace) {
            return Err(ModelError::InvalidArgument(format!(
                "relation data key `{k}` must be non-empty, without `=` or spaces"
            )));
        }
        size += k.len() + v.len();
    }
    if size > MAX_RELATION_WRITE {
        return Err(ModelError::InvalidArgument(format!(
            "relation data write of {size} bytes is over Juju's {MAX_RELATION_WRITE}"
        )));
    }
    Ok(())
}

impl Host for Model {
    fn config(&mut self) -> Result<Vec<ConfigOption>, ModelError> {
        if let Some(c) = &self.cache.config {
            return Ok(c.clone());
        }
        let raw: Option<BTreeMap<String, serde_json::Value>> =
            self.json("config-get", &["--format=json"])?;
        let mut options = Vec::new();
        for (name, value) in raw.unwrap_or_default() {
            if let Some(value) = self.typed_config(&name, value)? {
                options.push(ConfigOption { name, value });
            }
        }
        self.cache.config = Some(options.clone());
        Ok(options)
    }

    fn is_leader(&mut self) -> Result<bool, ModelError> {
        if let Some(l) = self.cache.leader {
            return Ok(l);
        }
        let leader: bool = self.json("is-leader", &["--format=json"])?;
        self.cache.leader = Some(leader);
        Ok(leader)
    }

    fn unit_name(&mut self) -> String {
        self.identity.unit.clone()
    }

    fn app_name(&mut self) -> String {
        self.identity.app.clone()
    }

    fn model_name(&mut self) -> String {
        self.identity.model.clone()
    }

    fn relation_ids(&mut self, endpoint: String) -> Result<Vec<RelationRef>, ModelError> {
        if endpoint.is_empty() {
            return Err(ModelError::InvalidArgument(
                "relation-ids needs an endpoint name".into(),
            ));
        }
        if let Some(ids) = self.cache.ids.get(&endpoint) {
            return Ok(ids.clone());
        }
        let raw: Option<Vec<String>> = self.json("relation-ids", &["--format=json", &endpoint])?;
        let mut ids = Vec::new();
        for r in raw.unwrap_or_default() {
            let parsed = crate::event::parse_relation_id(&r).ok_or_else(|| {
                failure("relation-ids", 0, format!("`{r}` is not `<endpoint>:<id>`"))
            })?;
            if Some(&parsed) != self.broken.as_ref() {
                ids.push(parsed);
            }
        }
        ids.sort_by_key(|r| r.id);
        self.cache.ids.insert(endpoint, ids.clone());
        Ok(ids)
    }

    fn relation_units(&mut self, relation: RelationRef) -> Result<Vec<String>, ModelError> {
        if let Some(u) = self.cache.units.get(&relation.id) {
            return Ok(u.clone());
        }
        let rel = format!("{}:{}", relation.endpoint, relation.id);
        let units: Option<Vec<String>> =
            self.json("relation-list", &["--format=json", "-r", &rel])?;
        let mut units = units.unwrap_or_default();
        units.sort();
        self.cache.units.insert(relation.id, units.clone());
        Ok(units)
    }

    fn relation_app(&mut self, relation: RelationRef) -> Result<Option<String>, ModelError> {
        self.remote_app(&relation)
    }

    fn relation_get(
        &mut self,
        relation: RelationRef,
        bag: Databag,
    ) -> Result<Vec<(String, String)>, ModelError> {
        let mut data = self.read_bag(&relation, &bag)?;
        // The local bags show this event's writes, as Juju's local context does.
        let local_app = match bag {
            Databag::LocalUnit => Some(false),
            Databag::LocalApp => Some(true),
            _ => None,
        };
        if let Some(app) = local_app {
            let key = (relation.endpoint.clone(), relation.id, app);
            for pending in [&self.committed, &self.handler] {
                for (k, v) in pending.get(&key).into_iter().flatten() {
                    if v.is_empty() {
                        data.remove(k);
                    } else {
                        data.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        Ok(data.into_iter().collect())
    }

    fn relation_set(
        &mut self,
        relation: RelationRef,
        bag: LocalBag,
        changes: Vec<(String, String)>,
    ) -> Result<(), ModelError> {
        validate_changes(&changes)?;
        let app = bag == LocalBag::App;
        if app && !self.is_leader()? {
            return Err(ModelError::NotLeader(format!(
                "only the leader may write the application data of {}:{}",
                relation.endpoint, relation.id
            )));
        }
        let entry = self
            .handler
            .entry((relation.endpoint, relation.id, app))
            .or_default();
        entry.extend(changes);
        Ok(())
    }

    fn log(&mut self, level: LogLevel, message: String) {
        Model::log(self, level, &message);
    }

    fn application_version_set(&mut self, version: String) -> Result<(), ModelError> {
        self.run("application-version-set", &["--", &version], None)
            .map(drop)
    }
}

/// Register the `model` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::model::add_to_linker::<T, wasmtime::component::HasSelf<Model>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_tools::table::{Calls, ToolTable};

    fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
        let (tools, calls) = ToolTable::new(answers);
        let mut schema = ConfigSchema::default();
        schema.options.insert("port".into(), ConfigType::Int);
        schema.options.insert("ratio".into(), ConfigType::Float);
        let identity = Identity {
            unit: "gw/0".into(),
            app: "gw".into(),
            model: "m".into(),
        };
        (Model::new(Arc::new(tools), schema, identity), calls)
    }

    fn rel(id: u32) -> RelationRef {
        RelationRef {
            endpoint: "db".into(),
            id,
        }
    }

    #[test]
    fn reads_are_cached_for_the_event() {
        let (mut m, calls) = model(&[
            ("is-leader", ToolOutput::ok("true\n")),
            (
                "config-get",
                ToolOutput::ok(r#"{"port": 80, "ratio": 1, "name": "x", "gone": null}"#),
            ),
        ]);
        assert!(m.is_leader().unwrap());
        assert!(m.is_leader().unwrap());
        let config = m.config().unwrap();
        assert_eq!(m.config().unwrap(), config);
        // Typed by config.yaml: an integral JSON number for a float option is a float.
        assert_eq!(
            config,
            vec![
                ConfigOption {
                    name: "name".into(),
                    value: ConfigValue::String("x".into())
                },
                ConfigOption {
                    name: "port".into(),
                    value: ConfigValue::Int(80)
                },
                ConfigOption {
                    name: "ratio".into(),
                    value: ConfigValue::Float(1.0)
                },
            ]
        );
        assert_eq!(calls.lock().unwrap().len(), 2);
    }

    #[test]
    fn relation_writes_follow_the_handler_and_go_out_once_per_bag() {
        let (mut m, calls) = model(&[
            ("relation-get", ToolOutput::ok(r#"{"a": "1", "b": "2"}"#)),
            ("relation-set", ToolOutput::ok("")),
            ("is-leader", ToolOutput::ok("false")),
        ]);
        // A trapped handler's writes vanish.
        m.relation_set(rel(1), LocalBag::Unit, vec![("x".into(), "lost".into())])
            .unwrap();
        m.abort_handler();
        // A returned handler's writes are visible to the next one at once.
        m.relation_set(
            rel(1),
            LocalBag::Unit,
            vec![("a".into(), "".into()), ("c".into(), "3".into())],
        )
        .unwrap();
        m.commit_handler();
        m.relation_set(rel(1), LocalBag::Unit, vec![("d".into(), "4".into())])
            .unwrap();
        m.commit_handler();
        let bag = m.relation_get(rel(1), Databag::LocalUnit).unwrap();
        assert_eq!(
            bag,
            vec![
                ("b".into(), "2".into()),
                ("c".into(), "3".into()),
                ("d".into(), "4".into())
            ]
        );
        // The app bag needs leadership.
        assert!(matches!(
            m.relation_set(rel(1), LocalBag::App, vec![("k".into(), "v".into())]),
            Err(ModelError::NotLeader(_))
        ));
        m.flush().unwrap();
        let calls = calls.lock().unwrap();
        let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].1, ["-r", "db:1", "--file", "-"]);
        assert_eq!(sets[0].2.as_deref(), Some(r#"{"a":"","c":"3","d":"4"}"#));
    }

    #[test]
    fn tool_failures_become_typed_errors() {
        let (mut m, _) = model(&[
            (
                "relation-list",
                ToolOutput::error(
                    2,
                    "invalid value \"db:9\" for option -r: relation not found",
                ),
            ),
            ("relation-ids", ToolOutput::ok("[\"db:1\", \"nonsense\"]")),
            ("config-get", ToolOutput::ok(r#"{"port": "eighty"}"#)),
            ("is-leader", ToolOutput::ok("maybe")),
        ]);
        assert!(matches!(
            m.relation_units(rel(9)),
            Err(ModelError::RelationNotFound(_))
        ));
        let e = describe_error(&m.relation_ids("db".into()).unwrap_err());
        assert!(e.contains("`nonsense` is not `<endpoint>:<id>`"), "{e}");
        let e = describe_error(&m.config().unwrap_err());
        assert!(
            e.contains("option `port` is declared int in config.yaml"),
            "{e}"
        );
        let e = describe_error(&m.is_leader().unwrap_err());
        assert!(
            e.contains("is-leader answered something that is not the expected JSON"),
            "{e}"
        );
        assert!(matches!(
            m.relation_set(rel(1), LocalBag::Unit, vec![("a=b".into(), "v".into())]),
            Err(ModelError::InvalidArgument(_))
        ));
    }

    #[test]
    fn a_breaking_relation_is_hidden_from_relation_ids() {
        let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
        m.set_event_relation(&rel(1), "pg", true);
        assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(2)]);
        // The event's remote app needs no tool call.
        assert_eq!(m.relation_app(rel(1)).unwrap(), Some("pg".into()));
    }
}
