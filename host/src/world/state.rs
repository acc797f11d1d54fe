//! What the model keeps: its applications, units, relations with their
//! databags, secrets with owners, revisions, grants and consumers, each
//! unit's queue of events, and the log. Plain data, saved as one file
//! (`store`), so a model is always one consistent snapshot; the history
//! and the log, which grow with every event, are appended beside it.

use crate::offline::secrets::SimRevision;
use crate::offline::state_file::StateFile;
use crate::status::merge::Written;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;

pub type Bag = BTreeMap<String, String>;

/// One model.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct World {
    pub name: String,
    pub uuid: String,
    /// The model's clock, seconds since the epoch: it starts when the
    /// model is added and moves one second per hook, so every hook of a
    /// run sees a time of its own and a run replays exactly.
    pub clock: u64,
    /// The id the next relation gets (Juju numbers relations model-wide).
    pub next_relation: u64,
    /// The number the next machine gets.
    pub next_machine: u64,
    /// How many units the model has had: each gets an address of its own.
    #[serde(default)]
    pub units_made: u32,
    pub apps: BTreeMap<String, App>,
    pub relations: BTreeMap<u64, Relation>,
    /// Secrets by URI (`secret:<id>`).
    pub secrets: BTreeMap<String, WorldSecret>,
    /// The model's config as `juju model-config` set it: the keys the
    /// model simulates (`timers::UPDATE_STATUS`) and nothing else.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_config: BTreeMap<String, String>,
    /// When the next update-status tick falls due (`timers`); none yet
    /// until time is first advanced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_update_status: Option<u64>,
    /// What `juju debug-log` shows: each unit's log lines, in order.
    /// Appended to `log.jsonl`, not written in model.json (`store`).
    #[serde(default, skip_serializing)]
    pub log: Vec<LogLine>,
    /// Every hook the model ran, in order: what a test reads to check the
    /// choreography. Appended to `history.jsonl` (`store`).
    #[serde(default, skip_serializing)]
    pub history: Vec<Ran>,
    /// How much of `history` and `log` their files hold for this model.
    #[serde(default)]
    pub appended: std::cell::Cell<Appended>,
}

/// What the append-only files hold that model.json accounts for: lines,
/// and the bytes they take (past them, a crash's torn or unsaved tail).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Appended {
    pub history: u64,
    pub history_bytes: u64,
    pub log: u64,
    pub log_bytes: u64,
}

/// One application.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct App {
    /// The charm as deployed, unpacked in the model's directory.
    pub charm: PathBuf,
    /// metadata.yaml's `name`.
    pub charm_name: String,
    /// Counts refreshes: the first deploy is revision 0.
    pub revision: u32,
    /// Where it was deployed from (`./x.charm`), as `juju status` shows it.
    pub source: String,
    /// A charm whose metadata declares containers: a Kubernetes sidecar
    /// charm, its units pods.
    pub kubernetes: bool,
    /// The operator's config values (config.yaml's defaults fill the rest).
    pub config: BTreeMap<String, serde_json::Value>,
    pub trusted: bool,
    /// The leading unit.
    pub leader: Option<String>,
    /// What the leader last wrote with `status-set --application`.
    pub status: Option<Written>,
    pub units: BTreeMap<u32, Unit>,
    pub next_unit: u32,
    /// Resource files by name, as `deploy --resource` gave them.
    pub resources: BTreeMap<String, PathBuf>,
    /// `remove-application` ran: the application goes once its last unit did.
    #[serde(default)]
    pub dying: bool,
}

/// One unit.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Unit {
    pub name: String,
    /// Its machine (`0`), empty for a pod.
    pub machine: String,
    /// Its address: every binding's, and `juju status`'s public address.
    pub address: String,
    /// Its own charm directory (Juju gives each unit one): the charm's files
    /// linked, and whatever its dispatch keeps there.
    pub charm_dir: PathBuf,
    /// What only this unit has: its statuses, store, charm state, ports,
    /// storage, containers, machine; and its last hook's log and calls. The
    /// rest of its view comes from the model before each hook.
    pub state: StateFile,
    /// Its events, in the order its agent runs them.
    pub queue: VecDeque<Pending>,
    /// A hook that failed: the unit waits for `resolve`.
    pub error: Option<Failed>,
    /// The relations this unit is in the scope of, each with the remote
    /// units it has seen join (`relation-list`).
    pub scopes: BTreeMap<u64, BTreeSet<String>>,
    /// `remove-unit` ran: the unit goes once its `remove` hook has run.
    pub dying: bool,
    /// The last action run on it.
    pub last_action: Option<ActionRun>,
    /// The action id the next action gets.
    pub actions_run: u32,
}

/// A hook that failed, as `juju status` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Failed {
    pub event: Pending,
    pub message: String,
}

/// An action's outcome.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ActionRun {
    pub id: String,
    pub name: String,
    pub status: String,
    pub results: BTreeMap<String, String>,
    pub message: Option<String>,
    pub log: Vec<String>,
}

/// One event queued on a unit: the hook, and what Juju's environment
/// names with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Pending {
    /// The hook's name (`install`, `db-relation-changed`).
    pub hook: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub departing: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_revision: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The storage instance of a storage hook (`data/0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
}

impl Pending {
    pub fn hook(name: impl Into<String>) -> Pending {
        Pending {
            hook: name.into(),
            ..Pending::default()
        }
    }

    /// How the event is named in a history line and a cycle:
    /// `db-relation-changed` with its remote side when it has one.
    pub fn label(&self) -> String {
        match (&self.remote_unit, &self.remote_app, &self.secret) {
            (Some(u), _, _) => format!("{} ({u})", self.hook),
            (None, Some(a), _) if self.hook.ends_with("-relation-changed") => {
                format!("{} ({a})", self.hook)
            }
            (_, _, Some(s)) => format!("{} ({s})", self.hook),
            _ => self.hook.clone(),
        }
    }
}

/// A relation between two applications' endpoints, or a peer relation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Relation {
    pub id: u64,
    pub interface: String,
    /// Its ends: two for a regular relation, one for a peer relation.
    pub ends: Vec<End>,
    /// Each application's bag on it.
    pub app_data: BTreeMap<String, Bag>,
    /// Each unit's bag on it.
    pub unit_data: BTreeMap<String, Bag>,
    /// `remove-relation` ran: it goes once every unit ran relation-broken.
    #[serde(default)]
    pub dying: bool,
}

/// One end of a relation: an application's endpoint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct End {
    pub app: String,
    pub endpoint: String,
    /// `provides`, `requires` or `peers`.
    pub role: String,
}

impl Relation {
    pub fn is_peer(&self) -> bool {
        self.ends.len() == 1
    }

    /// `app`'s end.
    pub fn end_of(&self, app: &str) -> Option<&End> {
        self.ends.iter().find(|e| e.app == app)
    }

    /// The application on the other side of `app` (itself for peers).
    pub fn other_app(&self, app: &str) -> Option<&str> {
        if self.is_peer() {
            return self.ends.first().map(|e| e.app.as_str());
        }
        self.ends
            .iter()
            .find(|e| e.app != app)
            .map(|e| e.app.as_str())
    }

    /// `app:endpoint app:endpoint`, as `juju status` lists relations.
    pub fn key(&self) -> String {
        self.ends
            .iter()
            .map(|e| format!("{}:{}", e.app, e.endpoint))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A secret of the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct WorldSecret {
    /// The owning application, or unit (`app/0`).
    pub owner: String,
    pub revisions: Vec<SimRevision>,
    /// The owner's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotates: Option<String>,
    /// Who may read it, by relation: the related application, or some of
    /// its units.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub grants: BTreeMap<u64, BTreeSet<String>>,
    /// Each consuming unit's revision and label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub consumers: BTreeMap<String, Consumer>,
    /// A user secret (`juju add-secret`): its owner is the model, and
    /// `grant-secret` names the applications that may read it.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub granted_apps: BTreeSet<String>,
    /// When secret-expired is due again for the revision that expired and
    /// that its owner has not removed (`timers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expire_retry: Option<ExpireRetry>,
}

/// secret-expired due again: the revision that expired, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ExpireRetry {
    pub revision: u32,
    pub at: u64,
}

impl WorldSecret {
    pub fn latest(&self) -> u32 {
        self.revisions.iter().map(|r| r.revision).max().unwrap_or(0)
    }
}

/// A consuming unit's view of a secret.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Consumer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A log line of a unit.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LogLine {
    pub unit: String,
    pub at: u64,
    pub line: String,
}

/// One hook the model ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Ran {
    pub unit: String,
    pub event: Pending,
    /// The hook failed: the unit went to `error`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
    /// What it wrote that does not fit its relations' interfaces
    /// (`contracts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<String>,
}

impl World {
    /// The application a unit name belongs to, and its number.
    pub fn split_unit(unit: &str) -> Option<(&str, u32)> {
        let (app, n) = unit.rsplit_once('/')?;
        Some((app, n.parse().ok()?))
    }

    pub fn unit(&self, unit: &str) -> Option<&Unit> {
        let (app, n) = Self::split_unit(unit)?;
        self.apps.get(app)?.units.get(&n)
    }

    pub fn unit_mut(&mut self, unit: &str) -> Option<&mut Unit> {
        let (app, n) = Self::split_unit(unit)?;
        self.apps.get_mut(app)?.units.get_mut(&n)
    }

    /// Every unit's name, applications in order, units by number.
    pub fn unit_names(&self) -> Vec<String> {
        self.apps
            .values()
            .flat_map(|a| a.units.values().map(|u| u.name.clone()))
            .collect()
    }

    /// The units of `app`, by number.
    pub fn units_of(&self, app: &str) -> Vec<String> {
        self.apps
            .get(app)
            .map(|a| a.units.values().map(|u| u.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The relations `app` takes part in.
    pub fn relations_of(&self, app: &str) -> Vec<u64> {
        self.relations
            .values()
            .filter(|r| r.end_of(app).is_some())
            .map(|r| r.id)
            .collect()
    }
}
