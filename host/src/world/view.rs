//! A unit's view of the model, and what its hook changes in it.
//!
//! Before each hook the model writes the unit's view as the one-unit
//! simulator's state ([`SimState`]): the unit, its leadership, its
//! application's config and trust, the relations it is in the scope of
//! (the remote units it has seen join, their bags, its own and its
//! application's), and the secrets Juju would let it see: its application's
//! own (the leader's to manage), its own, and those granted to it or its
//! application over a relation. The one-unit simulator's hook tools answer
//! from that view, and its commit rule ends the hook; [`absorb`] then takes
//! back what the hook wrote and returns the events it causes on other
//! units. Nothing here runs a process.

use super::state::{Consumer, Pending, World, WorldSecret};
use crate::offline::secrets::SimSecret;
use crate::offline::sim::{ModelState, SimRelation};
use crate::offline::state_file::StateFile;
use std::collections::{BTreeMap, BTreeSet};

/// The unit's view for `event`: its own state with the model's parts laid
/// over it. `keys` maps each relation id of the view (`db:3`) to the
/// model's relation.
pub struct View {
    pub file: StateFile,
    pub keys: BTreeMap<String, u64>,
}

/// The id a unit of `app` knows relation `id` by: its own endpoint's name
/// and the model-wide number.
pub fn relation_key(world: &World, app: &str, id: u64) -> Option<String> {
    let rel = world.relations.get(&id)?;
    Some(format!("{}:{id}", rel.end_of(app)?.endpoint))
}

pub fn view(world: &World, unit: &str, event: &Pending) -> Option<View> {
    let (app_name, _) = World::split_unit(unit)?;
    let app = world.apps.get(app_name)?;
    let me = app.units.values().find(|u| u.name == unit)?;
    let mut file = me.state.clone();
    let m = &mut file.sim.model;
    m.unit = Some(unit.to_string());
    m.leader = app.leader.as_deref() == Some(unit);
    m.kubernetes = app.kubernetes;
    m.config = app.config.clone();
    m.trusted = app.trusted;
    m.resources = app.resources.clone();
    m.status.app = app.status.clone();
    m.relations.clear();
    let mut keys = BTreeMap::new();
    let mut ids: BTreeSet<u64> = me.scopes.keys().copied().collect();
    ids.extend(event.relation);
    for id in ids {
        let Some(rel) = world.relations.get(&id) else {
            continue;
        };
        let Some(key) = relation_key(world, app_name, id) else {
            continue;
        };
        let other = rel.other_app(app_name).unwrap_or(app_name).to_string();
        let seen = me.scopes.get(&id).cloned().unwrap_or_default();
        // The remote unit of a departed hook has left relation-list; its
        // bag stays readable until the hook ends.
        let listed: Vec<String> = seen
            .iter()
            .filter(|u| {
                !(event.hook.ends_with("-relation-departed")
                    && event.remote_unit.as_ref() == Some(*u))
            })
            .cloned()
            .collect();
        let unit_data = seen
            .iter()
            .map(|u| (u.clone(), rel.unit_data.get(u).cloned().unwrap_or_default()))
            .collect();
        let bag = |a: &str| rel.app_data.get(a).cloned().unwrap_or_default();
        m.relations.insert(
            key.clone(),
            SimRelation {
                app: other.clone(),
                units: listed,
                app_data: bag(&other),
                unit_data,
                local_unit_data: rel.unit_data.get(unit).cloned().unwrap_or_default(),
                local_app_data: bag(app_name),
                model_uuid: None,
            },
        );
        keys.insert(key, id);
    }
    m.secrets = secrets_seen(world, app_name, unit, &keys);
    Some(View { file, keys })
}

/// The secrets `unit` of `app` can see, as the simulator keeps them.
fn secrets_seen(
    world: &World,
    app: &str,
    unit: &str,
    keys: &BTreeMap<String, u64>,
) -> BTreeMap<String, SimSecret> {
    let key_of: BTreeMap<u64, &String> = keys.iter().map(|(k, id)| (*id, k)).collect();
    let mut seen = BTreeMap::new();
    for (uri, s) in &world.secrets {
        let owner = if s.owner == app {
            Some("application".to_string())
        } else if s.owner == unit {
            Some("unit".to_string())
        } else {
            None
        };
        if let Some(owner) = owner {
            let grants = s
                .grants
                .iter()
                .filter_map(|(id, who)| Some(((*key_of.get(id)?).clone(), who.clone())))
                .collect();
            seen.insert(
                uri.clone(),
                SimSecret {
                    owner,
                    revisions: s.revisions.clone(),
                    label: s.label.clone(),
                    description: s.description.clone(),
                    expiry: s.expiry.clone(),
                    rotation: s.rotation.clone(),
                    rotates: s.rotates.clone(),
                    tracking: None,
                    grants,
                },
            );
            continue;
        }
        let granted = s.granted_apps.contains(app)
            || s.grants
                .values()
                .any(|who| who.contains(app) || who.contains(unit));
        if !granted {
            continue;
        }
        let consumer = s.consumers.get(unit).cloned().unwrap_or_default();
        let owner_app = World::split_unit(&s.owner).map_or(s.owner.as_str(), |(a, _)| a);
        seen.insert(
            uri.clone(),
            SimSecret {
                owner: owner_app.to_string(),
                revisions: s.revisions.clone(),
                label: consumer.label,
                description: None,
                expiry: None,
                rotation: None,
                rotates: None,
                tracking: consumer.tracking,
                grants: BTreeMap::new(),
            },
        );
    }
    seen
}

/// An event the hook caused on another unit.
pub type Caused = Vec<(String, Pending)>;

/// Take back what `unit`'s hook left in `after` (the state its commit rule
/// kept) into the model, given the `view` it started from; return the
/// events this causes elsewhere: relation-changed on the units that see a
/// changed bag, secret-changed on the consumers of a new revision,
/// secret-remove on the owner of a revision nobody tracks any more.
pub fn absorb(world: &mut World, unit: &str, view: &View, after: StateFile) -> Caused {
    let mut caused = Vec::new();
    let Some((app, _)) = World::split_unit(unit) else {
        return caused;
    };
    let app = app.to_string();
    let before = &view.file.sim.model;
    let now = &after.sim.model;
    for (key, id) in &view.keys {
        let Some(rel_after) = now.relations.get(key) else {
            continue;
        };
        let Some(rel_before) = before.relations.get(key) else {
            continue;
        };
        let watchers = watchers(world, *id, unit);
        if rel_after.local_unit_data != rel_before.local_unit_data {
            if let Some(rel) = world.relations.get_mut(id) {
                rel.unit_data
                    .insert(unit.to_string(), rel_after.local_unit_data.clone());
            }
            let endpoint_of = |w: &str| endpoint_for(world, *id, w);
            for w in &watchers {
                if world
                    .unit(w)
                    .is_some_and(|u| u.scopes.get(id).is_some_and(|s| s.contains(unit)))
                {
                    caused.push((
                        w.clone(),
                        changed(endpoint_of(w), *id, &app, Some(unit.to_string())),
                    ));
                }
            }
        }
        if rel_after.local_app_data != rel_before.local_app_data && now.leader {
            if let Some(rel) = world.relations.get_mut(id) {
                rel.app_data
                    .insert(app.clone(), rel_after.local_app_data.clone());
            }
            for w in &watchers {
                caused.push((
                    w.clone(),
                    changed(endpoint_for(world, *id, w), *id, &app, None),
                ));
            }
        }
    }
    if now.leader
        && now.status.app != before.status.app
        && let Some(a) = world.apps.get_mut(&app)
    {
        a.status.clone_from(&now.status.app);
    }
    caused.extend(absorb_secrets(world, &app, unit, view, &after.sim.model));
    if let Some(u) = world.unit_mut(unit) {
        let mut kept = after;
        // The model's parts are the model's: the next view lays them anew.
        kept.sim.model.relations.clear();
        kept.sim.model.secrets.clear();
        kept.sim.model.config.clear();
        kept.sim.model.resources.clear();
        kept.sim.model.status.app = None;
        u.state = kept;
    }
    caused
}

/// The units in the scope of relation `id` on the other side of `unit`
/// (the other units of its application, for a peer relation).
fn watchers(world: &World, id: u64, unit: &str) -> Vec<String> {
    let Some(rel) = world.relations.get(&id) else {
        return Vec::new();
    };
    let Some((app, _)) = World::split_unit(unit) else {
        return Vec::new();
    };
    let other = rel.other_app(app).unwrap_or(app);
    world
        .units_of(other)
        .into_iter()
        .filter(|w| w != unit && world.unit(w).is_some_and(|u| u.scopes.contains_key(&id)))
        .collect()
}

fn endpoint_for(world: &World, id: u64, unit: &str) -> String {
    let app = World::split_unit(unit).map_or("", |(a, _)| a);
    world
        .relations
        .get(&id)
        .and_then(|r| r.end_of(app))
        .map(|e| e.endpoint.clone())
        .unwrap_or_default()
}

/// relation-changed on `endpoint` of relation `id`, for a remote unit's
/// bag (`remote_unit`) or the remote application's.
pub fn changed(
    endpoint: String,
    id: u64,
    remote_app: &str,
    remote_unit: Option<String>,
) -> Pending {
    Pending {
        hook: format!("{endpoint}-relation-changed"),
        relation: Some(id),
        endpoint: Some(endpoint),
        remote_app: Some(remote_app.to_string()),
        remote_unit,
        ..Pending::default()
    }
}

fn absorb_secrets(
    world: &mut World,
    app: &str,
    unit: &str,
    view: &View,
    model: &ModelState,
) -> Caused {
    let after = &model.secrets;
    let mut caused = Vec::new();
    let leader = view.file.sim.model.leader;
    for (uri, s) in after {
        match s.owner.as_str() {
            // Only the leader manages its application's secrets: what
            // another unit's hook holds of them is a read-only copy.
            "application" if !leader => {}
            "application" | "unit" => {
                let owner = if s.owner == "application" { app } else { unit };
                caused.extend(absorb_owned(world, owner, uri, s, view, model));
            }
            _ => caused.extend(absorb_consumed(world, unit, uri, s)),
        }
    }
    // The owner removed a secret (all its revisions).
    for (uri, s) in &view.file.sim.model.secrets {
        if s.is_owned() && (leader || s.owner == "unit") && !after.contains_key(uri) {
            world.secrets.remove(uri);
        }
    }
    caused
}

/// An owner's secret as its hook left it, where the hook changed it; a
/// new revision is secret-changed on each consumer tracking an older one.
/// Only the hook's changes are taken back: a view shows the grants of the
/// relations its unit sees, and a unit that sees fewer (one still joining,
/// one leaving) must not take the others away.
fn absorb_owned(
    world: &mut World,
    owner: &str,
    uri: &str,
    s: &SimSecret,
    view: &View,
    after: &ModelState,
) -> Caused {
    let mut caused = Vec::new();
    let before = view.file.sim.model.secrets.get(uri);
    if before == Some(s) {
        return caused;
    }
    let known = world.secrets.get(uri);
    let previous = known.map(WorldSecret::latest);
    let consumers = known.map(|w| w.consumers.clone()).unwrap_or_default();
    let granted_apps = known.map(|w| w.granted_apps.clone()).unwrap_or_default();
    // A retry of secret-expired is for the expiry that fell due: a new one
    // set by the hook starts afresh.
    let expire_retry = known
        .filter(|w| w.expiry == s.expiry)
        .and_then(|w| w.expire_retry);
    let mut grants = known.map(|w| w.grants.clone()).unwrap_or_default();
    let no_grants = BTreeMap::new();
    let grants_before = before.map_or(&no_grants, |b| &b.grants);
    for key in grants_before.keys().chain(s.grants.keys()) {
        // A relation the hook's commit let go (relation-broken on a unit
        // that leaves it) keeps its grants while the model has it: they go
        // with the relation (`drop_relation_if_done`).
        let Some(id) = view
            .keys
            .get(key)
            .filter(|_| after.relations.contains_key(key))
        else {
            continue;
        };
        match s.grants.get(key) {
            Some(who) => grants.insert(*id, who.clone()),
            None => grants.remove(id),
        };
    }
    let secret = WorldSecret {
        owner: owner.to_string(),
        revisions: s.revisions.clone(),
        label: s.label.clone(),
        description: s.description.clone(),
        expiry: s.expiry.clone(),
        rotation: s.rotation.clone(),
        rotates: s.rotates.clone(),
        grants,
        consumers,
        granted_apps,
        expire_retry,
    };
    let latest = secret.latest();
    if previous.is_some_and(|p| p < latest) {
        for (consumer, c) in &secret.consumers {
            if c.tracking.is_some_and(|t| t < latest) {
                caused.push((
                    consumer.clone(),
                    Pending {
                        hook: "secret-changed".into(),
                        secret: Some(uri.to_string()),
                        secret_label: c.label.clone(),
                        ..Pending::default()
                    },
                ));
            }
        }
    }
    world.secrets.insert(uri.to_string(), secret);
    caused
}

/// A consumer's record of a secret (its revision, its label); a revision
/// nobody tracks any more is secret-remove on its owner.
fn absorb_consumed(world: &mut World, unit: &str, uri: &str, s: &SimSecret) -> Caused {
    let Some(w) = world.secrets.get_mut(uri) else {
        return Vec::new();
    };
    let was = w.consumers.get(unit).and_then(|c| c.tracking);
    w.consumers.insert(
        unit.to_string(),
        Consumer {
            tracking: s.tracking,
            label: s.label.clone(),
        },
    );
    let Some(old) = was else {
        return Vec::new();
    };
    if Some(old) == s.tracking
        || old >= w.latest()
        || w.consumers.values().any(|c| c.tracking == Some(old))
    {
        return Vec::new();
    }
    let (owner, label) = (w.owner.clone(), w.label.clone());
    let owner_unit = if World::split_unit(&owner).is_some() {
        Some(owner)
    } else {
        world.apps.get(&owner).and_then(|a| a.leader.clone())
    };
    owner_unit
        .map(|o| {
            (
                o,
                Pending {
                    hook: "secret-remove".into(),
                    secret: Some(uri.to_string()),
                    secret_label: label,
                    secret_revision: Some(old),
                    ..Pending::default()
                },
            )
        })
        .into_iter()
        .collect()
}
