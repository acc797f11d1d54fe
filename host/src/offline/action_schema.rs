//! Action parameters as Juju checks them before it runs an action: against
//! the whole JSON Schema of the action's actions.yaml entry, read as Juju
//! reads it (`params` are the object's `properties`, `additionalProperties`
//! is `false` unless the entry says otherwise, Juju's own keys such as
//! `parallel` left out), by a real validator (`boon`) at JSON Schema draft
//! 4, the draft Juju's validator implements; a schema using `$schema` or
//! `$ref` is refused as Juju refuses the charm. The host's own check on a unit
//! (`charm_dir::actions`) trusts Juju for the rest; the simulated Juju is
//! Juju here, so it checks everything: `enum`, `minimum`, `items`,
//! `pattern`, …

use serde_json::{Map, Value};

/// The keys of an actions.yaml entry that are Juju's, not JSON Schema's.
const JUJU_KEYS: &[&str] = &["params", "parallel", "execution-group"];

/// The keys Juju refuses inside an action's entry (`prohibitedSchemaKeys`
/// of its actions.yaml reader).
const REFUSED_KEYS: &[&str] = &["$ref", "$schema"];

/// Juju's refusal of actions.yaml when an entry of action `name` holds
/// `$schema` or `$ref` in any map below it: its reader checks the keys of
/// every nested map (though not the entry's own keys), when the charm is
/// read.
pub fn check_entry(name: &str, entry: &Value) -> Result<(), String> {
    fn nested(v: &Value) -> Option<&str> {
        match v {
            Value::Object(m) => m.iter().find_map(|(k, v)| {
                REFUSED_KEYS
                    .contains(&k.as_str())
                    .then_some(k.as_str())
                    .or_else(|| nested(v))
            }),
            Value::Array(items) => items.iter().find_map(nested),
            _ => None,
        }
    }
    let Value::Object(entry) = entry else {
        return Ok(());
    };
    match entry.values().find_map(nested) {
        Some(key) => Err(format!(
            "action {name:?}: schema key {key:?} not compatible with this version of juju"
        )),
        None => Ok(()),
    }
}

/// The JSON Schema Juju validates an action's parameters against.
pub fn juju_schema(entry: Option<&Value>) -> Value {
    let mut schema = Map::new();
    if let Some(Value::Object(entry)) = entry {
        for (k, v) in entry {
            if !JUJU_KEYS.contains(&k.as_str()) {
                schema.insert(k.clone(), v.clone());
            }
        }
        if let Some(params) = entry.get("params") {
            schema.insert("properties".into(), params.clone());
        }
    }
    schema.insert("type".into(), "object".into());
    schema
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    Value::Object(schema)
}

/// Check `given` against `schema`: `Err` names each parameter that does
/// not fit and why, dotted as `--param` names it (`opts.level`).
pub fn validate(schema: &Value, given: &Value) -> Result<(), String> {
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V4);
    let mut schemas = boon::Schemas::new();
    let loc = "file:///actions.yaml";
    let invalid =
        |e: boon::CompileError| format!("its schema in actions.yaml is not valid JSON Schema: {e}");
    compiler
        .add_resource(loc, schema.clone())
        .map_err(invalid)?;
    let index = compiler.compile(loc, &mut schemas).map_err(invalid)?;
    let Err(error) = schemas.validate(given, index) else {
        return Ok(());
    };
    let mut reasons = Vec::new();
    leaves(&error, &mut reasons);
    reasons.sort();
    reasons.dedup();
    Err(reasons.join("; "))
}

/// The innermost errors, each as `parameter `x`: why`.
fn leaves(e: &boon::ValidationError<'_, '_>, out: &mut Vec<String>) {
    if !e.causes.is_empty() {
        for cause in &e.causes {
            leaves(cause, out);
        }
        return;
    }
    let path: Vec<String> = e
        .instance_location
        .tokens
        .iter()
        .map(|t| match t {
            boon::InstanceToken::Prop(p) => p.to_string(),
            boon::InstanceToken::Item(i) => i.to_string(),
        })
        .collect();
    let what = if path.is_empty() {
        "the parameters".to_string()
    } else {
        format!("parameter `{}`", path.join("."))
    };
    out.push(format!("{what}: {}", e.kind));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn backup() -> Value {
        juju_schema(Some(&json!({
            "description": "Back up.",
            "parallel": true,
            "params": {
                "level": {"type": "integer", "minimum": 1, "maximum": 9},
                "mode": {"type": "string", "enum": ["full", "incremental"]},
                "dbs": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object", "properties": {"fast": {"type": "boolean"}}},
            },
            "required": ["mode"],
        })))
    }

    #[test]
    fn jujus_defaults_shape_the_schema() {
        let s = backup();
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(s["type"], json!("object"));
        assert!(s.get("parallel").is_none() && s.get("params").is_none());
        // An entry may allow others, as Juju lets it.
        let open = juju_schema(Some(&json!({"additionalProperties": true})));
        assert_eq!(open["additionalProperties"], json!(true));
        assert_eq!(validate(&open, &json!({"x": 1})), Ok(()));
        // An action without an entry takes no parameters.
        assert!(validate(&juju_schema(None), &json!({"x": 1})).is_err());
    }

    #[test]
    fn every_keyword_is_checked_naming_the_parameter() {
        let s = backup();
        assert_eq!(
            validate(&s, &json!({"mode": "full", "level": 3, "dbs": ["a"]})),
            Ok(())
        );
        let e = |v: Value| validate(&s, &v).unwrap_err();
        assert!(e(json!({"mode": "full", "level": 10})).starts_with("parameter `level`: "));
        assert!(e(json!({"mode": "partial"})).starts_with("parameter `mode`: "));
        assert!(e(json!({"mode": "full", "dbs": [1]})).starts_with("parameter `dbs.0`: "));
        assert!(
            e(json!({"mode": "full", "opts": {"fast": "yes"}}))
                .starts_with("parameter `opts.fast`: ")
        );
        let extra = e(json!({"mode": "full", "extra": 1}));
        assert!(
            extra.starts_with("the parameters: ") && extra.contains("extra"),
            "{extra}"
        );
        let missing = e(json!({}));
        assert!(missing.contains("mode"), "{missing}");
    }

    #[test]
    fn schema_and_ref_are_refused_below_the_entry_and_draft_4_applies() {
        let refused = json!({"params": {"x": {"$ref": "#/definitions/x"}}});
        assert_eq!(
            check_entry("backup", &refused),
            Err(
                "action \"backup\": schema key \"$ref\" not compatible with this version of juju"
                    .into()
            )
        );
        let deep = json!({"params": {"x": {"type": "array", "items": [{"$schema": "x"}]}}});
        assert!(check_entry("b", &deep).unwrap_err().contains("\"$schema\""));
        // The entry's own keys are not looked at, as Juju's reader does not.
        assert_eq!(
            check_entry("b", &json!({"$schema": "x", "params": {}})),
            Ok(())
        );
        assert_eq!(check_entry("b", &backup()), Ok(()));
        // Draft 4: a boolean exclusiveMaximum qualifies `maximum`; draft 7
        // would refuse the schema, which needs a number there.
        let s = juju_schema(Some(&json!({"params": {
            "level": {"type": "integer", "maximum": 9, "exclusiveMaximum": true}}})));
        assert_eq!(validate(&s, &json!({"level": 8})), Ok(()));
        assert!(
            validate(&s, &json!({"level": 9}))
                .unwrap_err()
                .starts_with("parameter `level`: ")
        );
    }

    #[test]
    fn a_schema_that_is_not_json_schema_is_named() {
        let bad = juju_schema(Some(&json!({"params": {"x": {"type": "int"}}})));
        let e = validate(&bad, &json!({})).unwrap_err();
        assert!(
            e.starts_with("its schema in actions.yaml is not valid"),
            "{e}"
        );
    }
}
