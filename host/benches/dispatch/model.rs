//! The offline model's own cost: three applications of three units from
//! deploy to settled, and one application of 50 peer units, each through
//! `wasm-charm juju` as a person types it. Each event's time as one-unit
//! simulation takes it alone (its state, the dispatch process, its tools,
//! the commit) is read from the model's instrument
//! (`WASM_CHARM_MODEL_TIMINGS`); what the commands took beyond their sum
//! is the model's: views, taking back, settling, saving, the CLI's starts.

use super::measure::{median, run_ok};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// db-provider and db-client packed with this host, in `dir`.
fn charms(root: &Path, host: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let pack = |name: &str| {
        let out = dir.join(format!("model-{name}"));
        let charm = out.with_extension("charm");
        run_ok(
            Command::new(host)
                .arg("pack")
                .arg(root.join("examples").join(name))
                .arg("--out")
                .arg(&out)
                .arg("--charm")
                .arg(&charm)
                .env("CARGO_TARGET_DIR", root.join("target/wasm-guests")),
            "wasm-charm pack",
        );
        charm
    };
    (pack("db-provider"), pack("db-client"))
}

/// One model built by `steps` in a fresh home: the commands' wall time in
/// ms, and each event's own (ms).
fn one_model(host: &Path, dir: &Path, steps: &[Vec<String>]) -> (f64, Vec<f64>) {
    let home = dir.join("model-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let timings = home.join("timings");
    let start = Instant::now();
    for step in steps {
        run_ok(
            Command::new(host)
                .arg("juju")
                .args(step)
                .env("WASM_CHARM_JUJU_HOME", &home)
                .env("WASM_CHARM_MODEL_TIMINGS", &timings)
                .env_remove("WASM_CHARM_SEED")
                .env_remove("JUJU_MODEL"),
            &format!("juju {}", step.join(" ")),
        );
    }
    let total = start.elapsed().as_secs_f64() * 1e3;
    let text = std::fs::read_to_string(&timings).unwrap_or_default();
    let events = text
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|us| us / 1e3)
        .collect();
    (total, events)
}

fn row(label: &str, host: &Path, dir: &Path, steps: &[Vec<String>], runs: usize) -> f64 {
    let (mut totals, mut sums, mut ratios, mut own) = (vec![], vec![], vec![], vec![]);
    let mut count = 0;
    for _ in 0..runs {
        let (total, events) = one_model(host, dir, steps);
        let sum: f64 = events.iter().sum();
        count = events.len();
        totals.push(total);
        sums.push(sum);
        ratios.push(total / sum);
        own.push((total - sum) / events.len().max(1) as f64);
    }
    let own = median(own);
    println!(
        "{label:<34} {count:>5} events  total {:>8.1} ms  events alone {:>8.1} ms  total/alone {:>5.2}x  model's own {:>5.2} ms/event",
        median(totals),
        median(sums),
        median(ratios),
        own
    );
    own
}

pub fn model_rows(root: &Path, host: &Path, dir: &Path, runs: usize) {
    let (db, app) = charms(root, host, dir);
    let (db, app) = (db.display().to_string(), app.display().to_string());
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let three = [
        s(&["add-model", "bench"]),
        s(&["deploy", &db, "db", "-n", "3"]),
        s(&["deploy", &app, "app", "-n", "3"]),
        s(&["deploy", &app, "shop", "-n", "3"]),
        s(&["integrate", "app", "db"]),
        s(&["integrate", "shop", "db"]),
    ];
    println!(
        "the offline model, deploy to settled, median of {runs} (same host, wasm-charm juju):"
    );
    let small = row("3 applications x 3 units", host, dir, &three, runs);
    let fifty = [
        s(&["add-model", "bench"]),
        s(&["deploy", &db, "db", "-n", "50"]),
    ];
    let large = row("1 application x 50 peer units", host, dir, &fifty, 1);
    println!(
        "model's own cost per event, 50 peers against 3x3: {:.2}x",
        large / small
    );
}
