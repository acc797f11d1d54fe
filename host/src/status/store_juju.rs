//! The `juju` backend of the scope store (DESIGN §6): the document kept in
//! Juju's server-side charm state, which survives the replacement of a
//! Kubernetes pod (the charm directory lives in the pod's `emptyDir`).
//!
//! * **Read** once per event: one `state-get --format=json` at load, kept
//!   for the event (the save writes only what changed against it). The
//!   store's keys ([`store_chunks`]) are joined and decoded with the same
//!   pure decoder as the local file; a store that cannot be read is an
//!   error naming the keys, and the state is left as it is.
//! * **Written** with `state-set --file -` (the changed keys, as JSON on
//!   stdin: no argv limit) and one `state-delete` per key no longer used.
//!   Juju holds both until the hook ends and commits them, with the
//!   event's relation data, only if it exits 0 (reference juju-protocol.md
//!   §1.6, §2.7): a failed or killed hook keeps none of it. A document past
//!   the unit's quota is refused by [`JujuStore::check`] before anything of
//!   the event is written.
//! * **No lock.** The local backend locks its file because `wasm-charm
//!   status` reads it from outside any hook; here nothing but hooks reads
//!   the charm state, and Juju runs one hook of a unit at a time. (An
//!   action declared `parallel: true` may run beside a hook; both would
//!   read the state at their start and the later commit would win. Charms
//!   whose actions set scopes should not declare them parallel.)

use super::store::{DecodeError, ScopeStore};
use super::store_chunks::{self, LayoutError, Plan, TooLarge};
use crate::hook_tools::{HOST_CALLS_TIMEOUT, HookTools};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The store cannot be read from or kept in Juju's charm state.
#[derive(Debug, thiserror::Error)]
pub enum JujuStoreError {
    #[error("{tool} failed: {why}")]
    Tool { tool: &'static str, why: String },
    #[error("Juju's charm state (state-get): {0}; it is left as it is")]
    Layout(#[from] LayoutError),
    #[error("Juju's charm state (keys `wasm-charm.store`…): {0}; it is left as it is")]
    Decode(#[from] DecodeError),
    #[error("{0}")]
    TooLarge(#[from] TooLarge),
}

/// The store in the charm state of the unit whose hook runs.
pub struct JujuStore {
    tools: Arc<dyn HookTools>,
    /// The charm state as `state-get` answered it (then as this event's
    /// save left it); `None` until the first read.
    state: Option<BTreeMap<String, String>>,
    /// The store [`JujuStore::load`] read.
    loaded: Option<ScopeStore>,
}

impl JujuStore {
    pub fn new(tools: Arc<dyn HookTools>) -> JujuStore {
        JujuStore {
            tools,
            state: None,
            loaded: None,
        }
    }

    fn call(
        &self,
        tool: &'static str,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, JujuStoreError> {
        let deadline = Instant::now() + HOST_CALLS_TIMEOUT;
        match self.tools.call(tool, args, stdin, deadline) {
            Ok(out) if out.code == 0 => Ok(out.stdout),
            Ok(out) => Err(JujuStoreError::Tool {
                tool,
                why: format!("exit code {}: {}", out.code, out.stderr.trim_end()),
            }),
            Err(e) => Err(JujuStoreError::Tool {
                tool,
                why: e.to_string(),
            }),
        }
    }

    /// The whole charm state, read once.
    fn state(&mut self) -> Result<&BTreeMap<String, String>, JujuStoreError> {
        if self.state.is_none() {
            let out = self.call("state-get", &["--format=json"], None)?;
            // An empty state is a nil map in Juju: `null`, not `{}`.
            let state: Option<BTreeMap<String, String>> =
                serde_json::from_slice(&out).map_err(|e| JujuStoreError::Tool {
                    tool: "state-get",
                    why: format!("its answer is not a map of strings: {e}"),
                })?;
            self.state = Some(state.unwrap_or_default());
        }
        Ok(self.state.get_or_insert_default())
    }

    /// The store; an empty one when the state holds none yet.
    pub fn load(&mut self) -> Result<ScopeStore, JujuStoreError> {
        let store = decode_state(self.state()?)?;
        self.loaded = Some(store.clone());
        Ok(store)
    }

    /// Refuse, writing nothing, a store that would not fit in the unit's
    /// charm state. A store the event would not save (nothing in it changed
    /// since it was loaded) passes: it is already there.
    pub fn check(&mut self, store: &ScopeStore) -> Result<(), JujuStoreError> {
        if let Some(loaded) = &self.loaded
            && !store.worth_saving_over(loaded)
        {
            return Ok(());
        }
        self.plan(store).map(drop)
    }

    /// What saving `store` writes and deletes.
    fn plan(&mut self, store: &ScopeStore) -> Result<Plan, JujuStoreError> {
        let doc = encode(store);
        Ok(store_chunks::plan(self.state()?, &doc)?)
    }

    /// Write `store`: Juju keeps it only if the hook then exits 0.
    pub fn save(&mut self, store: &ScopeStore) -> Result<(), JujuStoreError> {
        let plan = self.plan(store)?;
        if !plan.set.is_empty() {
            let json = crate::text::juju_json(&plan.set);
            self.call("state-set", &["--file", "-"], Some(&json))?;
        }
        for key in &plan.delete {
            self.call("state-delete", &[key.as_str()], None)?;
        }
        // The state as this hook now sees it, should it save again.
        let state = self.state.get_or_insert_default();
        state.extend(plan.set);
        for key in &plan.delete {
            state.remove(key);
        }
        self.loaded = Some(store.clone());
        Ok(())
    }
}

/// The document as the charm state holds it: [`ScopeStore::encode`]'s
/// compact JSON (every byte counts against the unit's quota), without its
/// closing newline.
pub fn encode(store: &ScopeStore) -> String {
    let mut doc = String::from_utf8_lossy(&store.encode()).into_owned();
    doc.truncate(doc.trim_end().len());
    doc
}

/// The store a charm state holds (`wasm-charm status` of an offline state
/// kept the `juju` way).
pub fn decode_state(state: &BTreeMap<String, String>) -> Result<ScopeStore, JujuStoreError> {
    match store_chunks::join(state)? {
        Some(doc) => Ok(ScopeStore::decode(doc.as_bytes())?),
        None => Ok(ScopeStore::default()),
    }
}

#[cfg(test)]
#[path = "store_juju_tests.rs"]
mod tests;
