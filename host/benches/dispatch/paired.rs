//! The ops peer against wasm-charm, paired run by run, on the same fake hook
//! tools: one event as Juju runs it, and the first event after unpacking.

use crate::measure::{EventEnv, Sample, event_command, measure, median, rotation};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;

/// The events measured against the peer, each as Juju runs it.
pub const EVENTS: &[EventEnv] = &[
    EventEnv {
        label: "update-status",
        name: "update-status",
        action: false,
        env: &[],
    },
    EventEnv {
        label: "config-changed",
        name: "config-changed",
        action: false,
        env: &[],
    },
    EventEnv {
        label: "relation-changed, with data",
        name: "istio-pilot-relation-changed",
        action: false,
        env: &[
            ("JUJU_RELATION", "istio-pilot"),
            ("JUJU_RELATION_ID", "istio-pilot:1"),
            ("JUJU_REMOTE_APP", "pilot"),
            ("JUJU_REMOTE_UNIT", "pilot/0"),
        ],
    },
    EventEnv {
        label: "action show-status",
        name: "show-status",
        action: true,
        env: &[],
    },
];

/// Medians and paired ratios of one row: the peer, wasm-charm and
/// `/bin/true` as the floor of a process start; for an event row, also the
/// hook-tool calls wasm-charm made, run alone one after another, so that
/// what is left is the host's own share of the event.
struct Row {
    ops: Vec<Sample>,
    ours: Vec<Sample>,
    truth: Vec<Sample>,
    tools: Vec<f64>,
    calls: usize,
}

impl Row {
    fn print(&self, label: &str) {
        let wall = |v: &[Sample]| median(v.iter().map(|s| s.wall_ms).collect());
        let rss = |v: &[Sample]| median(v.iter().map(|s| s.rss_kib as f64).collect()) / 1024.0;
        let paired = |a: &[Sample], b: &[Sample]| {
            median(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.wall_ms / y.wall_ms)
                    .collect(),
            )
        };
        println!();
        println!("{label}");
        println!("  {:<22} {:>9} {:>11}", "", "median ms", "peak RSS MiB");
        for (who, v) in [
            ("ops 3.9 (peer)", &self.ops),
            ("wasm-charm", &self.ours),
            ("/bin/true", &self.truth),
        ] {
            println!("  {who:<22} {:>9.2} {:>11.1}", wall(v), rss(v));
        }
        println!(
            "  ops / wasm-charm (paired median): {:.1}x; wasm-charm / true: {:.2}x",
            paired(&self.ops, &self.ours),
            paired(&self.ours, &self.truth)
        );
        if !self.tools.is_empty() {
            let own: Vec<f64> = self
                .ours
                .iter()
                .zip(&self.tools)
                .map(|(ours, tools)| ours.wall_ms - tools)
                .collect();
            println!(
                "  its {} hook-tool calls alone: {:.2} ms; the host's own share: {:.2} ms (paired median)",
                self.calls,
                median(self.tools.clone()),
                median(own)
            );
        }
    }
}

/// The hook-tool calls wasm-charm makes for `event`, as argv: the event
/// run once with every tool behind a wrapper that logs its argv.
fn tool_calls(peer: &Path, wasm: &Path, event: &EventEnv) -> Vec<Vec<String>> {
    let trace = tempfile::tempdir().expect("temp dir");
    let log = trace.path().join("calls");
    let tools = peer.join("tools");
    for entry in std::fs::read_dir(&tools).expect("the peer's tools") {
        let name = entry.expect("a tool").file_name();
        let wrapper = trace.path().join(&name);
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\n{{ printf '%s\\0' \"${{0##*/}}\" \"$@\"; printf '\\n'; }} >> '{}'\nexec '{}/'\"${{0##*/}}\" \"$@\"\n",
                log.display(),
                tools.display()
            ),
        )
        .expect("write a wrapper");
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
            .expect("chmod a wrapper");
    }
    let mut cmd = event_command(peer, wasm, event);
    let path = format!(
        "{}:{}",
        trace.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    measure(cmd.env("PATH", path));
    // Each call is its arguments, each ended by NUL, then a newline: an
    // argument may hold newlines, never a NUL.
    let text = std::fs::read(&log).unwrap_or_default();
    let mut calls = Vec::new();
    let mut call = Vec::new();
    let mut rest = text.as_slice();
    while let Some(end) = rest.iter().position(|b| *b == 0) {
        call.push(String::from_utf8_lossy(&rest[..end]).into_owned());
        rest = &rest[end + 1..];
        if let Some(after) = rest.strip_prefix(b"\n") {
            calls.push(std::mem::take(&mut call));
            rest = after;
        }
    }
    calls
}

/// `calls` run one after another in `event`'s environment, as the host
/// spawns them: their summed wall time in ms.
fn tools_alone(peer: &Path, wasm: &Path, event: &EventEnv, calls: &[Vec<String>]) -> f64 {
    calls
        .iter()
        .map(|argv| {
            let hook = event_command(peer, wasm, event);
            let tool = peer.join("tools").join(&argv[0]);
            let mut alone = Command::new(tool);
            alone.args(&argv[1..]).current_dir(wasm).env_clear();
            for (k, v) in hook.get_envs() {
                if let Some(v) = v {
                    alone.env(k, v);
                }
            }
            measure(&mut alone).wall_ms
        })
        .sum()
}

/// `event` on the ops peer, on the wasm charm and `/bin/true`, `runs`
/// triples after a warm-up (page cache, artifact cache, `.pyc`), each
/// triple in an order that rotates.
pub fn event_row(peer: &Path, wasm: &Path, event: &EventEnv, runs: usize, prefix: &str) {
    let ops_charm = peer.join("charm");
    for _ in 0..3 {
        measure(&mut event_command(peer, &ops_charm, event));
        measure(&mut event_command(peer, wasm, event));
    }
    let calls = tool_calls(peer, wasm, event);
    let mut row = Row {
        ops: Vec::new(),
        ours: Vec::new(),
        truth: Vec::new(),
        tools: Vec::new(),
        calls: calls.len(),
    };
    for run in 0..runs {
        for i in rotation(run, 3) {
            match i {
                0 => row
                    .ops
                    .push(measure(&mut event_command(peer, &ops_charm, event))),
                1 => row
                    .ours
                    .push(measure(&mut event_command(peer, wasm, event))),
                _ => row.truth.push(measure(&mut Command::new("/bin/true"))),
            }
        }
        if !calls.is_empty() {
            row.tools.push(tools_alone(peer, wasm, event, &calls));
        }
    }
    row.print(&format!("{prefix}{}", event.label));
}

/// `install` as the first event of a unit just unpacked: the wasm charm
/// extracted afresh from its `.charm` before each run (no artifact cache,
/// no store), the peer without its state database and its charm's `.pyc`.
pub fn first_event_row(peer: &Path, charm_file: &Path, dir: &Path, runs: usize) {
    let install = &EVENTS[0];
    let install = EventEnv {
        label: "install, first event after unpacking",
        name: "install",
        ..*install
    };
    let ops_charm = peer.join("charm");
    let fresh_ops = || {
        let _ = std::fs::remove_file(ops_charm.join(".unit-state.db"));
        let _ = std::fs::remove_dir_all(ops_charm.join("src/__pycache__"));
    };
    let unpacked = dir.join("wasm-gateway-unpacked");
    let fresh_wasm = || {
        let _ = std::fs::remove_dir_all(&unpacked);
        unpack(charm_file, &unpacked);
    };
    let mut row = Row {
        ops: Vec::new(),
        ours: Vec::new(),
        truth: Vec::new(),
        tools: Vec::new(),
        calls: 0,
    };
    for run in 0..runs {
        for i in rotation(run, 3) {
            match i {
                0 => {
                    fresh_ops();
                    row.ops
                        .push(measure(&mut event_command(peer, &ops_charm, &install)));
                }
                1 => {
                    fresh_wasm();
                    row.ours
                        .push(measure(&mut event_command(peer, &unpacked, &install)));
                }
                _ => row.truth.push(measure(&mut Command::new("/bin/true"))),
            }
        }
    }
    row.print(install.label);
}

/// Extract the `.charm` (a zip) into `to`, with the modes it stores.
pub fn unpack(charm_file: &Path, to: &Path) {
    let file =
        std::fs::File::open(charm_file).unwrap_or_else(|e| panic!("{}: {e}", charm_file.display()));
    let mut zip = zip::ZipArchive::new(file)
        .unwrap_or_else(|e| panic!("{}: not a zip: {e}", charm_file.display()));
    zip.extract(to)
        .unwrap_or_else(|e| panic!("{} → {}: {e}", charm_file.display(), to.display()));
}
