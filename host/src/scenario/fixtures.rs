//! A scenario's `fixtures`: the other side of an interface in one line,
//! made into the state's relation and secrets from the interface's
//! description, so a fixture holds what the real library would write or
//! the scenario is refused:
//!
//! ```yaml
//! fixtures:
//!   - {relation: "database:1", app: pg, provides: postgresql_client,
//!      app-data: {database: app, endpoints: "10.0.0.1:5432"},
//!      secrets: {secret-user: {username: u1, password: p1}}}
//! ```
//!
//! Each `app-data` value is encoded as the description says (JSON text for
//! ingress's fields, the text itself for the database's); each `secrets`
//! key must be a secret-URI field of that bag, and becomes a secret the
//! remote application owns and shared, its URI in the bag.

use crate::schemas::{self, Bag, Encoding, Role, Shape};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

const KEYS: &[&str] = &[
    "relation", "app", "provides", "requires", "units", "app-data", "secrets",
];

/// `state` with each fixture's relation and secrets added; what is wrong
/// with a fixture, named by its place (`fixtures[1].app-data`).
pub fn apply(fixtures: &Value, state: Option<Value>) -> Result<Value, String> {
    let Value::Array(list) = fixtures else {
        return Err("`fixtures`: a list is expected".into());
    };
    let mut state = match state {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err("`state`: a map is expected".into()),
    };
    for (i, f) in list.iter().enumerate() {
        let at = format!("fixtures[{i}]");
        let Value::Object(f) = f else {
            return Err(format!("{at}: a map is expected"));
        };
        if let Some(k) = f.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!(
                "{at}: unknown key `{k}` (a fixture has {})",
                KEYS.join(", ")
            ));
        }
        one(&at, f, &mut state)?;
    }
    Ok(Value::Object(state))
}

fn text<'a>(at: &str, f: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match f.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        _ => Err(format!("{at}: `{key}` is required (a string)")),
    }
}

fn one(at: &str, f: &Map<String, Value>, state: &mut Map<String, Value>) -> Result<(), String> {
    let relation = text(at, f, "relation")?;
    let app = text(at, f, "app")?;
    // The remote application's role: what the fixture stands in for.
    let (role, interface) = match (f.get("provides"), f.get("requires")) {
        (Some(Value::String(i)), None) => (Role::Provider, i.as_str()),
        (None, Some(Value::String(i))) => (Role::Requirer, i.as_str()),
        _ => {
            return Err(format!(
                "{at}: one of `provides` or `requires`, naming the interface"
            ));
        }
    };
    let Some(d) = schemas::for_interface(interface) else {
        return Err(format!(
            "{at}: no description of interface `{interface}` (see docs/interfaces.md)"
        ));
    };
    let mut bag = app_data(at, d, role, f.get("app-data"))?;
    shared_secrets(
        at,
        d,
        role,
        (relation, app),
        f.get("secrets"),
        state,
        &mut bag,
    )?;
    if let Some(v) = schemas::check_bag(d, role, Bag::App, &bag, false).first() {
        return Err(format!(
            "{at}: does not fit {} (the {}'s application bag): {v}",
            d.title(),
            role.name()
        ));
    }
    let units = match f.get("units") {
        None => vec![Value::String(format!("{app}/0"))],
        Some(Value::Array(u)) => u.clone(),
        Some(_) => return Err(format!("{at}.units: a list of unit names is expected")),
    };
    let relations = section(state, "relations")?;
    if relations.contains_key(relation) {
        return Err(format!("{at}: relation {relation} is in `state` already"));
    }
    relations.insert(
        relation.to_string(),
        json!({"app": app, "units": units, "app-data": bag}),
    );
    Ok(())
}

/// The state's section `name`, made empty when absent.
fn section<'a>(
    state: &'a mut Map<String, Value>,
    name: &str,
) -> Result<&'a mut Map<String, Value>, String> {
    match state
        .entry(name)
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(m) => Ok(m),
        _ => Err(format!("`state.{name}`: a map is expected")),
    }
}

/// The fixture's `app-data`, each value in its field's encoding.
fn app_data(
    at: &str,
    d: &schemas::Description,
    role: Role,
    data: Option<&Value>,
) -> Result<BTreeMap<String, String>, String> {
    let encoding_of = |key: &str| match d.side(role).app.get(key) {
        Some(field) => d.encoding_of(field),
        None => d.encoding,
    };
    let mut bag = BTreeMap::new();
    if let Some(data) = data {
        let Value::Object(data) = data else {
            return Err(format!("{at}.app-data: a map is expected"));
        };
        for (key, value) in data {
            let encoded = match (encoding_of(key), value) {
                (Encoding::Raw, Value::String(s)) => s.clone(),
                (Encoding::Raw, Value::Number(_) | Value::Bool(_)) => value.to_string(),
                (Encoding::Raw, _) => {
                    return Err(format!(
                        "{at}.app-data.{key}: {} keeps text here: a string is expected",
                        d.title()
                    ));
                }
                (Encoding::Json, v) => v.to_string(),
            };
            bag.insert(key.clone(), encoded);
        }
    }
    Ok(bag)
}

/// The fixture's `secrets`: each a secret `app` owns and shared, its URI in
/// the bag's field.
fn shared_secrets(
    at: &str,
    d: &schemas::Description,
    role: Role,
    (relation, app): (&str, &str),
    wanted: Option<&Value>,
    state: &mut Map<String, Value>,
    bag: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    let Some(wanted) = wanted else {
        return Ok(());
    };
    let number: String = relation
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .take(17)
        .collect();
    let secrets = section(state, "secrets")?;
    let Value::Object(wanted) = wanted else {
        return Err(format!(
            "{at}.secrets: a map of field to content is expected"
        ));
    };
    for (n, (key, content)) in wanted.iter().enumerate() {
        let is_uri = matches!(
            d.side(role).app.get(key).map(|field| &field.shape),
            Some(Shape::Named(s)) if s == "secret-uri"
        );
        if !is_uri {
            return Err(format!(
                "{at}.secrets.{key}: not a secret-URI field of the {}'s application bag of {}",
                role.name(),
                d.title()
            ));
        }
        let Value::Object(content) = content else {
            return Err(format!(
                "{at}.secrets.{key}: a map of key to text is expected"
            ));
        };
        // An id as Juju makes them: 20 characters of base32hex.
        let id = format!("secret:d{number:0>17}{n:0>2}");
        secrets.insert(
            id.clone(),
            json!({"owner": app, "revisions": [{"revision": 1, "content": content}]}),
        );
        bag.insert(key.clone(), id);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("test YAML: {e}"))
    }

    #[test]
    fn a_database_provider_in_one_line_is_a_relation_and_its_shared_secret() {
        let state = apply(
            &yaml(
                "- {relation: 'database:1', app: pg, provides: postgresql_client, \
                 app-data: {database: app, endpoints: '10.0.0.1:5432'}, \
                 secrets: {secret-user: {username: u1, password: p1}}}",
            ),
            Some(yaml("leader: true")),
        )
        .unwrap();
        let rel = &state["relations"]["database:1"];
        assert_eq!(rel["app"], "pg");
        assert_eq!(rel["units"], json!(["pg/0"]));
        assert_eq!(rel["app-data"]["endpoints"], "10.0.0.1:5432");
        let uri = rel["app-data"]["secret-user"].as_str().unwrap();
        assert_eq!(uri.len(), "secret:".len() + 20, "{uri}");
        let secret = &state["secrets"][uri];
        assert_eq!(secret["owner"], "pg");
        assert_eq!(secret["revisions"][0]["content"]["username"], "u1");
        assert_eq!(state["leader"], true);
    }

    #[test]
    fn json_interfaces_are_encoded_and_what_does_not_fit_is_refused() {
        let state = apply(
            &yaml(
                "- {relation: 'ingress:2', app: traefik, provides: ingress, \
                 app-data: {ingress: {url: 'http://x/'}}}",
            ),
            None,
        )
        .unwrap();
        assert_eq!(
            state["relations"]["ingress:2"]["app-data"]["ingress"],
            "{\"url\":\"http://x/\"}"
        );
        let refused = |text: &str| apply(&yaml(text), None).unwrap_err();
        assert_eq!(
            refused(
                "- {relation: 'ingress:2', app: t, provides: ingress, app-data: {ingress: {url: 3}}}"
            ),
            "fixtures[0]: does not fit ingress v2 (the provider's application bag): ingress.url: is the number 3, not a string"
        );
        assert_eq!(
            refused(
                "- {relation: 'db:1', app: pg, provides: postgresql_client, secrets: {endpoints: {a: b}}}"
            ),
            "fixtures[0].secrets.endpoints: not a secret-URI field of the provider's application bag of postgresql_client v0"
        );
        assert_eq!(
            refused("- {relation: 'db:1', app: pg, provides: nothing}"),
            "fixtures[0]: no description of interface `nothing` (see docs/interfaces.md)"
        );
        assert!(
            refused("- {relation: 'db:1', app: pg}").contains("one of `provides` or `requires`")
        );
        assert!(
            refused("- {relation: 'db:1', app: pg, provides: ingress, tpyo: 1}")
                .contains("unknown key `tpyo`")
        );
    }
}
