//! Every bag a hook wrote, checked against the interface that the
//! endpoint's metadata names (`crate::schemas`), whatever the charm: a
//! wasm charm, an ops charm, a shell script. A write that does not fit is
//! reported with the unit, the hook, the relation and the field, and kept:
//! the model carries what Juju would, and the report says why the other
//! side will not understand it.

use super::view::View;
use crate::charm_dir::{Metadata, Role};
use crate::offline::state_file::StateFile;
use crate::schemas::{self, Bag};

/// What `unit`'s hook `hook` wrote that does not fit, one line each.
pub fn check_writes(
    meta: &Metadata,
    unit: &str,
    hook: &str,
    view: &View,
    after: &StateFile,
) -> Vec<String> {
    let before = &view.file.sim.model;
    let now = &after.sim.model;
    let mut found = Vec::new();
    for key in view.keys.keys() {
        let (Some(was), Some(is)) = (before.relations.get(key), now.relations.get(key)) else {
            continue;
        };
        let endpoint = key.rsplit_once(':').map_or(key.as_str(), |(e, _)| e);
        let Some(end) = meta.endpoints.get(endpoint) else {
            continue;
        };
        let role = match end.role {
            Role::Provides => schemas::Role::Provider,
            Role::Requires => schemas::Role::Requirer,
            Role::Peers => continue,
        };
        let Some(d) = schemas::for_interface(&end.interface) else {
            continue;
        };
        let mut bags = vec![(Bag::Unit, &was.local_unit_data, &is.local_unit_data)];
        if now.leader {
            bags.push((Bag::App, &was.local_app_data, &is.local_app_data));
        }
        for (bag, old, new) in bags {
            if old == new {
                continue;
            }
            for v in schemas::check_bag(d, role, bag, new, false) {
                found.push(format!(
                    "{unit} wrote {key} in {hook}, which does not fit {} ({}'s {}): {v}",
                    d.title(),
                    role.name(),
                    bag.name()
                ));
            }
        }
    }
    found
}
