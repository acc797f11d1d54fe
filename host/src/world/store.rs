//! Where models live: a directory of models (`WASM_CHARM_JUJU_HOME`, else
//! `$XDG_DATA_HOME/wasm-charm/juju`, else `~/.local/share/wasm-charm/juju`),
//! the current model's name in `current-model`, and per model:
//!
//! ```text
//! models/<name>/model.json         the model, replaced atomically after each hook
//! models/<name>/history.jsonl      every hook run, a line each, appended
//! models/<name>/log.jsonl          every unit's log lines, appended
//! models/<name>/lock               held by the command working on it
//! models/<name>/charms/<app>-<rev>/  each deployed charm, unpacked
//! models/<name>/units/<app>-<n>/charm  the unit's own charm directory
//! models/<name>/units/<app>-<n>/root   its workload root
//! ```
//!
//! A unit's charm directory links the application's files (hard links, a
//! copy across file systems): what its dispatch writes there is its own.
//!
//! The history and the log grow with every event; written into model.json
//! they made each save cost what the model had ever done, so a model of
//! many units paid more per event the longer it ran. They are appended
//! instead, and model.json records how many lines and bytes of each it
//! accounts for: a crash between an append and model.json's replacement
//! leaves lines past that mark, which a load ignores and the next save
//! overwrites.

use super::state::World;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

pub const HOME_VAR: &str = "WASM_CHARM_JUJU_HOME";

/// The directory of models.
pub fn home() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(HOME_VAR).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(data).join("wasm-charm").join("juju"));
    }
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .with_context(|| format!("neither {HOME_VAR} nor HOME is set: no place for models"))?;
    Ok(PathBuf::from(home).join(".local/share/wasm-charm/juju"))
}

pub fn model_dir(home: &Path, name: &str) -> PathBuf {
    home.join("models").join(name)
}

/// The model's names, sorted.
pub fn models(home: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(home.join("models")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("model.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn current(home: &Path) -> Option<String> {
    let text = std::fs::read_to_string(home.join("current-model")).ok()?;
    let name = text.trim().to_string();
    (!name.is_empty()).then_some(name)
}

pub fn set_current(home: &Path, name: &str) -> anyhow::Result<()> {
    let path = home.join("current-model");
    crate::atomic_file::write_making_dir(&path, format!("{name}\n").as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

pub fn load(dir: &Path) -> anyhow::Result<World> {
    let path = dir.join("model.json");
    let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut world: World = serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a model of wasm-charm juju", path.display()))?;
    let a = world.appended.get();
    world
        .history
        .extend(read_lines(&dir.join(HISTORY), a.history_bytes)?);
    world.log.extend(read_lines(&dir.join(LOG), a.log_bytes)?);
    Ok(world)
}

const HISTORY: &str = "history.jsonl";
const LOG: &str = "log.jsonl";

/// The first `len` bytes of `path`, a JSON value a line.
fn read_lines<T: serde::de::DeserializeOwned>(path: &Path, len: u64) -> anyhow::Result<Vec<T>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let kept = bytes
        .get(..usize::try_from(len).unwrap_or(usize::MAX))
        .with_context(|| format!("{}: shorter than model.json says", path.display()))?;
    kept.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_slice(l).with_context(|| {
                format!("{}: line {}: not a model's record", path.display(), i + 1)
            })
        })
        .collect()
}

/// Append `all[from..]` to `path` after its first `at` bytes (a tail past
/// them is an unsaved one, cut off), synced; the file's new length.
fn append_lines<T: serde::Serialize>(
    path: &Path,
    at: u64,
    all: &[T],
    from: u64,
) -> anyhow::Result<u64> {
    use std::io::Write as _;
    let (at, from) = match usize::try_from(from) {
        Ok(f) if f <= all.len() => (at, f),
        // Fewer entries than saved: written anew.
        _ => (0, 0),
    };
    let mut lines = Vec::new();
    for entry in &all[from..] {
        serde_json::to_writer(&mut lines, entry).context("cannot encode the model")?;
        lines.push(b'\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("{}: cannot open", path.display()))?;
    file.set_len(at)
        .and_then(|()| std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(at)))
        .and_then(|_| file.write_all(&lines))
        .and_then(|()| file.sync_data())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(at + lines.len() as u64)
}

/// Append what the history and the log gained, then replace the model's
/// file atomically: a crash leaves the last saved model or this one, never
/// a mix.
pub fn save(dir: &Path, world: &World) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let a = world.appended.get();
    let history_bytes = append_lines(
        &dir.join(HISTORY),
        a.history_bytes,
        &world.history,
        a.history,
    )?;
    let log_bytes = append_lines(&dir.join(LOG), a.log_bytes, &world.log, a.log)?;
    world.appended.set(super::state::Appended {
        history: world.history.len() as u64,
        history_bytes,
        log: world.log.len() as u64,
        log_bytes,
    });
    let path = dir.join("model.json");
    let bytes = serde_json::to_vec(world).context("cannot encode the model")?;
    crate::atomic_file::write_making_dir(&path, &bytes)
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// Hold the model's lock while a command works on it.
pub fn lock(dir: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let path = dir.join("lock");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("{}: cannot create", path.display()))?;
    file.lock()
        .with_context(|| format!("{}: cannot lock", path.display()))?;
    Ok(file)
}

/// `into` made to hold `from`'s files, each linked (copied across file
/// systems); files only in `into` stay (what a unit's dispatch kept there).
pub fn link_tree(from: &Path, into: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(into).with_context(|| format!("{}: cannot create", into.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("{}: cannot read", from.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot read", from.display()))?;
        let (src, dst) = (entry.path(), into.join(entry.file_name()));
        let kind = entry
            .file_type()
            .with_context(|| format!("{}: cannot stat", src.display()))?;
        if kind.is_dir() {
            link_tree(&src, &dst)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&src)
                .with_context(|| format!("{}: cannot read", src.display()))?;
            let _ = std::fs::remove_file(&dst);
            std::os::unix::fs::symlink(target, &dst)
                .with_context(|| format!("{}: cannot link", dst.display()))?;
        } else {
            let _ = std::fs::remove_file(&dst);
            if std::fs::hard_link(&src, &dst).is_err() {
                std::fs::copy(&src, &dst).with_context(|| {
                    format!("{}: cannot copy to {}", src.display(), dst.display())
                })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::state::{Pending, Ran};

    fn ran(hook: &str) -> Ran {
        Ran {
            unit: "a/0".into(),
            event: Pending::hook(hook),
            failed: false,
            violations: Vec::new(),
        }
    }

    fn hooks(w: &World) -> Vec<String> {
        w.history.iter().map(|r| r.event.hook.clone()).collect()
    }

    #[test]
    fn the_history_is_appended_and_a_tail_model_json_does_not_account_for_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut world = World::default();
        world.history.extend([ran("install"), ran("start")]);
        save(dir.path(), &world).unwrap();
        let text = std::fs::read_to_string(dir.path().join("model.json")).unwrap();
        assert!(!text.contains("install"), "{text}");
        // A crash after an append, before model.json was replaced.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(HISTORY))
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            b"{\"unit\":\"a/0\",\"event\":{\"hook\":\"lost\"}}\n{\"torn",
        )
        .unwrap();
        let mut back = load(dir.path()).unwrap();
        assert_eq!(hooks(&back), ["install", "start"]);
        back.history.push(ran("config-changed"));
        save(dir.path(), &back).unwrap();
        let lines = std::fs::read_to_string(dir.path().join(HISTORY)).unwrap();
        assert_eq!(lines.lines().count(), 3, "{lines}");
        assert_eq!(
            hooks(&load(dir.path()).unwrap()),
            ["install", "start", "config-changed"]
        );
    }

    #[test]
    fn a_model_json_holding_its_history_loads_and_moves_it_out() {
        let dir = tempfile::tempdir().unwrap();
        let old = r#"{"name":"m","uuid":"u","clock":1,"next-relation":1,"next-machine":1,
            "apps":{},"relations":{},"secrets":{},"log":[],
            "history":[{"unit":"a/0","event":{"hook":"install"}}]}"#;
        std::fs::write(dir.path().join("model.json"), old).unwrap();
        let world = load(dir.path()).unwrap();
        assert_eq!(hooks(&world), ["install"]);
        save(dir.path(), &world).unwrap();
        assert_eq!(hooks(&load(dir.path()).unwrap()), ["install"]);
    }
}
