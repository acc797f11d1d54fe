use super::*;
use crate::offline::secrets::SimRevision;
use crate::world::state::{App, Failed, Unit};
use proptest::prelude::*;

const T0: u64 = 1_800_000_000;

/// A model at `T0` of one application `db` of two units, db/0 leading,
/// each unit's queue empty (its hooks "ran" as soon as the test says).
fn world() -> World {
    let mut app = App {
        leader: Some("db/0".into()),
        ..App::default()
    };
    for n in 0..2 {
        app.units.insert(
            n,
            Unit {
                name: format!("db/{n}"),
                ..Unit::default()
            },
        );
    }
    let mut w = World {
        clock: T0,
        ..World::default()
    };
    w.apps.insert("db".into(), app);
    w
}

fn secret(rotation: &str, rotates: u64) -> WorldSecret {
    WorldSecret {
        owner: "db".into(),
        revisions: vec![SimRevision {
            revision: 1,
            content: Default::default(),
        }],
        label: Some("pw".into()),
        rotation: Some(rotation.into()),
        rotates: Some(crate::show::utc(rotates)),
        ..WorldSecret::default()
    }
}

/// Run what is queued as a successful hook would: each event taken off its
/// queue, the clock one second on, `hook_ran` after; `new_revision` makes
/// a rotation's hook write one.
fn run_queues(w: &mut World, new_revision: bool) -> Vec<String> {
    let mut ran = Vec::new();
    for unit in w.unit_names() {
        while let Some(e) = w.unit_mut(&unit).and_then(|u| u.queue.pop_front()) {
            w.clock += 1;
            if new_revision
                && e.hook == "secret-rotate"
                && let Some(s) = e.secret.as_ref().and_then(|u| w.secrets.get_mut(u))
            {
                let revision = s.latest() + 1;
                s.revisions.push(SimRevision {
                    revision,
                    content: Default::default(),
                });
            }
            hook_ran(w, &e, false);
            ran.push(format!("{unit} {}", e.label()));
        }
    }
    ran
}

fn advance(w: &mut World, by: u64, new_revision: bool) -> Vec<(u64, Vec<String>)> {
    let until = w.clock + by;
    let mut out = Vec::new();
    while let Some(at) = fire_next(w, until) {
        w.clock = w.clock.max(at);
        out.push((at, run_queues(w, new_revision)));
    }
    w.clock = w.clock.max(until);
    out
}

#[test]
fn update_status_ticks_every_interval_on_every_unit() {
    let mut w = world();
    let fired = advance(&mut w, 600, false);
    let ticks: Vec<u64> = fired.iter().map(|(at, _)| at - T0).collect();
    assert_eq!(ticks, [300, 600]);
    assert_eq!(
        fired[0].1,
        ["db/0 update-status", "db/1 update-status"],
        "{fired:?}"
    );
    assert_eq!(w.clock, T0 + 600 + 2, "each hook moved the clock a second");
    assert_eq!(w.next_update_status, Some(T0 + 900));
    assert_eq!(ticks_until(&w, T0 + 900), 1);
    assert_eq!(ticks_until(&w, T0 + 899), 0);
}

#[test]
fn a_rotation_that_made_a_revision_is_due_an_interval_on_else_five_minutes_on() {
    let mut w = world();
    w.model_config.insert(UPDATE_STATUS.into(), "60m".into());
    w.secrets
        .insert("secret:a".into(), secret("hourly", T0 + 3600));
    // The hook writes no revision: Juju retries it five minutes later.
    let fired = advance(&mut w, 3600, false);
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(
        fired[0].1,
        [
            "db/0 secret-rotate (secret:a)",
            "db/0 update-status",
            "db/1 update-status"
        ]
    );
    let rotates = |w: &World| unix(w.secrets["secret:a"].rotates.as_deref().unwrap()).unwrap();
    assert_eq!(rotates(&w), T0 + 3600 + RETRY_DELAY);
    // This time it does: the next is an hour after the last due time.
    let fired = advance(&mut w, RETRY_DELAY, true);
    assert_eq!(fired[0].1, ["db/0 secret-rotate (secret:a)"]);
    assert_eq!(rotates(&w), T0 + 3600 + RETRY_DELAY + 3600);
    // Only the owner's leader runs it.
    assert!(
        fired
            .iter()
            .flat_map(|(_, r)| r)
            .all(|r| !r.starts_with("db/1 secret"))
    );
}

#[test]
fn a_rotation_before_an_expiry_is_retried_sooner_and_an_unremoved_expiry_again() {
    let mut w = world();
    w.model_config.insert(UPDATE_STATUS.into(), "60m".into());
    let mut s = secret("daily", T0 + 600);
    s.expiry = Some(crate::show::utc(T0 + 7200));
    w.secrets.insert("secret:a".into(), s);
    let fired = advance(&mut w, 600, true);
    assert_eq!(fired[0].1, ["db/0 secret-rotate (secret:a)"]);
    // A day on would pass the expiry: five minutes on instead.
    let rotates = unix(w.secrets["secret:a"].rotates.as_deref().unwrap()).unwrap();
    assert_eq!(rotates, T0 + 600 + RETRY_DELAY);
    w.secrets.get_mut("secret:a").unwrap().rotation = Some("never".into());
    // At the expiry: secret-expired names the latest revision; the owner
    // keeps it, so it is due again five minutes later, for that revision.
    let fired = advance(&mut w, 7200 - 600, false);
    let expired: Vec<&(u64, Vec<String>)> = fired
        .iter()
        .filter(|(_, r)| r.iter().any(|e| e.contains("secret-expired")))
        .collect();
    assert_eq!(expired.len(), 1, "{fired:?}");
    assert_eq!(expired[0].0, T0 + 7200);
    let retry = w.secrets["secret:a"].expire_retry.unwrap();
    assert_eq!(retry.revision, 2);
    assert!(retry.at > T0 + 7200 + RETRY_DELAY - 10, "{retry:?}");
    // Removed: no more.
    w.secrets
        .get_mut("secret:a")
        .unwrap()
        .revisions
        .retain(|r| r.revision != 2);
    let fired = advance(&mut w, RETRY_DELAY, false);
    assert!(
        fired
            .iter()
            .any(|(_, r)| r.iter().any(|e| e.contains("secret-expired")))
    );
    assert_eq!(w.secrets["secret:a"].expiry, None);
    assert_eq!(w.secrets["secret:a"].expire_retry, None);
}

#[test]
fn a_rotation_already_held_by_a_failed_hook_is_not_queued_again() {
    let mut w = world();
    w.model_config.insert(UPDATE_STATUS.into(), "60m".into());
    w.secrets
        .insert("secret:a".into(), secret("hourly", T0 + 60));
    let at = fire_next(&mut w, T0 + 60).unwrap();
    assert_eq!(at, T0 + 60);
    let e = w.unit_mut("db/0").unwrap().queue.pop_front().unwrap();
    w.unit_mut("db/0").unwrap().error = Some(Failed {
        event: e.clone(),
        message: "hook failed".into(),
    });
    // Due still, but held: only the tick is next.
    assert_eq!(fire_next(&mut w, T0 + 3600), Some(T0 + 3600));
    assert!(
        w.unit("db/0")
            .unwrap()
            .queue
            .iter()
            .all(|q| q.hook == "update-status")
    );
    // `resolve --no-retry`: skipped counts as rotated, as Juju's Skip does.
    w.unit_mut("db/0").unwrap().error = None;
    hook_ran(&mut w, &e, true);
    let rotates = unix(w.secrets["secret:a"].rotates.as_deref().unwrap()).unwrap();
    assert_eq!(rotates, T0 + 60 + 3600);
}

#[test]
fn the_models_own_secrets_and_an_ownerless_application_have_nothing_due() {
    let mut w = world();
    let mut s = secret("hourly", T0 + 10);
    s.owner = "model".into();
    w.secrets.insert("secret:m".into(), s);
    let mut s = secret("hourly", T0 + 10);
    s.owner = "gone".into();
    w.secrets.insert("secret:g".into(), s);
    assert_eq!(fire_next(&mut w, T0 + 100), None);
}

#[test]
fn model_config_checks_the_interval_as_juju_does() {
    assert_eq!(check_update_status("10m"), Ok(600));
    assert_eq!(
        check_update_status("10s"),
        Err("update status hook frequency 10s cannot be less than 1m".into())
    );
    assert_eq!(
        check_update_status("2h"),
        Err("update status hook frequency 2h0m0s cannot be greater than 60m".into())
    );
    assert!(
        check_update_status("soon")
            .unwrap_err()
            .contains("invalid duration \"soon\"")
    );
    assert_eq!(go_shown(90.0), "1m30s");
}

proptest! {
    /// Whatever is due, time only moves on, each step fires something,
    /// and an advance ends within its ticks and secrets.
    #[test]
    fn advancing_fires_in_time_order_and_ends(
        interval in 60u64..3600,
        rotations in proptest::collection::vec((0usize..4, 0u64..20_000, any::<bool>()), 0..6),
        by in 0u64..40_000,
    ) {
        let mut w = world();
        w.model_config.insert(UPDATE_STATUS.into(), format!("{interval}s"));
        let policies = ["never", "hourly", "daily", "weekly"];
        for (i, (p, at, expires)) in rotations.iter().enumerate() {
            let mut s = secret(policies[*p], T0 + at);
            if *expires {
                s.expiry = Some(crate::show::utc(T0 + at / 2));
            }
            w.secrets.insert(format!("secret:{i}"), s);
        }
        let fired = advance(&mut w, by, by % 2 == 0);
        let times: Vec<u64> = fired.iter().map(|(at, _)| *at).collect();
        prop_assert!(times.windows(2).all(|p| p[0] < p[1]), "{times:?}");
        prop_assert!(fired.iter().all(|(_, ran)| !ran.is_empty()));
        // Per secret, a rotation and an expiry, each at most every retry delay.
        let bound = by / interval + 1 + 2 * rotations.len() as u64 * (by / RETRY_DELAY + 2);
        prop_assert!((fired.len() as u64) <= bound, "{} > {bound}", fired.len());
        prop_assert!(w.clock >= T0 + by);
    }
}
