//! Where the unit runs, each read once per event: its bindings' network
//! (`network-get`), the WIT `network` interface answered by the event's
//! [`Model`], and the model's goal state and the cloud's credential (the
//! `model` interface's).

use super::Model;
use super::names::{check_name, rel_arg};
use super::shapes;
use super::tool_calls::Caller;
use crate::bindings::RelationRef;
use crate::bindings::model::{CloudSpec, Goals, ModelError};
use crate::bindings::network::{Host, Network};
use wasmtime::component::{HasSelf, Linker};

impl Host for Model {
    fn network_get(
        &mut self,
        binding: String,
        relation: Option<RelationRef>,
    ) -> Result<Network, ModelError> {
        network_get(self, binding, relation)
    }
}

/// Register the `network` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::network::add_to_linker::<T, HasSelf<Model>>(linker, get)
}

fn network_get(
    m: &mut Model,
    binding: String,
    relation: Option<RelationRef>,
) -> Result<Network, ModelError> {
    check_name("binding", &binding)?;
    m.facts.check_binding("network-get", &binding)?;
    if let Some(r) = &relation {
        m.facts.check_endpoint(&r.endpoint)?;
    }
    let key = (binding.clone(), relation.as_ref().map(|r| r.id));
    if let Some(n) = m.cache.networks.get(&key) {
        return Ok(n.clone());
    }
    let rel = relation.as_ref().map(rel_arg);
    let mut args = vec!["--format=json"];
    if let Some(r) = &rel {
        args.extend(["-r", r.as_str()]);
    }
    args.extend(["--", binding.as_str()]);
    let raw: Option<shapes::NetworkJson> = m.json(Caller::Guest, "network-get", &args)?;
    let network = Network::from(raw.unwrap_or_default());
    m.cache.networks.insert(key, network.clone());
    Ok(network)
}

pub(super) fn goal_state(m: &mut Model) -> Result<Goals, ModelError> {
    m.cached_json::<shapes::GoalJson, _>("goal-state", |c| &mut c.goal_state)
}

pub(super) fn credential_get(m: &mut Model) -> Result<CloudSpec, ModelError> {
    m.cached_json::<shapes::CloudSpecJson, _>("credential-get", |c| &mut c.credential)
}
