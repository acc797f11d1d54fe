//! The `dispatch` `pack` ships by default: the runtime-only host (no
//! compiler, no tools) built for this architecture's musl target, a static
//! executable that runs on every Ubuntu base Juju deploys to. It is built
//! in the source tree this wasm-charm was built from, in its own target
//! directory (`target/dispatch`) and profile (`dispatch`, for size): the
//! first pack builds it, later ones find cargo has nothing to do.
//! `scripts/build-dispatch` builds the same file.

use crate::runtime::engine::{ARTIFACT_VERSION, WASMTIME_VERSION};
use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Cargo's profile for the shipped dispatch (the workspace's Cargo.toml).
const PROFILE: &str = "dispatch";

/// The Rust target of the static dispatch for this machine's architecture.
pub fn target() -> String {
    format!("{}-unknown-linux-musl", std::env::consts::ARCH)
}

/// The source tree this binary was built from, while it is still there.
fn source_tree() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    root.join("host/src/bin/dispatch.rs")
        .is_file()
        .then(|| root.to_path_buf())
}

/// Build the static dispatch (cargo does nothing when it is up to date)
/// and return its path.
pub fn build() -> anyhow::Result<PathBuf> {
    let Some(root) = source_tree() else {
        bail!(
            "no dispatch to ship: the source tree this wasm-charm was built from ({}) is gone, \
             so its static dispatch cannot be built; pass --dispatch PATH",
            env!("CARGO_MANIFEST_DIR")
        );
    };
    let target = target();
    let target_dir = root.join("target/dispatch");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building the static dispatch for {target} (the first pack only)");
    let mut child = Command::new(cargo)
        .args(["build", "--locked", "--quiet", "--profile", PROFILE])
        .args(["--target", &target, "-p", "wasm-charm", "--bin", "dispatch"])
        .arg("--no-default-features")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // Flags meant for another build must not reach this one.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo to build the static dispatch")?;
    let stderr = child.stderr.take().context("cargo's stderr")?;
    let said = super::relay(stderr, &mut std::io::stderr());
    if !child.wait()?.success() {
        let hint = if said.contains("may not be installed") || said.contains("musl-gcc") {
            format!(
                "\nhint: it needs rustup's {target} target and a musl C compiler \
                 (scripts/setup-toolchain installs both)"
            )
        } else {
            String::new()
        };
        bail!("building the static dispatch failed (cargo's output is above){hint}");
    }
    Ok(target_dir.join(&target).join(PROFILE).join("dispatch"))
}

/// Refuse a `dispatch` of another wasmtime than this one's: it would refuse
/// every artifact `pack` compiles, at the unit's first event. The version
/// every artifact carries is a string in the binary of every host that
/// loads them.
pub fn check_version(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let needle = ARTIFACT_VERSION.as_bytes();
    let first = needle[0];
    let found = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == first)
        .any(|(at, _)| bytes[at..].starts_with(needle));
    if !found {
        bail!(
            "{}: cannot ship it as dispatch: it was not built with wasmtime {WASMTIME_VERSION} \
             like this wasm-charm, so it could not load the artifacts pack compiles; build it \
             from the same source (scripts/build-dispatch)",
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dispatch_of_another_wasmtime_is_refused() {
        let ours = format!("\x7fELF…{ARTIFACT_VERSION}…");
        check_version(Path::new("dispatch"), ours.as_bytes()).unwrap();
        let other = ours.replace(WASMTIME_VERSION, "48.0.7");
        let err = check_version(Path::new("dispatch"), other.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("wasmtime 48.0.8"), "{err}");
    }
}
