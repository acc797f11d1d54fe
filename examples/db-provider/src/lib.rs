//! A database provider of the `postgresql_client` interface, through the
//! SDK's `DatabaseProvider`, which answers v0's `database` and v1's
//! `requests` as the data platform's libraries do (`endpoints`, the
//! database and `secret-user`, a user secret per relation).
//!
//! * `cluster`: every unit writes its address into its bag of the `cluster`
//!   peer relation, so the leader knows every unit's;
//! * `database`: the leader answers each relation whose requirer named a
//!   database with the endpoints of every unit, sorted (so a bag that did
//!   not change is not written again), and a user secret of the
//!   application's, granted to that relation, made the first time the
//!   relation asks; the other units are replicas.
//! * `rotate-password` (an action): a new revision of every user secret,
//!   which Juju tells each consumer with secret-changed.
//!
//! It runs no database, and its passwords are derived from the relation,
//! not drawn at random: it is the other side of tests and examples.

use wasm_charm::interfaces::database_provider::{DatabaseProvider, User};
use wasm_charm::model;
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe("cluster", On::install() | On::relation("cluster"), cluster)
        .observe(
            "database",
            On::relation("database")
                | On::relation("cluster")
                | On::leader_elected()
                | On::config_changed(),
            database,
        )
        .observe("rotate", On::action("rotate-password"), rotate)
}

wasm_charm::export_charm!(charm);

const PORT: u16 = 5432;

/// This unit's address on `binding`.
fn address(binding: &str) -> Result<String, Error> {
    let network = model::get_binding(binding).network()?;
    Ok(network.bind_address().unwrap_or("127.0.0.1").to_string())
}

/// Publish this unit's address to its peers.
fn cluster(_event: &Event) -> Outcome {
    let Some(peers) = model::get_relation("cluster")? else {
        return Ok(None);
    };
    let mine = address("cluster")?;
    if peers.local_unit_data()?.get("address") != Some(&mine) {
        peers.set_local_unit_data(&[("address", mine.as_str())])?;
    }
    Ok(None)
}

/// Every unit's `host:port`, sorted and joined by commas.
fn endpoints() -> Result<String, Error> {
    let mut hosts = vec![address("database")?];
    if let Some(peers) = model::get_relation("cluster")? {
        for unit in peers.units()? {
            if let Some(a) = peers.unit_data(&unit)?.get("address") {
                hosts.push(a.clone());
            }
        }
    }
    hosts.sort();
    hosts.dedup();
    Ok(hosts
        .iter()
        .map(|h| format!("{h}:{PORT}"))
        .collect::<Vec<_>>()
        .join(","))
}

/// The leader answers every request (v0's and v1's) with the endpoints
/// of every unit and the relation's user; the others are replicas.
fn database(_event: &Event) -> Outcome {
    if !model::is_leader()? {
        return Ok(Some(Status::active("replica")));
    }
    let app = model::app_name();
    let served = provider().answer(&endpoints()?, |request| {
        let id = request.relation.id();
        Ok(User {
            username: format!("relation_{id}"),
            password: format!("pw-{app}-{id}-0"),
        })
    })?;
    let plural = if served == 1 { "" } else { "s" };
    Ok(Some(Status::active(format!(
        "serving {served} database{plural}"
    ))))
}

fn provider() -> DatabaseProvider {
    DatabaseProvider::new("database")
}

/// A new password for every relation's user.
fn rotate(_event: &Event) -> Outcome {
    let mut rotated = 0;
    for relation in model::relations("database")? {
        let Some(secret) = provider().user_secret(&relation)? else {
            continue;
        };
        let content = secret.get_content()?;
        let n: u32 = content
            .get("password")
            .and_then(|p| p.rsplit('-').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let password = format!("pw-{}-{}-{}", model::app_name(), relation.id(), n + 1);
        let user = content.get("username").cloned().unwrap_or_default();
        secret.set_content(&[("username", user.as_str()), ("password", password.as_str())])?;
        rotated += 1;
    }
    wasm_charm::action::set_results([("rotated", rotated.to_string())])?;
    Ok(None)
}
