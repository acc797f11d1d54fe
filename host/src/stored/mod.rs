//! The `stored` WIT interface: the charm's own key-value data, kept in the
//! scope store between events (DESIGN §6; what `StoredState` is in ops).
//!
//! * [`data`]: the store's data section ([`Data`]) and a handler's
//!   [`Changes`], pure.
//! * [`Stored`]: the interface for one handler. Its reads see the data as
//!   the event left it when the handler started (earlier handlers' writes
//!   included) with the handler's own writes over it; its writes collect in
//!   [`Changes`], which the pipeline applies to the store only when the
//!   handler returned. A trap drops them, and a failed event saves no store.
//!
//! Every write is checked against the bounds below, chosen to fit Juju's own
//! charm state (`state-set`: 256-byte keys, 64 KiB values, 2 MiB per unit by
//! default), where the `juju` backend keeps the whole store: the data may take
//! half of a unit's 2 MiB, leaving the rest to the scopes.

pub mod data;

pub use data::{Changes, Data};

use crate::bindings::stored::Host;
use data::entry_bytes;
use std::collections::BTreeSet;

/// Longest key, in bytes: Juju's 256 with room for a backend's prefix.
pub const MAX_KEY: usize = 128;
/// Largest value, in bytes: Juju's limit for one value of charm state.
pub const MAX_VALUE: usize = 64 << 10;
/// Keys the data may hold.
pub const MAX_KEYS: usize = 1024;
/// Bytes of every key and value together: half of Juju's default
/// `max-charm-state-size` (2 MiB per unit).
pub const MAX_TOTAL: usize = 1 << 20;

/// Check a key a guest names: 1 to [`MAX_KEY`] bytes of
/// `a-z A-Z 0-9 - _ . : /`, which every backend carries as it is (no `=`,
/// which `state-set key=value` splits on, no space, no control character).
pub fn validate_key(key: &str) -> Result<(), String> {
    if key.is_empty() || key.len() > MAX_KEY {
        return Err(format!(
            "stored key must be 1 to {MAX_KEY} bytes, got {}",
            key.len()
        ));
    }
    if let Some(c) = key
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' | ':' | '/'))
    {
        return Err(format!(
            "stored key {key:?} has {c:?}; use a-z A-Z 0-9 - _ . : /"
        ));
    }
    Ok(())
}

/// The `stored` interface for one handler.
#[derive(Debug, Default)]
pub struct Stored {
    /// The data when the handler started.
    base: Data,
    /// The handler's writes so far.
    changes: Changes,
    /// Keys and bytes of the data as this handler sees it (base and changes).
    keys: usize,
    bytes: usize,
}

impl Stored {
    /// A handler starts, reading `data` (shared, not copied).
    pub fn begin(&mut self, data: &Data) {
        self.base = data.clone();
        self.changes = Changes::default();
        self.keys = data.len();
        self.bytes = data.bytes();
    }

    /// The handler ended: its changes, to apply only if it returned. Lets go
    /// of the data it read, so that applying them copies nothing.
    pub fn take(&mut self) -> Changes {
        self.base = Data::default();
        (self.keys, self.bytes) = (0, 0);
        std::mem::take(&mut self.changes)
    }

    /// The value of `key` as this handler sees it.
    fn current(&self, key: &str) -> Option<&str> {
        match self.changes.0.get(key) {
            Some(change) => change.as_deref(),
            None => self.base.get(key),
        }
    }

    /// Record `value` (`None`: removal) for `key`; a change that gives back
    /// what the handler started with is dropped.
    fn record(&mut self, key: String, value: Option<String>) {
        if self.base.get(&key) == value.as_deref() {
            self.changes.0.remove(&key);
        } else {
            self.changes.0.insert(key, value);
        }
    }
}

impl Host for Stored {
    fn get(&mut self, key: String) -> Option<String> {
        self.current(&key).map(str::to_owned)
    }

    fn set(&mut self, key: String, value: String) -> Result<(), String> {
        validate_key(&key)?;
        if value.len() > MAX_VALUE {
            return Err(format!(
                "stored value of {key:?} is {} bytes; the limit is {MAX_VALUE} (MAX_VALUE, Juju's limit for one value of charm state)",
                value.len()
            ));
        }
        let old = self.current(&key).map(|v| entry_bytes(&key, v));
        if old.is_none() && self.keys >= MAX_KEYS {
            return Err(format!(
                "stored key {key:?} not set: {MAX_KEYS} keys are stored, the limit (MAX_KEYS); delete keys that are no longer needed"
            ));
        }
        let bytes = self.bytes.saturating_sub(old.unwrap_or(0)) + entry_bytes(&key, &value);
        if bytes > MAX_TOTAL {
            return Err(format!(
                "stored key {key:?} not set: the stored data would be {bytes} bytes, keys and values counted; the limit is {MAX_TOTAL} (MAX_TOTAL); delete keys that are no longer needed"
            ));
        }
        self.keys += usize::from(old.is_none());
        self.bytes = bytes;
        self.record(key, Some(value));
        Ok(())
    }

    fn delete(&mut self, key: String) -> Result<(), String> {
        validate_key(&key)?;
        if let Some(old) = self.current(&key).map(|v| entry_bytes(&key, v)) {
            self.keys = self.keys.saturating_sub(1);
            self.bytes = self.bytes.saturating_sub(old);
            self.record(key, None);
        }
        Ok(())
    }

    fn keys(&mut self) -> Vec<String> {
        let mut keys: BTreeSet<&str> = self.base.iter().map(|(k, _)| k).collect();
        for (key, change) in &self.changes.0 {
            match change {
                Some(_) => keys.insert(key),
                None => keys.remove(key.as_str()),
            };
        }
        keys.into_iter().map(str::to_owned).collect()
    }
}

/// Register the `stored` interface, answered by the [`Stored`] that `get`
/// finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Stored,
) -> wasmtime::Result<()> {
    crate::bindings::stored::add_to_linker::<T, wasmtime::component::HasSelf<Stored>>(linker, get)
}

#[cfg(test)]
mod tests;
