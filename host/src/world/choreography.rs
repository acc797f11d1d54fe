//! Juju's choreography: which events each operation queues on which
//! units, in which order (docs/world.md cites the sources: Juju's
//! documentation of a charm's lifecycle and the uniter's relation and
//! leadership resolvers). Pure: the model in, the model with its queues
//! grown out; `settle` runs them.

use super::state::{App, End, Pending, Relation, Unit, World};
use super::view::changed;
use crate::charm_dir::CharmDir;
use std::collections::BTreeSet;

/// An operator's request the model refuses, as Juju's `ERROR …` says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

fn refused<T>(message: impl Into<String>) -> Result<T, Refused> {
    Err(Refused(message.into()))
}

impl World {
    pub fn app(&self, name: &str) -> Result<&App, Refused> {
        self.apps
            .get(name)
            .ok_or_else(|| Refused(format!("application \"{name}\" not found")))
    }

    fn app_mut(&mut self, name: &str) -> Result<&mut App, Refused> {
        self.apps
            .get_mut(name)
            .ok_or_else(|| Refused(format!("application \"{name}\" not found")))
    }

    /// Queue `event` on `unit`, unless the same event already waits there
    /// not yet run: Juju's agent runs a relation-changed for the state it
    /// finds, so two writes before it runs are one event.
    pub fn enqueue(&mut self, unit: &str, event: Pending) {
        if let Some(u) = self.unit_mut(unit)
            && !u.queue.contains(&event)
        {
            u.queue.push_back(event);
        }
    }

    /// `juju deploy`: the application with `units` units, its peer
    /// relations, and each unit's setup (see [`World::setup_unit`]).
    pub fn deploy(
        &mut self,
        name: &str,
        charm: &CharmDir,
        charm_path: std::path::PathBuf,
        source: String,
        units: u32,
    ) -> Result<(), Refused> {
        if self.apps.contains_key(name) {
            return refused(format!(
                "cannot add application \"{name}\": application already exists"
            ));
        }
        if !crate::model::is_app_name(name) {
            return refused(format!("invalid application name \"{name}\""));
        }
        self.apps.insert(
            name.to_string(),
            App {
                charm: charm_path,
                charm_name: charm.metadata.name.clone(),
                revision: 0,
                source,
                kubernetes: charm.metadata.is_kubernetes(),
                ..App::default()
            },
        );
        for (end, interface) in super::topology::peer_ends(name, &charm.metadata) {
            let id = self.next_relation;
            self.next_relation += 1;
            self.relations.insert(
                id,
                Relation {
                    id,
                    interface,
                    ends: vec![end],
                    ..Relation::default()
                },
            );
        }
        for _ in 0..units {
            self.add_unit(name, charm)?;
        }
        Ok(())
    }

    /// `juju add-unit`: a unit with its setup queued; the first unit of
    /// an application leads it.
    pub fn add_unit(&mut self, app: &str, charm: &CharmDir) -> Result<String, Refused> {
        let kubernetes = self.app(app)?.kubernetes;
        let machine = if kubernetes {
            String::new()
        } else {
            let m = self.next_machine;
            self.next_machine += 1;
            m.to_string()
        };
        let a = self.app_mut(app)?;
        let n = a.next_unit;
        // The unit is inserted below, once its address is known.
        a.next_unit += 1;
        let name = format!("{app}/{n}");
        let leads = a.leader.is_none();
        if leads {
            a.leader = Some(name.clone());
        }
        let k = self.units_made;
        self.units_made += 1;
        let address = format!("10.0.{}.{}", k / 240, k % 240 + 10);
        let mut unit = Unit {
            name: name.clone(),
            machine,
            address: address.clone(),
            ..Unit::default()
        };
        for binding in crate::offline::bindings(charm) {
            unit.state.sim.model.networks.insert(
                binding,
                crate::offline::network::SimNetwork {
                    address: Some(address.clone()),
                    ..Default::default()
                },
            );
        }
        if let Some(a) = self.apps.get_mut(app) {
            a.units.insert(n, unit);
        }
        self.setup_unit(&name, charm, leads);
        Ok(name)
    }

    /// A new unit's setup phase (Juju's "charm lifecycle" documentation):
    /// storage-attached for its storage, install, relation-created for
    /// every relation its application is in (peers included),
    /// leader-elected on the leader (leader-settings-changed on the
    /// others), config-changed, start, and pebble-ready for each container.
    fn setup_unit(&mut self, unit: &str, charm: &CharmDir, leads: bool) {
        let app = World::split_unit(unit).map_or("", |(a, _)| a).to_string();
        for storage in &charm.metadata.storage {
            let id = format!(
                "{storage}/{}",
                World::split_unit(unit).map_or(0, |(_, n)| n)
            );
            let kind = if charm.metadata.block_storage.contains(storage) {
                "block"
            } else {
                "filesystem"
            };
            if let Some(u) = self.unit_mut(unit) {
                u.state.sim.model.storage.insert(
                    id.clone(),
                    crate::offline::sim::SimStorage {
                        kind: kind.to_string(),
                        location: format!("/var/lib/juju/storage/{}", id.replace('/', "-")),
                    },
                );
            }
            self.enqueue(
                unit,
                Pending {
                    hook: format!("{storage}-storage-attached"),
                    storage: Some(id),
                    ..Pending::default()
                },
            );
        }
        self.enqueue(unit, Pending::hook("install"));
        for id in self.relations_of(&app) {
            self.queue_created(unit, id);
        }
        self.enqueue(
            unit,
            Pending::hook(if leads {
                "leader-elected"
            } else {
                "leader-settings-changed"
            }),
        );
        self.enqueue(unit, Pending::hook("config-changed"));
        self.enqueue(unit, Pending::hook("start"));
        for container in &charm.metadata.containers {
            self.enqueue(
                unit,
                Pending {
                    hook: format!("{container}-pebble-ready"),
                    container: Some(container.clone()),
                    ..Pending::default()
                },
            );
        }
    }

    fn queue_created(&mut self, unit: &str, id: u64) {
        let app = World::split_unit(unit).map_or("", |(a, _)| a);
        let Some(rel) = self.relations.get(&id) else {
            return;
        };
        let Some(end) = rel.end_of(app) else {
            return;
        };
        let other = rel.other_app(app).unwrap_or(app).to_string();
        let endpoint = end.endpoint.clone();
        self.enqueue(
            unit,
            Pending {
                hook: format!("{endpoint}-relation-created"),
                relation: Some(id),
                endpoint: Some(endpoint),
                remote_app: Some(other),
                ..Pending::default()
            },
        );
    }

    /// What Juju does once `unit`'s relation-created hook for `id` has
    /// run: the unit enters the relation's scope, and it and every unit
    /// already in scope on the other side see each other join (joined,
    /// then changed); the remote application's bag, when it holds
    /// anything, gives the unit a relation-changed of its own.
    pub fn enter_scope(&mut self, unit: &str, id: u64) {
        let Some(u) = self.unit_mut(unit) else {
            return;
        };
        u.scopes.entry(id).or_default();
        let app = World::split_unit(unit).map_or("", |(a, _)| a).to_string();
        let Some(rel) = self.relations.get(&id) else {
            return;
        };
        let other = rel.other_app(&app).unwrap_or(&app).to_string();
        let app_bag_full =
            rel.app_data.get(&other).is_some_and(|b| !b.is_empty()) && !rel.is_peer();
        let peers: Vec<String> = self
            .units_of(&other)
            .into_iter()
            .filter(|w| {
                w != unit
                    && self
                        .unit(w)
                        .is_some_and(|x| x.scopes.contains_key(&id) && !x.dying)
            })
            .collect();
        let ep_of = |w: &World, who: &str| {
            let a = World::split_unit(who).map_or("", |(a, _)| a);
            w.relations
                .get(&id)
                .and_then(|r| r.end_of(a))
                .map(|e| e.endpoint.clone())
                .unwrap_or_default()
        };
        for w in peers {
            let (mine, theirs) = (ep_of(self, unit), ep_of(self, &w));
            self.enqueue(&w, joined(&theirs, id, &app, unit));
            self.enqueue(&w, changed(theirs, id, &app, Some(unit.to_string())));
            self.enqueue(unit, joined(&mine, id, &other, &w));
            self.enqueue(unit, changed(mine, id, &other, Some(w.clone())));
        }
        if app_bag_full {
            let mine = ep_of(self, unit);
            self.enqueue(unit, changed(mine, id, &other, None));
        }
    }

    /// `juju integrate`: a relation between two endpoints (checked by
    /// `topology`), relation-created queued on every unit of both sides.
    pub fn integrate(
        &mut self,
        a: &str,
        a_charm: &CharmDir,
        b: &str,
        b_charm: &CharmDir,
    ) -> Result<u64, Refused> {
        let (na, nb) = (
            super::topology::Named::parse(a),
            super::topology::Named::parse(b),
        );
        self.app(na.app)?;
        self.app(nb.app)?;
        let existing: Vec<Vec<End>> = self
            .relations
            .values()
            .filter(|r| !r.dying)
            .map(|r| r.ends.clone())
            .collect();
        let pair = super::topology::match_endpoints(
            &na,
            &a_charm.metadata,
            &nb,
            &b_charm.metadata,
            &existing,
        )
        .map_err(Refused)?;
        let interface = a_charm
            .metadata
            .endpoints
            .get(&pair[0].endpoint)
            .map(|e| e.interface.clone())
            .unwrap_or_default();
        let id = self.next_relation;
        self.next_relation += 1;
        self.relations.insert(
            id,
            Relation {
                id,
                interface,
                ends: pair.to_vec(),
                ..Relation::default()
            },
        );
        for app in [na.app, nb.app] {
            for unit in self.units_of(app) {
                if !self.unit(&unit).is_some_and(|u| u.dying) {
                    self.queue_created(&unit, id);
                }
            }
        }
        Ok(id)
    }

    /// `juju remove-relation`: every unit in its scope sees each remote
    /// unit depart, then the relation broken; the relation goes once the
    /// last unit ran relation-broken.
    pub fn remove_relation(&mut self, id: u64) {
        let Some(rel) = self.relations.get_mut(&id) else {
            return;
        };
        rel.dying = true;
        let apps: BTreeSet<String> = rel.ends.iter().map(|e| e.app.clone()).collect();
        for app in apps {
            for unit in self.units_of(&app) {
                self.leave(&unit, id, None);
            }
        }
        self.drop_relation_if_done(id);
    }

    /// Queue on `unit` its departure from relation `id`: departed for each
    /// remote unit it has seen (the departing unit `departing`, else the
    /// remote one), then broken.
    fn leave(&mut self, unit: &str, id: u64, departing: Option<&str>) {
        let app = World::split_unit(unit).map_or("", |(a, _)| a).to_string();
        let Some(seen) = self.unit(unit).and_then(|u| u.scopes.get(&id)).cloned() else {
            return;
        };
        let Some(rel) = self.relations.get(&id) else {
            return;
        };
        let other = rel.other_app(&app).unwrap_or(&app).to_string();
        let endpoint = rel
            .end_of(&app)
            .map(|e| e.endpoint.clone())
            .unwrap_or_default();
        for remote in seen {
            self.enqueue(
                unit,
                departed(&endpoint, id, &other, &remote, departing.unwrap_or(&remote)),
            );
        }
        self.enqueue(
            unit,
            Pending {
                hook: format!("{endpoint}-relation-broken"),
                relation: Some(id),
                endpoint: Some(endpoint),
                remote_app: Some(other),
                ..Pending::default()
            },
        );
    }

    /// A dying relation goes once no unit is in its scope any more; its
    /// grants go with it.
    pub fn drop_relation_if_done(&mut self, id: u64) {
        let dying = self.relations.get(&id).is_some_and(|r| r.dying);
        let anyone = self
            .apps
            .values()
            .flat_map(|a| a.units.values())
            .any(|u| u.scopes.contains_key(&id));
        let queued = self
            .apps
            .values()
            .flat_map(|a| a.units.values())
            .any(|u| u.queue.iter().any(|e| e.relation == Some(id)));
        if dying && !anyone && !queued {
            self.relations.remove(&id);
            for s in self.secrets.values_mut() {
                s.grants.remove(&id);
            }
        }
    }

    /// `juju remove-unit`: the unit departs each relation it is in (and
    /// every unit that saw it join sees it depart), its storage detaches,
    /// then stop and remove; it goes once remove has run.
    pub fn remove_unit(&mut self, unit: &str, charm: &CharmDir) -> Result<(), Refused> {
        let Some(u) = self.unit(unit) else {
            return refused(format!("unit \"{unit}\" not found"));
        };
        if u.dying {
            return Ok(());
        }
        let ids: Vec<u64> = u.scopes.keys().copied().collect();
        let storage: Vec<String> = u.state.sim.model.storage.keys().cloned().collect();
        if let Some(u) = self.unit_mut(unit) {
            u.dying = true;
        }
        for id in ids {
            let Some(rel) = self.relations.get(&id) else {
                continue;
            };
            let app = World::split_unit(unit).map_or("", |(a, _)| a).to_string();
            let other = rel.other_app(&app).unwrap_or(&app).to_string();
            for w in self.units_of(&other) {
                let saw = self
                    .unit(&w)
                    .is_some_and(|x| x.scopes.get(&id).is_some_and(|s| s.contains(unit)));
                if saw && w != unit {
                    let ep = self.relations.get(&id).and_then(|r| {
                        r.end_of(World::split_unit(&w).map_or("", |(a, _)| a))
                            .map(|e| e.endpoint.clone())
                    });
                    self.enqueue(&w, departed(&ep.unwrap_or_default(), id, &app, unit, unit));
                }
            }
            self.leave(unit, id, Some(unit));
        }
        for id in storage {
            let name = id.split('/').next().unwrap_or_default();
            self.enqueue(
                unit,
                Pending {
                    hook: format!("{name}-storage-detaching"),
                    storage: Some(id),
                    ..Pending::default()
                },
            );
        }
        let _ = charm;
        self.enqueue(unit, Pending::hook("stop"));
        self.enqueue(unit, Pending::hook("remove"));
        Ok(())
    }

    /// What Juju does once a dying unit's remove hook has run: the unit
    /// goes, its bags with it; a leader's application elects another.
    pub fn unit_gone(&mut self, unit: &str) {
        let Some((app, n)) = World::split_unit(unit) else {
            return;
        };
        let app = app.to_string();
        for rel in self.relations.values_mut() {
            rel.unit_data.remove(unit);
        }
        let ids: Vec<u64> = self.relations.keys().copied().collect();
        let Some(a) = self.apps.get_mut(&app) else {
            return;
        };
        a.units.remove(&n);
        if a.leader.as_deref() == Some(unit) {
            a.leader = None;
            let next = a.units.values().find(|u| !u.dying).map(|u| u.name.clone());
            if let Some(next) = next {
                self.elect(&next);
            }
        }
        for id in ids {
            self.drop_relation_if_done(id);
        }
        if self
            .apps
            .get(&app)
            .is_some_and(|a| a.dying && a.units.is_empty())
        {
            self.apps.remove(&app);
        }
    }

    /// Leadership moves to `unit`, which runs leader-elected; Juju runs no
    /// hook on the unit that lost it.
    pub fn elect(&mut self, unit: &str) {
        let Some((app, _)) = World::split_unit(unit) else {
            return;
        };
        if let Some(a) = self.apps.get_mut(app) {
            a.leader = Some(unit.to_string());
        }
        self.enqueue(unit, Pending::hook("leader-elected"));
    }

    /// `juju remove-application`: each relation removed, each unit removed;
    /// the application goes with its last unit.
    pub fn remove_application(&mut self, app: &str, charm: &CharmDir) -> Result<(), Refused> {
        self.app(app)?;
        for id in self.relations_of(app) {
            let peer = self.relations.get(&id).is_some_and(Relation::is_peer);
            if !peer {
                self.remove_relation(id);
            }
        }
        for unit in self.units_of(app) {
            self.remove_unit(&unit, charm)?;
        }
        if let Some(a) = self.apps.get_mut(app) {
            a.dying = true;
            if a.units.is_empty() {
                self.apps.remove(app);
            }
        }
        Ok(())
    }

    /// `juju config app k=v …` or `--reset`: config-changed on every unit
    /// when a value changed.
    pub fn set_config(
        &mut self,
        app: &str,
        values: Vec<(String, Option<serde_json::Value>)>,
    ) -> Result<(), Refused> {
        let a = self.app_mut(app)?;
        let before = a.config.clone();
        for (k, v) in values {
            match v {
                Some(v) => {
                    a.config.insert(k, v);
                }
                None => {
                    a.config.remove(&k);
                }
            }
        }
        if a.config != before {
            for unit in self.units_of(app) {
                self.enqueue(&unit, Pending::hook("config-changed"));
            }
        }
        Ok(())
    }

    /// `juju refresh --path`: the new charm in place, upgrade-charm then
    /// config-changed on every unit; each unit keeps its state and store.
    pub fn refresh(
        &mut self,
        app: &str,
        charm_path: std::path::PathBuf,
        source: String,
    ) -> Result<(), Refused> {
        let a = self.app_mut(app)?;
        a.charm = charm_path;
        a.revision += 1;
        a.source = source;
        for unit in self.units_of(app) {
            self.enqueue(&unit, Pending::hook("upgrade-charm"));
            self.enqueue(&unit, Pending::hook("config-changed"));
        }
        Ok(())
    }

    /// `juju trust`: config-changed, as Juju runs it when trust changes.
    pub fn trust(&mut self, app: &str, trusted: bool) -> Result<(), Refused> {
        let a = self.app_mut(app)?;
        if a.trusted != trusted {
            a.trusted = trusted;
            for unit in self.units_of(app) {
                self.enqueue(&unit, Pending::hook("config-changed"));
            }
        }
        Ok(())
    }

    /// An update-status tick on every unit.
    pub fn tick(&mut self) {
        for unit in self.unit_names() {
            if !self.unit(&unit).is_some_and(|u| u.dying) {
                self.enqueue(&unit, Pending::hook("update-status"));
            }
        }
    }
}

fn joined(endpoint: &str, id: u64, remote_app: &str, remote_unit: &str) -> Pending {
    Pending {
        hook: format!("{endpoint}-relation-joined"),
        relation: Some(id),
        endpoint: Some(endpoint.to_string()),
        remote_app: Some(remote_app.to_string()),
        remote_unit: Some(remote_unit.to_string()),
        ..Pending::default()
    }
}

fn departed(
    endpoint: &str,
    id: u64,
    remote_app: &str,
    remote_unit: &str,
    departing: &str,
) -> Pending {
    Pending {
        hook: format!("{endpoint}-relation-departed"),
        relation: Some(id),
        endpoint: Some(endpoint.to_string()),
        remote_app: Some(remote_app.to_string()),
        remote_unit: Some(remote_unit.to_string()),
        departing: Some(departing.to_string()),
        ..Pending::default()
    }
}
