//! `juju add-model`, `destroy-model`, `models` and `switch`: the models
//! of a models directory, and which one is current.

use super::args::Parsed;
use super::{Done, Failure, one_positional, print_formatted, refuse};
use crate::world::{Model, store};
use std::path::Path;

/// Juju's rule for a model's name (`names.IsValidModelName`): lowercase
/// letters, digits and hyphens, not starting with a hyphen; looser than an
/// application's (`jubilant-25851438` is a model's, not an application's).
fn is_model_name(name: &str) -> bool {
    !name.starts_with('-')
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

pub(super) fn add_model(home: &Path, p: &Parsed) -> Done {
    let name = one_positional(p, "model name")?;
    if !is_model_name(name) {
        return refuse(format!(
            "\"{name}\" is not a valid name: model names may only contain lowercase letters, digits and hyphens"
        ));
    }
    Model::create(home, name)?;
    if !p.has(&["--no-switch"]) {
        store::set_current(home, name)?;
    }
    tell!("Added '{name}' model on localhost/localhost with credential 'offline' for user 'admin'");
    Ok(())
}

pub(super) fn destroy_model(home: &Path, p: &Parsed) -> Done {
    let name = one_positional(p, "model name")?;
    let name = name.rsplit_once(':').map_or(name, |(_, m)| m);
    {
        // Under its lock: no command is half-way through it.
        let mut m = Model::open(home, name)?;
        for app in m.world.apps.keys().cloned().collect::<Vec<_>>() {
            m.remove_application(&app)?;
        }
        // Each unit's stop and remove, as Juju runs them; a hook that fails
        // does not keep the model alive.
        let _ = m.settle();
    }
    let dir = store::model_dir(home, name);
    std::fs::remove_dir_all(&dir).map_err(|e| Failure {
        code: 1,
        message: format!("{}: cannot remove: {e}", dir.display()),
    })?;
    if store::current(home).as_deref() == Some(name) {
        let _ = std::fs::remove_file(home.join("current-model"));
    }
    tell!("Destroying model\nModel destroyed.");
    Ok(())
}

pub(super) fn models(home: &Path, p: &Parsed) -> Done {
    let names = store::models(home);
    let current = store::current(home);
    let list: Vec<serde_json::Value> = names
        .iter()
        .map(|n| {
            serde_json::json!({
                "name": format!("admin/{n}"),
                "short-name": n,
                "model-type": "iaas",
                "controller-name": "wasm-charm",
                "cloud": "localhost",
                "life": "alive",
                "status": { "current": "available" },
            })
        })
        .collect();
    let mut value = serde_json::json!({ "models": list });
    if let Some(c) = &current {
        value["current-model"] = serde_json::json!(c);
    }
    print_formatted(p, &value, || {
        let mut out = String::from("Controller: wasm-charm\n\nModel\n");
        for n in &names {
            let star = if current.as_deref() == Some(n.as_str()) {
                "*"
            } else {
                ""
            };
            out.push_str(&format!("{n}{star}\n"));
        }
        out
    })
}

/// `juju switch [MODEL]`: without a model, the current one printed as
/// Juju prints it; with one, it becomes current, and Juju's line saying
/// from what to what goes to stderr.
pub(super) fn switch(home: &Path, p: &Parsed) -> Done {
    let shown = |m: &str| format!("wasm-charm:admin/{m}");
    let current = store::current(home);
    if p.positional.is_empty() {
        return match current {
            Some(m) => {
                say!("{}", shown(&m));
                Ok(())
            }
            None => refuse("no currently specified model"),
        };
    }
    let name = one_positional(p, "model name")?;
    let name = name.rsplit_once(':').map_or(name, |(_, m)| m);
    let name = name.rsplit_once('/').map_or(name, |(_, m)| m);
    if !store::models(home).iter().any(|n| n == name) {
        return refuse(format!("model \"{name}\" not found"));
    }
    store::set_current(home, name)?;
    let from = current.map_or_else(|| "wasm-charm (controller)".to_string(), |m| shown(&m));
    tell!("{from} -> {}", shown(name));
    Ok(())
}
