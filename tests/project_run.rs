//! `run` and `test` given a charm project (Cargo.toml beside metadata.yaml)
//! instead of a packed charm: the project is packed first, again only when
//! the component or a charm file changed, so an edit is never run stale; a
//! directory that is neither is refused with one message, exit 2.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::workspace_root;

/// A copy of the gateway example as a project of its own, outside the
/// workspace (the SDK by absolute path, the workspace's lock file), as a
/// crate of another name: the guests' target directory it shares must
/// not get a second `gateway.wasm`.
fn gateway_project(dir: &Path) -> PathBuf {
    let root = workspace_root();
    let project = dir.join("gw");
    fs::create_dir_all(project.join("src")).unwrap();
    for f in [
        "metadata.yaml",
        "config.yaml",
        "actions.yaml",
        "wasm-charm.yaml",
        "src/lib.rs",
    ] {
        fs::copy(root.join("examples/gateway").join(f), project.join(f)).unwrap();
    }
    fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    let manifest = format!(
        "[package]\nname = \"gw-copy\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\n\
         wasm-charm-sdk = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
         [workspace]\n",
        root.join("guest-sdk").display().to_string()
    );
    fs::write(project.join("Cargo.toml"), manifest).unwrap();
    project
}

fn wasm_charm(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(args)
        .current_dir(cwd)
        // The guests' shared target directory: the SDK is built already.
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .env_remove("WASM_CHARM_ROOT")
        .output()
        .expect("run wasm-charm")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_and_test_pack_a_project_first_and_only_when_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let project = gateway_project(dir.path());
    let install = ["run", "gw", "--event", "install"];

    let out = wasm_charm(&install, dir.path());
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("packing gw into gw/target/wasm-charm/gateway"),
        "{stderr}"
    );
    assert!(
        stdout.contains("Config item `kind` must be set"),
        "{stdout}"
    );
    // The state file sits beside the project, as beside a packed charm.
    assert!(dir.path().join("gw.offline-state.yaml").is_file());

    // Nothing changed: nothing is packed again.
    let (_, stderr) = text(&wasm_charm(&install, dir.path()));
    assert!(!stderr.contains("packing"), "{stderr}");

    // An edit is what runs next.
    let lib = project.join("src/lib.rs");
    let source = fs::read_to_string(&lib).unwrap();
    fs::write(&lib, source.replace("must be set", "must be set first")).unwrap();
    let out = wasm_charm(&install, dir.path());
    let (stdout, stderr) = text(&out);
    assert!(stderr.contains("packing"), "{stderr}");
    assert!(stdout.contains("must be set first"), "{stdout}");

    // `test` takes the project as a scenario's charm, packed once.
    fs::write(
        dir.path().join("gw.yaml"),
        "charm: gw\nsteps:\n  - event: install\n    expect:\n      unit-status:\n        \
         kind: blocked\n        message: \"Config item `kind` must be set first (+1 more)\"\n",
    )
    .unwrap();
    let out = wasm_charm(&["test", "gw.yaml"], dir.path());
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
}

#[test]
fn a_directory_that_is_neither_a_charm_nor_a_project_is_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("empty")).unwrap();
    let out = wasm_charm(&["run", "empty", "--event", "install"], dir.path());
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.matches("neither a packed charm directory").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "nor a charm project (Cargo.toml, or a Python charm's src/charm.py and \
             wasm-charm.yaml, beside metadata.yaml)"
        ),
        "{stderr}"
    );
    fs::write(
        dir.path().join("s.yaml"),
        "charm: empty\nsteps:\n  - event: install\n",
    )
    .unwrap();
    let out = wasm_charm(&["test", "s.yaml"], dir.path());
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert_eq!(
        (stdout + &stderr)
            .matches("neither a packed charm directory")
            .count(),
        1
    );
}
