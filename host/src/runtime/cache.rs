//! The compiled-artifact cache (reference wasmtime-embedding.md §1.3–§1.4, §5).
//!
//! Compiling a component costs 30–60 ms; loading a precompiled artifact by
//! mmap costs a fraction of a millisecond. Artifacts live in
//! `<charm>/.wasm-charm/cache/<key>.cwasm`, where the key is the SHA-256 of the
//! component's hash and of the engine's compatibility hash, which covers the
//! *full* wasmtime version and every compile setting: wasmtime itself checks
//! only the major version, and patch releases fix miscompilations.
//!
//! Loading is `unsafe` because a forged artifact is arbitrary code: the cache
//! trusts the charm directory's permissions (see the SAFETY note in `load`).
//! Artifacts are written atomically and never rewritten in place, since a
//! loaded artifact stays mapped.
//!
//! Two smaller entries spare a warm event the rest of the work: the
//! component's hash, reused while the file's size, inode and change time are
//! the same (no re-reading and hashing of the component), and the handler
//! declarations of that hash (no instance just to ask the guest for them).

use super::declarations;
use crate::bindings::Handler;
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

const CACHE_DIR: &str = "cache";
const ID_FILE: &str = "component.id";

/// Feeds `Hash` into SHA-256, so the key is stable across processes and Rust
/// releases (std's `DefaultHasher` promises neither).
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        unreachable!("only the SHA-256 digest is used")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A component file, identified by the SHA-256 of its bytes.
#[derive(Debug, Clone)]
pub struct ComponentId {
    pub path: PathBuf,
    pub sha256: String,
    /// The bytes, when they had to be read to hash them.
    pub bytes: Option<Vec<u8>>,
}

/// The stat fields that change whenever the file's content can have: any
/// write updates the change time, which no unprivileged tool can set back.
fn stamp(meta: &std::fs::Metadata) -> String {
    format!(
        "{} {} {} {} {}",
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.mtime_nsec() + meta.mtime() * 1_000_000_000,
        meta.ctime_nsec() + meta.ctime() * 1_000_000_000
    )
}

/// Identify the component at `path`, hashing it only when it changed.
pub fn identify(path: &Path, state_dir: &Path) -> std::io::Result<ComponentId> {
    let meta = std::fs::metadata(path)?;
    let stamp = stamp(&meta);
    let id_file = state_dir.join(CACHE_DIR).join(ID_FILE);
    if let Ok(saved) = std::fs::read_to_string(&id_file)
        && let Some((saved_stamp, sha)) = saved.trim_end().rsplit_once(' ')
        && saved_stamp == stamp
        && sha.len() == 64
    {
        return Ok(ComponentId {
            path: path.to_path_buf(),
            sha256: sha.to_string(),
            bytes: None,
        });
    }
    let bytes = std::fs::read(path)?;
    let sha256 = hex(&Sha256::digest(&bytes));
    // Best effort: a read-only charm directory only costs a hash per event.
    let _ = write_atomic(&id_file, format!("{stamp} {sha256}\n").as_bytes());
    Ok(ComponentId {
        path: path.to_path_buf(),
        sha256,
        bytes: Some(bytes),
    })
}

impl ComponentId {
    /// The component's bytes, read now if identifying did not need them.
    pub fn bytes(&mut self) -> std::io::Result<&[u8]> {
        if self.bytes.is_none() {
            self.bytes = Some(std::fs::read(&self.path)?);
        }
        Ok(self.bytes.as_deref().unwrap_or_default())
    }
}

/// The cache key of a component (by its SHA-256, hex) for this engine.
pub fn key(engine: &Engine, sha256: &str) -> String {
    let mut h = ShaHasher(Sha256::new());
    h.0.update(sha256.as_bytes());
    engine.precompile_compatibility_hash().hash(&mut h);
    hex(&h.0.finalize())
}

/// How the component was obtained, for `precompile`, logs and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Loaded from a cached artifact.
    Hit,
    /// Compiled now and cached.
    Compiled,
    /// A cached artifact was unusable; compiled again and replaced.
    Recompiled,
    /// Compiled now; the cache directory could not be written.
    Uncached,
}

/// What `load` needs from the caller on a miss: the component's bytes, after
/// the caller checked they are a component.
pub type Bytes<'a> = &'a mut dyn FnMut() -> wasmtime::Result<Vec<u8>>;

/// Load the component whose SHA-256 is `sha256` for `engine`, from the cache
/// under `state_dir` when possible; `bytes` is called only to compile.
pub fn load(
    engine: &Engine,
    sha256: &str,
    state_dir: &Path,
    bytes: Bytes<'_>,
) -> wasmtime::Result<(Component, Source)> {
    let dir = state_dir.join(CACHE_DIR);
    let path = dir.join(format!("{}.cwasm", key(engine, sha256)));
    if path.exists() {
        // SAFETY: wasmtime requires the file to hold an artifact of
        // `precompile_component` for a compatible engine, and to stay
        // unchanged while the component lives (it is mapped). This host only
        // ever writes artifacts this way (`compile_and_store`, and `pack`
        // with the same engine settings, under a key that includes the
        // engine's compatibility hash), by rename, never in place. Nothing
        // here checks who else wrote the file: that rests on the charm
        // directory being writable only by whoever may run code as this
        // unit (Juju's agent), which could run anything anyway.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(c) => return Ok((c, Source::Hit)),
            Err(_) => {
                // Truncated or foreign: remove it and compile once, no loop.
                let _ = std::fs::remove_file(&path);
                return compile_and_store(engine, &bytes()?, &dir, &path, sha256).map(|(c, s)| {
                    let s = if s == Source::Compiled {
                        Source::Recompiled
                    } else {
                        s
                    };
                    (c, s)
                });
            }
        }
    }
    compile_and_store(engine, &bytes()?, &dir, &path, sha256)
}

fn compile_and_store(
    engine: &Engine,
    wasm: &[u8],
    dir: &Path,
    path: &Path,
    sha256: &str,
) -> wasmtime::Result<(Component, Source)> {
    let artifact = engine.precompile_component(wasm)?;
    if write_atomic(path, &artifact).is_err() {
        // SAFETY: the bytes were produced by this engine just now.
        let c = unsafe { Component::deserialize(engine, &artifact)? };
        return Ok((c, Source::Uncached));
    }
    remove_stale(dir, path, &format!("{sha256}.handlers.json"));
    // Load the stored file so even the first event uses mmap and copy-on-write.
    // SAFETY: as in `load`; written just now from this engine's compilation
    // (or replaced since, by rename, with an artifact of the same key).
    let c = unsafe { Component::deserialize_file(engine, path)? };
    Ok((c, Source::Compiled))
}

/// The handler declarations cached for a component, if any and readable.
pub fn declarations(state_dir: &Path, id: &ComponentId) -> Option<Vec<Handler>> {
    let file = state_dir
        .join(CACHE_DIR)
        .join(format!("{}.handlers.json", id.sha256));
    declarations::decode(&std::fs::read(file).ok()?).ok()
}

/// Remember a component's declarations; best effort, like the artifacts.
pub fn store_declarations(state_dir: &Path, id: &ComponentId, handlers: &[Handler]) {
    let file = state_dir
        .join(CACHE_DIR)
        .join(format!("{}.handlers.json", id.sha256));
    let _ = write_atomic(&file, &declarations::encode(handlers));
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(crate::atomic_file::parent(path))?;
    crate::atomic_file::write(path, bytes)
}

/// Entries of older components or hosts: at most one artifact is live per
/// charm revision and host version, so everything else can go. Declarations
/// of other components go too; a leftover temporary file is a crashed write.
fn remove_stale(dir: &Path, keep: &Path, keep_declarations: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let p: PathBuf = entry.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let stale = (name.ends_with(".cwasm") && p != keep)
            || name.ends_with(".tmp")
            || (name.ends_with(".handlers.json") && name != keep_declarations);
        if stale {
            let _ = std::fs::remove_file(&p);
        }
    }
}
