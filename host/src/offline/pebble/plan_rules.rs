//! What Pebble refuses in a layer and in a plan, in its words
//! (`internals/plan`: the layer's decoding with known fields only,
//! `Layer.Validate`, `CombineLayers`' override rule and `Plan.Validate`).
//! Not simulated: user and group names looked up in the container (an
//! exec check's `user`/`group` are taken as given), and yaml's line
//! numbers in a decoding error.

use super::words;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A layer's entries by section, as the rules read them.
pub struct LayerView<'a> {
    pub label: &'a str,
    pub services: &'a BTreeMap<String, Value>,
    pub checks: &'a BTreeMap<String, Value>,
    pub log_targets: &'a BTreeMap<String, Value>,
}

/// A plan's entries by section.
pub struct PlanView<'a> {
    pub services: &'a BTreeMap<String, Map<String, Value>>,
    pub checks: &'a BTreeMap<String, Map<String, Value>>,
    pub log_targets: &'a BTreeMap<String, Map<String, Value>>,
}

/// What a field of a section holds.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Texts,
    TextMap,
    Int,
    Duration,
    Float,
    /// A mapping of its own fields, named as Pebble's Go type.
    Fields(&'static str, &'static [(&'static str, Kind)]),
}

const SERVICE: Kind = Kind::Fields(
    "plan.Service",
    &[
        ("summary", Kind::Text),
        ("description", Kind::Text),
        ("startup", Kind::Text),
        ("override", Kind::Text),
        ("command", Kind::Text),
        ("after", Kind::Texts),
        ("before", Kind::Texts),
        ("requires", Kind::Texts),
        ("workload", Kind::Text),
        ("environment", Kind::TextMap),
        ("user-id", Kind::Int),
        ("user", Kind::Text),
        ("group-id", Kind::Int),
        ("group", Kind::Text),
        ("working-dir", Kind::Text),
        ("on-success", Kind::Text),
        ("on-failure", Kind::Text),
        ("on-check-failure", Kind::TextMap),
        ("backoff-delay", Kind::Duration),
        ("backoff-factor", Kind::Float),
        ("backoff-limit", Kind::Duration),
        ("kill-delay", Kind::Duration),
    ],
);

const CHECK: Kind = Kind::Fields(
    "plan.Check",
    &[
        ("override", Kind::Text),
        ("level", Kind::Text),
        ("startup", Kind::Text),
        ("period", Kind::Duration),
        ("timeout", Kind::Duration),
        ("threshold", Kind::Int),
        (
            "http",
            Kind::Fields(
                "plan.HTTPCheck",
                &[("url", Kind::Text), ("headers", Kind::TextMap)],
            ),
        ),
        (
            "tcp",
            Kind::Fields(
                "plan.TCPCheck",
                &[("port", Kind::Int), ("host", Kind::Text)],
            ),
        ),
        (
            "exec",
            Kind::Fields(
                "plan.ExecCheck",
                &[
                    ("command", Kind::Text),
                    ("service-context", Kind::Text),
                    ("environment", Kind::TextMap),
                    ("user-id", Kind::Int),
                    ("user", Kind::Text),
                    ("group-id", Kind::Int),
                    ("group", Kind::Text),
                    ("working-dir", Kind::Text),
                ],
            ),
        ),
    ],
);

const LOG_TARGET: Kind = Kind::Fields(
    "plan.LogTarget",
    &[
        ("type", Kind::Text),
        ("location", Kind::Text),
        ("services", Kind::Texts),
        ("override", Kind::Text),
        ("labels", Kind::TextMap),
    ],
);

/// A scalar as the text yaml would decode into a string field.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// yaml's words for a value that does not decode into `into`.
fn cannot(value: &Value, into: &str) -> String {
    let (tag, text) = match value {
        Value::String(s) => ("!!str", s.clone()),
        Value::Number(n) if n.is_f64() => ("!!float", n.to_string()),
        Value::Number(n) => ("!!int", n.to_string()),
        Value::Bool(b) => ("!!bool", b.to_string()),
        Value::Array(_) => ("!!seq", String::new()),
        Value::Object(_) => ("!!map", String::new()),
        Value::Null => ("!!null", String::new()),
    };
    if text.is_empty() {
        format!("cannot unmarshal {tag} into {into}")
    } else {
        format!("cannot unmarshal {tag} `{text}` into {into}")
    }
}

/// Whether each of `items` decodes into a string.
fn texts_in<'a>(items: impl IntoIterator<Item = &'a Value>) -> Result<(), String> {
    match items.into_iter().find(|v| scalar_text(v).is_none()) {
        Some(v) => Err(cannot(v, "string")),
        None => Ok(()),
    }
}

/// Whether `value` decodes as `kind`; `Err`: yaml's or Pebble's words.
fn decodes(value: &Value, kind: Kind) -> Result<(), String> {
    if value.is_null() {
        return Ok(());
    }
    match kind {
        Kind::Text => scalar_text(value)
            .map(|_| ())
            .ok_or_else(|| cannot(value, "string")),
        Kind::Texts => match value {
            Value::Array(items) => texts_in(items),
            other => Err(cannot(other, "[]string")),
        },
        Kind::TextMap => match value {
            Value::Object(m) => texts_in(m.values()),
            other => Err(cannot(other, "map[string]string")),
        },
        Kind::Int => match value.as_i64() {
            Some(_) => Ok(()),
            None => Err(cannot(value, "int")),
        },
        Kind::Duration => match scalar_text(value) {
            None => Err("duration must be a YAML string".into()),
            Some(t) => go_duration(&t)
                .map(|_| ())
                .ok_or_else(|| format!("invalid duration {t:?}")),
        },
        Kind::Float => match scalar_text(value) {
            None => Err("value must be a YAML number".into()),
            Some(t) => t
                .parse::<f64>()
                .map(|_| ())
                .map_err(|_| format!("invalid floating-point number {t:?}")),
        },
        Kind::Fields(go_type, fields) => {
            let Value::Object(m) = value else {
                return Err(cannot(value, go_type));
            };
            for (key, v) in m {
                let Some((_, kind)) = fields.iter().find(|(k, _)| k == key) else {
                    return Err(format!("field {key} not found in type {go_type}"));
                };
                decodes(v, *kind)?;
            }
            Ok(())
        }
    }
}

/// A Go duration (`1m30s`, `-2s`, `0`) in nanoseconds.
pub fn go_duration(text: &str) -> Option<i128> {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, text.strip_prefix('+').unwrap_or(text)),
    };
    let ms = crate::pebble::notices::go_duration_ms(rest)?;
    // Below a millisecond still counts as set and non-zero.
    let nonzero = rest != "0" && rest.chars().any(|c| c.is_ascii_digit() && c != '0');
    Some(sign * i128::from(ms).max(i128::from(nonzero)))
}

/// Each section of `layer` as Pebble decodes it: known fields only, each
/// of its type. The error is Pebble's, naming the layer and section.
pub fn check_shape(layer: &LayerView) -> Result<(), String> {
    let label = layer.label;
    for (section, entries, kind) in [
        ("services", layer.services, SERVICE),
        ("checks", layer.checks, CHECK),
        ("log-targets", layer.log_targets, LOG_TARGET),
    ] {
        for entry in entries.values() {
            decodes(entry, kind)
                .map_err(|e| format!("cannot parse layer {label:?} section {section:?}: {e}"))?;
        }
    }
    Ok(())
}

fn text<'a>(entry: &'a Map<String, Value>, key: &str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The integer at `key`, 0 when unset (as Go's zero value).
fn int(entry: &Map<String, Value>, key: &str) -> i64 {
    entry.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn object(value: &Value) -> Option<&Map<String, Value>> {
    value.as_object()
}

/// Pebble's reading of a service command, `[ ... ]` default arguments
/// included; the error in its words.
fn parse_command(name: &str, command: &str) -> Result<(), String> {
    let args = words::split(command)
        .map_err(|e| format!("cannot parse service {name:?} command: {}", e.go_words()))?;
    let (mut inside, mut had) = (false, false);
    let bad = |why: &str| Err(format!("cannot parse service {name:?} command: {why}"));
    for (i, arg) in args.iter().enumerate() {
        if inside {
            match arg.as_str() {
                "[" => return bad("cannot nest [ ... ] groups"),
                "]" => inside = false,
                _ => {}
            }
            continue;
        }
        if had {
            return bad("cannot have any arguments after [ ... ] group");
        }
        match arg.as_str() {
            "[" if i == 0 => return bad("cannot start command with [ ... ] group"),
            "[" => (inside, had) = (true, true),
            "]" => return bad("cannot have ] outside of [ ... ] group"),
            _ => {}
        }
    }
    Ok(())
}

/// Whether `action` is one of Pebble's service actions, or `extra`.
fn valid_action(action: &str, extra: &str) -> bool {
    matches!(action, "" | "restart" | "shutdown" | "ignore") || action == extra
}

fn validate_service(name: &str, entry: &Value) -> Result<(), String> {
    if name.is_empty() {
        return Err("cannot use empty string as service name".into());
    }
    if name == "pebble" {
        return Err(format!("cannot use reserved service name {name:?}"));
    }
    if name.starts_with('-') {
        return Err(format!(
            "cannot use service name {name:?}: starting with \"-\" not allowed"
        ));
    }
    let Some(s) = object(entry) else {
        return Err(format!(
            "service object cannot be null for service {name:?}"
        ));
    };
    parse_command(name, text(s, "command"))
        .map_err(|e| format!("plan service {name:?} command invalid: {e}"))?;
    let on_success = text(s, "on-success");
    if !valid_action(on_success, "failure-shutdown") {
        return Err(format!(
            "plan service {name:?} on-success action {on_success:?} invalid"
        ));
    }
    let on_failure = text(s, "on-failure");
    if !valid_action(on_failure, "success-shutdown") {
        return Err(format!(
            "plan service {name:?} on-failure action {on_failure:?} invalid"
        ));
    }
    if let Some(Value::Object(m)) = s.get("on-check-failure") {
        for action in m.values().filter_map(Value::as_str) {
            if !valid_action(action, "success-shutdown") {
                return Err(format!(
                    "plan service {name:?} on-check-failure action {action:?} invalid"
                ));
            }
        }
    }
    if let Some(factor) = s.get("backoff-factor").and_then(scalar_text)
        && let Ok(f) = factor.parse::<f64>()
        && f < 1.0
    {
        return Err(format!(
            "plan service {name:?} backoff-factor must be 1.0 or greater, not {f}"
        ));
    }
    Ok(())
}

fn validate_check(name: &str, entry: &Value) -> Result<(), String> {
    if name.is_empty() {
        return Err("cannot use empty string as check name".into());
    }
    let Some(c) = object(entry) else {
        return Err(format!("check object cannot be null for check {name:?}"));
    };
    if !matches!(text(c, "level"), "" | "alive" | "ready") {
        return Err(format!(
            "plan check {name:?} level must be \"alive\" or \"ready\""
        ));
    }
    if !matches!(text(c, "startup"), "" | "enabled" | "disabled") {
        return Err(format!(
            "plan check {name:?} startup must be \"enabled\" or \"disabled\""
        ));
    }
    for key in ["period", "timeout"] {
        if c.get(key)
            .and_then(scalar_text)
            .and_then(|t| go_duration(&t))
            == Some(0)
        {
            return Err(format!("plan check {name:?} {key} must not be zero"));
        }
    }
    if let Some(exec) = c.get("exec").and_then(object) {
        words::split(text(exec, "command"))
            .map_err(|e| format!("plan check {name:?} command invalid: {}", e.go_words()))?;
        let user = exec.contains_key("user-id") || !text(exec, "user").is_empty();
        let group = exec.contains_key("group-id") || !text(exec, "group").is_empty();
        if group && !user {
            return Err(format!(
                "plan check {name:?} has invalid user/group: must specify user, not just group"
            ));
        }
    }
    Ok(())
}

const LOG_TYPES: [&str; 3] = ["loki", "opentelemetry", "syslog"];

fn validate_log_target(name: &str, entry: &Value) -> Result<(), String> {
    let Some(t) = object(entry) else {
        return Err(format!(
            "log target object cannot be null for log target {name:?}"
        ));
    };
    if let Some(Value::Object(labels)) = t.get("labels")
        && let Some(label) = labels.keys().find(|l| l.starts_with("pebble_"))
    {
        return Err(format!(
            "log target {name:?}: label {label:?} uses reserved prefix \"pebble_\""
        ));
    }
    let kind = text(t, "type");
    if !kind.is_empty() && !LOG_TYPES.contains(&kind) {
        return Err(format!(
            "log target {name:?} has unsupported type {kind:?}, must be \"loki\", \
             \"opentelemetry\" or \"syslog\""
        ));
    }
    Ok(())
}

/// Pebble's `Layer.Validate`: each entry on its own.
pub fn validate_layer(layer: &LayerView) -> Result<(), String> {
    if layer.label.starts_with("pebble-") {
        return Err("cannot use reserved label prefix \"pebble-\"".into());
    }
    for (name, entry) in layer.services {
        validate_service(name, entry)?;
    }
    for (name, entry) in layer.checks {
        validate_check(name, entry)?;
    }
    for (name, entry) in layer.log_targets {
        validate_log_target(name, entry)?;
    }
    Ok(())
}

/// Pebble's `CombineLayers` rule: every entry says how it combines.
pub fn check_overrides(layer: &LayerView) -> Result<(), String> {
    let label = layer.label;
    for (kind, entries) in [
        ("service", layer.services),
        ("check", layer.checks),
        ("log target", layer.log_targets),
    ] {
        for (name, entry) in entries {
            match entry.get("override").and_then(Value::as_str).unwrap_or("") {
                "merge" | "replace" => {}
                "" => {
                    return Err(format!(
                        "layer {label:?} must define \"override\" for {kind} {name:?}"
                    ));
                }
                _ => {
                    return Err(format!(
                        "layer {label:?} has invalid \"override\" value for {kind} {name:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn validate_plan_check(plan: &PlanView, name: &str, c: &Map<String, Value>) -> Result<(), String> {
    let mut kinds = 0;
    if let Some(http) = c.get("http").and_then(object) {
        if text(http, "url").is_empty() {
            return Err(format!("plan must set \"url\" for http check {name:?}"));
        }
        kinds += 1;
    }
    if let Some(tcp) = c.get("tcp").and_then(object) {
        if int(tcp, "port") == 0 {
            return Err(format!("plan must set \"port\" for tcp check {name:?}"));
        }
        kinds += 1;
    }
    if let Some(exec) = c.get("exec").and_then(object) {
        if text(exec, "command").is_empty() {
            return Err(format!("plan must set \"command\" for exec check {name:?}"));
        }
        let context = text(exec, "service-context");
        if !context.is_empty() && !plan.services.contains_key(context) {
            return Err(format!(
                "plan check {name:?} service context specifies non-existent service {context:?}"
            ));
        }
        kinds += 1;
    }
    if kinds != 1 {
        return Err(format!(
            "plan must specify one of \"http\", \"tcp\", or \"exec\" for check {name:?}"
        ));
    }
    Ok(())
}

fn validate_plan_log_target(
    plan: &PlanView,
    name: &str,
    t: &Map<String, Value>,
) -> Result<(), String> {
    if text(t, "type").is_empty() {
        return Err(format!(
            "plan must define \"type\" (\"loki\", \"opentelemetry\" or \"syslog\") for log \
             target {name:?}"
        ));
    }
    let services = t.get("services").and_then(Value::as_array);
    for service in services.into_iter().flatten().filter_map(Value::as_str) {
        let service = service.strip_prefix('-').unwrap_or(service);
        if service != "all" && !plan.services.contains_key(service) {
            return Err(format!(
                "log target {name:?} specifies unknown service {service:?}"
            ));
        }
    }
    if text(t, "location").is_empty() {
        return Err(format!(
            "plan must define \"location\" for log target {name:?}"
        ));
    }
    Ok(())
}

/// Pebble's `Plan.Validate`: what the layers make together.
pub fn validate_plan(plan: &PlanView) -> Result<(), String> {
    for (name, service) in plan.services {
        if text(service, "command").is_empty() {
            return Err(format!("plan must define \"command\" for service {name:?}"));
        }
    }
    for (name, check) in plan.checks {
        validate_plan_check(plan, name, check)?;
    }
    for (name, target) in plan.log_targets {
        validate_plan_log_target(plan, name, target)?;
    }
    check_order(plan)
}

fn names(service: &Map<String, Value>, key: &str) -> Vec<String> {
    service
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// Every service `requires` exists, and `before`/`after` make no loop.
fn check_order(plan: &PlanView) -> Result<(), String> {
    let mut after: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (name, service) in plan.services {
        if let Some(missing) = names(service, "requires")
            .into_iter()
            .find(|r| !plan.services.contains_key(r))
        {
            return Err(format!("service {missing:?} does not exist"));
        }
        let own = after.entry(name).or_default();
        own.extend(
            names(service, "after")
                .into_iter()
                .filter(|a| plan.services.contains_key(a)),
        );
        for before in names(service, "before") {
            if let Some((key, _)) = plan.services.get_key_value(&before) {
                after.entry(key).or_default().insert(name.clone());
            }
        }
    }
    match first_loop(&after) {
        Some(looped) => Err(format!(
            "services in before/after loop: {}",
            looped.join(", ")
        )),
        None => Ok(()),
    }
}

/// Where `edges` can go from `start`, `start` itself only by a way back.
fn reachable<'a>(edges: &'a BTreeMap<&str, BTreeSet<String>>, start: &str) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = edges
        .get(start)
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    while let Some(next) = todo.pop() {
        if let Some((key, targets)) = edges.get_key_value(next)
            && seen.insert(*key)
        {
            todo.extend(targets.iter().map(String::as_str));
        }
    }
    seen
}

/// The first set of services (by name) each of which must come after
/// another of the set: Pebble's loop, a single service after itself not
/// being one.
fn first_loop(edges: &BTreeMap<&str, BTreeSet<String>>) -> Option<Vec<String>> {
    let reach: BTreeMap<&str, BTreeSet<&str>> =
        edges.keys().map(|k| (*k, reachable(edges, k))).collect();
    edges.keys().find_map(|name| {
        let looped: Vec<String> = reach[name]
            .iter()
            .filter(|other| *other != name && reach[*other].contains(name))
            .map(|s| s.to_string())
            .collect();
        (!looped.is_empty()).then(|| {
            let mut all = looped;
            all.push(name.to_string());
            all.sort();
            all
        })
    })
}

/// Fields yaml decodes into strings, whatever scalar they were written as.
const TEXT_FIELDS: [&str; 17] = [
    "summary",
    "description",
    "startup",
    "override",
    "command",
    "workload",
    "user",
    "group",
    "working-dir",
    "on-success",
    "on-failure",
    "level",
    "url",
    "host",
    "service-context",
    "type",
    "location",
];

/// An entry as Pebble holds it once decoded: a scalar written into a
/// string field (`command: 5`) is that text.
pub fn normalised(mut entry: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in &mut entry {
        match value {
            Value::Object(m) if matches!(key.as_str(), "http" | "tcp" | "exec") => {
                *value = Value::Object(normalised(std::mem::take(m)));
            }
            Value::Object(m) => {
                for v in m.values_mut() {
                    if let Some(t) = scalar_text(v) {
                        *v = Value::String(t);
                    }
                }
            }
            Value::Number(_) | Value::Bool(_) if TEXT_FIELDS.contains(&key.as_str()) => {
                if let Some(t) = scalar_text(value) {
                    *value = Value::String(t);
                }
            }
            _ => {}
        }
    }
    entry
}

#[cfg(test)]
#[path = "plan_rules_tests.rs"]
mod tests;
