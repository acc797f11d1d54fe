//! The wall clock a handler reads through WASI: the event's
//! ([`crate::event_time`]), so that on the offline model a handler dates
//! what it makes by the model's clock, as the model's timers do.

use crate::event_time::EventTime;
use std::time::{Duration, UNIX_EPOCH};
use wasmtime_wasi::{HostWallClock, WasiCtxBuilder};

/// Give `wasi` the event's wall clock. The machine's is WASI's own
/// default, left as it is.
pub fn set(wasi: &mut WasiCtxBuilder, time: EventTime) {
    if time.is_model() {
        wasi.wall_clock(EventWallClock(time));
    }
}

struct EventWallClock(EventTime);

impl HostWallClock for EventWallClock {
    fn resolution(&self) -> Duration {
        // It moves with the machine's monotonic clock, to the nanosecond.
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.0.now().duration_since(UNIX_EPOCH).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_models_clock_is_what_wasi_reads() {
        let clock = EventWallClock(EventTime::model(86_400));
        let now = clock.now();
        assert!(now >= Duration::from_secs(86_400), "{now:?}");
        assert!(now < Duration::from_secs(86_400 + 60), "{now:?}");
    }
}
