//! metadata.yaml and config.yaml: the parts the host needs to name events
//! (endpoints, storage, containers) and to type config. actions.yaml is
//! `super::actions`.

use super::{CharmFileError, parse_yaml};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A relation endpoint's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    Requires,
    Provides,
    Peers,
}

/// One relation endpoint of metadata.yaml.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub role: Role,
    pub interface: String,
    pub limit: Option<u32>,
}

/// What the host uses of metadata.yaml.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    pub name: String,
    pub endpoints: BTreeMap<String, Endpoint>,
    pub storage: Vec<String>,
    /// The storage whose `type` is `block` (the others are filesystems):
    /// what the simulated Juju gives the instances `storage-add` adds.
    pub block_storage: Vec<String>,
    pub containers: Vec<String>,
    /// `extra-bindings`: network bindings that are no relation endpoint
    /// (`network-get` and `open-port --endpoints` take them too).
    pub extra_bindings: Vec<String>,
    /// `resources`: their names, as `resource-get` takes them.
    pub resources: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
struct RawMetadata {
    name: Option<String>,
    #[serde(default)]
    requires: BTreeMap<String, RawEndpoint>,
    #[serde(default)]
    provides: BTreeMap<String, RawEndpoint>,
    #[serde(default)]
    peers: BTreeMap<String, RawEndpoint>,
    #[serde(default)]
    storage: BTreeMap<String, Option<RawStorage>>,
    #[serde(default)]
    containers: BTreeMap<String, IgnoredAny>,
    /// Each name maps to nothing (`admin:` or `admin: ~`).
    #[serde(default)]
    extra_bindings: BTreeMap<String, IgnoredAny>,
    #[serde(default)]
    resources: BTreeMap<String, IgnoredAny>,
}

/// A storage declaration: only its `type` is read.
#[derive(Deserialize)]
struct RawStorage {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct RawEndpoint {
    interface: String,
    limit: Option<u32>,
}

impl Metadata {
    /// Whether the charm runs on Kubernetes: a charm of today's format
    /// declaring containers is a sidecar charm, as Juju's `IsKubernetes`
    /// decides (the pod-spec charms of the old format are gone).
    pub fn is_kubernetes(&self) -> bool {
        !self.containers.is_empty()
    }

    pub fn parse(text: &str, file: &Path) -> Result<Metadata, CharmFileError> {
        let raw: RawMetadata = parse_yaml(text, file)?;
        let name = raw
            .name
            .filter(|n| !n.is_empty())
            .ok_or_else(|| CharmFileError::new(file, "field `name` is missing or empty"))?;
        let mut endpoints = BTreeMap::new();
        for (role, group) in [
            (Role::Requires, raw.requires),
            (Role::Provides, raw.provides),
            (Role::Peers, raw.peers),
        ] {
            for (ep, e) in group {
                let endpoint = Endpoint {
                    role,
                    interface: e.interface,
                    limit: e.limit,
                };
                if endpoints.insert(ep.clone(), endpoint).is_some() {
                    return Err(CharmFileError::new(
                        file,
                        format!("relation endpoint `{ep}` is declared more than once"),
                    ));
                }
            }
        }
        // Juju binds endpoints and extra bindings by name, in one namespace.
        if let Some(both) = raw
            .extra_bindings
            .keys()
            .find(|b| endpoints.contains_key(*b))
        {
            return Err(CharmFileError::new(
                file,
                format!("extra binding `{both}` has the name of a relation endpoint"),
            ));
        }
        let block_storage = raw
            .storage
            .iter()
            .filter(|(_, s)| s.as_ref().and_then(|s| s.kind.as_deref()) == Some("block"))
            .map(|(name, _)| name.clone())
            .collect();
        Ok(Metadata {
            name,
            endpoints,
            block_storage,
            storage: raw.storage.into_keys().collect(),
            containers: raw.containers.into_keys().collect(),
            extra_bindings: raw.extra_bindings.into_keys().collect(),
            resources: raw.resources.into_keys().collect(),
        })
    }
}

/// The type of a config option, from config.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfigType {
    String,
    Int,
    Float,
    Boolean,
    Secret,
}

/// config.yaml: option name → type, and the defaults that are not null.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigSchema {
    pub options: BTreeMap<String, ConfigType>,
    pub defaults: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize, Default)]
struct RawConfig {
    #[serde(default)]
    options: BTreeMap<String, RawOption>,
}

#[derive(Deserialize)]
struct RawOption {
    #[serde(rename = "type")]
    kind: ConfigType,
    #[serde(default)]
    default: Option<serde_json::Value>,
}

impl ConfigSchema {
    pub fn parse(text: &str, file: &Path) -> Result<ConfigSchema, CharmFileError> {
        let raw: RawConfig = parse_yaml(text, file)?;
        let mut schema = ConfigSchema::default();
        for (name, option) in raw.options {
            if let Some(d) = option.default.filter(|d| !d.is_null()) {
                schema.defaults.insert(name.clone(), d);
            }
            schema.options.insert(name, option.kind);
        }
        Ok(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_keeps_dashes_and_roles() {
        let m = Metadata::parse(
            "name: gw\nrequires:\n  istio-pilot:\n    interface: istio-pilot\n    limit: 1\npeers:\n  my-peer: {interface: p}\ncontainers:\n  work-load: {resource: img}\nstorage:\n  data: {type: filesystem}\n  disks: {type: block, multiple: {range: 0-}}\n",
            Path::new("metadata.yaml"),
        )
        .unwrap();
        assert_eq!(m.name, "gw");
        assert_eq!(m.endpoints["istio-pilot"].role, Role::Requires);
        assert_eq!(m.endpoints["istio-pilot"].limit, Some(1));
        assert_eq!(m.endpoints["my-peer"].role, Role::Peers);
        assert_eq!(m.containers, vec!["work-load"]);
        assert_eq!(m.storage, vec!["data", "disks"]);
        assert_eq!(m.block_storage, vec!["disks"]);
        assert!(m.extra_bindings.is_empty() && m.resources.is_empty());
    }

    #[test]
    fn extra_bindings_and_resources_are_read_by_name() {
        let m = Metadata::parse(
            "name: gw\nrequires:\n  db: {interface: pg}\nextra-bindings:\n  admin:\n  public: ~\n\
             resources:\n  image: {type: oci-image}\n  conf: {type: file, filename: c.yaml}\n",
            Path::new("metadata.yaml"),
        )
        .unwrap();
        assert_eq!(m.extra_bindings, vec!["admin", "public"]);
        assert_eq!(m.resources, vec!["conf", "image"]);
        let e = Metadata::parse(
            "name: gw\nrequires:\n  db: {interface: pg}\nextra-bindings:\n  db:\n",
            Path::new("m.yaml"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.yaml: extra binding `db` has the name of a relation endpoint"
        );
    }

    #[test]
    fn metadata_errors_name_the_file() {
        let e = Metadata::parse("summary: x\n", Path::new("/c/metadata.yaml")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/c/metadata.yaml: field `name` is missing or empty"
        );
        let e = Metadata::parse(
            "name: a\nrequires:\n  db: {interface: x}\nprovides:\n  db: {interface: y}\n",
            Path::new("m.yaml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("`db` is declared more than once"));
    }

    #[test]
    fn config_types() {
        let c = ConfigSchema::parse(
            "options:\n  kind: {type: string, default: ''}\n  n: {type: int}\n",
            Path::new("config.yaml"),
        )
        .unwrap();
        assert_eq!(c.options["kind"], ConfigType::String);
        assert_eq!(c.options["n"], ConfigType::Int);
        assert_eq!(c.defaults["kind"], serde_json::json!(""));
        assert!(!c.defaults.contains_key("n"));
        let e = ConfigSchema::parse("options:\n  x: {type: list}\n", Path::new("config.yaml"))
            .unwrap_err();
        assert!(e.to_string().starts_with("config.yaml: "), "{e}");
    }
}
