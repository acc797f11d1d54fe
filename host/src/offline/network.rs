//! The networks of the simulated Juju (reference §2.15,
//! `jujuc/network-get.go`): every relation endpoint and extra binding of
//! metadata.yaml is bound to a network, the default one unless the state
//! file's `networks` says otherwise; any other name has no network config,
//! as in Juju. What `network-get` answers of one is [`SimNetwork::info`];
//! the tool is in `tools::network`.

use serde::{Deserialize, Serialize};

/// The unit's address on a binding nobody configured.
pub const DEFAULT_ADDRESS: &str = "10.0.0.10";
/// The subnet of [`DEFAULT_ADDRESS`].
pub const DEFAULT_CIDR: &str = "10.0.0.0/24";
const DEFAULT_INTERFACE: &str = "eth0";
/// An address in the range LXD gives its containers.
const DEFAULT_MAC: &str = "00:16:3e:00:00:0a";

/// One binding's network in the state file; every field may be left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimNetwork {
    /// The unit's address on the binding. [default: 10.0.0.10]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The address's subnet. [default: 10.0.0.0/24]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cidr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// [default: eth0]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
    /// The addresses other units reach this one at. [default: the address]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_addresses: Option<Vec<String>>,
    /// Where this unit's traffic comes from, as Juju defaults it when the
    /// model sets no `egress-subnets`. [default: the address as a /32]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_subnets: Option<Vec<String>>,
}

/// network-get's JSON, in Juju's key order; empty lists are left out
/// (`omitempty`).
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(in crate::offline) struct NetworkInfo {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(in crate::offline) bind_addresses: Vec<BindAddress>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(in crate::offline) egress_subnets: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(in crate::offline) ingress_addresses: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(in crate::offline) struct BindAddress {
    pub(in crate::offline) mac_address: String,
    pub(in crate::offline) interface_name: String,
    pub(in crate::offline) addresses: Vec<InterfaceAddress>,
}

#[derive(Serialize)]
pub(in crate::offline) struct InterfaceAddress {
    pub(in crate::offline) hostname: String,
    pub(in crate::offline) value: String,
    pub(in crate::offline) cidr: String,
}

impl SimNetwork {
    pub(in crate::offline) fn info(&self) -> NetworkInfo {
        let address = self.address.as_deref().unwrap_or(DEFAULT_ADDRESS);
        NetworkInfo {
            bind_addresses: vec![BindAddress {
                mac_address: self.mac_address.as_deref().unwrap_or(DEFAULT_MAC).into(),
                interface_name: self
                    .interface_name
                    .as_deref()
                    .unwrap_or(DEFAULT_INTERFACE)
                    .into(),
                addresses: vec![InterfaceAddress {
                    hostname: self.hostname.clone().unwrap_or_default(),
                    value: address.into(),
                    cidr: self.cidr.as_deref().unwrap_or(DEFAULT_CIDR).into(),
                }],
            }],
            egress_subnets: self
                .egress_subnets
                .clone()
                .unwrap_or_else(|| vec![format!("{address}/32")]),
            ingress_addresses: self
                .ingress_addresses
                .clone()
                .unwrap_or_else(|| vec![address.into()]),
        }
    }
}
