//! `wasm-charm pack`: the charm directory Juju runs (DESIGN §8).

mod support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Output};
use support::{assert_failure, assert_success, workspace_root};

fn pack(project: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("pack")
        .arg(project)
        .arg("--out")
        .arg(out)
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .output()
        .expect("run wasm-charm pack")
}

fn cache_entries(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join(".wasm-charm/cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn assembles_the_charm_directory_and_replaces_a_stale_cache() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gateway");
    assert_success(&pack(&workspace_root().join("examples/gateway"), &out));

    for f in [
        "metadata.yaml",
        "config.yaml",
        "wasm-charm.yaml",
        "charm.wasm",
        "dispatch",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let mode = std::fs::metadata(out.join("dispatch"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "Juju needs an executable dispatch");
    assert_eq!(
        std::fs::read(out.join("dispatch")).unwrap(),
        std::fs::read(env!("CARGO_BIN_EXE_wasm-charm")).unwrap(),
        "dispatch is the host binary itself"
    );
    let wasm = std::fs::read(out.join("charm.wasm")).unwrap();
    assert_eq!(
        &wasm[..8],
        b"\0asm\x0d\x00\x01\x00",
        "a component, not a core module"
    );
    // Precompiled: the first event loads an artifact instead of compiling.
    let first = cache_entries(&out);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].ends_with(".cwasm"));

    // A re-pack leaves no entry of an older build behind.
    let cache = out.join(".wasm-charm/cache");
    std::fs::write(cache.join("0000.cwasm"), b"old").unwrap();
    std::fs::write(cache.join("0000.handlers.json"), b"[]").unwrap();
    assert_success(&pack(&workspace_root().join("examples/gateway"), &out));
    assert_eq!(cache_entries(&out), first);
}

#[test]
fn refuses_what_is_not_a_charm_project_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");

    let out1 = pack(dir.path(), &out);
    assert_failure(&out1);
    let err = String::from_utf8_lossy(&out1.stderr);
    assert!(err.contains("Cargo.toml: not found"), "{err}");

    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let out2 = pack(&project, &out);
    assert_failure(&out2);
    let err = String::from_utf8_lossy(&out2.stderr);
    assert!(
        err.contains("metadata.yaml: not found; Juju requires it"),
        "{err}"
    );

    std::fs::write(project.join("metadata.yaml"), "name: x\n").unwrap();
    std::fs::write(project.join("wasm-charm.yaml"), "on-error: sometimes\n").unwrap();
    let out3 = pack(&project, &out);
    assert_failure(&out3);
    let err = String::from_utf8_lossy(&out3.stderr);
    assert!(err.contains("wasm-charm.yaml"), "{err}");
    assert!(!out.exists(), "nothing is assembled from a bad project");
}
