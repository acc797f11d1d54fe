//! Settling: run queued events until no unit has one left, as Juju's
//! agents go idle. Each unit runs its own queue in order; which unit goes
//! next is the model's choice: by default in turn, in unit order, so a
//! run is the same every time; with a seed, any runnable unit, drawn from
//! that seed, as Juju's agents may interleave. A model that never goes
//! idle (two charms answering each other's writes forever) is stopped at
//! a bound, with the repeating cycle named.

use super::runner::{self, Places};
use super::state::World;

/// Which unit runs next.
#[derive(Debug, Clone)]
pub struct Order {
    pub seed: Option<u64>,
    state: u64,
    last: Option<String>,
}

impl Order {
    /// In turn (`None`), or drawn from `seed`.
    pub fn new(seed: Option<u64>) -> Order {
        Order {
            seed,
            state: seed.unwrap_or(0),
            last: None,
        }
    }

    /// splitmix64: small, and the same numbers on every machine.
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The unit to run next among `runnable` (in unit order).
    pub fn pick(&mut self, runnable: &[String]) -> Option<String> {
        if runnable.is_empty() {
            return None;
        }
        let chosen = match self.seed {
            Some(_) => {
                let i = (self.next_u64() % runnable.len() as u64) as usize;
                runnable[i].clone()
            }
            None => {
                // The first unit after the last one that ran, wrapping.
                let after = self
                    .last
                    .as_ref()
                    .and_then(|l| runnable.iter().find(|u| unit_order(u) > unit_order(l)));
                after.unwrap_or(&runnable[0]).clone()
            }
        };
        self.last = Some(chosen.clone());
        Some(chosen)
    }
}

/// Units sort by application, then by number (`app/10` after `app/9`).
fn unit_order(unit: &str) -> (&str, u32) {
    World::split_unit(unit).unwrap_or((unit, 0))
}

/// The units with an event to run: not in error, queue not empty, in unit
/// order.
pub fn runnable(world: &World) -> Vec<String> {
    let mut units: Vec<String> = world
        .apps
        .values()
        .flat_map(|a| a.units.values())
        .filter(|u| u.error.is_none() && !u.queue.is_empty())
        .map(|u| u.name.clone())
        .collect();
    units.sort_by(|a, b| unit_order(a).cmp(&unit_order(b)));
    units
}

/// How a settle ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub events: usize,
    pub seed: Option<u64>,
    /// What the hooks wrote that does not fit their relations' interfaces.
    pub violations: Vec<String>,
}

/// The model did not go idle within its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSettled {
    pub events: usize,
    pub seed: Option<u64>,
    /// The repeating events, `unit hook` each, when the tail repeats.
    pub cycle: Option<Vec<String>>,
}

impl std::fmt::Display for NotSettled {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "the model did not settle after {} events", self.events)?;
        if let Some(cycle) = &self.cycle {
            let first = cycle
                .first()
                .map(|c| c.split(' ').next().unwrap_or_default())
                .unwrap_or_default();
            write!(f, ": it repeats {} → {first} …", cycle.join(" → "))?;
        }
        if let Some(seed) = self.seed {
            write!(f, " (seed {seed})")?;
        }
        Ok(())
    }
}

impl std::error::Error for NotSettled {}

/// How many events one unit may run in one settle: past it, the model is
/// taken to loop. Generous: a unit of `n` peers legitimately runs about
/// 2n relation events and its setup.
pub fn bound_per_unit(units: usize) -> usize {
    (8 * units).max(200)
}

/// Run events until no unit has one, or a unit passes the bound. `saved`
/// is called after each event with the model as it then stands, so a
/// killed settle leaves the last event's state.
pub fn settle(
    world: &mut World,
    places: &dyn Places,
    order: &mut Order,
    saved: &mut dyn FnMut(&World) -> anyhow::Result<()>,
) -> anyhow::Result<Settled> {
    let mut events = 0;
    let mut per_unit: std::collections::BTreeMap<String, usize> = Default::default();
    let mut trace: Vec<String> = Vec::new();
    let mut violations = Vec::new();
    loop {
        let ready = runnable(world);
        let Some(unit) = order.pick(&ready) else {
            return Ok(Settled {
                events,
                seed: order.seed,
                violations,
            });
        };
        let bound = bound_per_unit(world.unit_names().len());
        let ran = per_unit.entry(unit.clone()).or_default();
        *ran += 1;
        if *ran > bound {
            return Err(NotSettled {
                events,
                seed: order.seed,
                cycle: find_cycle(&trace),
            }
            .into());
        }
        let Some(event) = world.unit_mut(&unit).and_then(|u| u.queue.pop_front()) else {
            continue;
        };
        trace.push(format!("{unit} {}", event.hook));
        let outcome = runner::run_event(world, places, &unit, &event, runner::Task::Hook)?;
        for (on, caused) in outcome.caused {
            world.enqueue(&on, caused);
        }
        violations.extend(outcome.violations);
        events += 1;
        saved(world)?;
    }
}

/// The shortest period with which the tail of `trace` repeats at least
/// three times, as that period's entries; `None` when it does not.
pub fn find_cycle(trace: &[String]) -> Option<Vec<String>> {
    let max = (trace.len() / 3).min(64);
    (1..=max).find_map(|p| {
        let tail = &trace[trace.len() - 3 * p..];
        let periodic = (p..tail.len()).all(|i| tail[i] == tail[i - p]);
        periodic.then(|| tail[2 * p..].to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_ping_pong_is_named_as_its_cycle() {
        let mut trace: Vec<String> = ["a/0 install", "b/0 install"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for _ in 0..5 {
            trace.push("a/0 ping-relation-changed".into());
            trace.push("b/0 pong-relation-changed".into());
        }
        let cycle = find_cycle(&trace).unwrap();
        assert_eq!(
            cycle,
            ["a/0 ping-relation-changed", "b/0 pong-relation-changed"]
        );
        let shown = NotSettled {
            events: 12,
            seed: Some(7),
            cycle: Some(cycle),
        }
        .to_string();
        assert_eq!(
            shown,
            "the model did not settle after 12 events: it repeats a/0 ping-relation-changed → \
             b/0 pong-relation-changed → a/0 … (seed 7)"
        );
        assert_eq!(find_cycle(&trace[..4]), None);
    }

    #[test]
    fn in_turn_goes_round_the_units_in_unit_order() {
        let units: Vec<String> = ["app/2", "app/10", "db/0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut order = Order::new(None);
        let picked: Vec<String> = (0..4).filter_map(|_| order.pick(&units)).collect();
        assert_eq!(picked, ["app/2", "app/10", "db/0", "app/2"]);
    }

    proptest! {
        /// A seed picks the same units every time, and only runnable ones.
        #[test]
        fn a_seed_replays_exactly(seed in any::<u64>(), n in 1usize..8) {
            let units: Vec<String> = (0..n).map(|i| format!("app/{i}")).collect();
            let (mut a, mut b) = (Order::new(Some(seed)), Order::new(Some(seed)));
            for _ in 0..20 {
                let (x, y) = (a.pick(&units), b.pick(&units));
                prop_assert_eq!(&x, &y);
                prop_assert!(x.is_some_and(|x| units.contains(&x)));
            }
        }

        /// A trace made of a repeated block is found to cycle with at most
        /// that block's length.
        #[test]
        fn a_repeated_block_is_a_cycle(block in proptest::collection::vec("[a-c]/[0-2] x", 1..6), reps in 3usize..6) {
            let trace: Vec<String> = std::iter::repeat_n(block.clone(), reps).flatten().collect();
            let cycle = find_cycle(&trace);
            prop_assert!(cycle.as_ref().is_some_and(|c| c.len() <= block.len() && block.len() % c.len() == 0));
        }
    }
}
