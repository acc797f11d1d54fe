//! Whole-process dispatch, side by side with the same charm on `ops`
//! (`tests/ops-peer`), on the same fake hook tools.
//!
//! `cargo bench --bench dispatch` (release host). Environment:
//! `BENCH_RUNS` (default 60 pairs), `OPS_PEER` (default
//! `<workspace>/tests/ops-peer`), `BENCH_DIR` (default
//! `target/bench`; the ops venv is reused when present).
//!
//! Each scenario spawns the dispatch as Juju would and measures spawn-to-reap
//! wall time and the process's own peak RSS (`wait4`). Runs alternate
//! between the peers, so drift on a shared machine hits both; the ratio is
//! taken pair by pair, then its median is printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Sample {
    wall_ms: f64,
    rss_kib: i64,
}

/// Spawn, wait with `wait4`, and return wall time and peak RSS.
fn measure(cmd: &mut Command) -> Sample {
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own unreaped child; both pointers are valid for writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed: status {status}"
    );
    std::mem::forget(child); // already reaped
    Sample {
        wall_ms,
        rss_kib: usage.ru_maxrss,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The hook environment of the peer's env.sh, for `hook`.
fn hook_command(peer: &Path, charm: &Path, hook: &str) -> Command {
    let mut cmd = Command::new(charm.join("dispatch"));
    let path = format!(
        "{}:{}",
        peer.join("tools").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env_clear()
        .current_dir(charm)
        .env("PATH", path)
        .env("FAKE_JUJU_DATA", peer.join("data"))
        .env("JUJU_UNIT_NAME", "gateway/0")
        .env("JUJU_MODEL_NAME", "bench")
        .env("JUJU_MODEL_UUID", "00000000-0000-4000-8000-000000000000")
        .env("JUJU_VERSION", "3.6.4")
        .env("JUJU_MACHINE_ID", "0")
        .env(
            "JUJU_CONTEXT_ID",
            format!("gateway/0-{hook}-00000000000000000000000000000001"),
        )
        .env(
            "JUJU_AGENT_SOCKET_ADDRESS",
            "@/var/lib/juju/agents/unit-gateway-0/agent.socket",
        )
        .env("JUJU_AGENT_SOCKET_NETWORK", "unix")
        .env("JUJU_API_ADDRESSES", "127.0.0.1:17070")
        .env("JUJU_DISPATCH_PATH", format!("hooks/{hook}"))
        .env("JUJU_HOOK_NAME", hook)
        .env("JUJU_CHARM_DIR", charm)
        .env("CHARM_DIR", charm)
        .env("LANG", "C.UTF-8");
    cmd
}

fn run_ok(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter we ignore.
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let root = workspace();
    let ops_src = std::env::var_os("OPS_PEER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("tests/ops-peer"));
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/bench"));
    std::fs::create_dir_all(&dir).unwrap();
    let peer = dir.join("peer");
    if !peer.join("charm/venv/bin/python").exists() {
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
            .env("CARGO_TARGET_DIR", root.join("target/wasm-guests")),
        "wasm-charm pack",
    );
    let _ = std::fs::remove_dir_all(wasm.join(".wasm-charm/scopes.json"));
    // The same history as the peer's setup: install, then config-changed.
    for hook in ["install", "config-changed"] {
        run_ok(&mut hook_command(&peer, &wasm, hook), hook);
    }

    println!(
        "dispatch, whole process, {runs} pairs, same fake hook tools (tests/ops-peer/fake-tools)"
    );
    println!("host: {}", host.display());
    for hook in ["update-status", "config-changed"] {
        let (mut ops, mut ours, mut truth) = (Vec::new(), Vec::new(), Vec::new());
        // Warm-up: page cache, artifact cache, .pyc.
        for _ in 0..3 {
            measure(&mut hook_command(&peer, &peer.join("charm"), hook));
            measure(&mut hook_command(&peer, &wasm, hook));
        }
        for _ in 0..runs {
            ops.push(measure(&mut hook_command(&peer, &peer.join("charm"), hook)));
            ours.push(measure(&mut hook_command(&peer, &wasm, hook)));
            truth.push(measure(&mut Command::new("/bin/true")));
        }
        let wall = |v: &[Sample]| median(v.iter().map(|s| s.wall_ms).collect());
        let rss = |v: &[Sample]| median(v.iter().map(|s| s.rss_kib as f64).collect()) / 1024.0;
        let ratio = median(
            ops.iter()
                .zip(&ours)
                .map(|(o, w)| o.wall_ms / w.wall_ms)
                .collect(),
        );
        let over_true = median(
            ours.iter()
                .zip(&truth)
                .map(|(w, t)| w.wall_ms / t.wall_ms)
                .collect(),
        );
        println!();
        println!("{hook}");
        println!("  {:<22} {:>9} {:>11}", "", "median ms", "peak RSS MiB");
        println!(
            "  {:<22} {:>9.2} {:>11.1}",
            "ops 3.9 (peer)",
            wall(&ops),
            rss(&ops)
        );
        println!(
            "  {:<22} {:>9.2} {:>11.1}",
            "wasm-charm",
            wall(&ours),
            rss(&ours)
        );
        println!(
            "  {:<22} {:>9.2} {:>11.1}",
            "/bin/true",
            wall(&truth),
            rss(&truth)
        );
        println!(
            "  ops / wasm-charm (paired median): {ratio:.1}x; wasm-charm / true: {over_true:.2}x"
        );
    }
}
