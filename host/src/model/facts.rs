//! The event's facts: who the unit is, what the charm declares (config
//! options, relation endpoints, extra bindings) and which relation event
//! runs. Built once per event, before any handler, and then only read: every
//! model of the event shares them ([`Model::for_event`](super::Model::for_event)).

use crate::bindings::RelationRef;
use crate::bindings::model::{JujuContext, ModelError};
use crate::charm_dir::ConfigSchema;
use crate::schemas;
use std::collections::{BTreeMap, BTreeSet};

/// Who this unit is, and the rest of what Juju's environment says of the
/// event, for the model calls that need no tool.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    pub unit: String,
    pub app: String,
    pub model: String,
    /// `None` where no Juju environment was read (the host's built-in
    /// actions' model): answered as all empty.
    pub juju: Option<JujuContext>,
    /// A Kubernetes unit (`JUJU_MACHINE_ID` exported empty), where Juju
    /// refuses port ranges.
    pub kubernetes: bool,
}

/// What the model knows of one event without asking Juju.
#[derive(Debug, Clone, Default)]
pub struct EventFacts {
    /// config.yaml's option types, which type `config-get`'s answer.
    pub(super) schema: ConfigSchema,
    pub(super) identity: Identity,
    /// The charm's relation endpoints (metadata.yaml); `None` until
    /// [`EventFacts::set_endpoints`], when only the form of a name is checked.
    pub(super) endpoints: Option<BTreeSet<String>>,
    /// metadata.yaml's `extra-bindings`; `None` until
    /// [`EventFacts::set_extra_bindings`], when binding names (`network-get`,
    /// `--endpoints` of ports) are checked only for their form.
    pub(super) extra_bindings: Option<BTreeSet<String>>,
    /// The relation whose relation-broken event runs: hidden from
    /// `relation-ids`, as ops hides it, because Juju still lists it.
    pub(super) broken: Option<RelationRef>,
    /// The remote app Juju named for the event's relation.
    pub(super) event_app: Option<(u32, String)>,
    /// relation-departed: the relation and the unit leaving it, which is
    /// no longer among the relation's units (its data stays readable).
    pub(super) departing: Option<(u32, String)>,
    /// metadata.yaml's `storage` names; `None` until
    /// [`EventFacts::set_storage`], when only the form of a name is checked.
    pub(super) storage: Option<BTreeSet<String>>,
    /// The event is an action, where Juju refuses `juju-reboot`.
    pub(super) during_action: bool,
    /// Each endpoint whose interface has a description: this charm's side
    /// of it, against which its writes are checked at the call.
    pub(super) contracts: BTreeMap<String, Contract>,
}

/// One endpoint's interface and the side this charm is of it; the
/// description is read at the first write, so an event that writes none
/// reads none.
#[derive(Debug, Clone)]
pub struct Contract {
    pub role: schemas::Role,
    pub interface: String,
}

impl EventFacts {
    /// The facts of an event that names no relation, before metadata.yaml's
    /// endpoints and bindings are known.
    pub fn new(schema: ConfigSchema, identity: Identity) -> EventFacts {
        EventFacts {
            schema,
            identity,
            ..EventFacts::default()
        }
    }

    /// The charm's relation endpoints, so that names a guest passes
    /// (`relation-ids`, relation references) are checked against them.
    pub fn set_endpoints(&mut self, endpoints: BTreeSet<String>) {
        self.endpoints = Some(endpoints);
    }

    /// The endpoints of metadata.yaml whose interface has a description
    /// (`crate::schemas`), peers left out: their writes are checked.
    pub fn set_contracts(&mut self, metadata: &crate::charm_dir::Metadata) {
        use crate::charm_dir::Role;
        self.contracts = metadata
            .endpoints
            .iter()
            .filter_map(|(name, e)| {
                let role = match e.role {
                    Role::Provides => schemas::Role::Provider,
                    Role::Requires => schemas::Role::Requirer,
                    Role::Peers => return None,
                };
                schemas::knows(&e.interface).then(|| {
                    let interface = e.interface.clone();
                    (name.clone(), Contract { role, interface })
                })
            })
            .collect();
    }

    /// The charm's `extra-bindings`: with the endpoints, the bindings
    /// `network-get` and the ports' `--endpoints` may name.
    pub fn set_extra_bindings(&mut self, extra: BTreeSet<String>) {
        self.extra_bindings = Some(extra);
    }

    /// The charm's storage names (metadata.yaml `storage`): the only ones
    /// `storage-add` may name.
    pub fn set_storage(&mut self, storage: BTreeSet<String>) {
        self.storage = Some(storage);
    }

    /// Whether the event is an action.
    pub fn set_during_action(&mut self, during_action: bool) {
        self.during_action = during_action;
    }

    /// The relation the event is about, the remote app Juju named for it
    /// (empty: none), and whether the relation is being broken.
    pub fn set_event_relation(&mut self, relation: &RelationRef, remote_app: &str, broken: bool) {
        if !remote_app.is_empty() {
            self.event_app = Some((relation.id, remote_app.to_string()));
        }
        if broken {
            self.broken = Some(relation.clone());
        }
    }

    /// The unit relation-departed is about: Juju no longer lists it among
    /// the relation's units, and neither does the model.
    pub fn set_departing_unit(&mut self, relation: &RelationRef, unit: &str) {
        self.departing = Some((relation.id, unit.to_string()));
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The remote app of relation `id`, when the event named it.
    pub(super) fn event_app(&self, id: u32) -> Option<&str> {
        self.event_app
            .as_ref()
            .filter(|(event_id, _)| *event_id == id)
            .map(|(_, app)| app.as_str())
    }

    /// Whether `relation` is the one being broken.
    pub(super) fn is_broken(&self, relation: &RelationRef) -> bool {
        self.broken.as_ref() == Some(relation)
    }

    /// The unit leaving relation `id`, in its relation-departed event.
    pub(super) fn departing_unit(&self, id: u32) -> Option<&str> {
        self.departing
            .as_ref()
            .filter(|(departing_id, _)| *departing_id == id)
            .map(|(_, unit)| unit.as_str())
    }

    /// Check a relation endpoint name a guest passed: one of the charm's
    /// when they are known, and always a name argv can carry.
    pub(super) fn check_endpoint(&self, endpoint: &str) -> Result<(), ModelError> {
        let known = match &self.endpoints {
            Some(endpoints) => endpoints.contains(endpoint),
            None => !endpoint.is_empty() && !endpoint.contains(['\0', ':']),
        };
        if known {
            return Ok(());
        }
        let endpoint = endpoint.escape_debug();
        let Some(endpoints) = &self.endpoints else {
            return Err(ModelError::InvalidArgument(format!(
                "relation endpoint `{endpoint}` is not an endpoint name"
            )));
        };
        Err(ModelError::InvalidArgument(format!(
            "relation endpoint `{endpoint}` is not one of this charm's (metadata.yaml declares: {})",
            quoted_list(endpoints)
        )))
    }

    /// Check a storage name `storage-add` is given: one metadata.yaml
    /// declares, once they are known. Juju's tool takes any name and its
    /// commit then fails the whole hook (`charm storage "x" not found`),
    /// far from the mistake.
    pub(super) fn check_storage(&self, name: &str) -> Result<(), ModelError> {
        let Some(declared) = &self.storage else {
            return Ok(());
        };
        if declared.contains(name) {
            return Ok(());
        }
        Err(ModelError::InvalidArgument(format!(
            "storage-add: `{}` is not a storage of this charm (metadata.yaml declares: {})",
            name.escape_debug(),
            quoted_list(declared)
        )))
    }

    /// Check a binding a guest names (`what`: the call and its argument),
    /// once metadata.yaml's endpoints and extra bindings are both known:
    /// Juju answers a binding the charm does not declare only at the end
    /// (`no network config found`, a failed commit), far from the mistake.
    pub(super) fn check_binding(&self, what: &str, binding: &str) -> Result<(), ModelError> {
        let (Some(endpoints), Some(extra)) = (&self.endpoints, &self.extra_bindings) else {
            return Ok(());
        };
        if endpoints.contains(binding) || extra.contains(binding) {
            return Ok(());
        }
        Err(ModelError::InvalidArgument(format!(
            "{what}: `{}` is neither a relation endpoint nor an extra binding of this charm (metadata.yaml declares endpoints: {}; extra-bindings: {})",
            binding.escape_debug(),
            quoted_list(endpoints),
            quoted_list(extra)
        )))
    }
}

/// `` `a`, `b` ``, or `none`.
fn quoted_list(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(id: u32) -> RelationRef {
        RelationRef {
            endpoint: "db".into(),
            id,
        }
    }

    #[test]
    fn the_event_relation_is_known_by_its_id() {
        let mut facts = EventFacts::default();
        facts.set_event_relation(&rel(1), "pg", true);
        facts.set_departing_unit(&rel(1), "pg/1");
        assert_eq!(facts.event_app(1), Some("pg"));
        assert_eq!(facts.event_app(2), None);
        assert!(facts.is_broken(&rel(1)) && !facts.is_broken(&rel(2)));
        assert_eq!(facts.departing_unit(1), Some("pg/1"));
        assert_eq!(facts.departing_unit(2), None);
        // Juju may name no remote app (a broken relation): none is assumed.
        let mut facts = EventFacts::default();
        facts.set_event_relation(&rel(1), "", false);
        assert_eq!(facts.event_app(1), None);
        assert!(!facts.is_broken(&rel(1)));
    }

    #[test]
    fn bindings_are_checked_once_both_lists_are_known() {
        let mut facts = EventFacts::default();
        facts.set_endpoints(["db".to_string()].into());
        assert!(facts.check_binding("network-get", "admin").is_ok());
        facts.set_extra_bindings(BTreeSet::new());
        assert!(facts.check_binding("network-get", "db").is_ok());
        let e = facts.check_binding("network-get", "admin").unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(m)
                if m.contains("endpoints: `db`; extra-bindings: none")),
            "{e:?}"
        );
    }
}
