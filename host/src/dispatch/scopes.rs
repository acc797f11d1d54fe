//! Steps 6 and 7: the scopes whose owner is gone expire, and the readiness
//! probes that gate "active" set or clear their scopes.

use super::EventRun;
use crate::actions;
use crate::bindings::{Event, Handler};
use crate::context::EventContext;
use crate::probe::{self, Assessed, Prober};
use crate::status::merge::Band;
use crate::status::store::{ScopeStore, Target, Write};
use crate::status::store_edit::StoreEdit;
use crate::status::{handler_scope, relation_scope, unit_scope};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The time all gated probes of one event share (each also has its own
/// per-attempt timeout and retries, DESIGN §5).
pub const PROBE_BUDGET: Duration = Duration::from_secs(10);

impl EventRun<'_, '_> {
    /// Step 6: clear the scopes whose owner is gone.
    pub(super) fn expire_scopes(&mut self, handlers: &[Handler]) {
        let ctx = self.ctx;
        let gating = probe::gates(&ctx.charm.manifest.probes, &self.store.probes);
        for (target, scope) in expired(&self.store, &ctx.event, handlers, &gating) {
            self.store
                .apply(Write::Clear { target, scope }, &ctx.described, ctx.now);
        }
    }

    /// Step 7: run the readiness probes that gate "active" (all of them for a
    /// self-check); what each found.
    pub(super) fn gate_probes(&mut self) -> BTreeMap<String, Assessed> {
        let self_check =
            matches!(&self.ctx.event, Event::Action(a) if a.name == actions::SELF_CHECK);
        gate_probes(self.ctx, &mut self.store, self.prober, self_check)
    }
}

/// Scopes to clear after the handlers ran: the broken relation's, the
/// departed unit's, those of handlers the charm no longer declares, and
/// those of probes that no longer gate (or are no longer declared).
pub(super) fn expired(
    store: &ScopeStore,
    event: &Event,
    handlers: &[Handler],
    gating: &BTreeMap<String, bool>,
) -> Vec<(Target, String)> {
    let gone_relation = match event {
        Event::RelationBroken(r) => Some(relation_scope(&r.relation.endpoint, r.relation.id)),
        _ => None,
    };
    let gone_unit = match event {
        Event::RelationDeparted(r) => r.departing_unit.as_deref().map(unit_scope),
        _ => None,
    };
    let declared: BTreeSet<String> = handlers.iter().map(|h| handler_scope(&h.name)).collect();
    let mut out = Vec::new();
    for target in [Target::Unit, Target::App] {
        for name in store.current_names(target, |n| {
            Some(n) == gone_relation.as_deref()
                || Some(n) == gone_unit.as_deref()
                || (n.starts_with("handler/") && !declared.contains(n))
                || n.strip_prefix("probe/")
                    .is_some_and(|p| !gating.get(p).copied().unwrap_or(false))
        }) {
            out.push((target, name));
        }
    }
    out
}

/// Run the gating probes concurrently (every declared one for a
/// self-check) and set or clear their scopes `probe/<name>` (maintenance
/// within the grace period, blocked after it), keeping each probe's state
/// for the next event. Runs at every event, so a recovered probe heals the
/// unit with no handler running. Returns what each probe found.
fn gate_probes(
    ctx: &EventContext,
    store: &mut StoreEdit,
    prober: &Prober,
    all: bool,
) -> BTreeMap<String, Assessed> {
    let specs = &ctx.charm.manifest.probes;
    store
        .probes_mut()
        .retain(|name, _| specs.contains_key(name));
    if specs.is_empty() {
        return BTreeMap::new();
    }
    let also = if all {
        specs.keys().cloned().collect()
    } else {
        BTreeSet::new()
    };
    let assessed = probe::assess(specs, &store.probes, &also, prober, PROBE_BUDGET);
    for (name, assessed) in &assessed {
        if !assessed.gating {
            // Run for a self-check only: nothing to judge or keep.
            continue;
        }
        store
            .probes_mut()
            .insert(name.clone(), assessed.state.clone());
        let scope = probe::scope_name(name);
        let write = match assessed.status.clone() {
            Some(s) => Write::Set {
                target: Target::Unit,
                scope,
                status: s.kind,
                message: crate::text::status_message(&s.message),
                priority: Band::Normal,
            },
            None => Write::Clear {
                target: Target::Unit,
                scope,
            },
        };
        store.apply(write, &ctx.described, ctx.now);
    }
    assessed
}
