//! Artifacts `pack` compiled, kept beside the component's build output
//! (`<component>.artifacts/` next to the `.wasm`) so that packing the same
//! component again (into another directory, from another test process, or
//! `run` beside `pack`) ships them instead of compiling it again: a Python
//! charm's interpreter takes most of a minute to compile, twice.
//!
//! Kept artifacts are named as in a charm's cache, by the component's
//! SHA-256, so a changed component never finds an old artifact; and one is
//! shipped only once wasmtime has loaded it in this host's engine (its
//! version and settings), so one compiled by another host is compiled
//! again. Only the last component's artifacts are kept. Keeping is best
//! effort: when it fails, the next pack compiles.

use crate::runtime::cache;
use crate::runtime::engine::Target;
use std::path::{Path, PathBuf};

/// Hold the lock of the compiled functions kept in `dir` (made if
/// missing) until the returned file is dropped; `None` if it cannot be
/// taken, and then the pack goes on without it (only a cache).
pub fn lock_functions(dir: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(dir).ok()?;
    let file = std::fs::File::create(dir.join(".wasm-charm-functions.lock")).ok()?;
    file.lock().ok()?;
    Some(file)
}

/// The artifacts kept for one component.
pub struct Kept {
    dir: PathBuf,
    sha256: String,
}

impl Kept {
    /// Those of the component at `wasm`, whose SHA-256 is `sha256`, in
    /// `<stem>.artifacts/` beside it.
    pub fn beside(wasm: &Path, sha256: &str) -> Option<Kept> {
        let stem = wasm.file_stem()?.to_string_lossy();
        Some(Kept {
            dir: wasm.with_file_name(format!("{stem}.artifacts")),
            sha256: sha256.to_string(),
        })
    }

    /// Where they are kept.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Put the kept artifact for `target` into the charm cache `cache`,
    /// if there is one and it loads in this host's engine; its path there.
    pub fn take(&self, target: Target, cache: &Path) -> Option<PathBuf> {
        let kept = cache::artifact_path(&self.dir, &self.sha256, target);
        if !kept.is_file() || !cache::loads(target, &kept, &self.sha256) {
            return None;
        }
        std::fs::create_dir_all(cache).ok()?;
        let into = cache::artifact_path(cache, &self.sha256, target);
        link_or_copy(&kept, &into).ok()?;
        Some(into)
    }

    /// Keep the artifacts of this component that `cache` holds, and drop
    /// those of any other.
    pub fn keep(&self, cache: &Path) {
        let own = format!("{}.", self.sha256);
        let Ok(entries) = std::fs::read_dir(cache) else {
            return;
        };
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&own) && name.ends_with(".cwasm") {
                let _ = link_or_copy(&entry.path(), &self.dir.join(&*name));
            }
        }
        cache::remove_stale(&self.dir, &self.sha256);
    }
}

/// `to` made to hold what `from` holds, replacing it whole: a hard link
/// where both are on one file system, else a copy, either made under a
/// temporary name and renamed, since an artifact may be mapped while
/// another process replaces it.
fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let tmp = to.with_extension(format!("{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(from, &tmp).is_err() {
        std::fs::copy(from, &tmp)?;
    }
    std::fs::rename(&tmp, to).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest as _, Sha256};

    /// The artifacts kept for the component at `wasm`, as `pack` finds them.
    fn kept_for(wasm: &Path) -> Kept {
        let sha256 = crate::text::hex(&Sha256::digest(std::fs::read(wasm).unwrap()));
        Kept::beside(wasm, &sha256).unwrap()
    }

    #[test]
    fn kept_beside_the_component_by_its_hash_and_only_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let wasm = dir.path().join("charm.wasm");
        std::fs::write(&wasm, b"one").unwrap();
        let first = kept_for(&wasm);
        assert_eq!(first.dir, dir.path().join("charm.artifacts"));
        let cache = dir.path().join("cache");
        std::fs::create_dir(&cache).unwrap();
        let native = cache::artifact_path(&cache, &first.sha256, Target::Native);
        std::fs::write(&native, b"artifact").unwrap();
        std::fs::write(cache.join("component.id"), b"not an artifact").unwrap();
        first.keep(&cache);
        let kept = cache::artifact_path(&first.dir, &first.sha256, Target::Native);
        assert_eq!(std::fs::read(&kept).unwrap(), b"artifact");
        assert!(!first.dir.join("component.id").exists());

        std::fs::write(&wasm, b"two").unwrap();
        let second = kept_for(&wasm);
        assert_ne!(second.sha256, first.sha256);
        // Not an artifact wasmtime loads: never shipped, whatever its name.
        let other = dir.path().join("other-cache");
        std::fs::create_dir(&other).unwrap();
        assert_eq!(second.take(Target::Native, &other), None);
        second.keep(&other);
        assert!(!kept.exists(), "another component's artifact is dropped");
    }

    #[test]
    fn a_kept_artifact_is_shipped_only_while_this_engine_loads_it() {
        let dir = tempfile::tempdir().unwrap();
        // The smallest component there is: its header alone.
        let wasm = dir.path().join("charm.wasm");
        std::fs::write(&wasm, b"\0asm\x0d\x00\x01\x00").unwrap();
        let kept = kept_for(&wasm);
        let compiled = dir.path().join("compiled");
        for target in [Target::Native, Target::HERE_PORTABLE] {
            let bytes = std::fs::read(&wasm).unwrap();
            cache::compile_artifact(target, &bytes, &compiled, &kept.sha256).unwrap();
        }
        kept.keep(&compiled);

        let cache = dir.path().join("charm/cache");
        for target in [Target::Native, Target::HERE_PORTABLE] {
            let shipped = kept
                .take(target, &cache)
                .expect("a kept artifact that loads");
            assert_eq!(
                std::fs::read(&shipped).unwrap(),
                std::fs::read(cache::artifact_path(&compiled, &kept.sha256, target)).unwrap()
            );
        }
        // Damaged (or another engine's): wasmtime refuses it, so it is
        // compiled again rather than shipped.
        let native = cache::artifact_path(&kept.dir, &kept.sha256, Target::Native);
        let mut bytes = std::fs::read(&native).unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&native, bytes).unwrap();
        assert_eq!(kept.take(Target::Native, &dir.path().join("other")), None);
    }

    /// Packs of one kind (say a test run's Python charms) compile one at a
    /// time, so the second takes back what the first compiled; a pack that
    /// cannot take the lock goes on without it.
    #[test]
    fn packs_sharing_functions_compile_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let functions = dir.path().join("wasm-charm-python");
        let held = lock_functions(&functions).expect("the lock is taken, its directory made");
        // Another pack's open of the same file, as another process makes it.
        let other = std::fs::File::create(functions.join(".wasm-charm-functions.lock")).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(held);
        other
            .try_lock()
            .expect("free once the first pack is done with it");
        let file = dir.path().join("a-file");
        std::fs::write(&file, b"").unwrap();
        assert!(lock_functions(&file.join("under")).is_none());
    }
}
