//! One event of one unit, run as Juju runs it: the unit's view of the
//! model written as the one-unit simulator's state, the unit's own
//! `dispatch` started with Juju's environment and the simulated hook tools
//! on `PATH` (`offline::Simulator::run` with `Runner::Process`, the path
//! `sim dispatch` takes), the hook ended by Juju's commit rule, and what it wrote taken
//! back into the model with the events it causes (`view::absorb`).

use super::state::{ActionRun, Failed, LogLine, Pending, Ran, World};
use super::view;
use crate::charm_dir::CharmDir;
use crate::juju_env::JujuEnv;
use crate::offline::{Program, Runner, SimEvent, Simulator};
use crate::workload_root::WorkloadRoot;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// Where a model keeps each unit's files.
pub trait Places {
    /// The unit's workload root (its declared directories, its containers'
    /// Pebble sockets).
    fn unit_root(&self, unit: &str) -> PathBuf;
}

/// What Juju exports to every hook and action of `unit`.
fn base_env(world: &World, unit: &str, charm: &Path) -> JujuEnv {
    let mut env = JujuEnv::default();
    let app = World::split_unit(unit).map_or("", |(a, _)| a);
    let kubernetes = world.apps.get(app).is_some_and(|a| a.kubernetes);
    let machine = world
        .unit(unit)
        .map(|u| u.machine.clone())
        .unwrap_or_default();
    env.set("JUJU_UNIT_NAME", unit);
    env.set("JUJU_MODEL_NAME", world.name.clone());
    env.set("JUJU_MODEL_UUID", world.uuid.clone());
    env.set("JUJU_VERSION", "3.6.4");
    env.set("JUJU_CHARM_DIR", charm.display().to_string());
    env.set(
        "JUJU_MACHINE_ID",
        if kubernetes { String::new() } else { machine },
    );
    env
}

/// The environment Juju gives `unit`'s hook for `event` (reference §1.4).
pub fn hook_env(world: &World, unit: &str, charm: &Path, event: &Pending) -> JujuEnv {
    let mut env = base_env(world, unit, charm);
    env.set("JUJU_DISPATCH_PATH", format!("hooks/{}", event.hook));
    env.set("JUJU_HOOK_NAME", event.hook.clone());
    if let Some(id) = event.relation {
        let endpoint = event.endpoint.clone().unwrap_or_default();
        env.set("JUJU_RELATION", endpoint.clone());
        env.set("JUJU_RELATION_ID", format!("{endpoint}:{id}"));
        env.set(
            "JUJU_REMOTE_APP",
            event.remote_app.clone().unwrap_or_default(),
        );
        // Exported in every relation hook, empty when no unit is meant.
        env.set(
            "JUJU_REMOTE_UNIT",
            event.remote_unit.clone().unwrap_or_default(),
        );
        if let Some(d) = &event.departing {
            env.set("JUJU_DEPARTING_UNIT", d.clone());
        }
    }
    if let Some(s) = &event.secret {
        env.set("JUJU_SECRET_ID", s.clone());
        if let Some(l) = &event.secret_label {
            env.set("JUJU_SECRET_LABEL", l.clone());
        }
        // Juju names a revision to secret-remove and secret-expired only;
        // a rotation's pending event keeps the revision it was due at.
        if let Some(r) = event.secret_revision
            && matches!(event.hook.as_str(), "secret-remove" | "secret-expired")
        {
            env.set("JUJU_SECRET_REVISION", r.to_string());
        }
    }
    if let Some(c) = &event.container {
        env.set("JUJU_WORKLOAD_NAME", c.clone());
    }
    if let Some(s) = &event.storage {
        env.set("JUJU_STORAGE_ID", s.clone());
    }
    env
}

/// What runs on the unit.
pub enum Task<'a> {
    /// The event's hook.
    Hook,
    /// An action and its checked parameters.
    Action(&'a str, serde_json::Map<String, serde_json::Value>),
    /// An operator's commands in the unit's hook context (`juju exec`).
    Commands(&'a str),
}

/// How one event ended.
pub struct Outcome {
    pub failed: bool,
    /// The events it caused, each on its unit.
    pub caused: view::Caused,
    /// Commands' exit code, stdout and stderr ([`Task::Commands`] only).
    pub output: Option<(i32, String, String)>,
    /// What it wrote that does not fit its relations' interfaces.
    pub violations: Vec<String>,
}

/// Run `event` on `unit` now, as `task` says, and take its outcome into
/// the model. The event is not taken from the queue here: the caller
/// decides that.
pub fn run_event(
    world: &mut World,
    places: &dyn Places,
    unit: &str,
    event: &Pending,
    task: Task<'_>,
) -> anyhow::Result<Outcome> {
    let u = world
        .unit(unit)
        .with_context(|| format!("unit \"{unit}\" not found"))?;
    let charm_dir = u.charm_dir.clone();
    let charm = CharmDir::load(&charm_dir).with_context(|| format!("{unit}: its charm"))?;
    let the_view =
        view::view(world, unit, event).with_context(|| format!("unit \"{unit}\" not found"))?;
    let (env, params, program) = task_env(world, unit, &charm_dir, event, &task);
    let root_path = places.unit_root(unit);
    std::fs::create_dir_all(&root_path)
        .with_context(|| format!("{}: cannot create", root_path.display()))?;
    let root = WorkloadRoot::new(root_path.clone())
        .map_err(|e| anyhow::anyhow!("{}: {e}", root_path.display()))?;
    world.clock += 1;
    let origin = root_path.with_extension("state.yaml");
    let started = std::time::Instant::now();
    let simulator = Simulator {
        charm: &charm,
        root,
        state_dir: crate::offline::simulator::state_dir(&origin),
        origin: origin.clone(),
        prober: crate::probe::Prober::default(),
    };
    let event_run = SimEvent {
        env,
        params,
        now: world.clock,
    };
    let (outcome, next) =
        simulator.run(the_view.file.clone(), &event_run, Runner::Process(program))?;
    timed(unit, &event.hook, started.elapsed());
    let failed = outcome.failed;
    let last = next.sim.last_event.clone();
    let violations = if failed {
        Vec::new()
    } else {
        super::contracts::check_writes(&charm.metadata, unit, &event.hook, &the_view, &next)
    };
    let caused = view::absorb(world, unit, &the_view, next);
    let at = world.clock;
    let reported = violations.iter().map(|v| format!("WARNING {v}"));
    world.log.extend(
        last.log
            .iter()
            .cloned()
            .chain(reported)
            .map(|line| LogLine {
                unit: unit.to_string(),
                at,
                line,
            }),
    );
    let output = match task {
        Task::Action(name, _) => {
            record_action(world, unit, name, failed, &last)?;
            None
        }
        Task::Commands(_) => {
            let code = outcome.exit.and_then(|e| e.code()).unwrap_or(-1);
            let (stdout, stderr) = outcome.output.unwrap_or_default();
            if let Some(u) = world.unit_mut(unit) {
                u.actions_run += 1;
            }
            Some((code, stdout, stderr))
        }
        Task::Hook => return Ok(hook_ended(world, unit, event, failed, caused, violations)),
    };
    Ok(Outcome {
        failed,
        caused,
        output,
        violations,
    })
}

/// The environment, parameters and program of `task` on `unit`.
fn task_env<'a>(
    world: &World,
    unit: &str,
    charm_dir: &Path,
    event: &Pending,
    task: &Task<'a>,
) -> (
    JujuEnv,
    serde_json::Map<String, serde_json::Value>,
    Program<'a>,
) {
    let hook = Program::Dispatch {
        stdout_to_stderr: true,
    };
    match task {
        Task::Hook => (
            hook_env(world, unit, charm_dir, event),
            serde_json::Map::new(),
            hook,
        ),
        Task::Action(name, params) => {
            let mut env = base_env(world, unit, charm_dir);
            env.set("JUJU_DISPATCH_PATH", format!("actions/{name}"));
            env.set("JUJU_ACTION_NAME", name.to_string());
            let id = world.unit(unit).map_or(1, |u| u.actions_run + 1);
            env.set("JUJU_ACTION_UUID", id.to_string());
            env.set("JUJU_ACTION_TAG", format!("action-{id}"));
            (env, params.clone(), hook)
        }
        // No hook or action: the context's variables alone (`HookVars`).
        Task::Commands(commands) => (
            base_env(world, unit, charm_dir),
            serde_json::Map::new(),
            Program::Commands(commands),
        ),
    }
}

/// A hook's end in the model: recorded, and a failed one leaves the unit
/// in error, its queue waiting for `resolve`, and causes nothing.
fn hook_ended(
    world: &mut World,
    unit: &str,
    event: &Pending,
    failed: bool,
    caused: view::Caused,
    violations: Vec<String>,
) -> Outcome {
    world.history.push(Ran {
        unit: unit.to_string(),
        event: event.clone(),
        failed,
        violations: violations.clone(),
    });
    if failed {
        if let Some(u) = world.unit_mut(unit) {
            u.error = Some(Failed {
                event: event.clone(),
                message: format!("hook failed: \"{}\"", event.hook),
            });
        }
        return Outcome {
            failed,
            caused: Vec::new(),
            output: None,
            violations,
        };
    }
    after_hook(world, unit, event);
    Outcome {
        failed,
        caused,
        output: None,
        violations,
    }
}

/// The benchmark's instrument: with `WASM_CHARM_MODEL_TIMINGS` naming a
/// file, one line per event appended to it (`<unit> <hook> <µs>`), the
/// time the event took as one-unit simulation does it alone (its state
/// written, the dispatch process, its tools, the commit), so the model's
/// own cost is the rest. A line that cannot be written is not worth
/// failing a hook for.
fn timed(unit: &str, hook: &str, took: std::time::Duration) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("WASM_CHARM_MODEL_TIMINGS") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{unit} {hook} {}", took.as_micros());
    }
}

/// An action's outcome, kept on its unit for `juju run` to show.
fn record_action(
    world: &mut World,
    unit: &str,
    name: &str,
    failed: bool,
    last: &crate::offline::sim::LastEvent,
) -> anyhow::Result<()> {
    let u = world.unit_mut(unit).context("the unit went")?;
    u.actions_run += 1;
    let status = if failed || last.action_failed.is_some() {
        "failed"
    } else {
        "completed"
    };
    u.last_action = Some(ActionRun {
        id: u.actions_run.to_string(),
        name: name.to_string(),
        status: status.into(),
        results: last.action_results.clone(),
        message: last.action_failed.clone(),
        log: last.log.clone(),
    });
    Ok(())
}

/// What Juju does once a hook of `unit` succeeded: relation scopes entered
/// and left, remote units seen joining and departing, a removed unit gone.
fn after_hook(world: &mut World, unit: &str, event: &Pending) {
    let hook = event.hook.as_str();
    if let Some(id) = event.relation {
        if hook.ends_with("-relation-created") {
            world.enter_scope(unit, id);
        } else if hook.ends_with("-relation-joined") {
            if let (Some(u), Some(remote)) = (world.unit_mut(unit), &event.remote_unit) {
                u.scopes.entry(id).or_default().insert(remote.clone());
            }
        } else if hook.ends_with("-relation-departed") {
            if let (Some(u), Some(remote)) = (world.unit_mut(unit), &event.remote_unit)
                && let Some(seen) = u.scopes.get_mut(&id)
            {
                seen.remove(remote);
            }
        } else if hook.ends_with("-relation-broken") {
            if let Some(u) = world.unit_mut(unit) {
                u.scopes.remove(&id);
            }
            if let Some(rel) = world.relations.get_mut(&id) {
                rel.unit_data.remove(unit);
            }
            world.drop_relation_if_done(id);
        }
    }
    super::timers::hook_ran(world, event, false);
    if hook == "remove" && world.unit(unit).is_some_and(|u| u.dying) {
        world.unit_gone(unit);
    }
}
