//! Retries with back-off, on an injected clock: no sleeping.

use crate::charm_dir::probes::{HostPort, ProbeSpec, Target};
use crate::probe::run::with_retries;
use crate::probe::{Check, Clock as _, ManualClock};
use proptest::prelude::*;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn spec() -> ProbeSpec {
    ProbeSpec::new(Target::Tcp(HostPort {
        host: "127.0.0.1".into(),
        port: 8774,
    }))
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

const DOWN: &str = "port 127.0.0.1:8774 not listening";

proptest! {
    /// Up to 1 + retries attempts, stopping at the first healthy one, waiting
    /// backoff, 2 × backoff, … between them on the clock.
    #[test]
    fn retries_back_off_on_the_clock(
        retries in 0u32..=10,
        backoff_ms in 0u64..1000,
        first_healthy in proptest::option::of(0u32..12),
    ) {
        let mut spec = spec();
        spec.retries = retries;
        spec.backoff = Duration::from_millis(backoff_ms);
        let clock = ManualClock::new(at(0));
        let mut made = 0;
        let outcome = with_retries(&spec, &clock, Instant::now() + Duration::from_secs(3600), |_| {
            made += 1;
            if Some(made - 1) == first_healthy {
                Check::healthy("up")
            } else {
                Check::unhealthy(format!("down {made}"))
            }
        });
        let expected = match first_healthy {
            Some(i) if i <= retries => i + 1,
            _ => retries + 1,
        };
        prop_assert_eq!(outcome.attempts, expected);
        prop_assert_eq!(made, expected);
        prop_assert_eq!(outcome.check.healthy, first_healthy == Some(expected - 1));
        let waits: Vec<Duration> = (0..expected - 1).map(|i| spec.backoff * 2u32.pow(i)).collect();
        prop_assert_eq!(clock.sleeps(), waits.clone());
        prop_assert_eq!(clock.now(), at(0) + waits.iter().sum::<Duration>());
    }
}

#[test]
fn default_retries_wait_200ms_then_400ms() {
    let spec = spec();
    let clock = ManualClock::new(at(0));
    let outcome = with_retries(
        &spec,
        &clock,
        Instant::now() + Duration::from_secs(60),
        |_| Check::unhealthy(DOWN),
    );
    assert_eq!(outcome.attempts, 3);
    assert_eq!(outcome.check, Check::unhealthy(DOWN));
    assert_eq!(
        clock.sleeps(),
        [Duration::from_millis(200), Duration::from_millis(400)]
    );
}

#[test]
fn no_retry_past_the_budget() {
    let mut spec = spec();
    spec.backoff = Duration::from_secs(10);
    let clock = ManualClock::new(at(0));
    let outcome = with_retries(
        &spec,
        &clock,
        Instant::now() + Duration::from_secs(5),
        |_| Check::unhealthy(DOWN),
    );
    assert_eq!(outcome.attempts, 1);
    assert!(clock.sleeps().is_empty());
}
