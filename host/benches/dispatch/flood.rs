//! The log flood: a handler logging 200,000 lines within a 2 s deadline,
//! through the same fake `juju-log` (a process per call).

use crate::measure::{Sample, copy_dir, hook_command, measure, median, run_ok};
use std::path::Path;
use std::process::Command;

/// Pack the hostile test charm, set it to flood, and time `install`; print
/// the `juju-log` calls per level the event made.
pub fn flood_row(root: &Path, host: &Path, peer: &Path, dir: &Path, runs: usize) {
    let charm = dir.join("wasm-hostile");
    let _ = std::fs::remove_dir_all(&charm);
    run_ok(
        Command::new(host)
            .arg("pack")
            .arg(root.join("tests/guests/hostile"))
            .arg("--out")
            .arg(&charm)
            .env("CARGO_TARGET_DIR", root.join("target/wasm-guests")),
        "wasm-charm pack tests/guests/hostile",
    );
    let manifest = charm.join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap_or_default();
    let text = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("handler-timeout-ms:") {
                "  handler-timeout-ms: 2000"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("handler-timeout-ms: 2000"), "{text}");
    std::fs::write(&manifest, text).unwrap();
    // The peer's answers, but config `mode: log-flood`.
    let data = dir.join("flood-data");
    let _ = std::fs::remove_dir_all(&data);
    copy_dir(&peer.join("data"), &data);
    std::fs::write(data.join("config.json"), r#"{"mode":"log-flood"}"#).unwrap();
    let calls = dir.join("flood-calls.log");
    let flood = || {
        let mut cmd = hook_command(peer, &charm, "install");
        cmd.env("FAKE_JUJU_DATA", &data)
            .env("FAKE_JUJU_LOG", &calls);
        cmd
    };
    let mut samples: Vec<Sample> = Vec::new();
    let mut per_level = String::new();
    for _ in 0..runs.clamp(3, 10) {
        let _ = std::fs::remove_file(&calls);
        samples.push(measure(&mut flood()));
        per_level = juju_log_calls(&calls);
    }
    let wall = median(samples.iter().map(|s| s.wall_ms).collect());
    let rss = median(samples.iter().map(|s| s.rss_kib as f64).collect()) / 1024.0;
    println!();
    println!("log flood: 200,000 lines in one handler, 2 s deadline (tests/guests/hostile)");
    println!("  {:<22} {:>9} {:>11}", "", "median ms", "peak RSS MiB");
    println!("  {:<22} {wall:>9.2} {rss:>11.1}", "wasm-charm");
    println!("  juju-log calls per level: {per_level}; the hook succeeded every run");
}

/// "INFO 1, WARNING 1" from the fake tools' call log.
fn juju_log_calls(calls: &Path) -> String {
    let text = std::fs::read_to_string(calls).unwrap_or_default();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("juju-log ")) {
        let level = line
            .split("'--log-level' '")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap_or("INFO")
            .to_string();
        match counts.iter_mut().find(|(l, _)| *l == level) {
            Some((_, n)) => *n += 1,
            None => counts.push((level, 1)),
        }
    }
    counts
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
