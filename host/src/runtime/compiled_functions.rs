//! Functions compiled by the last pack of a component, kept so that the
//! next pack compiles only those that changed.
//!
//! A Python charm's component is mostly the interpreter (about 10,600
//! functions), the same from one edit of the charm to the next: compiling
//! it again for each artifact is most of a warm pack, and every Python
//! charm's interpreter is the same. Cranelift's incremental cache keys each
//! function by its body and the compiler's settings and hands back the
//! machine code compiled for an equal key; a [`FunctionCache`] is where
//! those entries live between packs, one file per target in the directory
//! holding the components of one kind (`pack` chooses it), shared by their
//! packs. The file holds what the last compile used, so it never grows past
//! one component's functions.
//!
//! Only a cache: a file that cannot be read or decoded counts as empty, and
//! one that cannot be written is skipped (the next pack compiles all).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The first line of the file: what it is and its layout's version.
const MAGIC: &[u8] = b"wasm-charm compiled functions 1\n";

/// Cranelift's entries for one target, as read from the last pack and as
/// used by this one.
#[derive(Debug)]
pub struct FunctionCache {
    file: PathBuf,
    /// Read when first asked (a load of the artifact only never is).
    last: OnceLock<HashMap<Vec<u8>, Vec<u8>>>,
    /// The keys this compile asked for and found in `last` (their values
    /// stay there: a Python charm's are megabytes), and the entries it made.
    used: Mutex<Used>,
    asked: AtomicUsize,
    found: AtomicUsize,
}

#[derive(Debug, Default)]
struct Used {
    found: HashSet<Vec<u8>>,
    made: HashMap<Vec<u8>, Vec<u8>>,
}

/// How a compile used the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    /// Functions cranelift looked up.
    pub asked: usize,
    /// Of those, found as the last pack compiled them.
    pub found: usize,
}

impl FunctionCache {
    /// The cache kept in `file` (read on first use).
    pub fn at(file: PathBuf) -> FunctionCache {
        FunctionCache {
            file,
            last: OnceLock::new(),
            used: Mutex::default(),
            asked: AtomicUsize::new(0),
            found: AtomicUsize::new(0),
        }
    }

    fn last(&self) -> &HashMap<Vec<u8>, Vec<u8>> {
        self.last.get_or_init(|| {
            std::fs::read(&self.file)
                .ok()
                .and_then(|bytes| decode(&bytes))
                .unwrap_or_default()
        })
    }

    /// How this process's compiles used it so far.
    pub fn used(&self) -> Use {
        Use {
            asked: self.asked.load(Ordering::Relaxed),
            found: self.found.load(Ordering::Relaxed),
        }
    }

    /// Write what this process's compiles used in place of the last pack's
    /// entries; nothing if nothing was compiled.
    pub fn save(&self) -> std::io::Result<()> {
        let used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if used.found.is_empty() && used.made.is_empty() {
            return Ok(());
        }
        let last = self.last();
        let mut entries: BTreeMap<&[u8], &[u8]> = used
            .found
            .iter()
            .filter_map(|k| Some((k.as_slice(), last.get(k)?.as_slice())))
            .collect();
        entries.extend(used.made.iter().map(|(k, v)| (k.as_slice(), v.as_slice())));
        crate::atomic_file::write_making_dir(&self.file, &encode(&entries))
    }
}

impl wasmtime::CacheStore for FunctionCache {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        let value = self.last().get(key)?;
        self.found.fetch_add(1, Ordering::Relaxed);
        self.used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .found
            .insert(key.to_vec());
        Some(Cow::Borrowed(value))
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        self.used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .made
            .insert(key.to_vec(), value);
        true
    }
}

/// The file's bytes: [`MAGIC`], the number of entries (u32, little-endian),
/// then each entry as its key's length (u32), the key, the value's length
/// and the value, sorted by key so that equal caches are equal files. The
/// count tells a file cut between two entries from a whole one.
fn encode(entries: &BTreeMap<&[u8], &[u8]>) -> Vec<u8> {
    let size: usize = entries.iter().map(|(k, v)| 8 + k.len() + v.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + size);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (key, value) in entries {
        for part in [key, value] {
            // An entry is one function's code: far below 4 GiB.
            out.extend_from_slice(&(part.len() as u32).to_le_bytes());
            out.extend_from_slice(part);
        }
    }
    out
}

/// The entries of a file [`encode`] wrote; `None` if it is anything else
/// (another layout, cut short, trailing bytes, a key twice).
fn decode(bytes: &[u8]) -> Option<HashMap<Vec<u8>, Vec<u8>>> {
    fn take(rest: &mut &[u8]) -> Option<Vec<u8>> {
        let (len, after) = rest.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        let (part, after) = after.split_at_checked(len)?;
        *rest = after;
        Some(part.to_vec())
    }
    let (count, mut rest) = bytes.strip_prefix(MAGIC)?.split_first_chunk::<4>()?;
    let count = u32::from_le_bytes(*count);
    let mut entries = HashMap::new();
    for _ in 0..count {
        let key = take(&mut rest)?;
        let value = take(&mut rest)?;
        entries.insert(key, value);
    }
    (rest.is_empty() && entries.len() == count as usize).then_some(entries)
}

/// The file of `dir` that keeps the functions compiled for `triple`.
pub fn file_in(dir: &Path, triple: &str) -> PathBuf {
    dir.join(format!("wasm-charm-functions.{triple}.bin"))
}

#[cfg(test)]
#[path = "compiled_functions_tests.rs"]
mod tests;
