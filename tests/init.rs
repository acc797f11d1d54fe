//! `wasm-charm init`: the project it creates builds on its own. Its unit
//! tests pass on this machine, `wasm-charm pack` packs it, and the packed
//! charm answers Juju's events as the template's handler says.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

mod support;

use serde_json::json;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use support::{Unit, assert_failure, assert_success, workspace_root};

fn wasm_charm(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(args)
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm")
}

fn init(dir: &Path) -> Output {
    wasm_charm(&["init".as_ref(), dir.as_os_str()])
}

#[test]
fn a_new_project_tests_packs_and_runs_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("mycharm");
    assert_success(&init(&project));
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "metadata.yaml",
        "config.yaml",
        "actions.yaml",
        "wasm-charm.yaml",
        "README.md",
        ".gitignore",
    ] {
        assert!(project.join(file).is_file(), "{file} missing");
    }
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
    assert!(
        manifest.contains(&format!(
            "wasm-charm-sdk = {{ path = \"{}\" }}",
            workspace_root()
                .join("guest-sdk")
                .canonicalize()
                .unwrap()
                .display()
        )),
        "{manifest}"
    );
    // The versions this workspace builds with, so that the test builds what
    // target/wasm-guests already holds, offline; a new project's first
    // build resolves its own.
    std::fs::copy(
        workspace_root().join("Cargo.lock"),
        project.join("Cargo.lock"),
    )
    .unwrap();

    // Its own unit tests, on this machine.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--manifest-path"])
        .arg(project.join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .output()
        .expect("run cargo test");
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("test result: ok. 2 passed; 0 failed"),
        "{stdout}"
    );

    // Packed, and dispatched as Juju would.
    let charm = dir.path().join("build/mycharm");
    assert_success(&wasm_charm(&[
        "pack".as_ref(),
        project.as_os_str(),
        "--out".as_ref(),
        charm.as_os_str(),
        "--dispatch".as_ref(),
        env!("CARGO_BIN_EXE_wasm-charm").as_ref(),
    ]));
    assert!(dir.path().join("build/mycharm.charm").is_file());
    let unit = Unit::on_simulator(&charm, "mycharm/0");
    unit.set_state(json!({
        "leader": true,
        "config": {"port": 8080},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    assert_success(&unit.dispatch("install"));
    assert_eq!(
        unit.calls_of("status-set"),
        [["status-set", "active", "--", "Ready"]]
    );
    unit.clear_calls();
    unit.update_state(|s| s["config"]["port"] = json!(0));
    assert_success(&unit.dispatch("config-changed"));
    assert_eq!(
        unit.calls_of("status-set"),
        [[
            "status-set",
            "blocked",
            "--",
            "Config item `port` must be 1 to 65535, not 0"
        ]]
    );
}

#[test]
fn init_refuses_a_used_directory_and_a_bad_name() {
    let dir = tempfile::tempdir().unwrap();
    let used = dir.path().join("used");
    std::fs::create_dir(&used).unwrap();
    std::fs::write(used.join("notes"), "").unwrap();
    let out = init(&used);
    assert_failure(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}: not empty", used.display())),
        "{err}"
    );

    let out = init(&dir.path().join("My_Charm"));
    assert_failure(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`My_Charm` is no charm name"), "{err}");
    assert!(!dir.path().join("My_Charm").exists());

    // --name overrides the directory's name.
    let named = dir.path().join("My_Charm");
    assert_success(&wasm_charm(&[
        "init".as_ref(),
        named.as_os_str(),
        "--name".as_ref(),
        "my-charm".as_ref(),
    ]));
    let metadata = std::fs::read_to_string(named.join("metadata.yaml")).unwrap();
    assert!(metadata.starts_with("name: my-charm\n"), "{metadata}");
}
