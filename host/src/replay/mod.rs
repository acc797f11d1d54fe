//! `wasm-charm replay`: run the events of a recording (`crate::record`)
//! again, offline, against the answers they got, with the charm
//! directory's current component, and say for each whether it did the same.
//!
//! Nothing of the unit is touched: the component (and its compiled
//! artifacts) are copied to a temporary directory, the store is the
//! recorded one in memory, the declared directories are empty ones under a
//! temporary root, and every hook-tool, workload and probe call is answered
//! from the recording ([`answers`]). Pebble is not recorded: a replayed
//! Pebble call finds no socket. What is compared is in [`compare`].
//!
//! Exit codes: 0 all the same, 1 any difference, 2 a recording or
//! arguments that cannot be used.

pub mod answers;
pub mod compare;

use crate::charm_dir::CharmDir;
use crate::dispatch;
use crate::event_time::EventTime;
use crate::hook_tools::HookTools;
use crate::juju_env::JujuEnv;
use crate::probe::{ProbeEnv, Prober};
use crate::record::format::{self, Backend, Outcome, Recorded};
use crate::status::backend::ScopeBackend;
use crate::status::store::ScopeStore;
use crate::status::store_file::STATE_DIR;
use crate::status::store_juju::JujuStore;
use crate::workload_root::WorkloadRoot;
use anyhow::Context as _;
use compare::Difference;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The recording: `<charm>/.wasm-charm/recording.jsonl` of a unit that
    /// recorded its events (wasm-charm.yaml `record:`, or WASM_CHARM_RECORD).
    pub recording: PathBuf,
    /// The charm directory whose component runs the events [default: the
    /// one holding the recording, else the recorded JUJU_CHARM_DIR].
    #[arg(long)]
    pub charm: Option<PathBuf>,
    /// Replay only event N (1 is the oldest in the recording).
    #[arg(long, value_name = "N")]
    pub event: Option<usize>,
}

/// A recording or arguments that cannot be used (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unusable(String);

pub fn main(args: &ReplayArgs) -> ExitCode {
    match run(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("wasm-charm replay: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Replay and print; `Ok(true)`: every event did the same.
fn run(args: &ReplayArgs) -> anyhow::Result<bool> {
    let shown = args.recording.display();
    let text = std::fs::read_to_string(&args.recording)
        .map_err(|e| Unusable(format!("{shown}: cannot read it: {e}")))?;
    let events = format::parse(&text).map_err(|e| Unusable(format!("{shown}: {e}")))?;
    if events.is_empty() {
        return Err(Unusable(format!("{shown}: holds no event")).into());
    }
    let chosen: Vec<(usize, &Recorded)> = match args.event {
        None => events.iter().enumerate().map(|(i, e)| (i + 1, e)).collect(),
        Some(n) if (1..=events.len()).contains(&n) => vec![(n, &events[n - 1])],
        Some(n) => {
            return Err(Unusable(format!(
                "--event {n}: {shown} holds events 1 to {}",
                events.len()
            ))
            .into());
        }
    };
    // Refuse a bad store before anything runs.
    let mut stores = Vec::new();
    for (n, rec) in &chosen {
        stores.push(loaded_store(rec).map_err(|e| Unusable(format!("{shown}: event {n}: {e}")))?);
    }
    let charm_path = charm_dir(args, &events[0])?;
    let charm = CharmDir::load(&charm_path).map_err(|e| Unusable(e.to_string()))?;
    let sandbox = Sandbox::new(&charm)?;
    let mut all_same = true;
    for ((n, rec), store) in chosen.into_iter().zip(stores) {
        let name = rec.event.as_deref().unwrap_or_else(|| {
            rec.env
                .get("JUJU_DISPATCH_PATH")
                .map_or("(no event)", String::as_str)
        });
        let differences = replay_one(&sandbox, rec, store);
        if differences.is_empty() {
            println!("event {n} ({name}): same");
        } else {
            all_same = false;
            println!(
                "event {n} ({name}): {} difference{}",
                differences.len(),
                if differences.len() == 1 { "" } else { "s" }
            );
            for d in differences {
                println!("  {}:", d.what);
                for line in d.lines {
                    println!("    {line}");
                }
            }
        }
    }
    Ok(all_same)
}

/// The store an event loaded, as the replay's backend will give it.
pub fn loaded_store(rec: &Recorded) -> Result<Option<Result<ScopeStore, String>>, String> {
    if rec.backend == Backend::Juju {
        return Ok(None);
    }
    if let Some(why) = &rec.store_error {
        return Ok(Some(Err(why.clone())));
    }
    match &rec.store {
        None => Err("field `store`: missing for a local store".to_string()),
        Some(value) => serde_json::from_value(value.clone())
            .map(|s| Some(Ok(s)))
            .map_err(|e| format!("field `store`: {e}")),
    }
}

/// The charm to replay with: `--charm`, else the charm directory holding
/// the recording, else the one the first event ran in.
fn charm_dir(args: &ReplayArgs, first: &Recorded) -> anyhow::Result<PathBuf> {
    if let Some(charm) = &args.charm {
        return Ok(charm.clone());
    }
    let holding = std::path::absolute(&args.recording)
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.to_path_buf()))
        .filter(|p| p.join("metadata.yaml").is_file());
    if let Some(dir) = holding {
        return Ok(dir);
    }
    match first.env.get("JUJU_CHARM_DIR") {
        Some(dir) if Path::new(dir).is_dir() => Ok(PathBuf::from(dir)),
        _ => Err(Unusable(format!(
            "{}: no charm directory holds it and its JUJU_CHARM_DIR is gone; name one with --charm",
            args.recording.display()
        ))
        .into()),
    }
}

/// Where replayed events run: a copy of the component and its compiled
/// artifacts, and an empty workload root, removed on drop.
struct Sandbox {
    _dir: tempfile::TempDir,
    charm: CharmDir,
    root: WorkloadRoot,
}

impl Sandbox {
    fn new(charm: &CharmDir) -> anyhow::Result<Sandbox> {
        let dir = tempfile::Builder::new()
            .prefix("wasm-charm-replay-")
            .tempdir()
            .context("cannot create a temporary directory")?;
        let copy = dir.path().join("charm");
        let component = charm.component_path();
        let target = copy.join(&charm.manifest.component);
        std::fs::create_dir_all(crate::atomic_file::parent(&target))?;
        std::fs::copy(&component, &target)
            .map_err(|e| Unusable(format!("{}: cannot read it: {e}", component.display())))?;
        // The compiled artifacts, so that a replay does not compile again;
        // not the recording (it may be large) nor the store (never read).
        copy_state(&charm.path.join(STATE_DIR), &copy.join(STATE_DIR))?;
        let root = dir.path().join("root");
        std::fs::create_dir(&root)?;
        let root = WorkloadRoot::new(root).map_err(anyhow::Error::msg)?;
        for grant in &charm.manifest.workload.files {
            if let Some(path) = root.host_path(&grant.path) {
                std::fs::create_dir_all(path)?;
            }
        }
        let mut charm = charm.clone();
        charm.path = copy;
        Ok(Sandbox {
            _dir: dir,
            charm,
            root,
        })
    }
}

/// Copy the host's directory `from` to `to`, but for the recording and the
/// store; nothing when it does not exist.
fn copy_state(from: &Path, to: &Path) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    std::fs::create_dir_all(to)?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if name == crate::record::FILE_NAME
            || name.to_string_lossy().starts_with("scopes")
            || name.to_string_lossy().starts_with("recording")
        {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_state(&entry.path(), &to.join(&name))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

/// Run one recorded event again and compare.
fn replay_one(
    sandbox: &Sandbox,
    rec: &Recorded,
    store: Option<Result<ScopeStore, String>>,
) -> Vec<Difference> {
    let env = JujuEnv::from_vars(rec.env.clone());
    let tools = Arc::new(answers::Tools::new(rec.calls.clone()));
    let machine = Arc::new(answers::OnMachine::new(rec.workload.clone()));
    let probes = Arc::new(answers::Probes::new(rec.probes.clone()));
    let prober = Prober {
        env: ProbeEnv {
            root: sandbox.root.clone(),
            ..ProbeEnv::default()
        },
        clock: Arc::new(answers::Replayed::new(rec.clock.clone(), rec.time)),
        tap: Some(probes.clone()),
        ..Prober::default()
    };
    let shared: Arc<dyn HookTools> = tools.clone();
    let mut backend: Box<dyn ScopeBackend> = match store {
        Some(store) => Box::new(answers::Memory(store)),
        None => Box::new(JujuStore::new(shared.clone())),
    };
    let result = dispatch::run_event(
        &sandbox.charm,
        &env,
        dispatch::OnMachine {
            root: &sandbox.root,
            machine: machine.clone(),
            state_dir: &sandbox.charm.path.join(STATE_DIR),
        },
        shared,
        backend.as_mut(),
        &prober,
        EventTime::model(rec.time),
    );
    // A message naming the charm directory names the replay's copy of it.
    let unit_dir = rec.env.get("JUJU_CHARM_DIR").map_or("", String::as_str);
    let outcome = Outcome::of(&result).relocated(&sandbox.charm.path.to_string_lossy(), unit_dir);
    let (calls, mut notes) = tools.made();
    notes.extend(machine.notes());
    notes.extend(probes.notes());
    compare::compare(rec, &calls, &outcome, &notes)
}
