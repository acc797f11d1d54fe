//! Networks and goals: ops' `Model.get_binding(…).network` (`network-get`)
//! and `goal-state`.

use super::{ModelError, Relation, wit};
use crate::__bindings::wasm_charm::charm::network as wit_network;
use crate::{RelationEvent, RelationRef};

/// A unit's or a related application's goal status.
///
/// ```no_run
/// let goals = wasm_charm::model::goal_state()?;
/// for unit in &goals.units {
///     println!("{} is {}", unit.name, unit.status);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::model::GoalStatus;
/// What Juju is driving the model to (`goal-state`).
///
/// ```no_run
/// let goals = wasm_charm::model::goal_state()?;
/// let related: Vec<&str> = goals.relations.iter().map(|(endpoint, _)| endpoint.as_str()).collect();
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::model::Goals;
/// One network interface a binding is bound to (ops' `NetworkInterface`).
///
/// ```no_run
/// let network = wasm_charm::model::get_binding("website").network()?;
/// for interface in &network.bind_addresses {
///     println!("{} ({})", interface.interface_name, interface.mac_address);
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::network::BindAddress;
/// One address of a network interface.
///
/// ```no_run
/// let network = wasm_charm::model::get_binding("website").network()?;
/// let cidrs: Vec<&str> = network
///     .bind_addresses
///     .iter()
///     .flat_map(|i| i.addresses.iter().map(|a| a.cidr.as_str()))
///     .collect();
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::network::InterfaceAddress;
/// What `network-get` says of a binding (ops' `Network`).
///
/// ```no_run
/// let network = wasm_charm::model::get_binding("website").network()?;
/// let egress = &network.egress_subnets;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::network::Network;

/// A binding: an endpoint or extra-binding name, seen from one relation
/// when made from one (ops' `Binding`). Its [`network`](Binding::network)
/// is asked of Juju when read.
///
/// ```
/// use wasm_charm::RelationRef;
/// use wasm_charm::model::{self, Relation};
///
/// assert_eq!(model::get_binding("website").name(), "website");
/// let db = Relation::new(RelationRef { endpoint: "db".into(), id: 4 });
/// assert_eq!(model::get_binding(&db).name(), "db");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    name: String,
    relation: Option<RelationRef>,
}

/// The binding called `key` (an endpoint or extra-binding name), or the
/// binding of a relation's endpoint as seen from that relation (`key` a
/// [`Relation`], [`RelationRef`] or [`RelationEvent`]): ops'
/// `Model.get_binding`.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn website(event: &Event) -> Outcome {
///     let address = match event.relation() {
///         Some(relation) => model::get_binding(relation).network()?,
///         None => model::get_binding("website").network()?,
///     }
///     .ingress_address()
///     .map(str::to_string);
///     Ok(None)
/// }
/// ```
pub fn get_binding(key: impl Into<Binding>) -> Binding {
    key.into()
}

impl Binding {
    /// The binding's name: the endpoint or extra-binding (ops'
    /// `Binding.name`).
    ///
    /// ```
    /// assert_eq!(wasm_charm::model::get_binding("admin").name(), "admin");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The binding's network (ops' `Binding.network`), as seen from its
    /// relation when it has one (`network-get -r`). A binding the charm
    /// does not declare is [`ModelError::InvalidArgument`]; one Juju has no
    /// network for is [`ModelError::NotFound`].
    ///
    /// ```no_run
    /// let network = wasm_charm::model::get_binding("website").network()?;
    /// let address = network.ingress_addresses.first();
    /// # Ok::<(), wasm_charm::model::ModelError>(())
    /// ```
    #[doc(alias = "network-get")]
    pub fn network(&self) -> Result<Network, ModelError> {
        wit_network::network_get(&self.name, self.relation.as_ref())
    }
}

/// The binding of this name.
///
/// ```
/// use wasm_charm::model::Binding;
///
/// assert_eq!(Binding::from("website").name(), "website");
/// ```
impl From<&str> for Binding {
    fn from(name: &str) -> Self {
        Binding {
            name: name.to_string(),
            relation: None,
        }
    }
}

/// The binding of this name.
///
/// ```
/// use wasm_charm::model::Binding;
///
/// let name = String::from("website");
/// assert_eq!(Binding::from(&name).name(), "website");
/// ```
impl From<&String> for Binding {
    fn from(name: &String) -> Self {
        Binding::from(name.as_str())
    }
}

/// The binding of the relation's endpoint, seen from the relation.
///
/// ```
/// use wasm_charm::RelationRef;
/// use wasm_charm::model::Binding;
///
/// let binding = Binding::from(&RelationRef { endpoint: "db".into(), id: 1 });
/// assert_eq!(binding.name(), "db");
/// ```
impl From<&RelationRef> for Binding {
    fn from(relation: &RelationRef) -> Self {
        Binding {
            name: relation.endpoint.clone(),
            relation: Some(relation.clone()),
        }
    }
}

/// The binding of the relation's endpoint, seen from the relation.
///
/// ```
/// use wasm_charm::RelationRef;
/// use wasm_charm::model::{Binding, Relation};
///
/// let relation = Relation::new(RelationRef { endpoint: "db".into(), id: 1 });
/// assert_eq!(Binding::from(&relation).name(), "db");
/// ```
impl From<&Relation> for Binding {
    fn from(relation: &Relation) -> Self {
        Binding::from(relation.as_ref())
    }
}

/// The binding of the event's relation, seen from it.
///
/// ```
/// use wasm_charm::{RelationEvent, RelationRef};
/// use wasm_charm::model::Binding;
///
/// let event = RelationEvent {
///     relation: RelationRef { endpoint: "db".into(), id: 1 },
///     remote_app: "postgresql".into(),
///     remote_unit: None,
///     departing_unit: None,
/// };
/// assert_eq!(Binding::from(&event).name(), "db");
/// ```
impl From<&RelationEvent> for Binding {
    fn from(event: &RelationEvent) -> Self {
        Binding::from(&event.relation)
    }
}

impl Network {
    /// The first address of the first interface the binding is bound to
    /// (ops' `Network.bind_address`).
    ///
    /// ```no_run
    /// let network = wasm_charm::model::get_binding("website").network()?;
    /// let listen_on = network.bind_address().unwrap_or("0.0.0.0");
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn bind_address(&self) -> Option<&str> {
        self.bind_addresses
            .iter()
            .flat_map(|interface| interface.addresses.first())
            .map(|address| address.value.as_str())
            .next()
    }

    /// The first address other units should reach this one at (ops'
    /// `Network.ingress_address`).
    ///
    /// ```no_run
    /// let network = wasm_charm::model::get_binding("website").network()?;
    /// if let Some(address) = network.ingress_address() {
    ///     println!("reach me at {address}");
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn ingress_address(&self) -> Option<&str> {
        self.ingress_addresses.first().map(String::as_str)
    }
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
#[doc(alias = "goal-state")]
pub fn goal_state() -> Result<Goals, ModelError> {
    wit::goal_state()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interface(values: &[&str]) -> BindAddress {
        BindAddress {
            mac_address: String::new(),
            interface_name: "eth0".into(),
            addresses: values
                .iter()
                .map(|v| InterfaceAddress {
                    hostname: String::new(),
                    value: v.to_string(),
                    cidr: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn first_addresses() {
        let network = Network {
            bind_addresses: vec![interface(&[]), interface(&["10.0.0.5", "10.0.0.6"])],
            ingress_addresses: vec!["192.0.2.1".into()],
            egress_subnets: vec![],
        };
        assert_eq!(network.bind_address(), Some("10.0.0.5"));
        assert_eq!(network.ingress_address(), Some("192.0.2.1"));
        let none = Network {
            bind_addresses: vec![],
            ingress_addresses: vec![],
            egress_subnets: vec![],
        };
        assert_eq!((none.bind_address(), none.ingress_address()), (None, None));
    }

    #[test]
    fn bindings_of_relations_keep_the_relation() {
        let r = RelationRef {
            endpoint: "db".into(),
            id: 3,
        };
        assert_eq!(get_binding(&r).relation, Some(r.clone()));
        assert_eq!(get_binding("db").relation, None);
    }
}
