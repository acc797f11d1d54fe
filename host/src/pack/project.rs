//! What `run`, `sim dispatch` and `test` take as a charm: a packed charm
//! directory as it is, or a charm project (a Cargo package, or a Python
//! project, with Juju's metadata.yaml) packed first, so a test never runs a stale component.
//! The project is packed into `target/wasm-charm/<name>` inside it, and only
//! when the component or a charm file changed: cargo's own build is
//! incremental (a Python project's is skipped while its inputs are
//! unchanged, [`super::python`]), and an unchanged component is not
//! compiled again.

use super::CHARM_FILES;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// Where a project's charm directory goes, inside the project.
pub const PACKED_DIR: &str = "target/wasm-charm";

/// Neither a packed charm nor a charm project.
#[derive(Debug)]
pub struct NotACharm(pub String);

impl std::fmt::Display for NotACharm {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotACharm {}

/// What `path` names.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind {
    /// A packed charm directory (metadata.yaml, no Cargo.toml).
    Packed,
    /// A charm project (Cargo.toml, or a Python project's src/charm.py,
    /// beside metadata.yaml).
    Project,
}

/// What `path` is, by the files in it; `Err` names both things it is not.
pub fn kind(path: &Path) -> Result<Kind, NotACharm> {
    let metadata = path.join("metadata.yaml").is_file();
    let project = path.join("Cargo.toml").is_file() || super::python::is_project(path);
    match (metadata, project) {
        (true, true) => Ok(Kind::Project),
        (true, false) => Ok(Kind::Packed),
        _ => Err(NotACharm(format!(
            "{}: neither a packed charm directory (metadata.yaml and the component, as \
             `wasm-charm pack` makes it) nor a charm project (Cargo.toml, or a Python charm's \
             {} and {}, beside metadata.yaml)",
            path.display(),
            super::python::MARKER,
            crate::charm_dir::MANIFEST_FILE
        ))),
    }
}

/// The charm directory to run for `path`: itself when packed; for a
/// project, its charm directory, packed again first when anything changed.
pub fn charm_for_run(path: &Path) -> anyhow::Result<PathBuf> {
    match kind(path)? {
        Kind::Packed => Ok(path.to_path_buf()),
        Kind::Project => packed(path),
    }
}

/// The charm directory of the project at `project`, packed again first
/// when anything changed: `<project>/target/wasm-charm/<name>`, the one
/// `run <project>` and the harness (`wasm-charm serve`) share, built in
/// the target directory `wasm-charm pack` builds in (`$CARGO_TARGET_DIR`,
/// else the project's workspace's), so one change costs one guest build.
pub fn packed(project: &Path) -> anyhow::Result<PathBuf> {
    let charm = super::check_project(project)
        .with_context(|| format!("{}: the charm project", project.display()))?;
    let out = project.join(PACKED_DIR).join(&charm.metadata.name);
    charm_dir_fresh(project, &charm, &out)
}

/// Build the project (incrementally) and assemble `out` unless what it
/// holds is already what the build made.
fn charm_dir_fresh(
    project: &Path,
    charm: &crate::charm_dir::CharmDir,
    out: &Path,
) -> anyhow::Result<PathBuf> {
    let built = super::component(project, charm, None)?;
    let packed_component = out.join(&charm.manifest.component);
    if same_file(&built.wasm, &packed_component) && is_fresh(project, out)? {
        return Ok(out.canonicalize()?);
    }
    eprintln!("packing {} into {}", project.display(), out.display());
    // Built once: building again to assemble would cost a second cargo (or
    // componentize-py) check of the same sources.
    super::charm_dir_of(project, charm, &built, out)
}

/// Whether every charm file of `project` is in `out` as it is now, and the
/// component was precompiled there.
fn is_fresh(project: &Path, out: &Path) -> anyhow::Result<bool> {
    if !out
        .join(crate::status::store_file::STATE_DIR)
        .join("cache")
        .is_dir()
    {
        return Ok(false);
    }
    for f in CHARM_FILES {
        let from = project.join(f);
        let to = out.join(f);
        if from.is_file() != to.is_file() || (from.is_file() && !same_file(&from, &to)) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_packed_a_project_or_neither() {
        let dir = tempfile::tempdir().unwrap();
        let e = kind(dir.path()).unwrap_err().to_string();
        assert!(e.contains("neither a packed charm directory"), "{e}");
        assert!(e.contains("nor a charm project"), "{e}");
        std::fs::write(dir.path().join("metadata.yaml"), "name: x\n").unwrap();
        assert_eq!(kind(dir.path()).unwrap(), Kind::Packed);
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        assert_eq!(kind(dir.path()).unwrap(), Kind::Project);
    }
}
