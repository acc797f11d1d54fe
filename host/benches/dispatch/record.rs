//! Recording on against off, same charm.

use crate::measure::{Sample, copy_dir, hook_command, measure, median, rotation};
use std::path::Path;

/// Recording on against off: what a unit pays per event for keeping its
/// recording (the JSON of every call and the atomic rewrite of the file).
pub fn record_scenario(peer: &Path, wasm: &Path, dir: &Path, runs: usize) {
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
        for run in 0..runs {
            for i in rotation(run, 2) {
                match i {
                    0 => off_runs.push(measure(&mut hook_command(peer, wasm, hook))),
                    _ => on_runs.push(measure(&mut on(hook))),
                }
            }
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
