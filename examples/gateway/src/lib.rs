//! The gateway charm of the scoped-status problem, on wasm-charm.
//!
//! Three independent concerns, each a handler with a scope of its own, so
//! that one concern going well never hides another's problem:
//!
//! * `config`: blocked until config `kind` is `ingress` or `egress`;
//! * `pilot`: blocked without the istio-pilot relation, waiting without its
//!   data;
//! * `leader`: waiting until this unit is the leader.
//!
//! The same charm on ops, which recomputes all three in collect-status at
//! every hook, is `ops-gateway`; the messages are the same.

use serde::Deserialize;
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe("config", On::install() | On::config_changed(), config)
        .observe("pilot", On::install() | On::relation("istio-pilot"), pilot)
        .observe(
            "leader",
            On::install() | On::leader_elected() | On::config_changed(),
            leader,
        )
}

wasm_charm::export_charm!(charm);

/// The options of config.yaml.
#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    kind: String,
}

/// Blocked until `kind` says which gateway this is.
fn config(_event: &Event) -> Outcome {
    let config: Config = model::load_config()?;
    match config.kind.as_str() {
        "ingress" | "egress" => Ok(None),
        _ => Ok(Some(Status::blocked("Config item `kind` must be set"))),
    }
}

/// Blocked without the istio-pilot relation, waiting until the pilot
/// application has published its service.
fn pilot(_event: &Event) -> Outcome {
    // A relation being broken is no longer listed by the host.
    let Some(relation) = model::get_relation("istio-pilot")? else {
        return Ok(Some(Status::blocked("Waiting for istio-pilot relation")));
    };
    if relation.app()?.is_none() {
        return Ok(Some(Status::blocked("Waiting for istio-pilot relation")));
    }
    let data = relation.app_data()?;
    let has = |key: &str| data.get(key).is_some_and(|value| !value.is_empty());
    if !has("service-name") || !has("service-port") {
        return Ok(Some(Status::waiting(
            "Waiting for istio-pilot relation data",
        )));
    }
    Ok(None)
}

/// Waiting until this unit leads the application.
fn leader(_event: &Event) -> Outcome {
    if model::is_leader()? {
        Ok(None)
    } else {
        Ok(Some(Status::waiting("Waiting for leadership")))
    }
}
