//! When an event happens, for everything of it that reads the time: the
//! scopes' history, the probes' grace periods and back-off, and the wall
//! clock a handler reads through WASI (a certificate's validity, say).
//!
//! On a unit the model's time is the machine's. The offline model keeps a
//! clock of its own, which `juju advance` moves ahead of the machine's, and
//! tells the dispatch it runs in [`CLOCK_VAR`]; a scenario's `now` and a
//! recording's time are such clocks too. There the event starts at the
//! model's second and moves on with the machine, so that what a handler
//! dates agrees with the model's timers (a secret's expiry, update-status).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Set by the offline model on the dispatch it runs: the model's clock at
/// the event's start, in seconds since the Unix epoch. Juju sets no such
/// variable; unset, the event runs on the machine's clock.
pub const CLOCK_VAR: &str = "WASM_CHARM_CLOCK";

/// The time source of one event.
#[derive(Debug, Clone, Copy)]
pub enum EventTime {
    /// The machine's clock, which on a unit is the model's.
    Machine,
    /// A model's clock: `at` when the event started (`since`).
    Model { at: Duration, since: Instant },
}

impl EventTime {
    /// An event starting now at `secs` on a model's clock.
    pub fn model(secs: u64) -> EventTime {
        EventTime::Model {
            at: Duration::from_secs(secs),
            since: Instant::now(),
        }
    }

    /// The time [`CLOCK_VAR`]'s `value` gives: the machine's when unset.
    ///
    /// ```
    /// use wasm_charm_host::event_time::EventTime;
    /// assert_eq!(EventTime::parse(Some("1700000000")).unwrap().secs(), 1_700_000_000);
    /// assert!(matches!(EventTime::parse(None), Ok(EventTime::Machine)));
    /// assert!(EventTime::parse(Some("soon")).is_err());
    /// ```
    pub fn parse(value: Option<&str>) -> Result<EventTime, String> {
        match value {
            None => Ok(EventTime::Machine),
            Some(v) => v.trim().parse::<u64>().map(EventTime::model).map_err(|_| {
                format!(
                    "{CLOCK_VAR}=`{v}`: expected the model's clock in seconds since the Unix epoch; the event runs on the machine's clock"
                )
            }),
        }
    }

    /// What the process environment gives ([`EventTime::parse`]).
    pub fn from_process() -> Result<EventTime, String> {
        let var = std::env::var_os(CLOCK_VAR);
        EventTime::parse(var.as_ref().map(|v| v.to_string_lossy()).as_deref())
    }

    /// The time now on this clock.
    pub fn now(&self) -> SystemTime {
        match self {
            EventTime::Machine => SystemTime::now(),
            EventTime::Model { at, since } => UNIX_EPOCH + *at + since.elapsed(),
        }
    }

    /// [`EventTime::now`] in whole seconds since the Unix epoch.
    pub fn secs(&self) -> u64 {
        self.now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }

    /// Whether this is a model's clock rather than the machine's.
    pub fn is_model(&self) -> bool {
        matches!(self, EventTime::Model { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A model's clock starts at its second and never runs backwards.
        #[test]
        fn a_models_clock_starts_at_its_second(secs in 0u64..=(u64::MAX >> 34)) {
            let t = EventTime::parse(Some(&secs.to_string())).unwrap();
            let first = t.now();
            prop_assert!(t.secs() >= secs);
            prop_assert!(t.secs() <= secs + 60);
            prop_assert!(t.now() >= first);
        }

        /// Anything but a number of seconds is refused, naming the variable.
        #[test]
        fn a_bad_value_names_the_variable(v in "[^0-9 ]+") {
            let e = EventTime::parse(Some(&v)).unwrap_err();
            prop_assert!(e.starts_with("WASM_CHARM_CLOCK="), "{e}");
        }
    }
}
