//! The gateway in Python (`examples/gateway-py`, built by componentize-py)
//! beside the Rust one and the ops peer: its pack after an edit, its
//! `.charm`, and its events paired against the peer.

use crate::measure::{copy_dir, hook_command, run_ok};
use crate::paired;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Pack a copy of the Python gateway in `dir`, then again after an edit of
/// its source (a warm pack that builds the component anew), and once more
/// unchanged; print those packs' times and the `.charm`'s size; unpack the
/// `.charm`, give it the peer's history and run the event rows on it.
pub fn python_rows(root: &Path, host: &Path, peer: &Path, dir: &Path, runs: usize) {
    let project = dir.join("gateway-py-src");
    let _ = std::fs::remove_dir_all(&project);
    copy_dir(&root.join("examples/gateway-py"), &project);
    let out = dir.join("wasm-gateway-py");
    let charm_file = out.with_extension("charm");
    let pack = || {
        let mut cmd = Command::new(host);
        cmd.arg("pack")
            .arg(&project)
            .arg("--out")
            .arg(&out)
            .arg("--charm")
            .arg(&charm_file)
            .env("CARGO_TARGET_DIR", dir.join("python-target"));
        cmd
    };
    eprintln!("packing examples/gateway-py…");
    run_ok(&mut pack(), "wasm-charm pack examples/gateway-py");
    let source = project.join("src/charm.py");
    let mut text = std::fs::read_to_string(&source).expect("the gateway's charm.py");
    text.push_str("\n# edited by the benchmark: the next pack builds the component anew\n");
    std::fs::write(&source, text).expect("edit charm.py");
    let start = Instant::now();
    run_ok(&mut pack(), "wasm-charm pack examples/gateway-py, edited");
    let warm = start.elapsed().as_secs_f64();
    // Nothing changed since: the component and its artifacts are reused.
    let start = Instant::now();
    run_ok(
        &mut pack(),
        "wasm-charm pack examples/gateway-py, unchanged",
    );
    let unchanged = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&charm_file).expect("the .charm").len();
    println!();
    println!("gateway in Python (examples/gateway-py, componentize-py)");
    println!(
        "  pack after an edit of src/charm.py: {warm:.1} s; again, unchanged: {unchanged:.1} s; its .charm {:.1} MB",
        size as f64 / 1e6
    );
    // The events run where a unit runs them: in the `.charm` as Juju
    // unpacks it. Its 35 MB artifact is mapped at each event, and how the
    // page cache holds a file depends on how it was written (one large
    // write, as `pack` makes it, gives large folios mapped whole).
    let unpacked = dir.join("wasm-gateway-py-unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    paired::unpack(&charm_file, &unpacked);
    for hook in ["install", "config-changed"] {
        run_ok(&mut hook_command(peer, &unpacked, hook), hook);
    }
    for event in &paired::EVENTS[..3] {
        paired::event_row(peer, &unpacked, event, runs, "Python: ");
    }
}
