//! Which format a scope store document has, and which release wrote it:
//! the two keys every host reads first, before the rest of the document, so
//! that a store written by a newer host is refused naming that host's
//! release, untouched.
//!
//! Format 2 is format 1 with `release` (the writer's version). A host of
//! format 1 (0.1.0 before the marker) reads `format` alone, and refuses a
//! format-2 document as written by a newer host. Format 3 is format 2 whose
//! later changes may be in a journal beside it (`store_journal`, for large
//! local stores): a host that reads no journal must not take the document
//! alone for the store, and refuses it as written by a newer host. This
//! one reads all three and writes 2, or 3 for a document it journals. A
//! future encoding should keep `format` and `release` readable as the
//! first keys of a JSON object, which is all [`read`] needs.

use serde::Deserialize;

/// The document format this host writes.
pub const FORMAT: u32 = 2;
/// The format of a document this host journals (the local backend, large
/// stores): format 2, and a journal may hold later changes.
pub const JOURNALED: u32 = 3;
/// The oldest format this host reads.
pub const OLDEST: u32 = 1;
/// This host's release, written into every document it saves.
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// A store document that cannot be used. Never replaced by an empty store.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DecodeError {
    #[error(
        "the scope store was written by {} (format {found}; this host, wasm-charm {RELEASE}, reads formats {OLDEST} to {JOURNALED}); upgrade the host or restore the store",
        writer(release)
    )]
    Newer { found: u32, release: Option<String> },
    #[error("the scope store has format {found}, which this host does not read")]
    Unknown { found: u32 },
    #[error("the scope store is not valid: {0}")]
    Invalid(String),
}

/// The marker of a document: its format and, from format 2, the release
/// that wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Marker {
    pub format: u32,
    #[serde(default)]
    pub release: Option<String>,
}

/// The marker of the document `bytes`, read without the rest of it.
pub fn read(bytes: &[u8]) -> Result<Marker, DecodeError> {
    serde_json::from_slice(bytes).map_err(|e| DecodeError::Invalid(e.to_string()))
}

/// Whether this host reads a document of format `found`, written by
/// `release` (when the document says).
pub fn check(found: u32, release: Option<&str>) -> Result<(), DecodeError> {
    match found {
        f if (OLDEST..=JOURNALED).contains(&f) => Ok(()),
        f if f > JOURNALED => Err(DecodeError::Newer {
            found: f,
            release: release.map(str::to_string),
        }),
        f => Err(DecodeError::Unknown { found: f }),
    }
}

/// The release a document says saved it: kept as read, written as this
/// host's (whoever writes the document now is this host), and never part
/// of a store's equality (two stores saying the same are the same store,
/// whichever release last saved them).
#[derive(Debug, Clone, Default)]
pub struct WrittenBy(pub Option<String>);

impl PartialEq for WrittenBy {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for WrittenBy {}

impl serde::Serialize for WrittenBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(RELEASE)
    }
}

impl<'de> Deserialize<'de> for WrittenBy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<String>::deserialize(d).map(WrittenBy)
    }
}

/// How a refused document's writer is named in the message.
pub fn writer(release: &Option<String>) -> String {
    match release {
        Some(r) => format!("wasm-charm {r}"),
        None => "a newer wasm-charm".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_read_and_a_newer_one_names_its_release() {
        assert_eq!(check(1, None), Ok(()));
        assert_eq!(check(2, Some(RELEASE)), Ok(()));
        assert_eq!(check(3, Some(RELEASE)), Ok(()));
        let e = check(4, Some("9.1.0")).unwrap_err();
        assert!(e.to_string().contains("written by wasm-charm 9.1.0"), "{e}");
        assert!(e.to_string().contains("(format 4;"), "{e}");
        assert!(matches!(
            check(0, None),
            Err(DecodeError::Unknown { found: 0 })
        ));
        let m = read(br#"{"format": 3, "release": "9.1.0", "whatever": [1]}"#).unwrap();
        assert_eq!(m.release.as_deref(), Some("9.1.0"));
    }
}
