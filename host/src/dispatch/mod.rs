//! One event, top to bottom (DESIGN §3), in named steps: [`run_event`]
//! reads the event and the charm, loads the component and the store, runs
//! the handlers ([`handlers`]), expires the scopes whose owner is gone and
//! gates on the probes ([`scopes`]), merges and writes the statuses
//! ([`status_set`]), then persists the store. The Juju path and the offline
//! path differ only in what answers hook-tool calls ([`HookTools`]) and where
//! the scope store lives ([`ScopeBackend`]). The host interfaces are reached
//! through the registry (`crate::interfaces`): the steps name one only where
//! they are about it (writing statuses is the model's `status-set`).
//!
//! **One event, one transaction** (DESIGN §6). Juju applies `relation-set`
//! and `state-set` only when the hook exits 0. So the host sends relation
//! data and saves its store only when the whole event succeeded: a failing
//! handler stops the event, and nothing it or an earlier handler stored
//! (scopes, relation data) is kept anywhere; Juju retries the same hook,
//! which then reaches the result the first run would have. On success the
//! statuses are written before the store is saved, so a crash between the
//! two repeats a status write rather than losing one. Every step that can
//! fail the event returns a [`Halt`], and [`EventRun::halted`] is the one
//! way an event ends early; what a handler's end means is the pure
//! [`policy`].

mod cut_calls;
mod declarations;
mod handlers;
mod policy;
mod scopes;
mod status_set;
#[cfg(test)]
mod tests;

pub use declarations::MAX_HANDLERS;
pub use scopes::PROBE_BUDGET;

use crate::actions;
use crate::bindings::model::LogLevel;
use crate::bindings::{Event, Handler};
use crate::charm_dir::CharmDir;
use crate::context::{EventContext, Ignored};
use crate::event_time::EventTime;
use crate::hook_tools::HOST_CALLS_TIMEOUT;
use crate::hook_tools::HookTools;
use crate::interfaces::ActionInterface;
use crate::interfaces::{EventStates, ModelInterface, Setup};
use crate::juju_env::JujuEnv;
use crate::model::{GuestLines, Model};
use crate::probe::{self, Assessed, Prober};
use crate::runtime::Runtime;
use crate::runtime::cache::ComponentId;
use crate::runtime::preopens::Preopens;
use crate::show::Report;
use crate::status::backend::ScopeBackend;
use crate::status::merge::{self, Merged};
use crate::status::store::{ScopeStore, Target};
use crate::status::store_edit::StoreEdit;
use crate::workload::Machine;
use crate::workload_root::WorkloadRoot;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The machine as one event's handlers reach it (DESIGN §12).
pub struct OnMachine<'a> {
    /// Where the charm's declared directories are (`/` on a unit).
    pub root: &'a WorkloadRoot,
    /// What the workload calls act on: the unit itself, or a simulated one.
    pub machine: Arc<dyn Machine>,
    /// The host's own directory for the charm, holding what it derived
    /// from the component (artifacts, identity, declarations): the charm
    /// directory's `.wasm-charm` on a unit; a simulation's own, so that a
    /// run leaves the charm directory as `pack` made it.
    pub state_dir: &'a std::path::Path,
}

/// Run one event. `Err` is a failure before any handler ran (the hook fails,
/// nothing stored changes); handler failures are in [`Report::failures`].
pub fn run_event(
    charm: &CharmDir,
    env: &JujuEnv,
    on: OnMachine<'_>,
    tools: Arc<dyn HookTools>,
    backend: &mut dyn ScopeBackend,
    prober: &Prober,
    time: EventTime,
) -> anyhow::Result<Report> {
    // 1.–2. the event and the charm
    let ctx = match EventContext::new(charm, env, on.root, on.state_dir, time)? {
        Ok(ctx) => ctx,
        Err(ignored) => return Ok(ignore(&ignored, tools)),
    };
    // 3.–4. the component and the store
    let mut event = EventRun::load(&ctx, tools, prober, on.machine, backend)?;
    let handlers = event.declarations()?;
    // 5.–9. the handlers, expired scopes, probes, merge, writes
    match event.run(&handlers, backend) {
        Ok(done) => event.persist(done, backend),
        Err(halt) => Ok(event.halted(halt)),
    }
}

/// The running part of one event: the component (loaded at the first
/// handler that runs, or to declare the handlers), the store as the event
/// changes it, and the report.
struct EventRun<'c, 'e> {
    ctx: &'e EventContext<'c>,
    tools: Arc<dyn HookTools>,
    /// The same tools, seen for the calls a deadline cut.
    cut: Arc<cut_calls::CutCalls>,
    prober: &'e Prober,
    machine: Arc<dyn Machine>,
    guest_lines: Arc<GuestLines>,
    /// The declared directories, given to every handler's instance (opened
    /// only then).
    files: Arc<Preopens>,
    component: ComponentId,
    /// Loaded at the first handler that runs: an event no handler observes
    /// needs neither wasmtime nor the component.
    runtime: Option<Runtime>,
    /// The store as the event changes it, and what it changed: a failed
    /// event keeps the store as loaded.
    store: StoreEdit,
    report: Report,
}

/// What steps 5 to 9 leave for the end of a successful event.
struct Done {
    states: EventStates,
    statuses: Statuses,
}

/// The merged statuses (step 8).
struct Statuses {
    unit: Merged,
    /// `None`: the application status is left alone (not the leader, or
    /// nothing to say).
    app: Option<Merged>,
}

/// Why the event stops before its end; it then keeps nothing.
struct Halt {
    /// The interfaces' states, for the host's last log lines (boxed: an
    /// early end is rare, and keeps every step's `Result` small).
    states: Box<EventStates>,
    /// The hook fails for this: logged at ERROR and reported. `None`: the
    /// hook does not fail (an action failed, which is said already).
    why: Option<String>,
    /// Handlers that did not run, the event having stopped.
    not_run: Vec<String>,
}

impl Halt {
    /// The hook fails for `why`.
    fn fail(states: EventStates, why: String) -> Halt {
        Halt {
            states: Box::new(states),
            why: Some(why),
            not_run: Vec::new(),
        }
    }

    /// The event stops, and the hook does not fail.
    fn quiet(states: EventStates) -> Halt {
        Halt {
            states: Box::new(states),
            why: None,
            not_run: Vec::new(),
        }
    }
}

impl<'c, 'e> EventRun<'c, 'e> {
    /// Steps 3–4: check the interfaces' parts of the charm, load the store and
    /// identify the component.
    fn load(
        ctx: &'e EventContext<'c>,
        tools: Arc<dyn HookTools>,
        prober: &'e Prober,
        machine: Arc<dyn Machine>,
        backend: &mut dyn ScopeBackend,
    ) -> anyhow::Result<Self> {
        EventStates::validate(ctx.charm).map_err(anyhow::Error::msg)?;
        let loaded = backend.load()?;
        let component = crate::runtime::identify(&ctx.charm.component_path(), &ctx.state_dir)?;
        let charm_dir =
            std::path::absolute(&ctx.charm.path).unwrap_or_else(|_| ctx.charm.path.clone());
        let files = Preopens::new(
            &ctx.charm.manifest.workload.files,
            &ctx.workload_root,
            &charm_dir,
        )
        .map_err(anyhow::Error::msg)?;
        let cut = Arc::new(cut_calls::CutCalls::new(tools));
        Ok(EventRun {
            component,
            ctx,
            tools: cut.clone(),
            cut,
            prober,
            machine,
            guest_lines: Arc::default(),
            files: Arc::new(files),
            runtime: None,
            store: StoreEdit::begin(loaded),
            report: Report {
                event: Some(ctx.described.clone()),
                ..Report::default()
            },
        })
    }

    /// The component, loaded at first use.
    fn runtime(&mut self) -> anyhow::Result<&Runtime> {
        if self.runtime.is_none() {
            let mut runtime = Runtime::load(&mut self.component, &self.ctx.state_dir)?;
            runtime.set_time(self.ctx.time);
            self.runtime = Some(runtime);
        }
        Ok(self.runtime.as_ref().expect("loaded just above"))
    }

    /// Every interface's state for this event, fresh.
    fn fresh_states(&self) -> EventStates {
        EventStates::new(&Setup {
            ctx: self.ctx,
            tools: self.tools.clone(),
            prober: self.prober,
            machine: self.machine.clone(),
            guest_lines: self.guest_lines.clone(),
        })
    }

    /// Steps 5–9: run the handlers, expire the scopes whose owner is gone, gate
    /// on the probes, merge, and write what changed.
    fn run(&mut self, handlers: &[Handler], backend: &mut dyn ScopeBackend) -> Result<Done, Halt> {
        let mut states = self.run_handlers(handlers)?; // 5.
        self.expire_scopes(handlers); // 6.
        let probed = self.gate_probes(); // 7.
        match self.conclude(&mut states, &probed, backend) {
            Ok(statuses) => Ok(Done { states, statuses }),
            Err(why) => Err(Halt::fail(states, why)),
        }
    }

    /// Steps 8–9, once what the interfaces held back (relation data) is
    /// sent, as Juju then commits it with the hook: merge, then write.
    fn conclude(
        &mut self,
        states: &mut EventStates,
        probed: &BTreeMap<String, Assessed>,
        backend: &mut dyn ScopeBackend,
    ) -> Result<Statuses, String> {
        // The host's own tool calls from here on share one budget: a hung
        // tool cannot hold the unit either.
        model(states).set_deadline(Instant::now() + HOST_CALLS_TIMEOUT);
        states.commit()?;
        let statuses = self.merge(states)?;
        self.write(states, &statuses, probed, backend)?;
        Ok(statuses)
    }

    /// Step 8: the unit status, and on the leader the application status.
    fn merge(&mut self, states: &mut EventStates) -> Result<Statuses, String> {
        let ready = &self.ctx.charm.manifest.ready_message;
        let unit = merge::merge(self.store.views(Target::Unit), ready);
        let app = status_set::app_status(self.ctx, &mut self.store, model(states))?;
        Ok(Statuses { unit, app })
    }

    /// Step 9: write what changed. A store the backend could not keep fails the
    /// event before anything of it is written, statuses included. Built-in
    /// actions (DESIGN §9) answer from the store as the event left it,
    /// before it is saved: an answer that cannot be sent fails the hook,
    /// which then keeps nothing, as every failed hook.
    fn write(
        &mut self,
        states: &mut EventStates,
        statuses: &Statuses,
        probed: &BTreeMap<String, Assessed>,
        backend: &mut dyn ScopeBackend,
    ) -> Result<(), String> {
        let (unit, app) = (&statuses.unit, statuses.app.as_ref());
        let planned = || {
            let mut planned = ScopeStore::clone(&self.store);
            status_set::remember_written(&mut planned, unit, app);
            planned
        };
        backend.check(&planned).map_err(|e| format!("{e:#}"))?;
        self.report.wrote = status_set::write(model(states), &mut self.store, unit, app)?;
        if let Event::Action(action) = &self.ctx.event {
            let gates = probe::gates(&self.ctx.charm.manifest.probes, &self.store.probes);
            actions::answer(&action.name, model(states), &self.store, probed, &gates)?;
        }
        Ok(())
    }

    /// Step 9, its end: persist the store, and report. An event that changed
    /// nothing writes nothing: no fsync on an update-status whose probes
    /// found what they found before.
    fn persist(self, done: Done, backend: &mut dyn ScopeBackend) -> anyhow::Result<Report> {
        if self.store.worth_saving() {
            backend.save(&self.store)?;
        }
        let action = done.states.get::<ActionInterface>();
        Ok(Report {
            action_failed: action.failed().map(str::to_string),
            unit: Some(done.statuses.unit),
            app: done.statuses.app,
            store: self.store.finish(),
            ..self.report
        })
    }

    /// The one way an event ends early: the reason logged at once
    /// (juju-log acts whatever the hook's fate) and reported, the guest's
    /// dropped log lines counted, the handlers that did not run named.
    /// Nothing is sent, and the report's store is as it was loaded.
    fn halted(self, halt: Halt) -> Report {
        let Halt {
            mut states,
            why,
            not_run,
        } = halt;
        let mut report = self.report;
        if let Some(why) = why {
            states.log(LogLevel::Error, &why);
            report.failures.push(why);
        }
        states.host_log().report_dropped_logs();
        if !not_run.is_empty() {
            let why = if model(&mut states).rebooting_now() {
                "the machine rebooting now"
            } else {
                "the hook having failed"
            };
            states.log(
                LogLevel::Warning,
                &format!("handlers not run, {why}: {}", not_run.join(", ")),
            );
        }
        report.store = self.store.revert();
        report
    }
}

/// The model, where a step is about Juju's hook tools.
fn model(states: &mut EventStates) -> &mut Model {
    states.get_mut::<ModelInterface>()
}

/// An action actions.yaml does not declare runs nothing and exits 0, as ops
/// does (a charm rolled back while the action was queued); the unit's log
/// says so. A hook the charm does not know is answered without a tool call.
fn ignore(ignored: &Ignored, tools: Arc<dyn HookTools>) -> Report {
    if ignored.hook.starts_with("actions/") {
        let mut model = Model::new(tools, Default::default(), Default::default());
        model.log(
            LogLevel::Warning,
            &format!(
                "{}: {}; nothing ran (exit 0, as ops does)",
                ignored.hook, ignored.reason
            ),
        );
    }
    Report {
        ignored: Some(format!(
            "hook `{}` ignored: {}",
            ignored.hook, ignored.reason
        )),
        ..Report::default()
    }
}
