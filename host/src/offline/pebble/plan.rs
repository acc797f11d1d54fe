//! Pebble's layers and the plan they combine into: each service and check
//! of a layer says `override: replace` (the entry replaces that of earlier
//! layers) or `merge` (field by field: maps merged, lists appended, other
//! values replaced). Adding a layer whose label exists needs `combine`,
//! and then combines into that layer the same way. What Pebble refuses
//! of a layer and of a plan is in [`super::plan_rules`].

use super::plan_rules;
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
    /// Kept and shown in the plan; no log is forwarded offline.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub log_targets: BTreeMap<String, Value>,
}

impl SimLayer {
    /// The layer as the rules read it.
    pub fn view(&self) -> plan_rules::LayerView<'_> {
        plan_rules::LayerView {
            label: &self.label,
            services: &self.services,
            checks: &self.checks,
            log_targets: &self.log_targets,
        }
    }
}

/// The combined plan: each service and check as its layers make it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub services: BTreeMap<String, Map<String, Value>>,
    pub checks: BTreeMap<String, Map<String, Value>>,
    pub log_targets: BTreeMap<String, Map<String, Value>>,
}

/// Pebble's default number of failures in a row that makes a check down.
pub const THRESHOLD: u32 = 3;

impl Plan {
    /// The plan as the rules read it.
    pub fn view(&self) -> plan_rules::PlanView<'_> {
        plan_rules::PlanView {
            services: &self.services,
            checks: &self.checks,
            log_targets: &self.log_targets,
        }
    }

    /// A service's `startup`: `enabled` or `disabled` (the default).
    pub fn startup(&self, service: &str) -> &str {
        self.services
            .get(service)
            .and_then(|s| s.get("startup"))
            .and_then(Value::as_str)
            .unwrap_or("disabled")
    }

    /// A check's `threshold`, Pebble's default when the plan gives none
    /// or 0 (a negative one, which Pebble takes, counts as 0: down at once).
    pub fn threshold(&self, check: &str) -> u32 {
        match self
            .checks
            .get(check)
            .and_then(|c| c.get("threshold"))
            .and_then(Value::as_i64)
        {
            None | Some(0) => THRESHOLD,
            Some(t) => u32::try_from(t.max(0)).unwrap_or(u32::MAX),
        }
    }

    /// Whether a check starts with the plan (`startup` not `disabled`).
    pub fn check_enabled(&self, check: &str) -> bool {
        self.checks
            .get(check)
            .and_then(|c| c.get("startup"))
            .and_then(Value::as_str)
            != Some("disabled")
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
        if !self.log_targets.is_empty() {
            doc.insert("log-targets".into(), section(&self.log_targets));
        }
        serde_saphyr::to_string(&Value::Object(doc)).unwrap_or_else(|_| "{}\n".into())
    }
}

/// Read a layer as `POST /v1/layers` carries it (YAML text), refused as
/// Pebble's layer parsing refuses it, in its words (the API puts
/// `cannot parse layer YAML: ` before them).
pub fn parse_layer(label: &str, text: &str) -> Result<SimLayer, String> {
    let doc: Value =
        serde_saphyr::from_str(text).map_err(|e| format!("cannot parse layer {label:?}: {e}"))?;
    let mut doc = match doc {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        _ => return Err(format!("cannot parse layer {label:?}: not a mapping")),
    };
    let section = |key: &str, into: &str| {
        format!("cannot parse layer {label:?} section {key:?}: cannot unmarshal into {into}")
    };
    let text_field = |doc: &mut Map<String, Value>, key: &str| match doc.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(section(key, "string")),
    };
    let entries = |doc: &mut Map<String, Value>, key: &str| match doc.remove(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => Ok(m.into_iter().collect()),
        Some(_) => Err(section(key, "a mapping")),
    };
    let layer = SimLayer {
        label: label.to_string(),
        summary: text_field(&mut doc, "summary")?,
        description: text_field(&mut doc, "description")?,
        services: entries(&mut doc, "services")?,
        checks: entries(&mut doc, "checks")?,
        log_targets: entries(&mut doc, "log-targets")?,
    };
    if let Some(key) = doc.keys().next() {
        return Err(format!(
            "cannot parse layer {label:?}: unknown section {key:?}"
        ));
    }
    check_layer(&layer)?;
    Ok(layer)
}

/// What Pebble checks of a layer on its own: its shape, then each entry.
pub fn check_layer(layer: &SimLayer) -> Result<(), String> {
    plan_rules::check_shape(&layer.view())?;
    plan_rules::validate_layer(&layer.view())
}

/// `entry` over `base` as its `override` says.
fn combine_entry(base: Option<&Value>, entry: &Value) -> Value {
    match base {
        Some(base) if entry.get("override").and_then(Value::as_str) == Some("merge") => {
            // As Pebble's merge: a threshold of 0 is no threshold.
            let mut entry = entry.clone();
            if let Some(m) = entry.as_object_mut()
                && m.get("threshold").and_then(Value::as_i64) == Some(0)
            {
                m.remove("threshold");
            }
            merge(base, &entry)
        }
        _ => entry.clone(),
    }
}

/// Field by field, as Pebble's `Merge` methods: maps of names (an
/// environment, headers, labels, `on-check-failure`) merged key by key,
/// lists appended, a check's `http`/`tcp`/`exec` merged the same way, and
/// other fields replaced, except by an empty string or a null, which keep
/// the old value: a merge cannot clear a field.
fn merge(base: &Value, over: &Value) -> Value {
    let (Value::Object(b), Value::Object(o)) = (base, over) else {
        return over.clone();
    };
    let mut out = b.clone();
    for (k, v) in o {
        // An empty field is Pebble's unset one: it keeps what was there.
        if v.is_null() || v.as_str() == Some("") {
            continue;
        }
        let merged = match (out.get(k), v) {
            (Some(Value::Array(old)), Value::Array(new)) => {
                Value::Array(old.iter().chain(new).cloned().collect())
            }
            (Some(old @ Value::Object(_)), Value::Object(_))
                if matches!(k.as_str(), "http" | "tcp" | "exec") =>
            {
                merge(old, v)
            }
            (Some(Value::Object(old)), Value::Object(new)) => {
                let mut keys = old.clone();
                keys.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
                Value::Object(keys)
            }
            _ => v.clone(),
        };
        out.insert(k.clone(), merged);
    }
    Value::Object(out)
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
    for (name, entry) in &layer.log_targets {
        let combined = combine_entry(base.log_targets.get(name), entry);
        base.log_targets.insert(name.clone(), combined);
    }
}

/// The plan of `layers`, in order; refused as Pebble refuses it: an
/// entry without its `override`, or a plan `Plan.Validate` refuses.
pub fn combine(layers: &[SimLayer]) -> Result<Plan, String> {
    let mut all = SimLayer::default();
    for layer in layers {
        plan_rules::check_overrides(&layer.view())?;
        combine_into(&mut all, layer);
    }
    let entries = |m: BTreeMap<String, Value>| -> BTreeMap<String, Map<String, Value>> {
        m.into_iter()
            .filter_map(|(k, v)| match v {
                Value::Object(o) => Some((k, plan_rules::normalised(o))),
                _ => None,
            })
            .collect()
    };
    let plan = Plan {
        services: entries(all.services),
        checks: entries(all.checks),
        log_targets: entries(all.log_targets),
    };
    plan_rules::validate_plan(&plan.view())?;
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
    fn an_empty_string_in_a_merge_keeps_the_field_but_not_in_an_environment() {
        let base = layer(
            "base",
            "services:\n  web:\n    override: replace\n    command: web\n    \
             user: www\n    environment: {A: '1'}\nchecks:\n  up:\n    override: replace\n    \
             period: 5s\n    http: {url: 'http://localhost/', headers: {X: y}}\n",
        );
        let over = layer(
            "over",
            "services:\n  web:\n    override: merge\n    command: ''\n    user: ''\n    \
             environment: {A: ''}\nchecks:\n  up:\n    override: merge\n    level: ''\n    \
             http: {url: '', headers: {X: ''}}\n",
        );
        let plan = combine(&[base, over]).unwrap();
        let web = &plan.services["web"];
        assert_eq!(
            (&web["command"], &web["user"]),
            (&json!("web"), &json!("www"))
        );
        // A map of names takes every key it is given, empty or not.
        assert_eq!(web["environment"], json!({"A": ""}));
        let up = &plan.checks["up"];
        assert_eq!(up["period"], "5s");
        assert_eq!(up.get("level"), None);
        assert_eq!(
            up["http"],
            json!({"url": "http://localhost/", "headers": {"X": ""}})
        );
    }

    #[test]
    fn layers_are_refused_as_pebble_refuses_them() {
        // The override is needed when the layer joins the plan.
        let no_override = layer("x", "services:\n  web: {command: w}\n");
        assert_eq!(
            combine(&[no_override]).unwrap_err(),
            "layer \"x\" must define \"override\" for service \"web\""
        );
        let e = parse_layer("x", "checks:\n  c: {override: merge, level: high}\n").unwrap_err();
        assert_eq!(e, "plan check \"c\" level must be \"alive\" or \"ready\"");
        let e = parse_layer("x", "services: [a]\n").unwrap_err();
        assert!(e.contains("section \"services\""), "{e}");
        let e = parse_layer("x", "volumes: {}\n").unwrap_err();
        assert_eq!(e, "cannot parse layer \"x\": unknown section \"volumes\"");
        assert!(parse_layer("x", "a: [\n").is_err());
        let merged_only = layer(
            "x",
            "services:\n  web: {override: merge, startup: enabled}\n",
        );
        let e = combine(&[merged_only]).unwrap_err();
        assert_eq!(e, "plan must define \"command\" for service \"web\"");
        assert_eq!(combine(&[layer("e", "")]), Ok(Plan::default()));
    }

    #[test]
    fn log_targets_are_kept_merged_and_shown() {
        let base = layer(
            "base",
            "services:\n  web: {override: replace, command: w}\nlog-targets:\n  loki:\n    \
             override: replace\n    type: loki\n    location: http://loki:3100/\n    \
             services: [web]\n",
        );
        let over = layer(
            "over",
            "log-targets:\n  loki: {override: merge, services: [-web], labels: {env: prod}}\n",
        );
        let plan = combine(&[base, over]).unwrap();
        assert_eq!(plan.log_targets["loki"]["services"], json!(["web", "-web"]));
        assert_eq!(plan.log_targets["loki"]["labels"], json!({"env": "prod"}));
        assert!(plan.yaml().contains("log-targets:"), "{}", plan.yaml());
    }

    #[test]
    fn a_threshold_of_zero_is_pebbles_default() {
        let base = layer(
            "a",
            "checks:\n  c: {override: replace, threshold: 5, tcp: {port: 80}}\n",
        );
        let zero = layer("b", "checks:\n  c: {override: merge, threshold: 0}\n");
        let plan = combine(&[base, zero]).unwrap();
        assert_eq!(plan.threshold("c"), 5);
        let only_zero = layer(
            "a",
            "checks:\n  c: {override: replace, threshold: 0, tcp: {port: 80}}\n",
        );
        assert_eq!(combine(&[only_zero]).unwrap().threshold("c"), THRESHOLD);
    }
}
