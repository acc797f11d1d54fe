//! One event, top to bottom (DESIGN §3). The Juju path and the offline path
//! differ only in what answers hook-tool calls ([`HookTools`]) and where the
//! scope store lives ([`ScopeBackend`]).
//!
//! **One event, one transaction** (DESIGN §6). Juju applies `relation-set`
//! and `state-set` only when the hook exits 0. So the host sends relation
//! data and saves its store only when the whole event succeeded: a failing
//! handler stops the event, and nothing it or an earlier handler stored
//! (scopes, relation data) is kept anywhere; Juju retries the same hook,
//! which then reaches the result the first run would have. On success the
//! statuses are written before the store is saved, so a crash between the
//! two repeats a status write rather than losing one.

use crate::action::Action;
use crate::actions;
use crate::bindings::model::LogLevel;
use crate::bindings::{Event, Handler, Status};
use crate::charm_dir::{CharmDir, OnError};
use crate::context::EventContext;
use crate::event;
use crate::hook_tools::{HOST_CALLS_TIMEOUT, HookTools, Unavailable};
use crate::juju_env::JujuEnv;
use crate::model::{Model, describe_error};
use crate::probe::{self, Assessed, ProbeSpec, Prober, Probes};
use crate::runtime::cache::{self, ComponentId};
use crate::runtime::preopens::Preopens;
use crate::runtime::{self, EventState, Outcome, Output, Runtime};
use crate::status::merge::{self, Band, Merged, Written};
use crate::status::store::{ScopeStore, Target, Write};
use crate::status::{
    ScopeWrites, handler_scope, relation_scope, store_file, store_juju, unit_scope,
};
use crate::stored::Stored;
use crate::workload::{self, Machine};
use crate::workload_root::WorkloadRoot;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the scope store lives for this run.
pub trait ScopeBackend {
    fn load(&mut self) -> anyhow::Result<ScopeStore>;
    /// Refuse a store this backend could not keep (one past Juju's quota),
    /// before anything of the event is written; `planned` builds the store
    /// the event will save. The default keeps any, building nothing.
    fn check(&mut self, _planned: &dyn Fn() -> ScopeStore) -> anyhow::Result<()> {
        Ok(())
    }
    fn save(&mut self, store: &ScopeStore) -> anyhow::Result<()>;
}

impl ScopeBackend for store_file::StoreFile {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        Ok(store_file::StoreFile::load(self)?)
    }
    fn save(&mut self, store: &ScopeStore) -> anyhow::Result<()> {
        Ok(store_file::StoreFile::save(self, store)?)
    }
}

/// On the juju backend the save (`state-set`, `state-delete`) comes last as
/// on the local one, after `relation-set` and `status-set`; Juju holds it
/// with the relation data and commits both only when the hook exits 0, so
/// a failed, killed or uncommittable hook keeps neither, and the statuses
/// it wrote at once are written again by the retry (the store does not
/// remember them). The quota is checked before any of those writes.
impl ScopeBackend for store_juju::JujuStore {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        Ok(store_juju::JujuStore::load(self)?)
    }
    fn check(&mut self, planned: &dyn Fn() -> ScopeStore) -> anyhow::Result<()> {
        Ok(store_juju::JujuStore::check(self, &planned())?)
    }
    fn save(&mut self, store: &ScopeStore) -> anyhow::Result<()> {
        Ok(store_juju::JujuStore::save(self, store)?)
    }
}

/// How one handler ended, as reported to the operator.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerResult {
    Set(Status),
    Cleared,
    Error(String),
    Trapped(String),
    /// During an action: the handler returned, and its value set no scope
    /// (an action leaves no unit status behind); a status it returned is
    /// kept here, and ignored.
    ActionDone(Option<Status>),
}

/// What one event did.
#[derive(Debug, Default)]
pub struct Report {
    /// The event, as `describe` names it; `None` for an unknown hook.
    pub event: Option<String>,
    /// Why nothing ran, for an unknown hook.
    pub ignored: Option<String>,
    pub handlers: Vec<(String, HandlerResult)>,
    pub unit: Option<Merged>,
    pub app: Option<Merged>,
    /// Targets whose status was written with `status-set`.
    pub wrote: Vec<Target>,
    /// Reasons the hook fails; empty when it succeeds. A failed event keeps
    /// nothing: the store is as it was before it.
    pub failures: Vec<String>,
    /// The store after the event (as loaded, when the event failed).
    pub store: ScopeStore,
    /// During an action: the message the action was failed with (by a
    /// handler's `action.fail`, or by the host for a handler's error or
    /// trap). A failed action is no failed hook: the process exits 0.
    pub action_failed: Option<String>,
}

/// The machine as one event's handlers reach it (DESIGN §12).
pub struct OnMachine<'a> {
    /// Where the charm's declared directories are (`/` on a unit).
    pub root: &'a WorkloadRoot,
    /// What the workload calls act on: the unit itself, or a simulated one.
    pub machine: Arc<dyn Machine>,
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
    now: u64,
) -> anyhow::Result<Report> {
    let OnMachine { root, machine } = on;
    // 1.–2. the event and the charm
    let ctx = match EventContext::new(charm, env, root, now)? {
        Ok(ctx) => ctx,
        Err(ignored) => {
            log_ignored_action(&ignored, tools);
            return Ok(Report {
                ignored: Some(format!(
                    "hook `{}` ignored: {}",
                    ignored.hook, ignored.reason
                )),
                ..Report::default()
            });
        }
    };
    // 3.–4. the component and the store
    let loaded = backend.load()?;
    let mut run = EventRun::new(&ctx, tools, prober, machine)?;
    let handlers = run.handlers()?;
    let mut store = loaded.clone();

    // 5. every handler that observes the event, in declaration order
    let Some(mut state) = run.run_handlers(&handlers, &mut store) else {
        return Ok(run.failed(loaded));
    };

    // 6. scopes whose owner is gone
    let gating = probe::gates(&charm.manifest.probes, &store.probes);
    for (target, scope) in expired(&store, &ctx.event, &handlers, &gating) {
        store.apply(Write::Clear { target, scope }, &ctx.described, ctx.now);
    }

    // 7. readiness probes that gate "active" (all of them for a self-check)
    let self_check = matches!(&ctx.event, Event::Action(a) if a.name == actions::SELF_CHECK);
    let probed = gate_probes(&ctx, &mut store, prober, self_check);

    // The host's own tool calls from here on share one budget: a hung tool
    // cannot hold the unit either.
    state
        .model
        .set_deadline(Instant::now() + HOST_CALLS_TIMEOUT);
    if let Err(e) = state.model.flush() {
        run.fail(
            &mut state.model,
            format!("sending relation data failed: {}", describe_error(&e)),
        );
        return Ok(run.failed(loaded));
    }

    // 8. merge
    let ready = &charm.manifest.ready_message;
    let unit = merge::merge(store.views(Target::Unit), ready);
    let app = match app_status(&ctx, &mut store, &mut state.model) {
        Ok(app) => app,
        Err(why) => {
            run.fail(&mut state.model, why);
            return Ok(run.failed(loaded));
        }
    };

    // 9. write what changed, then persist; a store the backend could not
    // keep fails the event before anything of it is written, statuses
    // included.
    let planned = || {
        let mut planned = store.clone();
        remember_written(&mut planned, &unit, app.as_ref());
        planned
    };
    if let Err(e) = backend.check(&planned) {
        run.fail(&mut state.model, format!("{e:#}"));
        return Ok(run.failed(loaded));
    }
    match write_statuses(&mut state.model, &mut store, &unit, app.as_ref()) {
        Ok(wrote) => run.report.wrote = wrote,
        Err(why) => {
            run.fail(&mut state.model, why);
            return Ok(run.failed(loaded));
        }
    }
    // Built-in actions (DESIGN §9) answer from the store as the event left
    // it, before it is saved: an answer that cannot be sent fails the hook,
    // which then keeps nothing, as every failed hook.
    if let Event::Action(action) = &ctx.event
        && let Err(why) = actions::answer(
            &action.name,
            &mut state.model,
            &store,
            &probed,
            &probe::gates(&charm.manifest.probes, &store.probes),
        )
    {
        run.fail(&mut state.model, why);
        return Ok(run.failed(loaded));
    }

    // An event that changed nothing writes nothing: no fsync on an
    // update-status whose probes found what they found before.
    if store.worth_saving_over(&loaded) {
        backend.save(&store)?;
    }
    run.report.action_failed = state.action.failed().map(str::to_string);
    run.report.unit = Some(unit);
    run.report.app = app;
    run.report.store = store;
    Ok(std::mem::take(&mut run.report))
}

/// The running part of one event: the component (loaded at the first
/// handler that runs), the state handed from handler to handler, and the
/// report.
struct EventRun<'c, 'e> {
    ctx: &'e EventContext<'c>,
    tools: Arc<dyn HookTools>,
    /// The declared probes, shared with every handler's `probe` interface.
    probe_specs: Arc<BTreeMap<String, ProbeSpec>>,
    prober: &'e Prober,
    /// The declared directories, given to every handler's instance (opened
    /// only then).
    files: Arc<Preopens>,
    /// What the handlers' workload calls may do, and to which machine.
    workload: workload::Access,
    component: ComponentId,
    /// Loaded at the first handler that runs: an event no handler observes
    /// needs neither wasmtime nor the component.
    runtime: Option<Runtime>,
    report: Report,
}

impl<'c, 'e> EventRun<'c, 'e> {
    fn new(
        ctx: &'e EventContext<'c>,
        tools: Arc<dyn HookTools>,
        prober: &'e Prober,
        machine: Arc<dyn Machine>,
    ) -> anyhow::Result<Self> {
        let manifest = &ctx.charm.manifest;
        Ok(EventRun {
            component: runtime::identify(&ctx.charm.component_path(), &ctx.state_dir)?,
            ctx,
            tools,
            probe_specs: Arc::new(ctx.charm.manifest.probes.clone()),
            prober,
            files: Arc::new(
                Preopens::new(&ctx.charm.manifest.workload.files, &ctx.workload_root)
                    .map_err(anyhow::Error::msg)?,
            ),
            workload: workload::Access::new(&manifest.workload, &manifest.probes, machine),
            runtime: None,
            report: Report {
                event: Some(ctx.described.clone()),
                ..Report::default()
            },
        })
    }

    fn runtime(&mut self) -> anyhow::Result<&Runtime> {
        if self.runtime.is_none() {
            self.runtime = Some(Runtime::load(&mut self.component, &self.ctx.state_dir)?);
        }
        Ok(self.runtime.as_ref().expect("loaded just above"))
    }

    /// A fresh model of this event, for the handlers or for the host's own
    /// calls.
    fn model(&self, tools: Arc<dyn HookTools>) -> Model {
        let mut model = Model::new(
            tools,
            self.ctx.charm.config.clone(),
            self.ctx.identity.clone(),
        );
        model.set_endpoints(self.ctx.endpoints.clone());
        model.set_extra_bindings(
            self.ctx
                .charm
                .metadata
                .extra_bindings
                .iter()
                .cloned()
                .collect(),
        );
        if let Some(r) = event::relation_of(&self.ctx.event) {
            model.set_event_relation(
                &r.relation,
                &r.remote_app,
                matches!(self.ctx.event, Event::RelationBroken(_)),
            );
            if let (Event::RelationDeparted(_), Some(unit)) = (&self.ctx.event, &r.departing_unit) {
                model.set_departing_unit(&r.relation, unit);
            }
        }
        model
    }

    fn event_state(&self, model: Model) -> EventState {
        EventState {
            status: ScopeWrites::new(self.ctx.endpoints.clone()),
            model,
            probes: Probes::new(self.probe_specs.clone(), self.prober.clone()),
            action: Action::new(
                self.tools.clone(),
                &self.ctx.event,
                &self.ctx.described,
                &self.ctx.charm.actions,
            ),
            stored: Stored::default(),
            pebble: crate::pebble::Pebble::new(
                self.ctx.charm.metadata.containers.clone(),
                self.ctx.workload_root.clone(),
            )
            .with_commands(self.ctx.charm.manifest.workload.containers.clone()),
        }
    }

    /// The component's handlers: from the cache, or from `declare` in an
    /// instance of its own that can reach nothing of the live event (every
    /// tool call fails, every write is dropped), so that a cold cache and a
    /// warm one run the event alike.
    fn handlers(&mut self) -> anyhow::Result<Vec<Handler>> {
        if let Some(handlers) = cache::declarations(&self.ctx.state_dir, &self.component) {
            return validate_handlers(handlers, self.ctx.charm);
        }
        let mut isolated = self.event_state(self.model(Arc::new(Unavailable(
            "the model cannot be read while the component declares its handlers",
        ))));
        isolated.action =
            Action::outside("no event runs while the component declares its handlers");
        isolated.pebble = crate::pebble::Pebble::none();
        let limits = self.ctx.charm.manifest.limits;
        let finished = self.runtime()?.declare(isolated, &limits);
        let handlers = finished
            .result
            .map_err(|trap| anyhow::anyhow!("the component's `declare` {trap}"))?;
        cache::store_declarations(&self.ctx.state_dir, &self.component, &handlers);
        validate_handlers(handlers, self.ctx.charm)
    }

    /// Run the handlers that observe the event, each in a fresh instance,
    /// applying the writes of each that returned. `None`: one failed, and the
    /// event stops there (the reasons are logged and in the report).
    fn run_handlers(&mut self, handlers: &[Handler], store: &mut ScopeStore) -> Option<EventState> {
        let mut state = self.event_state(self.model(self.tools.clone()));
        let observing: Vec<&Handler> = handlers
            .iter()
            .filter(|h| {
                h.observes
                    .iter()
                    .any(|o| event::observes(o, &self.ctx.event))
            })
            .collect();
        for (i, handler) in observing.iter().enumerate() {
            match self.run_handler(handler, state, store) {
                Ran::Returned(next) => state = next,
                Ran::Failed(mut model) => {
                    model.report_dropped_logs();
                    let rest: Vec<&str> =
                        observing[i + 1..].iter().map(|h| h.name.as_str()).collect();
                    if !rest.is_empty() {
                        model.log(
                            LogLevel::Warning,
                            &format!(
                                "handlers not run, the hook having failed: {}",
                                rest.join(", ")
                            ),
                        );
                    }
                    return None;
                }
            }
        }
        state.model.report_dropped_logs();
        Some(state)
    }

    /// One handler.
    fn run_handler(
        &mut self,
        handler: &Handler,
        mut state: EventState,
        store: &mut ScopeStore,
    ) -> Ran {
        let limits = self.ctx.charm.manifest.limits;
        let ctx = self.ctx;
        let gates = probe::gates(&self.probe_specs, &store.probes);
        let files = self.files.clone();
        let access = self.workload.clone();
        let runtime = match self.runtime() {
            Ok(rt) => rt,
            Err(e) => {
                let mut model = state.model;
                self.fail(&mut model, format!("{e:#}"));
                return Ran::Failed(model);
            }
        };
        for target in [Target::Unit, Target::App] {
            let names = store.current_names(target, |_| true).into_iter().collect();
            state.status.set_current(target, names);
        }
        state.probes.begin(gates);
        state.stored.begin(&store.data);
        let (outcome, state, mut output) =
            runtime.run(&handler.name, &ctx.event, state, &access, &limits, &files);
        // An instance abandoned at its deadline took the event's model with
        // it; the host still logs through the same tools.
        let mut state = match state {
            Some(state) => state,
            None => self.event_state(self.model(self.tools.clone())),
        };
        // The handler's deadline is over; the host's own calls (its log
        // lines, say) get a budget of their own.
        state
            .model
            .set_deadline(Instant::now() + HOST_CALLS_TIMEOUT);
        if matches!(outcome, Outcome::Trapped(_)) {
            // The trap report below already ends with the stderr tail.
            output.stderr.clear();
        }
        forward_output(&mut state.model, &handler.name, &output);
        let writes = state.status.take();
        let data = state.stored.take();
        let (choices, warnings) = state.probes.take();
        for w in warnings {
            state.model.log(
                LogLevel::Warning,
                &format!("handler `{}`: {w}", handler.name),
            );
        }
        let own = |status: Option<Status>| Some(own_write(handler, status));
        let during_action = matches!(ctx.event, Event::Action(_));
        let (result, own_write) = match outcome {
            // An action leaves no unit status behind (its handler's return
            // value sets no scope), and a failure fails the action, not the
            // hook (see `fail_action`).
            Outcome::Returned(Ok(status)) if during_action => {
                if let Some(s) = &status {
                    state.model.log(
                        LogLevel::Warning,
                        &format!(
                            "handler `{}` returned {:?} during {}: an action leaves no unit status, so it is ignored (status::set sets a scope that outlives the action)",
                            handler.name, s.message, ctx.described
                        ),
                    );
                }
                (HandlerResult::ActionDone(status), None)
            }
            Outcome::Returned(Err(msg)) if during_action => {
                self.report
                    .handlers
                    .push((handler.name.clone(), HandlerResult::Error(msg.clone())));
                let why = format!("handler `{}` returned an error: {msg}", handler.name);
                self.fail_action(&mut state, why, &msg);
                return Ran::Failed(state.model);
            }
            Outcome::Trapped(trap) if during_action => {
                self.report
                    .handlers
                    .push((handler.name.clone(), HandlerResult::Trapped(trap.clone())));
                let why = format!("handler `{}` {trap}", handler.name);
                self.fail_action(&mut state, why.clone(), &why);
                return Ran::Failed(state.model);
            }
            Outcome::Returned(Ok(status)) => (
                status
                    .clone()
                    .map_or(HandlerResult::Cleared, HandlerResult::Set),
                own(status),
            ),
            Outcome::Returned(Err(msg)) if self.ctx.charm.manifest.on_error == OnError::Block => {
                state.model.log(
                    LogLevel::Warning,
                    &format!(
                        "handler `{}` returned an error, shown as blocked: {msg}",
                        handler.name
                    ),
                );
                let status = Status {
                    kind: crate::bindings::StatusKind::Blocked,
                    message: msg.clone(),
                };
                (HandlerResult::Error(msg), own(Some(status)))
            }
            Outcome::Returned(Err(msg)) => {
                self.report
                    .handlers
                    .push((handler.name.clone(), HandlerResult::Error(msg.clone())));
                let why = format!("handler `{}` failed: {msg} (on-error: fail)", handler.name);
                self.fail(&mut state.model, why);
                return Ran::Failed(state.model);
            }
            Outcome::Trapped(trap) => {
                self.report
                    .handlers
                    .push((handler.name.clone(), HandlerResult::Trapped(trap.clone())));
                let why = format!(
                    "handler `{}` {trap}; nothing this event stored is kept",
                    handler.name
                );
                self.fail(&mut state.model, why);
                return Ran::Failed(state.model);
            }
        };
        state.model.commit_handler();
        for w in writes.into_iter().chain(own_write) {
            store.apply(w, &self.ctx.described, self.ctx.now);
        }
        store.data.apply(data);
        choices.apply(
            &self.probe_specs,
            &mut store.probes,
            self.prober.clock.now(),
        );
        self.report.handlers.push((handler.name.clone(), result));
        Ran::Returned(state)
    }

    /// The hook fails for `why`: logged at once (juju-log acts immediately,
    /// whatever the hook's fate) and reported.
    fn fail(&mut self, model: &mut Model, why: String) {
        model.log(LogLevel::Error, &why);
        self.report.failures.push(why);
    }

    /// During an action, a handler returned an error or trapped (`why`):
    /// the action fails with `message` (`action-fail`), and the event keeps
    /// nothing, as a failed hook keeps nothing; yet the process exits 0, as
    /// Juju asks of a failing action (reference juju-protocol.md §1.6): its
    /// exit code would only replace the message by `exit status 1`, and the
    /// host sends nothing Juju would commit (relation data, the store) for
    /// an event that failed. Only an `action-fail` that fails fails the hook.
    fn fail_action(&mut self, state: &mut EventState, why: String, message: &str) {
        state.model.log(
            LogLevel::Error,
            &format!(
                "{} failed: {why}; nothing this event stored is kept",
                self.ctx.described
            ),
        );
        match state.action.fail_for_host(message) {
            Ok(()) => self.report.action_failed = state.action.failed().map(str::to_string),
            Err(e) => self.fail(
                &mut state.model,
                format!("{} could not be failed: {e}", self.ctx.described),
            ),
        }
    }

    /// The report of a failed event: the store as it was loaded, nothing sent.
    fn failed(&mut self, loaded: ScopeStore) -> Report {
        let mut report = std::mem::take(&mut self.report);
        report.store = loaded;
        report
    }
}

/// The time all gated probes of one event share (each also has its own
/// per-attempt timeout and retries, DESIGN §5).
pub const PROBE_BUDGET: Duration = Duration::from_secs(10);

/// Run the gating probes concurrently (every declared one for a
/// self-check) and set or clear their scopes `probe/<name>` (maintenance
/// within the grace period, blocked after it), keeping each probe's state
/// for the next event. Runs at every event, so a recovered probe heals the
/// unit with no handler running. Returns what each probe found.
fn gate_probes(
    ctx: &EventContext,
    store: &mut ScopeStore,
    prober: &Prober,
    all: bool,
) -> BTreeMap<String, Assessed> {
    let specs = &ctx.charm.manifest.probes;
    store.probes.retain(|name, _| specs.contains_key(name));
    if specs.is_empty() {
        return BTreeMap::new();
    }
    let also = if all {
        specs.keys().cloned().collect()
    } else {
        BTreeSet::new()
    };
    let assessed = probe::assess(specs, &store.probes, &also, prober, PROBE_BUDGET);
    for (name, assessed) in &assessed {
        if !assessed.gating {
            // Run for a self-check only: nothing to judge or keep.
            continue;
        }
        store.probes.insert(name.clone(), assessed.state.clone());
        let scope = probe::scope_name(name);
        let write = match assessed.status.clone() {
            Some(s) => Write::Set {
                target: Target::Unit,
                scope,
                status: s.kind,
                message: crate::text::status_message(&s.message),
                priority: Band::Normal,
            },
            None => Write::Clear {
                target: Target::Unit,
                scope,
            },
        };
        store.apply(write, &ctx.described, ctx.now);
    }
    assessed
}

/// How one handler's run left the event.
// Moved once per handler, straight into the match that unpacks it: boxing
// the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Ran {
    /// It returned; its writes are applied and the event goes on.
    Returned(EventState),
    /// The hook failed; the model is there to log with.
    Failed(Model),
}

/// An action actions.yaml does not declare runs nothing and exits 0, as ops
/// does (a charm rolled back while the action was queued); the unit's log
/// says so. A hook the charm does not know is answered without a tool call.
fn log_ignored_action(ignored: &crate::context::Ignored, tools: Arc<dyn HookTools>) {
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
}

/// The write a handler's return value makes to its own scope.
fn own_write(handler: &Handler, status: Option<Status>) -> Write {
    let scope = handler_scope(&handler.name);
    match status {
        Some(s) => Write::Set {
            target: Target::Unit,
            scope,
            status: s.kind.into(),
            message: crate::text::status_message(&s.message),
            priority: handler.priority.into(),
        },
        None => Write::Clear {
            target: Target::Unit,
            scope,
        },
    }
}

/// The application status to write, on the leader only (DESIGN §4).
///
/// App scopes live in each unit's own store; the leader's decide. A new
/// leader (leader-elected, after its handlers ran) writes its merge even
/// when it holds no app scope, if a former leader had set the application
/// status: otherwise that leader's last word (say, blocked) would stay
/// forever. Trade-off: the former leader's app scopes are not carried over;
/// a charm whose handlers set app scopes on the leader only recomputes them
/// on leader-elected (the gateway's `leader` handler does).
fn app_status(
    ctx: &EventContext,
    store: &mut ScopeStore,
    model: &mut Model,
) -> Result<Option<Merged>, String> {
    let elected = matches!(ctx.event, Event::LeaderElected);
    if !(elected || store.has_current(Target::App) || store.written.app.is_some()) {
        return Ok(None);
    }
    let leader = model.leader().map_err(|e| {
        format!(
            "cannot tell whether this unit leads: {}",
            describe_error(&e)
        )
    })?;
    if !leader {
        // Not the writer any more: a later election starts afresh.
        store.written.app = None;
        return Ok(None);
    }
    if elected {
        // Another leader may have written the app status meanwhile: what this
        // unit wrote before is no longer what Juju shows.
        store.written.app = None;
        if !store.has_current(Target::App) && !app_status_was_set(model) {
            // Never set by any leader: Juju still derives it from the units.
            return Ok(None);
        }
    }
    Ok(Some(merge::merge(
        store.views(Target::App),
        &ctx.charm.manifest.ready_message,
    )))
}

/// Whether a charm has set the application status (Juju reports `unknown`
/// until one does). When the answer cannot be read, assume it was: writing
/// the leader's own merge is the safe side.
fn app_status_was_set(model: &mut Model) -> bool {
    let answer = model.run(
        "status-get",
        &["--application", "--include-data", "--format=json"],
        None,
    );
    let Ok(out) = answer else {
        return true;
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&out) else {
        return true;
    };
    // Juju nests the application's status; tolerate the flat form too.
    let status = doc
        .get("application-status")
        .and_then(|a| a.get("status"))
        .or_else(|| doc.get("status"))
        .and_then(|s| s.as_str());
    !matches!(status, Some("unknown" | "unset" | ""))
}

/// What the store remembers once [`write_statuses`] wrote `unit` and `app`.
fn remember_written(store: &mut ScopeStore, unit: &Merged, app: Option<&Merged>) {
    store.written.unit = Some(unit.written.clone());
    if let Some(app) = app {
        store.written.app = Some(app.written.clone());
    }
}

/// One `status-set` per target whose merged status differs from what the
/// store remembers writing; the store then remembers it. `Err` says which
/// write failed (the event then keeps nothing, so the retry writes again).
fn write_statuses(
    model: &mut Model,
    store: &mut ScopeStore,
    unit: &Merged,
    app: Option<&Merged>,
) -> Result<Vec<Target>, String> {
    let mut wrote = Vec::new();
    let targets = [(Target::Unit, Some(unit)), (Target::App, app)];
    for (target, merged) in targets {
        let Some(merged) = merged else { continue };
        let last = match target {
            Target::Unit => &mut store.written.unit,
            Target::App => &mut store.written.app,
        };
        if last.as_ref() == Some(&merged.written) {
            continue;
        }
        status_set(model, target, &merged.written).map_err(|e| {
            format!(
                "writing the {} status failed: {}",
                target.as_str(),
                describe_error(&e)
            )
        })?;
        *last = Some(merged.written.clone());
        wrote.push(target);
    }
    Ok(wrote)
}

/// `status-set [--application] <kind> -- <message>`; `--` because a message
/// may start with `-`.
fn status_set(
    model: &mut Model,
    target: Target,
    written: &Written,
) -> Result<(), crate::bindings::model::ModelError> {
    let mut args = Vec::with_capacity(4);
    if target == Target::App {
        args.push("--application");
    }
    // Also what older hosts stored: no stored text may fail every later hook.
    let message = crate::text::status_message(&written.message);
    args.extend([written.status.as_str(), "--", message.as_str()]);
    model.run("status-set", &args, None).map(drop)
}

/// Scopes to clear after the handlers ran: the broken relation's, the
/// departed unit's, those of handlers the charm no longer declares, and
/// those of probes that no longer gate (or are no longer declared).
fn expired(
    store: &ScopeStore,
    event: &Event,
    handlers: &[Handler],
    gating: &BTreeMap<String, bool>,
) -> Vec<(Target, String)> {
    let gone_relation = match event {
        Event::RelationBroken(r) => Some(relation_scope(&r.relation.endpoint, r.relation.id)),
        _ => None,
    };
    let gone_unit = match event {
        Event::RelationDeparted(r) => r.departing_unit.as_deref().map(unit_scope),
        _ => None,
    };
    let declared: BTreeSet<String> = handlers.iter().map(|h| handler_scope(&h.name)).collect();
    let mut out = Vec::new();
    for target in [Target::Unit, Target::App] {
        for name in store.current_names(target, |n| {
            Some(n) == gone_relation.as_deref()
                || Some(n) == gone_unit.as_deref()
                || (n.starts_with("handler/") && !declared.contains(n))
                || n.strip_prefix("probe/")
                    .is_some_and(|p| !gating.get(p).copied().unwrap_or(false))
        }) {
            out.push((target, name));
        }
    }
    out
}

/// Handlers one component may declare: each costs an instance per event it
/// observes, and their writes are bounded per handler.
pub const MAX_HANDLERS: usize = 64;

/// Refuse declarations the host cannot honour, naming the handler.
fn validate_handlers(handlers: Vec<Handler>, charm: &CharmDir) -> anyhow::Result<Vec<Handler>> {
    anyhow::ensure!(
        handlers.len() <= MAX_HANDLERS,
        "the component declares {} handlers; this host runs at most {MAX_HANDLERS}",
        handlers.len()
    );
    let mut seen = BTreeSet::new();
    for h in &handlers {
        // 120 keeps `handler/<name>` within a scope name's 128 bytes.
        let name_ok = !h.name.is_empty()
            && h.name.len() <= 120
            && h.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        anyhow::ensure!(
            name_ok,
            "handler name `{}` must be 1 to 120 of a-z 0-9 -",
            h.name
        );
        anyhow::ensure!(
            seen.insert(&h.name),
            "handler `{}` is declared twice",
            h.name
        );
        for o in &h.observes {
            if let Some(entity) = &o.entity
                && let Err(why) =
                    event::check_entity(o.kind, entity, &charm.metadata, &charm.actions)
            {
                anyhow::bail!(
                    "handler `{}` observes {} of `{entity}`, but {why}",
                    h.name,
                    event::kind_name(o.kind)
                );
            }
        }
    }
    Ok(handlers)
}

/// Guest output goes to the unit log: stdout at INFO, stderr at WARNING,
/// one `juju-log` per stream and handler.
fn forward_output(model: &mut Model, handler: &str, output: &Output) {
    for (text, level) in [
        (&output.stdout, LogLevel::Info),
        (&output.stderr, LogLevel::Warning),
    ] {
        let text = text.trim_end();
        if !text.is_empty() {
            model.log(level, &format!("[{handler}] {text}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{EventKind, Observation, Priority};
    use crate::charm_dir::{Actions, ConfigSchema, Endpoint, Manifest, Metadata, Role};

    fn charm() -> CharmDir {
        CharmDir {
            path: "/charm".into(),
            metadata: Metadata {
                name: "c".into(),
                endpoints: [(
                    "db".to_string(),
                    Endpoint {
                        role: Role::Requires,
                        interface: "pg".into(),
                        limit: None,
                    },
                )]
                .into(),
                storage: vec!["data".into()],
                containers: vec![],
                ..Metadata::default()
            },
            config: ConfigSchema::default(),
            actions: Actions {
                names: vec!["backup".into()],
                ..Actions::default()
            },
            manifest: Manifest::default(),
        }
    }

    fn handler(name: &str, observes: &[(EventKind, Option<&str>)]) -> Handler {
        Handler {
            name: name.into(),
            observes: observes
                .iter()
                .map(|(kind, entity)| Observation {
                    kind: *kind,
                    entity: entity.map(Into::into),
                })
                .collect(),
            priority: Priority::Normal,
        }
    }

    fn check(handlers: Vec<Handler>) -> Result<(), String> {
        validate_handlers(handlers, &charm())
            .map(drop)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn declarations_are_checked_against_the_charm() {
        assert_eq!(
            check(vec![
                handler(
                    "a",
                    &[
                        (EventKind::Install, None),
                        (EventKind::RelationChanged, Some("db"))
                    ]
                ),
                handler(
                    "b-2",
                    &[
                        (EventKind::Action, Some("backup")),
                        (EventKind::StorageAttached, Some("data"))
                    ]
                ),
            ]),
            Ok(())
        );
        let e = check(vec![handler("a", &[]), handler("a", &[])]).unwrap_err();
        assert_eq!(e, "handler `a` is declared twice");
        let e = check(vec![handler("A", &[])]).unwrap_err();
        assert!(e.contains("handler name `A`"), "{e}");
        assert!(check(vec![handler(&"x".repeat(121), &[])]).is_err());
        let e = check(vec![handler(
            "a",
            &[(EventKind::RelationJoined, Some("cache"))],
        )])
        .unwrap_err();
        assert_eq!(
            e,
            "handler `a` observes relation-joined of `cache`, but metadata.yaml declares no relation endpoint `cache`"
        );
        let e = check(vec![handler(
            "a",
            &[(EventKind::PebbleReady, Some("data"))],
        )])
        .unwrap_err();
        assert!(
            e.ends_with("metadata.yaml declares no container `data`"),
            "{e}"
        );
        let e = check(vec![handler("a", &[(EventKind::Action, Some("restore"))])]).unwrap_err();
        assert!(
            e.ends_with("actions.yaml declares no action `restore`"),
            "{e}"
        );
        let e = check(vec![handler("a", &[(EventKind::Install, Some("db"))])]).unwrap_err();
        assert!(e.contains("install events are not about a named"), "{e}");
        let many: Vec<Handler> = (0..=MAX_HANDLERS)
            .map(|i| handler(&format!("h{i}"), &[]))
            .collect();
        let e = check(many).unwrap_err();
        assert_eq!(
            e,
            "the component declares 65 handlers; this host runs at most 64"
        );
    }

    #[test]
    fn owners_gone_expire_their_scopes() {
        use crate::bindings::{RelationEvent, RelationRef};
        use crate::status::merge::{Band, Kind};
        let mut store = ScopeStore::default();
        for (target, scope) in [
            (Target::Unit, "relation/db:1"),
            (Target::App, "relation/db:1"),
            (Target::Unit, "relation/db:2"),
            (Target::Unit, "unit/pg/0"),
            (Target::Unit, "unit/pg/1"),
            (Target::Unit, "handler/kept"),
            (Target::Unit, "handler/removed"),
            (Target::Unit, "free"),
        ] {
            store.apply(
                Write::Set {
                    target,
                    scope: scope.into(),
                    status: Kind::Blocked,
                    message: "x".into(),
                    priority: Band::Normal,
                },
                "e",
                0,
            );
        }
        let handlers = [handler("kept", &[])];
        let rel = |departing: Option<&str>| RelationEvent {
            relation: RelationRef {
                endpoint: "db".into(),
                id: 1,
            },
            remote_app: "pg".into(),
            remote_unit: departing.map(Into::into),
            departing_unit: departing.map(Into::into),
        };
        assert_eq!(
            expired(
                &store,
                &Event::RelationBroken(rel(None)),
                &handlers,
                &BTreeMap::new()
            ),
            vec![
                (Target::Unit, "handler/removed".to_string()),
                (Target::Unit, "relation/db:1".to_string()),
                (Target::App, "relation/db:1".to_string()),
            ]
        );
        assert_eq!(
            expired(
                &store,
                &Event::RelationDeparted(rel(Some("pg/1"))),
                &handlers,
                &BTreeMap::new()
            ),
            vec![
                (Target::Unit, "handler/removed".to_string()),
                (Target::Unit, "unit/pg/1".to_string()),
            ]
        );
        assert_eq!(
            expired(&store, &Event::UpdateStatus, &handlers, &BTreeMap::new()),
            vec![(Target::Unit, "handler/removed".to_string())]
        );
    }
}
