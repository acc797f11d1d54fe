//! The model: many applications and units in one offline Juju.
//!
//! A [`World`] holds applications (each a packed charm: a wasm-charm, an
//! ops charm, anything with a `dispatch`), their units, the relations
//! between their endpoints with every bag, secrets with their owners,
//! revisions, grants and consumers, config, leadership, storage and each
//! unit's queue of events. Every event is a real process: the unit's own
//! `dispatch`, Juju's environment, the simulated hook tools on `PATH`,
//! answering from that unit's view of the model, which is the one-unit
//! simulator's state: there is one simulator, and a unit of a model is a
//! view of it.
//!
//! The files below this one, bottom up, none importing one above it:
//! `state` (the data), `topology` (which endpoints relate), `view` (a
//! unit's view and what its hook changes), `contracts` (its writes checked
//! against their interfaces), `choreography` (which events
//! each operation queues), `timers` (what falls due as the clock moves),
//! `runner` (one event as a process), `settle`
//! (run until idle), `store` (the directory of models). [`Model`] is the
//! one entry of every front end: `wasm-charm juju`, the harness and
//! scenario files.

pub mod choreography;
pub mod contracts;
pub mod runner;
pub mod settle;
pub mod state;
pub mod store;
pub mod timers;
pub mod topology;
pub mod view;

pub use choreography::Refused;
pub use settle::{NotSettled, Order, Settled};
pub use state::World;

use crate::charm_dir::{CharmDir, ConfigType};
use anyhow::Context as _;
use state::ActionRun;
use std::path::{Path, PathBuf};

/// One model open for a command: its directory, its state, held under its
/// lock until dropped.
pub struct Model {
    pub dir: PathBuf,
    pub world: World,
    pub order: Order,
    _lock: std::fs::File,
}

impl runner::Places for Model {
    fn unit_root(&self, unit: &str) -> PathBuf {
        self.unit_dir(unit).join("root")
    }
}

struct At<'a>(&'a Path);

impl runner::Places for At<'_> {
    fn unit_root(&self, unit: &str) -> PathBuf {
        self.0
            .join("units")
            .join(unit.replace('/', "-"))
            .join("root")
    }
}

impl Model {
    /// A new, empty model `name` under `home`. `Err`: it exists.
    pub fn create(home: &Path, name: &str) -> anyhow::Result<Model> {
        let dir = store::model_dir(home, name);
        if dir.join("model.json").exists() {
            return Err(Refused(format!("model \"{name}\" already exists")).into());
        }
        let lock = store::lock(&dir)?;
        let clock = crate::juju::unix_now();
        let world = World {
            name: name.to_string(),
            uuid: model_uuid(name),
            clock,
            next_relation: 0,
            ..World::default()
        };
        store::save(&dir, &world)?;
        Ok(Model {
            dir,
            world,
            order: Order::new(None),
            _lock: lock,
        })
    }

    /// The model `name` under `home`. `Err`: there is none.
    pub fn open(home: &Path, name: &str) -> anyhow::Result<Model> {
        let dir = store::model_dir(home, name);
        if !dir.join("model.json").is_file() {
            return Err(Refused(format!("model \"{name}\" not found")).into());
        }
        let lock = store::lock(&dir)?;
        let world = store::load(&dir)?;
        Ok(Model {
            dir,
            world,
            order: Order::new(None),
            _lock: lock,
        })
    }

    pub fn save(&self) -> anyhow::Result<()> {
        store::save(&self.dir, &self.world)
    }

    fn unit_dir(&self, unit: &str) -> PathBuf {
        self.dir.join("units").join(unit.replace('/', "-"))
    }

    /// Run every queued event until the model is idle, saving after each.
    pub fn settle(&mut self) -> anyhow::Result<Settled> {
        let dir = self.dir.clone();
        let places = At(&dir);
        let mut save = |w: &World| store::save(&dir, w);
        settle::settle(&mut self.world, &places, &mut self.order, &mut save)
    }

    /// The charm `app` runs.
    pub fn charm(&self, app: &str) -> anyhow::Result<CharmDir> {
        let a = self.world.app(app)?;
        CharmDir::load(&a.charm).with_context(|| format!("application {app}: its charm"))
    }

    /// The charm at `source` (a `.charm`, a packed directory, or a project,
    /// packed first), unpacked into the model for `app` at `revision`.
    fn install_charm(
        &self,
        source: &Path,
        app: &str,
        revision: u32,
    ) -> anyhow::Result<(PathBuf, CharmDir)> {
        let into = self.dir.join("charms").join(format!("{app}-{revision}"));
        if into.exists() {
            std::fs::remove_dir_all(&into)
                .with_context(|| format!("{}: cannot clear", into.display()))?;
        }
        if source.is_file() {
            crate::pack::archive::extract(source, &into)?;
        } else {
            let packed = crate::pack::project::charm_for_run(source)?;
            store::link_tree(&packed, &into)?;
        }
        let charm =
            CharmDir::load(&into).with_context(|| format!("{}: not a charm", source.display()))?;
        // Juju reads actions.yaml as it takes the charm.
        for (name, schema) in &charm.actions.params {
            if let Some(entry) = &schema.entry {
                crate::offline::action_schema::check_entry(name, entry)
                    .map_err(|why| Refused(format!("{}: actions.yaml: {why}", source.display())))?;
            }
        }
        if !into.join("dispatch").is_file() {
            if !into.join(crate::charm_dir::MANIFEST_FILE).is_file() {
                return Err(
                    Refused(format!("{}: the charm has no dispatch", source.display())).into(),
                );
            }
            // A wasm-charm charm packed for runs (the harness's, `run`'s)
            // has none yet: this wasm-charm is the dispatch pack would ship.
            let exe = std::env::current_exe().context("cannot find this binary")?;
            std::os::unix::fs::symlink(&exe, into.join("dispatch"))
                .with_context(|| format!("{}: cannot link its dispatch", into.display()))?;
        }
        Ok((into, charm))
    }

    /// Give each unit of `app` without one its own charm directory.
    fn link_units(&mut self, app: &str) -> anyhow::Result<()> {
        let charm = self.world.app(app)?.charm.clone();
        for unit in self.world.units_of(app) {
            let dir = self.unit_dir(&unit).join("charm");
            if self.world.unit(&unit).is_some_and(|u| u.charm_dir == dir) {
                continue;
            }
            store::link_tree(&charm, &dir)?;
            if let Some(u) = self.world.unit_mut(&unit) {
                u.charm_dir = dir;
            }
        }
        Ok(())
    }

    /// `juju deploy`.
    pub fn deploy(
        &mut self,
        source: &Path,
        name: Option<&str>,
        units: u32,
        deploy: Deploy,
    ) -> anyhow::Result<String> {
        let probe_name = match name {
            Some(n) => n.to_string(),
            None => {
                let (_, charm) = self.install_charm(source, "new", 0)?;
                charm.metadata.name
            }
        };
        let (path, charm) = self.install_charm(source, &probe_name, 0)?;
        let _ = std::fs::remove_dir_all(self.dir.join("charms").join("new-0"));
        let config = typed_config(&charm, &probe_name, deploy.config)?;
        self.world.deploy(
            &probe_name,
            &charm,
            path,
            source.display().to_string(),
            units,
        )?;
        if let Some(a) = self.world.apps.get_mut(&probe_name) {
            a.trusted = deploy.trust;
            a.resources = deploy.resources.into_iter().collect();
            for (k, v) in config {
                if let Some(v) = v {
                    a.config.insert(k, v);
                }
            }
        }
        self.link_units(&probe_name)?;
        self.save()?;
        Ok(probe_name)
    }

    /// `juju add-unit`.
    pub fn add_unit(&mut self, app: &str, n: u32) -> anyhow::Result<Vec<String>> {
        let charm = self.charm(app)?;
        let mut added = Vec::new();
        for _ in 0..n {
            added.push(self.world.add_unit(app, &charm)?);
        }
        self.link_units(app)?;
        self.save()?;
        Ok(added)
    }

    pub fn remove_unit(&mut self, unit: &str) -> anyhow::Result<()> {
        let (app, _) = World::split_unit(unit)
            .ok_or_else(|| Refused(format!("invalid unit name \"{unit}\"")))?;
        let charm = self.charm(app)?;
        self.world.remove_unit(unit, &charm)?;
        self.save()
    }

    pub fn remove_application(&mut self, app: &str) -> anyhow::Result<()> {
        let charm = self.charm(app)?;
        self.world.remove_application(app, &charm)?;
        self.save()
    }

    /// `juju integrate a b`, each `app` or `app:endpoint`.
    pub fn integrate(&mut self, a: &str, b: &str) -> anyhow::Result<u64> {
        let app_of = |s: &str| s.split(':').next().unwrap_or(s).to_string();
        let (ca, cb) = (self.charm(&app_of(a))?, self.charm(&app_of(b))?);
        let id = self.world.integrate(a, &ca, b, &cb)?;
        self.save()?;
        Ok(id)
    }

    /// `juju remove-relation a b`: the one relation between them.
    pub fn remove_relation(&mut self, a: &str, b: &str) -> anyhow::Result<()> {
        let (na, nb) = (topology::Named::parse(a), topology::Named::parse(b));
        let fits = |n: &topology::Named, e: &state::End| {
            n.app == e.app && n.endpoint.is_none_or(|ep| ep == e.endpoint)
        };
        let found: Vec<u64> = self
            .world
            .relations
            .values()
            .filter(|r| !r.dying && r.ends.len() == 2)
            .filter(|r| {
                (fits(&na, &r.ends[0]) && fits(&nb, &r.ends[1]))
                    || (fits(&na, &r.ends[1]) && fits(&nb, &r.ends[0]))
            })
            .map(|r| r.id)
            .collect();
        match found.as_slice() {
            [id] => self.world.remove_relation(*id),
            [] => return Err(Refused(format!("relation \"{a} {b}\" not found")).into()),
            _ => {
                return Err(Refused(format!(
                    "ambiguous relation: \"{a} {b}\" matches {} relations; name the endpoints",
                    found.len()
                ))
                .into());
            }
        }
        self.save()
    }

    /// `juju config app k=v …` (values typed by config.yaml) and `--reset k,…`.
    pub fn set_config(
        &mut self,
        app: &str,
        set: Vec<(String, String)>,
        reset: Vec<String>,
    ) -> anyhow::Result<()> {
        let charm = self.charm(app)?;
        let mut values = typed_config(&charm, app, set)?;
        for k in reset {
            if !charm.config.options.contains_key(&k) {
                return Err(Refused(format!("unknown option \"{k}\"")).into());
            }
            values.push((k, None));
        }
        self.world.set_config(app, values)?;
        self.save()
    }

    pub fn trust(&mut self, app: &str, trusted: bool) -> anyhow::Result<()> {
        self.world.trust(app, trusted)?;
        self.save()
    }

    /// `juju refresh app --path`.
    pub fn refresh(&mut self, app: &str, source: &Path) -> anyhow::Result<()> {
        let revision = self.world.app(app)?.revision + 1;
        let (path, _) = self.install_charm(source, app, revision)?;
        self.world
            .refresh(app, path.clone(), source.display().to_string())?;
        for unit in self.world.units_of(app) {
            let dir = self.unit_dir(&unit).join("charm");
            store::link_tree(&path, &dir)?;
        }
        self.save()
    }

    /// Leadership moves to `unit` (what Juju does when a leader's lease
    /// lapses: the harness and scenarios' way to test it).
    pub fn elect(&mut self, unit: &str) -> anyhow::Result<()> {
        if self.world.unit(unit).is_none() {
            return Err(Refused(format!("unit \"{unit}\" not found")).into());
        }
        self.world.elect(unit);
        self.save()
    }

    /// `juju resolve`: the failed hook runs again (`retry`), or is skipped.
    pub fn resolve(&mut self, unit: &str, retry: bool) -> anyhow::Result<()> {
        let u = self
            .world
            .unit_mut(unit)
            .ok_or_else(|| Refused(format!("unit \"{unit}\" not found")))?;
        let Some(failed) = u.error.take() else {
            return Err(Refused(format!("unit \"{unit}\" is not in an error state")).into());
        };
        if retry {
            u.queue.push_front(failed.event);
        } else {
            timers::hook_ran(&mut self.world, &failed.event, true);
        }
        self.save()
    }

    /// `juju run unit action`: the action, once the model is idle.
    pub fn run_action(
        &mut self,
        unit: &str,
        action: &str,
        params: serde_json::Value,
    ) -> anyhow::Result<ActionRun> {
        let app = self.known_unit(unit)?;
        let charm = self.charm(app)?;
        if !charm.actions.names.iter().any(|n| n == action) {
            return Err(Refused(format!(
                "action \"{action}\" not defined on unit \"{unit}\""
            ))
            .into());
        }
        let params = crate::offline::context::checked_params(&charm, action, params)
            .map_err(|why| Refused(format!("validation failed: {why}")))?;
        self.run_task(unit, runner::Task::Action(action, params))?;
        self.world
            .unit(unit)
            .and_then(|u| u.last_action.clone())
            .context("the action left no outcome")
    }

    /// `juju exec --unit unit -- commands`: bash runs `commands` in the
    /// unit's hook context once the model is idle, its writes committed
    /// whatever its exit code, as the uniter flushes them; the events they
    /// cause are queued. The task's id, exit code, stdout and stderr.
    pub fn exec(&mut self, unit: &str, commands: &str) -> anyhow::Result<ExecRun> {
        self.known_unit(unit)?;
        let outcome = self.run_task(unit, runner::Task::Commands(commands))?;
        let (code, stdout, stderr) = outcome.output.unwrap_or((-1, String::new(), String::new()));
        let id = self.world.unit(unit).map_or(0, |u| u.actions_run);
        Ok(ExecRun {
            id: id.to_string(),
            code,
            stdout,
            stderr,
        })
    }

    /// The application of `unit`, a unit the model has; refused in Juju's
    /// words otherwise.
    fn known_unit<'u>(&self, unit: &'u str) -> anyhow::Result<&'u str> {
        let (app, _) = World::split_unit(unit)
            .ok_or_else(|| Refused(format!("invalid unit name \"{unit}\"")))?;
        if self.world.unit(unit).is_none() {
            return Err(Refused(format!("unit \"{unit}\" not found")).into());
        }
        Ok(app)
    }

    /// An action or commands on `unit` now, outside its queue; the events
    /// it causes queued, the model saved.
    fn run_task(&mut self, unit: &str, task: runner::Task<'_>) -> anyhow::Result<runner::Outcome> {
        let dir = self.dir.clone();
        let event = state::Pending::hook(String::new());
        let mut outcome = runner::run_event(&mut self.world, &At(&dir), unit, &event, task)?;
        for (on, caused) in std::mem::take(&mut outcome.caused) {
            self.world.enqueue(&on, caused);
        }
        self.save()?;
        Ok(outcome)
    }

    /// Time passes: the clock moves by `by` seconds, and what falls due on
    /// the way (update-status ticks, rotations, expiries) runs at its
    /// time, the model settled after each (see [`timers`]). `Err` before
    /// anything ran: more ticks than [`timers::MAX_TICKS`].
    pub fn advance(&mut self, by: u64) -> anyhow::Result<Settled> {
        let until = self.world.clock.saturating_add(by);
        let ticks = timers::ticks_until(&self.world, until);
        if ticks > timers::MAX_TICKS {
            return Err(Refused(format!(
                "advancing {} runs {ticks} update-status hooks on every unit, more than the {} \
                 one command runs: advance less at a time, or set a longer {} (at most 60m) \
                 with `juju model-config`",
                timers::go_shown(by as f64),
                timers::MAX_TICKS,
                timers::UPDATE_STATUS
            ))
            .into());
        }
        let mut total = Settled {
            events: 0,
            seed: self.order.seed,
            violations: Vec::new(),
        };
        while let Some(at) = timers::fire_next(&mut self.world, until) {
            self.world.clock = self.world.clock.max(at);
            let settled = self.settle()?;
            total.events += settled.events;
            total.violations.extend(settled.violations);
        }
        self.world.clock = self.world.clock.max(until);
        self.save()?;
        Ok(total)
    }

    /// `juju model-config key=value …` and `--reset key,…`: only the keys
    /// the model simulates ([`timers::UPDATE_STATUS`]); `Err` names any
    /// other, or a value Juju refuses, before anything changed.
    pub fn set_model_config(
        &mut self,
        values: Vec<(String, String)>,
        reset: Vec<String>,
    ) -> anyhow::Result<()> {
        for key in values.iter().map(|(k, _)| k).chain(&reset) {
            if key != timers::UPDATE_STATUS {
                return Err(Refused(format!(
                    "\"{key}\" is not a model config key the offline model simulates \
                     (it has {})",
                    timers::UPDATE_STATUS
                ))
                .into());
            }
        }
        for (_, v) in &values {
            timers::check_update_status(v).map_err(Refused)?;
        }
        for key in &reset {
            self.world.model_config.remove(key);
        }
        self.world.model_config.extend(values);
        timers::interval_changed(&mut self.world);
        self.save()
    }
}

/// What `juju exec` ran on a unit.
#[derive(Debug, Clone)]
pub struct ExecRun {
    /// The task's id, counted with the unit's actions.
    pub id: String,
    /// bash's exit code (-1 when it was killed).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// What `juju deploy` takes besides the charm.
#[derive(Debug, Clone, Default)]
pub struct Deploy {
    pub config: Vec<(String, String)>,
    pub trust: bool,
    pub resources: Vec<(String, PathBuf)>,
}

/// `k=v` pairs typed by config.yaml, as `juju config` takes them; `Err`
/// names the option and why.
fn typed_config(
    charm: &CharmDir,
    app: &str,
    set: Vec<(String, String)>,
) -> Result<Vec<(String, Option<serde_json::Value>)>, Refused> {
    let mut out = Vec::new();
    for (k, v) in set {
        let Some(kind) = charm.config.options.get(&k) else {
            return Err(Refused(format!(
                "unknown option \"{k}\" for application \"{app}\""
            )));
        };
        let bad = || {
            Refused(format!(
                "option \"{k}\" expected {}, got \"{v}\"",
                type_word(*kind)
            ))
        };
        let value = match kind {
            ConfigType::String | ConfigType::Secret => serde_json::Value::String(v.clone()),
            ConfigType::Int => serde_json::Value::from(v.parse::<i64>().map_err(|_| bad())?),
            ConfigType::Float => serde_json::Value::from(v.parse::<f64>().map_err(|_| bad())?),
            ConfigType::Boolean => serde_json::Value::Bool(match v.as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(bad()),
            }),
        };
        out.push((k, Some(value)));
    }
    Ok(out)
}

fn type_word(kind: ConfigType) -> &'static str {
    match kind {
        ConfigType::String => "string",
        ConfigType::Int => "int",
        ConfigType::Float => "float",
        ConfigType::Boolean => "boolean",
        ConfigType::Secret => "secret",
    }
}

/// A model's UUID, derived from its name so a test's model is the same
/// model every run (version 4's bits set, as Juju's are).
fn model_uuid(name: &str) -> String {
    use sha2::Digest as _;
    let d = sha2::Sha256::digest(name.as_bytes());
    let h: String = d.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-4{}-8{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

/// The scope store of `unit` as its charm keeps it: in Juju's charm state
/// (`store: juju`, and `auto` on Kubernetes), else in the unit's charm
/// directory. `None`: a charm that keeps none (an ops charm) or none yet.
pub fn unit_store(world: &World, unit: &str) -> Option<crate::status::store::ScopeStore> {
    use crate::charm_dir::StoreChoice;
    let (app, _) = World::split_unit(unit)?;
    let a = world.apps.get(app)?;
    let u = world.unit(unit)?;
    let charm = CharmDir::load(&u.charm_dir).ok()?;
    let in_juju = match charm.manifest.store {
        StoreChoice::Juju => true,
        StoreChoice::Auto => a.kubernetes,
        StoreChoice::Local => false,
    };
    if in_juju {
        let state = &u.state.sim.model.charm_state;
        if state.is_empty() {
            return None;
        }
        return crate::status::store_juju::decode_state(state).ok();
    }
    let mut file = crate::status::store_file::StoreFile::lock_shared(&u.charm_dir).ok()??;
    file.load().ok()
}
