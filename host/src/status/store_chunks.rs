//! How the scope store document is laid out in Juju's charm state (the
//! `juju` backend, DESIGN §6): cut into values `state-set` accepts, under
//! keys of their own, with a header that lets a reader tell a whole set from
//! a torn or mixed one. Pure: document text in, key-value map out, and back.
//!
//! ```text
//! wasm-charm.store    {"layout":1,"chunks":2,"bytes":70000,"sha256":"…"}
//! wasm-charm.store.0  the document's first 65,536 bytes (cut on a character boundary)
//! wasm-charm.store.1  the rest
//! ```
//!
//! Keys outside this namespace belong to someone else (an earlier revision
//! of the charm, say) and are never touched, but they count against the
//! unit's quota, so [`plan`] counts them.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The header's key; the chunks are `wasm-charm.store.<n>`.
pub const HEADER_KEY: &str = "wasm-charm.store";
const CHUNK_PREFIX: &str = "wasm-charm.store.";
/// The layout this host writes and reads.
pub const LAYOUT: u32 = 1;
/// Juju's bound on one value of charm state (`core/quota`
/// `MaxCharmStateValueSize`; `state-set` refuses a longer one at once).
pub const MAX_VALUE: usize = 64 << 10;
/// Juju's default bound on a unit's whole charm state (controller config
/// `max-charm-state-size`), counted as Juju counts it ([`juju_size`]) and
/// enforced by the controller when it commits the hook: past it the hook
/// fails after exiting 0. A charm cannot read the controller's setting, so
/// the host holds every unit to the default.
pub const MAX_UNIT_STATE: usize = 2 << 20;

/// The header: how many chunks, and what they hold together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    layout: u32,
    chunks: usize,
    bytes: usize,
    sha256: String,
}

/// The key of chunk `n`.
pub fn chunk_key(n: usize) -> String {
    format!("{CHUNK_PREFIX}{n}")
}

/// Whether `key` is in the store's namespace (the header or a chunk).
pub fn is_store_key(key: &str) -> bool {
    key == HEADER_KEY || key.starts_with(CHUNK_PREFIX)
}

fn sha256_hex(text: &str) -> String {
    crate::text::hex(&Sha256::digest(text.as_bytes()))
}

/// The keys and values that hold `doc`: the header and one chunk per
/// [`MAX_VALUE`] bytes at most, each cut on a character boundary (a value
/// is text; Juju carries it as YAML).
pub fn split(doc: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = doc;
    let mut n = 0;
    while !rest.is_empty() {
        // A character is at most 4 bytes, so each chunk takes at least one.
        let cut = rest.floor_char_boundary(MAX_VALUE);
        let (chunk, tail) = rest.split_at(cut);
        out.insert(chunk_key(n), chunk.to_string());
        rest = tail;
        n += 1;
    }
    let header = Header {
        layout: LAYOUT,
        chunks: n,
        bytes: doc.len(),
        sha256: sha256_hex(doc),
    };
    // A struct of numbers and a string always serialises.
    out.insert(
        HEADER_KEY.to_string(),
        serde_json::to_string(&header).unwrap_or_default(),
    );
    out
}

/// The charm state's keys do not hold a whole store. Each names the keys
/// at fault; the state is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error(
        "keys {keys} hold parts of a scope store but its header `{HEADER_KEY}` is missing (a torn write)"
    )]
    Headless { keys: String },
    #[error("key `{HEADER_KEY}` is not a scope store header: {why}")]
    BadHeader { why: String },
    #[error(
        "key `{HEADER_KEY}` has layout {found}, which a newer wasm-charm writes; this host reads layout {LAYOUT}: upgrade the host"
    )]
    Newer { found: u32 },
    #[error(
        "key `{key}` is missing: the header `{HEADER_KEY}` names {chunks} chunks (a torn write)"
    )]
    Missing { key: String, chunks: usize },
    #[error(
        "key `{key}` is not part of the store: the header `{HEADER_KEY}` names {chunks} chunks (a torn or mixed write)"
    )]
    Extra { key: String, chunks: usize },
    #[error(
        "the chunks hold {bytes} bytes with SHA-256 {sha256}, but the header `{HEADER_KEY}` says {expected_bytes} bytes with SHA-256 {expected_sha256}: they come from different writes"
    )]
    Mismatch {
        bytes: usize,
        sha256: String,
        expected_bytes: usize,
        expected_sha256: String,
    },
}

/// The document the store's keys of `state` hold; `None` when it holds
/// none of them (no event has saved a store yet). Keys outside the
/// namespace are ignored.
pub fn join(state: &BTreeMap<String, String>) -> Result<Option<String>, LayoutError> {
    let Some(raw) = state.get(HEADER_KEY) else {
        let chunks: Vec<String> = state
            .keys()
            .filter(|k| is_store_key(k))
            .map(|k| format!("`{k}`"))
            .collect();
        if chunks.is_empty() {
            return Ok(None);
        }
        return Err(LayoutError::Headless {
            keys: chunks.join(", "),
        });
    };
    let header = parse_header(raw)?;
    for key in state.keys().filter(|k| k.starts_with(CHUNK_PREFIX)) {
        let index = key[CHUNK_PREFIX.len()..].parse::<usize>().ok();
        // `01` is no key this host writes: as foreign to the set as `7`
        // of a 3-chunk store.
        let canonical = index.is_some_and(|n| chunk_key(n) == *key && n < header.chunks);
        if !canonical {
            return Err(LayoutError::Extra {
                key: key.clone(),
                chunks: header.chunks,
            });
        }
    }
    let mut doc = String::with_capacity(header.bytes.min(MAX_UNIT_STATE));
    for n in 0..header.chunks {
        let key = chunk_key(n);
        let chunk = state.get(&key).ok_or(LayoutError::Missing {
            key,
            chunks: header.chunks,
        })?;
        doc.push_str(chunk);
    }
    let sha256 = sha256_hex(&doc);
    if doc.len() != header.bytes || sha256 != header.sha256 {
        return Err(LayoutError::Mismatch {
            bytes: doc.len(),
            sha256,
            expected_bytes: header.bytes,
            expected_sha256: header.sha256,
        });
    }
    Ok(Some(doc))
}

fn parse_header(raw: &str) -> Result<Header, LayoutError> {
    // The layout first, so that a newer header with fields this host does
    // not know is named as newer rather than as invalid.
    #[derive(Deserialize)]
    struct Layout {
        layout: u32,
    }
    let bad = |e: serde_json::Error| LayoutError::BadHeader { why: e.to_string() };
    let Layout { layout } = serde_json::from_str(raw).map_err(bad)?;
    if layout > LAYOUT {
        return Err(LayoutError::Newer { found: layout });
    }
    if layout < LAYOUT {
        return Err(LayoutError::BadHeader {
            why: format!("layout {layout} is not one any wasm-charm wrote"),
        });
    }
    serde_json::from_str(raw).map_err(bad)
}

/// The size Juju gives a charm state: its BSON encoding (`core/quota`
/// `BSONTotalSizeChecker` over the whole map), that is 5 bytes for the
/// document and, per entry, its key and value and 7 bytes (type, the key's
/// NUL, the value's length and NUL).
pub fn juju_size<'a>(entries: impl IntoIterator<Item = (&'a String, &'a String)>) -> usize {
    5 + entries
        .into_iter()
        .map(|(k, v)| k.len() + v.len() + 7)
        .sum::<usize>()
}

/// What saving a document changes in the charm state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Keys to `state-set`: those whose value changes.
    pub set: BTreeMap<String, String>,
    /// Keys of the namespace the new document no longer uses.
    pub delete: Vec<String>,
    /// The whole charm state's size afterwards, as Juju counts it.
    pub size: usize,
    /// Keys the document takes (header included).
    pub keys: usize,
}

/// The document would not fit in the unit's charm state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the scope store does not fit in Juju's charm state: saved, the unit's state would take {size} bytes (as Juju counts them), over the {limit} Juju allows per unit by default (controller config `max-charm-state-size`): the document is {document} bytes in {keys} keys{others}. Nothing was saved: clear scopes or stored data the charm no longer needs, or keep the store in the charm directory with `store: local` in wasm-charm.yaml"
)]
pub struct TooLarge {
    pub size: usize,
    pub limit: usize,
    pub document: usize,
    pub keys: usize,
    /// `, and other keys take N bytes`, when there are others.
    others: String,
}

/// What replacing the store in `current` (the charm state as read this
/// event) by `doc` writes and deletes; refused when the result would be
/// past [`MAX_UNIT_STATE`]. Keys outside the namespace stay, and count.
pub fn plan(current: &BTreeMap<String, String>, doc: &str) -> Result<Plan, TooLarge> {
    let new = split(doc);
    let others: Vec<(&String, &String)> =
        current.iter().filter(|(k, _)| !is_store_key(k)).collect();
    let size = juju_size(others.iter().copied().chain(&new));
    if size > MAX_UNIT_STATE {
        let others = if others.is_empty() {
            String::new()
        } else {
            format!(
                ", and {} other keys take {} bytes",
                others.len(),
                juju_size(others.iter().copied()) - 5
            )
        };
        return Err(TooLarge {
            size,
            limit: MAX_UNIT_STATE,
            document: doc.len(),
            keys: new.len(),
            others,
        });
    }
    let delete = current
        .keys()
        .filter(|k| is_store_key(k) && !new.contains_key(*k))
        .cloned()
        .collect();
    let keys = new.len();
    let set = new
        .into_iter()
        .filter(|(k, v)| current.get(k) != Some(v))
        .collect();
    Ok(Plan {
        set,
        delete,
        size,
        keys,
    })
}

#[cfg(test)]
#[path = "store_chunks_tests.rs"]
mod tests;
