//! `juju status` and `juju show-unit` of a model, in Juju's JSON schema
//! (what jubilant's `Status.from_dict` reads: `cmd/juju/status/formatted.go`
//! in Juju), as YAML, or as the table a person reads.

use crate::status::merge::Written;
use crate::world::World;
use crate::world::state::{App, Unit};
use serde_json::{Value, json};

/// Juju's severity order of workload statuses, for an application whose
/// leader set none: the worst of its units' (`core/status` `DeriveStatus`).
fn severity(status: &str) -> u8 {
    match status {
        "error" => 5,
        "blocked" => 4,
        "maintenance" => 3,
        "waiting" => 2,
        "active" => 1,
        _ => 0,
    }
}

fn since(world: &World) -> String {
    crate::show::utc(world.clock)
}

/// A unit's workload status as Juju shows it: `error` with the failed
/// hook, else what its charm last set, else `unknown`.
pub fn workload(unit: &Unit) -> (String, String) {
    if let Some(failed) = &unit.error {
        return ("error".into(), failed.message.clone());
    }
    match &unit.state.sim.model.status.unit {
        Some(Written { status, message }) => (status.as_str().to_string(), message.clone()),
        None => ("unknown".into(), String::new()),
    }
}

/// The application's status: the leader's, else its units' worst.
pub fn app_status(app: &App) -> (String, String) {
    if let Some(Written { status, message }) = &app.status {
        return (status.as_str().to_string(), message.clone());
    }
    app.units
        .values()
        .map(workload)
        .max_by_key(|(s, _)| severity(s))
        .unwrap_or_else(|| ("unknown".into(), String::new()))
}

fn status_value(current: &str, message: &str, at: &str) -> Value {
    let mut v = json!({ "current": current, "since": at });
    if !message.is_empty() {
        v["message"] = json!(message);
    }
    v
}

fn unit_json(world: &World, app: &App, unit: &Unit) -> Value {
    let at = since(world);
    let (current, message) = workload(unit);
    let agent = if unit.error.is_some() || unit.queue.is_empty() {
        "idle"
    } else {
        "executing"
    };
    let mut v = json!({
        "workload-status": status_value(&current, &message, &at),
        "juju-status": { "current": agent, "since": at, "version": "3.6.4" },
        "public-address": unit.address,
    });
    if app.leader.as_deref() == Some(unit.name.as_str()) {
        v["leader"] = json!(true);
    }
    if !unit.machine.is_empty() {
        v["machine"] = json!(unit.machine);
    } else {
        v["address"] = json!(unit.address);
    }
    let ports: Vec<&String> = unit.state.sim.model.opened_ports.keys().collect();
    if !ports.is_empty() {
        v["open-ports"] = json!(ports);
    }
    v
}

/// A unit's machine, as `juju status` shows it.
fn machine_json(world: &World, unit: &Unit, at: &str) -> Value {
    let instance = format!("juju-{}-{}", &world.uuid[..6], unit.machine);
    json!({
        "juju-status": { "current": "started", "since": at, "version": "3.6.4" },
        "hostname": instance,
        "dns-name": unit.address,
        "ip-addresses": [unit.address],
        "instance-id": instance,
        "machine-status": { "current": "running", "message": "Running", "since": at },
        "modification-status": { "current": "idle", "since": at },
        "base": { "name": "ubuntu", "channel": "22.04" },
    })
}

/// `juju status --format json`.
pub fn status_json(world: &World) -> Value {
    let at = since(world);
    let kubernetes = !world.apps.is_empty() && world.apps.values().all(|a| a.kubernetes);
    let mut machines = serde_json::Map::new();
    let mut apps = serde_json::Map::new();
    for (name, app) in &world.apps {
        let mut units = serde_json::Map::new();
        for unit in app.units.values() {
            units.insert(unit.name.clone(), unit_json(world, app, unit));
            if !unit.machine.is_empty() {
                machines.insert(unit.machine.clone(), machine_json(world, unit, &at));
            }
        }
        let (current, message) = app_status(app);
        let mut relations = serde_json::Map::new();
        for rel in world.relations.values() {
            let Some(end) = rel.end_of(name) else {
                continue;
            };
            let other = rel.other_app(name).unwrap_or(name);
            let entry = relations
                .entry(end.endpoint.clone())
                .or_insert_with(|| json!([]));
            if let Some(list) = entry.as_array_mut() {
                list.push(json!({
                    "related-application": other,
                    "interface": rel.interface,
                    "scope": "global",
                }));
            }
        }
        let mut v = json!({
            "charm": app.charm_name,
            "charm-origin": "local",
            "charm-name": app.charm_name,
            "charm-rev": app.revision,
            "base": { "name": "ubuntu", "channel": "22.04" },
            "exposed": false,
            "application-status": status_value(&current, &message, &at),
            "units": units,
            "endpoint-bindings": { "": "alpha" },
        });
        if !relations.is_empty() {
            v["relations"] = Value::Object(relations);
        }
        if app.kubernetes {
            v["scale"] = json!(app.units.len());
        }
        let version = app
            .units
            .values()
            .find_map(|u| u.state.sim.model.application_version.clone());
        if let Some(version) = version {
            v["version"] = json!(version);
        }
        apps.insert(name.clone(), v);
    }
    json!({
        "model": {
            "name": world.name,
            "type": if kubernetes { "caas" } else { "iaas" },
            "controller": "wasm-charm",
            "cloud": "localhost",
            "region": "localhost",
            "version": "3.6.4",
            "model-status": { "current": "available", "since": at },
            "sla": "unsupported",
        },
        "machines": machines,
        "applications": apps,
        "controller": { "timestamp": at.get(11..19).unwrap_or_default() },
    })
}

/// `juju status` as a person reads it: the model, each application, each
/// unit, and the relations.
pub fn status_table(world: &World) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<12}{:<12}{:<12}{:<9}\n",
        "Model", "Controller", "Cloud", "Version"
    ));
    out.push_str(&format!(
        "{:<12}{:<12}{:<12}{:<9}\n\n",
        world.name, "wasm-charm", "localhost", "3.6.4"
    ));
    out.push_str(&format!(
        "{:<14}{:<14}{:<13}{:<6}{:<7}{}\n",
        "App", "Status", "Charm", "Rev", "Scale", "Message"
    ));
    for (name, app) in &world.apps {
        let (s, m) = app_status(app);
        out.push_str(&format!(
            "{:<14}{:<14}{:<13}{:<6}{:<7}{}\n",
            name,
            s,
            app.charm_name,
            app.revision,
            app.units.len(),
            m
        ));
    }
    out.push_str(&format!(
        "\n{:<14}{:<14}{:<11}{:<14}{}\n",
        "Unit", "Workload", "Agent", "Address", "Message"
    ));
    for app in world.apps.values() {
        for unit in app.units.values() {
            let (s, m) = workload(unit);
            let star = if app.leader.as_deref() == Some(unit.name.as_str()) {
                "*"
            } else {
                ""
            };
            let agent = if unit.queue.is_empty() || unit.error.is_some() {
                "idle"
            } else {
                "executing"
            };
            out.push_str(&format!(
                "{:<14}{:<14}{:<11}{:<14}{}\n",
                format!("{}{star}", unit.name),
                s,
                agent,
                unit.address,
                m
            ));
        }
    }
    let regular: Vec<_> = world.relations.values().collect();
    if !regular.is_empty() {
        out.push_str(&format!(
            "\n{:<24}{:<24}{:<20}{}\n",
            "Integration provider", "Requirer", "Interface", "Type"
        ));
        for rel in regular {
            let (p, r) = match rel.ends.as_slice() {
                [one] => (one, one),
                [a, b] if a.role == "provides" => (a, b),
                [a, b] => (b, a),
                _ => continue,
            };
            let kind = if rel.is_peer() { "peer" } else { "regular" };
            out.push_str(&format!(
                "{:<24}{:<24}{:<20}{}\n",
                format!("{}:{}", p.app, p.endpoint),
                format!("{}:{}", r.app, r.endpoint),
                rel.interface,
                kind
            ));
        }
    }
    out
}

/// `juju show-unit <unit> --format json`: the unit, and each relation it
/// is in with the data of both sides.
pub fn show_unit(world: &World, unit_name: &str) -> Option<Value> {
    let (app_name, _) = World::split_unit(unit_name)?;
    let app = world.apps.get(app_name)?;
    let unit = world.unit(unit_name)?;
    let mut infos = Vec::new();
    for (id, seen) in &unit.scopes {
        let Some(rel) = world.relations.get(id) else {
            continue;
        };
        let Some(end) = rel.end_of(app_name) else {
            continue;
        };
        let other = rel.other_app(app_name).unwrap_or(app_name);
        let related_endpoint = if rel.is_peer() {
            end.endpoint.clone()
        } else {
            rel.end_of(other)
                .map(|e| e.endpoint.clone())
                .unwrap_or_default()
        };
        let mut related = serde_json::Map::new();
        for u in seen {
            related.insert(
                u.clone(),
                json!({ "in-scope": true, "data": rel.unit_data.get(u).cloned().unwrap_or_default() }),
            );
        }
        infos.push(json!({
            "relation-id": id,
            "endpoint": end.endpoint,
            "related-endpoint": related_endpoint,
            "application-data": rel.app_data.get(other).cloned().unwrap_or_default(),
            "local-unit": {
                "in-scope": true,
                "data": rel.unit_data.get(unit_name).cloned().unwrap_or_default(),
            },
            "related-units": related,
        }));
    }
    let (current, message) = workload(unit);
    let mut v = json!({
        "opened-ports": unit.state.sim.model.opened_ports.keys().collect::<Vec<_>>(),
        "charm": format!("local:{}-{}", app.charm_name, app.revision),
        "leader": app.leader.as_deref() == Some(unit_name),
        "life": if unit.dying { "dying" } else { "alive" },
        "relation-info": infos,
        "public-address": unit.address,
        "workload-status": { "current": current, "message": message },
    });
    if !unit.machine.is_empty() {
        v["machine"] = json!(unit.machine);
    }
    Some(json!({ unit_name: v }))
}
