//! Python charms: the SDK's doctests on CPython (outside a component every
//! host call says so), and the Python harness (`testing-py`) with the
//! Python examples' pytest suites (`examples/gateway-py/tests`,
//! `examples/web-k8s-py/tests`, `examples/db-client-py/tests`,
//! `examples/db-provider-py/tests`) and the SDK's
//! own charm (`tests/guests/sdk-py`: every interface, answered by the
//! simulated Juju, Pebble and machine), run by the pinned pytest of
//! `scripts/setup-python` against this workspace's `wasm-charm serve`.

use crate::support;

use std::process::{Command, Stdio};
use support::{setup_python, workspace_root};

fn pytest(args: &[&str]) -> (bool, String) {
    pytest_with(args, &[])
}

/// The pinned pytest on `args` with `env` set too (and no model or seed
/// of the caller's): whether it passed, and what it printed.
pub fn pytest_with(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> (bool, String) {
    setup_python();
    let root = workspace_root();
    let python = root.join("target/python/bin/python");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(args)
        .current_dir(&root)
        .env(
            "PYTHONPATH",
            format!(
                "{}:{}",
                root.join("testing-py").display(),
                root.join("guest-sdk-py").display()
            ),
        )
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("WASM_CHARM", env!("CARGO_BIN_EXE_wasm-charm"))
        // The component is built where the other tests build theirs, once.
        .env("CARGO_TARGET_DIR", root.join("target/wasm-guests"))
        .envs(env.iter().copied())
        .env_remove("JUJU_MODEL")
        .env_remove("WASM_CHARM_SEED")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn the_sdk_and_harness_doctests_pass_on_cpython() {
    let (ok, text) = pytest(&[
        "--doctest-modules",
        "guest-sdk-py/wasm_charm",
        "testing-py/wasm_charm_testing",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains(" passed"), "{text}");
}

#[test]
fn the_python_gateways_pytest_suite_passes() {
    let (ok, text) = pytest(&["examples/gateway-py/tests"]);
    assert!(ok, "{text}");
    assert!(text.contains("6 passed"), "{text}");
}

#[test]
fn the_python_web_k8s_pytest_suite_passes() {
    let (ok, text) = pytest(&["examples/web-k8s-py/tests"]);
    assert!(ok, "{text}");
    assert!(text.contains("19 passed"), "{text}");
}

/// Both sides of the database in Python, in one pytest run (one start-up).
#[test]
fn the_python_database_examples_pytest_suites_pass() {
    let (ok, text) = pytest(&[
        "examples/db-client-py/tests",
        "examples/db-provider-py/tests",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("6 passed"), "{text}");
}

#[test]
fn the_python_sdk_reaches_every_interface() {
    let (ok, text) = pytest(&["tests/guests/sdk-py/tests"]);
    assert!(ok, "{text}");
    assert!(text.contains("7 passed"), "{text}");
}
