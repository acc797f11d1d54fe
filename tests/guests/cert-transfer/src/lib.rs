//! Both sides of certificate_transfer v1 through the SDK's typed bags: the
//! leader sends `count` certificates on every `send-ca` relation; every unit
//! shows how many certificates `receive-ca` brought, and the leader says
//! which version it speaks when a `receive-ca` relation is made.

use std::collections::BTreeSet;
use wasm_charm::interfaces::certificate_transfer_v1::{ProviderApp, RequirerApp};
use wasm_charm::model::{self, Databag};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "send",
            On::relation("send-ca") | On::config_changed() | On::leader_elected(),
            send,
        )
        .observe(
            "receive",
            On::install() | On::relation("receive-ca"),
            receive,
        )
}

wasm_charm::export_charm!(charm);

#[derive(serde::Deserialize)]
struct Config {
    count: i64,
}

/// The certificates this charm sends: `count` of them, named by the app.
fn ours() -> Result<BTreeSet<String>, Error> {
    let config: Config = model::load_config()?;
    let app = model::app_name();
    Ok((1..=config.count.max(0))
        .map(|n| format!("-----BEGIN CERTIFICATE-----\n{app}-{n}\n-----END CERTIFICATE-----"))
        .collect())
}

fn send(_event: &Event) -> Outcome {
    if !model::is_leader()? {
        return Ok(None);
    }
    let wanted = ProviderApp::new(ours()?, 1);
    for relation in model::relations("send-ca")? {
        // Only when it changed: the other side sees no event otherwise.
        if relation.read::<ProviderApp>(&Databag::LocalApp)?.as_ref() != Some(&wanted) {
            relation.write(&wanted)?;
        }
    }
    Ok(None)
}

fn receive(event: &Event) -> Outcome {
    let relations = model::relations("receive-ca")?;
    if relations.is_empty() {
        return Ok(Some(Status::blocked("needs a receive-ca relation")));
    }
    let mut received = BTreeSet::new();
    for relation in &relations {
        let created = event
            .relation()
            .is_some_and(|r| r.relation.id == relation.id())
            && event.kind() == EventKind::RelationCreated;
        if created && model::is_leader()? {
            relation.write(&RequirerApp::new(1))?;
        }
        if let Some(sent) = relation.read::<ProviderApp>(&Databag::RemoteApp)? {
            received.extend(sent.certificates);
        }
    }
    if received.is_empty() {
        return Ok(Some(Status::waiting("waiting for certificates")));
    }
    Ok(Some(Status::active(format!(
        "received {} certificates",
        received.len()
    ))))
}
