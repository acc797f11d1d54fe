//! A requirer of the `postgresql_client` interface: asks for the database
//! config `database-name` names, and goes active once the provider has
//! answered with endpoints and a user secret it can read.

use wasm_charm::interfaces::postgresql_client_v0::{ProviderApp, RequirerApp};
use wasm_charm::model::{self, Databag, Relation};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "request",
            On::relation("database") | On::config_changed() | On::leader_elected(),
            request,
        )
        .observe(
            "connection",
            On::install() | On::relation("database") | On::secret(),
            connection,
        )
}

wasm_charm::export_charm!(charm);

#[derive(serde::Deserialize)]
struct Config {
    #[serde(rename = "database-name")]
    database_name: String,
}

/// The leader names the database it wants, once per change.
fn request(_event: &Event) -> Outcome {
    if !model::is_leader()? {
        return Ok(None);
    }
    let Some(relation) = model::get_relation("database")? else {
        return Ok(None);
    };
    let config: Config = model::load_config()?;
    // As data_interfaces asks: these fields come in secrets, not the bag.
    let wanted = RequirerApp {
        requested_secrets: Some(
            [
                "username",
                "password",
                "tls",
                "tls-ca",
                "uris",
                "read-only-uris",
            ]
            .map(String::from)
            .to_vec(),
        ),
        database: Some(config.database_name),
        ..RequirerApp::new()
    };
    // Only when it changed: an unchanged bag queues nothing on the other side.
    if relation.read::<RequirerApp>(&Databag::LocalApp)?.as_ref() != Some(&wanted) {
        relation.write(&wanted)?;
    }
    Ok(None)
}

/// Blocked without the relation, waiting without the provider's answer,
/// active with the endpoints and the user the secret holds.
fn connection(event: &Event) -> Outcome {
    let Some(relation) = model::get_relation("database")? else {
        return Ok(Some(Status::blocked("needs a database relation")));
    };
    let refresh = event.secret().is_some();
    match connected(&relation, refresh)? {
        Some((endpoints, user)) => Ok(Some(Status::active(format!(
            "connected to {endpoints} as {user}"
        )))),
        None => Ok(Some(Status::waiting("waiting for database credentials"))),
    }
}

/// The provider's endpoints and the user of its secret, when it has
/// answered; on secret-changed the secret's newest revision.
fn connected(relation: &Relation, refresh: bool) -> Result<Option<(String, String)>, Error> {
    let Some(answer) = relation.read::<ProviderApp>(&Databag::RemoteApp)? else {
        return Ok(None);
    };
    let (Some(endpoints), Some(uri)) = (answer.endpoints, answer.secret_user) else {
        return Ok(None);
    };
    let secret = model::get_secret(Some(&uri), None)?;
    let content = if refresh {
        secret.refresh_content()?
    } else {
        secret.get_content()?
    };
    let user = content.get("username").cloned().unwrap_or_default();
    let password = content.get("password").cloned().unwrap_or_default();
    // What a real client would connect with; logged so a test sees a rotation.
    wasm_charm::log::info(format!("credentials {user}/{password}"));
    Ok(Some((endpoints, user)))
}
