//! Time in the model. Offline, time passes only when a command says so
//! (`juju advance`); what falls due on the way is queued at its time, in
//! time order:
//!
//! * update-status on every unit, each `update-status-hook-interval` (the
//!   model's config; Juju's default is 5m);
//! * secret-rotate on a secret's owner (the leader, for an application's
//!   secret) at its next rotation (`rotates`);
//! * secret-expired on the owner at the expiry of its latest revision.
//!
//! What comes after follows Juju's secrets manager (`SecretsRotated`) and
//! `core/secrets`: a rotation that made a new revision is next due one
//! interval of its policy after the time it fell due; one that did not is
//! retried five minutes later, and so is one whose revision would expire
//! before its next rotation. An expired revision that its owner did not
//! remove is due again five minutes later. A rotation or an expiry already
//! queued (or failed, waiting for `resolve`) is not queued again.
//!
//! Pure logic over [`World`]: the caller runs what was queued.

use super::state::{ExpireRetry, Pending, World, WorldSecret};
use crate::offline::secret_codec::{go_duration, rfc3339, rotation_interval};

/// The model config key of the update-status interval.
pub const UPDATE_STATUS: &str = "update-status-hook-interval";

/// Juju's default update-status interval (`environs/config`).
pub const DEFAULT_UPDATE_STATUS: u64 = 300;

/// `core/secrets` `RotateRetryDelay` and `ExpireRetryDelay`.
pub const RETRY_DELAY: u64 = 300;

/// The most update-status ticks one advance runs: past it, a person meant
/// less time or a longer interval.
pub const MAX_TICKS: u64 = 1000;

/// The update-status interval of the model, in seconds.
pub fn update_status_interval(world: &World) -> u64 {
    world
        .model_config
        .get(UPDATE_STATUS)
        .and_then(|v| go_duration(v))
        .map_or(DEFAULT_UPDATE_STATUS, |s| s.ceil() as u64)
        .max(1)
}

/// Check an update-status interval as Juju's model config does; `Err` is
/// Juju's message.
pub fn check_update_status(value: &str) -> Result<u64, String> {
    let secs = go_duration(value).ok_or_else(|| {
        format!("invalid update status hook interval in model configuration: time: invalid duration \"{value}\"")
    })?;
    if secs < 60.0 {
        return Err(format!(
            "update status hook frequency {} cannot be less than 1m",
            go_shown(secs)
        ));
    }
    if secs > 3600.0 {
        return Err(format!(
            "update status hook frequency {} cannot be greater than 60m",
            go_shown(secs)
        ));
    }
    Ok(secs.ceil() as u64)
}

/// A duration as Go prints one (`10s`, `1m30s`, `2h0m0s`).
pub fn go_shown(secs: f64) -> String {
    if secs < 60.0 {
        let s = format!("{secs}");
        return format!("{s}s");
    }
    let whole = secs.round() as u64;
    let (h, m, s) = (whole / 3600, whole % 3600 / 60, whole % 60);
    if h == 0 {
        format!("{m}m{s}s")
    } else {
        format!("{h}h{m}m{s}s")
    }
}

/// The model's interval changed: Juju starts the timer afresh.
pub fn interval_changed(world: &mut World) {
    if world.next_update_status.is_some() {
        world.next_update_status = Some(world.clock + update_status_interval(world));
    }
}

/// How many update-status ticks fall due by `until`.
pub fn ticks_until(world: &World, until: u64) -> u64 {
    let interval = update_status_interval(world);
    let next = world.next_update_status.unwrap_or(world.clock + interval);
    if next > until {
        0
    } else {
        (until - next) / interval + 1
    }
}

/// Queue everything that falls due at the earliest time no later than
/// `until`; that time, or `None` when nothing is due by then.
pub fn fire_next(world: &mut World, until: u64) -> Option<u64> {
    let interval = update_status_interval(world);
    let tick = *world
        .next_update_status
        .get_or_insert(world.clock + interval);
    let secrets: Vec<(String, u64, Pending)> = world
        .secrets
        .iter()
        .flat_map(|(uri, s)| due_of(world, uri, s))
        .collect();
    let at = secrets
        .iter()
        .map(|(_, at, _)| *at)
        .chain(std::iter::once(tick))
        .min()
        .filter(|at| *at <= until)?;
    for (unit, when, event) in secrets {
        if when == at {
            world.enqueue(&unit, event);
        }
    }
    if tick == at {
        world.tick();
        world.next_update_status = Some(at + interval);
    }
    Some(at)
}

/// The events `s` has due (its rotation, its expiry), each with the unit
/// that runs it and when.
fn due_of(world: &World, uri: &str, s: &WorldSecret) -> Vec<(String, u64, Pending)> {
    let Some(owner) = owner_unit(world, &s.owner) else {
        return Vec::new();
    };
    let event = |hook: &str, revision| Pending {
        hook: hook.into(),
        secret: Some(uri.to_string()),
        secret_label: s.label.clone(),
        secret_revision: Some(revision),
        ..Pending::default()
    };
    let mut due = Vec::new();
    let rotates = s
        .rotation
        .as_deref()
        .and_then(rotation_interval)
        .flatten()
        .and(s.rotates.as_deref())
        .and_then(unix);
    if let Some(at) = rotates
        && !held(world, "secret-rotate", uri)
    {
        due.push((owner.clone(), at, event("secret-rotate", s.latest())));
    }
    let expires = match s.expire_retry {
        Some(r) => Some((r.at, r.revision)),
        None => s
            .expiry
            .as_deref()
            .and_then(unix)
            .map(|at| (at, s.latest())),
    };
    if let Some((at, revision)) = expires
        && !held(world, "secret-expired", uri)
    {
        due.push((owner, at, event("secret-expired", revision)));
    }
    due
}

/// The unit that runs an owner's secret events: the unit itself, or its
/// application's leader; none for the model's own secrets.
fn owner_unit(world: &World, owner: &str) -> Option<String> {
    if World::split_unit(owner).is_some() {
        return world.unit(owner).map(|u| u.name.clone());
    }
    world.apps.get(owner)?.leader.clone()
}

/// Whether a unit holds `hook` for `uri`: queued, or failed and waiting.
fn held(world: &World, hook: &str, uri: &str) -> bool {
    let is = |e: &Pending| e.hook == hook && e.secret.as_deref() == Some(uri);
    world
        .apps
        .values()
        .flat_map(|a| a.units.values())
        .any(|u| u.queue.iter().any(is) || u.error.as_ref().is_some_and(|f| is(&f.event)))
}

fn unix(text: &str) -> Option<u64> {
    rfc3339(text).and_then(|t| u64::try_from(t).ok())
}

/// After a secret-rotate or secret-expired hook ran (or was skipped by
/// `resolve --no-retry`): when the secret is next due.
pub fn hook_ran(world: &mut World, event: &Pending, skipped: bool) {
    let now = world.clock;
    let Some(uri) = &event.secret else {
        return;
    };
    let Some(s) = world.secrets.get_mut(uri) else {
        return;
    };
    match event.hook.as_str() {
        "secret-rotate" => {
            let Some(Some(every)) = s.rotation.as_deref().and_then(rotation_interval) else {
                s.rotates = None;
                return;
            };
            let last = s.rotates.as_deref().and_then(unix).unwrap_or(now);
            let rotated = skipped || event.secret_revision.is_some_and(|r| s.latest() > r);
            let mut next = last + every;
            let retry = last + RETRY_DELAY;
            let will_expire = s.expiry.as_deref().and_then(unix).filter(|e| *e < next);
            if !rotated || will_expire.is_some_and(|e| retry < e) {
                next = retry;
            }
            s.rotates = Some(crate::show::utc(next));
        }
        "secret-expired" => {
            let kept = event
                .secret_revision
                .filter(|r| s.revisions.iter().any(|x| x.revision == *r));
            if let Some(revision) = kept {
                s.expire_retry = Some(ExpireRetry {
                    revision,
                    at: now + RETRY_DELAY,
                });
            } else {
                s.expiry = None;
                s.expire_retry = None;
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "timers_tests.rs"]
mod tests;
