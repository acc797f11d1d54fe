//! Gated readiness probes: update-status on copies of the packed charm
//! declaring 0, 1, 4 and 16 healthy probes.

use crate::measure::{Sample, copy_dir, hook_command, measure, median, rotation};
use std::ffi::OsString;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The argument that makes this benchmark's executable a bare process that
/// makes the connections of the TCP and HTTP probes and nothing else
/// ([`connections_main`]).
pub const CONNECTIONS: &str = "--make-probe-connections";

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

/// The side of [`CONNECTIONS`]: `<tcp> <http> <tcp count> <http count>`.
/// Connect to the TCP target and close, then make one `GET` exchange with
/// the HTTP target, each its count of times, one after another on blocking
/// sockets: what the kernel costs for the probes' connections, with none of
/// the host's work around them. Exits 1 on any failure.
pub fn connections_main(args: &[OsString]) -> ExitCode {
    let arg = |i: usize| args.get(i).and_then(|a| a.to_str());
    let count = |i: usize| arg(i).and_then(|n| n.parse::<usize>().ok());
    let (Some(tcp), Some(http), Some(tcps), Some(https)) = (arg(0), arg(1), count(2), count(3))
    else {
        eprintln!("{CONNECTIONS}: expected <tcp> <http> <tcp count> <http count>");
        return ExitCode::FAILURE;
    };
    let exchange = || -> std::io::Result<bool> {
        let mut stream = std::net::TcpStream::connect(http)?;
        write!(
            stream,
            "GET /health HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n"
        )?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer)?;
        Ok(answer.starts_with(b"HTTP/1.1 200"))
    };
    for _ in 0..tcps {
        if let Err(e) = std::net::TcpStream::connect(tcp) {
            eprintln!("{CONNECTIONS}: {tcp}: {e}");
            return ExitCode::FAILURE;
        }
    }
    for _ in 0..https {
        match exchange() {
            Ok(true) => {}
            Ok(false) => {
                eprintln!("{CONNECTIONS}: {http}: not 200 OK");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("{CONNECTIONS}: {http}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The kernel's part of `decls`' connections: this executable making them
/// bare ([`connections_main`]) against it making none, `runs` pairs; the
/// median of the pairs' differences, in ms.
fn connections_alone(targets: &ProbeTargets, decls: &[ProbeDecl], runs: usize) -> f64 {
    let count = |kind: &str| decls.iter().filter(|d| d.kind == kind).count();
    let bare = |tcps: usize, https: usize| {
        let mut cmd = Command::new(std::env::current_exe().expect("the benchmark's executable"));
        cmd.arg(CONNECTIONS)
            .arg(targets.tcp.to_string())
            .arg(targets.http.to_string())
            .arg(tcps.to_string())
            .arg(https.to_string());
        cmd
    };
    let (tcps, https) = (count("tcp"), count("http"));
    let mut differences = Vec::with_capacity(runs);
    for run in 0..runs {
        let mut pair = [0.0; 2];
        for i in rotation(run, 2) {
            let (t, h) = if i == 0 { (0, 0) } else { (tcps, https) };
            pair[i] = measure(&mut bare(t, h)).wall_ms;
        }
        differences.push(pair[1] - pair[0]);
    }
    median(differences)
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
pub fn probe_scenario(peer: &Path, wasm: &Path, dir: &Path, runs: usize) {
    let hook = "update-status";
    let targets = ProbeTargets::new();
    let mut variants: Vec<ProbeVariant> = [0usize, 1, 4, 16]
        .iter()
        .map(|&n| probe_variant(peer, wasm, dir, hook, &targets, n))
        .collect();
    for run in 0..runs {
        for i in rotation(run, variants.len()) {
            let (n, charm, _, samples) = &mut variants[i];
            samples.push(measure(&mut hook_command(peer, charm, hook)));
            assert_probes_passed(charm, *n);
        }
    }
    print_probe_table(hook, &variants);
    // The floor under the probes' cost: their connections made bare.
    let most = variants.last().expect("four variants").0;
    let connecting: Vec<ProbeDecl> = (0..most)
        .map(|i| targets.decl(i))
        .filter(|d| d.kind != "process")
        .collect();
    let alone = connections_alone(&targets, &connecting, runs);
    let base = median(variants[0].3.iter().map(|s| s.wall_ms).collect());
    println!(
        "  the {most} probes' connections made bare ({}, one process, one after another): +{alone:.2} ms, \
         where 1.5x the event without probes leaves {:.2} ms for all the probes",
        kinds(&connecting),
        base / 2.0
    );
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
