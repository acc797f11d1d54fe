//! Test support for the integration tests: run the `wasm-charm` host the way
//! Juju runs it, against simulated hook tools.
//!
//! A [`Unit`] is one simulated Juju unit in a temporary directory: a copy of a
//! packed charm or of any other charm directory, such as the `ops` peer's, a
//! tools directory put first on `PATH`, its state, its call log and its debug
//! log. [`Unit::dispatch`] runs `<charm>/dispatch` with a cleared environment
//! holding exactly what Juju sets (juju-protocol.md §1.2–§1.4), the charm
//! directory as working directory and stdin closed.
//!
//! The tools are one of two simulated Jujus:
//!
//! * the Rust simulator of `wasm-charm run` ([`Unit::on_simulator`],
//!   [`Unit::with_charm_dir_on_simulator`]): `wasm-charm` linked under each
//!   tool's name, answering from a session file (`{"state": …}`, the state in
//!   `run`'s format), each hook ended by the simulator's own commit rule
//!   (`offline::end_hook`): kept when the process exited 0, dropped
//!   otherwise, and a commit Juju would refuse (the charm state past its
//!   quota) fails the hook with exit 1. Most test files run on it. Its
//!   units have the simulated machine too: `wasm-charm` linked as
//!   `systemctl`, `apt-get` and `dpkg-query`, answering from the session's
//!   `machine` (the state file's `machine:` section; [`Unit::machine`],
//!   [`Unit::update_machine`]), so that the host's workload calls reach it.
//! * the Python fake (`tests/fake-juju/fake_juju.py`; [`Unit::new`],
//!   [`Unit::with_charm_dir`]), kept as the differential check
//!   (`tests/sim_differential.rs`) and for the tests whose states use its own
//!   forms (see its README). It commits like Juju too (§1.6 of the protocol
//!   notes): `relation-set`, `state-set` and `state-delete` are held in the
//!   state's `pending` area, tagged with the hook's `JUJU_CONTEXT_ID`, and
//!   only the hook's own reads see them. Every dispatch run here ends its
//!   hook with [`Unit::end_hook`]: the pending writes are committed when the
//!   process exited 0 and dropped otherwise; when the commit itself fails the
//!   returned [`Output`] says exit 1. A test that runs the process itself
//!   ([`Unit::dispatch_command`]) ends the hook with [`Unit::end_hook`] and
//!   [`context_id`], or leaves the writes pending, where the next hook drops
//!   them (as Juju would for a hook that never finished). See
//!   `tests/fake-juju/README.md` for its state format.
//!
//! The integration tests (`tests/integration.rs`) and the soak each include
//! this as `mod support`; not every test uses every item.
#![allow(dead_code)]

pub mod faults;
pub mod hostile;
pub mod new_project;
pub mod other_users;
pub mod reserved_port;
pub mod sim_pebble;

use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The machine's tools linked to the simulator in a simulated unit's tools
/// directory (the simulated machine).
pub const MACHINE_TOOLS: &[&str] = &["systemctl", "apt-get", "dpkg-query"];

/// The tool names linked to the fake in every unit's tools directory.
pub const TOOLS: &[&str] = &[
    "status-set",
    "status-get",
    "juju-log",
    "config-get",
    "is-leader",
    "relation-ids",
    "relation-list",
    "relation-get",
    "relation-set",
    "application-version-set",
    "state-get",
    "state-set",
    "state-delete",
    "action-get",
    "action-set",
    "action-fail",
    "action-log",
    "open-port",
    "close-port",
    "opened-ports",
    "storage-list",
    "storage-get",
    "storage-add",
    "relation-model-get",
    "juju-reboot",
    "network-get",
    "goal-state",
    "credential-get",
    "resource-get",
    "secret-add",
    "secret-get",
    "secret-info-get",
    "secret-ids",
    "secret-set",
    "secret-grant",
    "secret-revoke",
    "secret-remove",
];

/// A dispatch that runs longer than this is killed and the test fails: a hung
/// host must not hang the test suite.
pub const DISPATCH_TIMEOUT: Duration = Duration::from_secs(300);

const MODEL_UUID: &str = "d1a3c0de-0000-4000-8000-00000000f00d";

/// The workspace root: the parent of the host package (`CARGO_MANIFEST_DIR`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("CARGO_MANIFEST_DIR has a parent")
        .to_path_buf()
}

/// `tests/fake-juju/fake_juju.py`, the script every fake tool links to.
pub fn fake_juju_script() -> PathBuf {
    workspace_root().join("tests/fake-juju/fake_juju.py")
}

/// Packs the charm project at `<workspace>/<project>` (e.g. `examples/gateway`)
/// once per test process and returns the packed charm directory. Tests
/// asking for different projects pack them at once; tests asking for the
/// same one wait for its single pack.
///
/// Runs `wasm-charm pack <project> --out <workspace>/target/test-charms/<name>-<pid>
/// --dispatch <the debug wasm-charm>` with
/// `CARGO_TARGET_DIR=<workspace>/target/wasm-guests`: the CLI is Juju's
/// dispatch too when run under that name, and needs no musl build
/// (tests/pack.rs tests the static dispatch `pack` ships by default). Panics with the
/// command's stderr if packing fails. Directories left by earlier test
/// processes that are no longer running are removed first.
pub fn packed(project: &str) -> PathBuf {
    type Slot = Arc<Mutex<Option<PathBuf>>>;
    static PACKED: OnceLock<Mutex<HashMap<String, Slot>>> = OnceLock::new();
    // A test that panicked while packing poisons the locks; the next one
    // simply tries again (and shows the same error).
    let slot = PACKED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .entry(project.to_string())
        .or_default()
        .clone();
    let mut packed = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(dir) = packed.as_ref() {
        return dir.clone();
    }
    let root = workspace_root();
    let project_dir = root.join(project);
    let name = project_dir
        .file_name()
        .unwrap_or_else(|| panic!("project path {project:?} has no final component"))
        .to_string_lossy()
        .into_owned();
    let charms = root.join("target/test-charms");
    fs::create_dir_all(&charms).unwrap_or_else(|e| panic!("create {}: {e}", charms.display()));
    remove_stale_packs(&charms, &name);
    let out = charms.join(format!("{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    if project_dir.join("src/charm.py").is_file() {
        setup_python();
    }

    let output = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("pack")
        .arg(&project_dir)
        .arg("--out")
        .arg(&out)
        .arg("--dispatch")
        .arg(env!("CARGO_BIN_EXE_wasm-charm"))
        .env("CARGO_TARGET_DIR", root.join("target/wasm-guests"))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run wasm-charm pack: {e}"));
    if !output.status.success() {
        panic!(
            "`wasm-charm pack {} --out {}` failed ({}):\n--- stderr\n{}\n--- stdout\n{}",
            project_dir.display(),
            out.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout),
        );
    }
    // `pack` prints `packed <dir>`; trust it if present, else the --out directory.
    let dir = String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("packed ").map(PathBuf::from))
        .unwrap_or(out);
    assert!(
        dir.join("dispatch").is_file(),
        "packed charm {} has no dispatch",
        dir.display()
    );
    link_dispatch(&dir);
    *packed = Some(dir.clone());
    dir
}

/// `scripts/setup-python` once per test process: the pinned componentize-py
/// that `.cargo/config.toml` points `pack` at, for the Python charms.
pub fn setup_python() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let script = workspace_root().join("scripts/setup-python");
        let out = Command::new(&script)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} failed ({}):\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// `pack` copied the debug host (over 100 MB) into `dir`; a test process
/// packs every charm it uses, so the copies came to gigabytes of the run's
/// disk. The same binary, linked in its place, is what the copy held. Where
/// no link can be made, the copy stays.
fn link_dispatch(dir: &Path) {
    let link = dir.join(".dispatch.link");
    let _ = fs::remove_file(&link);
    if fs::hard_link(env!("CARGO_BIN_EXE_wasm-charm"), &link).is_ok()
        && fs::rename(&link, dir.join("dispatch")).is_err()
    {
        let _ = fs::remove_file(&link);
    }
}

/// Removes `<charms>/<name>-<pid>` directories whose process is gone (Linux only).
fn remove_stale_packs(charms: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(charms) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// One simulated Juju unit: a copy of a packed charm, fake hook tools first on
/// `PATH`, and the fake's state, call log and debug log, all in a temporary
/// directory removed on drop.
pub struct Unit {
    /// The tools are the Rust simulator's (`wasm-charm` under each tool's
    /// name, over a session file) rather than the Python fake's.
    simulated: bool,
    /// On the simulator: the state and environment of the hook
    /// [`Unit::dispatch_command`] last built, for [`Unit::end_hook`].
    hook: Mutex<Option<SimulatedHook>>,
    dir: tempfile::TempDir,
    unit_name: String,
    charm: PathBuf,
    tools: PathBuf,
    state: PathBuf,
    calls: PathBuf,
    debug: PathBuf,
}

impl Unit {
    /// A unit named `unit_name` (e.g. `gateway/0`) running a copy of the
    /// packed charm directory `packed`. The fake's state starts as: not the
    /// leader, no config, no relations, no status.
    ///
    /// The copy is recursive; `dispatch` (the host binary) is hard-linked, or
    /// copied where linking fails. The unit's directory is created beside
    /// `packed`, so the hard link stays on one file system.
    ///
    /// With `WASM_CHARM_TEST_TOOLS=simulator` in the environment, the unit
    /// is [`Unit::on_simulator`]'s instead: a way to run any test file on
    /// the Rust simulator and see what it lacks.
    pub fn new(packed: &Path, unit_name: &str) -> Unit {
        let simulated = std::env::var_os("WASM_CHARM_TEST_TOOLS").is_some_and(|v| v == "simulator");
        Unit::create(packed, unit_name, simulated, |charm| {
            copy_charm(packed, charm)
        })
    }

    /// As [`Unit::new`], on the Rust simulator's hook tools instead of the
    /// Python fake's: `wasm-charm` linked under each tool's name, answering
    /// from a session file (`{"state": …}`, the state in `run`'s format,
    /// which for the keys the tests use is the fake's), each hook ended by
    /// the simulator's own commit rule (`offline::end_hook`). The state,
    /// the calls and the `juju-log` lines read as for the fake.
    pub fn on_simulator(packed: &Path, unit_name: &str) -> Unit {
        Unit::create(packed, unit_name, true, |charm| copy_charm(packed, charm))
    }

    /// [`Unit::on_simulator`] of the charm as a machine charm: its copy's
    /// metadata.yaml without `containers` (and the images they run), for
    /// the rules that hold on machines only.
    pub fn on_simulator_as_machine(packed: &Path, unit_name: &str) -> Unit {
        Unit::create(packed, unit_name, true, |charm| {
            copy_charm(packed, charm)?;
            without_containers(charm)
        })
    }

    /// A unit named `unit_name` running a fresh copy of any charm directory
    /// `charm_source` (not necessarily packed by wasm-charm: e.g. an `ops`
    /// charm, whose `dispatch` is a shell script). The fake's state starts as
    /// for [`Unit::new`].
    ///
    /// Everything is copied recursively (symlinks followed, modes kept),
    /// `dispatch` included, except the top-level entries named in `linked`,
    /// which become symlinks to the original (for a large read-only entry
    /// such as a virtualenv), and those named in `skipped`, which are left out
    /// (state a previous run left in the source, such as ops'
    /// `.unit-state.db`, so that every unit starts without it). The unit's
    /// directory is created beside `charm_source`.
    pub fn with_charm_dir(
        charm_source: &Path,
        unit_name: &str,
        linked: &[&str],
        skipped: &[&str],
    ) -> Unit {
        let simulated = std::env::var_os("WASM_CHARM_TEST_TOOLS").is_some_and(|v| v == "simulator");
        Unit::create(charm_source, unit_name, simulated, |charm| {
            copy_charm_dir(charm_source, charm, linked, skipped)
        })
    }

    /// As [`Unit::with_charm_dir`], on the Rust simulator's tools
    /// ([`Unit::on_simulator`]).
    pub fn with_charm_dir_on_simulator(
        charm_source: &Path,
        unit_name: &str,
        linked: &[&str],
        skipped: &[&str],
    ) -> Unit {
        Unit::create(charm_source, unit_name, true, |charm| {
            copy_charm_dir(charm_source, charm, linked, skipped)
        })
    }

    /// The unit's directory beside `source`, its charm directory filled by
    /// `fill`, its tools, and the initial state.
    fn create(
        source: &Path,
        unit_name: &str,
        simulated: bool,
        fill: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Unit {
        let parent = source.parent().unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix("unit-")
            .tempdir_in(parent)
            .or_else(|_| tempfile::tempdir())
            .expect("create the unit's temporary directory");
        let root = dir.path().to_path_buf();
        let charm = root.join("charm");
        fill(&charm)
            .unwrap_or_else(|e| panic!("copy {} to {}: {e}", source.display(), charm.display()));

        let tools = root.join("tools");
        fs::create_dir(&tools).expect("create tools dir");
        let script = tools_binary(simulated);
        assert!(script.is_file(), "missing {}", script.display());
        let machine: &[&str] = if simulated { MACHINE_TOOLS } else { &[] };
        for tool in TOOLS.iter().chain(machine) {
            std::os::unix::fs::symlink(&script, tools.join(tool))
                .unwrap_or_else(|e| panic!("link {tool}: {e}"));
        }

        let unit = Unit {
            simulated,
            hook: Mutex::new(None),
            dir,
            unit_name: unit_name.to_string(),
            charm,
            tools,
            state: root.join("state.json"),
            calls: root.join("calls.log"),
            debug: root.join("debug.log"),
        };
        unit.set_state(json!({
            "leader": false,
            "config": {},
            "relations": {},
            "status": {"unit": null, "app": null},
        }));
        fs::write(&unit.calls, "").expect("create calls.log");
        fs::write(&unit.debug, "").expect("create debug.log");
        unit
    }

    /// The unit's charm directory (Juju's `JUJU_CHARM_DIR`).
    pub fn charm_dir(&self) -> &Path {
        &self.charm
    }

    /// The unit's name, e.g. `gateway/0`.
    pub fn unit_name(&self) -> &str {
        &self.unit_name
    }

    /// The temporary directory holding `charm/`, `tools/` and the fake's files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Appends `text` to `file` of the charm directory (a probe section to
    /// `wasm-charm.yaml`, an action to `actions.yaml`).
    pub fn append_to(&self, file: &str, text: &str) {
        let path = self.charm_dir().join(file);
        let before = fs::read_to_string(&path).unwrap_or_default();
        fs::write(&path, before + text).unwrap_or_else(|e| panic!("write {file}: {e}"));
    }

    /// Replaces the fake hook tool `tool` of this unit by a shell script
    /// (to make it hang, or answer faster than the Python fake).
    pub fn replace_tool(&self, tool: &str, script: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.tools.join(tool);
        fs::remove_file(&path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
        fs::write(&path, script).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
    }

    /// Gives `tool` back to what answers the unit's other tools (the
    /// simulator or the fake), after [`Unit::replace_tool`].
    pub fn restore_tool(&self, tool: &str) {
        let path = self.tools.join(tool);
        fs::remove_file(&path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
        std::os::unix::fs::symlink(tools_binary(self.simulated), &path)
            .unwrap_or_else(|e| panic!("link {tool}: {e}"));
    }

    /// The fake's current state (see `tests/fake-juju/README.md`).
    ///
    /// On the simulator, the state without what the last events left
    /// (`calls`, `log`): those are [`Unit::calls`] and
    /// [`Unit::debug_log`], as the fake keeps them in files of their own.
    pub fn state(&self) -> Value {
        let mut file = self.state_file();
        if !self.simulated {
            return file;
        }
        let mut state = file["state"].take();
        if let Some(map) = state.as_object_mut() {
            map.remove("calls");
            map.remove("log");
        }
        state
    }

    /// The state file as it is: the fake's state, or the simulator's session.
    fn state_file(&self) -> Value {
        let text = fs::read_to_string(&self.state)
            .unwrap_or_else(|e| panic!("read {}: {e}", self.state.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("parse {}: {e}", self.state.display()))
    }

    /// Replaces the fake's state (atomically: the tools never see half a file).
    pub fn set_state(&self, state: Value) {
        let state = if self.simulated {
            // What the events left stays, unless the caller gives its own.
            let mut state = state;
            let record = if self.state.exists() {
                self.state_file()["state"].clone()
            } else {
                Value::Null
            };
            for key in ["calls", "log"] {
                if state.get(key).is_none()
                    && let Some(kept) = record.get(key)
                    && let Some(map) = state.as_object_mut()
                {
                    map.insert(key.to_string(), kept.clone());
                }
            }
            let mut file = json!({"state": state});
            // The machine is the machine's: a state of Juju's leaves it.
            if self.state.exists()
                && let Some(machine) = self.state_file().get("machine").cloned()
            {
                file["machine"] = machine;
            }
            file
        } else {
            state
        };
        let tmp = self.state.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(&state).expect("serialise state");
        fs::write(&tmp, text).expect("write state");
        fs::rename(&tmp, &self.state).expect("replace state");
    }

    /// On the simulator, the simulated machine (the session's `machine`:
    /// the state file's `machine:` section, e.g. `calls`, `services`).
    pub fn machine(&self) -> Value {
        assert!(
            self.simulated,
            "only a simulated unit has a simulated machine"
        );
        self.state_file()
            .get("machine")
            .cloned()
            .unwrap_or_else(|| json!({}))
    }

    /// Reads the simulated machine, lets `f` change it, and writes it back
    /// (a field left empty is dropped, as the simulator writes it).
    pub fn update_machine(&self, f: impl FnOnce(&mut Value)) {
        let mut machine = self.machine();
        f(&mut machine);
        let mut file = self.state_file();
        file["machine"] = machine;
        let tmp = self.state.with_extension("json.tmp");
        fs::write(&tmp, file.to_string()).expect("write the session");
        fs::rename(&tmp, &self.state).expect("replace the session");
    }

    /// The simulated machine's calls since the last
    /// [`Unit::clear_machine_calls`], one line each (`systemctl start --
    /// api`, `dpkg-query -W -f=${Status} -- pkg`, `apt-get install …`).
    pub fn machine_calls(&self) -> Vec<String> {
        self.machine()["calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The pids the simulated machine recorded for its units' processes,
    /// read without panicking (for a `Drop` that kills them).
    pub fn machine_pids(&self) -> Vec<u32> {
        let file: Option<Value> = fs::read_to_string(&self.state)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let services = file
            .as_ref()
            .and_then(|f| f["machine"]["services"].as_object());
        services
            .map(|s| {
                s.values()
                    .filter_map(|service| service["pid"].as_u64())
                    .filter_map(|pid| u32::try_from(pid).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn clear_machine_calls(&self) {
        self.update_machine(|m| {
            if let Some(map) = m.as_object_mut() {
                map.remove("calls");
            }
        });
    }

    /// Reads the state, lets `f` change it, and writes it back.
    pub fn update_state(&self, f: impl FnOnce(&mut Value)) {
        let mut state = self.state();
        f(&mut state);
        self.set_state(state);
    }

    /// Runs the hook `hook` (e.g. `install`, `db-relation-changed`).
    pub fn dispatch(&self, hook: &str) -> Output {
        self.dispatch_with(&format!("hooks/{hook}"), &[])
    }

    /// Runs `<charm>/dispatch` as Juju does, for `JUJU_DISPATCH_PATH=dispatch_path`
    /// (`hooks/<hook>` or `actions/<action>`), with `extra_env` set last (it
    /// overrides the defaults).
    ///
    /// The environment is cleared and then holds what Juju sets for every hook
    /// (§1.4), plus the fake's `FAKE_JUJU_*` variables. `JUJU_HOOK_NAME` is
    /// empty for actions. Panics if dispatch runs longer than [`DISPATCH_TIMEOUT`].
    pub fn dispatch_with(&self, dispatch_path: &str, extra_env: &[(&str, &str)]) -> Output {
        self.run_dispatch(
            self.dispatch_command(dispatch_path, extra_env),
            dispatch_path,
        )
    }

    /// As [`Unit::dispatch_with`] without `extra_env`, but with the variables
    /// `removed` taken out of the environment altogether (an empty value is
    /// not the same as an absent variable).
    pub fn dispatch_without(&self, dispatch_path: &str, removed: &[&str]) -> Output {
        let mut cmd = self.dispatch_command(dispatch_path, &[]);
        for key in removed {
            cmd.env_remove(key);
        }
        self.run_dispatch(cmd, dispatch_path)
    }

    /// The charm's metadata.yaml declares `containers:` (Juju's
    /// `IsKubernetes`).
    fn declares_containers(&self) -> bool {
        let text = fs::read_to_string(self.charm.join("metadata.yaml")).unwrap_or_default();
        serde_saphyr::from_str::<Value>(&text)
            .ok()
            .is_some_and(|m| m["containers"].as_object().is_some_and(|c| !c.is_empty()))
    }

    /// The command [`Unit::dispatch_with`] runs, not yet started: for tests
    /// that must manage the process themselves (kill it, watch it). Its stdio
    /// is not set up; stdin is null.
    pub fn dispatch_command(&self, dispatch_path: &str, extra_env: &[(&str, &str)]) -> Command {
        let name = dispatch_path.rsplit('/').next().unwrap_or(dispatch_path);
        let hook_name = if dispatch_path.starts_with("hooks/") {
            name
        } else {
            ""
        };
        let context_id = format!("{}-{}-{}", self.unit_name, name, random_hex32());
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.tools.display());
        let mut cmd = Command::new(self.charm.join("dispatch"));
        cmd.env_clear()
            .current_dir(&self.charm)
            .stdin(Stdio::null())
            .env("PATH", path)
            .env("JUJU_DISPATCH_PATH", dispatch_path)
            .env("JUJU_HOOK_NAME", hook_name)
            .env("JUJU_UNIT_NAME", &self.unit_name)
            .env("JUJU_MODEL_NAME", "test")
            .env("JUJU_MODEL_UUID", MODEL_UUID)
            .env("JUJU_VERSION", "3.6.4")
            .env("JUJU_CHARM_DIR", &self.charm)
            .env("CHARM_DIR", &self.charm)
            .env("JUJU_CONTEXT_ID", context_id)
            .env("JUJU_AGENT_SOCKET_ADDRESS", self.dir().join("agent.socket"))
            .env("JUJU_AGENT_SOCKET_NETWORK", "unix")
            .env("JUJU_API_ADDRESSES", "10.0.0.10:17070")
            // Exported empty on Kubernetes, as Juju does: a charm that
            // declares containers is a Kubernetes charm whatever the state
            // says.
            .env(
                "JUJU_MACHINE_ID",
                if self.state()["kubernetes"] == Value::Bool(true) || self.declares_containers() {
                    ""
                } else {
                    "0"
                },
            )
            .env("JUJU_PRINCIPAL_UNIT", "")
            .env("JUJU_AVAILABILITY_ZONE", "")
            .env("LANG", "C.UTF-8")
            .env("FAKE_JUJU_STATE", &self.state)
            .env("FAKE_JUJU_LOG", &self.calls)
            .env("FAKE_JUJU_DEBUG_LOG", &self.debug)
            .env("WASM_CHARM_SIM_SESSION", &self.state);
        for (key, value) in extra_env {
            cmd.env(key, value);
        }
        if self.simulated {
            let env = cmd
                .get_envs()
                .filter_map(|(k, v)| {
                    Some((
                        k.to_string_lossy().into_owned(),
                        v?.to_string_lossy().into_owned(),
                    ))
                })
                .collect();
            *self.hook.lock().unwrap_or_else(|p| p.into_inner()) = Some(SimulatedHook {
                state: self.state_file()["state"].clone(),
                env,
            });
        }
        cmd
    }

    /// Runs `cmd` and ends its hook ([`Unit::end_hook`]) as Juju would.
    fn run_dispatch(&self, cmd: Command, dispatch_path: &str) -> Output {
        if self.simulated {
            return self.run_simulated(cmd, dispatch_path);
        }
        let context = context_id(&cmd);
        let mut out = run_with_timeout(cmd, DISPATCH_TIMEOUT)
            .unwrap_or_else(|e| panic!("dispatch {dispatch_path} for {}: {e}", self.unit_name));
        if let Some(context) = context
            && let Err(error) = self.end_hook(&context, out.status.success())
        {
            // Juju: a failed commit fails the hook although the process exited 0.
            use std::os::unix::process::ExitStatusExt as _;
            out.status = std::process::ExitStatus::from_raw(1 << 8);
            out.stderr.extend_from_slice(error.as_bytes());
        }
        out
    }

    /// Runs `cmd` on the simulator's tools and ends its hook by the
    /// simulator's commit rule: the writes kept when it exited 0 (and the
    /// commit was not refused, else exit 1), dropped otherwise.
    fn run_simulated(&self, cmd: Command, dispatch_path: &str) -> Output {
        let mut out = run_with_timeout(cmd, DISPATCH_TIMEOUT)
            .unwrap_or_else(|e| panic!("dispatch {dispatch_path} for {}: {e}", self.unit_name));
        if let Err(why) = self.end_simulated_hook(out.status.success()) {
            use std::os::unix::process::ExitStatusExt as _;
            out.status = std::process::ExitStatus::from_raw(1 << 8);
            out.stderr.extend_from_slice(why.as_bytes());
        }
        out
    }

    /// Ends the hook [`Unit::dispatch_command`] last built, by the
    /// simulator's commit rule (`offline::end_hook`): from the state it
    /// started with to the state its tools left. `Err`: the commit was
    /// refused, which fails the hook.
    fn end_simulated_hook(&self, exited_zero: bool) -> Result<(), String> {
        use wasm_charm_host::offline::sim::SimState;
        let Some(hook) = self.hook.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return Ok(());
        };
        let read = |state: Value| -> SimState {
            serde_json::from_value(state).unwrap_or_else(|e| panic!("the session's state: {e}"))
        };
        let mut file = self.state_file();
        // Read as the tools wrote it: with the secret changes the hook holds.
        let after = wasm_charm_host::offline::tool_session::Session::read(&self.state)
            .unwrap_or_else(|e| panic!("the session: {e:#}"))
            .state;
        let ended = wasm_charm_host::offline::end_hook(
            &read(hook.state),
            after,
            &wasm_charm_host::juju_env::JujuEnv::from_vars(hook.env),
            exited_zero,
            wasm_charm_host::juju::unix_now(),
        );
        file["state"] = serde_json::to_value(&ended.state).expect("encode the state");
        // What the hook held is committed or dropped now: none of it is
        // the next hook's.
        let session = file.as_object_mut().expect("the session is a map");
        for held in ["pending-secrets", "pending-ports", "pending-storage"] {
            session.remove(held);
        }
        let tmp = self.state.with_extension("json.tmp");
        fs::write(&tmp, file.to_string()).expect("write the session");
        fs::rename(&tmp, &self.state).expect("replace the session");
        ended.refused.map_or(Ok(()), Err)
    }

    /// Ends the hook run with `JUJU_CONTEXT_ID=context_id` as Juju does:
    /// commits the writes the fake holds for it (`relation-set`, `state-set`,
    /// `state-delete`) when the process `exited_zero`, drops them otherwise.
    /// Pending writes of another context are left alone.
    ///
    /// `Err` carries the fake's stderr when the commit failed (the charm
    /// state over `max-charm-state-size`); nothing is kept then, and Juju
    /// would count the hook as failed. Panics if the fake cannot be run.
    pub fn end_hook(&self, context_id: &str, exited_zero: bool) -> Result<(), String> {
        if self.simulated {
            return self.end_simulated_hook(exited_zero);
        }
        let action = if exited_zero { "commit" } else { "discard" };
        let script = fake_juju_script();
        let out = Command::new(&script)
            .arg(action)
            .arg(context_id)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("FAKE_JUJU_STATE", &self.state)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("run {} {action}: {e}", script.display()));
        match out.status.code() {
            Some(0) => Ok(()),
            Some(1) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
            _ => panic!(
                "{} {action} {context_id} failed: {}",
                script.display(),
                describe(&out)
            ),
        }
    }

    /// The writes the fake holds for the hook that is running or was last
    /// left unended (`null` when none): `{"context", "relations", "charm-state"}`.
    pub fn pending(&self) -> Value {
        self.state()["pending"].clone()
    }

    /// Runs `<endpoint>-relation-<hook_suffix>` (`created`, `joined`, `changed`,
    /// `departed`, `broken`) for `relation_id` (`<endpoint>:<id>`, a key of the
    /// state's `relations`), with `JUJU_RELATION`, `JUJU_RELATION_ID`,
    /// `JUJU_REMOTE_APP` (the relation's `app` in the state), `JUJU_REMOTE_UNIT`
    /// (`remote_unit`, or empty), and for `departed` `JUJU_DEPARTING_UNIT`.
    pub fn relation_event(
        &self,
        hook_suffix: &str,
        relation_id: &str,
        remote_unit: Option<&str>,
    ) -> Output {
        let (endpoint, _) = relation_id
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("relation id {relation_id:?} is not <endpoint>:<id>"));
        let state = self.state();
        let remote_app = state["relations"][relation_id]["app"]
            .as_str()
            .unwrap_or_else(|| panic!("state has no relations[{relation_id:?}].app: {state:#}"))
            .to_string();
        let remote_unit = remote_unit.unwrap_or("");
        let mut env = vec![
            ("JUJU_RELATION", endpoint),
            ("JUJU_RELATION_ID", relation_id),
            ("JUJU_REMOTE_APP", remote_app.as_str()),
            ("JUJU_REMOTE_UNIT", remote_unit),
        ];
        if hook_suffix == "departed" {
            env.push(("JUJU_DEPARTING_UNIT", remote_unit));
        }
        self.dispatch_with(&format!("hooks/{endpoint}-relation-{hook_suffix}"), &env)
    }

    /// Every hook-tool call so far, in order: `[tool, arg, …]` each.
    pub fn calls(&self) -> Vec<Vec<String>> {
        if self.simulated {
            // The simulator's record, then the calls of tools a test
            // replaced ([`Unit::replace_tool`]), which it never sees.
            let state = self.state_file()["state"].clone();
            let replaced = fs::read(&self.calls).unwrap_or_default();
            let replaced = String::from_utf8_lossy(&replaced).into_owned();
            let replaced = replaced
                .split('\u{1c}')
                .filter(|record| !record.is_empty())
                .map(|record| {
                    record
                        .split('\u{1e}')
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                });
            let recorded = state["calls"].as_array().cloned().unwrap_or_default();
            return recorded
                .iter()
                .filter_map(Value::as_str)
                .map(unquote_call)
                .chain(replaced)
                .collect();
        }
        let bytes = fs::read(&self.calls).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        text.split('\u{1c}')
            .filter(|record| !record.is_empty())
            .map(|record| record.split('\u{1e}').map(str::to_string).collect())
            .collect()
    }

    /// The calls of one tool, e.g. `calls_of("status-set")`.
    pub fn calls_of(&self, tool: &str) -> Vec<Vec<String>> {
        self.calls()
            .into_iter()
            .filter(|call| call[0] == tool)
            .collect()
    }

    /// Forgets the calls so far.
    pub fn clear_calls(&self) {
        if self.simulated {
            self.update_state(|s| s["calls"] = json!([]));
        }
        fs::write(&self.calls, "").expect("truncate calls.log");
    }

    /// What `juju-log` wrote: one `LEVEL message` line per call.
    pub fn debug_log(&self) -> String {
        if self.simulated {
            let state = self.state_file()["state"].clone();
            let lines = state["log"].as_array().cloned().unwrap_or_default();
            return lines
                .iter()
                .filter_map(Value::as_str)
                .map(|line| format!("{line}\n"))
                .collect();
        }
        fs::read_to_string(&self.debug).unwrap_or_default()
    }

    /// Forgets what `juju-log` wrote so far.
    pub fn clear_debug_log(&self) {
        if self.simulated {
            self.update_state(|s| s["log"] = json!([]));
            return;
        }
        fs::write(&self.debug, "").expect("truncate debug.log");
    }
}

/// A hook on the simulator, as it started: its state and environment.
struct SimulatedHook {
    state: Value,
    env: Vec<(String, String)>,
}

/// The `JUJU_CONTEXT_ID` a command built by [`Unit::dispatch_command`] runs
/// its hook under (`None` if it was removed).
pub fn context_id(cmd: &Command) -> Option<String> {
    cmd.get_envs()
        .find(|(key, _)| *key == "JUJU_CONTEXT_ID")
        .and_then(|(_, value)| value)
        .map(|value| value.to_string_lossy().into_owned())
}

/// The artifact of `kind` (`native`, `portable`) in the charm's `cache`.
pub fn artifact(cache: &Path, kind: &str) -> PathBuf {
    let suffix = format!(".{kind}.cwasm");
    std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(&suffix))
        .unwrap_or_else(|| panic!("no {suffix} in {}", cache.display()))
}

/// `bytes` with every `from` replaced by `to`, of the same length; at least one.
pub fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut found = 0;
    let mut at = 0;
    while let Some(i) = out[at..].windows(from.len()).position(|w| w == from) {
        out[at + i..at + i + to.len()].copy_from_slice(to);
        at += i + to.len();
        found += 1;
    }
    assert!(found > 0, "{} not found", String::from_utf8_lossy(from));
    out
}

/// Copies a charm directory: `dispatch` at the top is hard-linked (falling back
/// to a copy), everything else copied recursively (symlinks followed). Tests
/// of a pod replacement use it to give a unit a fresh charm directory.
pub fn copy_charm(from: &Path, to: &Path) -> std::io::Result<()> {
    copy_tree(from, to, true)
}

/// A charm directory `dir` of `metadata` (metadata.yaml's text) and a
/// `dispatch` that is the shell `script` (its `#!` line included).
pub fn shell_charm(dir: &Path, metadata: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    fs::create_dir_all(dir).expect("the charm's directory");
    fs::write(dir.join("metadata.yaml"), metadata).expect("metadata.yaml");
    let dispatch = dir.join("dispatch");
    fs::write(&dispatch, script).expect("dispatch");
    fs::set_permissions(&dispatch, fs::Permissions::from_mode(0o755)).expect("chmod dispatch");
}

/// Take `containers` and the OCI images they run out of the charm
/// directory's metadata.yaml: Juju then runs it as a machine charm.
pub fn without_containers(charm: &Path) -> std::io::Result<()> {
    let path = charm.join("metadata.yaml");
    let text = fs::read_to_string(&path)?;
    let mut meta: Value = serde_saphyr::from_str(&text).map_err(std::io::Error::other)?;
    if let Some(m) = meta.as_object_mut() {
        m.remove("containers");
        m.remove("resources");
    }
    fs::write(
        &path,
        serde_saphyr::to_string(&meta).map_err(std::io::Error::other)?,
    )
}

/// Copies any charm directory for [`Unit::with_charm_dir`]: top-level entries
/// in `linked` become symlinks to the (canonical) original, those in `skipped`
/// are left out, everything else is copied recursively (symlinks followed).
fn copy_charm_dir(
    from: &Path,
    to: &Path,
    linked: &[&str],
    skipped: &[&str],
) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let (src, dst) = (entry.path(), to.join(&name));
        let is = |names: &[&str]| names.iter().any(|n| name == std::ffi::OsStr::new(n));
        if is(skipped) {
            continue;
        }
        if is(linked) {
            std::os::unix::fs::symlink(fs::canonicalize(&src)?, &dst)?;
        } else if fs::metadata(&src)?.is_dir() {
            copy_tree(&src, &dst, false)?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path, top: bool) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if fs::metadata(&src)?.is_dir() {
            copy_tree(&src, &dst, false)?;
        } else if top && entry.file_name() == "dispatch" {
            let real = fs::canonicalize(&src)?;
            if fs::hard_link(&real, &dst).is_err() {
                fs::copy(&real, &dst)?;
            }
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// A call as the simulator records it (`tool arg 'quoted arg'`, with
/// `  → exit N` when it failed) as its argv.
fn unquote_call(line: &str) -> Vec<String> {
    let line = line.split("  → exit ").next().unwrap_or(line);
    let mut argv = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => argv.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    argv.extend(word);
    argv
}

/// 32 lowercase hex digits, like the 16 random bytes of a Juju context id.
fn random_hex32() -> String {
    use std::hash::{BuildHasher, Hasher};
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let state = std::collections::hash_map::RandomState::new();
    (0..2u64)
        .map(|i| {
            let mut h = state.build_hasher();
            h.write_u128(seed);
            h.write_u64(i);
            format!("{:016x}", h.finish())
        })
        .collect()
}

/// `Command::output`, but the child is killed and an error returned after `timeout`.
fn run_with_timeout(mut cmd: Command, timeout: Duration) -> std::io::Result<Output> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // A just-copied `dispatch` can briefly be "text file busy" when another
    // test thread forks while the copy's fd is open; that passes at once.
    let mut tries = 0;
    let mut child = loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 10 => tries += 1,
            other => break other?,
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("still running after {timeout:?}; killed"),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    };
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Reads a child's pipe to the end on its own thread.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    })
}

fn describe(out: &Output) -> String {
    format!(
        "{}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Panics, showing stdout and stderr, unless the process exited 0.
#[track_caller]
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "expected success, got {}",
        describe(out)
    );
}

/// Panics, showing stdout and stderr, if the process exited 0.
#[track_caller]
pub fn assert_failure(out: &Output) {
    assert!(
        !out.status.success(),
        "expected failure, got {}",
        describe(out)
    );
}

/// `wasm-charm run <charm> --state <state> <args>`: one event on the
/// embedded simulated Juju.
pub fn offline_run(charm: &Path, state: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("run")
        .arg(charm)
        .arg("--state")
        .arg(state)
        .args(args)
        // The root comes from the state's default or a flag, never from the
        // test process.
        .env_remove("WASM_CHARM_ROOT")
        .output()
        .expect("run wasm-charm")
}

/// [`offline_run`], expecting success; returns stdout.
#[track_caller]
pub fn offline_ok(charm: &Path, state: &Path, args: &[&str]) -> String {
    let out = offline_run(charm, state, args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "wasm-charm run {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// What every hook tool of a unit is: `wasm-charm` under the tool's name
/// (the simulator), or the Python fake.
fn tools_binary(simulated: bool) -> PathBuf {
    if simulated {
        PathBuf::from(env!("CARGO_BIN_EXE_wasm-charm"))
    } else {
        fake_juju_script()
    }
}

/// A unit `gateway/0` of the gateway example whose handlers all succeed, on
/// the Rust simulator's tools ([`Unit::on_simulator`]): the leader,
/// `kind=ingress`, and a pilot relation with its data.
pub fn ready_gateway_on_simulator() -> Unit {
    let unit = Unit::on_simulator(&packed("examples/gateway"), "gateway/0");
    unit.set_state(serde_json::json!({
        "leader": true,
        "config": {"kind": "ingress"},
        "relations": {"istio-pilot:4": {
            "app": "pilot", "units": ["pilot/0"],
            "app-data": {"service-name": "p", "service-port": "1"},
        }},
        "status": {"unit": null, "app": null},
    }));
    unit
}

/// The future-wit guest's component, built as `wasm-charm pack` builds one.
/// (`pack` itself refuses it.)
pub fn future_wit_component() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let root = workspace_root();
            let target = root.join("target/wasm-guests");
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let out = Command::new(cargo)
                .args([
                    "build",
                    "--release",
                    "--target",
                    "wasm32-wasip2",
                    "--manifest-path",
                ])
                .arg(root.join("tests/guests/future-wit/Cargo.toml"))
                .env("CARGO_TARGET_DIR", &target)
                .env_remove("CARGO_ENCODED_RUSTFLAGS")
                .env_remove("RUSTFLAGS")
                .stdin(Stdio::null())
                .output()
                .expect("run cargo build");
            assert!(
                out.status.success(),
                "building future-wit failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let wasm = target.join("wasm32-wasip2/release/future_wit.wasm");
            assert!(wasm.is_file(), "cargo built no {}", wasm.display());
            wasm
        })
        .clone()
}

/// Moves every time a scope store keeps of its probes `by_ms` back: the
/// store is the probes' only memory of time between events, so this is the
/// clock moving on for them (grace periods, last checks).
pub fn move_probe_times_back(store: &mut Value, by_ms: u64) {
    let probes = store["probes"]
        .as_object_mut()
        .expect("the store keeps probes");
    for probe in probes.values_mut() {
        for field in ["grace_start", "failing_since"] {
            if let Some(t) = probe[field].as_u64() {
                probe[field] = json!(t.saturating_sub(by_ms));
            }
        }
        for field in ["at", "since"] {
            if let Some(t) = probe["last"][field].as_u64() {
                probe["last"][field] = json!(t.saturating_sub(by_ms));
            }
        }
    }
}

/// `wasm-charm sim dispatch <charm> --state <state> <args>`: the charm's
/// own `dispatch` process against the simulated Juju of `run`.
pub fn sim_dispatch(charm: &Path, state: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(["sim", "dispatch"])
        .arg(charm)
        .arg("--state")
        .arg(state)
        .args(args)
        .env_remove("WASM_CHARM_ROOT")
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm sim dispatch")
}

/// The ops peer's charm directory, `<workspace>/target/ops-peer/charm`:
/// runs `<workspace>/tests/ops-peer/setup.sh <workspace>/target/ops-peer`
/// (a venv with ops from PyPI)
/// unless an earlier run completed (its venv's python and its `env.sh`, which
/// setup.sh writes once ops is installed, exist). A lock file keeps two test
/// processes from setting it up at once.
pub fn ops_peer_charm() -> PathBuf {
    let root = workspace_root();
    let setup = root.join("tests/ops-peer/setup.sh");
    assert!(
        setup.is_file(),
        "the ops peer is set up by {}, which does not exist",
        setup.display()
    );
    let dir = root.join("target/ops-peer");
    let charm = dir.join("charm");
    let python = charm.join("venv/bin/python");
    let ready = || python.exists() && dir.join("env.sh").is_file();

    fs::create_dir_all(root.join("target")).expect("create target/");
    let lock_path = root.join("target/ops-peer.lock");
    let lock = fs::File::create(&lock_path)
        .unwrap_or_else(|e| panic!("create {}: {e}", lock_path.display()));
    lock.lock()
        .unwrap_or_else(|e| panic!("lock {}: {e}", lock_path.display()));
    if !ready() {
        let output = Command::new("bash")
            .arg(&setup)
            .arg(&dir)
            .env_remove("OPERATOR_DISPATCH")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", setup.display()));
        assert!(
            output.status.success(),
            "`{} {}` failed ({}); it pip-installs ops from PyPI:\n--- stderr\n{}\n--- stdout\n{}",
            setup.display(),
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout),
        );
        assert!(
            ready(),
            "{} did not create {}",
            setup.display(),
            python.display()
        );
    }
    charm
}

/// The venv of the PyPI interface libraries the contract tests' ops charms
/// use (`tests/interface-libs`), made once under `target/interface-libs`.
pub fn interface_libs_venv() -> PathBuf {
    let root = workspace_root();
    let setup = root.join("tests/interface-libs/setup.sh");
    let dir = root.join("target/interface-libs");
    fs::create_dir_all(root.join("target")).expect("create target/");
    let lock_path = root.join("target/interface-libs.lock");
    let lock = fs::File::create(&lock_path)
        .unwrap_or_else(|e| panic!("create {}: {e}", lock_path.display()));
    lock.lock()
        .unwrap_or_else(|e| panic!("lock {}: {e}", lock_path.display()));
    let output = Command::new("bash")
        .arg(&setup)
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", setup.display()));
    assert!(
        output.status.success(),
        "`{} {}` failed ({}); it pip-installs the pinned libraries from PyPI:\n{}",
        setup.display(),
        dir.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr),
    );
    dir.join("venv")
}

/// What `pebble-calls` gets for the newer calls, whichever mode answers
/// (`tests/pebble.rs` asks the process mode, `tests/offline_pebble.rs` the
/// state file's).
pub const PEBBLE_CALLS_ALIKE: &[(&str, &str)] = &[
    ("autostart", "Ok(())"),
    ("send-signal", "Ok(())"),
    ("stop-checks", r#"Ok(["up"])"#),
    ("start-checks", r#"Ok(["up"])"#),
    ("exists", "Ok(true) Ok(false)"),
    ("isdir", "Ok(true) Ok(false)"),
    ("list-pattern", r#"Ok(["/etc/web/web.conf"])"#),
    ("pull-stream", r#"Ok("port = 8080\n")"#),
    // Pebble's own refusals and modes, alike in both modes.
    (
        "push-setuid",
        r#"Err(Api(ApiError { status-code: 200, kind: "generic-file-error", message: "permissions must be a 3-digit octal string, got \"4755\"" }))"#,
    ),
    (
        "push-no-parent",
        r#"Err(Api(ApiError { status-code: 200, kind: "not-found", message: "createtemp /srv/none/x.*~: no such file or directory" }))"#,
    ),
    ("make-dir-private", "Ok(())"),
    ("list-var", r#"Ok([("/var/lib/web", "700")])"#),
    (
        "all-checks",
        r#"Ok([("later", "inactive", 0), ("up", "up", 0)])"#,
    ),
];

/// A `juju-log` record's message without the `<endpoint>:<id>: ` Juju
/// starts a relation hook's records with (`juju-log.go`); any other message
/// as it is.
pub fn without_relation_prefix(message: &str) -> &str {
    let Some((head, rest)) = message.split_once(": ") else {
        return message;
    };
    let relation_id = head.rsplit_once(':').is_some_and(|(endpoint, id)| {
        !endpoint.is_empty()
            && !endpoint.contains(' ')
            && !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
    });
    if relation_id { rest } else { message }
}
