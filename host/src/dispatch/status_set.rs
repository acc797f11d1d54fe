//! Steps 8 and 9 as Juju sees them: which application status the leader
//! writes, and one `status-set` per target whose merged status changed.

use crate::bindings::Event;
use crate::context::EventContext;
use crate::model::{Model, describe_error};
use crate::status::merge::{self, Merged, Written};
use crate::status::store::{ScopeStore, Target};
use crate::status::store_edit::StoreEdit;

/// The application status to write, on the leader only (DESIGN §4).
///
/// App scopes live in each unit's own store; the leader's decide. A new
/// leader (leader-elected, after its handlers ran) writes its merge even
/// when it holds no app scope, if a former leader had set the application
/// status: otherwise that leader's last word (say, blocked) would stay
/// forever. Trade-off: the former leader's app scopes are not carried over;
/// a charm whose handlers set app scopes on the leader only recomputes them
/// on leader-elected (the gateway's `leader` handler does).
pub(super) fn app_status(
    ctx: &EventContext,
    store: &mut StoreEdit,
    model: &mut Model,
) -> Result<Option<Merged>, String> {
    let elected = matches!(ctx.event, Event::LeaderElected);
    if !(elected || store.has_current(Target::App) || store.written.app.is_some()) {
        return Ok(None);
    }
    let leader = model.leader().map_err(|e| {
        format!(
            "cannot tell whether this unit leads: {}",
            describe_error(&e)
        )
    })?;
    if !leader {
        // Not the writer any more: a later election starts afresh.
        store.written_mut().app = None;
        return Ok(None);
    }
    if elected {
        // Another leader may have written the app status meanwhile: what this
        // unit wrote before is no longer what Juju shows.
        store.written_mut().app = None;
        if !store.has_current(Target::App) && !app_status_was_set(model) {
            // Never set by any leader: Juju still derives it from the units.
            return Ok(None);
        }
    }
    Ok(Some(merge::merge(
        store.views(Target::App),
        &ctx.charm.manifest.ready_message,
    )))
}

/// Whether a charm has set the application status (Juju reports `unknown`
/// until one does). When the answer cannot be read, assume it was: writing
/// the leader's own merge is the safe side.
fn app_status_was_set(model: &mut Model) -> bool {
    let answer = model.run(
        "status-get",
        &["--application", "--include-data", "--format=json"],
        None,
    );
    let Ok(out) = answer else {
        return true;
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&out) else {
        return true;
    };
    // Juju nests the application's status; tolerate the flat form too.
    let status = doc
        .get("application-status")
        .and_then(|a| a.get("status"))
        .or_else(|| doc.get("status"))
        .and_then(|s| s.as_str());
    !matches!(status, Some("unknown" | "unset" | ""))
}

/// What the store remembers once [`write`] wrote `unit` and `app`.
pub(super) fn remember_written(store: &mut ScopeStore, unit: &Merged, app: Option<&Merged>) {
    store.written.unit = Some(unit.written.clone());
    if let Some(app) = app {
        store.written.app = Some(app.written.clone());
    }
}

/// One `status-set` per target whose merged status differs from what the
/// store remembers writing; the store then remembers it. `Err` says which
/// write failed (the event then keeps nothing, so the retry writes again).
pub(super) fn write(
    model: &mut Model,
    store: &mut StoreEdit,
    unit: &Merged,
    app: Option<&Merged>,
) -> Result<Vec<Target>, String> {
    let mut wrote = Vec::new();
    let targets = [(Target::Unit, Some(unit)), (Target::App, app)];
    for (target, merged) in targets {
        let Some(merged) = merged else { continue };
        let last = match target {
            Target::Unit => &mut store.written_mut().unit,
            Target::App => &mut store.written_mut().app,
        };
        if last.as_ref() == Some(&merged.written) {
            continue;
        }
        status_set(model, target, &merged.written).map_err(|e| {
            format!(
                "writing the {} status failed: {}",
                target.as_str(),
                describe_error(&e)
            )
        })?;
        *last = Some(merged.written.clone());
        wrote.push(target);
    }
    Ok(wrote)
}

/// `status-set [--application] <kind> -- <message>`; `--` because a message
/// may start with `-`.
fn status_set(
    model: &mut Model,
    target: Target,
    written: &Written,
) -> Result<(), crate::bindings::model::ModelError> {
    let mut args = Vec::with_capacity(4);
    if target == Target::App {
        args.push("--application");
    }
    // Also what older hosts stored: no stored text may fail every later hook.
    let message = crate::text::status_message(&written.message);
    args.extend([written.status.as_str(), "--", message.as_str()]);
    model.run("status-set", &args, None).map(drop)
}
