//! A project `wasm-charm init` made, built and tested as its author would,
//! but against this workspace's builds: shared by `tests/init.rs` and
//! `tests/tutorial.rs`.

use crate::support::workspace_root as root;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `wasm-charm` binary under test.
pub fn wasm_charm_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wasm-charm"))
}

/// Give `command` (a `wasm-charm` or `cargo` run for a new project) this
/// workspace's builds:
///
/// * `CARGO_TARGET_DIR` is the guests' shared target directory, so the
///   SDK and its dependencies are built already (the running `cargo test`
///   holds the workspace's own `target`); the harness builds its guests
///   in `wasm-guests` under it.
/// * `WASM_CHARM` and the front of `PATH` name the binary under test, for
///   a harness or a command that runs `wasm-charm` itself; `cargo` on
///   `PATH` is the one running this test.
/// * The flags this `cargo test` was built with are not the project's.
pub fn with_workspace_builds(command: &mut Command) -> &mut Command {
    let bin = wasm_charm_bin();
    let mut path = vec![bin.parent().expect("the binary's directory").to_path_buf()];
    if let Some(cargo) = std::env::var_os("CARGO").map(PathBuf::from)
        && let Some(dir) = cargo.parent()
    {
        path.push(dir.to_path_buf());
    }
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    command
        .env("CARGO_TARGET_DIR", root().join("target/wasm-guests"))
        .env("WASM_CHARM", &bin)
        .env("PATH", std::env::join_paths(path).expect("PATH"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("WASM_CHARM_ROOT")
}

/// Put this workspace's Cargo.lock in the new `project`: the versions
/// `target/wasm-guests` holds, so that its build is offline and short (a
/// new project's first build resolves its own).
pub fn lock_like_the_workspace(project: &Path) {
    std::fs::copy(root().join("Cargo.lock"), project.join("Cargo.lock"))
        .unwrap_or_else(|e| panic!("copy Cargo.lock into {}: {e}", project.display()));
}
