//! The JSON the read-only hook tools answer with (juju-protocol §2.15–§2.19),
//! as serde shapes, and their conversion to the WIT records. Keys Juju leaves
//! out (`omitempty`) default to empty.

use crate::bindings::model::{CloudCredential, CloudSpec, GoalStatus, Goals};
use crate::bindings::network::{BindAddress, InterfaceAddress, Network};
use crate::bindings::storage::StorageInstance;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "kebab-case")]
pub struct NetworkJson {
    bind_addresses: Vec<BindJson>,
    ingress_addresses: Vec<String>,
    egress_subnets: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "kebab-case")]
struct BindJson {
    mac_address: String,
    interface_name: String,
    addresses: Vec<AddressJson>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AddressJson {
    hostname: String,
    value: String,
    /// YAML's legacy key; JSON has `value`.
    address: String,
    cidr: String,
}

impl From<NetworkJson> for Network {
    fn from(n: NetworkJson) -> Network {
        Network {
            bind_addresses: n
                .bind_addresses
                .into_iter()
                .map(|b| BindAddress {
                    mac_address: b.mac_address,
                    interface_name: b.interface_name,
                    addresses: b
                        .addresses
                        .into_iter()
                        .map(|a| InterfaceAddress {
                            hostname: a.hostname,
                            value: if a.value.is_empty() {
                                a.address
                            } else {
                                a.value
                            },
                            cidr: a.cidr,
                        })
                        .collect(),
                })
                .collect(),
            ingress_addresses: n.ingress_addresses,
            egress_subnets: n.egress_subnets,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct GoalJson {
    units: BTreeMap<String, GoalStatusJson>,
    relations: BTreeMap<String, BTreeMap<String, GoalStatusJson>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GoalStatusJson {
    status: String,
    since: Option<String>,
}

fn statuses(map: BTreeMap<String, GoalStatusJson>) -> Vec<GoalStatus> {
    map.into_iter()
        .map(|(name, s)| GoalStatus {
            name,
            status: s.status,
            since: s.since.filter(|s| !s.is_empty()),
        })
        .collect()
}

impl From<GoalJson> for Goals {
    fn from(g: GoalJson) -> Goals {
        Goals {
            units: statuses(g.units),
            relations: g
                .relations
                .into_iter()
                .map(|(endpoint, related)| (endpoint, statuses(related)))
                .collect(),
        }
    }
}

#[derive(Deserialize)]
pub struct StorageJson {
    kind: String,
    location: String,
}

impl StorageJson {
    pub fn into_instance(self, id: String) -> StorageInstance {
        StorageInstance {
            id,
            kind: self.kind,
            location: self.location,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "kebab-case")]
pub struct CloudSpecJson {
    #[serde(rename = "type")]
    kind: String,
    name: String,
    region: Option<String>,
    endpoint: Option<String>,
    identity_endpoint: Option<String>,
    storage_endpoint: Option<String>,
    credential: Option<CredentialJson>,
    cacertificates: Vec<String>,
    skip_tls_verify: bool,
    is_controller_cloud: bool,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "kebab-case")]
struct CredentialJson {
    auth_type: String,
    attrs: BTreeMap<String, String>,
    redacted: Vec<String>,
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

impl From<CloudSpecJson> for CloudSpec {
    fn from(c: CloudSpecJson) -> CloudSpec {
        CloudSpec {
            type_: c.kind,
            name: c.name,
            region: non_empty(c.region),
            endpoint: non_empty(c.endpoint),
            identity_endpoint: non_empty(c.identity_endpoint),
            storage_endpoint: non_empty(c.storage_endpoint),
            credential: c.credential.map(|cred| CloudCredential {
                auth_type: cred.auth_type,
                attrs: cred.attrs.into_iter().collect(),
                redacted: cred.redacted,
            }),
            ca_certificates: c.cacertificates,
            skip_tls_verify: c.skip_tls_verify,
            is_controller_cloud: c.is_controller_cloud,
        }
    }
}
