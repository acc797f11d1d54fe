//! The compiled-artifact cache (reference wasmtime-embedding.md §1.3–§1.4, §5).
//!
//! Compiling a component costs 30–60 ms; loading a precompiled artifact by
//! mmap costs a fraction of a millisecond. Artifacts live in
//! `<charm>/.wasm-charm/cache/<key>.cwasm`, where the key is the SHA-256 of the
//! component's bytes and of the engine's compatibility hash, which covers the
//! *full* wasmtime version and every compile setting: wasmtime itself checks
//! only the major version, and patch releases fix miscompilations.
//!
//! Only files this host wrote are ever loaded (loading is `unsafe` because a
//! forged artifact is arbitrary code); they are written atomically and never
//! rewritten in place, since a loaded artifact stays mapped.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

const CACHE_DIR: &str = "cache";

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

/// The cache key of a component for this engine.
pub fn key(engine: &Engine, wasm: &[u8]) -> String {
    let mut h = ShaHasher(Sha256::new());
    h.0.update(Sha256::digest(wasm));
    engine.precompile_compatibility_hash().hash(&mut h);
    let digest = h.0.finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// How the component was obtained, for `inspect`, logs and benchmarks.
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

/// Load `wasm` for `engine`, from the cache under `state_dir` when possible.
pub fn load(
    engine: &Engine,
    wasm: &[u8],
    state_dir: &Path,
) -> wasmtime::Result<(Component, Source)> {
    let dir = state_dir.join(CACHE_DIR);
    let path = dir.join(format!("{}.cwasm", key(engine, wasm)));
    if path.exists() {
        // SAFETY: files in the cache are written only by `store` below, from
        // this engine's own compilation, and replaced by rename, never in place.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(c) => return Ok((c, Source::Hit)),
            Err(_) => {
                // Truncated or foreign: remove it and compile once, no loop.
                let _ = std::fs::remove_file(&path);
                return compile_and_store(engine, wasm, &dir, &path).map(|(c, s)| {
                    (
                        c,
                        if s == Source::Compiled {
                            Source::Recompiled
                        } else {
                            s
                        },
                    )
                });
            }
        }
    }
    compile_and_store(engine, wasm, &dir, &path)
}

fn compile_and_store(
    engine: &Engine,
    wasm: &[u8],
    dir: &Path,
    path: &Path,
) -> wasmtime::Result<(Component, Source)> {
    let artifact = engine.precompile_component(wasm)?;
    if store(dir, path, &artifact).is_err() {
        // SAFETY: the bytes were produced by this engine just now.
        let c = unsafe { Component::deserialize(engine, &artifact)? };
        return Ok((c, Source::Uncached));
    }
    remove_stale(dir, path);
    // Load the stored file so even the first event uses mmap and copy-on-write.
    // SAFETY: written by `store` just now from this engine's compilation.
    let c = unsafe { Component::deserialize_file(engine, path)? };
    Ok((c, Source::Compiled))
}

fn store(dir: &Path, path: &Path, artifact: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(artifact)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Artifacts of older components or hosts: at most one key is live per charm
/// revision and host version, so everything else can go.
fn remove_stale(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let p: PathBuf = entry.path();
        let stale_artifact = p.extension().is_some_and(|e| e == "cwasm") && p != keep;
        let stale_tmp = p.extension().is_some_and(|e| e == "tmp");
        if stale_artifact || stale_tmp {
            let _ = std::fs::remove_file(&p);
        }
    }
}
