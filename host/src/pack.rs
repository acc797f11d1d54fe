//! `wasm-charm pack`: build a charm project's component for wasm32-wasip2 and
//! assemble the charm directory Juju runs (DESIGN §8).

use anyhow::{Context as _, bail};
use std::io::{BufRead as _, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TARGET: &str = "wasm32-wasip2";
/// Charm files copied from the project when present; metadata.yaml is required.
const CHARM_FILES: &[&str] = &[
    "metadata.yaml",
    "config.yaml",
    "actions.yaml",
    "wasm-charm.yaml",
];

/// Pack the project at `project` into `out`, returning `out`.
pub fn pack(project: &Path, out: &Path) -> anyhow::Result<PathBuf> {
    let manifest = project.join("Cargo.toml");
    if !manifest.is_file() {
        bail!(
            "{}: not found; a charm project is a Cargo package",
            manifest.display()
        );
    }
    if !project.join("metadata.yaml").is_file() {
        bail!(
            "{}: not found; Juju requires it",
            project.join("metadata.yaml").display()
        );
    }
    // Validate the charm files before spending a build on them.
    let staged = crate::charm_dir::CharmDir::load(project)?;
    let wasm = build(&manifest)?;
    // Compile and check the component (WIT version, imports) before anything
    // is assembled: a charm this host cannot run is not packed at all.
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("{}: cannot create", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".wasm-charm-pack-")
        .tempdir_in(parent)
        .with_context(|| format!("{}: cannot create a staging directory", parent.display()))?;
    crate::runtime::precompile(&wasm, staging.path())?;

    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    for f in CHARM_FILES {
        let from = project.join(f);
        if from.is_file() {
            std::fs::copy(&from, out.join(f))
                .with_context(|| format!("{}: cannot copy", from.display()))?;
        }
    }
    let component = out.join(&staged.manifest.component);
    if let Some(parent) = component.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(&wasm, &component)
        .with_context(|| format!("{}: cannot copy to {}", wasm.display(), component.display()))?;
    install_dispatch(out)?;
    // The artifact compiled above, so the first event on the unit loads it
    // instead of compiling: same bytes and engine, same key.
    let cache = out.join(crate::status::store_file::STATE_DIR).join("cache");
    // A re-pack replaces the cache whole: artifacts, declarations and the
    // component's identity all belong to the previous component.
    match std::fs::remove_dir_all(&cache) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("{}: cannot replace", cache.display()));
        }
        _ => {}
    }
    std::fs::create_dir_all(&cache)
        .with_context(|| format!("{}: cannot create", cache.display()))?;
    for entry in std::fs::read_dir(staging.path().join("cache"))? {
        let from = entry?.path();
        if from.extension().is_some_and(|e| e == "cwasm") {
            let to = cache.join(from.file_name().unwrap_or_default());
            std::fs::rename(&from, &to)
                .with_context(|| format!("{}: cannot install", to.display()))?;
        }
    }
    Ok(out.to_path_buf())
}

/// `dispatch` is this very binary, mode 0755.
fn install_dispatch(out: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let me = std::env::current_exe()
        .context("cannot find the wasm-charm binary to install as dispatch")?;
    let dispatch = out.join("dispatch");
    let tmp = out.join(".dispatch.tmp");
    std::fs::copy(&me, &tmp)
        .with_context(|| format!("{}: cannot copy to {}", me.display(), tmp.display()))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    std::fs::rename(&tmp, &dispatch)
        .with_context(|| format!("{}: cannot install", dispatch.display()))?;
    Ok(())
}

/// `cargo build --release --target wasm32-wasip2`, returning the cdylib's path
/// as cargo reports it (so any target directory works). Cargo's progress
/// (`Compiling …`, warnings) goes to our stderr as it comes: a cold build
/// takes about a minute, which must not look like a hang.
fn build(manifest: &Path) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building {} for {TARGET}", manifest.display());
    build_with(&cargo, manifest, &mut std::io::stderr())
}

fn build_with(
    cargo: &std::ffi::OsStr,
    manifest: &Path,
    progress: &mut (dyn Write + Send),
) -> anyhow::Result<PathBuf> {
    let mut child = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--target",
            TARGET,
            "--message-format=json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(manifest)
        // Flags meant for the host build must not reach the guest's.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo")?;
    let stdout = child.stdout.take().context("cargo's stdout")?;
    let stderr = child.stderr.take().context("cargo's stderr")?;
    // stderr is relayed (and kept for the error message) while stdout's JSON
    // is read here; reading one pipe to its end first could block cargo on
    // the other.
    let (wasm, stderr) = std::thread::scope(|scope| {
        let relay = scope.spawn(move || relay(stderr, progress));
        let wasm = artifact_path(stdout, manifest);
        (wasm, relay.join())
    });
    let stderr = stderr.unwrap_or_default();
    let wasm = wasm?;
    let status = child.wait()?;
    if !status.success() {
        let hint = if stderr.contains("may not be installed")
            || stderr.contains("can't find crate for `core`")
            || stderr.contains("can't find crate for `std`")
        {
            format!("\nhint: install the target with `rustup target add {TARGET}`")
        } else {
            String::new()
        };
        bail!(
            "building {} for {TARGET} failed (cargo's output is above){hint}",
            manifest.display()
        );
    }
    wasm.with_context(|| {
        format!(
            "{}: cargo built no cdylib (set `crate-type = [\"cdylib\"]` in [lib])",
            manifest.display()
        )
    })
}

/// Copy cargo's stderr to `progress` line by line as it comes, returning all
/// of it. A sink that fails (a closed terminal) only stops the relay.
fn relay(stderr: impl std::io::Read, progress: &mut (dyn Write + Send)) -> String {
    let mut all = String::new();
    let mut relaying = true;
    for line in std::io::BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        if relaying {
            relaying = writeln!(progress, "{line}")
                .and_then(|()| progress.flush())
                .is_ok();
        }
        all.push_str(&line);
        all.push('\n');
    }
    all
}

/// The `.wasm` of the cdylib built from `manifest`, from cargo's JSON messages.
fn artifact_path(stdout: impl std::io::Read, manifest: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut wasm = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.context("reading cargo's output")?;
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let is_cdylib = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "cdylib"));
        let manifest_matches = msg["manifest_path"]
            .as_str()
            .is_some_and(|p| Path::new(p).canonicalize().ok() == manifest.canonicalize().ok());
        if is_cdylib && manifest_matches {
            wasm = msg["filenames"]
                .as_array()
                .and_then(|f| {
                    f.iter()
                        .filter_map(|f| f.as_str())
                        .find(|f| f.ends_with(".wasm"))
                })
                .map(PathBuf::from);
        }
    }
    Ok(wasm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    /// A stand-in for cargo: progress on stderr, then the artifact message.
    fn fake_cargo(dir: &Path, manifest: &Path, exit: i32) -> PathBuf {
        let script = dir.join("cargo");
        let message = serde_json::json!({
            "reason": "compiler-artifact",
            "manifest_path": manifest,
            "target": {"kind": ["cdylib"]},
            "filenames": ["/out/charm.wasm"],
        });
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho '   Compiling charm v0.1.0' >&2\necho '{message}'\n\
                 echo '    Finished release' >&2\nexit {exit}\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[test]
    fn cargo_progress_is_relayed_and_the_artifact_found() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(&manifest, "").unwrap();
        let cargo = fake_cargo(dir.path(), &manifest, 0);
        let mut progress = Vec::new();
        let wasm = build_with(cargo.as_os_str(), &manifest, &mut progress).unwrap();
        assert_eq!(wasm, PathBuf::from("/out/charm.wasm"));
        assert_eq!(
            String::from_utf8(progress).unwrap(),
            "   Compiling charm v0.1.0\n    Finished release\n"
        );
    }

    #[test]
    fn a_failed_build_says_so_after_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(&manifest, "").unwrap();
        let cargo = fake_cargo(dir.path(), &manifest, 101);
        let mut progress = Vec::new();
        let err = build_with(cargo.as_os_str(), &manifest, &mut progress).unwrap_err();
        assert!(err.to_string().contains("failed"), "{err}");
        assert!(!progress.is_empty());
    }
}
