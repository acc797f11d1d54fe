//! Relations: ops' `Model.relations`, `Model.get_relation` and
//! `Relation` with its databags (`relation-ids`, `relation-list`,
//! `relation-get`, `relation-set`).

use std::collections::BTreeMap;
use std::fmt;

use super::ModelError;
use crate::__bindings::wasm_charm::charm::relations as wit;
use crate::interfaces::{BagKind, TypedBag};
use crate::{RelationEvent, RelationRef};

/// A relation databag: this unit's, this application's, a remote unit's or
/// the remote application's (the keys of ops' `relation.data`).
///
/// ```no_run
/// use wasm_charm::model::{self, Databag};
///
/// if let Some(db) = model::get_relation("db")? {
///     let bag = db.data(&Databag::RemoteUnit("postgresql/0".into()))?;
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::relations::Databag;

/// The model hosting a relation's remote application (ops' `RemoteModel`):
/// its `uuid`.
///
/// ```no_run
/// if let Some(db) = wasm_charm::model::get_relation("db")? {
///     println!("db is served from model {}", db.remote_model()?.uuid);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::relations::RemoteModel;

/// The live relations of `endpoint`, ordered by id (ops'
/// `Model.relations[endpoint]`). A relation whose relation-broken event is
/// running is not listed.
///
/// ```no_run
/// use wasm_charm::model;
///
/// for relation in model::relations("website")? {
///     relation.set_local_unit_data(&[("port", "8080")])?;
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "relation-ids")]
pub fn relations(endpoint: &str) -> Result<Vec<Relation>, ModelError> {
    Ok(wit::relation_ids(endpoint)?
        .into_iter()
        .map(Relation::new)
        .collect())
}

/// The one live relation of `endpoint`, as ops' `Model.get_relation`;
/// `None` when there is none, and [`ModelError::TooManyRelations`] when
/// there are several (use [`relations`] for an endpoint that may have more
/// than one).
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn db(_event: &Event) -> Outcome {
///     let Some(relation) = model::get_relation("db")? else {
///         return Ok(Some(Status::blocked("Needs a db relation")));
///     };
///     Ok(None)
/// }
/// ```
#[doc(alias = "relation-ids")]
pub fn get_relation(endpoint: &str) -> Result<Option<Relation>, ModelError> {
    one_relation(endpoint, relations(endpoint)?)
}

fn one_relation(endpoint: &str, mut all: Vec<Relation>) -> Result<Option<Relation>, ModelError> {
    if all.len() > 1 {
        let ids: Vec<String> = all.iter().map(Relation::to_string).collect();
        return Err(ModelError::TooManyRelations(format!(
            "endpoint `{endpoint}` has {} relations ({}), not one; use model::relations",
            all.len(),
            ids.join(", ")
        )));
    }
    Ok(all.pop())
}

/// One relation, and the calls that read and write its data (ops'
/// `Relation` and its `data`).
///
/// Databags are `BTreeMap`s, sorted by key. Get one from [`relations`],
/// [`get_relation`] or an event ([`Relation::from`] a [`RelationEvent`]).
///
/// ```no_run
/// use wasm_charm::prelude::*;
/// use wasm_charm::model::Relation;
///
/// fn db(event: &Event) -> Outcome {
///     let Some(r) = event.relation() else { return Ok(None) };
///     let relation = Relation::from(r);
///     if !relation.app_data()?.contains_key("address") {
///         return Ok(Some(Status::waiting(format!("Waiting for {} data", relation))));
///     }
///     Ok(None)
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Relation {
    relation: RelationRef,
}

impl Relation {
    /// The relation `relation` names.
    ///
    /// ```
    /// use wasm_charm::RelationRef;
    /// use wasm_charm::model::Relation;
    ///
    /// let relation = Relation::new(RelationRef { endpoint: "db".into(), id: 3 });
    /// assert_eq!(relation.to_string(), "db:3");
    /// ```
    pub fn new(relation: RelationRef) -> Self {
        Self { relation }
    }

    /// The endpoint name from metadata.yaml (ops' `Relation.name`).
    ///
    /// ```
    /// use wasm_charm::RelationRef;
    /// use wasm_charm::model::Relation;
    ///
    /// let relation = Relation::new(RelationRef { endpoint: "istio-pilot".into(), id: 1 });
    /// assert_eq!(relation.name(), "istio-pilot");
    /// ```
    pub fn name(&self) -> &str {
        &self.relation.endpoint
    }

    /// Juju's relation id (ops' `Relation.id`).
    ///
    /// ```
    /// use wasm_charm::RelationRef;
    /// use wasm_charm::model::Relation;
    ///
    /// let relation = Relation::new(RelationRef { endpoint: "db".into(), id: 7 });
    /// assert_eq!(relation.id(), 7);
    /// ```
    pub fn id(&self) -> u32 {
        self.relation.id
    }

    /// The remote application, if Juju knows it (ops' `Relation.app`).
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     let app = db.app()?.unwrap_or_default();
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-list")]
    pub fn app(&self) -> Result<Option<String>, ModelError> {
        wit::relation_app(&self.relation)
    }

    /// The model hosting the remote application (ops'
    /// `Relation.remote_model`; Juju 3.6.2 and later): another model's for
    /// a cross-model relation, this model's own otherwise.
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     let local = db.remote_model()?.uuid == wasm_charm::model::context().model_uuid;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-model-get")]
    pub fn remote_model(&self) -> Result<RemoteModel, ModelError> {
        wit::relation_model_get(&self.relation)
    }

    /// The remote units currently in the relation, sorted (ops'
    /// `Relation.units`). During relation-departed the departing unit is
    /// not among them (as Juju's `relation-list` has it), but
    /// [`Relation::unit_data`] still reads its data;
    /// [`Event::departing_unit`](crate::Event::departing_unit) names it.
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     for unit in db.units()? {
    ///         let address = db.unit_data(&unit)?.remove("address");
    ///     }
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-list")]
    pub fn units(&self) -> Result<Vec<String>, ModelError> {
        wit::relation_units(&self.relation)
    }

    /// The remote application's databag (ops' `relation.data[relation.app]`).
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     let address = db.app_data()?.get("address").cloned();
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn app_data(&self) -> Result<BTreeMap<String, String>, ModelError> {
        self.data(&Databag::RemoteApp)
    }

    /// Remote unit `unit`'s databag (ops' `relation.data[unit]`).
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     let data = db.unit_data("postgresql/0")?;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn unit_data(&self, unit: &str) -> Result<BTreeMap<String, String>, ModelError> {
        self.data(&Databag::RemoteUnit(unit.to_owned()))
    }

    /// This unit's databag, with this event's writes so far (ops'
    /// `relation.data[self.unit]`).
    ///
    /// ```no_run
    /// if let Some(db) = wasm_charm::model::get_relation("db")? {
    ///     let published = db.local_unit_data()?.contains_key("port");
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn local_unit_data(&self) -> Result<BTreeMap<String, String>, ModelError> {
        self.data(&Databag::LocalUnit)
    }

    /// This application's databag, with this event's writes so far (ops'
    /// `relation.data[self.app]`). Juju lets only the leader read it.
    ///
    /// ```no_run
    /// use wasm_charm::model;
    ///
    /// if let (Some(db), true) = (model::get_relation("db")?, model::is_leader()?) {
    ///     let published = db.local_app_data()?.contains_key("database");
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn local_app_data(&self) -> Result<BTreeMap<String, String>, ModelError> {
        self.data(&Databag::LocalApp)
    }

    /// Any databag of the relation (ops' `relation.data[...]`).
    ///
    /// ```no_run
    /// use wasm_charm::model::{self, Databag};
    ///
    /// if let Some(db) = model::get_relation("db")? {
    ///     let mine = db.data(&Databag::LocalUnit)?;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn data(&self, bag: &Databag) -> Result<BTreeMap<String, String>, ModelError> {
        Ok(wit::relation_get(&self.relation, bag)?
            .into_iter()
            .collect())
    }

    /// Change keys of this unit's databag; an empty value deletes the key.
    /// Kept only if the handler returns.
    ///
    /// ```no_run
    /// if let Some(website) = wasm_charm::model::get_relation("website")? {
    ///     website.set_local_unit_data(&[("port", "8080"), ("old-key", "")])?;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-set")]
    pub fn set_local_unit_data<K: AsRef<str>, V: AsRef<str>>(
        &self,
        changes: &[(K, V)],
    ) -> Result<(), ModelError> {
        wit::relation_set(&self.relation, wit::LocalBag::Unit, &owned(changes))
    }

    /// Change keys of this application's databag (leader only); an empty
    /// value deletes the key. Kept only if the handler returns.
    ///
    /// ```no_run
    /// use wasm_charm::model;
    ///
    /// if let Some(db) = model::get_relation("db")? {
    ///     if model::is_leader()? {
    ///         db.set_local_app_data(&[("database", "users")])?;
    ///     }
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-set")]
    pub fn set_local_app_data<K: AsRef<str>, V: AsRef<str>>(
        &self,
        changes: &[(K, V)],
    ) -> Result<(), ModelError> {
        wit::relation_set(&self.relation, wit::LocalBag::App, &owned(changes))
    }
}

impl Relation {
    /// A bag read as its interface's typed value
    /// ([`interfaces`](crate::interfaces)): `None` while the bag is empty
    /// (the other side has written nothing yet); an error naming the
    /// relation, the bag and the field when it holds something that is not
    /// the value.
    ///
    /// ```no_run
    /// use wasm_charm::interfaces::postgresql_client_v0::ProviderApp;
    /// use wasm_charm::model::{self, Databag};
    ///
    /// if let Some(db) = model::get_relation("database")? {
    ///     if let Some(answer) = db.read::<ProviderApp>(&Databag::RemoteApp)? {
    ///         let endpoints = answer.endpoints.unwrap_or_default();
    ///     }
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-get")]
    pub fn read<T: TypedBag>(&self, bag: &Databag) -> Result<Option<T>, crate::Error> {
        let data = self.data(bag)?;
        if data.is_empty() {
            return Ok(None);
        }
        T::from_bag(&data).map(Some).map_err(|e| {
            crate::Error::from(crate::interfaces::DataError {
                relation: self.to_string(),
                bag: bag_name(bag),
                interface: format!("{} v{}", T::INTERFACE, T::VERSION),
                field: e.field,
                problem: e.problem,
            })
        })
    }

    /// Write `value` into this unit's or this application's bag (which
    /// one, its type says): every field of the value encoded as the
    /// interface has it, every field it leaves out deleted. The host
    /// checks the write against the interface; kept only if the handler
    /// returns.
    ///
    /// ```no_run
    /// use wasm_charm::interfaces::postgresql_client_v0::RequirerApp;
    ///
    /// if let Some(db) = wasm_charm::model::get_relation("database")? {
    ///     db.write(&RequirerApp {
    ///         requested_secrets: Some(vec!["username".into(), "password".into()]),
    ///         database: Some("shop".into()),
    ///         ..RequirerApp::new()
    ///     })?;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "relation-set")]
    pub fn write<T: TypedBag>(&self, value: &T) -> Result<(), ModelError> {
        let bag = match T::BAG {
            BagKind::App => wit::LocalBag::App,
            BagKind::Unit => wit::LocalBag::Unit,
        };
        wit::relation_set(&self.relation, bag, &value.to_bag())
    }

    /// [`Relation::write`] `value` unless the bag holds it already;
    /// whether it wrote. An unchanged bag queues no relation-changed on
    /// the other side, so a charm that writes what it wants at every
    /// event does not wake its peers for nothing.
    ///
    /// ```no_run
    /// use wasm_charm::interfaces::postgresql_client_v0::RequirerApp;
    ///
    /// if let Some(db) = wasm_charm::model::get_relation("database")? {
    ///     let asked = RequirerApp { database: Some("shop".into()), ..RequirerApp::new() };
    ///     db.write_if_changed(&asked)?;
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn write_if_changed<T: TypedBag + PartialEq>(
        &self,
        value: &T,
    ) -> Result<bool, crate::Error> {
        let bag = match T::BAG {
            BagKind::App => Databag::LocalApp,
            BagKind::Unit => Databag::LocalUnit,
        };
        if self.read::<T>(&bag)?.as_ref() == Some(value) {
            return Ok(false);
        }
        self.write(value)?;
        Ok(true)
    }
}

fn bag_name(bag: &Databag) -> String {
    match bag {
        Databag::LocalUnit => "this unit's bag".into(),
        Databag::LocalApp => "this application's bag".into(),
        Databag::RemoteUnit(u) => format!("{u}'s bag"),
        Databag::RemoteApp => "the remote application's bag".into(),
    }
}

fn owned<K: AsRef<str>, V: AsRef<str>>(changes: &[(K, V)]) -> Vec<(String, String)> {
    changes
        .iter()
        .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
        .collect()
}

/// `endpoint:id`.
///
/// ```
/// use wasm_charm::{RelationRef, model::Relation};
///
/// assert_eq!(Relation::new(RelationRef { endpoint: "db".into(), id: 2 }).to_string(), "db:2");
/// ```
impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.relation.fmt(f)
    }
}

/// The relation's [`RelationRef`], for [`status::set_relation`](crate::status::set_relation)
/// and [`Secret::grant`](super::Secret::grant).
///
/// ```
/// use wasm_charm::{RelationRef, model::Relation};
///
/// let r = RelationRef { endpoint: "db".into(), id: 2 };
/// assert_eq!(Relation::new(r.clone()).as_ref(), &r);
/// ```
impl AsRef<RelationRef> for Relation {
    fn as_ref(&self) -> &RelationRef {
        &self.relation
    }
}

/// The relation a [`RelationRef`] names.
///
/// ```
/// use wasm_charm::{RelationRef, model::Relation};
///
/// let relation: Relation = RelationRef { endpoint: "db".into(), id: 2 }.into();
/// assert_eq!(relation.id(), 2);
/// ```
impl From<RelationRef> for Relation {
    fn from(relation: RelationRef) -> Self {
        Self::new(relation)
    }
}

/// The relation the event is about.
///
/// ```
/// use wasm_charm::{RelationEvent, RelationRef, model::Relation};
///
/// let event = RelationEvent {
///     relation: RelationRef { endpoint: "db".into(), id: 2 },
///     remote_app: "postgresql".into(),
///     remote_unit: None,
///     departing_unit: None,
/// };
/// assert_eq!(Relation::from(&event).name(), "db");
/// ```
impl From<&RelationEvent> for Relation {
    fn from(event: &RelationEvent) -> Self {
        Self::new(event.relation.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_relation_is_an_error_when_there_are_several() {
        let r = |id| {
            Relation::new(RelationRef {
                endpoint: "db".into(),
                id,
            })
        };
        assert_eq!(one_relation("db", vec![]).unwrap(), None);
        assert_eq!(one_relation("db", vec![r(1)]).unwrap(), Some(r(1)));
        let e = one_relation("db", vec![r(1), r(4)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "too many relations: endpoint `db` has 2 relations (db:1, db:4), not one; use model::relations"
        );
    }

    #[test]
    fn relation_from_event() {
        let event = RelationEvent {
            relation: RelationRef {
                endpoint: "db".into(),
                id: 2,
            },
            remote_app: "postgresql".into(),
            remote_unit: None,
            departing_unit: None,
        };
        let relation = Relation::from(&event);
        assert_eq!((relation.name(), relation.id()), ("db", 2));
        assert_eq!(relation.to_string(), "db:2");
        assert_eq!(crate::status::relation_scope(&relation), "relation/db:2");
    }
}
