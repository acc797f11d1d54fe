//! The requirer's side of a database, as the data platform's
//! `data_interfaces` library (`DatabaseRequires`) behaves, on the
//! `postgresql_client` v0 bags: the leader asks for a database, the
//! provider answers with endpoints and a user secret, and the library's
//! events (`database_created`, `endpoints_changed`,
//! `read_only_endpoints_changed`) reach the charm as a [`DatabaseEvent`].
//!
//! "Waiting for the database" is the handler's own scope: it is shown
//! while the relation has no answer and clears itself once the provider
//! answered, without another handler having to know.
//!
//! ```no_run
//! use wasm_charm::interfaces::database::{DatabaseEvent, DatabaseRequirer};
//! use wasm_charm::prelude::*;
//!
//! fn charm() -> Charm {
//!     DatabaseRequirer::new("database", "app").observe(Charm::new(), "connection", |event| {
//!         let c = event.credentials();
//!         // ... write the workload's configuration from `c` ...
//!         Ok(Some(Status::active(format!("connected to {} as {}", c.endpoints, c.username))))
//!     })
//! }
//! ```

use super::postgresql_client_v0::{ProviderApp, RequirerApp};
use crate::charm::{Charm, On};
use crate::event::Event;
use crate::model::{self, Databag, Relation};
use crate::{Error, Outcome, Status, stored};
use serde::{Deserialize, Serialize};

/// The fields `data_interfaces` asks to receive in secrets rather than
/// in the bag, as its requirer asks for them.
const REQUESTED_SECRETS: [&str; 6] = [
    "username",
    "password",
    "tls",
    "tls-ca",
    "uris",
    "read-only-uris",
];

/// One database a charm needs over one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseRequirer {
    endpoint: String,
    database: Name,
    extra_user_roles: Option<String>,
}

/// Where the database's name comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Name {
    Fixed(String),
    /// A config option, read at each event, so a change asks again.
    Config(String),
}

/// What the provider answered: the endpoints and the user to connect as,
/// read from the user secret it granted (or from the bag, for a provider
/// of before secrets).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Credentials {
    /// `host:port`, comma-separated.
    pub endpoints: String,
    /// The replicas', when the provider has them.
    pub read_only_endpoints: Option<String>,
    /// The user the provider made for this application.
    pub username: String,
    /// Its password.
    pub password: String,
    /// The database the provider made.
    pub database: String,
    /// Connection URIs, when the provider gives them.
    pub uris: Option<String>,
    /// The provider's CA, when its endpoints speak TLS.
    pub tls_ca: Option<String>,
}

/// The library's events, each with the credentials as they are now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseEvent {
    /// The provider answered for the first time (`database_created`).
    Created(Credentials),
    /// The endpoints changed (`endpoints_changed`).
    EndpointsChanged(Credentials),
    /// The replicas' endpoints changed (`read_only_endpoints_changed`).
    ReadOnlyEndpointsChanged(Credentials),
    /// Nothing the library signals changed (a rotated password, a
    /// config change, an update-status): the charm may still want to act.
    Unchanged(Credentials),
}

impl DatabaseEvent {
    /// The credentials, whichever event this is.
    ///
    /// ```
    /// use wasm_charm::interfaces::database::{Credentials, DatabaseEvent};
    ///
    /// let c = Credentials { endpoints: "10.0.0.1:5432".into(), ..Credentials::default() };
    /// assert_eq!(DatabaseEvent::Created(c.clone()).credentials(), &c);
    /// ```
    pub fn credentials(&self) -> &Credentials {
        match self {
            DatabaseEvent::Created(c)
            | DatabaseEvent::EndpointsChanged(c)
            | DatabaseEvent::ReadOnlyEndpointsChanged(c)
            | DatabaseEvent::Unchanged(c) => c,
        }
    }

    /// The event the library would emit on going from `before` (`None`:
    /// nothing answered yet) to `now`. Pure, so a charm's tests can check
    /// it without a model.
    ///
    /// ```
    /// use wasm_charm::interfaces::database::{Credentials, DatabaseEvent};
    ///
    /// let one = Credentials { endpoints: "a:1".into(), ..Credentials::default() };
    /// let two = Credentials { endpoints: "b:1".into(), ..one.clone() };
    /// assert_eq!(DatabaseEvent::between(None, one.clone()), DatabaseEvent::Created(one.clone()));
    /// assert_eq!(DatabaseEvent::between(Some(&one), two.clone()), DatabaseEvent::EndpointsChanged(two));
    /// assert_eq!(DatabaseEvent::between(Some(&one), one.clone()), DatabaseEvent::Unchanged(one));
    /// ```
    pub fn between(before: Option<&Credentials>, now: Credentials) -> DatabaseEvent {
        match before {
            None => DatabaseEvent::Created(now),
            Some(b) if b.endpoints != now.endpoints => DatabaseEvent::EndpointsChanged(now),
            Some(b) if b.read_only_endpoints != now.read_only_endpoints => {
                DatabaseEvent::ReadOnlyEndpointsChanged(now)
            }
            Some(_) => DatabaseEvent::Unchanged(now),
        }
    }
}

impl DatabaseRequirer {
    /// A requirer of `database` over `endpoint` (a `postgresql_client`
    /// endpoint of metadata.yaml).
    ///
    /// ```
    /// use wasm_charm::interfaces::database::DatabaseRequirer;
    ///
    /// let db = DatabaseRequirer::new("database", "app").extra_user_roles("SUPERUSER");
    /// assert_eq!(db.request("app").extra_user_roles.as_deref(), Some("SUPERUSER"));
    /// ```
    pub fn new(endpoint: impl Into<String>, database: impl Into<String>) -> Self {
        DatabaseRequirer {
            endpoint: endpoint.into(),
            database: Name::Fixed(database.into()),
            extra_user_roles: None,
        }
    }

    /// A requirer of the database that config option `option` names,
    /// asked for again when it changes; without a value, nothing is asked.
    ///
    /// ```no_run
    /// use wasm_charm::interfaces::database::DatabaseRequirer;
    ///
    /// let db = DatabaseRequirer::from_config("database", "database-name");
    /// assert_eq!(db.database()?.as_deref(), Some("app"));
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn from_config(endpoint: impl Into<String>, option: impl Into<String>) -> Self {
        DatabaseRequirer {
            endpoint: endpoint.into(),
            database: Name::Config(option.into()),
            extra_user_roles: None,
        }
    }

    /// The database's name now: `None` when its config option has no
    /// value (or is not a string).
    pub fn database(&self) -> Result<Option<String>, Error> {
        Ok(match &self.database {
            Name::Fixed(name) => Some(name.clone()),
            Name::Config(option) => model::config()?
                .get(option)
                .and_then(|v| v.as_str())
                .map(str::to_string),
        })
    }

    /// Ask for these roles too (`extra-user-roles`).
    pub fn extra_user_roles(mut self, roles: impl Into<String>) -> Self {
        self.extra_user_roles = Some(roles.into());
        self
    }

    /// What the leader writes to its application's bag to ask for
    /// `database`.
    pub fn request(&self, database: &str) -> RequirerApp {
        RequirerApp {
            database: Some(database.to_string()),
            extra_user_roles: self.extra_user_roles.clone(),
            requested_secrets: Some(REQUESTED_SECRETS.map(String::from).to_vec()),
            ..RequirerApp::new()
        }
    }

    /// Add the two handlers of the database to `charm`:
    ///
    /// * `<name>-request`: the leader writes the request when it differs
    ///   from what the bag holds, so an unchanged request queues nothing;
    /// * `<name>`: its scope is blocked without the relation and waiting
    ///   until the provider answered; then `on_event` runs with the
    ///   library's event, and its status is the scope's.
    ///
    /// # Panics
    ///
    /// As [`Charm::observe`], when the names are taken.
    pub fn observe<F>(self, charm: Charm, name: &str, on_event: F) -> Charm
    where
        F: Fn(&DatabaseEvent) -> Outcome + 'static,
    {
        let requester = self.clone();
        // Both handlers run when the relation or the charm changes.
        let both = On::relation(self.endpoint.clone()) | On::install() | On::upgrade_charm();
        let asks = both.clone() | On::leader_elected() | On::config_changed();
        let reads = both | On::secret() | On::update_status();
        charm
            .observe(&format!("{name}-request"), asks, move |_| {
                requester.write_request()
            })
            .observe(name, reads, move |event| self.connection(event, &on_event))
    }

    /// The provider's answer now, `None` before it answered; other
    /// handlers may read it.
    pub fn credentials(&self) -> Result<Option<Credentials>, Error> {
        match model::get_relation(&self.endpoint)? {
            Some(relation) => match self.database()? {
                Some(database) => self.read(&relation, &database, false),
                None => Ok(None),
            },
            None => Ok(None),
        }
    }

    /// Why no database is named (only a config option can be unset).
    fn unnamed(&self) -> String {
        match &self.database {
            Name::Config(option) => format!("set config option {option}: it names the database"),
            Name::Fixed(_) => "no database named".to_string(),
        }
    }

    fn write_request(&self) -> Outcome {
        if !model::is_leader()? {
            return Ok(None);
        }
        let Some(relation) = model::get_relation(&self.endpoint)? else {
            return Ok(None);
        };
        let Some(database) = self.database()? else {
            return Ok(None);
        };
        relation.write_if_changed(&self.request(&database))?;
        Ok(None)
    }

    fn connection(&self, event: &Event, on_event: &dyn Fn(&DatabaseEvent) -> Outcome) -> Outcome {
        let Some(relation) = model::get_relation(&self.endpoint)? else {
            return Ok(Some(Status::blocked(format!(
                "needs a {} relation",
                self.endpoint
            ))));
        };
        let Some(database) = self.database()? else {
            return Ok(Some(Status::blocked(self.unnamed())));
        };
        let Some(now) = self.read(&relation, &database, event.secret().is_some())? else {
            return Ok(Some(Status::waiting(format!(
                "waiting for database {database} on {}:{}",
                self.endpoint,
                relation.id()
            ))));
        };
        // What the library keeps in the bag to tell events apart is kept
        // in the charm's own store here: every unit has it, and a failed
        // hook keeps nothing, so the event comes again on the retry.
        let key = format!("wasm-charm.database.{}.{}", self.endpoint, relation.id());
        let before: Option<Credentials> = stored::get(&key)?;
        if before.as_ref() != Some(&now) {
            stored::set(&key, &now)?;
        }
        on_event(&DatabaseEvent::between(before.as_ref(), now))
    }

    /// The answer in the remote application's bag, with the user from
    /// its secret (the newest revision on secret-changed).
    fn read(
        &self,
        relation: &Relation,
        database: &str,
        refresh: bool,
    ) -> Result<Option<Credentials>, Error> {
        let Some(answer) = relation.read::<ProviderApp>(&Databag::RemoteApp)? else {
            return Ok(None);
        };
        let Some(endpoints) = answer.endpoints else {
            return Ok(None);
        };
        // Each granted secret read alike: its newest revision on a secret event.
        let content_of = |uri: &str| {
            let secret = model::get_secret(Some(uri), None)?;
            if refresh {
                secret.refresh_content()
            } else {
                secret.get_content()
            }
        };
        let (username, password, uris, tls_ca) = match &answer.secret_user {
            Some(uri) => {
                let mut content = content_of(uri)?;
                let tls_ca = match &answer.secret_tls {
                    Some(tls) => content_of(tls)?.remove("tls-ca"),
                    None => None,
                };
                (
                    content.remove("username"),
                    content.remove("password"),
                    content.remove("uris"),
                    tls_ca,
                )
            }
            // A provider that keeps the user in the bag.
            None => (answer.username, answer.password, answer.uris, answer.tls_ca),
        };
        let (Some(username), Some(password)) = (username, password) else {
            return Ok(None);
        };
        Ok(Some(Credentials {
            endpoints,
            read_only_endpoints: answer.read_only_endpoints,
            username,
            password,
            database: answer.database.unwrap_or_else(|| database.to_string()),
            uris,
            tls_ca,
        }))
    }
}
