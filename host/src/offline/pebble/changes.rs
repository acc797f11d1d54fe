//! Pebble's changes by id: what `/v1/changes/<id>[/wait]` answers. A
//! change of the simulated state is ready when made; an exec change of a
//! real process becomes ready when the process ends, and a wait on it
//! blocks until then (or until the store is closed at shutdown).

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Store {
    changes: BTreeMap<String, Value>,
    /// Set at shutdown: waits end at once.
    closed: bool,
}

/// Shared between the API and the threads that finish exec changes.
#[derive(Debug, Clone, Default)]
pub struct Changes(Arc<(Mutex<Store>, Condvar)>);

impl PartialEq for Changes {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Changes {
    fn store(&self) -> MutexGuard<'_, Store> {
        self.0.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn insert(&self, id: &str, change: Value) {
        self.store().changes.insert(id.to_string(), change);
        self.0.1.notify_all();
    }

    pub fn get(&self, id: &str) -> Option<Value> {
        self.store().changes.get(id).cloned()
    }

    /// Change `id` in place, waking its waiters.
    pub fn update(&self, id: &str, f: impl FnOnce(&mut Value)) {
        if let Some(change) = self.store().changes.get_mut(id) {
            f(change);
        }
        self.0.1.notify_all();
    }

    /// The change once ready; `None` past `timeout` (or at shutdown).
    pub fn wait(&self, id: &str, timeout: Duration) -> Option<Value> {
        let until = Instant::now().checked_add(timeout);
        let mut store = self.store();
        loop {
            let change = store.changes.get(id)?;
            if is_ready(change) {
                return Some(change.clone());
            }
            let left = until.map(|u| u.saturating_duration_since(Instant::now()));
            if store.closed || left.is_some_and(|l| l.is_zero()) {
                return None;
            }
            let wait = left.unwrap_or(Duration::from_secs(3600));
            store = self
                .0
                .1
                .wait_timeout(store, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// End every wait: the server is stopping.
    pub fn close(&self) {
        self.store().closed = true;
        self.0.1.notify_all();
    }
}

pub fn is_ready(change: &Value) -> bool {
    change.get("ready").and_then(Value::as_bool) == Some(true)
}

/// An exec change and its one task, not ready yet.
pub fn exec_pending(id: &str, task: &str, summary: &str, now: &str) -> Value {
    json!({"id": id, "kind": "exec", "summary": summary, "status": "Doing", "ready": false,
        "spawn-time": now, "tasks": [{"id": task, "kind": "exec", "summary": summary,
            "status": "Doing"}]})
}

/// An exec change done: its exit code, and Pebble's error (`err`, with
/// the task's summary as Pebble words it) when it failed.
pub fn exec_done(change: &mut Value, code: i64, why: Option<&str>, now: &str) {
    let status = if why.is_some() { "Error" } else { "Done" };
    let summary = change
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    change["status"] = json!(status);
    change["ready"] = json!(true);
    change["ready-time"] = json!(now);
    if let Some(task) = change.pointer_mut("/tasks/0") {
        task["status"] = json!(status);
        task["data"] = json!({"exit-code": code});
    }
    if let Some(why) = why {
        change["err"] = json!(format!(
            "cannot perform the following tasks:\n- {summary} ({why})"
        ));
    }
}

/// Pebble's words for an exec past its timeout.
pub fn timed_out(timeout: &str) -> String {
    format!("timed out after {timeout}: context deadline exceeded")
}
