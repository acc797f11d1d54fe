//! The time source of probes: the grace period and the back-off between
//! retries read and wait on it, so tests drive both without sleeping.

use crate::event_time::EventTime;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// Wall-clock time and waiting. Wall-clock (not monotonic) time, because the
/// grace period spans events, which are separate processes.
pub trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;
    /// Wait `d` (the back-off before a retry).
    fn sleep(&self, d: Duration);
}

/// The machine's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// The event's clock ([`crate::event_time`]): on the offline model, the
/// model's, which moves on with the machine's; a wait waits.
#[derive(Debug, Clone, Copy)]
pub struct EventClock(pub EventTime);

impl Clock for EventClock {
    fn now(&self) -> SystemTime {
        self.0.now()
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// A clock that moves only when told to, or when slept on (a sleep advances
/// it at once and is recorded). For tests, here and in the event pipeline.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<SystemTime>,
    slept: Mutex<Vec<Duration>>,
}

impl ManualClock {
    pub fn new(start: SystemTime) -> Self {
        ManualClock {
            now: Mutex::new(start),
            slept: Mutex::new(Vec::new()),
        }
    }

    /// Move the clock on by `d`.
    pub fn advance(&self, d: Duration) {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now += d;
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.slept.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn sleep(&self, d: Duration) {
        self.slept.lock().unwrap_or_else(|p| p.into_inner()).push(d);
        self.advance(d);
    }
}
