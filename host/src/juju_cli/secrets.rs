//! The secret commands: `secrets`, `show-secret`, and the user secrets'
//! `add-secret`, `grant-secret`, `revoke-secret`, `remove-secret`
//! (Juju's `cmd/juju/secrets`): a user secret is the model's, read by the
//! applications it is granted to.

use super::args::Parsed;
use super::{Done, Failure, print_formatted, refuse, usage};
use crate::offline::secrets::SimRevision;
use crate::world::Model;
use crate::world::state::WorldSecret;
use serde_json::json;

/// The owner of a user secret.
pub const MODEL_OWNER: &str = "model";

pub fn run(m: &mut Model, command: &str, p: &Parsed) -> Done {
    match command {
        "secrets" => list(m, p),
        "show-secret" => show(m, p),
        "add-secret" => add(m, p),
        "grant-secret" | "revoke-secret" => grant(m, p, command == "grant-secret"),
        "remove-secret" => remove(m, p),
        _ => refuse(format!("{command}: not a secret command")),
    }
}

/// The secret `name` names: its URI, its id, or a user secret's name.
fn find(m: &Model, name: &str) -> Result<String, Failure> {
    let bare = name.strip_prefix("secret:").unwrap_or(name);
    m.world
        .secrets
        .iter()
        .find(|(uri, s)| {
            uri.strip_prefix("secret:") == Some(bare)
                || (s.owner == MODEL_OWNER && s.label.as_deref() == Some(name))
        })
        .map(|(uri, _)| uri.clone())
        .map_or_else(|| refuse(format!("secret \"{name}\" not found")), Ok)
}

fn entry(uri: &str, s: &WorldSecret, reveal: bool, at: &str) -> serde_json::Value {
    let mut v = json!({
        "revision": s.latest(),
        "owner": s.owner.split('/').next().unwrap_or(&s.owner),
        "created": at,
        "updated": at,
    });
    if let Some(label) = &s.label {
        v[if s.owner == MODEL_OWNER {
            "name"
        } else {
            "label"
        }] = json!(label);
    }
    if let Some(d) = &s.description {
        v["description"] = json!(d);
    }
    if let Some(r) = &s.rotation {
        v["rotation"] = json!(r);
    }
    if let Some(e) = &s.expiry {
        v["expires"] = json!(e);
    }
    if reveal && let Some(rev) = s.revisions.iter().find(|r| r.revision == s.latest()) {
        v["content"] = json!({ "Data": rev.content });
    }
    let _ = uri;
    v
}

fn list(m: &mut Model, p: &Parsed) -> Done {
    let at = crate::show::utc(m.world.clock);
    let owner = p.value(&["--owner"]);
    let mut all = serde_json::Map::new();
    for (uri, s) in &m.world.secrets {
        if owner.is_some_and(|o| s.owner.split('/').next() != Some(o)) {
            continue;
        }
        let id = uri.strip_prefix("secret:").unwrap_or(uri);
        all.insert(id.to_string(), entry(uri, s, false, &at));
    }
    let value = serde_json::Value::Object(all);
    print_formatted(p, &value, || {
        let mut out = format!(
            "{:<22}{:<13}{:<10}{:<9}\n",
            "ID", "Name", "Owner", "Rotation"
        );
        for (uri, s) in &m.world.secrets {
            out.push_str(&format!(
                "{:<22}{:<13}{:<10}{:<9}\n",
                uri.strip_prefix("secret:").unwrap_or(uri),
                s.label.as_deref().unwrap_or("-"),
                s.owner,
                s.rotation.as_deref().unwrap_or("never")
            ));
        }
        out
    })
}

fn show(m: &mut Model, p: &Parsed) -> Done {
    let name = match p.positional.as_slice() {
        [one] => one,
        _ => return usage("a secret ID or name is required"),
    };
    let uri = find(m, name)?;
    let s = &m.world.secrets[&uri];
    let at = crate::show::utc(m.world.clock);
    let id = uri.strip_prefix("secret:").unwrap_or(&uri).to_string();
    let value = json!({ id: entry(&uri, s, p.has(&["--reveal"]), &at) });
    let yaml = serde_saphyr::to_string(&value).unwrap_or_default();
    print_formatted(p, &value, || yaml)
}

fn add(m: &mut Model, p: &Parsed) -> Done {
    let Some((name, rest)) = p.positional.split_first() else {
        return usage("missing secret name");
    };
    let file = p.value(&["--file"]).filter(|f| !f.is_empty());
    if rest.is_empty() && file.is_none() {
        return usage("missing secret value or filename");
    }
    if m.world
        .secrets
        .values()
        .any(|s| s.owner == MODEL_OWNER && s.label.as_deref() == Some(name))
    {
        return refuse(format!("secret with name \"{name}\" already exists"));
    }
    let mut content = std::collections::BTreeMap::new();
    // `--file`: a YAML map of key to value, as jubilant's add_secret writes.
    if let Some(file) = file {
        let map = std::fs::read_to_string(file)
            .map_err(|e| format!("open {file}: {e}"))
            .and_then(|text| {
                serde_saphyr::from_str::<std::collections::BTreeMap<String, String>>(&text)
                    .map_err(|e| format!("{file}: not a map of secret keys to values: {e}"))
            });
        match map {
            Ok(map) => content.extend(map),
            Err(why) => return refuse(why),
        }
    }
    for kv in rest {
        let Some((k, v)) = kv.split_once('=') else {
            return usage(format!("expected \"key=value\", got \"{kv}\""));
        };
        content.insert(k.to_string(), v.to_string());
    }
    let mut n = 0;
    let uri = loop {
        let uri = crate::offline::new_secret_uri(m.world.clock, n);
        if !m.world.secrets.contains_key(&uri) {
            break uri;
        }
        n += 1;
    };
    m.world.secrets.insert(
        uri.clone(),
        WorldSecret {
            owner: MODEL_OWNER.to_string(),
            revisions: vec![SimRevision {
                revision: 1,
                content,
            }],
            label: Some(name.clone()),
            description: p.value(&["--info"]).map(str::to_string),
            ..WorldSecret::default()
        },
    );
    m.save()?;
    say!("{uri}");
    Ok(())
}

fn grant(m: &mut Model, p: &Parsed, granting: bool) -> Done {
    let (name, apps) = match p.positional.as_slice() {
        [name, apps] => (name, apps),
        _ => return usage("missing secret name and application(s)"),
    };
    let uri = find(m, name)?;
    for app in apps.split(',') {
        m.world.app(app)?;
    }
    let Some(s) = m.world.secrets.get_mut(&uri) else {
        return refuse(format!("secret \"{name}\" not found"));
    };
    if s.owner != MODEL_OWNER {
        return refuse(format!(
            "secret \"{name}\" is owned by {}: only user secrets are granted with this command",
            s.owner
        ));
    }
    for app in apps.split(',') {
        if granting {
            s.granted_apps.insert(app.to_string());
        } else {
            s.granted_apps.remove(app);
        }
    }
    m.save()?;
    Ok(())
}

fn remove(m: &mut Model, p: &Parsed) -> Done {
    let name = match p.positional.as_slice() {
        [one] => one,
        _ => return usage("missing secret name"),
    };
    let uri = find(m, name)?;
    if m.world
        .secrets
        .get(&uri)
        .is_some_and(|s| s.owner != MODEL_OWNER)
    {
        return refuse(format!(
            "secret \"{name}\" is a charm's: its owner removes it"
        ));
    }
    m.world.secrets.remove(&uri);
    m.save()?;
    Ok(())
}
