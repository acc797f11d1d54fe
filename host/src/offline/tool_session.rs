//! The simulated Juju served as Juju's hook tools to a charm's own
//! `dispatch` process: `wasm-charm` run under a tool's name (`status-set`,
//! a symlink to it) answers from the hook's session, the file
//! [`SESSION_VAR`] names, with the same table, syntax, JSON, exit codes and
//! `ERROR …` words as the embedded tools ([`SimTools`]). One tool runs at
//! a time (the session is locked while it does); its writes stay in the
//! session, held as the embedded tools hold them, until whoever started
//! the hook ends it through `end_hook` (`sim_dispatch`). The simulated
//! machine's tools (`served_machine`) answer from the same session, its
//! `machine`, which acts at once and is not held.

use super::machine::MachineState;
use super::secrets::PendingSecrets;
use super::sim::{PendingStorage, SimState, SimTools};
use crate::hook_tools::{HookTools, ToolOutput};
use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The environment variable naming the hook's session file.
pub const SESSION_VAR: &str = "WASM_CHARM_SIM_SESSION";

/// One hook as the served tools see it: what they know of the event, and
/// the state as the last tool left it, writes held until the hook ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Session {
    /// What `sim dispatch` knew of the event; when absent, the tools read
    /// the hook's context from its environment, as Juju's do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ToolContext>,
    pub state: SimState,
    #[serde(default)]
    pub pending_secrets: PendingSecrets,
    #[serde(default)]
    pub pending_ports: crate::model::port_rules::Pending,
    #[serde(default)]
    pub pending_storage: PendingStorage,
    /// The simulated machine (the state file's `machine:` section).
    #[serde(default, skip_serializing_if = "MachineState::is_empty")]
    pub machine: MachineState,
}

/// What the tools know of the event ([`SimTools`] without its state).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ToolContext {
    pub unit: String,
    pub defaults: BTreeMap<String, serde_json::Value>,
    pub action: Option<String>,
    pub departing: Option<(String, String)>,
    pub relation: Option<String>,
    #[serde(default)]
    pub remote_unit: Option<String>,
    #[serde(default)]
    pub remote_app: Option<String>,
    #[serde(default)]
    pub storage: Option<String>,
    #[serde(default)]
    pub declared_storage: BTreeMap<String, String>,
    #[serde(default = "sim_model_uuid")]
    pub model_uuid: String,
    pub bindings: BTreeSet<String>,
    pub state_dir: PathBuf,
    pub now: u64,
    /// The charm declares containers: the model is Kubernetes whatever
    /// the state says.
    #[serde(default)]
    pub kubernetes: bool,
}

impl ToolContext {
    pub fn of(tools: &SimTools) -> ToolContext {
        ToolContext {
            unit: tools.unit.clone(),
            defaults: tools.defaults.clone(),
            action: tools.action.clone(),
            departing: tools.departing.clone(),
            relation: tools.relation.clone(),
            remote_unit: tools.remote_unit.clone(),
            remote_app: tools.remote_app.clone(),
            storage: tools.storage.clone(),
            declared_storage: tools.declared_storage.clone(),
            model_uuid: tools.model_uuid.clone(),
            bindings: tools.bindings.clone(),
            state_dir: tools.state_dir.clone(),
            now: tools.now,
            // The state the tools hold already has the model's type.
            kubernetes: false,
        }
    }

    /// The hook's context as Juju gives it to a process (reference §1.4):
    /// the unit, the action, the relation and its remote side; the charm's
    /// config defaults and bindings from `JUJU_CHARM_DIR`; resources
    /// relative to the session's directory.
    fn from_env(session: &Path) -> ToolContext {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let charm = var("JUJU_CHARM_DIR")
            .and_then(|dir| crate::charm_dir::CharmDir::load(Path::new(&dir)).ok());
        ToolContext {
            unit: var("JUJU_UNIT_NAME").unwrap_or_default(),
            defaults: charm
                .as_ref()
                .map(|c| c.config.defaults.clone())
                .unwrap_or_default(),
            action: var("JUJU_ACTION_NAME"),
            departing: var("JUJU_RELATION_ID").zip(var("JUJU_DEPARTING_UNIT")),
            relation: var("JUJU_RELATION_ID"),
            remote_unit: var("JUJU_REMOTE_UNIT"),
            remote_app: var("JUJU_REMOTE_APP"),
            storage: var("JUJU_STORAGE_ID"),
            declared_storage: charm
                .as_ref()
                .map(super::declared_storage)
                .unwrap_or_default(),
            model_uuid: var("JUJU_MODEL_UUID").unwrap_or_else(sim_model_uuid),
            bindings: charm.as_ref().map(super::bindings).unwrap_or_default(),
            state_dir: crate::atomic_file::parent(session).to_path_buf(),
            now: crate::juju::unix_now(),
            kubernetes: charm.as_ref().is_some_and(|c| c.metadata.is_kubernetes()),
        }
    }

    fn tools(&self, state: Arc<Mutex<SimState>>) -> SimTools {
        if self.kubernetes {
            let mut s = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            s.model.kubernetes = true;
        }
        SimTools {
            state,
            defaults: self.defaults.clone(),
            unit: self.unit.clone(),
            action: self.action.clone(),
            departing: self.departing.clone(),
            relation: self.relation.clone(),
            remote_unit: self.remote_unit.clone(),
            remote_app: self.remote_app.clone(),
            storage: self.storage.clone(),
            declared_storage: self.declared_storage.clone(),
            model_uuid: self.model_uuid.clone(),
            bindings: self.bindings.clone(),
            state_dir: self.state_dir.clone(),
            now: self.now,
        }
    }
}

impl Session {
    pub fn read(path: &Path) -> anyhow::Result<Session> {
        let bytes =
            std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let mut session: Session = serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not a session of the simulated Juju", path.display()))?;
        session.state.pending_secrets = std::mem::take(&mut session.pending_secrets);
        session.state.pending_ports = std::mem::take(&mut session.pending_ports);
        session.state.pending_storage = std::mem::take(&mut session.pending_storage);
        Ok(session)
    }

    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let mut file = self.clone();
        file.pending_secrets = std::mem::take(&mut file.state.pending_secrets);
        file.pending_ports = std::mem::take(&mut file.state.pending_ports);
        file.pending_storage = std::mem::take(&mut file.state.pending_storage);
        let bytes = serde_json::to_vec(&file).context("cannot encode the session")?;
        crate::atomic_file::write(path, &bytes)
            .with_context(|| format!("{}: cannot write", path.display()))
    }
}

/// The simulated model's UUID, where the hook's environment names none.
fn sim_model_uuid() -> String {
    super::sim::MODEL_UUID.to_string()
}

/// The lock every tool of a session takes while it reads and writes it.
pub fn lock(session: &Path) -> anyhow::Result<std::fs::File> {
    let path = session.with_extension("lock");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("{}: cannot create", path.display()))?;
    file.lock()
        .with_context(|| format!("{}: cannot lock", path.display()))?;
    Ok(file)
}

/// Answer one call of `tool` made as a process: argv, stdin, stdout,
/// stderr and the exit code, as Juju's tool of that name.
pub fn serve(tool: &str) -> ExitCode {
    answer_as_process(tool, answer, |e| ToolOutput::error(1, format!("{e:#}")))
}

/// Run `answer` on this process's arguments as tool `tool`, the failure
/// it cannot answer mapped by `failed`, and hand the answer back as a
/// process does: stdout, stderr and the exit code. Every tool the
/// simulator serves as a process (hook tools, the machine's) ends here.
pub fn answer_as_process(
    tool: &str,
    answer: fn(&str, &[String]) -> anyhow::Result<ToolOutput>,
    failed: impl FnOnce(anyhow::Error) -> ToolOutput,
) -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let out = answer(tool, &args).unwrap_or_else(failed);
    // A closed pipe is the caller's business: the answer stands.
    let _ = std::io::stdout().write_all(&out.stdout);
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    ExitCode::from(u8::try_from(out.code).unwrap_or(1))
}

fn answer(tool: &str, args: &[String]) -> anyhow::Result<ToolOutput> {
    let path = std::env::var_os(SESSION_VAR)
        .map(PathBuf::from)
        .with_context(|| {
            format!("{tool}: not in a hook of the simulated Juju ({SESSION_VAR} is not set)")
        })?;
    let stdin = input(args)?;
    let _lock = lock(&path)?;
    let mut session = Session::read(&path)?;
    let shared = Arc::new(Mutex::new(std::mem::take(&mut session.state)));
    let context = session
        .context
        .clone()
        .unwrap_or_else(|| ToolContext::from_env(&path));
    let tools = context.tools(shared.clone());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Juju sets no timeout on a tool.
    let deadline = Instant::now() + Duration::from_secs(24 * 3600);
    let out = tools.call(tool, &args, stdin.as_deref(), deadline)?;
    drop(tools);
    session.state = std::mem::take(&mut *shared.lock().unwrap_or_else(|p| p.into_inner()));
    session.write(&path)?;
    Ok(out)
}

/// The stdin a call gives its tool: read only by `--file -`, as Juju's
/// tools read it (a tool that never reads it must not wait on it).
fn input(args: &[String]) -> anyhow::Result<Option<Vec<u8>>> {
    let flags: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
    let reads = flags.iter().any(|a| *a == "--file=-")
        || flags.windows(2).any(|w| w[0] == "--file" && w[1] == "-");
    if !reads {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("cannot read stdin")?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::tools::tests::{call, tools};

    #[test]
    fn every_served_name_is_a_tool_of_the_table() {
        let mut t = tools(SimState::default());
        for name in crate::offline::tools::NAMES {
            let out = call(&mut t, name, &[]);
            assert!(
                !out.stderr.contains("does not implement"),
                "{name}: {out:?}"
            );
        }
    }

    #[test]
    fn a_session_keeps_the_held_secret_changes_between_tools() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.json");
        let mut t = tools(SimState::default());
        let added = call(&mut t, "secret-add", &["token=abc"]);
        assert_eq!(added.code, 0, "{added:?}");
        t.state.lock().unwrap().model.opened_ports =
            [("80/tcp".to_string(), vec!["*".to_string()])].into();
        let opened = call(&mut t, "open-port", &["443/tcp"]);
        assert_eq!(opened.code, 0, "{opened:?}");
        let state = t.state.lock().unwrap().clone();
        assert!(!state.pending_secrets.creates.is_empty());
        assert!(!state.pending_ports.is_empty());
        let session = Session {
            context: Some(ToolContext::of(&t)),
            state: state.clone(),
            pending_secrets: PendingSecrets::default(),
            pending_ports: Default::default(),
            pending_storage: Default::default(),
            machine: MachineState::default(),
        };
        session.write(&path).unwrap();
        let back = Session::read(&path).unwrap();
        assert_eq!(back.state, state);
        assert_eq!(back.context.map(|c| c.unit).as_deref(), Some("gw/0"));
    }

    #[test]
    fn only_file_dash_reads_stdin() {
        let none = ["-r", "db:1", "--file", "bag.yaml", "k=v"].map(String::from);
        assert_eq!(input(&none).unwrap(), None);
        let past_flags = ["--", "--file=-"].map(String::from);
        assert_eq!(input(&past_flags).unwrap(), None);
    }
}
