//! The charm's own data, kept between events: what `StoredState` is in ops.
//!
//! A key-value store the host keeps with the scopes. [`set`] and [`get`]
//! store any serde type as JSON; [`set_raw`] and [`get_raw`] store text as
//! it is.
//!
//! Writes are transactional, like status writes: a handler reads its own
//! writes at once, later handlers of the event see them once it returned
//! (`Ok` or `Err`), and a handler that traps keeps none of them. A hook that
//! fails keeps nothing of its event, as Juju keeps none of its relation data,
//! so the retry starts from the same data.
//!
//! Bounds, each refused at the call with a [`StoredError::Refused`] naming it:
//! keys are 1 to 128 bytes of `a-z A-Z 0-9 - _ . : /`; a value is at most
//! 64 KiB (as JSON, for [`set`]); all data together is at most 1024 keys and
//! 1 MiB, keys and values counted.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Installed {
//!     version: String,
//!     port: u16,
//! }
//!
//! fn install(_event: &Event) -> Outcome {
//!     // ... install version 2.1 of the workload ...
//!     stored::set("installed", &Installed { version: "2.1".into(), port: 8080 })?;
//!     Ok(None)
//! }
//!
//! fn config(_event: &Event) -> Outcome {
//!     let Some(installed) = stored::get::<Installed>("installed")? else {
//!         return Ok(Some(Status::waiting("Waiting for the install to finish")));
//!     };
//!     log::info(&format!("configuring {} on port {}", installed.version, installed.port));
//!     Ok(None)
//! }
//! ```

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::__bindings::wasm_charm::charm::stored as wit;

/// Why stored data could not be read or written. The kind stays through
/// `?` into [`Error`](crate::Error)
/// ([`ErrorKind::Stored`](crate::ErrorKind::Stored)).
///
/// ```no_run
/// use wasm_charm::stored::{self, StoredError};
///
/// match stored::get::<u32>("restarts") {
///     Err(StoredError::Json { key, .. }) => stored::delete(&key)?, // an older charm's type
///     other => { other?; }
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum StoredError {
    /// The host refused the write: a key it does not take, or a bound; the
    /// message (the whole `Display`) names the key and which.
    Refused(String),
    /// The value could not be encoded as JSON, or the stored one could not
    /// be read as the type asked for.
    Json {
        /// The key.
        key: String,
        /// What `serde_json` said.
        message: String,
    },
}

/// The host's words, or the key and what `serde_json` said.
///
/// ```
/// use wasm_charm::stored::StoredError;
///
/// let e = StoredError::Json { key: "port".into(), message: "invalid type".into() };
/// assert_eq!(e.to_string(), "stored key \"port\": invalid type");
/// ```
impl fmt::Display for StoredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoredError::Refused(why) => f.write_str(why),
            StoredError::Json { key, message } => write!(f, "stored key {key:?}: {message}"),
        }
    }
}

impl std::error::Error for StoredError {}

/// The value of `key`, read from JSON as a `T`; `None` when nothing is
/// stored under it.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// let restarts: u32 = stored::get("restarts")?.unwrap_or_default();
/// stored::set("restarts", &(restarts + 1))?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, StoredError> {
    get_raw(key).map(|text| decode(key, &text)).transpose()
}

/// Store `value` under `key`, as JSON.
///
/// ```no_run
/// use std::collections::BTreeMap;
///
/// let ports: BTreeMap<&str, u16> = [("api", 8774), ("metadata", 8775)].into();
/// wasm_charm::stored::set("ports", &ports)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set<T: Serialize + ?Sized>(key: &str, value: &T) -> Result<(), StoredError> {
    set_raw(key, &encode(key, value)?)
}

/// The text stored under `key`, as it is.
///
/// ```no_run
/// let last = wasm_charm::stored::get_raw("last-backup").unwrap_or_default();
/// ```
pub fn get_raw(key: &str) -> Option<String> {
    wit::get(key)
}

/// Store `value` under `key`, as it is.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// stored::set_raw("last-backup", "2026-12-01T10:00:00Z")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set_raw(key: &str, value: &str) -> Result<(), StoredError> {
    wit::set(key, value).map_err(StoredError::Refused)
}

/// Remove `key`; removing a key that is not stored is fine.
///
/// ```no_run
/// wasm_charm::stored::delete("last-backup")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn delete(key: &str) -> Result<(), StoredError> {
    wit::delete(key).map_err(StoredError::Refused)
}

/// Every stored key, sorted.
///
/// ```no_run
/// for key in wasm_charm::stored::keys() {
///     wasm_charm::log::debug(format!("stored: {key}"));
/// }
/// ```
pub fn keys() -> Vec<String> {
    wit::keys()
}

fn encode<T: Serialize + ?Sized>(key: &str, value: &T) -> Result<String, StoredError> {
    serde_json::to_string(value).map_err(|e| StoredError::Json {
        key: key.to_string(),
        message: e.to_string(),
    })
}

fn decode<T: DeserializeOwned>(key: &str, text: &str) -> Result<T, StoredError> {
    serde_json::from_str(text).map_err(|e| StoredError::Json {
        key: key.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn typed_values_are_json() {
        let value: BTreeMap<&str, u16> = [("port", 8080)].into();
        let text = encode("k", &value).unwrap();
        assert_eq!(text, r#"{"port":8080}"#);
        let back: BTreeMap<String, u16> = decode("k", &text).unwrap();
        assert_eq!(back["port"], 8080);
    }

    #[test]
    fn errors_name_the_key() {
        let e = decode::<u16>("port", "\"x\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("stored key \"port\": invalid type"),
            "{e}"
        );
        let map: BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let e = encode("pairs", &map).unwrap_err();
        assert!(e.to_string().starts_with("stored key \"pairs\": "), "{e}");
        assert_eq!(
            StoredError::Refused("stored value of \"k\" is 65537 bytes".into()).to_string(),
            "stored value of \"k\" is 65537 bytes"
        );
    }
}
