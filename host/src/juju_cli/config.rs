//! `juju config` and `deploy --config FILE`: an application's settings as
//! Juju reads and prints them.

use super::{Done, Failure, Model, Parsed, key_values, print_formatted, refuse, usage};
use std::path::Path;

/// A `--config` YAML file: `{app: {key: value}}` as Juju reads it, values
/// taken as the text `juju config` would be given.
pub(super) fn config_file(
    path: &Path,
    app: Option<&str>,
) -> Result<Vec<(String, String)>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure {
        code: 1,
        message: format!("{}: cannot read: {e}", path.display()),
    })?;
    let doc: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, serde_json::Value>,
    > = serde_saphyr::from_str(&text).map_err(|e| Failure {
        code: 1,
        message: format!(
            "{}: not a config file ({{application: {{key: value}}}}): {e}",
            path.display()
        ),
    })?;
    let section = match app {
        Some(a) => doc.get(a),
        None => doc.values().next(),
    };
    Ok(section
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect())
}

/// The `k=v` words among `words` and the keys of `--reset k,…`, as
/// `config` and `model-config` take them; `None` when there are neither
/// (the command reads instead).
pub(super) type Changes = (Vec<(String, String)>, Vec<String>);

pub(super) fn changes(
    p: &Parsed,
    words: &[String],
    tool: &str,
) -> Result<Option<Changes>, Failure> {
    let reset: Vec<String> = p
        .values(&["--reset"])
        .iter()
        .flat_map(|r| r.split(',').map(str::to_string).collect::<Vec<_>>())
        .filter(|k| !k.is_empty())
        .collect();
    let sets: Vec<String> = words.iter().filter(|w| w.contains('=')).cloned().collect();
    if sets.is_empty() && reset.is_empty() {
        return Ok(None);
    }
    Ok(Some((key_values(&sets, tool)?, reset)))
}

/// `juju config APP` (all, `--format json` as Juju prints it), `APP key`
/// (one value), `APP k=v …` (set), `APP --reset k,…`.
pub(super) fn config(m: &mut Model, p: &Parsed) -> Done {
    let Some((app, rest)) = p.positional.split_first() else {
        return usage("no application name specified");
    };
    if let Some((values, reset)) = changes(p, rest, "config")? {
        return Ok(m.set_config(app, values, reset)?);
    }
    let charm = m.charm(app)?;
    let a = m.world.app(app)?;
    let mut settings = serde_json::Map::new();
    for (key, kind) in &charm.config.options {
        let default = charm.config.defaults.get(key);
        let set = a.config.get(key);
        let mut entry = serde_json::json!({
            "type": config_type_word(*kind),
            "source": if set.is_some() { "user" } else if default.is_some() { "default" } else { "unset" },
        });
        if let Some(v) = set.or(default) {
            entry["value"] = v.clone();
        }
        if let Some(d) = default {
            entry["default"] = d.clone();
        }
        settings.insert(key.clone(), entry);
    }
    if let [key] = rest {
        let Some(entry) = settings.get(key) else {
            return refuse(format!(
                "key \"{key}\" not found in \"{app}\" application config or charm settings."
            ));
        };
        match entry.get("value") {
            Some(serde_json::Value::String(s)) => say!("{s}"),
            Some(v) => say!("{v}"),
            None => say!(""),
        }
        return Ok(());
    }
    let value = serde_json::json!({
        "application": app,
        "charm": a.charm_name,
        "settings": settings,
        "application-config": { "trust": { "value": a.trusted, "default": false, "source": if a.trusted { "user" } else { "default" }, "type": "bool" } },
    });
    let yaml = serde_saphyr::to_string(&value).unwrap_or_default();
    print_formatted(p, &value, || yaml)
}

fn config_type_word(kind: crate::charm_dir::ConfigType) -> &'static str {
    use crate::charm_dir::ConfigType as T;
    match kind {
        T::String => "string",
        T::Int => "int",
        T::Float => "float",
        T::Boolean => "boolean",
        T::Secret => "secret",
    }
}
