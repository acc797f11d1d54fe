//! `wasm-charm init`: the project it creates builds on its own, for each
//! profile. Its unit and harness tests pass on this machine, its scenario
//! passes under `wasm-charm test`, `wasm-charm pack` packs it, and the
//! packed charm answers Juju's events as the template's handler says.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;
use crate::support::new_project;

use new_project::{lock_like_the_workspace, with_workspace_builds};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{Unit, assert_failure, assert_success, setup_python, workspace_root};

fn wasm_charm(args: &[&std::ffi::OsStr]) -> Output {
    wasm_charm_in(args, Path::new("."))
}

fn wasm_charm_in(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    with_workspace_builds(&mut Command::new(env!("CARGO_BIN_EXE_wasm-charm")))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm")
}

fn init(dir: &Path) -> Output {
    wasm_charm(&["init".as_ref(), dir.as_os_str()])
}

/// `wasm-charm init <dir>/<name> --profile <profile>`: the project, with
/// every file, the SDK and the harness of this source tree, and this
/// workspace's lock file.
fn new_project(dir: &Path, name: &str, profile: &str) -> PathBuf {
    let project = dir.join(name);
    assert_success(&wasm_charm(&[
        "init".as_ref(),
        project.as_os_str(),
        "--profile".as_ref(),
        profile.as_ref(),
    ]));
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "tests/charm.rs",
        "tests/scenario.yaml",
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
    let tree = workspace_root().canonicalize().unwrap();
    for line in [
        format!(
            "\nwasm-charm-sdk = {{ path = \"{}\" }}\n",
            tree.join("guest-sdk").display()
        ),
        format!(
            "\n[dev-dependencies]\nwasm-charm-testing = {{ path = \"{}\" }}\n",
            tree.join("testing").display()
        ),
    ] {
        assert!(manifest.contains(&line), "{line:?} in\n{manifest}");
    }
    lock_like_the_workspace(&project);
    project
}

/// The project's own `cargo test`: its unit tests, then its harness tests,
/// each passing in the number the template has.
fn cargo_test(project: &Path, unit_tests: usize, harness_tests: usize) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = with_workspace_builds(&mut Command::new(cargo))
        .args(["test", "--manifest-path"])
        .arg(project.join("Cargo.toml"))
        .stdin(Stdio::null())
        .output()
        .expect("run cargo test");
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let results: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("test result:"))
        .collect();
    assert_eq!(results.len(), 2, "{stdout}");
    for (result, n) in results.iter().zip([unit_tests, harness_tests]) {
        assert!(
            result.starts_with(&format!("test result: ok. {n} passed; 0 failed")),
            "{result}\n{stdout}"
        );
    }
}

/// `wasm-charm test tests/scenario.yaml` in the project, as its README says.
fn scenario(project: &Path) {
    let out = wasm_charm_in(&["test".as_ref(), "tests/scenario.yaml".as_ref()], project);
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 scenarios: 1 passed, 0 failed, 0 bad"),
        "{stdout}"
    );
}

/// `wasm-charm pack <project> --out <dir>/build/<name>`: the charm
/// directory, beside its `.charm`.
fn pack(dir: &Path, project: &Path, name: &str) -> PathBuf {
    let charm = dir.join("build").join(name);
    assert_success(&wasm_charm(&[
        "pack".as_ref(),
        project.as_os_str(),
        "--out".as_ref(),
        charm.as_os_str(),
        "--dispatch".as_ref(),
        env!("CARGO_BIN_EXE_wasm-charm").as_ref(),
    ]));
    assert!(dir.join(format!("build/{name}.charm")).is_file());
    charm
}

#[test]
fn a_new_machine_project_tests_packs_and_runs_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = new_project(dir.path(), "mycharm", "machine");
    cargo_test(&project, 2, 3);
    scenario(&project);

    // Packed, and dispatched as Juju would.
    let charm = pack(dir.path(), &project, "mycharm");
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
fn a_new_kubernetes_project_tests_packs_and_runs_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = new_project(dir.path(), "mypod", "kubernetes");
    let metadata = std::fs::read_to_string(project.join("metadata.yaml")).unwrap();
    assert!(
        metadata.contains("containers:\n  app:\n    resource: app-image\n"),
        "{metadata}"
    );
    cargo_test(&project, 3, 5);
    scenario(&project);

    // Packed; the charm directory runs its events on the simulated Pebble.
    let charm = pack(dir.path(), &project, "mypod");
    let out = wasm_charm(&[
        "run".as_ref(),
        charm.as_os_str(),
        "--event".as_ref(),
        "app-pebble-ready".as_ref(),
    ]);
    assert_serving(&out);
}

#[test]
fn init_refuses_an_unknown_profile() {
    let dir = tempfile::tempdir().unwrap();
    refused_option(dir.path(), "--profile", "k8s", "machine, kubernetes");
}

/// `init` with `flag value` is a usage error (exit 2) naming the value and
/// the possible ones, and makes nothing; the project it would have made.
fn refused_option(dir: &Path, flag: &str, value: &str, possible: &str) -> PathBuf {
    let project = dir.join("mycharm");
    let out = wasm_charm(&[
        "init".as_ref(),
        project.as_os_str(),
        flag.as_ref(),
        value.as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("invalid value '{value}' for '{flag}")),
        "{err}"
    );
    assert!(
        err.contains(&format!("[possible values: {possible}]")),
        "{err}"
    );
    assert!(!project.exists());
    project
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

/// `wasm-charm init <dir>/<name> --profile <profile> --language python`:
/// the project, with every file, its conftest.py naming this source tree's
/// harness and SDK.
fn new_python_project(dir: &Path, name: &str, profile: &str) -> PathBuf {
    let project = dir.join(name);
    assert_success(&wasm_charm(&[
        "init".as_ref(),
        project.as_os_str(),
        "--profile".as_ref(),
        profile.as_ref(),
        "--language".as_ref(),
        "python".as_ref(),
    ]));
    for file in [
        "src/charm.py",
        "tests/test_charm.py",
        "tests/conftest.py",
        "tests/scenario.yaml",
        "metadata.yaml",
        "config.yaml",
        "actions.yaml",
        "wasm-charm.yaml",
        "README.md",
        ".gitignore",
    ] {
        assert!(project.join(file).is_file(), "{file} missing");
    }
    // A Cargo.toml would make it a Rust project.
    assert!(!project.join("Cargo.toml").exists());
    let conftest = std::fs::read_to_string(project.join("tests/conftest.py")).unwrap();
    let tree = workspace_root().canonicalize().unwrap();
    for dir in ["testing-py", "guest-sdk-py"] {
        let line = format!("    \"{}\",\n", tree.join(dir).display());
        assert!(conftest.contains(&line), "{line:?} in\n{conftest}");
    }
    project
}

/// The project's pytest, as its README says, with the pinned Python of
/// `scripts/setup-python` and nothing on PYTHONPATH: conftest.py finds
/// the harness and the SDK. Every test passes, `passed` of them.
fn pytest(project: &Path, passed: usize) {
    setup_python();
    let python = workspace_root().join("target/python/bin/python");
    let out = with_workspace_builds(&mut Command::new(&python))
        .args(["-m", "pytest", "tests", "-p", "no:cacheprovider"])
        .current_dir(project)
        .env_remove("PYTHONPATH")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert_success(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        summary.contains(&format!(" {passed} passed in ")) && !summary.contains("failed"),
        "{stdout}"
    );
}

#[test]
fn a_new_python_machine_project_tests_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = new_python_project(dir.path(), "mycharm", "machine");
    let charm = std::fs::read_to_string(project.join("src/charm.py")).unwrap();
    assert!(charm.contains("export_charm(charm)"), "{charm}");
    pytest(&project, 4);
    scenario(&project);
}

#[test]
fn a_new_python_kubernetes_project_tests_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = new_python_project(dir.path(), "mypod", "kubernetes");
    let metadata = std::fs::read_to_string(project.join("metadata.yaml")).unwrap();
    assert!(
        metadata.contains("containers:\n  app:\n    resource: app-image\n"),
        "{metadata}"
    );
    pytest(&project, 6);
    scenario(&project);

    // The scenario packed it; its events run on the simulated Pebble.
    let out = wasm_charm_in(
        &[
            "run".as_ref(),
            ".".as_ref(),
            "--event".as_ref(),
            "app-pebble-ready".as_ref(),
        ],
        &project,
    );
    assert_serving(&out);
}

#[test]
fn init_refuses_an_unknown_language() {
    let dir = tempfile::tempdir().unwrap();
    let project = refused_option(dir.path(), "--language", "go", "rust, python");

    // A Python project's SDK is a source tree on disk, not a git URL.
    let out = wasm_charm(&[
        "init".as_ref(),
        project.as_os_str(),
        "--language".as_ref(),
        "python".as_ref(),
        "--sdk".as_ref(),
        "https://example.com/wasm-charm.git".as_ref(),
    ]);
    assert_failure(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pass --sdk <path to its guest-sdk-py>"),
        "{err}"
    );
    assert!(!project.exists());
}

/// A Kubernetes project's `app-pebble-ready` run: the layer added, the plan
/// applied and the unit active, whatever the charm's language.
fn assert_serving(out: &std::process::Output) {
    assert_success(out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in [
        "pebble app: add-layer app combine",
        "pebble app: replan",
        "unit: active \"Serving\"",
    ] {
        assert!(stdout.contains(line), "{line:?} in\n{stdout}");
    }
}
