//! The charm's files as parsed at an earlier event, kept so that an event
//! does not parse the same YAML again: parsing metadata.yaml, config.yaml,
//! actions.yaml and wasm-charm.yaml was about a sixth of an event no
//! handler observes (update-status), where the host otherwise only reads
//! the store.
//!
//! An entry is reused only while every file's bytes and the running host
//! are the same: its key is a SHA-256 of each file's content (or its
//! absence) and of the host executable's identity (device, inode, size,
//! change time), so an edited file, however quickly after the last event,
//! or an upgraded host (whose parsed types may differ) parses anew. The
//! files are read at every event either way; what is spared is the YAML.
//! An entry that cannot be read or decoded is ignored and replaced.

use super::CharmDir;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// An entry: owned when read, borrowed when written.
#[derive(Serialize, Deserialize)]
struct Entry<K, C> {
    key: K,
    parsed: C,
}

/// The key of `files` (each file's content, `None` where it is absent, in a
/// fixed order) parsed by the host whose identity is `host`. Pure: every
/// part is length-prefixed, so no two different inputs share their bytes.
pub(super) fn key(host: &str, files: &[Option<&str>]) -> String {
    let mut h = Sha256::new();
    let mut part = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    part(host.as_bytes());
    for file in files {
        match file {
            None => part(b"absent"),
            Some(text) => {
                part(b"present");
                part(text.as_bytes());
            }
        }
    }
    crate::text::hex(&h.finalize())
}

/// The running executable's identity, or `None` where it cannot be found
/// (no `/proc`): then nothing is cached.
pub(super) fn host_identity() -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata("/proc/self/exe").ok()?;
    Some(format!(
        "{} {} {} {}.{}",
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.ctime(),
        meta.ctime_nsec()
    ))
}

/// The charm the entry at `file` holds, if it was made for `key`; its
/// `path` is empty.
pub(super) fn read(file: &Path, key: &str) -> Option<CharmDir> {
    let bytes = std::fs::read(file).ok()?;
    let entry: Entry<String, CharmDir> = serde_json::from_slice(&bytes).ok()?;
    (entry.key == key).then_some(entry.parsed)
}

/// Keep what `charm`'s files say at `file` for `key`. Best effort: a charm directory that
/// cannot be written only parses its files at every event.
pub(super) fn write(file: &Path, key: &str, charm: &CharmDir) {
    let entry = Entry { key, parsed: charm };
    if let Ok(bytes) = serde_json::to_vec(&entry) {
        let _ = crate::atomic_file::write_making_dir(file, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Moving bytes between files, or a file between present and
        /// absent, changes the key.
        #[test]
        fn different_files_have_different_keys(
            a in proptest::collection::vec(proptest::option::of("[a-z:\n ]{0,12}"), 4),
            b in proptest::collection::vec(proptest::option::of("[a-z:\n ]{0,12}"), 4),
        ) {
            let ka = key("host", &a.iter().map(|f| f.as_deref()).collect::<Vec<_>>());
            let kb = key("host", &b.iter().map(|f| f.as_deref()).collect::<Vec<_>>());
            prop_assert_eq!(ka == kb, a == b);
        }
    }

    #[test]
    fn the_host_is_part_of_the_key() {
        let files = [Some("name: a\n"), None, None, None];
        assert_ne!(key("1 2 3 4.5", &files), key("1 2 3 4.6", &files));
        assert_eq!(key("1 2 3 4.5", &files), key("1 2 3 4.5", &files));
        // Empty and absent differ too: an empty config.yaml is a file.
        assert_ne!(
            key("h", &[Some(""), None, None, None]),
            key("h", &[None, None, None, None])
        );
    }

    /// Every charm of the repository reads back from its entry as it
    /// parses: probes of each kind, workload grants, containers, actions
    /// with schemas and defaults, config defaults.
    #[test]
    fn every_charm_of_the_repository_reads_back_as_it_parses() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut seen = 0;
        for dir in ["examples", "tests/guests"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let charm = entry.unwrap().path();
                if !charm.join("metadata.yaml").exists() {
                    continue;
                }
                let state = tempfile::tempdir().unwrap();
                let cache = state.path().join("cache").join("charm-files.json");
                let fresh = CharmDir::load(&charm).unwrap();
                let first = CharmDir::load_cached(&charm, &cache).unwrap();
                assert!(cache.exists(), "{}: no entry written", charm.display());
                let again = CharmDir::load_cached(&charm, &cache).unwrap();
                assert_eq!(first, fresh, "{}", charm.display());
                // The path too: the entry has none, the caller's is set.
                assert_eq!(again, fresh, "{}", charm.display());
                seen += 1;
            }
        }
        assert!(seen >= 10, "only {seen} charms found");
    }

    fn charm(dir: &Path, ready: &str) {
        std::fs::write(dir.join("metadata.yaml"), "name: c\n").unwrap();
        std::fs::write(
            dir.join(crate::charm_dir::MANIFEST_FILE),
            format!("component: charm.wasm\nready-message: {ready}\n"),
        )
        .unwrap();
    }

    /// The entry is what the event uses while the files are the same (an
    /// entry edited by hand shows through), and never once a file changed,
    /// even to the same size within the same clock tick.
    #[test]
    fn an_entry_serves_only_the_files_it_was_made_from() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join(".wasm-charm/cache/charm-files.json");
        charm(dir.path(), "Ready1");
        let first = CharmDir::load_cached(dir.path(), &cache).unwrap();
        assert_eq!(first.manifest.ready_message, "Ready1");

        let text = std::fs::read_to_string(&cache).unwrap();
        std::fs::write(&cache, text.replace("Ready1", "Marked")).unwrap();
        let reused = CharmDir::load_cached(dir.path(), &cache).unwrap();
        assert_eq!(reused.manifest.ready_message, "Marked");

        charm(dir.path(), "Ready2");
        let edited = CharmDir::load_cached(dir.path(), &cache).unwrap();
        assert_eq!(edited.manifest.ready_message, "Ready2");
        assert!(std::fs::read_to_string(&cache).unwrap().contains("Ready2"));

        // A file removed is a change too.
        std::fs::write(dir.path().join("config.yaml"), "options: {}\n").unwrap();
        CharmDir::load_cached(dir.path(), &cache).unwrap();
        std::fs::remove_file(dir.path().join("config.yaml")).unwrap();
        let key_before = std::fs::read_to_string(&cache).unwrap();
        CharmDir::load_cached(dir.path(), &cache).unwrap();
        assert_ne!(std::fs::read_to_string(&cache).unwrap(), key_before);
    }

    /// An invalid file fails the event with its own error, whatever an
    /// entry of the valid one says; an entry that cannot be decoded is
    /// replaced.
    #[test]
    fn errors_and_broken_entries_are_not_served() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join(".wasm-charm/cache/charm-files.json");
        charm(dir.path(), "Ready");
        CharmDir::load_cached(dir.path(), &cache).unwrap();
        std::fs::write(dir.path().join("metadata.yaml"), "name: [c\n").unwrap();
        let e = CharmDir::load_cached(dir.path(), &cache).unwrap_err();
        assert!(e.file.ends_with("metadata.yaml"), "{e}");
        assert_eq!(
            e.to_string(),
            CharmDir::load(dir.path()).unwrap_err().to_string()
        );

        charm(dir.path(), "Ready");
        std::fs::write(&cache, b"{not json").unwrap();
        let c = CharmDir::load_cached(dir.path(), &cache).unwrap();
        assert_eq!(c.manifest.ready_message, "Ready");
        let files = files_of(dir.path());
        let files: Vec<_> = files.iter().map(|f| f.as_deref()).collect();
        assert!(read(&cache, &key(&host_identity().unwrap(), &files)).is_some());

        // A cache that cannot be written costs only the parse.
        let blocked = dir.path().join("file");
        std::fs::write(&blocked, "").unwrap();
        let c = CharmDir::load_cached(dir.path(), &blocked.join("charm-files.json")).unwrap();
        assert_eq!(c.manifest.ready_message, "Ready");
    }

    fn files_of(dir: &Path) -> Vec<Option<String>> {
        [
            "metadata.yaml",
            "config.yaml",
            "actions.yaml",
            crate::charm_dir::MANIFEST_FILE,
        ]
        .iter()
        .map(|name| std::fs::read_to_string(dir.join(name)).ok())
        .collect()
    }
}
