//! One event, top to bottom (DESIGN §3). The Juju path and the offline path
//! differ only in what answers hook-tool calls ([`HookTools`]) and where the
//! scope store lives ([`ScopeBackend`]).

use crate::actions;
use crate::bindings::model::LogLevel;
use crate::bindings::{Event, Handler, Status};
use crate::charm_dir::{CharmDir, OnError};
use crate::event::{self, Resolved};
use crate::juju_env::JujuEnv;
use crate::model::hook_tools::HookTools;
use crate::model::{Identity, Model, describe_error};
use crate::probe::Probes;
use crate::runtime::cache;
use crate::runtime::{self, EventState, Outcome, Output, Runtime};
use crate::status::merge::{self, Merged, Written};
use crate::status::store::{ScopeStore, Target, Write};
use crate::status::{ScopeWrites, handler_scope, relation_scope, store_file, unit_scope};
use std::collections::BTreeSet;

/// Where the scope store lives for this run.
pub trait ScopeBackend {
    fn load(&mut self) -> anyhow::Result<ScopeStore>;
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

/// How one handler ended, as reported to the operator.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerResult {
    Set(Status),
    Cleared,
    Error(String),
    Trapped(String),
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
    /// Reasons the hook fails; empty when it succeeds.
    pub failures: Vec<String>,
    /// The store after the event.
    pub store: ScopeStore,
}

/// Run one event. `Err` is a failure before any handler ran (the hook fails,
/// nothing stored changes); handler failures are in [`Report::failures`].
pub fn run_event(
    charm: &CharmDir,
    env: &JujuEnv,
    tools: std::sync::Arc<dyn HookTools>,
    backend: &mut dyn ScopeBackend,
    now: u64,
) -> anyhow::Result<Report> {
    // 1. the event
    let event = match event::resolve(env, &charm.metadata, &charm.actions)? {
        Resolved::Event(e) => e,
        Resolved::Unknown { hook, reason } => {
            return Ok(Report {
                ignored: Some(format!("hook `{hook}` ignored: {reason}")),
                ..Report::default()
            });
        }
    };
    let described = event::describe(&event);
    let identity = Identity {
        unit: env.unit_name()?.to_string(),
        app: env.app_name()?.to_string(),
        model: env.model_name().to_string(),
    };
    // 2.–4. the component and the store
    let mut store = backend.load()?;
    let loaded = store.clone();
    let state_dir = charm.path.join(store_file::STATE_DIR);
    let mut component = runtime::identify(&charm.component_path(), &state_dir)?;
    // Loaded at the first handler that runs: an event no handler observes
    // needs neither wasmtime nor the component.
    let mut runtime: Option<Runtime> = None;
    let limits = charm.manifest.limits;
    let mut model = Model::new(tools, charm.config.clone(), identity);
    if let Some(r) = event::relation_of(&event) {
        model.set_event_relation(
            &r.relation,
            &r.remote_app,
            matches!(event, Event::RelationBroken(_)),
        );
    }
    let endpoints: BTreeSet<String> = charm.metadata.endpoints.keys().cloned().collect();
    let mut state = EventState {
        status: ScopeWrites::new(endpoints),
        model,
        probes: Probes,
    };
    let mut report = Report {
        event: Some(described.clone()),
        ..Report::default()
    };

    let handlers = match cache::declarations(&state_dir, &component) {
        Some(handlers) => handlers,
        None => {
            let rt = runtime.insert(Runtime::load(&mut component, &state_dir)?);
            let (declared, s, output) = rt.declare(state, &limits);
            state = s;
            forward_output(&mut state.model, "declare", &output);
            let handlers =
                declared.map_err(|trap| anyhow::anyhow!("the component's `declare` {trap}"))?;
            cache::store_declarations(&state_dir, &component, &handlers);
            handlers
        }
    };
    let handlers = validate_handlers(handlers, charm)?;

    // 5. every handler that observes the event, in declaration order
    for handler in handlers
        .iter()
        .filter(|h| h.observes.iter().any(|o| event::observes(o, &event)))
    {
        let rt = match &mut runtime {
            Some(rt) => rt,
            None => runtime.insert(Runtime::load(&mut component, &state_dir)?),
        };
        let (outcome, s, mut output) = rt.run(&handler.name, &event, state, &limits);
        state = s;
        if matches!(outcome, Outcome::Trapped(_)) {
            // The trap report below already ends with the stderr tail.
            output.stderr.clear();
        }
        forward_output(&mut state.model, &handler.name, &output);
        let writes = state.status.take();
        let scope = handler_scope(&handler.name);
        let own = |status: Option<Status>| match status {
            Some(s) => Write::Set {
                target: Target::Unit,
                scope: scope.clone(),
                status: s.kind.into(),
                message: truncate_message(s.message),
                priority: handler.priority.into(),
            },
            None => Write::Clear {
                target: Target::Unit,
                scope: scope.clone(),
            },
        };
        let (result, own_write) = match outcome {
            Outcome::Returned(Ok(status)) => (
                status
                    .clone()
                    .map_or(HandlerResult::Cleared, HandlerResult::Set),
                Some(own(status)),
            ),
            Outcome::Returned(Err(msg)) if charm.manifest.on_error == OnError::Block => {
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
                (HandlerResult::Error(msg), Some(own(Some(status))))
            }
            Outcome::Returned(Err(msg)) => {
                let why = format!("handler `{}` failed: {msg} (on-error: fail)", handler.name);
                state.model.log(LogLevel::Error, &why);
                report.failures.push(why);
                (HandlerResult::Error(msg), None)
            }
            Outcome::Trapped(trap) => {
                let why = format!(
                    "handler `{}` {trap}; its status and relation writes were dropped",
                    handler.name
                );
                state.model.log(LogLevel::Error, &why);
                report.failures.push(why);
                (HandlerResult::Trapped(trap), None)
            }
        };
        match own_write {
            Some(own_write) => {
                state.model.commit_handler();
                for w in writes.into_iter().chain([own_write]) {
                    store.apply(w, &described, now);
                }
            }
            None => state.model.abort_handler(),
        }
        report.handlers.push((handler.name.clone(), result));
    }

    // 6. scopes whose owner is gone
    for (target, scope) in expired(&store, &event, &handlers) {
        store.apply(Write::Clear { target, scope }, &described, now);
    }

    // (7. readiness probes: none are declared by this host version.)

    // Relation writes, before statuses: a failure here fails the hook.
    if let Err(e) = state.model.flush() {
        report.failures.push(format!(
            "sending relation data failed: {}",
            describe_error(&e)
        ));
    }

    // 8. merge
    if matches!(event, Event::LeaderElected) && store.written.app.is_some() {
        // Another leader may have written the app status meanwhile: what this
        // unit wrote before is no longer what Juju shows, so write it again.
        store.written.app = None;
    }
    let ready = &charm.manifest.ready_message;
    let unit = merge::merge(store.views(Target::Unit), ready);
    let app = if store.has_current(Target::App) || store.written.app.is_some() {
        match crate::bindings::model::Host::is_leader(&mut state.model) {
            Ok(true) => Some(merge::merge(store.views(Target::App), ready)),
            Ok(false) => None,
            Err(e) => {
                report.failures.push(format!(
                    "cannot tell whether this unit leads: {}",
                    describe_error(&e)
                ));
                None
            }
        }
    } else {
        None
    };

    // 9. persist, then write what changed
    let mut to_write = Vec::new();
    if store.written.unit.as_ref() != Some(&unit.written) {
        store.written.unit = Some(unit.written.clone());
        to_write.push((Target::Unit, unit.written.clone()));
    }
    if let Some(app) = &app
        && store.written.app.as_ref() != Some(&app.written)
    {
        store.written.app = Some(app.written.clone());
        to_write.push((Target::App, app.written.clone()));
    }
    // An event that changed nothing writes nothing: no fsync on update-status.
    if store != loaded {
        backend.save(&store)?;
    }
    let mut unsure = false;
    for (target, written) in to_write {
        match status_set(&mut state.model, target, &written) {
            Ok(()) => report.wrote.push(target),
            Err(e) => {
                report.failures.push(format!(
                    "writing the {} status failed: {}",
                    target.as_str(),
                    describe_error(&e)
                ));
                // Forget what was "written" so the next event writes it again.
                match target {
                    Target::Unit => store.written.unit = None,
                    Target::App => store.written.app = None,
                }
                unsure = true;
            }
        }
    }
    if unsure {
        backend.save(&store)?;
    }

    // Built-in actions (DESIGN §9) answer from the store as the event left it.
    if let Event::Action(action) = &event
        && let Err(why) = actions::answer(&action.name, &mut state.model, &store)
    {
        report.failures.push(why);
    }
    report.unit = Some(unit);
    report.app = app;
    report.store = store;
    Ok(report)
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
    args.extend([written.status.as_str(), "--", written.message.as_str()]);
    model.run("status-set", &args, None).map(drop)
}

/// The handler's own message is kept whole in the store up to the bound the
/// status interface enforces; longer returns are cut, not refused, because a
/// return value cannot be rejected without losing the handler's result.
fn truncate_message(mut message: String) -> String {
    let max = crate::status::MAX_MESSAGE;
    message.truncate(message.floor_char_boundary(max));
    message
}

/// Scopes to clear after the handlers ran: the broken relation's, the
/// departed unit's, and those of handlers the charm no longer declares.
fn expired(store: &ScopeStore, event: &Event, handlers: &[Handler]) -> Vec<(Target, String)> {
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
        }) {
            out.push((target, name));
        }
    }
    out
}

/// Refuse declarations the host cannot honour, naming the handler.
fn validate_handlers(handlers: Vec<Handler>, charm: &CharmDir) -> anyhow::Result<Vec<Handler>> {
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
            },
            config: ConfigSchema::default(),
            actions: Actions {
                names: vec!["backup".into()],
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
            expired(&store, &Event::RelationBroken(rel(None)), &handlers),
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
                &handlers
            ),
            vec![
                (Target::Unit, "handler/removed".to_string()),
                (Target::Unit, "unit/pg/1".to_string()),
            ]
        );
        assert_eq!(
            expired(&store, &Event::UpdateStatus, &handlers),
            vec![(Target::Unit, "handler/removed".to_string())]
        );
    }
}
