//! The local backend of the scope store: a file in the charm directory,
//! written atomically (temporary file, fsync, rename, fsync of the directory)
//! under an exclusive lock held for the whole event; `wasm-charm status` reads
//! it under a shared lock. The lock matters here because that reader runs
//! outside any hook; the `juju` backend (`store_juju`) needs none.

use super::store::{DecodeError, ScopeStore};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The host's directory inside the charm directory.
pub const STATE_DIR: &str = ".wasm-charm";
const STORE_FILE: &str = "scopes.json";
const LOCK_FILE: &str = "lock";

/// The store cannot be used. The cause is part of the message and not also a
/// `source`, which `{:#}` would print a second time.
#[derive(Debug, thiserror::Error)]
pub enum StoreFileError {
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {error}; the file is left as it is", path.display())]
    Decode { path: PathBuf, error: DecodeError },
}

/// The store file of one charm directory, locked while this value lives.
#[derive(Debug)]
pub struct StoreFile {
    dir: PathBuf,
    _lock: File,
}

/// Where the store of `charm_dir` is kept.
pub fn store_path(charm_dir: &Path) -> PathBuf {
    charm_dir.join(STATE_DIR).join(STORE_FILE)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreFileError + '_ {
    move |error| StoreFileError::Io {
        path: path.to_path_buf(),
        error,
    }
}

impl StoreFile {
    /// Lock the store of `charm_dir`, creating its directory on first use.
    /// Blocks while another process (a concurrent `wasm-charm status`) holds it.
    pub fn lock(charm_dir: &Path) -> Result<StoreFile, StoreFileError> {
        let dir = charm_dir.join(STATE_DIR);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        lock.lock().map_err(io(&lock_path))?;
        Ok(StoreFile { dir, _lock: lock })
    }

    /// Lock the store of `charm_dir` for reading (`wasm-charm status`): a
    /// shared lock, so readers do not wait for each other, and nothing is
    /// created; `None` when no event has created the store yet.
    pub fn lock_shared(charm_dir: &Path) -> Result<Option<StoreFile>, StoreFileError> {
        let dir = charm_dir.join(STATE_DIR);
        let lock_path = dir.join(LOCK_FILE);
        let lock = match File::open(&lock_path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&lock_path)(e)),
        };
        lock.lock_shared().map_err(io(&lock_path))?;
        Ok(Some(StoreFile { dir, _lock: lock }))
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(STORE_FILE)
    }

    /// Read the store; a missing file is an empty store (the first event), an
    /// unreadable one an error that leaves the file alone.
    pub fn load(&self) -> Result<ScopeStore, StoreFileError> {
        let path = self.path();
        match std::fs::read(&path) {
            Ok(bytes) => {
                ScopeStore::decode(&bytes).map_err(|error| StoreFileError::Decode { path, error })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ScopeStore::default()),
            Err(e) => Err(io(&path)(e)),
        }
    }

    /// Replace the store atomically: a crash leaves the old or the new file,
    /// never a torn one.
    pub fn save(&self, store: &ScopeStore) -> Result<(), StoreFileError> {
        let path = self.path();
        crate::atomic_file::write_with(&path, |w| store.encode_to(w)).map_err(io(&path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_creates_nothing_and_shares_the_lock() {
        let charm = tempfile::tempdir().unwrap();
        assert!(StoreFile::lock_shared(charm.path()).unwrap().is_none());
        assert!(!charm.path().join(STATE_DIR).exists(), "nothing created");

        let writer = StoreFile::lock(charm.path()).unwrap();
        writer.save(&ScopeStore::default()).unwrap();
        drop(writer);
        let a = StoreFile::lock_shared(charm.path()).unwrap().unwrap();
        // A second reader does not wait for the first.
        let b = StoreFile::lock_shared(charm.path()).unwrap().unwrap();
        assert_eq!(a.load().unwrap(), b.load().unwrap());
        assert_eq!(a.path(), store_path(charm.path()));
    }
}
