//! The first-party interfaces through the SDK's typed bags, each in a
//! handler with a scope of its own:
//!
//! * certificate_transfer v1, both sides: the leader sends `count`
//!   certificates on every `send-ca` relation; `receive-ca` shows how many
//!   certificates came, and the leader says which version it speaks when
//!   such a relation is made;
//! * tracing v2, the requirer: the leader asks for `otlp_http` and
//!   `otlp_grpc`; `tracing` shows the OTLP/HTTP receiver once the provider
//!   published it.

use std::collections::BTreeSet;
use wasm_charm::interfaces::certificate_transfer_v1::{ProviderApp, RequirerApp};
use wasm_charm::interfaces::tracing_v2;
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
        .observe(
            "tracing",
            On::install() | On::relation("tracing") | On::leader_elected(),
            tracing,
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
        relation.write_if_changed(&wanted)?;
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

fn tracing(_event: &Event) -> Outcome {
    let Some(relation) = model::get_relation("tracing")? else {
        return Ok(None);
    };
    if model::is_leader()? {
        let wanted = tracing_v2::RequirerApp::new(vec!["otlp_grpc".into(), "otlp_http".into()]);
        relation.write_if_changed(&wanted)?;
    }
    let published = relation.read::<tracing_v2::ProviderApp>(&Databag::RemoteApp)?;
    let http = published
        .iter()
        .flat_map(|p| &p.receivers)
        .find(|r| r.protocol.name == "otlp_http");
    Ok(Some(match http {
        Some(r) => Status::active(format!("tracing to {}", r.url)),
        None => Status::waiting("waiting for a tracing receiver"),
    }))
}
