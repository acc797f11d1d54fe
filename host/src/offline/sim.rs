//! The embedded simulated Juju's state: what the state file keeps
//! ([`SimState`], in four parts: the model the operator and the commits
//! shape, what the last event left, the operator's scripts and the host's
//! own store) and what its hook tools know of the event ([`SimTools`]).
//! The tools themselves, answered with Juju's syntax, JSON shapes and exit
//! codes (reference juju-protocol.md §2), are in `tools`, which imports these types; each topic's own types
//! (`secrets`, `network`, `deployment`, `pebble::state`) sit below them.

use super::deployment::SimCloudSpec;
use super::network::SimNetwork;
use super::pebble::state::SimContainer;
use super::secrets::{PendingSecrets, SimSecret};
use crate::status::merge::Written;
use crate::status::store::ScopeStore;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub(crate) type Bag = BTreeMap<String, String>;

/// The simulated model's UUID (`JUJU_MODEL_UUID`): what `relation-model-get`
/// answers for a relation within the model, as Juju does.
pub const MODEL_UUID: &str = "00000000-0000-4000-8000-000000000000";

/// One relation of the simulated unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimRelation {
    /// The remote application.
    pub app: String,
    #[serde(default)]
    pub units: Vec<String>,
    #[serde(default)]
    pub app_data: Bag,
    #[serde(default)]
    pub unit_data: BTreeMap<String, Bag>,
    #[serde(default)]
    pub local_unit_data: Bag,
    #[serde(default)]
    pub local_app_data: Bag,
    /// The UUID of the model hosting the remote application, for a
    /// cross-model relation (`relation-model-get`); when absent, this
    /// model's own ([`MODEL_UUID`]), as Juju answers within a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_uuid: Option<String>,
}

/// A probe outcome the operator scripts in the state file: `wasm-charm run`
/// answers the probe with it instead of running the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScriptedProbe {
    pub healthy: bool,
    /// Not there yet (a container whose Pebble does not answer): the
    /// probe's scope waits, with no grace period.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waiting: bool,
    /// What the check saw, as a status message says it; when absent, a
    /// message naming the probe and saying it is scripted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimStatuses {
    pub unit: Option<Written>,
    pub app: Option<Written>,
}

/// A hook tool's failure the operator scripts in the state: the call is
/// recorded, then answered with this output and exit code instead of the
/// tool's (a controller that refuses, a tool that breaks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScriptedFailure {
    #[serde(default = "one")]
    pub code: i32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
}

fn one() -> i32 {
    1
}

/// What Juju holds of the model and the operator set up: the unit, its
/// leadership, config, relations, statuses, ports, storage, networks,
/// trust, resources, secrets and containers. Kept from event to event;
/// the hook tools change it only through the one commit rule.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelState {
    /// Everything the simulated Juju knows: the state file.
    /// This unit; `<charm name>/0` when absent.
    pub unit: Option<String>,
    /// A lone unit leads its application, so this defaults to true.
    pub leader: bool,
    /// A Kubernetes model's unit (Juju's `caas` model type): hooks get
    /// `JUJU_MACHINE_ID` empty, and port ranges are refused.
    pub kubernetes: bool,
    /// Config values set by the operator (config.yaml defaults fill the rest).
    pub config: BTreeMap<String, serde_json::Value>,
    /// Relations by id (`db:1`).
    pub relations: BTreeMap<String, SimRelation>,
    /// What `status-set` last wrote.
    pub status: SimStatuses,
    pub application_version: Option<String>,
    /// Juju's server-side charm state (`state-get` / `state-set`), where a
    /// charm with `store: juju` keeps its scope store.
    pub charm_state: BTreeMap<String, String>,
    /// Open ports (`80/tcp`, `8000-8100/udp`, `icmp`) and the endpoints
    /// they are open for (`*`: every endpoint).
    pub opened_ports: BTreeMap<String, Vec<String>>,
    /// Storage instances attached to the unit, by id (`data/0`).
    pub storage: BTreeMap<String, SimStorage>,
    /// What `network-get` answers for a binding (an endpoint or extra
    /// binding of metadata.yaml), each field defaulted; a binding not named
    /// here is bound to the default address.
    pub networks: BTreeMap<String, SimNetwork>,
    /// Whether the operator ran `juju trust`: `credential-get` answers only
    /// then.
    pub trusted: bool,
    /// The cloud spec `credential-get` answers; when absent, a local LXD
    /// cloud's.
    pub credential: Option<SimCloudSpec>,
    /// The file of each resource the operator provided, by name: a path
    /// relative to the state file's directory, or absolute.
    pub resources: BTreeMap<String, PathBuf>,
    /// Secrets by id (`secret:<20 characters>`): the charm's own and those
    /// other applications shared with this unit.
    pub secrets: BTreeMap<String, SimSecret>,
    /// Each workload container's simulated Pebble (`offline::pebble`): its
    /// layers, services, checks, files and scripted exec outcomes.
    pub containers: BTreeMap<String, SimContainer>,
}

/// What the last event left for the author to read: its log, its
/// hook-tool calls and, for an action, its parameters and results.
/// Rewritten by every event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastEvent {
    /// The unit log of the last event.
    pub log: Vec<String>,
    /// The hook-tool calls of the last event, one line each.
    pub calls: Vec<String>,
    /// The parameters of the last event's action, as `action-get` answers
    /// them: `wasm-charm run`'s `--param` flags, checked against the
    /// action's schema, with its defaults filled in, as Juju does.
    pub action_params: serde_json::Map<String, serde_json::Value>,
    /// What `action-set` stored during the last event (an action), by dotted key.
    pub action_results: BTreeMap<String, String>,
    /// The message `action-fail` left during the last event (an action):
    /// the action failed.
    pub action_failed: Option<String>,
    /// The reboot the last event asked for (`juju-reboot`): `now` (Juju
    /// killed the hook, kept nothing of it and runs it again after the
    /// reboot), or `after-hook` (the hook succeeded; Juju reboots now).
    pub reboot: Option<SimReboot>,
}

/// When the machine reboots, as `juju-reboot` asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SimReboot {
    /// `juju-reboot --now`: the hook is killed and runs again after it.
    Now,
    /// `juju-reboot`: once the hook has succeeded.
    AfterHook,
}

/// This hook's `storage-add` requests, held until it ends as Juju holds
/// them: `offline::commit` adds the instances when it succeeded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct PendingStorage {
    /// The instances Juju attaches if the hook succeeds, by id.
    #[serde(default)]
    pub added: BTreeMap<String, SimStorage>,
    /// Why Juju's commit refuses the requests (a storage metadata.yaml
    /// does not declare): the hook then fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// What the operator scripts to steer the simulator: probe outcomes,
/// failing tools and the controller's limits. Kept from run to run until
/// edited; no event writes them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperatorScripts {
    /// Probe outcomes by name, used instead of running those probes (the
    /// operator's scenario: kept from run to run until edited). Probes not
    /// named here run for real.
    pub probes: BTreeMap<String, ScriptedProbe>,
    /// Hook tools that fail, by name, as the operator scripts them (kept
    /// from run to run until edited).
    pub fail: BTreeMap<String, ScriptedFailure>,
    /// The controller's `max-charm-state-size` in bytes, the charm state's
    /// total that Juju checks when it commits a hook; 2 MiB when absent,
    /// 0 for no limit.
    pub max_charm_state_size: Option<usize>,
}

/// What the host itself keeps in the simulator rather than in the charm
/// directory: the scope store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostStore {
    /// The scope store, kept here rather than in the charm directory.
    pub scopes: Option<ScopeStore>,
}

/// Everything the simulated Juju knows, in the four parts an author
/// reasons about. The state file keeps them as one flat mapping
/// (`sim_format`), which authors have written since the first release.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    from = "super::sim_format::FlatState",
    into = "super::sim_format::FlatState"
)]
pub struct SimState {
    pub model: ModelState,
    pub last_event: LastEvent,
    pub scripts: OperatorScripts,
    pub store: HostStore,

    /// This hook's port requests, held until it ends as Juju holds them:
    /// `offline::commit` applies them when it succeeded.
    pub pending_ports: crate::model::port_rules::Pending,
    /// This hook's secret changes, held until it ends as Juju holds them:
    /// `offline::commit` applies them when it succeeded.
    pub pending_secrets: PendingSecrets,
    /// This hook's storage requests, likewise.
    pub pending_storage: PendingStorage,
}

/// One storage instance of the simulated unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SimStorage {
    /// `filesystem` or `block`.
    pub kind: String,
    /// Mount point or device.
    pub location: String,
}

impl Default for ModelState {
    fn default() -> Self {
        ModelState {
            unit: None,
            // A lone unit leads its application.
            leader: true,
            kubernetes: false,
            config: BTreeMap::new(),
            relations: BTreeMap::new(),
            status: SimStatuses::default(),
            application_version: None,
            charm_state: BTreeMap::new(),
            opened_ports: BTreeMap::new(),
            storage: BTreeMap::new(),
            networks: BTreeMap::new(),
            trusted: false,
            credential: None,
            resources: BTreeMap::new(),
            secrets: BTreeMap::new(),
            containers: BTreeMap::new(),
        }
    }
}

/// The hook tools of the simulated Juju.
pub struct SimTools {
    pub state: Arc<Mutex<SimState>>,
    /// config.yaml defaults, under the operator's values.
    pub defaults: BTreeMap<String, serde_json::Value>,
    pub unit: String,
    /// The action that runs (`JUJU_ACTION_NAME`); `None` in a hook, where the
    /// action tools answer `not running an action`.
    pub action: Option<String>,
    /// During relation-departed: the relation (`db:1`) and the unit leaving
    /// it. Juju removes the unit from `relation-list` before the hook runs,
    /// while its data stays readable until the hook ends.
    pub departing: Option<(String, String)>,
    /// The relation of a relation hook (`JUJU_RELATION_ID`): the default of
    /// the secret tools' `-r`, as in Juju.
    pub relation: Option<String>,
    /// The remote unit and application of a relation hook
    /// (`JUJU_REMOTE_UNIT`, `JUJU_REMOTE_APP`): whose data `relation-get`
    /// reads when the call names nobody, as in Juju.
    pub remote_unit: Option<String>,
    pub remote_app: Option<String>,
    /// The storage instance of a storage hook (`JUJU_STORAGE_ID`): the
    /// default of `storage-get`'s `-s`, as in Juju.
    pub storage: Option<String>,
    /// The model's UUID (`JUJU_MODEL_UUID`): what `relation-model-get`
    /// answers for a relation within the model.
    pub model_uuid: String,
    /// metadata.yaml's storage, each name with its kind (`filesystem`,
    /// `block`): what `storage-add` adds.
    pub declared_storage: BTreeMap<String, String>,
    /// metadata.yaml's relation endpoints and extra bindings: the bindings
    /// `network-get` knows.
    pub bindings: BTreeSet<String>,
    /// The state file's directory, where relative resource paths start.
    pub state_dir: PathBuf,
    /// Seconds since the Unix epoch when the event started: the clock of
    /// secret expiry and new secret ids.
    pub now: u64,
}
