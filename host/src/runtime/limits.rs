//! Sandbox bounds that need code: the memory limiter that names the limit in
//! its trap, and the watchdog that ends a handler at its deadline.

use std::sync::mpsc;
use std::time::Instant;
use wasmtime::{Engine, ResourceLimiter};

/// Caps one instance's linear memory, and remembers that it did so the trap
/// report can say "memory limit" instead of a bare `unreachable`.
#[derive(Debug)]
pub struct MemoryLimit {
    pub max_bytes: usize,
    pub exceeded: bool,
}

/// Table elements one instance may have; Rust guests use a few hundred.
const MAX_TABLE_ELEMENTS: usize = 100_000;

impl ResourceLimiter for MemoryLimit {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_bytes {
            self.exceeded = true;
            // Refuse the growth: Rust's allocator then aborts, which traps.
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// One thread per process that bumps the engine's epoch when the running
/// handler's deadline passes. Each handler's store traps at the next epoch, so
/// a deadline of an earlier handler can never cut a later one short: the
/// watchdog only bumps while armed, and is re-armed per handler.
pub struct Watchdog {
    tx: mpsc::Sender<Option<Instant>>,
}

impl Watchdog {
    pub fn start(engine: &Engine) -> Watchdog {
        let (tx, rx) = mpsc::channel::<Option<Instant>>();
        let engine = engine.weak();
        std::thread::spawn(move || {
            let mut deadline: Option<Instant> = None;
            loop {
                let next = match deadline {
                    None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                    Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
                };
                match next {
                    Ok(d) => deadline = d,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Some(engine) = engine.upgrade() {
                            engine.increment_epoch();
                        }
                        deadline = None;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
        });
        Watchdog { tx }
    }

    /// Interrupt the running handler at `deadline`.
    pub fn arm(&self, deadline: Instant) {
        let _ = self.tx.send(Some(deadline));
    }

    /// The handler returned in time.
    pub fn disarm(&self) {
        let _ = self.tx.send(None);
    }
}
