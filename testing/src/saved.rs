//! What an outcome reads of the state `wasm-charm` saved: the parts of the
//! state file (docs/offline-state.md) a test asks about, typed; every
//! other key is left to the document itself.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Pebble's words for a service's `current`.
pub(crate) const PEBBLE_CURRENT: [&str; 4] = ["active", "inactive", "backoff", "error"];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub(crate) struct Saved {
    pub status: Statuses,
    pub application_version: Option<String>,
    pub log: Vec<String>,
    pub calls: Vec<String>,
    pub action_results: BTreeMap<String, String>,
    pub action_failed: Option<String>,
    pub reboot: Option<String>,
    pub relations: BTreeMap<String, Relation>,
    pub secrets: BTreeMap<String, Secret>,
    pub opened_ports: BTreeMap<String, Value>,
    pub storage: BTreeMap<String, Value>,
    pub containers: BTreeMap<String, Container>,
    pub machine: Machine,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Statuses {
    pub unit: Option<Written>,
    pub app: Option<Written>,
}

/// A status as `status-set` wrote it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Written {
    pub status: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub(crate) struct Relation {
    pub app: String,
    pub units: Vec<String>,
    pub app_data: BTreeMap<String, String>,
    pub unit_data: BTreeMap<String, BTreeMap<String, String>>,
    pub local_app_data: BTreeMap<String, String>,
    pub local_unit_data: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Secret {
    pub owner: String,
    pub label: Option<String>,
    pub description: Option<String>,
    pub revisions: Vec<Revision>,
    pub grants: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Revision {
    pub revision: u32,
    pub content: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub(crate) struct Container {
    pub can_connect: bool,
    pub calls: Vec<String>,
    pub services: BTreeMap<String, String>,
    /// Path → text, or `{content|hex, permissions, owner}`.
    pub files: BTreeMap<String, Value>,
    pub layers: Vec<Layer>,
}

impl Default for Container {
    fn default() -> Container {
        Container {
            // A container is reachable unless the state says otherwise.
            can_connect: true,
            calls: Vec::new(),
            services: BTreeMap::new(),
            files: BTreeMap::new(),
            layers: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Layer {
    pub label: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Machine {
    pub services: BTreeMap<String, Service>,
    pub packages: Vec<String>,
    pub calls: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub(crate) struct Service {
    pub active: String,
    pub enabled: String,
}

impl Default for Service {
    fn default() -> Service {
        Service {
            active: "inactive".into(),
            enabled: "disabled".into(),
        }
    }
}

/// A container file's text, as the state file holds it: text, or
/// `{content}` text, or `{hex}` bytes; `None` when not UTF-8.
pub(crate) fn file_text(file: &Value) -> Option<String> {
    match file {
        Value::String(text) => Some(text.clone()),
        Value::Object(map) => match (map.get("content"), map.get("hex")) {
            (Some(Value::String(text)), _) => Some(text.clone()),
            (_, Some(Value::String(hex))) => String::from_utf8(unhex(hex)?).ok(),
            _ => None,
        },
        _ => None,
    }
}

fn unhex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn container_files_are_read_in_each_form() {
        assert_eq!(file_text(&json!("a")).as_deref(), Some("a"));
        assert_eq!(
            file_text(&json!({"content": "b", "permissions": "600"})).as_deref(),
            Some("b")
        );
        assert_eq!(file_text(&json!({"hex": "6869"})).as_deref(), Some("hi"));
        assert_eq!(file_text(&json!({"hex": "ff"})), None);
        assert_eq!(file_text(&json!({"hex": "6"})), None);
    }

    #[test]
    fn defaults_are_the_state_files() {
        let saved: Saved = serde_json::from_value(json!({
            "containers": {"web": {}}, "machine": {"services": {"api": {"active": "active"}}},
            "scopes": {"format": 1}, "leader": true,
        }))
        .unwrap();
        assert!(saved.containers["web"].can_connect);
        let api = &saved.machine.services["api"];
        assert_eq!(
            (api.active.as_str(), api.enabled.as_str()),
            ("active", "disabled")
        );
    }
}
