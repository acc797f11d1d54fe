//! The `model` WIT interface: the Juju model, answered by hook tools.
//!
//! One [`Model`] serves a whole event and is handed from handler to handler.
//! Reads are cached for the event (Juju caches them per hook context too), so
//! each tool runs at most once per question however many handlers ask.
//! Relation writes are buffered per handler: [`Model::commit_handler`] keeps
//! them when the handler returned, [`Model::abort_handler`] drops them when it
//! trapped, and [`Model::flush`] sends one `relation-set --file -` per databag
//! at the end of the event.
//!
//! The guest's calls (the [`Host`] impl) are bounded per event as well as per
//! call (DESIGN §7): hook-tool calls, log lines and bytes, pending relation
//! data. The host's own calls ([`Model::log`], [`Model::run`],
//! [`Model::flush`], [`Model::leader`]) are never counted nor refused: the
//! host must always be able to say why a hook failed.

pub mod ports;
pub mod secrets;
mod shapes;

use crate::bindings::RelationRef;
use crate::bindings::model::{
    CloudSpec, ConfigOption, ConfigValue, Databag, Goals, Host, JujuContext, LocalBag, LogLevel,
    ModelError, Network, OpenedPort, PortRange, SecretInfo, SecretOptions, SecretOwner, SecretRead,
    StorageInstance, ToolFailure,
};
use crate::charm_dir::{ConfigSchema, ConfigType};
use crate::hook_tools::{HookTools, ToolOutput};
use crate::text::{argv_text, juju_json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest value of one relation-set: the whole document travels on stdin,
/// but Juju (main) caps a settings collection at 16 MiB.
const MAX_RELATION_WRITE: usize = 16 << 20;
/// Relation data (keys and values) one event may leave pending, all bags
/// together: what one settings collection may hold, so no event can build
/// writes Juju refuses at commit (which fails the hook and every retry).
pub const MAX_RELATION_BYTES_PER_EVENT: usize = 16 << 20;
/// Juju passes a log message as one argv element: Linux caps those at 128 KiB.
const MAX_LOG_ARG: usize = 128 * 1024 - 1;
/// Log messages the guest may send per event: each is one `juju-log`
/// process, so a handler logging in a tight loop would otherwise hold the
/// hook for minutes. Past it, messages are dropped and counted.
pub const MAX_LOG_MESSAGES_PER_EVENT: usize = 500;
/// Log bytes the guest may send per event; past it, messages are dropped.
pub const MAX_LOG_BYTES_PER_EVENT: usize = 1 << 20;
/// Hook-tool calls the guest may cause per event (log lines included; reads
/// are cached, so in practice failures, writes and logs count). Past it, a
/// call fails with `tool-failed` naming the limit.
pub const MAX_GUEST_TOOL_CALLS_PER_EVENT: usize = 1000;
/// Longest application version: Juju shows 15 characters of it, and the
/// value travels as one argv element.
pub const MAX_APPLICATION_VERSION: usize = 256;

/// How long the host's own tool calls may take together after the handlers
/// (relation data, statuses, logs), and after each handler (its log lines):
/// Juju sets no timeout, and a hung tool would hold the machine-wide hook
/// lock. Generous, since a loaded machine runs the tools slowly.
pub const HOST_CALLS_TIMEOUT: Duration = Duration::from_secs(30);

/// Who this unit is, and the rest of what Juju's environment says of the
/// event, for the model calls that need no tool.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub unit: String,
    pub app: String,
    pub model: String,
    /// `None` where no Juju environment was read (the host's built-in
    /// actions' model): answered as all empty.
    pub juju: Option<JujuContext>,
}

/// Longest name (storage, binding, resource) a guest may pass to a tool:
/// far above any name metadata.yaml can declare, far below argv's limit.
pub const MAX_NAME: usize = 256;

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
    opened_ports: Option<Vec<OpenedPort>>,
    storage_ids: HashMap<Option<String>, Vec<String>>,
    storage: HashMap<String, StorageInstance>,
    networks: HashMap<(String, Option<u32>), Network>,
    goal_state: Option<Goals>,
    credential: Option<CloudSpec>,
    resources: HashMap<String, String>,
    secret_content: HashMap<SecretKey, Vec<(String, String)>>,
    secret_info: HashMap<SecretKey, SecretInfo>,
    secret_ids: Option<Vec<String>>,
}

/// A secret as a read names it: (id, label).
type SecretKey = (Option<String>, Option<String>);

/// Relation writes not yet sent: (relation, bag) → key → value ("" deletes).
type Pending = BTreeMap<(String, u32, bool), Bag>;

/// Bytes of keys and values in pending writes.
fn pending_bytes(pending: &Pending) -> usize {
    pending
        .values()
        .flat_map(|bag| bag.iter())
        .map(|(k, v)| k.len() + v.len())
        .sum()
}

/// Which per-event log bound made the host drop the guest's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LogLimit {
    Messages,
    Bytes,
    ToolCalls,
}

impl LogLimit {
    fn describe(self) -> String {
        match self {
            LogLimit::Messages => format!(
                "{MAX_LOG_MESSAGES_PER_EVENT} messages per event (MAX_LOG_MESSAGES_PER_EVENT)"
            ),
            LogLimit::Bytes => {
                format!("{MAX_LOG_BYTES_PER_EVENT} bytes per event (MAX_LOG_BYTES_PER_EVENT)")
            }
            LogLimit::ToolCalls => format!(
                "{MAX_GUEST_TOOL_CALLS_PER_EVENT} hook-tool calls per event (MAX_GUEST_TOOL_CALLS_PER_EVENT)"
            ),
        }
    }
}

/// What the guest has used of its per-event bounds.
#[derive(Debug, Default)]
struct Budget {
    tool_calls: usize,
    log_messages: usize,
    log_bytes: usize,
    /// The bound that first dropped a message: from then on every message
    /// is dropped, so the log shows a head without holes.
    dropped_by: Option<LogLimit>,
    dropped_messages: usize,
    dropped_bytes: usize,
}

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
    /// relation-departed: the relation and the unit leaving it, which is
    /// no longer among the relation's units (its data stays readable).
    departing: Option<(u32, String)>,
    /// The charm's relation endpoints (metadata.yaml); `None` until
    /// [`Model::set_endpoints`], when only the form of a name is checked.
    endpoints: Option<BTreeSet<String>>,
    /// metadata.yaml's `extra-bindings`; `None` until
    /// [`Model::set_extra_bindings`], when binding names (`network-get`,
    /// `--endpoints` of ports) are checked only for their form.
    extra_bindings: Option<BTreeSet<String>>,
    cache: Cache,
    committed: Pending,
    handler: Pending,
    /// Port requests kept from returned handlers, and the running handler's.
    committed_ports: Vec<ports::PortRequest>,
    handler_ports: Vec<ports::PortRequest>,
    /// Secret requests kept from returned handlers, and the running handler's.
    committed_secrets: Vec<secrets::SecretRequest>,
    handler_secrets: Vec<secrets::SecretRequest>,
    /// [`pending_bytes`] of `committed`, and what merging `handler` into it
    /// would change that by: kept as writes come, so a bound check costs
    /// only the call's keys.
    committed_bytes: usize,
    handler_delta: isize,
    budget: Budget,
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
            departing: None,
            endpoints: None,
            extra_bindings: None,
            cache: Cache::default(),
            committed: Pending::new(),
            handler: Pending::new(),
            committed_ports: Vec::new(),
            handler_ports: Vec::new(),
            committed_secrets: Vec::new(),
            handler_secrets: Vec::new(),
            committed_bytes: 0,
            handler_delta: 0,
            budget: Budget::default(),
        }
    }

    /// Tell the model the charm's relation endpoints, so that names a guest
    /// passes (`relation-ids`, relation references) are checked against them.
    pub fn set_endpoints(&mut self, endpoints: BTreeSet<String>) {
        self.endpoints = Some(endpoints);
    }

    /// Tell the model the charm's `extra-bindings`: with the endpoints, the
    /// bindings `network-get` and the ports' `--endpoints` may name.
    pub fn set_extra_bindings(&mut self, extra: BTreeSet<String>) {
        self.extra_bindings = Some(extra);
    }

    /// Check a binding a guest names (`what`: the call and its argument),
    /// once metadata.yaml's endpoints and extra bindings are both known:
    /// Juju answers a binding the charm does not declare only at the end
    /// (`no network config found`, a failed commit), far from the mistake.
    fn check_binding(&self, what: &str, binding: &str) -> Result<(), ModelError> {
        let (Some(endpoints), Some(extra)) = (&self.endpoints, &self.extra_bindings) else {
            return Ok(());
        };
        if endpoints.contains(binding) || extra.contains(binding) {
            return Ok(());
        }
        let names = |set: &BTreeSet<String>| {
            if set.is_empty() {
                "none".to_string()
            } else {
                set.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        Err(ModelError::InvalidArgument(format!(
            "{what}: `{}` is neither a relation endpoint nor an extra binding of this charm (metadata.yaml declares endpoints: {}; extra-bindings: {})",
            binding.escape_debug(),
            names(endpoints),
            names(extra)
        )))
    }

    /// Tool calls from now on must finish by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
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

    /// Tell the model which unit relation-departed is about: Juju no longer
    /// lists it among the relation's units, and neither does the model.
    pub fn set_departing_unit(&mut self, relation: &RelationRef, unit: &str) {
        self.departing = Some((relation.id, unit.to_string()));
    }

    /// Keep the relation writes of the handler that just returned.
    pub fn commit_handler(&mut self) {
        for (key, changes) in std::mem::take(&mut self.handler) {
            self.committed.entry(key).or_default().extend(changes);
        }
        self.committed_bytes = pending_bytes(&self.committed);
        self.handler_delta = 0;
        for request in std::mem::take(&mut self.handler_ports) {
            ports::push(&mut self.committed_ports, request);
        }
        self.committed_secrets
            .append(&mut std::mem::take(&mut self.handler_secrets));
    }

    /// Drop the relation writes of a handler that trapped.
    pub fn abort_handler(&mut self) {
        self.handler.clear();
        self.handler_delta = 0;
        self.handler_ports.clear();
        self.handler_secrets.clear();
    }

    /// Send the kept writes: one `relation-set` per databag, then each port
    /// request in the order the handlers made them. Juju applies them all
    /// when the hook exits 0, and none otherwise.
    pub fn flush(&mut self) -> Result<(), ModelError> {
        self.committed_bytes = 0;
        for ((endpoint, id, app), changes) in std::mem::take(&mut self.committed) {
            let doc = juju_json(&changes);
            let rel = format!("{endpoint}:{id}");
            let mut args = vec!["-r", rel.as_str()];
            if app {
                args.push("--app");
            }
            args.extend(["--file", "-"]);
            self.run("relation-set", &args, Some(&doc))?;
        }
        for request in std::mem::take(&mut self.committed_ports) {
            let (tool, args) = request.tool_and_args();
            self.run(tool, &args, None)?;
        }
        for request in std::mem::take(&mut self.committed_secrets) {
            self.run_secret(Caller::Host, &request)?;
        }
        Ok(())
    }

    /// Run a secret tool: its flags and `-- <id>`, then its content as
    /// `key#file=` arguments naming private files removed after the call.
    fn run_secret(
        &mut self,
        caller: Caller,
        request: &secrets::SecretRequest,
    ) -> Result<Vec<u8>, ModelError> {
        let tool = request.tool;
        let mut args: Vec<String> = request.args.clone();
        let _files = match &request.content {
            Some(content) => {
                let (dir, files) = secrets::content_files(content).map_err(|e| {
                    failure(
                        tool,
                        -1,
                        format!("cannot write the secret's content for {tool}: {e}"),
                    )
                })?;
                args.extend(files);
                Some(dir)
            }
            None => None,
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run_as(caller, tool, &args, None)
    }

    /// Buffer a secret request of the running handler, within the event's
    /// bounds on pending requests and content.
    fn secret_request(&mut self, request: secrets::SecretRequest) -> Result<(), ModelError> {
        let pending = self.committed_secrets.len() + self.handler_secrets.len();
        if pending >= secrets::MAX_SECRET_REQUESTS_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{} refused: this event already holds {pending} secret requests, the limit (MAX_SECRET_REQUESTS_PER_EVENT)",
                request.tool
            )));
        }
        let bytes: usize = self
            .committed_secrets
            .iter()
            .chain(&self.handler_secrets)
            .map(secrets::SecretRequest::content_bytes)
            .sum::<usize>()
            + request.content_bytes();
        if bytes > secrets::MAX_SECRET_BYTES_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{} refused: this event's pending secret content would be {bytes} bytes, over the limit of {} (MAX_SECRET_BYTES_PER_EVENT)",
                request.tool,
                secrets::MAX_SECRET_BYTES_PER_EVENT
            )));
        }
        self.handler_secrets.push(request);
        Ok(())
    }

    /// The `--label <label>` and `-- <id>` that name a secret for a read.
    fn secret_lookup(
        id: &Option<String>,
        label: &Option<String>,
    ) -> Result<Vec<String>, ModelError> {
        let mut args = Vec::new();
        if let Some(l) = label {
            secrets::check_arg("label", l)?;
            args.extend(["--label".to_string(), l.clone()]);
        }
        match id {
            Some(id) => {
                secrets::check_arg("id", id)?;
                args.extend(["--".to_string(), id.clone()]);
            }
            None if label.is_none() => {
                return Err(ModelError::InvalidArgument(
                    "a secret is named by its id, its label, or both; neither was given".into(),
                ));
            }
            None => {}
        }
        Ok(args)
    }

    /// `--relation <endpoint:id> [--unit <unit>] -- <id>` of grant and
    /// revoke, checked: a relation of the charm's endpoints, a unit name.
    fn secret_access_args(
        &self,
        id: &str,
        relation: &RelationRef,
        unit: Option<String>,
    ) -> Result<Vec<String>, ModelError> {
        secrets::check_arg("id", id)?;
        self.check_endpoint(&relation.endpoint)?;
        let mut args = vec!["--relation".to_string(), rel_arg(relation)];
        if let Some(u) = unit {
            if !is_unit_name(&u) {
                return Err(ModelError::InvalidArgument(format!(
                    "`{}` is not a unit name (`<app>/<n>`)",
                    u.escape_debug()
                )));
            }
            args.extend(["--unit".to_string(), u]);
        }
        args.extend(["--".to_string(), id.to_string()]);
        Ok(args)
    }

    /// The host's own log: through `juju-log`, never counted nor dropped. A
    /// failure to log is reported on stderr, which Juju also sends to the
    /// unit log, and never fails the event. The message may quote guest text
    /// (a handler's error): NUL is replaced, as argv cannot carry it.
    pub fn log(&mut self, level: LogLevel, message: &str) {
        let level = match level {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warning => "WARNING",
            LogLevel::Error => "ERROR",
        };
        let message = argv_text(message);
        let message = &message[..message.floor_char_boundary(MAX_LOG_ARG)];
        if let Err(e) = self.run("juju-log", &["--log-level", level, "--", message], None) {
            eprintln!(
                "wasm-charm: juju-log failed ({}); the message was: {message}",
                describe_error(&e)
            );
        }
    }

    /// The guest's log: as [`Model::log`], within the per-event bounds on
    /// messages, bytes and tool calls; past them, dropped and counted for
    /// [`Model::report_dropped_logs`].
    fn guest_log(&mut self, level: LogLevel, message: &str) {
        let message = &message[..message.floor_char_boundary(MAX_LOG_ARG)];
        let b = &mut self.budget;
        if b.dropped_by.is_none() {
            b.dropped_by = if b.log_messages >= MAX_LOG_MESSAGES_PER_EVENT {
                Some(LogLimit::Messages)
            } else if b.log_bytes + message.len() > MAX_LOG_BYTES_PER_EVENT {
                Some(LogLimit::Bytes)
            } else if b.tool_calls >= MAX_GUEST_TOOL_CALLS_PER_EVENT {
                Some(LogLimit::ToolCalls)
            } else {
                None
            };
        }
        if b.dropped_by.is_some() {
            b.dropped_messages += 1;
            b.dropped_bytes += message.len();
            return;
        }
        b.log_messages += 1;
        b.log_bytes += message.len();
        b.tool_calls += 1;
        Model::log(self, level, message);
    }

    /// Say, with one WARNING, how many of the guest's log messages this
    /// event dropped and at which bound; nothing when none were. Called at
    /// the end of the event (and safe to call again: the count restarts).
    pub fn report_dropped_logs(&mut self) {
        let b = &mut self.budget;
        let Some(limit) = b.dropped_by.filter(|_| b.dropped_messages > 0) else {
            return;
        };
        let (messages, bytes) = (b.dropped_messages, b.dropped_bytes);
        b.dropped_messages = 0;
        b.dropped_bytes = 0;
        let message = format!(
            "the charm logged more than the unit log takes from one event: {messages} messages ({bytes} bytes) dropped past the limit of {}; log less, or less often",
            limit.describe()
        );
        Model::log(self, LogLevel::Warning, &message);
    }

    /// Whether this unit leads, for the host: as the guest's `is-leader`
    /// (cached for the event) but never counted against the guest's bound.
    pub fn leader(&mut self) -> Result<bool, ModelError> {
        self.is_leader_as(Caller::Host)
    }

    fn is_leader_as(&mut self, caller: Caller) -> Result<bool, ModelError> {
        if let Some(l) = self.cache.leader {
            return Ok(l);
        }
        let leader: bool = self.json(caller, "is-leader", &["--format=json"])?;
        self.cache.leader = Some(leader);
        Ok(leader)
    }

    /// Buffer a port request of the running handler, within the event's
    /// bound on pending requests.
    fn port_request(
        &mut self,
        open: bool,
        port: PortRange,
        endpoints: Option<Vec<String>>,
    ) -> Result<(), ModelError> {
        let request = ports::PortRequest {
            open,
            spec: ports::port_spec(&port)?,
            endpoints: ports::endpoints_arg(endpoints.as_deref())?,
        };
        let tool = if open { "open-port" } else { "close-port" };
        for e in endpoints.iter().flatten() {
            self.check_binding(&format!("{tool} --endpoints"), e)?;
        }
        let same =
            |r: &ports::PortRequest| r.spec == request.spec && r.endpoints == request.endpoints;
        let replaces = self.committed_ports.iter().any(same) || self.handler_ports.iter().any(same);
        let pending = self.committed_ports.len() + self.handler_ports.len();
        if !replaces && pending >= ports::MAX_PORT_REQUESTS_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{tool} {} refused: this event already holds {pending} port requests, the limit (MAX_PORT_REQUESTS_PER_EVENT); open a range instead of its ports one by one",
                request.spec
            )));
        }
        ports::push(&mut self.handler_ports, request);
        Ok(())
    }

    /// Run a tool for the guest: counted, and refused past
    /// [`MAX_GUEST_TOOL_CALLS_PER_EVENT`].
    fn run_as(
        &mut self,
        caller: Caller,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, ModelError> {
        if caller == Caller::Guest {
            if self.budget.tool_calls >= MAX_GUEST_TOOL_CALLS_PER_EVENT {
                return Err(failure(
                    tool,
                    -1,
                    format!(
                        "{tool} not run: the charm made {MAX_GUEST_TOOL_CALLS_PER_EVENT} hook-tool calls in this event, the limit (MAX_GUEST_TOOL_CALLS_PER_EVENT); stop retrying failed calls in a loop"
                    ),
                ));
            }
            self.budget.tool_calls += 1;
        }
        self.run(tool, args, stdin)
    }

    /// Check a relation endpoint name a guest passed: one of the charm's
    /// when they are known, and always a name argv can carry.
    fn check_endpoint(&self, endpoint: &str) -> Result<(), ModelError> {
        let known = match &self.endpoints {
            Some(endpoints) => endpoints.contains(endpoint),
            None => !endpoint.is_empty() && !endpoint.contains(['\0', ':']),
        };
        if known {
            return Ok(());
        }
        let endpoint = endpoint.escape_debug();
        let Some(endpoints) = &self.endpoints else {
            return Err(ModelError::InvalidArgument(format!(
                "relation endpoint `{endpoint}` is not an endpoint name"
            )));
        };
        let declared: Vec<String> = endpoints.iter().map(|e| format!("`{e}`")).collect();
        let declared = if declared.is_empty() {
            "none".to_string()
        } else {
            declared.join(", ")
        };
        Err(ModelError::InvalidArgument(format!(
            "relation endpoint `{endpoint}` is not one of this charm's (metadata.yaml declares: {declared})"
        )))
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

    /// A tool's `--format=json` answer read once per event: the cached value
    /// `slot` picks, else the tool's (`null` read as the shape's default).
    fn cached_json<J, T>(
        &mut self,
        tool: &str,
        slot: fn(&mut Cache) -> &mut Option<T>,
    ) -> Result<T, ModelError>
    where
        J: serde::de::DeserializeOwned + Default,
        T: From<J> + Clone,
    {
        if let Some(v) = slot(&mut self.cache) {
            return Ok(v.clone());
        }
        let raw: Option<J> = self.json(Caller::Guest, tool, &["--format=json"])?;
        let value = T::from(raw.unwrap_or_default());
        *slot(&mut self.cache) = Some(value.clone());
        Ok(value)
    }

    fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        caller: Caller,
        tool: &str,
        args: &[&str],
    ) -> Result<T, ModelError> {
        let out = self.run_as(caller, tool, args, None)?;
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
                if !is_unit_name(u) {
                    return Err(ModelError::InvalidArgument(format!(
                        "relation-get: `{}` is not a unit name (`<app>/<number>`, the app as Juju names applications)",
                        u.escape_debug()
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
        // `--`: the key and the owner are positional, whatever they hold.
        args.extend(["--", "-", owner.as_str()]);
        let data: Option<Bag> = self.json(Caller::Guest, "relation-get", &args)?;
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
        let app: Option<String> = self.json(
            Caller::Guest,
            "relation-list",
            &["--format=json", "-r", &rel, "--app"],
        )?;
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

/// Check a name a guest passes to a tool (`what`: storage name, binding,
/// resource): non-empty, at most [`MAX_NAME`] bytes, no NUL, not starting
/// with `-`. It is passed after `--` all the same.
fn check_name(what: &str, name: &str) -> Result<(), ModelError> {
    if name.is_empty() || name.len() > MAX_NAME || name.starts_with('-') || name.contains('\0') {
        return Err(ModelError::InvalidArgument(format!(
            "`{}` is not a {what} name (1 to {MAX_NAME} bytes, no NUL, not starting with `-`)",
            name.escape_debug()
        )));
    }
    Ok(())
}

/// A storage instance id: `<name>/<number>`.
fn check_storage_id(id: &str) -> Result<(), ModelError> {
    let ok = id.rsplit_once('/').is_some_and(|(name, n)| {
        check_name("storage", name).is_ok()
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
    });
    if !ok {
        return Err(ModelError::InvalidArgument(format!(
            "`{}` is not a storage instance id (`<storage-name>/<number>`, as `data/0`)",
            id.escape_debug()
        )));
    }
    Ok(())
}

fn rel_arg(relation: &RelationRef) -> String {
    format!("{}:{}", relation.endpoint, relation.id)
}

/// Who makes a tool call: only the guest's are counted and bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Host,
    Guest,
}

/// Juju's application name grammar (juju/names): lowercase letters and
/// digits in dash-separated words, starting with a letter, every word after
/// the first holding a letter.
pub fn is_app_name(name: &str) -> bool {
    let mut words = name.split('-');
    let first_ok = words.next().is_some_and(|w| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_ok
        && words.all(|w| {
            w.chars().any(|c| c.is_ascii_lowercase())
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Juju's unit name grammar: `<app>/<n>`, `n` a decimal without leading zeros.
pub fn is_unit_name(name: &str) -> bool {
    name.rsplit_once('/').is_some_and(|(app, n)| {
        is_app_name(app)
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
            && (n == "0" || !n.starts_with('0'))
    })
}

/// A model error as the operator should read it, in one line: the
/// generated `Display` of WIT types is their `Debug`.
pub fn describe_error(e: &ModelError) -> String {
    match e {
        ModelError::RelationNotFound(m)
        | ModelError::NotLeader(m)
        | ModelError::InvalidArgument(m)
        | ModelError::NotFound(m)
        | ModelError::PermissionDenied(m)
        | ModelError::TooManyRelations(m) => m.clone(),
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
/// (reference §2.0, ops' `_wrap_hookcmd`): stderr names relations not
/// found, missing leadership, refused access, and other things not found.
/// Each kind keeps the tool's words; exit 1 and exit 2 map alike, since ops
/// reads only the words (a bad `-r` exits 2, an unknown storage id too).
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
    } else if message.contains("permission denied") || message.contains("access denied") {
        Err(ModelError::PermissionDenied(message))
    } else if message.contains("not found") || message.contains("no network config found") {
        Err(ModelError::NotFound(message))
    } else {
        Err(failure(tool, out.code, message))
    }
}

/// Keys Juju accepts are accepted: the data travels as a YAML map on stdin
/// (`relation-set --file -`), where any non-empty string is a key, `=` and
/// spaces included.
fn validate_changes(changes: &[(String, String)]) -> Result<(), ModelError> {
    let mut size: usize = 0;
    for (k, v) in changes {
        if k.is_empty() {
            return Err(ModelError::InvalidArgument(
                "relation data keys must be non-empty".to_string(),
            ));
        }
        size = size.saturating_add(k.len() + v.len());
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
            self.json(Caller::Guest, "config-get", &["--format=json"])?;
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
        self.is_leader_as(Caller::Guest)
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
        self.check_endpoint(&endpoint)?;
        if let Some(ids) = self.cache.ids.get(&endpoint) {
            return Ok(ids.clone());
        }
        let raw: Option<Vec<String>> = self.json(
            Caller::Guest,
            "relation-ids",
            &["--format=json", "--", &endpoint],
        )?;
        let mut ids = Vec::new();
        for r in raw.unwrap_or_default() {
            let parsed = crate::bindings::parse_relation_id(&r).ok_or_else(|| {
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
        self.check_endpoint(&relation.endpoint)?;
        if let Some(u) = self.cache.units.get(&relation.id) {
            return Ok(u.clone());
        }
        let rel = format!("{}:{}", relation.endpoint, relation.id);
        let units: Option<Vec<String>> = self.json(
            Caller::Guest,
            "relation-list",
            &["--format=json", "-r", &rel],
        )?;
        let mut units = units.unwrap_or_default();
        if let Some((id, leaving)) = &self.departing
            && *id == relation.id
        {
            units.retain(|u| u != leaving);
        }
        units.sort();
        self.cache.units.insert(relation.id, units.clone());
        Ok(units)
    }

    fn relation_app(&mut self, relation: RelationRef) -> Result<Option<String>, ModelError> {
        self.check_endpoint(&relation.endpoint)?;
        self.remote_app(&relation)
    }

    fn relation_get(
        &mut self,
        relation: RelationRef,
        bag: Databag,
    ) -> Result<Vec<(String, String)>, ModelError> {
        self.check_endpoint(&relation.endpoint)?;
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
        self.check_endpoint(&relation.endpoint)?;
        validate_changes(&changes)?;
        // A write that cannot succeed is an error now, as in ops (which
        // calls relation-set at once), not a failed hook at the end.
        if !self
            .relation_ids(relation.endpoint.clone())?
            .contains(&relation)
        {
            let why = if self.broken.as_ref() == Some(&relation) {
                "it is being broken (relation-broken)"
            } else {
                "Juju does not list it"
            };
            return Err(ModelError::RelationNotFound(format!(
                "cannot write relation data to {}: {why}",
                rel_arg(&relation)
            )));
        }
        let app = bag == LocalBag::App;
        if app && !self.is_leader()? {
            return Err(ModelError::NotLeader(format!(
                "only the leader may write the application data of {}:{}",
                relation.endpoint, relation.id
            )));
        }
        // What the pending writes grow by once merged: a key written before
        // in this event (by this handler or an earlier one) is replaced.
        let bag_key = (relation.endpoint.clone(), relation.id, app);
        let (handler, committed) = (self.handler.get(&bag_key), self.committed.get(&bag_key));
        let mut grown = 0isize;
        let mut seen = BTreeMap::new();
        for (k, v) in &changes {
            let before = seen
                .get(k)
                .copied()
                .or_else(|| {
                    handler
                        .and_then(|p| p.get(k))
                        .map(|old| k.len() + old.len())
                })
                .or_else(|| {
                    committed
                        .and_then(|p| p.get(k))
                        .map(|old| k.len() + old.len())
                })
                .unwrap_or(0);
            let after = k.len() + v.len();
            grown += after as isize - before as isize;
            seen.insert(k.clone(), after);
        }
        let total = self
            .committed_bytes
            .saturating_add_signed(self.handler_delta + grown);
        if total > MAX_RELATION_BYTES_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "relation data write to {}:{} refused: this event's pending relation data would be {total} bytes, over the limit of {MAX_RELATION_BYTES_PER_EVENT} (MAX_RELATION_BYTES_PER_EVENT, Juju's cap on one settings collection); write less per event",
                relation.endpoint, relation.id
            )));
        }
        self.handler_delta += grown;
        let entry = self
            .handler
            .entry((relation.endpoint, relation.id, app))
            .or_default();
        entry.extend(changes);
        Ok(())
    }

    fn log(&mut self, level: LogLevel, message: String) {
        self.guest_log(level, &message);
    }

    fn application_version_set(&mut self, version: String) -> Result<(), ModelError> {
        if version.contains('\0') {
            return Err(ModelError::InvalidArgument(
                "application-version-set: the version contains a NUL character, which Juju cannot carry; remove it".into(),
            ));
        }
        if version.len() > MAX_APPLICATION_VERSION {
            return Err(ModelError::InvalidArgument(format!(
                "application-version-set: the version is {} bytes, over the limit of {MAX_APPLICATION_VERSION} (MAX_APPLICATION_VERSION; juju status shows 15 characters)",
                version.len()
            )));
        }
        self.run_as(
            Caller::Guest,
            "application-version-set",
            &["--", &version],
            None,
        )
        .map(drop)
    }

    fn context(&mut self) -> JujuContext {
        self.identity
            .juju
            .clone()
            .unwrap_or_else(crate::juju_env::empty_context)
    }

    fn open_port(
        &mut self,
        port: PortRange,
        endpoints: Option<Vec<String>>,
    ) -> Result<(), ModelError> {
        self.port_request(true, port, endpoints)
    }

    fn close_port(
        &mut self,
        port: PortRange,
        endpoints: Option<Vec<String>>,
    ) -> Result<(), ModelError> {
        self.port_request(false, port, endpoints)
    }

    fn opened_ports(&mut self) -> Result<Vec<OpenedPort>, ModelError> {
        if let Some(p) = &self.cache.opened_ports {
            return Ok(p.clone());
        }
        let lines: Option<Vec<String>> = self.json(
            Caller::Guest,
            "opened-ports",
            &["--format=json", "--endpoints"],
        )?;
        let mut opened = Vec::new();
        for line in lines.unwrap_or_default() {
            opened.push(ports::parse_opened(&line).ok_or_else(|| {
                failure(
                    "opened-ports",
                    0,
                    format!("`{line}` is not `<port>[/<proto>]`, `<from>-<to>[/<proto>]` or `icmp` with its endpoints"),
                )
            })?);
        }
        self.cache.opened_ports = Some(opened.clone());
        Ok(opened)
    }

    fn storage_list(&mut self, name: Option<String>) -> Result<Vec<String>, ModelError> {
        if let Some(n) = &name {
            check_name("storage", n)?;
        }
        if let Some(ids) = self.cache.storage_ids.get(&name) {
            return Ok(ids.clone());
        }
        let mut args = vec!["--format=json"];
        if let Some(n) = &name {
            args.extend(["--", n.as_str()]);
        }
        let ids: Option<Vec<String>> = self.json(Caller::Guest, "storage-list", &args)?;
        let mut ids = ids.unwrap_or_default();
        ids.sort();
        self.cache.storage_ids.insert(name, ids.clone());
        Ok(ids)
    }

    fn storage_get(&mut self, id: String) -> Result<StorageInstance, ModelError> {
        check_storage_id(&id)?;
        if let Some(s) = self.cache.storage.get(&id) {
            return Ok(s.clone());
        }
        let raw: shapes::StorageJson =
            self.json(Caller::Guest, "storage-get", &["--format=json", "-s", &id])?;
        let instance = raw.into_instance(id.clone());
        self.cache.storage.insert(id, instance.clone());
        Ok(instance)
    }

    fn network_get(
        &mut self,
        binding: String,
        relation: Option<RelationRef>,
    ) -> Result<Network, ModelError> {
        check_name("binding", &binding)?;
        self.check_binding("network-get", &binding)?;
        if let Some(r) = &relation {
            self.check_endpoint(&r.endpoint)?;
        }
        let key = (binding.clone(), relation.as_ref().map(|r| r.id));
        if let Some(n) = self.cache.networks.get(&key) {
            return Ok(n.clone());
        }
        let rel = relation.as_ref().map(rel_arg);
        let mut args = vec!["--format=json"];
        if let Some(r) = &rel {
            args.extend(["-r", r.as_str()]);
        }
        args.extend(["--", binding.as_str()]);
        let raw: Option<shapes::NetworkJson> = self.json(Caller::Guest, "network-get", &args)?;
        let network = Network::from(raw.unwrap_or_default());
        self.cache.networks.insert(key, network.clone());
        Ok(network)
    }

    fn goal_state(&mut self) -> Result<Goals, ModelError> {
        self.cached_json::<shapes::GoalJson, _>("goal-state", |c| &mut c.goal_state)
    }

    fn credential_get(&mut self) -> Result<CloudSpec, ModelError> {
        self.cached_json::<shapes::CloudSpecJson, _>("credential-get", |c| &mut c.credential)
    }

    fn resource_get(&mut self, name: String) -> Result<String, ModelError> {
        check_name("resource", &name)?;
        if let Some(path) = self.cache.resources.get(&name) {
            return Ok(path.clone());
        }
        let out = self.run_as(Caller::Guest, "resource-get", &["--", &name], None)?;
        let path = String::from_utf8_lossy(&out).trim_end().to_string();
        if path.is_empty() {
            return Err(failure(
                "resource-get",
                0,
                format!("resource-get answered no path for resource `{name}`"),
            ));
        }
        self.cache.resources.insert(name, path.clone());
        Ok(path)
    }

    fn secret_get(
        &mut self,
        id: Option<String>,
        label: Option<String>,
        read: SecretRead,
    ) -> Result<Vec<(String, String)>, ModelError> {
        let lookup = Model::secret_lookup(&id, &label)?;
        let key = (id, label);
        if read == SecretRead::Current
            && let Some(c) = self.cache.secret_content.get(&key)
        {
            return Ok(c.clone());
        }
        let mut args = vec!["--format=json"];
        match read {
            SecretRead::Current => {}
            SecretRead::Peek => args.push("--peek"),
            SecretRead::Refresh => args.push("--refresh"),
        }
        args.extend(lookup.iter().map(String::as_str));
        let raw: Option<BTreeMap<String, String>> =
            self.json(Caller::Guest, "secret-get", &args)?;
        let content = secrets::parse_content(raw);
        if read == SecretRead::Current {
            self.cache.secret_content.insert(key, content.clone());
        }
        Ok(content)
    }

    fn secret_info_get(
        &mut self,
        id: Option<String>,
        label: Option<String>,
    ) -> Result<SecretInfo, ModelError> {
        // Unlike secret-get, secret-info-get refuses an id and a label
        // together (exit 2): the id names the secret alone.
        let by = if id.is_some() { None } else { label.clone() };
        let lookup = Model::secret_lookup(&id, &by)?;
        let key = (id, label);
        if let Some(i) = self.cache.secret_info.get(&key) {
            return Ok(i.clone());
        }
        let mut args = vec!["--format=json"];
        args.extend(lookup.iter().map(String::as_str));
        let raw: BTreeMap<String, secrets::InfoJson> =
            self.json(Caller::Guest, "secret-info-get", &args)?;
        let info = secrets::parse_info(raw).ok_or_else(|| {
            ModelError::NotFound(format!(
                "secret-info-get answered no secret for {}",
                key.0.as_deref().or(key.1.as_deref()).unwrap_or_default()
            ))
        })?;
        self.cache.secret_info.insert(key, info.clone());
        Ok(info)
    }

    fn secret_add(
        &mut self,
        content: Vec<(String, String)>,
        options: SecretOptions,
        owner: SecretOwner,
    ) -> Result<String, ModelError> {
        secrets::check_content(&content)?;
        let mut args = secrets::option_args(&options)?;
        if owner == SecretOwner::Unit {
            args.extend(["--owner".to_string(), "unit".to_string()]);
        }
        let request = secrets::SecretRequest {
            tool: "secret-add",
            args,
            content: Some(content),
        };
        let out = self.run_secret(Caller::Guest, &request)?;
        let uri = String::from_utf8_lossy(&out).trim().to_string();
        if uri.is_empty() {
            return Err(failure(
                "secret-add",
                0,
                "secret-add answered no secret id".into(),
            ));
        }
        self.cache.secret_ids = None;
        Ok(uri)
    }

    fn secret_set(
        &mut self,
        id: String,
        content: Option<Vec<(String, String)>>,
        options: SecretOptions,
    ) -> Result<(), ModelError> {
        secrets::check_arg("id", &id)?;
        if let Some(c) = &content {
            secrets::check_content(c)?;
        }
        let mut args = secrets::option_args(&options)?;
        if content.is_none() && args.is_empty() {
            return Err(ModelError::InvalidArgument(
                "secret-set needs new content or new metadata; neither was given".into(),
            ));
        }
        args.extend(["--".to_string(), id]);
        self.secret_request(secrets::SecretRequest {
            tool: "secret-set",
            args,
            content,
        })
    }

    fn secret_grant(
        &mut self,
        id: String,
        relation: RelationRef,
        unit: Option<String>,
    ) -> Result<(), ModelError> {
        let args = self.secret_access_args(&id, &relation, unit)?;
        self.secret_request(secrets::SecretRequest {
            tool: "secret-grant",
            args,
            content: None,
        })
    }

    fn secret_revoke(
        &mut self,
        id: String,
        relation: RelationRef,
        unit: Option<String>,
    ) -> Result<(), ModelError> {
        let args = self.secret_access_args(&id, &relation, unit)?;
        self.secret_request(secrets::SecretRequest {
            tool: "secret-revoke",
            args,
            content: None,
        })
    }

    fn secret_remove(&mut self, id: String, revision: Option<u32>) -> Result<(), ModelError> {
        secrets::check_arg("id", &id)?;
        let mut args = Vec::new();
        if let Some(r) = revision {
            if r == 0 {
                return Err(ModelError::InvalidArgument(
                    "secret revisions start at 1".into(),
                ));
            }
            args.extend(["--revision".to_string(), r.to_string()]);
        }
        args.extend(["--".to_string(), id]);
        self.secret_request(secrets::SecretRequest {
            tool: "secret-remove",
            args,
            content: None,
        })
    }

    fn secret_ids(&mut self) -> Result<Vec<String>, ModelError> {
        if let Some(ids) = &self.cache.secret_ids {
            return Ok(ids.clone());
        }
        let ids: Option<Vec<String>> =
            self.json(Caller::Guest, "secret-ids", &["--format=json"])?;
        // Juju 3 prints bare ids (`cq3…`); the guest gets the `secret:` URIs
        // every other secret call and event carries.
        let mut ids: Vec<String> = ids
            .unwrap_or_default()
            .into_iter()
            .map(|id| {
                if id.starts_with("secret:") {
                    id
                } else {
                    format!("secret:{id}")
                }
            })
            .collect();
        ids.sort();
        self.cache.secret_ids = Some(ids.clone());
        Ok(ids)
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
mod calls_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook_tools::table::{Calls, ToolTable};

    fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
        let (tools, calls) = ToolTable::new(answers);
        let mut schema = ConfigSchema::default();
        schema.options.insert("port".into(), ConfigType::Int);
        schema.options.insert("ratio".into(), ConfigType::Float);
        let identity = Identity {
            unit: "gw/0".into(),
            app: "gw".into(),
            model: "m".into(),
            juju: None,
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
            ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
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
            m.relation_set(rel(1), LocalBag::Unit, vec![("".into(), "v".into())]),
            Err(ModelError::InvalidArgument(_))
        ));
    }

    fn tool_calls(calls: &Calls, tool: &str) -> Vec<Vec<String>> {
        let calls = calls.lock().unwrap();
        calls
            .iter()
            .filter(|c| c.0 == tool)
            .map(|c| c.1.clone())
            .collect()
    }

    #[test]
    fn log_of_nul_is_carried_by_argv() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Host::log(&mut m, LogLevel::Info, "guest \0 text".into());
        Model::log(&mut m, LogLevel::Error, "host quoting \0 guest");
        assert_eq!(
            tool_calls(&calls, "juju-log"),
            [
                ["--log-level", "INFO", "--", "guest \u{FFFD} text"],
                ["--log-level", "ERROR", "--", "host quoting \u{FFFD} guest"],
            ]
        );
    }

    #[test]
    fn a_log_message_is_cut_to_one_argv_element() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Model::log(&mut m, LogLevel::Info, &"é".repeat(MAX_LOG_ARG));
        let logs = tool_calls(&calls, "juju-log");
        assert!(logs[0][3].len() <= MAX_LOG_ARG && logs[0][3].len() > MAX_LOG_ARG - 2);
    }

    #[test]
    fn guest_logs_are_bounded_per_event_and_the_drop_reported_once() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        for i in 0..MAX_LOG_MESSAGES_PER_EVENT + 7 {
            Host::log(&mut m, LogLevel::Debug, format!("line {i}"));
        }
        // The host's own messages are never dropped.
        Model::log(&mut m, LogLevel::Error, "host error");
        m.report_dropped_logs();
        m.report_dropped_logs();
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), MAX_LOG_MESSAGES_PER_EVENT + 2);
        assert_eq!(logs[MAX_LOG_MESSAGES_PER_EVENT - 1][3], "line 499");
        assert_eq!(logs[MAX_LOG_MESSAGES_PER_EVENT][3], "host error");
        let report = &logs[MAX_LOG_MESSAGES_PER_EVENT + 1];
        assert_eq!(report[1], "WARNING");
        assert!(
            report[3].contains("7 messages (")
                && report[3].contains("500 messages per event (MAX_LOG_MESSAGES_PER_EVENT)"),
            "{}",
            report[3]
        );
    }

    #[test]
    fn guest_log_bytes_are_bounded_per_event() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        let big = "x".repeat(100 << 10);
        for _ in 0..12 {
            Host::log(&mut m, LogLevel::Info, big.clone());
        }
        // Once dropping, a small message is dropped too: no holes.
        Host::log(&mut m, LogLevel::Info, "small".into());
        m.report_dropped_logs();
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), 10 + 1);
        let report = &logs[10][3];
        assert!(
            report.contains(&format!("3 messages ({} bytes)", 2 * big.len() + 5))
                && report.contains("MAX_LOG_BYTES_PER_EVENT"),
            "{report}"
        );
        // Nothing dropped: nothing reported.
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Host::log(&mut m, LogLevel::Info, "one".into());
        m.report_dropped_logs();
        assert_eq!(tool_calls(&calls, "juju-log").len(), 1);
    }

    #[test]
    fn guest_tool_calls_are_bounded_per_event_but_not_the_hosts() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        // Failed reads are not cached: each runs the tool.
        for _ in 0..MAX_GUEST_TOOL_CALLS_PER_EVENT {
            assert!(matches!(m.config(), Err(ModelError::ToolFailed(_))));
        }
        let e = describe_error(&m.config().unwrap_err());
        assert!(
            e.contains("config-get not run")
                && e.contains("1000 hook-tool calls")
                && e.contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
            "{e}"
        );
        Host::log(&mut m, LogLevel::Info, "dropped".into());
        assert_eq!(
            tool_calls(&calls, "config-get").len(),
            MAX_GUEST_TOOL_CALLS_PER_EVENT
        );
        // The host still runs its tools, and says what was dropped.
        assert!(matches!(m.leader(), Err(ModelError::ToolFailed(_))));
        Model::log(&mut m, LogLevel::Error, "host");
        m.report_dropped_logs();
        assert_eq!(tool_calls(&calls, "is-leader").len(), 1);
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), 2, "{logs:?}");
        assert!(
            logs[1][3].contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
            "{}",
            logs[1][3]
        );
    }

    #[test]
    fn pending_relation_data_is_bounded_per_event() {
        let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
        // Each write of `half` under a one-byte key: 3 bytes short of half.
        let half = "v".repeat(MAX_RELATION_BYTES_PER_EVENT / 2 - 4);
        m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
            .unwrap();
        m.commit_handler();
        // Another handler, another relation: the event's total counts.
        m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), half.clone())])
            .unwrap();
        let e = m
            .relation_set(
                rel(2),
                LocalBag::Unit,
                vec![("c".into(), "too much".into())],
            )
            .unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(m) if m.contains("MAX_RELATION_BYTES_PER_EVENT") && m.contains("db:2")),
            "{e:?}"
        );
        // Replacing a key already pending (this handler's or a kept one) is
        // not growth.
        m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), "small".into())])
            .unwrap();
        m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
            .unwrap();
        m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half.clone())])
            .unwrap();
        assert!(
            m.relation_set(rel(2), LocalBag::Unit, vec![("d".into(), "xx".into())])
                .is_err()
        );
        // A trapped handler's writes free their room.
        m.abort_handler();
        m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half)])
            .unwrap();
    }

    #[test]
    fn remote_unit_names_follow_jujus_grammar() {
        for ok in ["pg/0", "pg/12", "my-app2/3", "a1-b2c/10", "x-1y/0"] {
            assert!(is_unit_name(ok), "{ok}");
        }
        for bad in [
            "", "pg", "pg/", "pg/01", "pg/-1", "/0", "Pg/0", "pg-/0", "pg--x/0", "pg-1/0", "1pg/0",
            "pg/0/1", "pg/0\0", "pg/ 0", "-pg/0", "pg_x/0",
        ] {
            assert!(!is_unit_name(bad), "{bad}");
        }
        let (mut m, calls) = model(&[("relation-get", ToolOutput::ok(r#"{"k":"v"}"#))]);
        for bad in ["pg/01", "pg/0\0x", "-r", "pg"] {
            let e = m
                .relation_get(rel(1), Databag::RemoteUnit(bad.into()))
                .unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidArgument(msg) if msg.contains(&format!("`{}`", bad.escape_debug()))),
                "{e:?}"
            );
        }
        assert!(tool_calls(&calls, "relation-get").is_empty());
        m.relation_get(rel(1), Databag::RemoteUnit("pg/0".into()))
            .unwrap();
        m.relation_get(rel(1), Databag::LocalApp).unwrap();
        assert_eq!(
            tool_calls(&calls, "relation-get"),
            [
                vec!["--format=json", "-r", "db:1", "--", "-", "pg/0"],
                vec!["--format=json", "-r", "db:1", "--app", "--", "-", "gw"],
            ]
        );
    }

    #[test]
    fn endpoints_are_checked_against_the_charms() {
        let (mut m, calls) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1"]"#))]);
        // Before the endpoints are known: only what argv cannot carry.
        let e = m.relation_ids("d\0b".into()).unwrap_err();
        assert!(matches!(e, ModelError::InvalidArgument(_)), "{e:?}");
        m.set_endpoints(["db".to_string()].into());
        for bad in ["", "cache", "-x", "db:1"] {
            let e = m.relation_ids(bad.into()).unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidArgument(msg)
                    if msg.contains(&format!("`{bad}` is not one of this charm's")) && msg.contains("`db`")),
                "{e:?}"
            );
        }
        let other = RelationRef {
            endpoint: "cache".into(),
            id: 1,
        };
        assert!(matches!(
            m.relation_units(other.clone()),
            Err(ModelError::InvalidArgument(_))
        ));
        assert!(matches!(
            m.relation_set(other, LocalBag::Unit, vec![("k".into(), "v".into())]),
            Err(ModelError::InvalidArgument(_))
        ));
        assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(1)]);
        assert_eq!(
            tool_calls(&calls, "relation-ids"),
            [["--format=json", "--", "db"]]
        );
    }

    #[test]
    fn application_version_refuses_what_juju_cannot_carry() {
        let (mut m, calls) = model(&[("application-version-set", ToolOutput::ok(""))]);
        let e = m.application_version_set("1.0\0".into()).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("NUL")),
            "{e:?}"
        );
        let long = "1".repeat(MAX_APPLICATION_VERSION + 1);
        let e = m.application_version_set(long).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("MAX_APPLICATION_VERSION")),
            "{e:?}"
        );
        m.application_version_set("-1.0".into()).unwrap();
        assert_eq!(
            tool_calls(&calls, "application-version-set"),
            [["--", "-1.0"]]
        );
    }

    #[test]
    fn flush_sends_yaml_safe_json() {
        let (mut m, calls) = model(&[
            ("relation-set", ToolOutput::ok("")),
            ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
        ]);
        m.relation_set(
            rel(1),
            LocalBag::Unit,
            vec![("k".into(), "a\u{7f}b\u{85}c\u{ffff}".into())],
        )
        .unwrap();
        m.commit_handler();
        m.flush().unwrap();
        let calls = calls.lock().unwrap();
        let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
        assert_eq!(
            sets[0].2.as_deref(),
            Some(r#"{"k":"a\u007fb\u0085c\uffff"}"#)
        );
    }

    proptest::proptest! {
        /// Every name Juju's grammar produces is accepted.
        #[test]
        fn jujus_unit_names_are_accepted(
            name in "[a-z][a-z0-9]{0,5}(-[a-z0-9]{0,3}[a-z][a-z0-9]{0,3}){0,3}/(0|[1-9][0-9]{0,5})"
        ) {
            proptest::prop_assert!(is_unit_name(&name), "{}", name);
        }
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
