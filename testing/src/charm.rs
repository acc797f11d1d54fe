//! A charm under test: packed once per test process, then run event by
//! event through the host's `offline::execute`.

use crate::error::Error;
use crate::event::Event;
use crate::outcome::{Handler, Outcome};
use crate::state::State;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use wasm_charm_host::charm_dir::{CharmDir, StoreChoice};
use wasm_charm_host::offline::sim::LastEvent;
use wasm_charm_host::offline::state_file::StateFile;
use wasm_charm_host::offline::{self, KeyValue, UsageError};
use wasm_charm_host::probe::{self, ProbeSpec};
use wasm_charm_host::status::store::Target;

/// A packed charm: its directory, as `wasm-charm pack` assembles it.
///
/// ```no_run
/// use wasm_charm_testing::{Charm, Event, State, Status};
///
/// let charm = Charm::build(env!("CARGO_MANIFEST_DIR"));
/// let out = charm.run(&State::new().leader(false), Event::install());
/// assert_eq!(out.scope("handler/leader"), Some(Status::waiting("Waiting for leadership")), "{out}");
/// ```
#[derive(Debug, Clone)]
pub struct Charm {
    dir: PathBuf,
    name: String,
    juju_store: bool,
    /// The declared probes: which gate is the manifest's until a handler
    /// chooses.
    probes: BTreeMap<String, ProbeSpec>,
}

/// The charm directories packed by this process, by project directory: a
/// failed pack is remembered too, so every test shows its error without
/// building again.
type Packed = HashMap<PathBuf, Result<PathBuf, String>>;

fn packed() -> &'static Mutex<Packed> {
    static PACKED: OnceLock<Mutex<Packed>> = OnceLock::new();
    PACKED.get_or_init(Default::default)
}

impl Charm {
    /// Pack the charm project at `project` (a Cargo package with a
    /// metadata.yaml: `env!("CARGO_MANIFEST_DIR")` in the project's own
    /// tests) with the host's `pack`, once per test process.
    ///
    /// The component is built for wasm32-wasip2 in
    /// `<target dir>/wasm-guests` (`$CARGO_TARGET_DIR`, else the workspace's
    /// `target`): the `cargo test` that runs this holds its own target
    /// directory. The charm directory goes to
    /// `<target dir>/wasm-charm-testing/<pid>/<name>`, without `dispatch`
    /// (events run in the test process); those of test processes that
    /// ended are removed.
    ///
    /// # Panics
    /// When the project cannot be packed, with the reason (cargo's own
    /// output is printed on stderr as it builds).
    #[track_caller]
    pub fn build(project: impl AsRef<Path>) -> Charm {
        Charm::try_build(project).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::build`], returning the error.
    pub fn try_build(project: impl AsRef<Path>) -> Result<Charm, Error> {
        let project = project.as_ref();
        let project = project.canonicalize().map_err(|e| {
            Error::Build(format!(
                "{}: cannot find the project: {e}",
                project.display()
            ))
        })?;
        let mut packed = packed().lock().unwrap_or_else(|p| p.into_inner());
        let dir = match packed.get(&project) {
            Some(done) => done.clone(),
            None => {
                let done = pack(&project).map_err(|e| {
                    format!("cannot pack the charm project {}: {e}", project.display())
                });
                packed.insert(project.clone(), done.clone());
                done
            }
        };
        drop(packed);
        Charm::try_load(dir.map_err(Error::Build)?)
    }

    /// A charm directory packed already (`wasm-charm pack … --out DIR`).
    #[track_caller]
    pub fn load(dir: impl AsRef<Path>) -> Charm {
        Charm::try_load(dir).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::load`], returning the error.
    pub fn try_load(dir: impl AsRef<Path>) -> Result<Charm, Error> {
        let dir = dir.as_ref();
        let charm = CharmDir::load(dir)
            .map_err(|e| Error::Build(format!("{}: not a charm directory: {e}", dir.display())))?;
        Ok(Charm {
            dir: dir.to_path_buf(),
            name: charm.metadata.name.clone(),
            juju_store: charm.manifest.store == StoreChoice::Juju,
            probes: charm.manifest.probes.clone(),
        })
    }

    /// The charm directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The charm's name (metadata.yaml).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Run `event` from `state`, as `wasm-charm run` does: the same merge,
    /// sandbox and limits, the hook tools and workload calls answered from
    /// the state by the simulated Juju and machine, in a fresh temporary
    /// state file and workload root. A hook that fails is an [`Outcome`]
    /// too ([`Outcome::failed`]).
    ///
    /// # Panics
    /// When `wasm-charm run` would refuse the run (exit 2): an event the
    /// charm cannot receive, a flag or parameter that does not fit it, a
    /// state naming what the charm does not declare. The message says why.
    #[track_caller]
    pub fn run(&self, state: &State, event: impl Into<Event>) -> Outcome {
        self.try_run(state, event).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::run`], returning the refusal as [`Error::Usage`].
    pub fn try_run(&self, state: &State, event: impl Into<Event>) -> Result<Outcome, Error> {
        let event = event.into();
        let at = |what: String| format!("charm {}, event {}: {what}", self.name, event.name());
        let io = |e: std::io::Error| Error::Io(at(e.to_string()));
        let dir = tempfile::Builder::new()
            .prefix("wasm-charm-testing-")
            .tempdir()
            .map_err(io)?;
        // Stands for a state file in messages; nothing is written there.
        let origin = dir.path().join("state.yaml");
        let root = dir.path().join("root");
        std::fs::create_dir(&root).map_err(io)?;
        state.write_files(&root)?;
        let mut args = event.run_args();
        args.charm = self.dir.clone();
        args.root = Some(root.clone());
        args.config = state
            .config
            .iter()
            .map(|(k, v)| KeyValue::new(k, v))
            .collect();
        let charm = match CharmDir::load(&self.dir) {
            Ok(charm) => charm,
            Err(e) => return Ok(self.failed_early(&event, state, format!("{e:#}"))),
        };
        // In memory: the state is handed over whole (every section of the
        // host's state, those added after this harness too) and the next
        // one comes back as the simulator left it.
        match offline::execute_state(&args, charm, state.file_for(self.juju_store), &origin) {
            Ok(run) => {
                let next = State {
                    file: StateFile {
                        sim: run.state.clone(),
                        machine: run.machine.clone(),
                    },
                    config: Vec::new(),
                    files: crate::files::collect(&root)?,
                };
                Ok(self.outcome(&event, run, next))
            }
            Err(e) if e.downcast_ref::<UsageError>().is_some() => {
                Err(Error::Usage(at(format!("{e:#}"))))
            }
            // The hook failed before any handler ran: the state is
            // unchanged, and the operator's config waits for the next run.
            Err(e) => Ok(self.failed_early(&event, state, format!("{e:#}"))),
        }
    }

    /// The outcome of an event that ran, with the state as saved.
    fn outcome(&self, event: &Event, run: offline::Executed, next: State) -> Outcome {
        Outcome {
            charm: self.name.clone(),
            event: event.name().to_string(),
            failed: run.failed,
            error: None,
            ignored: run.report.ignored.clone(),
            handlers: run
                .report
                .handlers
                .iter()
                .map(|(n, r)| (n.clone(), Handler::from_result(r)))
                .collect(),
            failures: run.report.failures.clone(),
            unit_written: run.report.wrote.contains(&Target::Unit),
            app_written: run.report.wrote.contains(&Target::App),
            gates: probe::gates(&self.probes, &run.report.store.probes),
            store: run.report.store,
            next,
        }
    }

    /// The outcome of a hook that failed before any handler ran: the state
    /// as it was, less what the last event left (log, calls, results).
    fn failed_early(&self, event: &Event, state: &State, error: String) -> Outcome {
        let mut next = state.clone();
        let sim = &mut next.file.sim;
        sim.last_event = LastEvent {
            action_params: std::mem::take(&mut sim.last_event.action_params),
            ..LastEvent::default()
        };
        next.file.machine.calls.clear();
        let store = state.clone().store_mut().clone();
        Outcome {
            charm: self.name.clone(),
            event: event.name().to_string(),
            failed: true,
            error: Some(error),
            ignored: None,
            handlers: Vec::new(),
            failures: Vec::new(),
            unit_written: false,
            app_written: false,
            gates: probe::gates(&self.probes, &store.probes),
            store,
            next,
        }
    }
}

/// Pack `project` under its target directory; the charm directory.
fn pack(project: &Path) -> Result<PathBuf, String> {
    let target = target_dir(project)?;
    let name = project
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "charm".to_string());
    let charms = target.join("wasm-charm-testing");
    remove_ended(&charms);
    let mine = charms.join(std::process::id().to_string());
    // Two projects of one name in one process get their own directories.
    let mut out = mine.join(&name);
    let mut n = 1;
    while out.exists() {
        n += 1;
        out = mine.join(format!("{name}-{n}"));
    }
    let guests = target.join("wasm-guests");
    // Events run in this process, whose engine precompiles the component:
    // no `dispatch` and no `.charm` are made.
    wasm_charm_host::pack::charm_dir_in(project, &out, Some(&guests))
        .map_err(|e| format!("{e:#} (cargo's output, if it ran, is above on stderr)"))
}

/// Where cargo builds for `project`: `$CARGO_TARGET_DIR`, else its
/// workspace's `target`.
fn target_dir(project: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return std::path::absolute(PathBuf::from(&dir))
            .map_err(|e| format!("CARGO_TARGET_DIR `{}`: {e}", dir.to_string_lossy()));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(&cargo)
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `cargo locate-project`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo locate-project --workspace` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    workspace_target(&String::from_utf8_lossy(&out.stdout))
}

/// `<workspace>/target` from `cargo locate-project`'s plain output.
fn workspace_target(located: &str) -> Result<PathBuf, String> {
    let manifest = Path::new(located.trim());
    match manifest.parent() {
        Some(root) if manifest.is_absolute() => Ok(root.join("target")),
        _ => Err(format!(
            "`cargo locate-project --workspace` said {located:?}, not a Cargo.toml's path"
        )),
    }
}

/// Remove the charm directories of test processes that ended: those whose
/// `<pid>` is no running process.
fn remove_ended(charms: &Path) {
    let Ok(entries) = std::fs::read_dir(charms) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            // Another process may be removing it too: errors are harmless.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_target_is_beside_its_manifest() {
        assert_eq!(
            workspace_target("/src/ws/Cargo.toml\n"),
            Ok(PathBuf::from("/src/ws/target"))
        );
        assert!(workspace_target("").is_err());
        assert!(workspace_target("Cargo.toml").is_err());
    }

    #[test]
    fn ended_processes_lose_their_charms() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join(std::process::id().to_string());
        // Beyond any pid_max: never a running process.
        let ended = dir.path().join("4294967");
        let other = dir.path().join("not-a-pid");
        for d in [&mine, &ended, &other] {
            std::fs::create_dir_all(d.join("charm")).unwrap();
        }
        remove_ended(dir.path());
        assert!(mine.exists() && other.exists());
        assert!(!ended.exists());
    }

    #[test]
    fn a_missing_project_or_charm_is_named() {
        let e = Charm::try_build("/nonexistent/project").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/project"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = Charm::try_load(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("not a charm directory") && e.contains("metadata.yaml"),
            "{e}"
        );
    }
}
