//! A database provider of the `postgresql_client` interface, through the
//! SDK's typed bags of it (`interfaces::postgresql_client_v0`: the requirer's `database`, the
//! provider's `endpoints`, `database` and `secret-user`).
//!
//! * `cluster`: every unit writes its address into its bag of the `cluster`
//!   peer relation, so the leader knows every unit's;
//! * `database`: the leader answers each relation whose requirer named a
//!   database with the endpoints of every unit, sorted (so a bag that did
//!   not change is not written again), and a user secret of the
//!   application's, granted to that relation; the other units are replicas.
//! * `rotate-password` (an action): a new revision of every user secret,
//!   which Juju tells each consumer with secret-changed.
//!
//! It runs no database, and its passwords are derived from the relation,
//! not drawn at random: it is the other side of tests and examples.

use wasm_charm::interfaces::postgresql_client_v0::{ProviderApp, RequirerApp, Response};
use wasm_charm::model::{self, Databag, Relation, SecretOptions, SecretOwner};
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

fn label(relation: &Relation) -> String {
    format!("user-{}", relation.id())
}

/// The relation's user secret: found by its label, else created and
/// granted to the relation.
fn user_secret(relation: &Relation) -> Result<model::Secret, Error> {
    let label = label(relation);
    if let Ok(secret) = model::get_secret(None, Some(&label)) {
        return Ok(secret);
    }
    let user = format!("relation_{}", relation.id());
    let password = format!("pw-{}-{}-0", model::app_name(), relation.id());
    let options = SecretOptions {
        label: Some(label),
        ..Default::default()
    };
    let secret = model::add_secret(
        &[("username", user.as_str()), ("password", password.as_str())],
        options,
        SecretOwner::Application,
    )?;
    secret.grant(relation, None)?;
    Ok(secret)
}

/// The leader answers every request; the others are replicas.
fn database(_event: &Event) -> Outcome {
    if !model::is_leader()? {
        return Ok(Some(Status::active("replica")));
    }
    let endpoints = endpoints()?;
    let mut served = 0;
    for relation in model::relations("database")? {
        let Some(request) = relation.read::<RequirerApp>(&Databag::RemoteApp)? else {
            continue;
        };
        let secret = user_secret(&relation)?;
        // A secret found by its label carries no id: its info has it.
        let uri = match &secret.id {
            Some(id) => id.clone(),
            None => secret.get_info()?.id,
        };
        // Juju's info gives the bare id; the bag holds the URI a consumer reads.
        let uri = if uri.starts_with("secret:") {
            uri
        } else {
            format!("secret:{uri}")
        };
        let wanted = match &request.version {
            Some(v) if v == "v1" => answer_v1(&relation, &request, &endpoints, &uri)?,
            _ => {
                let Some(database) = request.database else {
                    continue;
                };
                ProviderApp {
                    endpoints: Some(endpoints.clone()),
                    database: Some(database),
                    secret_user: Some(uri),
                    ..ProviderApp::new()
                }
            }
        };
        // Only when it changed: an unchanged bag queues nothing on the other side.
        if relation.read::<ProviderApp>(&Databag::LocalApp)?.as_ref() != Some(&wanted) {
            relation.write(&wanted)?;
        }
        served += 1;
    }
    let plural = if served == 1 { "" } else { "s" };
    Ok(Some(Status::active(format!(
        "serving {served} database{plural}"
    ))))
}

/// dpcharmlibs' v1: an answer in `requests` for each request, by its
/// `request-id`, every one with the relation's user; and in `data` the
/// requests answered, as they came (the library reads its requests back
/// from there to match the answers).
fn answer_v1(
    relation: &Relation,
    request: &RequirerApp,
    endpoints: &str,
    uri: &str,
) -> Result<ProviderApp, Error> {
    let asked = request.requests.clone().unwrap_or_default();
    let raw: Vec<serde_json::Value> = relation
        .app_data()?
        .get("requests")
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or_default();
    let mut answered = serde_json::Map::new();
    let mut responses = Vec::new();
    for (r, as_sent) in asked.iter().zip(raw) {
        let Some(id) = r.request_id.clone() else {
            continue;
        };
        answered.insert(id.clone(), as_sent);
        responses.push(Response {
            resource: Some(r.resource.clone()),
            salt: r.salt.clone(),
            endpoints: Some(endpoints.to_string()),
            secret_user: Some(uri.to_string()),
            ..Response::new(id)
        });
    }
    Ok(ProviderApp {
        version: Some("v1".into()),
        requests: Some(responses),
        data: Some(answered),
        ..ProviderApp::new()
    })
}

/// A new password for every relation's user.
fn rotate(_event: &Event) -> Outcome {
    let mut rotated = 0;
    for relation in model::relations("database")? {
        let Ok(secret) = model::get_secret(None, Some(&label(&relation))) else {
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
