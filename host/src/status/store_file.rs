//! The local backend of the scope store: a file in the charm directory,
//! written atomically (temporary file, fsync, rename, fsync of the directory)
//! under an exclusive lock held for the whole event; `wasm-charm status` reads
//! it under a shared lock. The lock matters here because that reader runs
//! outside any hook; the `juju` backend (`store_juju`) needs none.
//!
//! A large document (from [`JOURNAL_FROM`] bytes) is not rewritten at each
//! event: an event appends its changes to the journal beside it
//! (`store_journal`), and the document is written whole again, the journal
//! removed, once the journal has grown to a quarter of the document. Every
//! reader replays the journal.

use super::store::{DecodeError, ScopeStore};
use super::store_edit::StoreEdit;
use super::store_journal::{self, Header};
use super::store_release::{FORMAT, JOURNALED};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The host's directory inside the charm directory.
pub const STATE_DIR: &str = ".wasm-charm";
const STORE_FILE: &str = "scopes.json";
const JOURNAL_FILE: &str = "scopes.journal";
const LOCK_FILE: &str = "lock";
/// The document size from which changes are journaled: below it, writing
/// the whole document costs about what an append costs, and the file alone
/// is the store, as people and older hosts expect.
pub const JOURNAL_FROM: u64 = 1 << 20;
/// The journal's size below which a document is not rewritten, whatever
/// its size.
const JOURNAL_MIN: u64 = 64 << 10;

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
    #[error("{}: {error}; the store's files are left as they are", path.display())]
    Journal { path: PathBuf, error: String },
}

/// The store file of one charm directory, locked while this value lives.
#[derive(Debug)]
pub struct StoreFile {
    dir: PathBuf,
    _lock: File,
    /// What the last load found on disk; `None` before any.
    found: Option<OnDisk>,
    journal_from: u64,
}

/// The document and journal as the last load found them.
#[derive(Debug, Clone, Copy)]
struct OnDisk {
    /// The document's length and format (`None`: no document yet).
    base: Option<(u64, u32)>,
    /// The bytes of the journal's complete lines (its header among them).
    journal: Option<u64>,
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
        Ok(StoreFile::locked(dir, lock))
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
        Ok(Some(StoreFile::locked(dir, lock)))
    }

    fn locked(dir: PathBuf, lock: File) -> StoreFile {
        StoreFile {
            dir,
            _lock: lock,
            found: None,
            journal_from: JOURNAL_FROM,
        }
    }

    /// Journal changes from a document of `bytes` on (tests journal small
    /// stores).
    pub fn journal_from(mut self, bytes: u64) -> StoreFile {
        self.journal_from = bytes;
        self
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(STORE_FILE)
    }

    /// The journal beside the document.
    pub fn journal_path(&self) -> PathBuf {
        self.dir.join(JOURNAL_FILE)
    }

    /// Read the store, its journal replayed; a missing file is an empty
    /// store (the first event), an unreadable one an error that leaves the
    /// files alone.
    pub fn load(&mut self) -> Result<ScopeStore, StoreFileError> {
        let path = self.path();
        let (mut store, base) = match std::fs::read(&path) {
            Ok(bytes) => {
                let (store, format) =
                    ScopeStore::decode_marked(&bytes).map_err(|error| StoreFileError::Decode {
                        path: path.clone(),
                        error,
                    })?;
                (store, Some((bytes.len() as u64, format)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (ScopeStore::default(), None),
            Err(e) => return Err(io(&path)(e)),
        };
        let journal = self.replay(&mut store, base)?;
        self.found = Some(OnDisk { base, journal });
        Ok(store)
    }

    /// Replay the journal, if any, onto `store` (read from a document of
    /// `base`): the length of its complete lines.
    fn replay(
        &self,
        store: &mut ScopeStore,
        base: Option<(u64, u32)>,
    ) -> Result<Option<u64>, StoreFileError> {
        let path = self.journal_path();
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let refuse = |error: String| StoreFileError::Journal {
            path: path.clone(),
            error,
        };
        let read = store_journal::read(&bytes).map_err(refuse)?;
        let Some(header) = read.header else {
            // Torn while it was begun: no event's save had finished.
            return Ok(None);
        };
        let continues = base.is_some_and(|(bytes, format)| {
            format == JOURNALED && bytes == header.base_bytes && store.clock == header.base_clock
        });
        if !continues {
            if store_journal::leftover(store, &read.entries) {
                // The document was written whole after these entries, and a
                // crash kept the journal from being removed.
                return Ok(None);
            }
            return Err(refuse(format!(
                "it continues a document of {} bytes at clock {}, not {} beside it; move the journal away to use the document alone",
                header.base_bytes,
                header.base_clock,
                base.map_or("the one".to_string(), |(b, _)| format!(
                    "the one of {b} bytes"
                )),
            )));
        }
        for entry in read.entries {
            store_journal::apply(store, entry);
        }
        Ok(Some(read.valid as u64))
    }

    /// Save the store as `edit` left it (an edit of what [`Self::load`]
    /// gave): a crash leaves the old or the new store, never a torn one.
    /// A large document gets the changes appended to its journal; a small
    /// one, or one whose journal has grown, is written whole.
    pub fn save(&mut self, edit: &StoreEdit) -> Result<(), StoreFileError> {
        let store: &ScopeStore = edit;
        let path = self.path();
        let journal_path = self.journal_path();
        let found = match self.found {
            Some(found) => found,
            // Saved without a load (a new store): what is on disk decides.
            None => {
                self.load()?;
                self.found.unwrap_or(OnDisk {
                    base: None,
                    journal: None,
                })
            }
        };
        let journaled = found
            .base
            .filter(|&(bytes, format)| bytes >= self.journal_from && format == JOURNALED);
        // The change, found only when a journal is to have it.
        let entry = if journaled.is_some() || found.journal.is_some() {
            store_journal::line(&edit.entry())
        } else {
            Vec::new()
        };
        if let Some((bytes, _)) = journaled {
            let at = found.journal.unwrap_or(0);
            let mut line = if at == 0 {
                store_journal::line(&Header::new(bytes, edit.loaded_clock()))
            } else {
                Vec::new()
            };
            line.extend(&entry);
            let grown = at + line.len() as u64;
            if grown <= JOURNAL_MIN.max(bytes / 4) {
                crate::atomic_file::append_at(&journal_path, at, &line)
                    .map_err(io(&journal_path))?;
                self.found = Some(OnDisk {
                    journal: Some(grown),
                    ..found
                });
                return Ok(());
            }
        }
        if let Some(at) = found.journal {
            // Its entry first: should a crash keep the journal beside the
            // document written below, replaying it there changes nothing.
            crate::atomic_file::append_at(&journal_path, at, &entry).map_err(io(&journal_path))?;
        }
        // A document about as large as the last one journals its changes
        // from the next event on: it says so.
        let format = match found.base {
            Some((bytes, _)) if bytes >= self.journal_from => JOURNALED,
            _ => FORMAT,
        };
        crate::atomic_file::write_with(&path, |w| store.encode_as(format, w)).map_err(io(&path))?;
        let written = std::fs::metadata(&path).map_err(io(&path))?.len();
        crate::atomic_file::remove(&journal_path).map_err(io(&journal_path))?;
        self.found = Some(OnDisk {
            base: Some((written, format)),
            journal: None,
        });
        Ok(())
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

        let mut writer = StoreFile::lock(charm.path()).unwrap();
        writer
            .save(&StoreEdit::begin(ScopeStore::default()))
            .unwrap();
        drop(writer);
        let mut a = StoreFile::lock_shared(charm.path()).unwrap().unwrap();
        // A second reader does not wait for the first.
        let mut b = StoreFile::lock_shared(charm.path()).unwrap().unwrap();
        assert_eq!(a.load().unwrap(), b.load().unwrap());
        assert_eq!(a.path(), store_path(charm.path()));
    }

    use crate::status::merge::Kind;
    use crate::status::store::Target;
    use crate::status::store::tests::set;

    /// `store` with scope `scope` set to `message`, at `clock`.
    fn with(store: &ScopeStore, scope: &str, message: &str, clock: u64) -> ScopeStore {
        let mut s = store.clone();
        s.apply(
            set(Target::Unit, scope, Kind::Blocked, message),
            "config-changed",
            clock,
        );
        s
    }

    /// `store` with data key `key` set to `value`.
    fn with_data(store: &ScopeStore, key: &str, value: String) -> ScopeStore {
        let mut s = store.clone();
        let mut data: Vec<(String, String)> =
            s.data.iter().map(|(k, v)| (k.into(), v.into())).collect();
        data.retain(|(k, _)| k != key);
        data.push((key.into(), value));
        s.data = data.into_iter().collect();
        s
    }

    /// One event: lock, load, change with `change`, save; the store saved.
    fn event(charm: &Path, change: impl FnOnce(&ScopeStore) -> ScopeStore) -> ScopeStore {
        let mut file = StoreFile::lock(charm).unwrap().journal_from(0);
        let loaded = file.load().unwrap();
        let changed = change(&loaded);
        file.save(&StoreEdit::between(&loaded, changed.clone()))
            .unwrap();
        changed
    }

    fn load(charm: &Path) -> Result<ScopeStore, StoreFileError> {
        StoreFile::lock(charm).unwrap().journal_from(0).load()
    }

    fn format_of(charm: &Path) -> u32 {
        let bytes = std::fs::read(store_path(charm)).unwrap();
        crate::status::store_release::read(&bytes).unwrap().format
    }

    fn journal(charm: &Path) -> PathBuf {
        charm.join(STATE_DIR).join(JOURNAL_FILE)
    }

    #[test]
    fn a_journaled_store_appends_each_event_and_reads_back_whole() {
        let charm = tempfile::tempdir().unwrap();
        let charm = charm.path();
        event(charm, |s| with(s, "a", "one", 1));
        assert_eq!(format_of(charm), FORMAT, "written whole, not yet journaled");
        event(charm, |s| with(s, "b", "two", 2));
        assert_eq!(format_of(charm), JOURNALED, "marked: a journal may follow");
        assert!(!journal(charm).exists());
        let document = std::fs::read(store_path(charm)).unwrap();
        let mut last = ScopeStore::default();
        for i in 0..5 {
            last = event(charm, |s| with(s, &format!("s{i}"), "more", 3 + i));
        }
        assert_eq!(
            std::fs::read(store_path(charm)).unwrap(),
            document,
            "not rewritten"
        );
        let lines = std::fs::read_to_string(journal(charm)).unwrap();
        assert_eq!(
            lines.lines().count(),
            6,
            "a header and one line per event: {lines}"
        );
        assert_eq!(load(charm).unwrap(), last);
        // A reader (`wasm-charm status`) sees the same.
        let mut reader = StoreFile::lock_shared(charm).unwrap().unwrap();
        assert_eq!(reader.load().unwrap(), last);
    }

    #[test]
    fn a_grown_journal_is_folded_into_the_document() {
        let charm = tempfile::tempdir().unwrap();
        let charm = charm.path();
        event(charm, |s| with(s, "a", "one", 1));
        event(charm, |s| with(s, "a", "two", 2));
        let mut last = ScopeStore::default();
        let mut rewritten = false;
        for i in 0..12 {
            // 10 KiB a line: past the journal's 64 KiB within a few events.
            last = event(charm, |s| {
                with_data(s, "big", format!("{i}").repeat(10 << 10))
            });
            if !journal(charm).exists() {
                rewritten = true;
                assert_eq!(
                    ScopeStore::decode(&std::fs::read(store_path(charm)).unwrap()).unwrap(),
                    last
                );
            }
        }
        assert!(rewritten, "the document was written whole again");
        assert_eq!(load(charm).unwrap(), last);
    }

    #[test]
    fn a_journal_left_by_a_crash_after_the_rewrite_changes_nothing() {
        let charm = tempfile::tempdir().unwrap();
        let charm = charm.path();
        event(charm, |s| with(s, "a", "one", 1));
        event(charm, |s| with(s, "a", "two", 2));
        event(charm, |s| with(s, "a", "three", 3));
        // The event that rewrites the document changes the same scope; the
        // crash keeps the journal (with that event's entry) beside it.
        let mut file = StoreFile::lock(charm).unwrap().journal_from(0);
        let loaded = file.load().unwrap();
        let last = with(&loaded, "a", "four", 4);
        file.journal_from = u64::MAX;
        file.save(&StoreEdit::between(&loaded, last.clone()))
            .unwrap();
        drop(file);
        assert!(!journal(charm).exists());
        // What the journal held just before its removal: the entries and this event's.
        let mut kept = store_journal::line(&Header::new(1, 0));
        kept.extend(store_journal::line(&store_journal::entry(
            &with(&ScopeStore::default(), "a", "two", 2),
            &with(&ScopeStore::default(), "a", "three", 3),
        )));
        kept.extend(store_journal::line(&store_journal::entry(&loaded, &last)));
        std::fs::write(journal(charm), &kept).unwrap();
        assert_eq!(load(charm).unwrap(), last, "nothing reverted");
        // The next event goes on from there, and the leftover goes.
        let next = event(charm, |s| with(s, "b", "five", 5));
        assert_eq!(load(charm).unwrap(), next);
    }

    #[test]
    fn a_journal_beside_another_document_is_refused_and_kept() {
        let charm = tempfile::tempdir().unwrap();
        let charm = charm.path();
        event(charm, |s| with(s, "a", "one", 1));
        let backup = std::fs::read(store_path(charm)).unwrap();
        event(charm, |s| with(s, "a", "two", 2));
        event(charm, |s| with(s, "a", "three", 3));
        // The document restored from a backup, the journal left as it was.
        std::fs::write(store_path(charm), &backup).unwrap();
        let journal_bytes = std::fs::read(journal(charm)).unwrap();
        let e = load(charm).unwrap_err().to_string();
        assert!(
            e.contains("scopes.journal") && e.contains("move the journal away"),
            "{e}"
        );
        assert!(e.contains("left as they are"), "{e}");
        assert_eq!(std::fs::read(journal(charm)).unwrap(), journal_bytes);
        assert_eq!(std::fs::read(store_path(charm)).unwrap(), backup);
    }

    #[test]
    fn a_torn_append_is_the_store_before_it_and_cut_off_by_the_next() {
        let charm = tempfile::tempdir().unwrap();
        let charm = charm.path();
        event(charm, |s| with(s, "a", "one", 1));
        event(charm, |s| with(s, "a", "two", 2));
        let before = event(charm, |s| with(s, "b", "three", 3));
        let whole = std::fs::read(journal(charm)).unwrap();
        // An append a crash cut short, at every length.
        let line = store_journal::line(&store_journal::entry(
            &before,
            &with(&before, "c", "torn", 4),
        ));
        for cut in 0..line.len() {
            let mut torn = whole.clone();
            torn.extend(&line[..cut]);
            std::fs::write(journal(charm), &torn).unwrap();
            assert_eq!(load(charm).unwrap(), before, "cut at {cut}");
        }
        let next = event(charm, |s| with(s, "d", "after", 5));
        assert_eq!(load(charm).unwrap(), next);
        let text = std::fs::read_to_string(journal(charm)).unwrap();
        assert!(!text.contains("torn"), "{text}");
    }
}
