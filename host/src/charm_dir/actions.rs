//! actions.yaml: the action names, and each action's parameter schema as far
//! as the host checks it (reference juju-protocol.md §2.12).
//!
//! An action's entry is a JSON Schema object (as YAML) with Juju's keys
//! beside it: `description`, `params` (parameter name → its schema),
//! `required`, `additionalProperties`, `parallel`, `execution-group`. Juju
//! validates the parameters against the whole schema before it runs the
//! action; the host checks what a charm's code relies on when it
//! deserialises them: each declared parameter's `type`, the required ones,
//! the undeclared ones when `additionalProperties: false`, and fills in a
//! declared `default` Juju did not give (Juju fills them in too). Other
//! JSON Schema keywords (`minimum`, `enum`, `items`, …) are Juju's to check
//! (offline, the simulated Juju's: `offline::action_schema`), so the entry
//! is kept whole. As in Juju, `additionalProperties` is `false` unless the
//! entry says otherwise.

use super::{CharmFileError, parse_yaml};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// actions.yaml: the action names and their parameter schemas.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actions {
    pub names: Vec<String>,
    /// Each declared action's parameters, by action name.
    pub params: BTreeMap<String, ParamsSchema>,
}

/// A JSON Schema type a parameter may be declared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Null,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
            ParamType::Object => "object",
            ParamType::Null => "null",
        }
    }

    /// Whether `value` is of this type, as JSON Schema says: an integer is
    /// a number without a fractional part (`3.0` is one).
    pub fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (ParamType::String, Value::String(_))
            | (ParamType::Number, Value::Number(_))
            | (ParamType::Boolean, Value::Bool(_))
            | (ParamType::Array, Value::Array(_))
            | (ParamType::Object, Value::Object(_))
            | (ParamType::Null, Value::Null) => true,
            (ParamType::Integer, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|x| x.fract() == 0.0)
            }
            _ => false,
        }
    }
}

/// The JSON type of a value, for a message.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One declared parameter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamSpec {
    /// The types it may have; empty when the schema gives none (any value).
    pub types: Vec<ParamType>,
    pub default: Option<Value>,
}

/// What the host checks of one action's parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamsSchema {
    pub params: BTreeMap<String, ParamSpec>,
    pub required: Vec<String>,
    /// Whether parameters the schema does not declare are allowed: Juju
    /// says no unless the entry says yes.
    pub additional: bool,
    /// The actions.yaml entry as written, for a whole JSON Schema check.
    pub entry: Option<Value>,
}

impl Default for ParamsSchema {
    fn default() -> Self {
        ParamsSchema {
            params: BTreeMap::new(),
            required: Vec::new(),
            additional: true,
            entry: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawAction {
    #[serde(default)]
    params: Option<BTreeMap<String, RawParam>>,
    #[serde(default)]
    required: Option<Vec<String>>,
    #[serde(default)]
    additional_properties: Option<bool>,
}

#[derive(Deserialize, Default)]
struct RawParam {
    #[serde(rename = "type", default)]
    kind: Option<RawType>,
    #[serde(default)]
    default: Option<Value>,
}

/// `type: string` or `type: [string, "null"]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawType {
    One(ParamType),
    Many(Vec<ParamType>),
}

impl Actions {
    pub fn parse(text: &str, file: &Path) -> Result<Actions, CharmFileError> {
        let raw: BTreeMap<String, Option<Value>> = parse_yaml(text, file)?;
        let mut actions = Actions::default();
        for (name, entry) in raw {
            let schema = match entry {
                // Declared without a schema: no parameters, as in Juju.
                None => ParamsSchema {
                    additional: false,
                    ..ParamsSchema::default()
                },
                Some(entry) => ParamsSchema::parse(entry)
                    .map_err(|why| CharmFileError::new(file, format!("action `{name}`: {why}")))?,
            };
            actions.names.push(name.clone());
            actions.params.insert(name, schema);
        }
        Ok(actions)
    }

    /// The parameter schema of action `name`; the empty one (anything goes)
    /// for an action this file does not declare.
    pub fn schema(&self, name: &str) -> ParamsSchema {
        self.params.get(name).cloned().unwrap_or_default()
    }
}

impl ParamsSchema {
    fn parse(entry: Value) -> Result<ParamsSchema, String> {
        if !entry.is_object() {
            return Err(format!(
                "expected a map (description, params, …), got {}",
                json_type(&entry)
            ));
        }
        let raw: RawAction = serde_json::from_value(entry.clone()).map_err(|e| e.to_string())?;
        let mut params = BTreeMap::new();
        for (param, spec) in raw.params.unwrap_or_default() {
            let types = match spec.kind {
                None => Vec::new(),
                Some(RawType::One(t)) => vec![t],
                Some(RawType::Many(ts)) => ts,
            };
            if let Some(d) = &spec.default
                && !types.is_empty()
                && !types.iter().any(|t| t.admits(d))
            {
                return Err(format!(
                    "parameter `{param}`: its default {d} is not {}",
                    type_list(&types)
                ));
            }
            params.insert(
                param,
                ParamSpec {
                    types,
                    default: spec.default,
                },
            );
        }
        Ok(ParamsSchema {
            params,
            required: raw.required.unwrap_or_default(),
            additional: raw.additional_properties.unwrap_or(false),
            entry: Some(entry),
        })
    }

    /// Check `given` (what `action-get` answered) against the schema and
    /// fill in the defaults of the parameters it lacks. `Err` names the
    /// parameter and what is wrong with it.
    pub fn check(&self, given: Value) -> Result<Map<String, Value>, String> {
        let mut given = match given {
            Value::Object(map) => map,
            // Juju prints `{}` for an action without parameters; `null`
            // (a fake, an older Juju) means the same.
            Value::Null => Map::new(),
            other => {
                return Err(format!(
                    "the parameters are {}, not a map of names to values",
                    json_type(&other)
                ));
            }
        };
        for (name, value) in &given {
            match self.params.get(name) {
                Some(spec)
                    if !spec.types.is_empty() && !spec.types.iter().any(|t| t.admits(value)) =>
                {
                    return Err(format!(
                        "parameter `{name}` is {} ({}), but actions.yaml declares it {}",
                        json_type(value),
                        shown(value),
                        type_list(&spec.types)
                    ));
                }
                Some(_) => {}
                None if !self.additional => {
                    return Err(format!(
                        "parameter `{name}` is not declared in actions.yaml, which allows no others (additionalProperties: false)"
                    ));
                }
                None => {}
            }
        }
        for (name, spec) in &self.params {
            if let Some(default) = &spec.default
                && !given.contains_key(name)
            {
                given.insert(name.clone(), default.clone());
            }
        }
        if let Some(missing) = self.required.iter().find(|r| !given.contains_key(*r)) {
            return Err(format!(
                "parameter `{missing}` is required (actions.yaml) and was not given"
            ));
        }
        Ok(given)
    }
}

/// `string`, or `string or null`.
fn type_list(types: &[ParamType]) -> String {
    types
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A value for a message: whole when short, else its head.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 60 {
        return text;
    }
    format!("{}…", &text[..text.floor_char_boundary(60)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const YAML: &str = "\
backup:
  description: Back up the databases.
  params:
    target: {type: string, description: Where to.}
    compress: {type: boolean, default: true}
    level: {type: integer, default: 6}
    ratio: {type: number}
    databases: {type: array, items: {type: string}}
    options: {type: object}
    note: {type: [string, 'null']}
    anything: {description: Untyped.}
  required: [target]
  additionalProperties: false
show-status:
  description: Built in.
bare:
";

    fn backup() -> ParamsSchema {
        Actions::parse(YAML, Path::new("actions.yaml"))
            .unwrap()
            .schema("backup")
    }

    #[test]
    fn names_and_schemas() {
        let a = Actions::parse(YAML, Path::new("actions.yaml")).unwrap();
        assert_eq!(a.names, vec!["backup", "bare", "show-status"]);
        let b = &a.params["backup"];
        assert_eq!(b.params["target"].types, vec![ParamType::String]);
        assert_eq!(b.params["compress"].default, Some(json!(true)));
        assert_eq!(
            b.params["note"].types,
            vec![ParamType::String, ParamType::Null]
        );
        assert!(b.params["anything"].types.is_empty());
        assert_eq!(b.required, vec!["target"]);
        assert!(!b.additional);
        assert!(!a.params["bare"].additional);
        // Juju allows no undeclared parameter unless the entry says so.
        assert!(!a.params["show-status"].additional);
        assert_eq!(a.schema("undeclared"), ParamsSchema::default());
    }

    #[test]
    fn defaults_are_filled_and_types_kept() {
        let p = backup()
            .check(json!({"target": "/srv", "level": 9, "ratio": 2, "note": null}))
            .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"target": "/srv", "compress": true, "level": 9, "ratio": 2, "note": null})
        );
        // Go's JSON gives every number as a float: 9.0 is an integer.
        assert!(backup().check(json!({"target": "x", "level": 9.0})).is_ok());
        assert!(
            ParamsSchema::default()
                .check(Value::Null)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn errors_name_the_parameter() {
        let e = |v: Value| backup().check(v).unwrap_err();
        assert_eq!(
            e(json!({"target": 3})),
            "parameter `target` is an integer (3), but actions.yaml declares it string"
        );
        assert_eq!(
            e(json!({"target": "x", "level": 1.5})),
            "parameter `level` is a number (1.5), but actions.yaml declares it integer"
        );
        assert_eq!(
            e(json!({"target": "x", "note": 1})),
            "parameter `note` is an integer (1), but actions.yaml declares it string or null"
        );
        assert_eq!(
            e(json!({"compress": false})),
            "parameter `target` is required (actions.yaml) and was not given"
        );
        assert!(
            e(json!({"target": "x", "extra": 1})).contains("`extra` is not declared"),
            "{}",
            e(json!({"target": "x", "extra": 1}))
        );
        assert!(e(json!(["target"])).contains("an array, not a map"));
        let long = "x".repeat(100);
        assert!(e(json!({"target": [long]})).contains("…"));
    }

    #[test]
    fn bad_schemas_name_the_file_action_and_parameter() {
        let e = Actions::parse(
            "backup:\n  params:\n    level: {type: integer, default: high}\n",
            Path::new("actions.yaml"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "actions.yaml: action `backup`: parameter `level`: its default \"high\" is not integer"
        );
        let e = Actions::parse(
            "backup:\n  params:\n    level: {type: int}\n",
            Path::new("actions.yaml"),
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("actions.yaml: action `backup`: "),
            "{e}"
        );
        let e = Actions::parse("backup: 3\n", Path::new("actions.yaml")).unwrap_err();
        assert!(e.to_string().contains("expected a map"), "{e}");
    }
}
