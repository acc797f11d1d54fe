//! What the state file says of the deployment around the unit (reference
//! §2.17, `jujuc/credential-get.go`): the cloud spec `credential-get`
//! answers a trusted application. The tools are in `tools::deployment`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The cloud spec `credential-get` answers (`params.CloudSpec`); fields Juju
/// leaves out when empty may be left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimCloudSpec {
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<SimCredential>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cacertificates: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_tls_verify: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_controller_cloud: bool,
}

/// The credential of a [`SimCloudSpec`] (`params.CloudCredential`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimCredential {
    pub auth_type: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
}

impl SimCloudSpec {
    /// What a trusted charm on a local LXD cloud reads when the state names
    /// no cloud.
    pub fn local_lxd() -> Self {
        SimCloudSpec {
            kind: "lxd".into(),
            name: "localhost".into(),
            region: Some("default".into()),
            endpoint: None,
            identity_endpoint: None,
            storage_endpoint: None,
            credential: Some(SimCredential {
                auth_type: "certificate".into(),
                attrs: BTreeMap::new(),
                redacted: Vec::new(),
            }),
            cacertificates: Vec::new(),
            skip_tls_verify: false,
            is_controller_cloud: true,
        }
    }
}
