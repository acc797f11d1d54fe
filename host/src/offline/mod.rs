//! `wasm-charm run`: one event against the embedded simulated Juju. The state
//! (config, leadership, relations and their data, statuses, ports, storage,
//! networks, trust, resources, secrets, the scope store) is a YAML file the
//! operator may edit between runs; flags change it just before the event, as
//! an operator or a remote application would.

pub mod charm_state;
pub mod context;
pub mod deployment;
pub mod machine;
pub mod network;
pub mod pebble;
mod secret_codec;
pub mod secrets;
pub mod sim;

use crate::charm_dir::{CharmDir, StoreChoice};
use crate::dispatch;
use crate::juju_env::JujuEnv;
use crate::model::hook_tools::HookTools;
use crate::probe::{Check, Prober};
use crate::show::{HandlerResult, Report};
use crate::status::backend::ScopeBackend;
use crate::status::store::{ScopeStore, Target, check_format};
use crate::status::store_choice::{self, Backend};
use crate::status::store_juju::{self, JujuStore};
use anyhow::Context as _;
use machine::{MachineState, SimMachine, StateFile};
use sim::{SimState, SimTools};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A problem with the command line: `main` exits 2 for it, as the README
/// promises, where a failed hook exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Arguments of `wasm-charm run`.
#[derive(Debug, Default, clap::Args)]
#[command(after_help = "\
Defaults (the state file records them; edit it to change them):
  state file   <charm dir>.offline-state.yaml beside the charm directory
               (`gateway` -> `gateway.offline-state.yaml`), never inside it,
               where it would ship with the charm
  unit         <charm name>/0 (the state's `unit`)
  leadership   true: a lone unit leads its application (the state's `leader`)
  relation     the endpoint's only relation; created/joined/changed events
               create a relation `<endpoint>:<n>` with n one more than the
               highest id in the state (0 for the first)
  remote unit  joined/changed: <remote app>/0 if the relation has no unit,
               else its first unit; departed: the relation's first unit
  storage      <storage>/0, filesystem, at /var/lib/juju/storage/<storage>/0
  root         the directories the charm declares (wasm-charm.yaml
               `workload.files`) are looked up under --root, else
               $WASM_CHARM_ROOT, else <state file>.root beside the state
               file (`gateway.offline-state.root`), created when the charm
               declares directories or containers (their Pebble sockets are
               there); a missing read-write one is created in
               it, a missing read one is skipped with a warning: put files
               there for the charm to read (not recorded in the state file).
               The machine's own /etc is never touched unless named
  notice type  custom
  store        as wasm-charm.yaml's `store` says: `local` and `auto` (the
               simulated unit is a machine's) keep the scope store in the
               state's `scopes`; `juju` in its `charm-state`, Juju's charm
               state, through state-get/state-set, with Juju's quotas
  probes       run for real, as on the unit; the state's `probes` scripts
               outcomes by name instead, kept from run to run until edited:
                 probes:
                   api-port: {healthy: false, detail: \"port 127.0.0.1:8774 not listening\"}
               (`detail` defaults to a message naming the probe); a name the
               charm's wasm-charm.yaml does not declare is refused (exit 2)
  networks     network-get: every relation endpoint and extra binding of
               metadata.yaml at 10.0.0.10 on 10.0.0.0/24 (eth0), ingress the
               same, egress 10.0.0.10/32; the state's `networks` changes any
               of these per binding (address, cidr, hostname, interface-name,
               mac-address, ingress-addresses, egress-subnets):
                 networks:
                   admin: {address: 192.168.1.5, cidr: 192.168.1.0/24}
  goal-state   this unit, its peers and each related application (`joined`,
               or `joining` while it has no units) and unit, from the state's
               relations
  trust        false: credential-get fails until the state says `trusted:
               true`; it then answers the state's `credential` (a cloud spec:
               type, name, region, endpoint, credential: {auth-type, attrs,
               redacted}, …), else a local LXD cloud's
  resources    none: resource-get fails until the state's `resources` names
               a file (relative to the state file's directory):
                 resources:
                   workload-image: image.json
  secrets      none; the state's `secrets` holds them by id, the charm's own
               (`owner: application` or `unit`) and those shared with it
               (`owner: <application>`, `tracking: <revision>` once read):
                 secrets:
                   secret:d1ulvkcavc0s73ak2mcg:
                     owner: vault
                     revisions: [{revision: 1, content: {token: s3cret}}]
                     label: vault-token
               secret-add makes `secret:<id>` ids; what a hook adds, sets,
               removes, grants or revokes is saved only when it succeeds
  machine      simulated, never touched: the state's `machine` keeps what the
               workload calls did (they act at once, kept by a failed hook too)
                 machine:
                   services: {api-service: {active: active, enabled: enabled}}
                   packages: [api-service]      # installed
                   commands:                    # scripted outcomes, by name
                     db-sync: {exit: 1, stderr: locked}
                   calls: [systemctl restart -- api-service]   # the last event's
               a unit not named is inactive and disabled; a command not
               scripted exits 0 and prints nothing (`exit` is a code or
               timed-out); a scripted name the manifest does not declare is
               refused (exit 2)
  containers   each container of metadata.yaml has a simulated Pebble while
               the event runs, on the socket the host's Pebble client uses
               (<root>/charm/containers/<name>/pebble.socket), answered from
               the state's `containers` (it acts at once: a failed hook keeps
               what it did):
                 containers:
                   web:
                     can-connect: true          # false: no socket
                     layers: [{label: web, services: {web: {override: replace,
                               command: web-server, startup: enabled}}}]
                     services: {web: active}    # active, inactive, backoff, error
                     checks: {alive: {status: down, failures: 3, threshold: 3}}
                     files: {/etc/web/web.conf: \"port = 8080\\n\"}
                     dirs: [/etc/web]
                     exec:                      # scripted outcomes, by name
                       check-config: {exit: 1, stderr: bad port}
                     calls: [push /etc/web/web.conf, replan]   # the last event's
               replan starts the enabled services and restarts the running
               ones whose definition changed; a check not named is up; a
               file is text, or {content or hex, permissions}; a declared
               command not scripted exits 0 and prints nothing; a container
               metadata.yaml lacks, or a scripted name the manifest does not
               declare for it, is refused (exit 2)

An action's parameters are the --param flags, checked against actions.yaml
with its defaults filled in, as Juju does (parameters that do not fit exit
2). Its progress messages are printed as `log: ACTION <message>`, its
results as `result <key>: <value>`, and a message it left with `action-fail`
as `action failed: <message>`; the run still exits 0, as the action's
process does in Juju, also when a handler's error or trap failed the action
(its scopes and relation data are then not saved).

Exit codes: 0 success, 1 the hook failed (relation data, ports, secret
changes, scopes and the charm's stored data are then not saved, as Juju
commits nothing of a failed hook), 2 bad arguments (and a state file naming
a binding, resource, container or secret id metadata.yaml or Juju would not
have).")]
pub struct RunArgs {
    /// The charm directory (as `wasm-charm pack` assembles it).
    pub charm: PathBuf,
    /// The event: a hook name (`config-changed`, `db-relation-joined`) or a
    /// dispatch path (`actions/backup`); it must be an event of this charm.
    #[arg(long)]
    pub event: String,
    /// The state file; created on first use.
    /// [default: <charm dir>.offline-state.yaml, beside the charm directory]
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// The directory the charm's declared directories (wasm-charm.yaml
    /// `workload.files`) are looked up under instead of `/`; it must exist.
    /// [default: $WASM_CHARM_ROOT, else <state file>.root beside the state
    /// file, created when the charm declares directories or containers]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Set a config option before the event (`kind=ingress`; `kind=` sets "").
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// Make this unit the leader, or not. [default: as the state says; true at first]
    #[arg(long)]
    pub leader: Option<bool>,
    /// The relation of a relation event (`db:1`); created for created, joined
    /// and changed events when missing. [default: the endpoint's only relation]
    #[arg(long)]
    pub relation: Option<String>,
    /// The remote application of a relation the event creates.
    #[arg(long)]
    pub remote_app: Option<String>,
    /// The remote unit of a relation event (for departed: the unit leaving).
    #[arg(long)]
    pub remote_unit: Option<String>,
    /// Set a key of the remote application's databag (`key=` deletes it).
    #[arg(long = "remote-app-data", value_name = "KEY=VALUE")]
    pub remote_app_data: Vec<String>,
    /// Set a key of the remote unit's databag (`key=` deletes it).
    #[arg(long = "remote-unit-data", value_name = "KEY=VALUE")]
    pub remote_unit_data: Vec<String>,
    /// The storage instance of a storage event (`data/1`). [default: <storage>/0]
    #[arg(long, value_name = "NAME/N")]
    pub storage: Option<String>,
    /// The container of a Pebble event; must match the hook's. [default: the hook's]
    #[arg(long)]
    pub container: Option<String>,
    /// The notice of a pebble-custom-notice event: its id (required).
    #[arg(long)]
    pub notice_id: Option<String>,
    /// The notice's type. [default: custom]
    #[arg(long)]
    pub notice_type: Option<String>,
    /// The notice's key (`example.com/a`; required).
    #[arg(long)]
    pub notice_key: Option<String>,
    /// The check of a pebble-check-failed or -recovered event (required).
    #[arg(long)]
    pub check: Option<String>,
    /// The secret of a secret event (`secret:…`; required).
    #[arg(long)]
    pub secret_id: Option<String>,
    /// The secret's label.
    #[arg(long)]
    pub secret_label: Option<String>,
    /// The revision of a secret-remove or secret-expired event (required).
    #[arg(long)]
    pub secret_revision: Option<String>,
    /// Give the action a parameter (`target=/srv/backups`); the value is
    /// YAML, as `juju run` reads it (`compress=false` is a boolean), and a
    /// dotted key nests (`opts.level=3`). Checked against actions.yaml, with
    /// its defaults filled in, as Juju does.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,
    /// The time the event runs at, for the store's history, secrets and
    /// the probes' grace periods, instead of the system clock (a probe's
    /// back-off then moves this clock on instead of sleeping):
    /// `wasm-charm test`'s clock, which moves only when a step says so.
    #[arg(skip)]
    pub now: Option<std::time::SystemTime>,
}

/// The scope store lives inside the state file offline.
struct StateBackend(Arc<Mutex<SimState>>);

impl ScopeBackend for StateBackend {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        let state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let store = state.scopes.clone().unwrap_or_default();
        // Same check as the file backend: never use a store this host cannot read.
        check_format(store.format).context("the state file's `scopes`")?;
        Ok(store)
    }
    fn save(&mut self, store: &ScopeStore) -> anyhow::Result<()> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).scopes = Some(store.clone());
        Ok(())
    }
}

/// The state file `run` uses without `--state`: beside the charm directory,
/// named after it. Inside it, the state would ship with the charm.
pub fn default_state_path(charm: &Path) -> anyhow::Result<PathBuf> {
    let full = charm
        .canonicalize()
        .with_context(|| format!("{}: cannot find the charm directory", charm.display()))?;
    match (full.parent(), full.file_name()) {
        (Some(parent), Some(name)) => {
            let mut file = name.to_os_string();
            file.push(".offline-state.yaml");
            Ok(parent.join(file))
        }
        _ => Err(UsageError(format!(
            "{}: has no parent directory for the state file; name one with --state",
            full.display()
        ))
        .into()),
    }
}

pub fn main(args: RunArgs) -> anyhow::Result<()> {
    let run = execute(&args)?;
    print_report(
        &run.report,
        &run.charm,
        &run.state,
        &run.machine,
        &run.state_path,
    );
    if !run.charm.manifest.workload.files.is_empty() || !run.charm.metadata.containers.is_empty() {
        println!("workload root: {}", run.root.display());
    }
    if run.failed {
        anyhow::bail!(
            "the hook failed: {}; its relation data, ports, secret changes, scopes and stored data were not saved",
            run.report.failures.join("; ")
        );
    }
    Ok(())
}

/// What one event did: the report, and the state as saved.
pub struct Executed {
    pub report: Report,
    pub charm: CharmDir,
    pub state: SimState,
    pub machine: MachineState,
    pub state_path: PathBuf,
    pub root: PathBuf,
    pub failed: bool,
}

/// Run one event and save the state, printing nothing: `run` prints the
/// outcome, `test` checks it. `Err`: a usage error, or a hook that failed
/// before any handler ran (the state file is then unchanged).
pub fn execute(args: &RunArgs) -> anyhow::Result<Executed> {
    let charm = CharmDir::load(&args.charm)?;
    // Before the state is read or written: a typo changes nothing.
    let event = context::check_event(&args.event, &charm.metadata, &charm.actions)?;
    let params = context::action_params(args, &charm, &event)?;
    let state_path = match &args.state {
        Some(path) => path.clone(),
        None => default_state_path(&args.charm)?,
    };
    let root = crate::workload_root::offline_root(
        args.root.as_deref(),
        std::env::var_os(crate::workload_root::ROOT_VAR).as_deref(),
        &state_path,
        // The simulated Pebble's sockets live under it too.
        !charm.manifest.workload.files.is_empty() || !charm.metadata.containers.is_empty(),
    )
    .map_err(UsageError)?;
    let StateFile {
        sim: mut state,
        machine,
    } = load_state(&state_path)?;
    let mut prober = scripted_prober(&charm, &state, &state_path)?;
    prober.env.root = root.clone();
    if let Some(at) = args.now {
        prober.clock = Arc::new(crate::probe::ManualClock::new(at));
    }
    check_state(&charm, &state, &state_path)?;
    machine
        .check(&charm.manifest.workload)
        .map_err(|e| UsageError(format!("{}: {e}", state_path.display())))?;
    let machine = Arc::new(SimMachine::new(machine));
    let unit = state
        .unit
        .clone()
        .unwrap_or_else(|| format!("{}/0", charm.metadata.name));
    context::apply_operator_flags(args, &charm, &mut state)?;
    let env = context::hook_env(args, &charm, &event, &mut state, &unit)?;
    state.unit = Some(unit.clone());
    state.log.clear();
    state.calls.clear();
    state.action_params = params;
    state.action_results.clear();
    state.action_failed = None;
    let now = args.now.map_or_else(crate::juju::unix_now, |at| {
        at.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    // Served while the event runs; stopped even when it fails early.
    let containers = pebble::Containers::start(
        &charm,
        &root,
        std::mem::take(&mut state.containers),
        &state_path,
        now,
    )?;
    // The model as the hook finds it: the flags are the operator's and the
    // remote side's doing, which a failed hook does not undo.
    let before = state.clone();
    let shared = Arc::new(Mutex::new(state));
    let tools: Arc<dyn HookTools> = Arc::new(SimTools {
        state: shared.clone(),
        defaults: charm.config.defaults.clone(),
        unit,
        action: env.get("JUJU_ACTION_NAME").map(str::to_string),
        departing: env
            .get("JUJU_RELATION_ID")
            .zip(env.get("JUJU_DEPARTING_UNIT"))
            .map(|(r, u)| (r.to_string(), u.to_string())),
        relation: env.get("JUJU_RELATION_ID").map(str::to_string),
        bindings: bindings(&charm),
        state_dir: std::path::absolute(crate::atomic_file::parent(&state_path))
            .with_context(|| format!("{}: cannot find its directory", state_path.display()))?,
        now,
    });
    // The store as a unit keeps it: `scopes` for a local one (`auto` too:
    // the simulated unit is a machine's), Juju's charm state for `juju`.
    let mut backend: Box<dyn ScopeBackend> = match store_choice::choose(charm.manifest.store, &env)
    {
        Backend::Local => Box::new(StateBackend(shared.clone())),
        Backend::Juju => Box::new(JujuStore::new(tools.clone())),
    };
    // `Err`: the hook failed before any handler ran; the dispatch contract is
    // that nothing stored changes, so the state file is left as it is.
    let mut report = dispatch::run_event(
        &charm,
        &env,
        dispatch::OnMachine {
            root: &root,
            machine: machine.clone(),
        },
        tools,
        backend.as_mut(),
        &prober,
        now,
    )
    .map_err(|e| e.context("the hook failed; the state file is unchanged"))?;
    let mut after = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
    // Pebble acted at once: kept by a failed hook too.
    after.containers = containers.finish();
    // Juju checks the charm state's total when it commits a hook that
    // exited 0 having changed it, and fails the hook when it is past the
    // quota.
    if report.failures.is_empty()
        && after.charm_state != before.charm_state
        && let Some(why) = charm_state::refused_at_commit(&after.charm_state)
    {
        report.failures.push(why);
    }
    let failed = !report.failures.is_empty();
    let state = commit(&before, after, &env, failed, now);
    let machine = machine.state();
    save_state(&state_path, &state, &machine)?;
    Ok(Executed {
        report,
        charm,
        state,
        machine,
        state_path,
        root: root.path().to_path_buf(),
        failed,
    })
}

/// How `run` runs probes: for real, except those whose outcome the state's
/// `probes` scripts. A scripted name the manifest does not declare is a
/// usage error naming the file and the field: nothing would ever read it.
fn scripted_prober(charm: &CharmDir, state: &SimState, path: &Path) -> anyhow::Result<Prober> {
    let specs = &charm.manifest.probes;
    let mut scripted = BTreeMap::new();
    for (name, outcome) in &state.probes {
        let Some(spec) = specs.get(name) else {
            let declared = if specs.is_empty() {
                "none".to_string()
            } else {
                specs.keys().cloned().collect::<Vec<_>>().join(", ")
            };
            return Err(UsageError(format!(
                "{}: `probes.{name}`: the charm's wasm-charm.yaml declares no probe `{name}` \
                 (declared: {declared})",
                path.display()
            ))
            .into());
        };
        let detail = outcome.detail.clone().unwrap_or_else(|| {
            format!(
                "probe {name} ({}) {}, as the state file scripts it",
                spec.target,
                if outcome.healthy {
                    "healthy"
                } else {
                    "unhealthy"
                }
            )
        });
        let check = Check {
            healthy: outcome.healthy,
            detail,
        };
        scripted.insert(name.clone(), check);
    }
    Ok(Prober {
        scripted,
        ..Prober::default()
    })
}

/// What the state file keeps of an event, as Juju commits a hook (reference
/// §1.6). A failed hook commits nothing buffered: relation data and ports go back to
/// what the hook found, and so do the scopes and Juju's charm state (where
/// a `store: juju` charm keeps them). What acts
/// at once in Juju stays: `status-set`'s statuses (the scopes' record of what
/// was written may then lag, which only makes the next event write again),
/// `application-version-set`, and the log, calls and action results, which say
/// what happened, and what the controller records as it answers a read (the
/// revision a consumer of a secret tracks). Secret changes wait in
/// `pending_secrets`: a successful hook applies them. Only a successful hook
/// lets Juju move on: a departed unit leaves, a broken relation goes.
fn commit(
    before: &SimState,
    mut after: SimState,
    env: &JujuEnv,
    failed: bool,
    now: u64,
) -> SimState {
    let secrets = std::mem::take(&mut after.pending_secrets);
    if failed {
        after.relations = before.relations.clone();
        after.scopes = before.scopes.clone();
        after.charm_state = before.charm_state.clone();
        after.opened_ports = before.opened_ports.clone();
    } else {
        secrets.apply(&mut after.secrets, now);
        finish_relation_event(env, &mut after);
    }
    after
}

/// metadata.yaml's bindings: its relation endpoints and extra bindings.
fn bindings(charm: &CharmDir) -> std::collections::BTreeSet<String> {
    let m = &charm.metadata;
    m.endpoints
        .keys()
        .chain(&m.extra_bindings)
        .cloned()
        .collect()
}

/// The state file names only what the charm and Juju can have: bindings of
/// metadata.yaml in `networks`, its resources in `resources`, and secrets by
/// Juju's ids (`secret:<20 characters>`) with an owner. Anything else would
/// never be read, so it is a usage error naming the file and the field.
fn check_state(charm: &CharmDir, state: &SimState, path: &Path) -> Result<(), UsageError> {
    let listed = |names: &mut dyn Iterator<Item = &String>| {
        let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let bindings = bindings(charm);
    if let Some(name) = state.networks.keys().find(|n| !bindings.contains(*n)) {
        return Err(UsageError(format!(
            "{}: `networks.{name}`: metadata.yaml has no endpoint or extra binding `{name}` \
             (bindings: {})",
            path.display(),
            listed(&mut bindings.iter())
        )));
    }
    let resources = &charm.metadata.resources;
    if let Some(name) = state.resources.keys().find(|n| !resources.contains(*n)) {
        return Err(UsageError(format!(
            "{}: `resources.{name}`: metadata.yaml declares no resource `{name}` (resources: {})",
            path.display(),
            listed(&mut resources.iter())
        )));
    }
    for (id, secret) in &state.secrets {
        let canonical = secret_codec::parse_id(id).map(|i| secret_codec::uri(&i));
        if canonical.as_deref() != Some(id.as_str()) {
            return Err(UsageError(format!(
                "{}: `secrets.{id}`: not a secret id as Juju makes them \
                 (`secret:` and 20 characters of 0-9 and a-v, the last 0 or g)",
                path.display()
            )));
        }
        if !secret.is_owned() && !crate::model::is_app_name(&secret.owner) {
            return Err(UsageError(format!(
                "{}: `secrets.{id}.owner`: `{}` is neither `application`, `unit` nor an \
                 application name",
                path.display(),
                secret.owner
            )));
        }
        if secret.revisions.is_empty() {
            return Err(UsageError(format!(
                "{}: `secrets.{id}.revisions`: a secret has at least one revision",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Where `wasm-charm status` reads without `--state`: the offline state
/// `run` writes by default when there is one, else the charm's own store.
pub enum StatusSource {
    OfflineState(PathBuf),
    CharmStore(PathBuf),
}

/// `wasm-charm status`: the scopes of an offline state or of the charm's
/// store, read under a shared lock without creating anything. The first line
/// on stderr says which was read. A charm with `store: juju` keeps its store
/// in Juju's charm state, which only a hook can read: offline it is the
/// state file's `charm-state`, on a unit the `show-status` action shows it.
pub fn status(charm: &Path, state: Option<&Path>, json: bool) -> anyhow::Result<()> {
    // A charm directory that cannot be read still shows the store.
    let charm_dir = CharmDir::load(charm);
    let choice = charm_dir
        .as_ref()
        .map(|c| c.manifest.store)
        .unwrap_or_default();
    let source = match state {
        Some(path) => StatusSource::OfflineState(path.to_path_buf()),
        None => {
            let offline = default_state_path(charm)?;
            if offline.is_file() {
                StatusSource::OfflineState(offline)
            } else {
                StatusSource::CharmStore(crate::status::store_file::store_path(charm))
            }
        }
    };
    let store = match &source {
        StatusSource::OfflineState(path) => {
            eprintln!("reading the offline state {}", path.display());
            if !path.is_file() {
                return Err(UsageError(format!(
                    "{}: no such state file (`wasm-charm run` creates it)",
                    path.display()
                ))
                .into());
            }
            let state = load_state(path)?.sim;
            if choice == StoreChoice::Juju {
                eprintln!("(the charm's `store: juju`: its store is the state's `charm-state`)");
                store_juju::decode_state(&state.charm_state)
                    .with_context(|| format!("{}: `charm-state`", path.display()))?
            } else {
                let store = state.scopes.unwrap_or_default();
                check_format(store.format)
                    .with_context(|| format!("{}: `scopes`", path.display()))?;
                store
            }
        }
        StatusSource::CharmStore(_) if choice == StoreChoice::Juju => {
            anyhow::bail!(
                "{}: the charm keeps its scope store in Juju's charm state (`store: juju` in \
                 wasm-charm.yaml), which only a hook can read: run the show-status action \
                 (`juju run <unit> show-status`), or read an offline state with --state",
                charm.display()
            );
        }
        StatusSource::CharmStore(path) => {
            eprintln!("reading the charm's store {}", path.display());
            match crate::status::store_file::StoreFile::lock_shared(charm)? {
                Some(file) => file.load()?,
                None => {
                    if choice == StoreChoice::Auto {
                        eprintln!(
                            "no store there yet; on Kubernetes (`store: auto`) a unit keeps it in \
                             Juju's charm state, which only a hook can read: run the show-status \
                             action (`juju run <unit> show-status`)"
                        );
                    }
                    ScopeStore::default()
                }
            }
        }
    };
    if json {
        print!("{}", String::from_utf8_lossy(&store.encode()));
    } else {
        // Whether each probe gates is the manifest's until a handler
        // chooses; a charm directory that cannot be read still shows the
        // store.
        let gates = match &charm_dir {
            Ok(c) => Some(crate::probe::gates(&c.manifest.probes, &store.probes)),
            Err(e) => {
                eprintln!("not reading the probes' gating from the manifest: {e}");
                None
            }
        };
        print!(
            "{}",
            crate::show::status_report(&store, true, gates.as_ref())
        );
    }
    Ok(())
}

pub fn load_state(path: &Path) -> anyhow::Result<StateFile> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(StateFile::default()),
        Ok(text) => serde_saphyr::from_str(&text)
            .with_context(|| format!("{}: not a valid state file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StateFile::default()),
        Err(e) => Err(e).with_context(|| format!("{}: cannot read", path.display())),
    }
}

pub(crate) fn save_state(
    path: &Path,
    state: &SimState,
    machine: &MachineState,
) -> anyhow::Result<()> {
    let file = StateFile {
        sim: state.clone(),
        machine: machine.clone(),
    };
    let text = serde_saphyr::to_string(&file)
        .with_context(|| format!("{}: cannot encode the state", path.display()))?;
    let dir = crate::atomic_file::parent(path);
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    crate::atomic_file::write(path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// What Juju does after a successful hook: a departed unit leaves, a broken
/// relation goes.
fn finish_relation_event(env: &JujuEnv, state: &mut SimState) {
    let Some(id) = env.get("JUJU_RELATION_ID") else {
        return;
    };
    let kind = env
        .get("JUJU_HOOK_NAME")
        .and_then(crate::event::classify_hook)
        .map(|(kind, _)| kind);
    match kind {
        Some(crate::bindings::EventKind::RelationBroken) => {
            state.relations.remove(id);
            // Juju's grants live in a relation, and go with it.
            for secret in state.secrets.values_mut() {
                secret.grants.remove(id);
            }
        }
        Some(crate::bindings::EventKind::RelationDeparted) => {
            if let (Some(rel), Some(unit)) =
                (state.relations.get_mut(id), env.get("JUJU_DEPARTING_UNIT"))
            {
                rel.units.retain(|u| u != unit);
                rel.unit_data.remove(unit);
            }
        }
        _ => {}
    }
}

/// An action result as `result <key>: <value>`; a value of several lines
/// starts on the next line, each line indented.
fn result_lines(key: &str, value: &str) -> String {
    if !value.contains('\n') {
        return format!("result {key}: {value}\n");
    }
    let mut out = format!("result {key}:\n");
    for line in value.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn print_report(
    report: &Report,
    charm: &CharmDir,
    state: &SimState,
    machine: &MachineState,
    state_path: &Path,
) {
    if let Some(why) = &report.ignored {
        println!("{why}");
        return;
    }
    println!("event: {}", report.event.as_deref().unwrap_or("?"));
    for (name, result) in &report.handlers {
        let shown = match result {
            HandlerResult::Set(s) => format!(
                "set {} {:?}",
                crate::status::merge::Kind::from(s.kind).as_str(),
                s.message
            ),
            HandlerResult::Cleared => "cleared".to_string(),
            HandlerResult::Error(e) => format!("returned Err({e:?})"),
            HandlerResult::Trapped(t) => format!("trapped: {t}"),
            HandlerResult::ActionDone(None) => "returned (an action sets no scope)".to_string(),
            HandlerResult::ActionDone(Some(s)) => format!(
                "returned {} {:?}, ignored (an action sets no scope)",
                crate::status::merge::Kind::from(s.kind).as_str(),
                s.message
            ),
        };
        println!("  handler {name}: {shown}");
    }
    for target in [Target::Unit, Target::App] {
        let lines = crate::show::scope_lines(&report.store, target, false);
        if !lines.is_empty() {
            println!("{} scopes:", target.as_str());
            for line in lines {
                println!("{line}");
            }
        }
    }
    if let Some(unit) = &report.unit {
        let wrote = if report.wrote.contains(&Target::Unit) {
            "status-set"
        } else {
            "unchanged"
        };
        println!(
            "unit: {} ({wrote})",
            crate::show::written_line(Some(&unit.written))
        );
    }
    match &report.app {
        Some(app) => {
            let wrote = if report.wrote.contains(&Target::App) {
                "status-set"
            } else {
                "unchanged"
            };
            println!(
                "app: {} ({wrote})",
                crate::show::written_line(Some(&app.written))
            );
        }
        None => println!("app: left to Juju"),
    }
    let gates = crate::probe::gates(&charm.manifest.probes, &report.store.probes);
    let probes = crate::show::probe_lines(&report.store.probes, Some(&gates));
    if !probes.is_empty() {
        println!("probes:");
        for line in probes {
            println!("{line}");
        }
        if !state.probes.is_empty() {
            let names: Vec<&str> = state.probes.keys().map(String::as_str).collect();
            println!("  scripted by the state file: {}", names.join(", "));
        }
    }
    for line in crate::show::data_lines(&report.store.data) {
        println!("{line}");
    }
    for (key, value) in &state.action_results {
        print!("{}", result_lines(key, value));
    }
    if let Some(message) = &state.action_failed {
        println!("action failed: {message}");
    }
    for line in &state.log {
        println!("log: {line}");
    }
    for line in &machine.calls {
        println!("machine: {line}");
    }
    for (name, container) in &state.containers {
        for line in &container.calls {
            println!("pebble {name}: {line}");
        }
    }
    for f in &report.failures {
        println!("failure: {f}");
    }
    println!("state: {}", state_path.display());
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod commit_tests;
