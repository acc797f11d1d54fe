//! The WIT `relations` interface, answered by the event's [`Model`]: ids,
//! units, the remote app, and the databags, read through the event's cache
//! and written through the running handler's transaction.

use super::Model;
use super::budget::MAX_RELATION_WRITE;
use super::cache::{Bag, BagKey};
use super::errors::failure;
use super::host_config::is_leader;
use super::names::{is_unit_name, rel_arg};
use super::tool_calls::Caller;
use crate::bindings::RelationRef;
use crate::bindings::model::ModelError;
use crate::bindings::parse_relation_id;
use crate::bindings::relations::{Databag, Host, LocalBag, RemoteModel};
use crate::schemas;
use wasmtime::component::{HasSelf, Linker};

impl Host for Model {
    fn relation_ids(&mut self, endpoint: String) -> Result<Vec<RelationRef>, ModelError> {
        relation_ids(self, endpoint)
    }

    fn relation_units(&mut self, relation: RelationRef) -> Result<Vec<String>, ModelError> {
        relation_units(self, relation)
    }

    fn relation_app(&mut self, relation: RelationRef) -> Result<Option<String>, ModelError> {
        relation_app(self, relation)
    }

    fn relation_get(
        &mut self,
        relation: RelationRef,
        bag: Databag,
    ) -> Result<Vec<(String, String)>, ModelError> {
        relation_get(self, relation, bag)
    }

    fn relation_model_get(&mut self, relation: RelationRef) -> Result<RemoteModel, ModelError> {
        relation_model_get(self, relation)
    }

    fn relation_set(
        &mut self,
        relation: RelationRef,
        bag: LocalBag,
        changes: Vec<(String, String)>,
    ) -> Result<(), ModelError> {
        relation_set(self, relation, bag, changes)
    }
}

/// Register the `relations` interface, answered by the event's [`Model`]
/// that `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::relations::add_to_linker::<T, HasSelf<Model>>(linker, get)
}

fn relation_ids(m: &mut Model, endpoint: String) -> Result<Vec<RelationRef>, ModelError> {
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

fn relation_units(m: &mut Model, relation: RelationRef) -> Result<Vec<String>, ModelError> {
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

fn relation_app(m: &mut Model, relation: RelationRef) -> Result<Option<String>, ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    remote_app(m, &relation)
}

/// `relation-model-get`'s `{"uuid": …}`.
#[derive(serde::Deserialize)]
struct RemoteModelJson {
    uuid: String,
}

fn relation_model_get(m: &mut Model, relation: RelationRef) -> Result<RemoteModel, ModelError> {
    m.facts.check_endpoint(&relation.endpoint)?;
    if let Some(uuid) = m.cache.remote_models.get(&relation.id) {
        return Ok(RemoteModel { uuid: uuid.clone() });
    }
    let rel = rel_arg(&relation);
    let raw: RemoteModelJson = m.json(
        Caller::Guest,
        "relation-model-get",
        &["--format=json", "-r", &rel],
    )?;
    if raw.uuid.is_empty() {
        return Err(failure(
            "relation-model-get",
            0,
            format!("relation-model-get answered no model UUID for {rel}"),
        ));
    }
    m.cache.remote_models.insert(relation.id, raw.uuid.clone());
    Ok(RemoteModel { uuid: raw.uuid })
}

fn relation_get(
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

fn relation_set(
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
    fits_contract(m, &relation, app, &changes)?;
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
pub(super) fn remote_app(
    m: &mut Model,
    relation: &RelationRef,
) -> Result<Option<String>, ModelError> {
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
/// A write to an endpoint whose interface has a description must fit
/// this charm's side of it: each value written (an empty one deletes) is
/// checked, and the first field that does not fit refuses the whole write.
fn fits_contract(
    m: &Model,
    relation: &RelationRef,
    app: bool,
    changes: &[(String, String)],
) -> Result<(), ModelError> {
    let Some(c) = m.facts.contracts.get(&relation.endpoint) else {
        return Ok(());
    };
    let Some(description) = schemas::for_interface(&c.interface) else {
        return Ok(());
    };
    let written: std::collections::BTreeMap<String, String> = changes
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .cloned()
        .collect();
    let bag = if app {
        schemas::Bag::App
    } else {
        schemas::Bag::Unit
    };
    match schemas::check_bag(description, c.role, bag, &written, false).first() {
        None => Ok(()),
        Some(v) => Err(ModelError::InvalidArgument(format!(
            "relation-set on {}: does not fit {} (the {}'s {}): {v}; nothing was written",
            rel_arg(relation),
            description.title(),
            c.role.name(),
            bag.name()
        ))),
    }
}

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

#[cfg(test)]
mod tests {
    use crate::bindings::RelationRef;
    use crate::bindings::model::ModelError;
    use crate::bindings::relations::{Databag, Host, LocalBag};
    use crate::hook_tools::ToolOutput;
    use crate::model::MAX_RELATION_BYTES_PER_EVENT;
    use crate::model::tests::{model, rel, tool_calls};

    #[test]
    fn relation_writes_follow_the_handler_and_go_out_once_per_bag() {
        let (mut m, calls) = model(&[
            ("relation-get", ToolOutput::ok(r#"{"a": "1", "b": "2"}"#)),
            ("relation-set", ToolOutput::ok("")),
            ("is-leader", ToolOutput::ok("false")),
            ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
        ]);
        // A trapped handler's writes vanish.
        m.relation_set(rel(1), LocalBag::Unit, vec![("x".into(), "lost".into())])
            .unwrap();
        m.abort_handler();
        // A returned handler's writes are visible to the next one at once.
        m.relation_set(
            rel(1),
            LocalBag::Unit,
            vec![("a".into(), "".into()), ("c".into(), "3".into())],
        )
        .unwrap();
        m.commit_handler();
        m.relation_set(rel(1), LocalBag::Unit, vec![("d".into(), "4".into())])
            .unwrap();
        m.commit_handler();
        let bag = m.relation_get(rel(1), Databag::LocalUnit).unwrap();
        assert_eq!(
            bag,
            vec![
                ("b".into(), "2".into()),
                ("c".into(), "3".into()),
                ("d".into(), "4".into())
            ]
        );
        // The app bag needs leadership.
        assert!(matches!(
            m.relation_set(rel(1), LocalBag::App, vec![("k".into(), "v".into())]),
            Err(ModelError::NotLeader(_))
        ));
        m.flush().unwrap();
        let calls = calls.lock().unwrap();
        let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].1, ["-r", "db:1", "--file", "-"]);
        assert_eq!(sets[0].2.as_deref(), Some(r#"{"a":"","c":"3","d":"4"}"#));
    }

    #[test]
    fn a_write_that_does_not_fit_the_endpoints_interface_is_refused_at_the_call() {
        use crate::charm_dir::{Endpoint, Metadata, Role};
        let (mut m, calls) = model(&[
            ("relation-set", ToolOutput::ok("")),
            ("is-leader", ToolOutput::ok("true")),
            ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
        ]);
        let mut meta = Metadata::default();
        meta.endpoints.insert(
            "db".into(),
            Endpoint {
                role: Role::Requires,
                interface: "postgresql_client".into(),
                limit: None,
            },
        );
        m.set_contracts(&meta);
        let e = m
            .relation_set(
                rel(1),
                LocalBag::App,
                vec![
                    ("database".into(), "shop".into()),
                    ("requested-secrets".into(), "username,password".into()),
                ],
            )
            .unwrap_err();
        let ModelError::InvalidArgument(msg) = &e else {
            panic!("{e:?}");
        };
        assert!(
            msg.starts_with(
                "relation-set on db:1: does not fit postgresql_client v0 (the requirer's \
                 application bag): requested-secrets: is not JSON text"
            ) && msg.ends_with("; nothing was written"),
            "{msg}"
        );
        // What fits goes through; deleting a field needs no value.
        m.relation_set(
            rel(1),
            LocalBag::App,
            vec![
                ("database".into(), "shop".into()),
                ("requested-secrets".into(), r#"["username"]"#.into()),
                ("entity-type".into(), "".into()),
            ],
        )
        .unwrap();
        m.commit_handler();
        m.flush().unwrap();
        let calls = calls.lock().unwrap();
        let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
        assert_eq!(sets.len(), 1, "the refused write sent nothing");
        assert_eq!(
            sets[0].2.as_deref(),
            Some(r#"{"database":"shop","entity-type":"","requested-secrets":"[\"username\"]"}"#)
        );
    }

    #[test]
    fn pending_relation_data_is_bounded_per_event() {
        let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
        // Each write of `half` under a one-byte key: 3 bytes short of half.
        let half = "v".repeat(MAX_RELATION_BYTES_PER_EVENT / 2 - 4);
        m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
            .unwrap();
        m.commit_handler();
        // Another handler, another relation: the event's total counts.
        m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), half.clone())])
            .unwrap();
        let e = m
            .relation_set(
                rel(2),
                LocalBag::Unit,
                vec![("c".into(), "too much".into())],
            )
            .unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(m) if m.contains("MAX_RELATION_BYTES_PER_EVENT") && m.contains("db:2")),
            "{e:?}"
        );
        // Replacing a key already pending (this handler's or a kept one) is
        // not growth.
        m.relation_set(rel(2), LocalBag::Unit, vec![("b".into(), "small".into())])
            .unwrap();
        m.relation_set(rel(1), LocalBag::Unit, vec![("a".into(), half.clone())])
            .unwrap();
        m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half.clone())])
            .unwrap();
        assert!(
            m.relation_set(rel(2), LocalBag::Unit, vec![("d".into(), "xx".into())])
                .is_err()
        );
        // A trapped handler's writes free their room.
        m.abort_handler();
        m.relation_set(rel(2), LocalBag::Unit, vec![("c".into(), half)])
            .unwrap();
    }

    #[test]
    fn remote_unit_names_are_checked_before_relation_get() {
        let (mut m, calls) = model(&[("relation-get", ToolOutput::ok(r#"{"k":"v"}"#))]);
        for bad in ["pg/01", "pg/0\0x", "-r", "pg"] {
            let e = m
                .relation_get(rel(1), Databag::RemoteUnit(bad.into()))
                .unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidArgument(msg) if msg.contains(&format!("`{}`", bad.escape_debug()))),
                "{e:?}"
            );
        }
        assert!(tool_calls(&calls, "relation-get").is_empty());
        m.relation_get(rel(1), Databag::RemoteUnit("pg/0".into()))
            .unwrap();
        m.relation_get(rel(1), Databag::LocalApp).unwrap();
        assert_eq!(
            tool_calls(&calls, "relation-get"),
            [
                vec!["--format=json", "-r", "db:1", "--", "-", "pg/0"],
                vec!["--format=json", "-r", "db:1", "--app", "--", "-", "gw"],
            ]
        );
    }

    #[test]
    fn endpoints_are_checked_against_the_charms() {
        let (mut m, calls) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1"]"#))]);
        // Before the endpoints are known: only what argv cannot carry.
        let e = m.relation_ids("d\0b".into()).unwrap_err();
        assert!(matches!(e, ModelError::InvalidArgument(_)), "{e:?}");
        m.set_endpoints(["db".to_string()].into());
        for bad in ["", "cache", "-x", "db:1"] {
            let e = m.relation_ids(bad.into()).unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidArgument(msg)
                    if msg.contains(&format!("`{bad}` is not one of this charm's")) && msg.contains("`db`")),
                "{e:?}"
            );
        }
        let other = RelationRef {
            endpoint: "cache".into(),
            id: 1,
        };
        assert!(matches!(
            m.relation_units(other.clone()),
            Err(ModelError::InvalidArgument(_))
        ));
        assert!(matches!(
            m.relation_set(other, LocalBag::Unit, vec![("k".into(), "v".into())]),
            Err(ModelError::InvalidArgument(_))
        ));
        assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(1)]);
        assert_eq!(
            tool_calls(&calls, "relation-ids"),
            [["--format=json", "--", "db"]]
        );
    }

    #[test]
    fn a_breaking_relation_is_hidden_from_relation_ids() {
        let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#))]);
        m.set_event_relation(&rel(1), "pg", true);
        assert_eq!(m.relation_ids("db".into()).unwrap(), vec![rel(2)]);
        // The event's remote app needs no tool call.
        assert_eq!(m.relation_app(rel(1)).unwrap(), Some("pg".into()));
    }
}
