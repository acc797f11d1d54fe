//! The harness is a thin client (issue 17): a charm's `cargo test` builds
//! the SDK and `wasm-charm-testing`, never the host, wasmtime or
//! cranelift; events run in the installed `wasm-charm serve`. Read from
//! cargo's own dependency tree, offline.

use std::path::Path;
use std::process::Command;

/// The packages `cargo tree` lists for `package` along `edges`, one name
/// and version a line.
fn tree(package: &str, edges: &str) -> Vec<String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--prefix",
            "none",
            "-e",
            edges,
            "-p",
            package,
        ])
        .current_dir(&workspace)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Lines naming the host or the wasm runtime.
fn runtime(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| {
            l.starts_with("wasmtime") || l.starts_with("cranelift") || l.starts_with("wasm-charm v")
        })
        .collect()
}

#[test]
fn the_harness_pulls_in_no_host_and_no_wasm_runtime() {
    let lines = tree("wasm-charm-testing", "normal");
    assert!(
        lines.iter().any(|l| l.starts_with("wasm-charm-sdk v")),
        "the tree lists the SDK: {lines:?}"
    );
    assert_eq!(runtime(&lines), Vec::<&String>::new());
}

#[test]
fn a_charms_tests_pull_in_no_host_and_no_wasm_runtime() {
    // The gateway example: its dev-dependency is the harness.
    let lines = tree("gateway", "normal,dev");
    assert!(
        lines.iter().any(|l| l.starts_with("wasm-charm-testing v")),
        "the tree lists the harness: {lines:?}"
    );
    assert_eq!(runtime(&lines), Vec::<&String>::new());
}
