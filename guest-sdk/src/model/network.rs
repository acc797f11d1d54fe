//! Networks and goals: `network-get`, `goal-state`.

use super::{ModelError, Relation, wit};

pub use crate::__bindings::wasm_charm::charm::model::{
    BindAddress, GoalStatus, Goals, InterfaceAddress, Network,
};

/// The network of `binding` (an endpoint or extra-binding name), as ops'
/// `model.get_binding(name).network`.
///
/// ```no_run
/// use wasm_charm::model;
///
/// let network = model::network_get("website")?;
/// let address = network.ingress_addresses.first();
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
pub fn network_get(binding: &str) -> Result<Network, ModelError> {
    wit::network_get(binding, None)
}

/// The network of `binding` as seen from `relation` (`network-get -r`).
pub fn network_get_for(binding: &str, relation: &Relation) -> Result<Network, ModelError> {
    wit::network_get(binding, Some(relation.as_ref()))
}

/// What Juju is driving the model to (`goal-state`). ops counts "planned
/// units" as the units whose status is not `dying`:
///
/// ```no_run
/// use wasm_charm::model;
///
/// let planned = model::goal_state()?
///     .units
///     .iter()
///     .filter(|u| u.status != "dying")
///     .count();
/// # Ok::<(), wasm_charm::model::ModelError>(())
/// ```
pub fn goal_state() -> Result<Goals, ModelError> {
    wit::goal_state()
}
