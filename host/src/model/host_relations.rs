//! The guest's relation calls: ids, units, the remote app, and the
//! databags, read through the event's cache and written through the
//! running handler's transaction.

use super::Model;
use super::budget::MAX_RELATION_WRITE;
use super::cache::{Bag, BagKey};
use super::errors::failure;
use super::host_config::is_leader;
use super::names::{is_unit_name, rel_arg};
use super::tool_calls::Caller;
use crate::bindings::RelationRef;
use crate::bindings::model::{Databag, LocalBag, ModelError};
use crate::bindings::parse_relation_id;

pub(super) fn relation_ids(
    m: &mut Model,
    endpoint: String,
) -> Result<Vec<RelationRef>, ModelError> {
    m.facts.check_endpoint(&endpoint)?;
    if let Some(ids) = m.cache.ids.get(&endpoint) {
        return Ok(ids.clone());
    }
    let raw: Option<Vec<String>> = m.json(
        Caller::Guest,
        "relation-ids",
        &["--format=json", "--", &endpoint],
    )?;
    let mut ids = Vec::new();
    for r in raw.unwrap_or_default() {
        let parsed = parse_relation_id(&r)
            .ok_or_else(|| failure("relation-ids", 0, format!("`{r}` is not `<endpoint>:<id>`")))?;
        if !m.facts.is_broken(&parsed) {
            ids.push(parsed);
        }
    }
    ids.sort_by_key(|r| r.id);
    m.cache.ids.insert(endpoint, ids.clone());
    Ok(ids)
}

pub(super) fn relation_units(
    m: &mut Model,
    relation: RelationRef,
) -> Result<Vec<String>, ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    if let Some(u) = m.cache.units.get(&relation.id) {
        return Ok(u.clone());
    }
    let rel = rel_arg(&relation);
    let units: Option<Vec<String>> = m.json(
        Caller::Guest,
        "relation-list",
        &["--format=json", "-r", &rel],
    )?;
    let mut units = units.unwrap_or_default();
    if let Some(leaving) = m.facts.departing_unit(relation.id) {
        units.retain(|u| u != leaving);
    }
    units.sort();
    m.cache.units.insert(relation.id, units.clone());
    Ok(units)
}

pub(super) fn relation_app(
    m: &mut Model,
    relation: RelationRef,
) -> Result<Option<String>, ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    remote_app(m, &relation)
}

pub(super) fn relation_get(
    m: &mut Model,
    relation: RelationRef,
    bag: Databag,
) -> Result<Vec<(String, String)>, ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    let mut data = read_bag(m, &relation, &bag)?;
    let local_app = match bag {
        Databag::LocalUnit => Some(false),
        Databag::LocalApp => Some(true),
        _ => None,
    };
    if let Some(app) = local_app {
        let written = (relation.endpoint.clone(), relation.id, app);
        m.transaction.overlay(&written, &mut data);
    }
    Ok(data.into_iter().collect())
}

pub(super) fn relation_set(
    m: &mut Model,
    relation: RelationRef,
    bag: LocalBag,
    changes: Vec<(String, String)>,
) -> Result<(), ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    validate_changes(&changes)?;
    // A write that cannot succeed is an error now, as in ops (which
    // calls relation-set at once), not a failed hook at the end.
    if !relation_ids(m, relation.endpoint.clone())?.contains(&relation) {
        let why = if m.facts.is_broken(&relation) {
            "it is being broken (relation-broken)"
        } else {
            "Juju does not list it"
        };
        return Err(ModelError::RelationNotFound(format!(
            "cannot write relation data to {}: {why}",
            rel_arg(&relation)
        )));
    }
    let app = bag == LocalBag::App;
    if app && !is_leader(m, Caller::Guest)? {
        return Err(ModelError::NotLeader(format!(
            "only the leader may write the application data of {}",
            rel_arg(&relation)
        )));
    }
    m.transaction
        .write_relation((relation.endpoint, relation.id, app), changes)
}

/// A databag as Juju has it, read once per event.
fn read_bag(m: &mut Model, relation: &RelationRef, bag: &Databag) -> Result<Bag, ModelError> {
    let key = (relation.id, BagKey::from(bag));
    if let Some(b) = m.cache.bags.get(&key) {
        return Ok(b.clone());
    }
    let (owner, app) = bag_owner(m, relation, bag)?;
    let rel = rel_arg(relation);
    let mut args = vec!["--format=json", "-r", rel.as_str()];
    if app {
        args.push("--app");
    }
    // `--`: the key and the owner are positional, whatever they hold.
    args.extend(["--", "-", owner.as_str()]);
    let data: Option<Bag> = m.json(Caller::Guest, "relation-get", &args)?;
    let data = data.unwrap_or_default();
    m.cache.bags.insert(key, data.clone());
    Ok(data)
}

/// Whose bag `bag` is, as `relation-get` names it: the unit or app, and
/// whether it is an app's.
fn bag_owner(
    m: &mut Model,
    relation: &RelationRef,
    bag: &Databag,
) -> Result<(String, bool), ModelError> {
    Ok(match bag {
        Databag::LocalUnit => (m.facts.identity.unit.clone(), false),
        Databag::LocalApp => (m.facts.identity.app.clone(), true),
        Databag::RemoteUnit(u) => {
            if !is_unit_name(u) {
                return Err(ModelError::InvalidArgument(format!(
                    "relation-get: `{}` is not a unit name (`<app>/<number>`, the app as Juju names applications)",
                    u.escape_debug()
                )));
            }
            (u.clone(), false)
        }
        Databag::RemoteApp => match remote_app(m, relation)? {
            Some(app) => (app, true),
            None => {
                return Err(ModelError::RelationNotFound(format!(
                    "{} has no remote application (yet)",
                    rel_arg(relation)
                )));
            }
        },
    })
}

/// The remote app of `relation`: the event's when it names the relation,
/// else `relation-list --app`'s, once per event.
fn remote_app(m: &mut Model, relation: &RelationRef) -> Result<Option<String>, ModelError> {
    if let Some(app) = m.facts.event_app(relation.id) {
        return Ok(Some(app.to_string()));
    }
    if let Some(app) = m.cache.apps.get(&relation.id) {
        return Ok(app.clone());
    }
    let rel = rel_arg(relation);
    let app: Option<String> = m.json(
        Caller::Guest,
        "relation-list",
        &["--format=json", "-r", &rel, "--app"],
    )?;
    let app = app.filter(|a| !a.is_empty());
    m.cache.apps.insert(relation.id, app.clone());
    Ok(app)
}

/// Keys Juju accepts are accepted: the data travels as a YAML map on stdin
/// (`relation-set --file -`), where any non-empty string is a key, `=` and
/// spaces included.
fn validate_changes(changes: &[(String, String)]) -> Result<(), ModelError> {
    let mut size: usize = 0;
    for (k, v) in changes {
        if k.is_empty() {
            return Err(ModelError::InvalidArgument(
                "relation data keys must be non-empty".to_string(),
            ));
        }
        size = size.saturating_add(k.len() + v.len());
    }
    if size > MAX_RELATION_WRITE {
        return Err(ModelError::InvalidArgument(format!(
            "relation data write of {size} bytes is over Juju's {MAX_RELATION_WRITE}"
        )));
    }
    Ok(())
}
