//! The event's read cache: each read-only tool's answer kept for the rest of
//! the event (Juju caches them per hook context too), so each tool runs at
//! most once per question however many handlers ask. A failed read is not
//! kept. Writes are not seen here: the transaction overlays them.

use crate::bindings::RelationRef;
use crate::bindings::model::{CloudSpec, ConfigOption, Goals};
use crate::bindings::network::Network;
use crate::bindings::ports::OpenedPort;
use crate::bindings::relations::Databag;
use crate::bindings::secrets::{SecretInfo, SecretOwner};
use crate::bindings::storage::StorageInstance;
use std::collections::{BTreeMap, HashMap};

/// One databag's content: key → value.
pub(super) type Bag = BTreeMap<String, String>;

/// A databag of a relation, as the cache keys it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum BagKey {
    LocalUnit,
    LocalApp,
    RemoteUnit(String),
    RemoteApp,
}

impl From<&Databag> for BagKey {
    fn from(bag: &Databag) -> BagKey {
        match bag {
            Databag::LocalUnit => BagKey::LocalUnit,
            Databag::LocalApp => BagKey::LocalApp,
            Databag::RemoteUnit(u) => BagKey::RemoteUnit(u.clone()),
            Databag::RemoteApp => BagKey::RemoteApp,
        }
    }
}

/// A secret as a read names it: (id, label).
pub(super) type SecretKey = (Option<String>, Option<String>);

/// Every answer read so far in this event, by question.
#[derive(Default)]
pub(super) struct ReadCache {
    pub config: Option<Vec<ConfigOption>>,
    pub leader: Option<bool>,
    pub ids: HashMap<String, Vec<RelationRef>>,
    pub units: HashMap<u32, Vec<String>>,
    pub apps: HashMap<u32, Option<String>>,
    /// `relation-model-get`'s UUID, by relation id.
    pub remote_models: HashMap<u32, String>,
    pub bags: HashMap<(u32, BagKey), Bag>,
    pub opened_ports: Option<Vec<OpenedPort>>,
    pub storage_ids: HashMap<Option<String>, Vec<String>>,
    pub storage: HashMap<String, StorageInstance>,
    pub networks: HashMap<(String, Option<u32>), Network>,
    pub goal_state: Option<Goals>,
    pub credential: Option<CloudSpec>,
    pub resources: HashMap<String, String>,
    pub secret_content: HashMap<SecretKey, Vec<(String, String)>>,
    pub secret_info: HashMap<SecretKey, SecretInfo>,
    /// Forgotten when the guest adds a secret.
    pub secret_ids: Option<Vec<String>>,
    /// The secrets this event added, by bare id, with their owner: the
    /// charm owns them though Juju's reads may not list them yet.
    pub created_secrets: HashMap<String, SecretOwner>,
}
