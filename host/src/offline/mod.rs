//! `wasm-charm run`: one event against the embedded simulated Juju. The state
//! (config, leadership, relations and their data, statuses, the scope store)
//! is a YAML file the operator may edit between runs; flags change it just
//! before the event, as an operator or a remote application would.

pub mod sim;

use crate::charm_dir::{CharmDir, ConfigType};
use crate::dispatch::{self, HandlerResult, Report, ScopeBackend};
use crate::event::{self, DispatchPath};
use crate::juju_env::JujuEnv;
use crate::status::store::{ScopeStore, Target, check_format};
use anyhow::{Context as _, bail};
use sim::{SimRelation, SimState, SimTools};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Arguments of `wasm-charm run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The charm directory (as `wasm-charm pack` assembles it).
    pub charm: PathBuf,
    /// The event: a hook name (`config-changed`, `db-relation-joined`) or a
    /// dispatch path (`actions/backup`).
    #[arg(long)]
    pub event: String,
    /// The state file; created on first use.
    /// [default: <charm>/.wasm-charm/offline-state.yaml]
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// Set a config option before the event (`kind=ingress`; `kind=` sets "").
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// Make this unit the leader, or not.
    #[arg(long)]
    pub leader: Option<bool>,
    /// The relation of a relation event (`db:1`); created for created, joined
    /// and changed events when missing. Defaults to the endpoint's only relation.
    #[arg(long)]
    pub relation: Option<String>,
    /// The remote application of a relation the event creates.
    #[arg(long)]
    pub remote_app: Option<String>,
    /// The remote unit of a relation event.
    #[arg(long)]
    pub remote_unit: Option<String>,
    /// Set a key of the remote application's databag (`key=` deletes it).
    #[arg(long = "remote-app-data", value_name = "KEY=VALUE")]
    pub remote_app_data: Vec<String>,
    /// Set a key of the remote unit's databag (`key=` deletes it).
    #[arg(long = "remote-unit-data", value_name = "KEY=VALUE")]
    pub remote_unit_data: Vec<String>,
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

pub fn main(args: RunArgs) -> anyhow::Result<()> {
    let charm = CharmDir::load(&args.charm)?;
    let state_path = args.state.clone().unwrap_or_else(|| {
        args.charm
            .join(crate::status::store_file::STATE_DIR)
            .join("offline-state.yaml")
    });
    let mut state = load_state(&state_path)?;
    let unit = state
        .unit
        .clone()
        .unwrap_or_else(|| format!("{}/0", charm.metadata.name));
    let env = prepare(&args, &charm, &mut state, &unit)?;
    state.unit = Some(unit.clone());
    state.log.clear();
    state.calls.clear();
    state.action_results.clear();
    let shared = Arc::new(Mutex::new(state));
    let tools = SimTools {
        state: shared.clone(),
        defaults: charm.config.defaults.clone(),
        unit,
        action: env.get("JUJU_ACTION_NAME").map(str::to_string),
    };
    let mut backend = StateBackend(shared.clone());
    let now = crate::juju::unix_now();
    let report = dispatch::run_event(&charm, &env, Arc::new(tools), &mut backend, now)?;
    let mut state = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
    finish_relation_event(&env, &mut state);
    save_state(&state_path, &state)?;
    print_report(&report, &state, &state_path);
    if !report.failures.is_empty() {
        bail!("the hook failed: {}", report.failures.join("; "));
    }
    Ok(())
}

/// `wasm-charm status`: the charm's store (or an offline state's scopes).
pub fn status(charm: &Path, state: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let store = match state {
        Some(path) => {
            let state = load_state(path)?;
            let store = state.scopes.unwrap_or_default();
            check_format(store.format).with_context(|| format!("{}: `scopes`", path.display()))?;
            store
        }
        None => crate::status::store_file::StoreFile::lock(charm)?.load()?,
    };
    if json {
        print!("{}", String::from_utf8_lossy(&store.encode()));
    } else {
        print!("{}", crate::show::status_report(&store, true));
    }
    Ok(())
}

fn load_state(path: &Path) -> anyhow::Result<SimState> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(SimState::default()),
        Ok(text) => serde_saphyr::from_str(&text)
            .with_context(|| format!("{}: not a valid state file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SimState::default()),
        Err(e) => Err(e).with_context(|| format!("{}: cannot read", path.display())),
    }
}

fn save_state(path: &Path, state: &SimState) -> anyhow::Result<()> {
    let text = serde_saphyr::to_string(state)
        .with_context(|| format!("{}: cannot encode the state", path.display()))?;
    let dir = crate::atomic_file::parent(path);
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    crate::atomic_file::write(path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

fn key_value<'a>(flag: &str, kv: &'a str) -> anyhow::Result<(&'a str, &'a str)> {
    kv.split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .with_context(|| format!("--{flag} takes KEY=VALUE, got `{kv}`"))
}

/// Apply the flags to the state and build the hook environment.
fn prepare(
    args: &RunArgs,
    charm: &CharmDir,
    state: &mut SimState,
    unit: &str,
) -> anyhow::Result<JujuEnv> {
    for kv in &args.config {
        let (k, v) = key_value("config", kv)?;
        let Some(kind) = charm.config.options.get(k) else {
            bail!("--config {k}: config.yaml declares no option `{k}`");
        };
        let value = match kind {
            ConfigType::String | ConfigType::Secret => serde_json::json!(v),
            ConfigType::Int => serde_json::json!(
                v.parse::<i64>()
                    .with_context(|| format!("--config {k}: `{v}` is not an int"))?
            ),
            ConfigType::Float => serde_json::json!(
                v.parse::<f64>()
                    .with_context(|| format!("--config {k}: `{v}` is not a float"))?
            ),
            ConfigType::Boolean => serde_json::json!(
                v.parse::<bool>()
                    .with_context(|| format!("--config {k}: `{v}` is not true or false"))?
            ),
        };
        state.config.insert(k.to_string(), value);
    }
    if let Some(l) = args.leader {
        state.leader = l;
    }
    let path = if args.event.contains('/') {
        args.event.clone()
    } else {
        format!("hooks/{}", args.event)
    };
    let mut env = JujuEnv::default();
    env.set("JUJU_DISPATCH_PATH", path.clone());
    env.set("JUJU_UNIT_NAME", unit);
    env.set("JUJU_MODEL_NAME", "offline");
    env.set("JUJU_VERSION", "3.6.4");
    env.set("JUJU_CHARM_DIR", charm.path.display().to_string());
    match event::parse_dispatch_path(&path)? {
        DispatchPath::Action(name) => {
            env.set("JUJU_ACTION_NAME", name);
            env.set("JUJU_ACTION_UUID", "1");
        }
        DispatchPath::Hook(hook) => {
            env.set("JUJU_HOOK_NAME", hook.clone());
            if let Some((kind, Some(entity))) = event::classify_hook(&hook)
                && event::hook_name(kind, Some(entity)).is_some()
                && hook.contains("-relation-")
            {
                relation_env(args, state, &hook, entity, &mut env)?;
            } else if !args.remote_app_data.is_empty() || !args.remote_unit_data.is_empty() {
                bail!("--remote-app-data and --remote-unit-data need a relation event");
            }
        }
    }
    Ok(env)
}

fn relation_env(
    args: &RunArgs,
    state: &mut SimState,
    hook: &str,
    endpoint: &str,
    env: &mut JujuEnv,
) -> anyhow::Result<()> {
    let suffix = hook.rsplit('-').next().unwrap_or_default();
    let creates = matches!(suffix, "created" | "joined" | "changed");
    let existing: Vec<String> = state
        .relations
        .keys()
        .filter(|k| k.rsplit_once(':').is_some_and(|(e, _)| e == endpoint))
        .cloned()
        .collect();
    let id = match (&args.relation, existing.as_slice()) {
        (Some(r), _) => {
            let parsed = event::parse_relation_id(r)
                .with_context(|| format!("--relation `{r}` is not `<endpoint>:<id>`"))?;
            if parsed.endpoint != endpoint {
                bail!("--relation `{r}` is not a relation of `{endpoint}`");
            }
            r.clone()
        }
        (None, [only]) => only.clone(),
        (None, []) if creates => {
            let next = state
                .relations
                .keys()
                .filter_map(|k| k.rsplit(':').next()?.parse::<u32>().ok())
                .max()
                .map_or(0, |m| m + 1);
            format!("{endpoint}:{next}")
        }
        (None, []) => bail!("the state has no `{endpoint}` relation for {hook}"),
        (None, _) => {
            bail!("the state has several `{endpoint}` relations: name one with --relation")
        }
    };
    if !state.relations.contains_key(&id) {
        if !creates {
            bail!("the state has no relation `{id}` for {hook}");
        }
        let app = args.remote_app.clone().with_context(|| {
            format!("{hook} creates relation `{id}`: name its application with --remote-app")
        })?;
        state.relations.insert(
            id.clone(),
            SimRelation {
                app,
                ..SimRelation::default()
            },
        );
    }
    let rel = state
        .relations
        .get_mut(&id)
        .context("relation just ensured")?;
    let remote_unit = match (&args.remote_unit, suffix) {
        (Some(u), _) => Some(u.clone()),
        (None, "joined" | "changed") if rel.units.is_empty() => Some(format!("{}/0", rel.app)),
        (None, "joined" | "changed" | "departed") => rel.units.first().cloned(),
        _ => None,
    };
    if let Some(u) = &remote_unit
        && matches!(suffix, "joined" | "changed")
        && !rel.units.contains(u)
    {
        rel.units.push(u.clone());
    }
    for kv in &args.remote_app_data {
        let (k, v) = key_value("remote-app-data", kv)?;
        set_or_delete(&mut rel.app_data, k, v);
    }
    for kv in &args.remote_unit_data {
        let (k, v) = key_value("remote-unit-data", kv)?;
        let u = remote_unit
            .as_ref()
            .context("--remote-unit-data needs a remote unit (--remote-unit)")?;
        set_or_delete(rel.unit_data.entry(u.clone()).or_default(), k, v);
    }
    env.set("JUJU_RELATION", endpoint);
    env.set("JUJU_RELATION_ID", id);
    env.set("JUJU_REMOTE_APP", rel.app.clone());
    if let Some(u) = remote_unit {
        if suffix == "departed" {
            env.set("JUJU_DEPARTING_UNIT", u.clone());
        }
        env.set("JUJU_REMOTE_UNIT", u);
    }
    Ok(())
}

fn set_or_delete(bag: &mut std::collections::BTreeMap<String, String>, k: &str, v: &str) {
    if v.is_empty() {
        bag.remove(k);
    } else {
        bag.insert(k.to_string(), v.to_string());
    }
}

/// What Juju does after the hook: a departed unit leaves, a broken relation goes.
fn finish_relation_event(env: &JujuEnv, state: &mut SimState) {
    let Some(hook) = env.get("JUJU_HOOK_NAME") else {
        return;
    };
    let Some(id) = env.get("JUJU_RELATION_ID") else {
        return;
    };
    if hook.ends_with("-relation-broken") {
        state.relations.remove(id);
    } else if hook.ends_with("-relation-departed")
        && let (Some(rel), Some(unit)) =
            (state.relations.get_mut(id), env.get("JUJU_DEPARTING_UNIT"))
    {
        rel.units.retain(|u| u != unit);
        rel.unit_data.remove(unit);
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

fn print_report(report: &Report, state: &SimState, state_path: &Path) {
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
    for (key, value) in &state.action_results {
        print!("{}", result_lines(key, value));
    }
    for line in &state.log {
        println!("log: {line}");
    }
    for f in &report.failures {
        println!("failure: {f}");
    }
    println!("state: {}", state_path.display());
}
