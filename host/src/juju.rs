//! Juju mode: the process Juju runs as `dispatch`, once per event.
//! Exit 0 when the hook succeeded (or names a hook the charm does not know),
//! 1 when it failed, so Juju marks it failed and retries.

use crate::charm_dir::CharmDir;
use crate::dispatch;
use crate::event_time::EventTime;
use crate::hook_tools::ahead::ReadsAhead;
use crate::hook_tools::plan::{self, Plans};
use crate::hook_tools::{HookTools, ProcessTools};
use crate::juju_env::JujuEnv;
use crate::record::Recorder;
use crate::show::Report;
use crate::status::backend::ScopeBackend;
use crate::status::store_choice::{self, Backend};
use crate::status::store_file::{STATE_DIR, StoreFile};
use crate::status::store_juju::JujuStore;
use crate::workload::Machine;
use crate::workload_root::{ROOT_VAR, WorkloadRoot};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Process-wide settings of a host process, whichever binary it is: call
/// first thing in `main`, before any thread exists.
pub fn prepare_process() {
    // WASI's runtime would otherwise start one worker per core the first
    // time a guest prints.
    // SAFETY: single-threaded here; nothing reads the environment concurrently.
    unsafe { std::env::set_var("TOKIO_WORKER_THREADS", "1") };
    // Handlers run on threads of their own (the deadline needs it); glibc
    // would give each its own malloc arena, adding about a MiB of resident
    // memory per event for nothing: one arena serves a sequential host.
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter; no allocation is live
    // in another thread yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

pub fn main() -> ExitCode {
    // The process ends with this one event.
    crate::runtime::keep_loaded_until_exit();
    match run() {
        Ok(report) if report.failures.is_empty() => ExitCode::SUCCESS,
        Ok(report) => {
            for f in &report.failures {
                eprintln!("wasm-charm: {f}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("wasm-charm: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<Report> {
    let mut env = JujuEnv::from_process();
    if env.get("JUJU_DISPATCH_PATH").is_none() {
        // Juju before 2.8 ran `hooks/<name>` links to the charm's program.
        if let Some(argv0) = std::env::args().next()
            && crate::event::parse_dispatch_path(&argv0).is_ok()
        {
            env.set("JUJU_DISPATCH_PATH", argv0);
        }
    }
    env.dispatch_path()?;
    env.unit_name()?;
    // Not Juju's: tests move the declared directories under a directory of
    // their own (DESIGN §12).
    let root = WorkloadRoot::from_var(std::env::var_os(ROOT_VAR).as_deref())?;
    let charm_dir = match env.get("JUJU_CHARM_DIR") {
        Some(d) => PathBuf::from(d),
        // Juju runs dispatch in the charm directory.
        None => std::env::current_dir()?,
    };
    let cache_dir = charm_dir
        .join(STATE_DIR)
        .join(crate::runtime::cache::CACHE_DIR);
    // The reads this hook made last time start first, to overlap the
    // loading below (crate::hook_tools::ahead).
    let hook = env
        .get("JUJU_DISPATCH_PATH")
        .unwrap_or_default()
        .to_string();
    let plans_file = cache_dir.join(plan::PLANS_FILE);
    let mut plans = read_plans(&plans_file);
    let ahead = Arc::new(ReadsAhead::start(
        Arc::new(ProcessTools),
        plans.reads(&hook, |name| env.get(name)),
    ));
    let result = run_with(&env, &root, &charm_dir, &cache_dir, ahead.clone());
    let made = ahead.finish();
    // A cache: a plan that cannot be written is only a slower next event.
    if result.is_ok() && plans.learn(&hook, &made, |name| env.get(name)) {
        let _ = crate::atomic_file::write_making_dir(&plans_file, &plans.encode());
    }
    result
}

/// The plans of reads ahead kept in `path`; none when it cannot be read.
fn read_plans(path: &Path) -> Plans {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    match std::fs::File::open(path) {
        Ok(f) => match f.take(plan::MAX_PLANS_BYTES + 1).read_to_end(&mut bytes) {
            Ok(n) if n as u64 <= plan::MAX_PLANS_BYTES => Plans::decode(&bytes),
            _ => Plans::default(),
        },
        Err(_) => Plans::default(),
    }
}

/// The event, once the hook's environment and directories are known,
/// on `process_tools`.
fn run_with(
    env: &JujuEnv,
    root: &WorkloadRoot,
    charm_dir: &Path,
    cache_dir: &Path,
    process_tools: Arc<ReadsAhead>,
) -> anyhow::Result<Report> {
    let parsed = cache_dir.join(crate::charm_dir::PARSED_FILE);
    let charm = CharmDir::load_cached(charm_dir, &parsed)?;
    let process_tools: Arc<dyn HookTools> = process_tools;
    let mut tools = process_tools.clone();
    // Declared commands run in `/`, or the root that stands for it.
    let mut machine: Arc<dyn Machine> = Arc::new(crate::workload::SystemMachine {
        command_dir: root.path().to_path_buf(),
        ..Default::default()
    });
    let mut prober = crate::probe::Prober {
        env: crate::probe::ProbeEnv {
            root: root.clone(),
            ..Default::default()
        },
        ..Default::default()
    };
    let choice = store_choice::choose(charm.manifest.store, env);
    // The offline model's clock when it runs this dispatch; the machine's
    // on a unit.
    let time = EventTime::from_process().unwrap_or_else(|why| {
        warn(&process_tools, &why);
        EventTime::Machine
    });
    if time.is_model() {
        prober.clock = Arc::new(crate::probe::clock::EventClock(time));
    }
    let now = time.secs();
    // Recording (crate::record) decorates what answers the event; off, the
    // event runs on the plain ones.
    let recorder = recorder(&charm, env, choice, now, &process_tools);
    if let Some(r) = &recorder {
        tools = r.tools(tools);
        machine = r.machine(machine);
        r.probes(&mut prober);
    }
    // The juju backend is built only when chosen: a local event runs as it
    // always did.
    let mut backend: Box<dyn ScopeBackend> = match choice {
        Backend::Local => Box::new(StoreFile::lock(charm_dir)?),
        Backend::Juju => Box::new(JujuStore::new(tools.clone())),
    };
    if let Some(r) = &recorder {
        backend = r.backend(backend);
    }
    let result = dispatch::run_event(
        &charm,
        env,
        dispatch::OnMachine {
            root,
            machine,
            state_dir: &charm_dir.join(STATE_DIR),
        },
        tools,
        backend.as_mut(),
        &prober,
        time,
    );
    if let Some(r) = recorder
        && let Err(why) = r.finish(&result)
    {
        warn(
            &process_tools,
            &format!("recording the event failed: {why}"),
        );
    }
    result
}

/// The event's recorder, when the manifest or WASM_CHARM_RECORD asks for
/// one; a variable that cannot be read is a warning, and no recording.
fn recorder(
    charm: &CharmDir,
    env: &JujuEnv,
    choice: Backend,
    now: u64,
    tools: &Arc<dyn HookTools>,
) -> Option<Recorder> {
    let var = std::env::var_os(crate::record::RECORD_VAR);
    if charm.manifest.record.is_none() && var.is_none() {
        return None;
    }
    match crate::record::settings(charm.manifest.record, var.as_deref()) {
        Ok(bounds) => bounds.map(|bounds| {
            let backend = match choice {
                Backend::Local => crate::record::format::Backend::Local,
                Backend::Juju => crate::record::format::Backend::Juju,
            };
            Recorder::start(&charm.path, env, backend, bounds, now)
        }),
        Err(why) => {
            warn(tools, &why);
            None
        }
    }
}

/// A warning in the unit's log, outside any event's calls.
fn warn(tools: &Arc<dyn HookTools>, message: &str) {
    let mut model = crate::model::Model::new(tools.clone(), Default::default(), Default::default());
    model.log(crate::bindings::model::LogLevel::Warning, message);
}

/// Seconds since the Unix epoch, for the scope history.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
