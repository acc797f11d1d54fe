//! Whole-process dispatch, side by side with the same charm on `ops`
//! (`tests/ops-peer`), on the same fake hook tools: one command prints every
//! row of docs/performance.md.
//!
//! `cargo bench --bench dispatch` (release host). Environment:
//! `BENCH_RUNS` (default 60 pairs), `OPS_PEER` (default
//! `<workspace>/tests/ops-peer`), `BENCH_DIR` (default
//! `target/bench`; the ops venv is reused when present).
//!
//! Each measurement spawns the dispatch as Juju would and measures
//! spawn-to-reap wall time and the process's own peak RSS (`wait4`). Runs
//! alternate between the peers (and `/bin/true`, the floor of a process
//! start), so drift on a shared machine hits both; ratios are taken pair
//! by pair, then their median is printed. Rows: update-status,
//! config-changed, a relation event with data, an action, the first event
//! after unpacking the `.charm` ([`paired`]); gated probes ([`probes`]);
//! recording on against off ([`record`]); the log flood ([`flood`]); the
//! gateway in Python ([`python`]); a 100,000-scope store merged and saved
//! ([`store`]); the run-time seal check of an artifact ([`seal`]); the
//! offline model from deploy to settled ([`model`]).

mod flood;
mod measure;
mod model;
mod paired;
mod probes;
mod python;
mod record;
mod seal;
mod store;

use measure::{hook_command, run_ok};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The ops peer set up in `dir` (once), and the gateway example packed
/// there with this host, its history as the peer's: install, then
/// config-changed. The peer's directory, the host and the packed charm.
fn setup(root: &Path, dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let ops_src = std::env::var_os("OPS_PEER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("tests/ops-peer"));
    let peer = dir.join("peer");
    // Set up again when an older setup lacks what a row needs (the action).
    if !peer.join("charm/venv/bin/python").exists() || !peer.join("charm/actions.yaml").exists() {
        eprintln!(
            "setting up the ops peer in {} (pip install ops)…",
            peer.display()
        );
        run_ok(
            Command::new(ops_src.join("setup.sh")).arg(&peer),
            "tests/ops-peer/setup.sh",
        );
    }
    let host = PathBuf::from(env!("CARGO_BIN_EXE_wasm-charm"));
    let wasm = dir.join("wasm-gateway");
    eprintln!("packing examples/gateway with {}…", host.display());
    run_ok(
        Command::new(&host)
            .args(["pack"])
            .arg(root.join("examples/gateway"))
            .arg("--out")
            .arg(&wasm)
            .arg("--charm")
            .arg(wasm.with_extension("charm"))
            .env("CARGO_TARGET_DIR", root.join("target/wasm-guests")),
        "wasm-charm pack",
    );
    // A fresh store: the history below is the whole of it.
    let _ = std::fs::remove_file(wasm.join(".wasm-charm/scopes.json"));
    // The same history as the peer's setup: install, then config-changed.
    for hook in ["install", "config-changed"] {
        run_ok(&mut hook_command(&peer, &wasm, hook), hook);
    }
    (peer, host, wasm)
}

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == measure::SPAWNER) {
        return measure::spawner_main(&args[2..]);
    }
    if args.get(1).is_some_and(|a| a == probes::CONNECTIONS) {
        return probes::connections_main(&args[2..]);
    }
    // `cargo bench` passes `--bench`; other arguments name the sections to
    // run (`events`, `first`, `probes`, `record`, `flood`, `python`,
    // `store`, `seal`, `model`), all when none is named.
    let named: Vec<String> = args[1..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |section: &str| named.is_empty() || named.iter().any(|n| n == section);
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let root = workspace();
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/bench"));
    std::fs::create_dir_all(&dir).unwrap();
    // What `pack` builds the static dispatch with (rustup's musl target, a
    // musl C compiler) and what the Python rows need, on a fresh machine as
    // on one set up already (then it only checks).
    run_ok(
        Command::new(root.join("scripts/setup-toolchain")).arg("--tests"),
        "scripts/setup-toolchain --tests",
    );
    let (peer, host, wasm) = setup(&root, &dir);

    println!(
        "dispatch, whole process, {runs} pairs, same fake hook tools (tests/ops-peer/fake-tools)"
    );
    println!("host: {}", host.display());
    // What every event runs: the dispatch `pack` shipped in the charm, as
    // `inspect` reads it.
    let inspected = Command::new(&host)
        .arg("inspect")
        .arg(&wasm)
        .output()
        .expect("run wasm-charm inspect");
    let report = String::from_utf8_lossy(&inspected.stdout);
    for line in report.lines() {
        if line.starts_with("dispatch: ") || line.starts_with("artifacts: ") {
            println!("shipped {line}");
        }
    }
    if wanted("events") {
        for event in paired::EVENTS {
            paired::event_row(&peer, &wasm, event, runs, "");
        }
    }
    if wanted("first") {
        paired::first_event_row(&peer, &wasm.with_extension("charm"), &dir, runs);
    }
    if wanted("probes") {
        probes::probe_scenario(&peer, &wasm, &dir, runs);
    }
    if wanted("record") {
        record::record_scenario(&peer, &wasm, &dir, runs);
    }
    if wanted("flood") {
        flood::flood_row(&root, &host, &peer, &dir, runs);
    }
    if wanted("python") {
        python::python_rows(&root, &host, &peer, &dir, runs);
    }
    if wanted("store") {
        store::store_row(&dir, runs);
    }
    if wanted("model") {
        // Models are slower to build than an event: fewer rounds.
        model::model_rows(&root, &host, &dir, runs.div_ceil(12).max(3));
    }
    if wanted("seal") {
        let python = dir.join("wasm-gateway-py-unpacked");
        seal::seal_rows(&[("gateway", &wasm), ("gateway in Python", &python)], runs);
    }
    std::process::ExitCode::SUCCESS
}
