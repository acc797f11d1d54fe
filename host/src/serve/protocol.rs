//! The words of the harness protocol (docs/harness-protocol.md): the hello,
//! the requests, and the error a request gets, as JSON values.

use crate::offline::{KeyValue, Param, RunArgs};
use crate::status::merge::Kind;
use crate::status::store::Target;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The protocol's name, in the hello.
pub const PROTOCOL: &str = "wasm-charm-harness";
/// The version this host speaks; a request of another is refused.
pub const VERSION: u64 = 1;

/// The first line the server writes.
pub fn hello() -> Value {
    json!({
        "protocol": PROTOCOL,
        "version": VERSION,
        "wasm-charm": env!("CARGO_PKG_VERSION"),
    })
}

/// Why a request got no result: its `kind` tells a client which of its
/// errors it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// What `wasm-charm run` refuses with exit 2: the event, a flag, a
    /// parameter, a state naming what the charm does not declare.
    Usage,
    /// A project that cannot be packed, a directory that is no charm.
    Build,
    /// A state document the state file does not take.
    State,
    /// A file or directory of the request that cannot be read or written.
    Io,
    /// A line that is no request of this protocol (or of another version).
    Protocol,
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }

    /// The response line's value.
    pub fn to_json(&self) -> Value {
        json!({"error": {"kind": self.kind, "message": self.message}})
    }
}

/// One request, by its `op` (its `version` checked and taken out first).
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    /// Pack a charm project, incrementally, into
    /// `<project>/target/wasm-charm/<name>`.
    Pack { project: PathBuf },
    /// What a packed charm directory is: its name, store, probes.
    Load { charm: PathBuf },
    /// Whether the state file takes this document.
    Check {
        state: serde_json::Map<String, Value>,
    },
    /// Run one event.
    Run(Box<RunRequest>),
    /// Run one `juju` command on the models under `home` (the model's
    /// front end, `wasm-charm juju`): its stdout, stderr and exit code.
    Juju {
        home: PathBuf,
        args: Vec<String>,
        /// Units run in an order drawn from this seed.
        #[serde(default)]
        seed: Option<u64>,
    },
    /// A model as it stands: every application, unit (its statuses,
    /// scopes, store, queue), relation and bag, secret, the events run
    /// and the log.
    Model { home: PathBuf, model: String },
}

/// One event to run on a packed charm.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RunRequest {
    pub charm: PathBuf,
    /// The state document, every section as the state file has it.
    #[serde(default)]
    pub state: serde_json::Map<String, Value>,
    /// Scopes and stored data written into the store before the event,
    /// wherever the charm keeps it.
    #[serde(default)]
    pub seed: Seed,
    pub event: EventSpec,
    /// The workload root, prepared by the client.
    pub root: PathBuf,
    /// What messages call the state; `machine/` outputs go beside it and
    /// relative resource paths start from its directory [default: `<root>.state.yaml`].
    #[serde(default)]
    pub state_file: Option<PathBuf>,
}

/// What a test puts in the scope store before the event.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Seed {
    /// Scopes set, in order, as if an earlier event had set them.
    #[serde(default)]
    pub scopes: Vec<SeedScope>,
    /// The charm's stored data: key to the exact text kept.
    #[serde(default)]
    pub stored: BTreeMap<String, String>,
}

impl Seed {
    pub fn is_empty(&self) -> bool {
        self.scopes.is_empty() && self.stored.is_empty()
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SeedScope {
    pub target: Target,
    pub name: String,
    pub status: Kind,
    #[serde(default)]
    pub message: String,
}

/// The event and its context: `wasm-charm run`'s flags, typed.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct EventSpec {
    pub name: String,
    pub relation: Option<String>,
    pub remote_app: Option<String>,
    pub remote_unit: Option<String>,
    #[serde(default)]
    pub remote_app_data: BTreeMap<String, String>,
    #[serde(default)]
    pub remote_unit_data: BTreeMap<String, String>,
    pub storage: Option<String>,
    pub container: Option<String>,
    pub notice_id: Option<String>,
    pub notice_type: Option<String>,
    pub notice_key: Option<String>,
    pub check: Option<String>,
    pub secret_id: Option<String>,
    pub secret_label: Option<String>,
    pub secret_revision: Option<String>,
    /// Action parameters, by (dotted) key.
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    /// Config options the operator sets before the event (`--config`).
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// The time the event runs at, as serde writes a `SystemTime`.
    pub time: Option<std::time::SystemTime>,
}

impl EventSpec {
    /// `run`'s arguments for this event on `charm`, under `root`.
    pub fn run_args(&self, charm: PathBuf, root: PathBuf) -> RunArgs {
        let pairs = |m: &BTreeMap<String, String>| -> Vec<KeyValue> {
            m.iter().map(|(k, v)| KeyValue::new(k, v)).collect()
        };
        RunArgs {
            charm,
            event: self.name.clone(),
            root: Some(root),
            config: pairs(&self.config),
            relation: self.relation.clone(),
            remote_app: self.remote_app.clone(),
            remote_unit: self.remote_unit.clone(),
            remote_app_data: pairs(&self.remote_app_data),
            remote_unit_data: pairs(&self.remote_unit_data),
            storage: self.storage.clone(),
            container: self.container.clone(),
            notice_id: self.notice_id.clone(),
            notice_type: self.notice_type.clone(),
            notice_key: self.notice_key.clone(),
            check: self.check.clone(),
            secret_id: self.secret_id.clone(),
            secret_label: self.secret_label.clone(),
            secret_revision: self.secret_revision.clone(),
            param: self
                .params
                .iter()
                .map(|(k, v)| Param::new(k, v.clone()))
                .collect(),
            now: self.time,
            ..RunArgs::default()
        }
    }
}

/// The request on line `line`, its version checked: a line that is not
/// JSON, carries no version or another, or is no request is a protocol
/// failure naming the line.
pub fn parse(text: &str, line: u64) -> Result<Request, Failure> {
    let at =
        |why: String| Failure::new(FailureKind::Protocol, format!("request line {line}: {why}"));
    let value: Value = serde_json::from_str(text).map_err(|e| at(format!("not JSON: {e}")))?;
    let Value::Object(mut map) = value else {
        return Err(at("not a JSON object".to_string()));
    };
    match map.remove("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(VERSION) => {}
        Some(other) => {
            return Err(at(format!(
                "protocol version {other}: this wasm-charm ({}) speaks {PROTOCOL} version \
                 {VERSION} only; use the harness of the same wasm-charm release",
                env!("CARGO_PKG_VERSION")
            )));
        }
        None => {
            return Err(at(format!(
                "no `version`: every request names the protocol version ({VERSION})"
            )));
        }
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| at(format!("not a request: {e}")))
}
