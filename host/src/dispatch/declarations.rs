//! Step 3's end: the component's handlers, from the artifact cache or from
//! its `declare`, checked against the charm.

use super::EventRun;
use crate::bindings::Handler;
use crate::charm_dir::CharmDir;
use crate::event;
use crate::interfaces::{Declaring, EventStates};
use crate::runtime::cache;
use std::collections::BTreeSet;

/// Handlers one component may declare: each costs an instance per event it
/// observes, and their writes are bounded per handler.
pub const MAX_HANDLERS: usize = 64;

impl EventRun<'_, '_> {
    /// The component's handlers: from the cache, or from `declare` in an
    /// instance of its own that can reach nothing of the live event (every
    /// interface as [`crate::interfaces::Interface::declaring`] builds it),
    /// so that a cold cache and a warm one run the event alike.
    pub(super) fn declarations(&mut self) -> anyhow::Result<Vec<Handler>> {
        let (ctx, prober) = (self.ctx, self.prober);
        if let Some(handlers) = cache::declarations(&ctx.state_dir, &self.component) {
            return validate_handlers(handlers, ctx.charm);
        }
        let isolated = EventStates::declaring(&Declaring {
            charm: Some(ctx.charm),
            ctx: Some(ctx),
            prober,
        });
        let limits = ctx.charm.manifest.limits;
        let finished = self.runtime()?.declare(isolated, &limits);
        let handlers = finished
            .result
            .map_err(|trap| anyhow::anyhow!("the component's `declare` {trap}"))?;
        cache::store_declarations(&ctx.state_dir, &self.component, &handlers);
        validate_handlers(handlers, ctx.charm)
    }
}

/// Refuse declarations the host cannot honour, naming the handler.
pub(super) fn validate_handlers(
    handlers: Vec<Handler>,
    charm: &CharmDir,
) -> anyhow::Result<Vec<Handler>> {
    anyhow::ensure!(
        handlers.len() <= MAX_HANDLERS,
        "the component declares {} handlers; this host runs at most {MAX_HANDLERS}",
        handlers.len()
    );
    let mut seen = BTreeSet::new();
    for h in &handlers {
        // 120 keeps `handler/<name>` within a scope name's 128 bytes.
        let name_ok = !h.name.is_empty()
            && h.name.len() <= 120
            && h.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        anyhow::ensure!(
            name_ok,
            "handler name `{}` must be 1 to 120 of a-z 0-9 -",
            h.name
        );
        anyhow::ensure!(
            seen.insert(&h.name),
            "handler `{}` is declared twice",
            h.name
        );
        for o in &h.observes {
            if let Some(entity) = &o.entity
                && let Err(why) =
                    event::check_entity(o.kind, entity, &charm.metadata, &charm.actions)
            {
                anyhow::bail!(
                    "handler `{}` observes {} of `{entity}`, but {why}",
                    h.name,
                    event::kind_name(o.kind)
                );
            }
        }
    }
    Ok(handlers)
}
