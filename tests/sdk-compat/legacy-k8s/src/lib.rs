//! A Kubernetes charm as an author wrote it against release 0.1.0 of the
//! SDK, before the names became ops' (CHANGELOG.md): every call here is
//! 0.1.0's, and those 0.2.0 renamed are deprecated, not gone. Do not
//! update it: it is what the compatibility test builds.

use wasm_charm::prelude::*;

const CONTAINER: &str = "app";
const WEBSITE: &str = "website";

fn charm() -> Charm {
    Charm::new()
        .observe("config", On::install() | On::config_changed(), config)
        .observe(
            "app",
            On::pebble_ready(CONTAINER) | On::config_changed(),
            app,
        )
        .observe(
            "website",
            On::relation_joined(WEBSITE) | On::relation_changed(WEBSITE),
            website,
        )
        .observe("show-config", On::action("show-config"), show_config)
}

wasm_charm::export_charm!(charm);

/// The configured port, or why there is none.
fn port() -> Result<Result<u16, String>, model::ModelError> {
    let port = model::config_value("port")?.and_then(|v| v.as_i64());
    Ok(port
        .and_then(|p| u16::try_from(p).ok())
        .filter(|p| *p != 0)
        .ok_or_else(|| "Config item `port` must be a port".to_string()))
}

/// The config, and the secret it names: the token must be there.
fn config(_event: &Event) -> Outcome {
    if let Err(why) = port()? {
        return Ok(Some(Status::blocked(why)));
    }
    let id = model::config_value("token-secret")?
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    if id.is_empty() {
        return Ok(Some(Status::blocked("Config item `token-secret` must be set")));
    }
    let token = match model::secret_get(Some(&id), None) {
        Ok(secret) => secret.peek_content()?.remove("token"),
        Err(e) => {
            let e = Error::from(e);
            return Ok(Some(Status::blocked(format!("token: {}", e.message()))));
        }
    };
    if token.is_none() {
        return Ok(Some(Status::blocked("The token secret has no `token`")));
    }
    model::application_version_set("0.1.0")?;
    Ok(None)
}

/// The application's service, as Pebble reports it; readiness gated on it.
fn app(_event: &Event) -> Outcome {
    if let Ok(image) = model::resource_get("app-image") {
        log::debug(&format!("app image: {image}"));
    }
    let container = pebble::container(CONTAINER);
    match container.get_services(&[CONTAINER]) {
        Ok(services) if services.iter().any(|s| s.is_running()) => {}
        Ok(_) => log::info(&format!("{}: no running service yet", container.name())),
        Err(_) => return Ok(Some(Status::waiting("Waiting for Pebble in app"))),
    }
    probe::set_gate("app-service", true)?;
    Ok(None)
}

/// Tells the related application where the website is.
fn website(_event: &Event) -> Outcome {
    let Some(relation) = model::relation(WEBSITE)? else {
        return Ok(None);
    };
    let Ok(port) = port()? else {
        return Ok(None);
    };
    let network = model::network_get(relation.endpoint())?;
    let seen = model::network_get_for(WEBSITE, &relation)?;
    let address = seen
        .ingress_addresses
        .first()
        .or(network.ingress_addresses.first())
        .cloned()
        .unwrap_or_default();
    let port = port.to_string();
    relation.set_local_app_data(&[("hostname", address.as_str()), ("port", port.as_str())])?;
    Ok(None)
}

/// What the charm reads: every option, and the model's name.
fn show_config(_event: &Event) -> Outcome {
    let mut results: Vec<(String, String)> = model::config_options()?
        .into_iter()
        .map(|option| (format!("config.{}", option.name), option.value.to_json().to_string()))
        .collect();
    results.push(("model".to_string(), model::model_name()));
    action::set_results(results)?;
    Ok(None)
}
