//! Juju's commit rule, the one place it is written: how a hook ends
//! ([`end_hook`]: its verdict, and a commit Juju refuses), and what the
//! state keeps of it ([`commit`]). Every offline event ends here, in
//! `Simulator::run`, and the soak drives it directly.

use super::sim::{SimReboot, SimState};
use super::tools;
use crate::juju_env::JujuEnv;

/// How a hook ended, as Juju ends it.
pub struct Ended {
    /// The state Juju keeps.
    pub state: SimState,
    /// Why Juju failed a hook that succeeded: its commit was refused.
    pub refused: Option<String>,
}

/// End a hook as Juju does (reference §1.6): a hook that `succeeded`
/// commits what it held, unless the commit is refused (a `storage-add` of
/// a storage metadata.yaml does not declare, the charm state past its
/// quota), which fails it; a failed hook keeps only what acts at once, and
/// so does a hook killed by `juju-reboot --now`, which is no failure. `before` is the state the hook started from, `after` the state
/// its tools left. Every front end ends its hooks here.
pub fn end_hook(
    before: &SimState,
    mut after: SimState,
    env: &JujuEnv,
    succeeded: bool,
    now: u64,
) -> Ended {
    // `juju-reboot --now`: Juju killed the hook, so nothing it held is
    // committed, yet the hook is no failure: it runs again after the reboot.
    let killed = after.last_event.reboot == Some(SimReboot::Now);
    let refused = if !succeeded || killed {
        None
    } else if let Some(why) = after.pending_storage.refused.clone() {
        Some(format!(
            "Juju refused the hook's changes at its commit: {why}"
        ))
    } else if after.model.charm_state != before.model.charm_state {
        tools::charm_state::refused_at_commit(
            &after.model.charm_state,
            after.scripts.max_charm_state_size,
        )
    } else {
        None
    };
    let failed = !succeeded || refused.is_some();
    if failed && after.last_event.reboot == Some(SimReboot::AfterHook) {
        // Juju reboots after a hook only when it succeeded.
        after.last_event.reboot = None;
    }
    Ended {
        state: commit(before, after, env, failed || killed, now),
        refused,
    }
}

/// What the state file keeps of an event, as Juju commits a hook (reference
/// §1.6). A failed hook commits nothing buffered: relation data and ports go back to
/// what the hook found, and so do the scopes and Juju's charm state (where
/// a `store: juju` charm keeps them). What acts
/// at once in Juju stays: `status-set`'s statuses (the scopes' record of what
/// was written may then lag, which only makes the next event write again),
/// `application-version-set`, and the log, calls and action results, which say
/// what happened, and what the controller records as it answers a read (the
/// revision a consumer of a secret tracks). Port requests, secret
/// changes and storage requests wait in `pending_ports`, `pending_secrets`
/// and `pending_storage`: a successful hook applies them (the new storage
/// instances are attached at once: their `<name>-storage-attached` events
/// are the operator's to run). Only a successful hook
/// lets Juju move on: a departed unit leaves, a broken relation goes.
fn commit(
    before: &SimState,
    mut after: SimState,
    env: &JujuEnv,
    failed: bool,
    now: u64,
) -> SimState {
    let secrets = std::mem::take(&mut after.pending_secrets);
    let ports = std::mem::take(&mut after.pending_ports);
    let storage = std::mem::take(&mut after.pending_storage);
    if failed {
        after.model.relations = before.model.relations.clone();
        after.store.scopes = before.store.scopes.clone();
        after.model.charm_state = before.model.charm_state.clone();
    } else {
        after.model.opened_ports = tools::ports::apply(&after.model.opened_ports, &ports);
        secrets.apply(&mut after.model.secrets, now);
        after.model.storage.extend(storage.added);
        finish_relation_event(env, &mut after);
    }
    after
}

/// What Juju does after a successful hook: a departed unit leaves, a broken
/// relation goes.
fn finish_relation_event(env: &JujuEnv, state: &mut SimState) {
    let Some(id) = env.get("JUJU_RELATION_ID") else {
        return;
    };
    let kind = env
        .get("JUJU_HOOK_NAME")
        .and_then(crate::event::classify_hook)
        .map(|(kind, _)| kind);
    match kind {
        Some(crate::bindings::EventKind::RelationBroken) => {
            state.model.relations.remove(id);
            // Juju's grants live in a relation, and go with it.
            for secret in state.model.secrets.values_mut() {
                secret.grants.remove(id);
            }
        }
        Some(crate::bindings::EventKind::RelationDeparted) => {
            if let (Some(rel), Some(unit)) = (
                state.model.relations.get_mut(id),
                env.get("JUJU_DEPARTING_UNIT"),
            ) {
                rel.units.retain(|u| u != unit);
                rel.unit_data.remove(unit);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod commit_tests;
