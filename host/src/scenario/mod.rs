//! `wasm-charm test`: scenario files, each a charm, an initial state and
//! steps of events with expectations, run on the offline simulated Juju
//! (`wasm-charm run`'s own code) and checked; or a model's, whose steps
//! are `juju` commands and whose expectations name units and applications
//! (`model`).

pub mod diff;
mod fixtures;
pub mod format;
pub mod model;
pub mod run;

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `wasm-charm test`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each scenario runs in a fresh temporary state; its steps run in order, each
as `wasm-charm run` would, and the first step whose expectations fail ends it.
Its clock starts at 2026-01-01T00:00:00Z and moves only by a step's `after`.
A file with `model:` is a model's: each step a `juju` command on a model of
its own, its expectations by unit and application (`units`, `apps`).
Prints `ok` or `FAILED` per file, and for a failed expectation the step, the
key, and a diff of the expectation (-) against what happened (+).

Exit codes: 0 all passed, 1 an expectation failed, 2 a bad scenario file.")]
pub struct TestArgs {
    /// Scenario files (YAML).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Resolve each scenario's relative `charm` (a model scenario's
    /// `deploy` and `refresh --path` charms) against this directory
    /// instead of the scenario file's.
    #[arg(long, value_name = "DIR")]
    pub charms: Option<PathBuf>,
}

/// One scenario file, of either kind, run.
fn load_and_run(
    path: &std::path::Path,
    charms: Option<&std::path::Path>,
) -> Result<Vec<run::Mismatch>, format::BadFile> {
    let file = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format::BadFile(format!("{file}: cannot read: {e}")))?;
    let doc: serde_json::Value = serde_saphyr::from_str(&text)
        .map_err(|e| format::BadFile(format!("{file}: not YAML: {e}")))?;
    if model::is_model(&doc) {
        return model::run(&model::parse(path, &doc)?, charms);
    }
    run::run(&format::parse(path, doc)?, charms)
}

pub fn main(args: &TestArgs) -> ExitCode {
    let (mut failed, mut bad) = (0, 0);
    for path in &args.files {
        let result = load_and_run(path, args.charms.as_deref());
        match result {
            Ok(found) if found.is_empty() => println!("ok      {}", path.display()),
            Ok(found) => {
                failed += 1;
                println!("FAILED  {}", path.display());
                for m in found {
                    println!(
                        "  {}: step {} ({}): expect.{}:",
                        path.display(),
                        m.step,
                        m.event,
                        m.key
                    );
                    if let Some(e) = &m.error {
                        println!("    (the hook failed: {e})");
                    }
                    for line in m.diff.lines() {
                        println!("    {line}");
                    }
                }
            }
            Err(e) => {
                bad += 1;
                println!("BAD     {}", path.display());
                eprintln!("wasm-charm test: {e}");
            }
        }
    }
    let total = args.files.len();
    println!(
        "{} scenarios: {} passed, {failed} failed, {bad} bad",
        total,
        total - failed - bad
    );
    if bad > 0 {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
