//! The gateway example (`examples/gateway`) as a later version of it might
//! be: the same handlers and events, with the message of an unset `kind`
//! reworded. `tests/replay.rs` replays a recording of
//! the gateway with this component, and expects exactly that change.

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

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    kind: String,
}

/// The reworded message.
const UNSET: &str = "Set config `kind` to ingress or egress";

fn config(_event: &Event) -> Outcome {
    let config: Config = model::config()?;
    match config.kind.as_str() {
        "ingress" | "egress" => Ok(None),
        _ => Ok(Some(Status::blocked(UNSET))),
    }
}

fn pilot(_event: &Event) -> Outcome {
    let Some(relation) = model::relation("istio-pilot")? else {
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

fn leader(_event: &Event) -> Outcome {
    if model::is_leader()? {
        Ok(None)
    } else {
        Ok(Some(Status::waiting("Waiting for leadership")))
    }
}
