//! The ops peer against wasm-charm, paired run by run, on the same fake hook
//! tools: one event as Juju runs it, and the first event after unpacking.

use crate::measure::{EventEnv, Sample, event_command, measure, median};
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
/// `/bin/true` as the floor of a process start.
struct Row {
    ops: Vec<Sample>,
    ours: Vec<Sample>,
    truth: Vec<Sample>,
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
    }
}

/// `event` on the ops peer, on the wasm charm and `/bin/true`, `runs`
/// triples after a warm-up (page cache, artifact cache, `.pyc`).
pub fn event_row(peer: &Path, wasm: &Path, event: &EventEnv, runs: usize) {
    let ops_charm = peer.join("charm");
    for _ in 0..3 {
        measure(&mut event_command(peer, &ops_charm, event));
        measure(&mut event_command(peer, wasm, event));
    }
    let mut row = Row {
        ops: Vec::new(),
        ours: Vec::new(),
        truth: Vec::new(),
    };
    for _ in 0..runs {
        row.ops
            .push(measure(&mut event_command(peer, &ops_charm, event)));
        row.ours
            .push(measure(&mut event_command(peer, wasm, event)));
        row.truth.push(measure(&mut Command::new("/bin/true")));
    }
    row.print(event.label);
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
    };
    for _ in 0..runs {
        fresh_ops();
        row.ops
            .push(measure(&mut event_command(peer, &ops_charm, &install)));
        fresh_wasm();
        row.ours
            .push(measure(&mut event_command(peer, &unpacked, &install)));
        row.truth.push(measure(&mut Command::new("/bin/true")));
    }
    row.print(install.label);
}

/// Extract the `.charm` (a zip) into `to`, with the modes it stores.
fn unpack(charm_file: &Path, to: &Path) {
    let file =
        std::fs::File::open(charm_file).unwrap_or_else(|e| panic!("{}: {e}", charm_file.display()));
    let mut zip = zip::ZipArchive::new(file)
        .unwrap_or_else(|e| panic!("{}: not a zip: {e}", charm_file.display()));
    zip.extract(to)
        .unwrap_or_else(|e| panic!("{} → {}: {e}", charm_file.display(), to.display()));
}
