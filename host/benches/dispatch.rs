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
//!
//! A last scenario measures readiness probes: update-status (which no
//! gateway handler observes, so the host runs nothing but the gated probes)
//! on copies of the packed charm declaring 0, 1, 4 and 16 healthy probes
//! against a TCP listener and an HTTP server of this process and against
//! processes that exist. Runs rotate between the copies; each count's ratio
//! to the copy without probes is taken run by run. The store of every copy
//! is checked after each run: every probe ran at that event and passed, and
//! the unit is active, or the benchmark stops.
//!
//! The last one measures recording (`WASM_CHARM_RECORD=on`): the same
//! events on a copy of the charm with recording on, paired run by run with
//! the charm without it.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Copy the directory `from` to `to` (files keep their permissions).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst)
                .unwrap_or_else(|e| panic!("{} → {}: {e}", src.display(), dst.display()));
        }
    }
}

/// A listener on 127.0.0.1, port 0, whose thread accepts every connection
/// and closes it: what a TCP probe connects to.
fn tcp_target() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the TCP probe target");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            drop(stream);
        }
    });
    addr
}

/// An HTTP server on 127.0.0.1, port 0: one thread that reads each
/// request's head and answers `200 OK` with a two-byte body, then closes.
fn http_target() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the HTTP probe target");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            // Read the whole head first: closing with unread bytes would
            // reset the connection under the client's feet.
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 << 10 {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
            );
            let _ = stream.shutdown(std::net::Shutdown::Write);
        }
    });
    addr
}

/// One probe declaration of the benchmark: its kind, for the output, and
/// its target, as wasm-charm.yaml writes it.
struct ProbeDecl {
    kind: &'static str,
    target: String,
}

/// The `probes:` section declaring `decls`, with the brief's settings.
fn probes_yaml(decls: &[ProbeDecl]) -> String {
    let mut yaml = String::from("probes:\n");
    for (i, d) in decls.iter().enumerate() {
        yaml.push_str(&format!(
            "  p{i}:\n    {}: {}\n    timeout: 2s\n    retries: 2\n    grace: 60s\n",
            d.kind, d.target
        ));
    }
    yaml
}

/// "1 tcp, 1 http, 2 process"
fn kinds(decls: &[ProbeDecl]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for d in decls {
        match counts.iter_mut().find(|(k, _)| *k == d.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((d.kind, 1)),
        }
    }
    counts
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Panic unless the store of `charm` shows its `n` probes all healthy, no
/// `probe/…` scope set, and the unit's written status active: a failing probe
/// (retried, then maintenance) must never be measured as if it were the cost
/// of probing. The host saves the store when a probe's result changes (not
/// when it is only checked again), so a probe that failed at the last event
/// shows here.
fn assert_probes_passed(charm: &Path, n: usize) {
    let path = charm.join(".wasm-charm/scopes.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let store: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    let fail = |why: String| -> ! {
        panic!(
            "probe benchmark, {n} probes: {why}; the probes must all pass or the figures \
             measure retries ({})\n{text}",
            path.display()
        )
    };
    let probes = store["probes"].as_object().cloned().unwrap_or_default();
    if probes.len() != n {
        fail(format!("the store keeps {} probe states", probes.len()));
    }
    for (name, state) in &probes {
        let last = &state["last"];
        if last["healthy"] != serde_json::Value::Bool(true) {
            fail(format!("probe {name} is unhealthy: {}", last["detail"]));
        }
    }
    if let Some(scopes) = store["unit"].as_object() {
        for (scope, s) in scopes {
            if scope.starts_with("probe/") && !s["current"].is_null() {
                fail(format!("scope {scope} is set: {}", s["current"]));
            }
        }
    }
    let unit = &store["written"]["unit"];
    if unit["status"] != "active" {
        fail(format!("the unit's written status is {unit}, not active"));
    }
}

/// What the benchmark's probes check: a TCP listener and an HTTP server of
/// its own, and processes that surely exist: pid 1 (its comm) and this
/// benchmark.
struct ProbeTargets {
    tcp: SocketAddr,
    http: SocketAddr,
    init: String,
    me: String,
}

impl ProbeTargets {
    fn new() -> ProbeTargets {
        let init = std::fs::read_to_string("/proc/1/comm")
            .expect("/proc/1/comm")
            .trim_end()
            .to_string();
        let me = std::env::current_exe()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        ProbeTargets {
            tcp: tcp_target(),
            http: http_target(),
            init,
            me,
        }
    }

    /// The `i`th probe: tcp, http, pid 1's process, this one's, in turn.
    fn decl(&self, i: usize) -> ProbeDecl {
        match i % 4 {
            0 => ProbeDecl {
                kind: "tcp",
                target: self.tcp.to_string(),
            },
            1 => ProbeDecl {
                kind: "http",
                target: format!("http://{}/health", self.http),
            },
            2 => ProbeDecl {
                kind: "process",
                target: serde_json::to_string(&self.init).unwrap(),
            },
            _ => ProbeDecl {
                kind: "process",
                target: serde_json::to_string(&self.me).unwrap(),
            },
        }
    }
}

/// One copy of the charm with `n` probes: its directory, its label and
/// its samples.
type ProbeVariant = (usize, PathBuf, String, Vec<Sample>);

/// update-status on copies of the packed charm `wasm` declaring 0, 1, 4
/// and 16 healthy probes, `runs` rounds, each round running every copy once
/// in an order that rotates.
fn probe_scenario(peer: &Path, wasm: &Path, dir: &Path, runs: usize) {
    let hook = "update-status";
    let targets = ProbeTargets::new();
    let mut variants: Vec<ProbeVariant> = [0usize, 1, 4, 16]
        .iter()
        .map(|&n| probe_variant(peer, wasm, dir, hook, &targets, n))
        .collect();
    for run in 0..runs {
        for k in 0..variants.len() {
            let i = (run + k) % variants.len();
            let (n, charm, _, samples) = &mut variants[i];
            samples.push(measure(&mut hook_command(peer, charm, hook)));
            assert_probes_passed(charm, *n);
        }
    }
    print_probe_table(hook, &variants);
    // The store shows the last attempt only: a probe passing on a retry
    // would look healthy, but only after a back-off of 200 ms.
    println!("  (a probe that passes only on a retry waits 200 ms first: see max ms)");
    let ProbeTargets {
        tcp,
        http,
        init,
        me,
    } = &targets;
    println!(
        "  probe targets: tcp {tcp}, http http://{http}/health, process {init:?} (pid 1) and {me:?} (this benchmark)"
    );
}

/// A copy of the charm declaring `n` probes, warmed up, its probes
/// checked to pass.
fn probe_variant(
    peer: &Path,
    wasm: &Path,
    dir: &Path,
    hook: &str,
    targets: &ProbeTargets,
    n: usize,
) -> ProbeVariant {
    let charm = dir.join(format!("wasm-gateway-probes-{n}"));
    let _ = std::fs::remove_dir_all(&charm);
    copy_dir(wasm, &charm);
    let decls: Vec<ProbeDecl> = (0..n).map(|i| targets.decl(i)).collect();
    if n > 0 {
        let manifest = charm.join("wasm-charm.yaml");
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&probes_yaml(&decls));
        std::fs::write(&manifest, text).unwrap();
    }
    let label = match n {
        0 => "no probes".to_string(),
        1 => format!("1 probe ({})", kinds(&decls)),
        n => format!("{n} probes ({})", kinds(&decls)),
    };
    // Warm-up, then the check that every probe passed.
    for _ in 0..3 {
        measure(&mut hook_command(peer, &charm, hook));
    }
    assert_probes_passed(&charm, n);
    (n, charm, label, Vec::<Sample>::new())
}

/// Each copy's median time and memory, and its time over the copy without
/// probes, paired run by run.
fn print_probe_table(hook: &str, variants: &[ProbeVariant]) {
    let wall = |v: &[Sample]| median(v.iter().map(|s| s.wall_ms).collect());
    let rss = |v: &[Sample]| median(v.iter().map(|s| s.rss_kib as f64).collect()) / 1024.0;
    let base = &variants[0].3;
    println!();
    println!("{hook}, gated readiness probes, all healthy (copies of the wasm charm, own stores)");
    println!(
        "  {:<38} {:>9} {:>12} {:>20} {:>8}",
        "", "median ms", "peak RSS MiB", "/ no probes (paired)", "max ms"
    );
    for (_, _, label, samples) in variants {
        let ratio = median(
            samples
                .iter()
                .zip(base)
                .map(|(s, b)| s.wall_ms / b.wall_ms)
                .collect(),
        );
        let max = samples.iter().map(|s| s.wall_ms).fold(0.0, f64::max);
        println!(
            "  {:<38} {:>9.2} {:>12.1} {:>19.2}x {:>8.1}",
            label,
            wall(samples),
            rss(samples),
            ratio,
            max
        );
    }
}

/// Recording on against off: what a unit pays per event for keeping its
/// recording (the JSON of every call and the atomic rewrite of the file).
fn record_scenario(peer: &Path, wasm: &Path, dir: &Path, runs: usize) {
    let copy = dir.join("wasm-gateway-recording");
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(wasm, &copy);
    let recording = copy.join(".wasm-charm/recording.jsonl");
    let _ = std::fs::remove_file(&recording);
    let on = |hook: &str| {
        let mut cmd = hook_command(peer, &copy, hook);
        cmd.env("WASM_CHARM_RECORD", "on");
        cmd
    };
    println!();
    println!("recording on (WASM_CHARM_RECORD=on: 20 events, 2 MiB) against off, same charm");
    println!(
        "  {:<22} {:>9} {:>11} {:>16}",
        "", "median ms", "peak RSS MiB", "on / off (paired)"
    );
    for hook in ["update-status", "config-changed"] {
        for _ in 0..3 {
            measure(&mut hook_command(peer, wasm, hook));
            measure(&mut on(hook));
        }
        let (mut off_runs, mut on_runs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            off_runs.push(measure(&mut hook_command(peer, wasm, hook)));
            on_runs.push(measure(&mut on(hook)));
        }
        let wall = |v: &[Sample]| median(v.iter().map(|s| s.wall_ms).collect());
        let rss = |v: &[Sample]| median(v.iter().map(|s| s.rss_kib as f64).collect()) / 1024.0;
        let ratio = median(
            on_runs
                .iter()
                .zip(&off_runs)
                .map(|(a, b)| a.wall_ms / b.wall_ms)
                .collect(),
        );
        println!(
            "  {:<22} {:>9.2} {:>11.1}",
            format!("{hook}, off"),
            wall(&off_runs),
            rss(&off_runs)
        );
        println!(
            "  {:<22} {:>9.2} {:>11.1} {:>16.2}x",
            format!("{hook}, on"),
            wall(&on_runs),
            rss(&on_runs),
            ratio
        );
    }
    // The figures mean something only if the events were recorded.
    let text = std::fs::read_to_string(&recording)
        .unwrap_or_else(|e| panic!("{}: no recording was made: {e}", recording.display()));
    let events = text.lines().count();
    assert!(events > 0, "{}: empty", recording.display());
    println!(
        "  (the recording keeps the newest {events} events, {} bytes)",
        text.len()
    );
}

/// The ops peer set up in `dir` (once), and the gateway example packed
/// there with this host, its history as the peer's: install, then
/// config-changed. The peer's directory, the host and the packed charm.
fn setup(root: &Path, dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let ops_src = std::env::var_os("OPS_PEER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("tests/ops-peer"));
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
    // A fresh store: the history below is the whole of it.
    let _ = std::fs::remove_file(wasm.join(".wasm-charm/scopes.json"));
    // The same history as the peer's setup: install, then config-changed.
    for hook in ["install", "config-changed"] {
        run_ok(&mut hook_command(&peer, &wasm, hook), hook);
    }
    (peer, host, wasm)
}

/// `hook` on the ops peer, on the wasm charm and `/bin/true`, `runs`
/// pairs after a warm-up: their medians, and the paired ratios.
fn ops_scenario(peer: &Path, wasm: &Path, hook: &str, runs: usize) {
    let (mut ops, mut ours, mut truth) = (Vec::new(), Vec::new(), Vec::new());
    // Warm-up: page cache, artifact cache, .pyc.
    for _ in 0..3 {
        measure(&mut hook_command(peer, &peer.join("charm"), hook));
        measure(&mut hook_command(peer, wasm, hook));
    }
    for _ in 0..runs {
        ops.push(measure(&mut hook_command(peer, &peer.join("charm"), hook)));
        ours.push(measure(&mut hook_command(peer, wasm, hook)));
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
    println!("  ops / wasm-charm (paired median): {ratio:.1}x; wasm-charm / true: {over_true:.2}x");
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter we ignore.
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let root = workspace();
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/bench"));
    std::fs::create_dir_all(&dir).unwrap();
    let (peer, host, wasm) = setup(&root, &dir);

    println!(
        "dispatch, whole process, {runs} pairs, same fake hook tools (tests/ops-peer/fake-tools)"
    );
    println!("host: {}", host.display());
    for hook in ["update-status", "config-changed"] {
        ops_scenario(&peer, &wasm, hook, runs);
    }
    probe_scenario(&peer, &wasm, &dir, runs);
    record_scenario(&peer, &wasm, &dir, runs);
}
