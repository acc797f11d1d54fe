//! Deadlines for everything an event causes (DESIGN §7): one timer thread per
//! process runs an action when a deadline passes — bump the engine's epoch so
//! wasm code traps, kill a hook tool's process group so a blocking call
//! returns. Nothing else in the host sleeps or polls for a deadline.
//!
//! The thread starts at the first [`at`]; an event that never arms a deadline
//! (a warm update-status with nothing to write) never starts it.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

type Action = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Pending {
    next_id: u64,
    actions: BTreeMap<(Instant, u64), Action>,
}

struct Timer {
    pending: Mutex<Pending>,
    wake: Condvar,
}

fn timer() -> &'static Arc<Timer> {
    static TIMER: OnceLock<Arc<Timer>> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer = Arc::new(Timer {
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
        });
        let t = timer.clone();
        std::thread::Builder::new()
            .name("wasm-charm-deadlines".into())
            .spawn(move || t.run())
            .map(drop)
            // Without the thread no deadline fires: say so rather than hang silently.
            .unwrap_or_else(|e| eprintln!("wasm-charm: cannot start the deadline timer: {e}"));
        timer
    })
}

impl Timer {
    fn run(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = Instant::now();
            let due = pending
                .actions
                .first_key_value()
                .map(|(&(at, _), _)| at)
                .filter(|at| *at <= now);
            if due.is_some() {
                if let Some((_, action)) = pending.actions.pop_first() {
                    // Run without the lock: an action may take a moment (kill).
                    drop(pending);
                    action();
                    pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
                }
                continue;
            }
            pending = match pending.actions.first_key_value().map(|(&(at, _), _)| at) {
                Some(at) => {
                    self.wake
                        .wait_timeout(pending, at.saturating_duration_since(now))
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
                None => self.wake.wait(pending).unwrap_or_else(|p| p.into_inner()),
            };
        }
    }
}

/// An armed deadline; dropping it disarms it (a no-op once it fired).
#[must_use = "dropping the guard disarms the deadline at once"]
pub struct Armed {
    key: (Instant, u64),
}

impl Drop for Armed {
    fn drop(&mut self) {
        let timer = timer();
        let mut pending = timer.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.actions.remove(&self.key);
    }
}

/// Run `action` on the timer thread at `deadline`, unless the returned guard
/// is dropped first.
pub fn at(deadline: Instant, action: impl FnOnce() + Send + 'static) -> Armed {
    let timer = timer();
    let mut pending = timer.pending.lock().unwrap_or_else(|p| p.into_inner());
    let id = pending.next_id;
    pending.next_id += 1;
    let key = (deadline, id);
    pending.actions.insert(key, Box::new(action));
    timer.wake.notify_one();
    Armed { key }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn fires_due_actions_in_order_and_never_disarmed_ones() {
        let (tx, rx) = mpsc::channel();
        let now = Instant::now();
        let t2 = tx.clone();
        let _late = at(now + Duration::from_millis(20), move || t2.send(2).unwrap());
        let t1 = tx.clone();
        let _early = at(now, move || t1.send(1).unwrap());
        let t3 = tx.clone();
        drop(at(now, move || t3.send(3).unwrap()));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(1));
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(2));
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
    }
}
