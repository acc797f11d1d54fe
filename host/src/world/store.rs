//! Where models live: a directory of models (`WASM_CHARM_JUJU_HOME`, else
//! `$XDG_DATA_HOME/wasm-charm/juju`, else `~/.local/share/wasm-charm/juju`),
//! the current model's name in `current-model`, and per model:
//!
//! ```text
//! models/<name>/model.json         the model, replaced atomically after each hook
//! models/<name>/lock               held by the command working on it
//! models/<name>/charms/<app>-<rev>/  each deployed charm, unpacked
//! models/<name>/units/<app>-<n>/charm  the unit's own charm directory
//! models/<name>/units/<app>-<n>/root   its workload root
//! ```
//!
//! A unit's charm directory links the application's files (hard links, a
//! copy across file systems): what its dispatch writes there is its own.

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
    serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a model of wasm-charm juju", path.display()))
}

/// Replace the model's file atomically: a crash leaves the last saved
/// model or this one, never a mix.
pub fn save(dir: &Path, world: &World) -> anyhow::Result<()> {
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
