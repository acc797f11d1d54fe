//! Pebble's layers and the plan they combine into: each service and check
//! of a layer says `override: replace` (the entry replaces that of earlier
//! layers) or `merge` (field by field: maps merged, lists appended, other
//! values replaced). Adding a layer whose label exists needs `combine`,
//! and then combines into that layer the same way.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One Pebble layer: its label, and the document as Pebble reads it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimLayer {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, Value>,
}

/// The combined plan: each service and check as its layers make it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub services: BTreeMap<String, Map<String, Value>>,
    pub checks: BTreeMap<String, Map<String, Value>>,
}

/// Pebble's default number of failures in a row that makes a check down.
pub const THRESHOLD: u32 = 3;

impl Plan {
    /// A service's `startup`: `enabled` or `disabled` (the default).
    pub fn startup(&self, service: &str) -> &str {
        self.services
            .get(service)
            .and_then(|s| s.get("startup"))
            .and_then(Value::as_str)
            .unwrap_or("disabled")
    }

    /// A check's `threshold`, Pebble's default when the plan gives none.
    pub fn threshold(&self, check: &str) -> u32 {
        self.checks
            .get(check)
            .and_then(|c| c.get("threshold"))
            .and_then(Value::as_u64)
            .and_then(|t| u32::try_from(t).ok())
            .unwrap_or(THRESHOLD)
    }

    /// The plan as `GET /v1/plan?format=yaml` gives it.
    pub fn yaml(&self) -> String {
        let mut doc = Map::new();
        let section = |entries: &BTreeMap<String, Map<String, Value>>| {
            Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::Object(v.clone())))
                    .collect(),
            )
        };
        if !self.services.is_empty() {
            doc.insert("services".into(), section(&self.services));
        }
        if !self.checks.is_empty() {
            doc.insert("checks".into(), section(&self.checks));
        }
        serde_saphyr::to_string(&Value::Object(doc)).unwrap_or_else(|_| "{}\n".into())
    }
}

/// Read a layer as `POST /v1/layers` carries it (YAML text).
pub fn parse_layer(label: &str, text: &str) -> Result<SimLayer, String> {
    let doc: Value =
        serde_saphyr::from_str(text).map_err(|e| format!("cannot parse layer YAML: {e}"))?;
    let mut doc = match doc {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        _ => return Err("cannot parse layer YAML: not a mapping".to_string()),
    };
    let text_field = |doc: &mut Map<String, Value>, key: &str| match doc.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("layer \"{label}\": `{key}` is not text")),
    };
    let entries = |doc: &mut Map<String, Value>, key: &str| match doc.remove(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => Ok(m.into_iter().collect()),
        Some(_) => Err(format!("layer \"{label}\": `{key}` is not a mapping")),
    };
    let layer = SimLayer {
        label: label.to_string(),
        summary: text_field(&mut doc, "summary")?,
        description: text_field(&mut doc, "description")?,
        services: entries(&mut doc, "services")?,
        checks: entries(&mut doc, "checks")?,
    };
    if let Some(key) = doc.keys().next() {
        return Err(format!(
            "layer \"{label}\": field \"{key}\" is not simulated offline (services and checks are)"
        ));
    }
    check_layer(&layer)?;
    Ok(layer)
}

/// What Pebble checks of each entry of a layer.
pub fn check_layer(layer: &SimLayer) -> Result<(), String> {
    let label = &layer.label;
    for (kind, entries) in [("service", &layer.services), ("check", &layer.checks)] {
        for (name, entry) in entries {
            let Value::Object(m) = entry else {
                return Err(format!(
                    "layer \"{label}\": {kind} \"{name}\" is not a mapping"
                ));
            };
            if !matches!(
                m.get("override").and_then(Value::as_str),
                Some("merge" | "replace")
            ) {
                return Err(format!(
                    "layer \"{label}\" must define \"override\" for {kind} \"{name}\""
                ));
            }
            let one_of = |key: &str, allowed: &[&str]| match m.get(key) {
                None => Ok(()),
                Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(()),
                Some(v) => Err(format!(
                    "layer \"{label}\": {kind} \"{name}\" has invalid \"{key}\" value {v}"
                )),
            };
            one_of("startup", &["enabled", "disabled"])?;
            if kind == "check" {
                one_of("level", &["alive", "ready"])?;
                if let Some(t) = m.get("threshold")
                    && !t
                        .as_u64()
                        .is_some_and(|t| t >= 1 && t <= u64::from(u32::MAX))
                {
                    return Err(format!(
                        "layer \"{label}\": check \"{name}\" threshold must be at least 1"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `entry` over `base` as its `override` says.
fn combine_entry(base: Option<&Value>, entry: &Value) -> Value {
    match base {
        Some(base) if entry.get("override").and_then(Value::as_str) == Some("merge") => {
            merge(base, entry)
        }
        _ => entry.clone(),
    }
}

/// Field by field: maps merged, lists appended, other values replaced.
fn merge(base: &Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            let mut out = b.clone();
            for (k, v) in o {
                let merged = match out.get(k) {
                    Some(old) => merge(old, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Array(b), Value::Array(o)) => Value::Array(b.iter().chain(o).cloned().collect()),
        (_, o) => o.clone(),
    }
}

/// Combine `layer` into `base`, as adding it with `combine` to a layer of
/// the same label does.
pub fn combine_into(base: &mut SimLayer, layer: &SimLayer) {
    if layer.summary.is_some() {
        base.summary.clone_from(&layer.summary);
    }
    if layer.description.is_some() {
        base.description.clone_from(&layer.description);
    }
    for (name, entry) in &layer.services {
        let combined = combine_entry(base.services.get(name), entry);
        base.services.insert(name.clone(), combined);
    }
    for (name, entry) in &layer.checks {
        let combined = combine_entry(base.checks.get(name), entry);
        base.checks.insert(name.clone(), combined);
    }
}

/// The plan of `layers`, in order; refused as Pebble refuses it when a
/// service would have no command.
pub fn combine(layers: &[SimLayer]) -> Result<Plan, String> {
    let mut all = SimLayer::default();
    for layer in layers {
        combine_into(&mut all, layer);
    }
    let entries = |m: BTreeMap<String, Value>| -> BTreeMap<String, Map<String, Value>> {
        m.into_iter()
            .filter_map(|(k, v)| match v {
                Value::Object(o) => Some((k, o)),
                _ => None,
            })
            .collect()
    };
    let plan = Plan {
        services: entries(all.services),
        checks: entries(all.checks),
    };
    for (name, service) in &plan.services {
        let command = service.get("command").and_then(Value::as_str);
        if command.is_none_or(|c| c.trim().is_empty()) {
            return Err(format!(
                "plan must define \"command\" for service \"{name}\""
            ));
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn layer(label: &str, text: &str) -> SimLayer {
        parse_layer(label, text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn replace_replaces_and_merge_merges_field_by_field() {
        let base = layer(
            "base",
            "summary: s\nservices:\n  web:\n    override: replace\n    command: web --a\n    \
             startup: enabled\n    environment: {A: '1'}\n    after: [db]\n  db:\n    \
             override: replace\n    command: db\nchecks:\n  alive:\n    override: replace\n    \
             threshold: 5\n    http: {url: 'http://localhost/'}\n",
        );
        let over = layer(
            "over",
            "services:\n  web:\n    override: merge\n    environment: {B: '2'}\n    \
             after: [cache]\n  db:\n    override: replace\n    command: db2\n",
        );
        let plan = combine(&[base.clone(), over]).unwrap();
        let web = &plan.services["web"];
        assert_eq!(web["command"], "web --a");
        assert_eq!(web["environment"], json!({"A": "1", "B": "2"}));
        assert_eq!(web["after"], json!(["db", "cache"]));
        assert_eq!(plan.services["db"].get("startup"), None);
        assert_eq!(plan.services["db"]["command"], "db2");
        assert_eq!(
            (plan.startup("web"), plan.startup("db")),
            ("enabled", "disabled")
        );
        assert_eq!(
            (plan.threshold("alive"), plan.threshold("x")),
            (5, THRESHOLD)
        );
        let yaml = plan.yaml();
        assert!(
            yaml.contains("services:") && yaml.contains("web --a"),
            "{yaml}"
        );
        assert_eq!(Plan::default().yaml().trim(), "{}");
        // Combining into a label: the same rules, inside the one layer.
        let mut one = base;
        combine_into(
            &mut one,
            &layer(
                "base",
                "services:\n  web:\n    override: merge\n    command: web --b\n",
            ),
        );
        assert_eq!(one.services["web"]["command"], "web --b");
        assert_eq!(one.services["web"]["startup"], "enabled");
    }

    #[test]
    fn layers_are_refused_as_pebble_refuses_them() {
        let e = parse_layer("x", "services:\n  web: {command: w}\n").unwrap_err();
        assert_eq!(
            e,
            "layer \"x\" must define \"override\" for service \"web\""
        );
        let e = parse_layer("x", "checks:\n  c: {override: merge, level: high}\n").unwrap_err();
        assert!(e.contains("\"level\""), "{e}");
        let e = parse_layer("x", "services: [a]\n").unwrap_err();
        assert!(e.contains("not a mapping"), "{e}");
        let e = parse_layer("x", "log-targets: {}\n").unwrap_err();
        assert!(e.contains("log-targets"), "{e}");
        assert!(parse_layer("x", "a: [\n").is_err());
        let merged_only = layer(
            "x",
            "services:\n  web: {override: merge, startup: enabled}\n",
        );
        let e = combine(&[merged_only]).unwrap_err();
        assert_eq!(e, "plan must define \"command\" for service \"web\"");
        assert_eq!(combine(&[layer("e", "")]), Ok(Plan::default()));
    }
}
