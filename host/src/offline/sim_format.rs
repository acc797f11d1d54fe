//! The state file's Juju part as authors write it: one flat mapping of
//! kebab-case keys, each refusing what it does not know, read into and
//! written from [`SimState`]'s four parts. The keys are documented on the
//! parts' fields and in docs/offline-state.md.

use super::deployment::SimCloudSpec;
use super::network::SimNetwork;
use super::pebble::state::SimContainer;
use super::secrets::{PendingSecrets, SimSecret};
use super::sim::{
    HostStore, LastEvent, ModelState, OperatorScripts, ScriptedFailure, ScriptedProbe, SimReboot,
    SimRelation, SimState, SimStatuses, SimStorage,
};
use crate::status::store::ScopeStore;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The file's keys, in the order they are written.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FlatState {
    #[serde(default)]
    unit: Option<String>,
    #[serde(default = "yes")]
    leader: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    kubernetes: bool,
    #[serde(default)]
    config: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    relations: BTreeMap<String, SimRelation>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    probes: BTreeMap<String, ScriptedProbe>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    fail: BTreeMap<String, ScriptedFailure>,
    #[serde(default)]
    status: SimStatuses,
    #[serde(default)]
    application_version: Option<String>,
    #[serde(default)]
    log: Vec<String>,
    #[serde(default)]
    calls: Vec<String>,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    action_params: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    action_results: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action_failed: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reboot: Option<SimReboot>,
    #[serde(default)]
    scopes: Option<ScopeStore>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    charm_state: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_charm_state_size: Option<usize>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    opened_ports: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    storage: BTreeMap<String, SimStorage>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    networks: BTreeMap<String, SimNetwork>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    trusted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<SimCloudSpec>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    resources: BTreeMap<String, PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    secrets: BTreeMap<String, SimSecret>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    containers: BTreeMap<String, SimContainer>,
}

fn yes() -> bool {
    true
}

impl From<FlatState> for SimState {
    fn from(f: FlatState) -> SimState {
        SimState {
            model: ModelState {
                unit: f.unit,
                leader: f.leader,
                kubernetes: f.kubernetes,
                config: f.config,
                relations: f.relations,
                status: f.status,
                application_version: f.application_version,
                charm_state: f.charm_state,
                opened_ports: f.opened_ports,
                storage: f.storage,
                networks: f.networks,
                trusted: f.trusted,
                credential: f.credential,
                resources: f.resources,
                secrets: f.secrets,
                containers: f.containers,
            },
            last_event: LastEvent {
                log: f.log,
                calls: f.calls,
                action_params: f.action_params,
                action_results: f.action_results,
                action_failed: f.action_failed,
                reboot: f.reboot,
            },
            scripts: OperatorScripts {
                probes: f.probes,
                fail: f.fail,
                max_charm_state_size: f.max_charm_state_size,
            },
            store: HostStore { scopes: f.scopes },
            pending_ports: Default::default(),
            pending_secrets: PendingSecrets::default(),
            pending_storage: Default::default(),
        }
    }
}

impl From<SimState> for FlatState {
    fn from(s: SimState) -> FlatState {
        let ModelState {
            unit,
            leader,
            kubernetes,
            config,
            relations,
            status,
            application_version,
            charm_state,
            opened_ports,
            storage,
            networks,
            trusted,
            credential,
            resources,
            secrets,
            containers,
        } = s.model;
        let LastEvent {
            log,
            calls,
            action_params,
            action_results,
            action_failed,
            reboot,
        } = s.last_event;
        let OperatorScripts {
            probes,
            fail,
            max_charm_state_size,
        } = s.scripts;
        let HostStore { scopes } = s.store;
        FlatState {
            unit,
            leader,
            kubernetes,
            config,
            relations,
            probes,
            fail,
            status,
            application_version,
            log,
            calls,
            action_params,
            action_results,
            action_failed,
            reboot,
            scopes,
            charm_state,
            max_charm_state_size,
            opened_ports,
            storage,
            networks,
            trusted,
            credential,
            resources,
            secrets,
            containers,
        }
    }
}
