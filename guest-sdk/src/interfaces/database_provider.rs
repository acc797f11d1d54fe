//! The provider's side of a database, as the data platform's libraries
//! answer on the `postgresql_client` bags: `data_interfaces`' v0 (the
//! requirer names a `database`; the provider answers with `endpoints`,
//! the database and `secret-user`) and `dpcharmlibs-interfaces`' v1
//! (`version: v1` and a list of `requests`, each answered in the
//! provider's `requests` by its `request-id`, the requests answered kept
//! in `data` as they came).
//!
//! Each relation gets one user, made by the charm the first time the
//! relation asks and kept in an application secret granted to the
//! relation (label `wasm-charm.database.<endpoint>.<id>`), so a new
//! leader answers with the same user. A bag is written only when it
//! changes, so an unchanged answer queues nothing on the other side.
//!
//! ```no_run
//! use wasm_charm::interfaces::database_provider::{DatabaseProvider, User};
//! use wasm_charm::prelude::*;
//!
//! fn database(_event: &Event) -> Outcome {
//!     if !model::is_leader()? {
//!         return Ok(Some(Status::active("replica")));
//!     }
//!     let served = DatabaseProvider::new("database").answer("10.0.0.1:5432", |request| {
//!         // ... create the database `request.database` and its user ...
//!         Ok(User {
//!             username: format!("relation_{}", request.relation.id()),
//!             password: "a password drawn for it".into(),
//!         })
//!     })?;
//!     Ok(Some(Status::active(format!("serving {served} databases"))))
//! }
//! ```

use super::postgresql_client_v0::{ProviderApp, RequirerApp, Response};
use crate::Error;
use crate::model::{self, Databag, ModelError, Relation, Secret, SecretOptions, SecretOwner};

/// A database provider on one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseProvider {
    endpoint: String,
}

/// What a requirer asked for on one relation.
#[derive(Debug)]
pub struct Request<'a> {
    /// The relation it asked on.
    pub relation: &'a Relation,
    /// The database (v0's `database`; the first of v1's `requests`).
    pub database: String,
    /// The roles it asked its user to have (`extra-user-roles`).
    pub extra_user_roles: Option<String>,
}

/// A relation's user, as its secret holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The database user's name.
    pub username: String,
    /// Its password.
    pub password: String,
}

impl DatabaseProvider {
    /// The provider on `endpoint` (metadata.yaml's `provides`).
    pub fn new(endpoint: impl Into<String>) -> Self {
        DatabaseProvider {
            endpoint: endpoint.into(),
        }
    }

    /// The label of `relation`'s user secret.
    ///
    /// ```
    /// # use wasm_charm::interfaces::database_provider::DatabaseProvider;
    /// assert_eq!(DatabaseProvider::new("database").label(3), "wasm-charm.database.database.3");
    /// ```
    pub fn label(&self, relation_id: u32) -> String {
        format!("wasm-charm.database.{}.{relation_id}", self.endpoint)
    }

    /// On the leader: answer every relation that asked, with `endpoints`
    /// (`host:port`, comma-separated) and the relation's user, which
    /// `new_user` makes the first time that relation asks. How many
    /// relations are answered. A requirer's bag that does not fit the
    /// interface is skipped and logged with its relation and field, and
    /// the others are still answered.
    pub fn answer(
        &self,
        endpoints: &str,
        mut new_user: impl FnMut(&Request<'_>) -> Result<User, Error>,
    ) -> Result<usize, Error> {
        let mut served = 0;
        for relation in model::relations(&self.endpoint)? {
            let asked = match relation.read::<RequirerApp>(&Databag::RemoteApp) {
                Ok(Some(asked)) => asked,
                Ok(None) => continue,
                Err(e) => {
                    crate::log::warning(format!("skipped: {e}"));
                    continue;
                }
            };
            let v1 = asked.version.as_deref() == Some("v1");
            let first = asked.requests.as_ref().and_then(|r| r.first());
            let request = Request {
                relation: &relation,
                database: match (v1, first, &asked.database) {
                    (true, Some(r), _) => r.resource.clone(),
                    (false, _, Some(database)) => database.clone(),
                    _ => continue,
                },
                extra_user_roles: match (v1, first) {
                    (true, Some(r)) => r.extra_user_roles.clone(),
                    _ => asked.extra_user_roles.clone(),
                },
            };
            let uri = self.user_uri(&request, &mut new_user)?;
            let wanted = if v1 {
                answer_v1(&relation, &asked, endpoints, &uri)?
            } else {
                ProviderApp {
                    endpoints: Some(endpoints.to_string()),
                    database: Some(request.database.clone()),
                    secret_user: Some(uri),
                    ..ProviderApp::new()
                }
            };
            relation.write_if_changed(&wanted)?;
            served += 1;
        }
        Ok(served)
    }

    /// `relation`'s user secret, once it was made.
    pub fn user_secret(&self, relation: &Relation) -> Result<Option<Secret>, Error> {
        match model::get_secret(None, Some(&self.label(relation.id()))) {
            Ok(secret) => Ok(Some(secret)),
            Err(ModelError::NotFound(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The URI of the request's relation's user secret, made (and granted
    /// to the relation) the first time.
    fn user_uri(
        &self,
        request: &Request<'_>,
        new_user: &mut impl FnMut(&Request<'_>) -> Result<User, Error>,
    ) -> Result<String, Error> {
        let secret = match self.user_secret(request.relation)? {
            Some(secret) => secret,
            None => {
                let user = new_user(request)?;
                let options = SecretOptions {
                    label: Some(self.label(request.relation.id())),
                    description: Some(format!(
                        "the database user of {}:{}",
                        self.endpoint,
                        request.relation.id()
                    )),
                    ..SecretOptions::default()
                };
                let secret = model::add_secret(
                    &[
                        ("username", user.username.as_str()),
                        ("password", user.password.as_str()),
                    ],
                    options,
                    SecretOwner::Application,
                )?;
                secret.grant(request.relation, None)?;
                secret
            }
        };
        // Found by its label, its id is its info's, which may be bare.
        let id = secret.require_id()?;
        Ok(if id.starts_with("secret:") {
            id
        } else {
            format!("secret:{id}")
        })
    }
}

/// dpcharmlibs' v1: an answer in `requests` for each request, by its
/// `request-id`, every one with the relation's user; and in `data` the
/// requests answered, as they came (the library reads its requests back
/// from there to match the answers).
fn answer_v1(
    relation: &Relation,
    asked: &RequirerApp,
    endpoints: &str,
    uri: &str,
) -> Result<ProviderApp, Error> {
    let requests = asked.requests.clone().unwrap_or_default();
    // As sent: the library compares its own JSON, field for field.
    let raw: Vec<serde_json::Value> = relation
        .app_data()?
        .get("requests")
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or_default();
    let mut answered = serde_json::Map::new();
    let mut responses = Vec::new();
    for (r, as_sent) in requests.iter().zip(raw) {
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
