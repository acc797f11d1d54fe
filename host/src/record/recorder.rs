//! Recording one event in Juju mode: decorators around what answers the
//! event's calls (hook tools, the machine, the probes and their clock, the
//! store), each adding what it saw to one [`Recorded`], and the file it is
//! then added to.
//!
//! Built only when recording is on: with it off, `dispatch` runs on the
//! undecorated tools, machine and prober, and pays nothing.

use super::FILE_NAME;
use super::format::{
    self, Backend, ProbeRun, Recorded, ToolAnswer, ToolCall, WorkloadAnswer, WorkloadCall,
    call_words,
};
use crate::bindings::workload::{CommandOutput, ServiceAction, ServiceStatus, WorkloadError};
use crate::charm_dir::recording::Bounds;
use crate::hook_tools::{HookTools, ToolOutput};
use crate::juju_env::JujuEnv;
use crate::probe::{Clock, Outcome as ProbeOutcome, ProbeTap, Prober};
use crate::show::Report;
use crate::status::backend::ScopeBackend;
use crate::status::store::ScopeStore;
use crate::status::store_file::STATE_DIR;
use crate::workload::Machine;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

/// The event being recorded, shared by the decorators.
type Shared = Arc<Mutex<Recorded>>;

fn lock(shared: &Shared) -> MutexGuard<'_, Recorded> {
    // A handler thread that panicked mid-call leaves a usable record.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// One event's recording, from the start of the event to its file.
pub struct Recorder {
    shared: Shared,
    bounds: Bounds,
    path: PathBuf,
}

/// Where the recording of the charm at `charm_dir` is.
pub fn path(charm_dir: &Path) -> PathBuf {
    charm_dir.join(STATE_DIR).join(FILE_NAME)
}

impl Recorder {
    /// Start recording an event of the charm at `charm_dir`, run with `env`
    /// at `now` (seconds since the epoch), its store kept by `backend`.
    pub fn start(
        charm_dir: &Path,
        env: &JujuEnv,
        backend: Backend,
        bounds: Bounds,
        now: u64,
    ) -> Recorder {
        Recorder {
            shared: Arc::new(Mutex::new(Recorded {
                time: now,
                env: env.vars().clone(),
                backend,
                ..Recorded::empty()
            })),
            bounds,
            path: path(charm_dir),
        }
    }

    /// `inner`, every call recorded with its answer.
    pub fn tools(&self, inner: Arc<dyn HookTools>) -> Arc<dyn HookTools> {
        Arc::new(Tools {
            inner,
            shared: self.shared.clone(),
        })
    }

    /// `inner`, every workload call recorded with its result.
    pub fn machine(&self, inner: Arc<dyn Machine>) -> Arc<dyn Machine> {
        Arc::new(OnMachine {
            inner,
            shared: self.shared.clone(),
        })
    }

    /// `prober`, with every probe result and every reading of its clock
    /// recorded.
    pub fn probes(&self, prober: &mut Prober) {
        prober.clock = Arc::new(Timed {
            inner: prober.clock.clone(),
            shared: self.shared.clone(),
        });
        prober.tap = Some(Arc::new(Probed(self.shared.clone())));
    }

    /// `inner`, the store it loads recorded (the local one: the juju
    /// store's reads are tool calls, recorded with them).
    pub fn backend<'a>(&self, inner: Box<dyn ScopeBackend + 'a>) -> Box<dyn ScopeBackend + 'a> {
        Box::new(Stored {
            inner,
            shared: self.shared.clone(),
        })
    }

    /// The event ended with `result`: add its record to the file, within
    /// the bounds. `Err` says why it could not be (for a warning; the
    /// event's outcome stands).
    pub fn finish(self, result: &anyhow::Result<Report>) -> Result<(), String> {
        let rec = {
            let mut rec = lock(&self.shared);
            rec.outcome = format::Outcome::of(result);
            rec.event = result.as_ref().ok().and_then(|r| r.event.clone());
            std::mem::replace(&mut *rec, format::Recorded::empty())
        };
        let shown = self.path.display();
        let dir = crate::atomic_file::parent(&self.path);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let old = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            // Not replaced: it may be an operator's file, or readable later.
            Err(e) => return Err(format!("{shown}: cannot read it: {e}")),
        };
        let text =
            format::append_event(&old, rec, self.bounds).map_err(|e| format!("{shown}: {e}"))?;
        // The temporary file is created 0600 and renamed over the old one;
        // set again in case an umask-free tool made the old one wider.
        crate::atomic_file::write(&self.path, text.as_bytes())
            .map_err(|e| format!("{shown}: cannot write it: {e}"))?;
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("{shown}: cannot make it private: {e}"))
    }
}

struct Tools {
    inner: Arc<dyn HookTools>,
    shared: Shared,
}

impl HookTools for Tools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let result = self.inner.call(tool, args, stdin, deadline);
        let call = ToolCall::new(tool, args, stdin, ToolAnswer::of(&result));
        lock(&self.shared).calls.push(call);
        result
    }
}

struct OnMachine {
    inner: Arc<dyn Machine>,
    shared: Shared,
}

impl OnMachine {
    fn note(&self, call: Vec<String>, answer: WorkloadAnswer) {
        lock(&self.shared)
            .workload
            .push(WorkloadCall { call, answer });
    }
}

impl Machine for OnMachine {
    fn service(
        &self,
        unit: &str,
        action: ServiceAction,
        deadline: Instant,
    ) -> Result<(), WorkloadError> {
        let r = self.inner.service(unit, action, deadline);
        self.note(
            call_words::service(unit, action),
            WorkloadAnswer::of_unit(&r),
        );
        r
    }

    fn service_state(&self, unit: &str, deadline: Instant) -> Result<ServiceStatus, WorkloadError> {
        let r = self.inner.service_state(unit, deadline);
        self.note(
            call_words::service_state(unit),
            WorkloadAnswer::of_state(&r),
        );
        r
    }

    fn run_command(
        &self,
        name: &str,
        argv: &[String],
        until: Instant,
    ) -> Result<CommandOutput, WorkloadError> {
        let r = self.inner.run_command(name, argv, until);
        let call = call_words::run_command(name, argv);
        self.note(call, WorkloadAnswer::of_output(&r));
        r
    }

    fn package_installed(&self, package: &str, deadline: Instant) -> Result<bool, WorkloadError> {
        let r = self.inner.package_installed(package, deadline);
        self.note(
            call_words::package_installed(package),
            WorkloadAnswer::of_installed(&r),
        );
        r
    }

    fn install_packages(
        &self,
        packages: &[String],
        deadline: Instant,
    ) -> Result<(), WorkloadError> {
        let r = self.inner.install_packages(packages, deadline);
        let call = call_words::install_packages(packages);
        self.note(call, WorkloadAnswer::of_unit(&r));
        r
    }
}

struct Probed(Shared);

impl ProbeTap for Probed {
    fn seen(&self, name: &str, outcome: &ProbeOutcome) {
        lock(&self.0).probes.push(ProbeRun::new(name, outcome));
    }
}

struct Timed {
    inner: Arc<dyn Clock>,
    shared: Shared,
}

/// Milliseconds since the epoch (0 before it).
pub fn millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Clock for Timed {
    fn now(&self) -> SystemTime {
        let now = self.inner.now();
        lock(&self.shared).clock.push(millis(now));
        now
    }

    fn sleep(&self, d: Duration) {
        self.inner.sleep(d)
    }
}

struct Stored<'a> {
    inner: Box<dyn ScopeBackend + 'a>,
    shared: Shared,
}

impl ScopeBackend for Stored<'_> {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        let loaded = self.inner.load();
        // A juju store is kept too: its keys then leave the charm-state
        // calls (`format::state_once`), and it is recorded once.
        let mut rec = lock(&self.shared);
        match &loaded {
            Ok(store) => rec.store = serde_json::to_value(store).ok(),
            Err(e) => rec.store_error = Some(format!("{e:#}")),
        }
        loaded
    }

    fn check(&mut self, planned: &dyn Fn() -> ScopeStore) -> anyhow::Result<()> {
        self.inner.check(planned)
    }

    fn save(&mut self, edit: &crate::status::store_edit::StoreEdit) -> anyhow::Result<()> {
        self.inner.save(edit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook_tools::table::ToolTable;

    fn recorder(dir: &Path, events: usize) -> Recorder {
        let env = JujuEnv::from_vars([("JUJU_UNIT_NAME", "a/0"), ("PATH", "/bin")]);
        Recorder::start(
            dir,
            &env,
            Backend::Local,
            Bounds {
                events,
                bytes: 1 << 20,
            },
            42,
        )
    }

    #[test]
    fn calls_are_recorded_and_the_file_is_private_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..3 {
            let rec = recorder(dir.path(), 2);
            let (table, _) = ToolTable::new(&[("is-leader", ToolOutput::ok("true"))]);
            let tools = rec.tools(Arc::new(table));
            let far = Instant::now() + Duration::from_secs(5);
            let leader = tools.call("is-leader", &["--format=json"], None, far);
            assert_eq!(leader.unwrap().stdout, b"true");
            let missing = tools.call("goal-state", &[], Some(b"in"), far).unwrap();
            assert_eq!(missing.code, 1);
            let report = Report {
                event: Some(format!("event {n}")),
                ..Report::default()
            };
            rec.finish(&Ok(report)).unwrap();
        }
        let file = path(dir.path());
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let events = format::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let names: Vec<_> = events.iter().filter_map(|e| e.event.as_deref()).collect();
        assert_eq!(names, ["event 1", "event 2"], "the oldest dropped");
        let e = &events[1];
        assert_eq!(e.time, 42);
        assert_eq!(e.env.keys().collect::<Vec<_>>(), ["JUJU_UNIT_NAME"]);
        assert_eq!(e.calls.len(), 2);
        assert_eq!(e.calls[0].argv, ["is-leader", "--format=json"]);
        assert_eq!(e.calls[1].stdin.as_deref(), Some("in"));
        assert!(
            matches!(&e.calls[1].answer, ToolAnswer::Exited { code: 1, stderr, .. } if stderr.starts_with("ERROR"))
        );
    }

    #[test]
    fn a_recording_that_cannot_be_written_says_why() {
        let dir = tempfile::tempdir().unwrap();
        // The host's directory is a file: nothing can go under it.
        std::fs::write(dir.path().join(STATE_DIR), "").unwrap();
        let e = recorder(dir.path(), 2)
            .finish(&Err(anyhow::anyhow!("boom")))
            .unwrap_err();
        assert!(e.contains(".wasm-charm"), "{e}");
    }
}
