//! From `wasm-charm run`'s flags to the state before the hook and the
//! environment Juju would set for it (reference juju-protocol.md §1.4). Pure:
//! the state and the charm in, the environment out; every problem with the
//! command line is a [`UsageError`] naming the flag.

use super::run_args::{RunArgs, UsageError};
use super::sim::{SimRelation, SimState};
use crate::charm_dir::{Actions, CharmDir, ConfigType, Metadata};
use crate::event::{self, DispatchPath, EntityKind, HookForm};
use crate::juju_env::JujuEnv;
use std::collections::BTreeMap;

type Usage<T> = Result<T, UsageError>;

fn usage<T>(message: impl Into<String>) -> Usage<T> {
    Err(UsageError(message.into()))
}

/// The event `--event` names, checked against the charm: a hook name (or
/// `hooks/<name>`) or `actions/<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvent {
    pub path: DispatchPath,
    /// Its kind, and the entity its hook name carries.
    pub kind: crate::bindings::EventKind,
    pub entity: Option<String>,
}

/// Check `--event` against the events this charm can receive. Juju ignores a
/// hook the charm does not know (a rolled-back charm must not fail on a newer
/// hook); a person who typed it wants to hear about it, with the closest name.
pub fn check_event(raw: &str, metadata: &Metadata, actions: &Actions) -> Usage<RunEvent> {
    let path = if raw.contains('/') {
        event::parse_dispatch_path(raw).map_err(|e| UsageError(format!("--event: {e}")))?
    } else {
        DispatchPath::Hook(raw.to_string())
    };
    let (wanted, found) = match &path {
        DispatchPath::Action(name) => (
            format!("actions/{name}"),
            actions
                .names
                .contains(name)
                .then(|| (crate::bindings::EventKind::Action, Some(name.clone()))),
        ),
        DispatchPath::Hook(hook) => (
            hook.clone(),
            event::classify_hook(hook)
                .filter(|(kind, entity)| {
                    entity.is_none_or(|e| event::check_entity(*kind, e, metadata, actions).is_ok())
                })
                .map(|(kind, entity)| (kind, entity.map(str::to_string))),
        ),
    };
    match found {
        Some((kind, entity)) => Ok(RunEvent { path, kind, entity }),
        None => {
            let names = event::event_names(metadata, actions);
            let hint = closest(&wanted, &names)
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            usage(format!(
                "--event `{raw}` is not an event of charm `{}`{hint} \
                 (hook names come from metadata.yaml, actions from actions.yaml)",
                metadata.name
            ))
        }
    }
}

use crate::text::closest;

/// A key handed over in memory is checked as the command line checks it.
fn key_of<'a>(flag: &str, key: &'a str) -> Usage<&'a str> {
    if key.is_empty() {
        return usage(format!("--{flag} takes KEY=VALUE, got an empty key"));
    }
    Ok(key)
}

/// The parameters of the action `event` names, as Juju gives them to
/// `action-get`: `--param KEY=VALUE` flags, each value read as YAML as
/// `juju run` reads it (`compress=false` is a boolean, `level=3` an
/// integer), a dotted key nesting a map (`opts.level=3`), then checked
/// against the action's schema in actions.yaml with its defaults filled in.
/// Juju refuses to run an action whose parameters do not fit: a usage error
/// naming the parameter. Empty for any other event.
pub fn action_params(
    args: &RunArgs,
    charm: &CharmDir,
    event: &RunEvent,
) -> Usage<serde_json::Map<String, serde_json::Value>> {
    let DispatchPath::Action(name) = &event.path else {
        // `--param` for another event is refused with the context flags.
        return Ok(serde_json::Map::new());
    };
    let mut given = serde_json::Map::new();
    for param in &args.param {
        let k = key_of("param", &param.key)?;
        insert_dotted(&mut given, k, param.value.clone());
    }
    checked_params(charm, name, serde_json::Value::Object(given))
        .map_err(|why| UsageError(format!("--param: action `{name}`: {why}")))
}

/// An action's parameters as Juju takes them: the whole schema checked
/// first, then the defaults filled in. `Err`: why, as Juju says it.
pub fn checked_params(
    charm: &CharmDir,
    name: &str,
    given: serde_json::Value,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let schema = charm.actions.schema(name);
    if let Some(entry) = &schema.entry {
        super::action_schema::check_entry(name, entry)?;
    }
    super::action_schema::validate(
        &super::action_schema::juju_schema(schema.entry.as_ref()),
        &given,
    )?;
    schema.check(given)
}

/// Set `key` of `map`, a dotted key nesting maps (`opts.level`), a value
/// on the way replaced by a map, as `juju run` nests its parameters.
fn insert_dotted(
    map: &mut serde_json::Map<String, serde_json::Value>,
    key: &str,
    value: serde_json::Value,
) {
    let Some((head, rest)) = key.split_once('.') else {
        map.insert(key.to_string(), value);
        return;
    };
    let entry = map
        .entry(head.to_string())
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    if let serde_json::Value::Object(inner) = entry {
        insert_dotted(inner, rest, value);
    } else {
        let mut inner = serde_json::Map::new();
        insert_dotted(&mut inner, rest, value);
        *entry = serde_json::Value::Object(inner);
    }
}

/// Apply `--config` and `--leader`: what the operator does before the event.
pub fn apply_operator_flags(args: &RunArgs, charm: &CharmDir, state: &mut SimState) -> Usage<()> {
    for kv in &args.config {
        let (k, v) = (key_of("config", &kv.key)?, kv.value.as_str());
        let Some(kind) = charm.config.options.get(k) else {
            return usage(format!(
                "--config {k}: config.yaml declares no option `{k}`"
            ));
        };
        let bad = |what: &str| UsageError(format!("--config {k}: `{v}` is not {what}"));
        let value = match kind {
            ConfigType::String | ConfigType::Secret => serde_json::json!(v),
            ConfigType::Int => serde_json::json!(v.parse::<i64>().map_err(|_| bad("an int"))?),
            ConfigType::Float => serde_json::json!(v.parse::<f64>().map_err(|_| bad("a float"))?),
            ConfigType::Boolean => {
                serde_json::json!(v.parse::<bool>().map_err(|_| bad("true or false"))?)
            }
        };
        state.model.config.insert(k.to_string(), value);
    }
    if let Some(l) = args.leader {
        state.model.leader = l;
    }
    Ok(())
}

/// The family of context flags an event takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Relation,
    Storage,
    Pebble,
    Secret,
    Action,
}

impl Family {
    fn of(kind: crate::bindings::EventKind) -> Option<Family> {
        match event::hook_form(kind) {
            HookForm::Entity(_, EntityKind::Endpoint) => Some(Family::Relation),
            HookForm::Entity(_, EntityKind::Storage) => Some(Family::Storage),
            HookForm::Entity(_, EntityKind::Container) => Some(Family::Pebble),
            HookForm::Fixed(_) if event::is_secret(kind) => Some(Family::Secret),
            HookForm::Action => Some(Family::Action),
            _ => None,
        }
    }

    fn events(self) -> &'static str {
        match self {
            Family::Relation => "relation events (<endpoint>-relation-*)",
            Family::Storage => "storage events (<storage>-storage-*)",
            Family::Pebble => "Pebble events (<container>-pebble-*)",
            Family::Secret => "secret events (secret-*)",
            Family::Action => "actions (actions/<name>)",
        }
    }
}

/// Every context flag that was given, with its family.
fn given_context_flags(args: &RunArgs) -> Vec<(&'static str, Family)> {
    let mut given = Vec::new();
    let mut add = |set: bool, flag, family| {
        if set {
            given.push((flag, family));
        }
    };
    add(args.relation.is_some(), "--relation", Family::Relation);
    add(args.remote_app.is_some(), "--remote-app", Family::Relation);
    add(
        args.remote_unit.is_some(),
        "--remote-unit",
        Family::Relation,
    );
    add(
        !args.remote_app_data.is_empty(),
        "--remote-app-data",
        Family::Relation,
    );
    add(
        !args.remote_unit_data.is_empty(),
        "--remote-unit-data",
        Family::Relation,
    );
    add(args.storage.is_some(), "--storage", Family::Storage);
    add(args.container.is_some(), "--container", Family::Pebble);
    add(args.notice_id.is_some(), "--notice-id", Family::Pebble);
    add(args.notice_type.is_some(), "--notice-type", Family::Pebble);
    add(args.notice_key.is_some(), "--notice-key", Family::Pebble);
    add(args.check.is_some(), "--check", Family::Pebble);
    add(args.secret_id.is_some(), "--secret-id", Family::Secret);
    add(
        args.secret_label.is_some(),
        "--secret-label",
        Family::Secret,
    );
    add(
        args.secret_revision.is_some(),
        "--secret-revision",
        Family::Secret,
    );
    add(!args.param.is_empty(), "--param", Family::Action);
    given
}

/// Apply the flags of the event's context to the state (a relation the event
/// creates, the remote side's data) and build the hook environment.
pub fn hook_env(
    args: &RunArgs,
    charm: &CharmDir,
    event: &RunEvent,
    state: &mut SimState,
    unit: &str,
) -> Usage<JujuEnv> {
    let family = Family::of(event.kind);
    if let Some((flag, wanted)) = given_context_flags(args)
        .into_iter()
        .find(|(_, f)| Some(*f) != family)
    {
        return usage(format!(
            "{flag} applies to {}, not to `{}`",
            wanted.events(),
            args.event
        ));
    }
    // The charm decides the model's type; the state may say so of a
    // charm without containers.
    state.model.kubernetes |= charm.metadata.is_kubernetes();
    let mut env = JujuEnv::default();
    env.set("JUJU_UNIT_NAME", unit);
    env.set("JUJU_MODEL_NAME", "offline");
    env.set("JUJU_MODEL_UUID", crate::offline::sim::MODEL_UUID);
    env.set("JUJU_VERSION", "3.6.4");
    env.set("JUJU_CHARM_DIR", charm.path.display().to_string());
    // Juju exports it empty on Kubernetes.
    env.set(
        "JUJU_MACHINE_ID",
        if state.model.kubernetes { "" } else { "0" },
    );
    let entity = event.entity.as_deref().unwrap_or_default();
    match &event.path {
        DispatchPath::Action(name) => {
            env.set("JUJU_DISPATCH_PATH", format!("actions/{name}"));
            env.set("JUJU_ACTION_NAME", name.clone());
            env.set("JUJU_ACTION_UUID", "1");
            env.set("JUJU_ACTION_TAG", "action-1");
            return Ok(env);
        }
        DispatchPath::Hook(hook) => {
            env.set("JUJU_DISPATCH_PATH", format!("hooks/{hook}"));
            env.set("JUJU_HOOK_NAME", hook.clone());
        }
    }
    match family {
        Some(Family::Relation) => relation_env(args, event.kind, entity, state, &mut env)?,
        Some(Family::Storage) => storage_env(args, entity, &mut env)?,
        Some(Family::Pebble) => pebble_env(args, event.kind, entity, &mut env)?,
        Some(Family::Secret) => secret_env(args, event.kind, &mut env)?,
        Some(Family::Action) | None => {}
    }
    Ok(env)
}

/// `JUJU_STORAGE_*`: `--storage <name>/<n>`, `<name>/0` by default, mounted
/// where Juju mounts filesystem storage on a machine.
fn storage_env(args: &RunArgs, storage: &str, env: &mut JujuEnv) -> Usage<()> {
    let id = args
        .storage
        .clone()
        .unwrap_or_else(|| format!("{storage}/0"));
    match id.split_once('/') {
        Some((name, n)) if name == storage && n.parse::<u32>().is_ok() => {}
        _ => return usage(format!("--storage `{id}` is not `{storage}/<number>`")),
    }
    env.set("JUJU_STORAGE_KIND", "filesystem");
    env.set(
        "JUJU_STORAGE_LOCATION",
        format!("/var/lib/juju/storage/{id}"),
    );
    env.set("JUJU_STORAGE_ID", id);
    Ok(())
}

fn required<'a>(value: &'a Option<String>, flag: &str, event: &str) -> Usage<&'a str> {
    match value.as_deref() {
        Some(v) if !v.is_empty() => Ok(v),
        _ => usage(format!("{event} needs {flag}")),
    }
}

/// `JUJU_WORKLOAD_NAME` and the notice or check of Pebble events.
fn pebble_env(
    args: &RunArgs,
    kind: crate::bindings::EventKind,
    container: &str,
    env: &mut JujuEnv,
) -> Usage<()> {
    use crate::bindings::EventKind as K;
    if let Some(c) = &args.container
        && c != container
    {
        return usage(format!(
            "--container `{c}` is not the container of `{}` (`{container}`)",
            args.event
        ));
    }
    env.set("JUJU_WORKLOAD_NAME", container);
    let event = &args.event;
    let only = |flags: &[(&str, bool)]| match flags.iter().find(|(_, set)| *set) {
        Some((flag, _)) => usage(format!("{flag} does not apply to `{event}`")),
        None => Ok(()),
    };
    match kind {
        K::PebbleCustomNotice => {
            only(&[("--check", args.check.is_some())])?;
            env.set(
                "JUJU_NOTICE_ID",
                required(&args.notice_id, "--notice-id", event)?,
            );
            env.set(
                "JUJU_NOTICE_TYPE",
                args.notice_type.as_deref().unwrap_or("custom"),
            );
            env.set(
                "JUJU_NOTICE_KEY",
                required(&args.notice_key, "--notice-key", event)?,
            );
        }
        K::PebbleCheckFailed | K::PebbleCheckRecovered => {
            only(&[
                ("--notice-id", args.notice_id.is_some()),
                ("--notice-type", args.notice_type.is_some()),
                ("--notice-key", args.notice_key.is_some()),
            ])?;
            env.set(
                "JUJU_PEBBLE_CHECK_NAME",
                required(&args.check, "--check", event)?,
            );
        }
        _ => only(&[
            ("--check", args.check.is_some()),
            ("--notice-id", args.notice_id.is_some()),
            ("--notice-type", args.notice_type.is_some()),
            ("--notice-key", args.notice_key.is_some()),
        ])?,
    }
    Ok(())
}

/// `JUJU_SECRET_*`: the secret, its label, and for remove and expired the revision.
fn secret_env(args: &RunArgs, kind: crate::bindings::EventKind, env: &mut JujuEnv) -> Usage<()> {
    use crate::bindings::EventKind as K;
    let event = &args.event;
    env.set(
        "JUJU_SECRET_ID",
        required(&args.secret_id, "--secret-id", event)?,
    );
    if let Some(label) = &args.secret_label {
        env.set("JUJU_SECRET_LABEL", label.clone());
    }
    let names_revision = matches!(kind, K::SecretRemove | K::SecretExpired);
    match (&args.secret_revision, names_revision) {
        (None, true) => return usage(format!("{event} needs --secret-revision")),
        (Some(_), false) => {
            return usage(format!(
                "--secret-revision applies to secret-remove and secret-expired, not to `{event}`"
            ));
        }
        (Some(r), true) if r.parse::<u32>().is_err() => {
            return usage(format!(
                "--secret-revision `{r}` is not a non-negative integer"
            ));
        }
        (Some(r), true) => env.set("JUJU_SECRET_REVISION", r.clone()),
        (None, false) => {}
    }
    Ok(())
}

/// The relation of a relation event: named by `--relation`, else the
/// endpoint's only relation, else (for created, joined and changed) a new one
/// with the next free id; its remote unit and the remote side's data.
fn relation_env(
    args: &RunArgs,
    kind: crate::bindings::EventKind,
    endpoint: &str,
    state: &mut SimState,
    env: &mut JujuEnv,
) -> Usage<()> {
    use crate::bindings::EventKind as K;
    let creates = matches!(
        kind,
        K::RelationCreated | K::RelationJoined | K::RelationChanged
    );
    let id = relation_id(args, endpoint, creates, state)?;
    let rel = relation_of_event(args, &id, creates, state)?;
    let remote_unit = remote_unit(args, kind, &id, rel)?;
    apply_remote_data(args, rel, remote_unit.as_deref())?;
    env.set("JUJU_RELATION", endpoint);
    env.set("JUJU_RELATION_ID", id);
    env.set("JUJU_REMOTE_APP", rel.app.clone());
    if let Some(u) = remote_unit {
        if kind == K::RelationDeparted {
            env.set("JUJU_DEPARTING_UNIT", u.clone());
        }
        env.set("JUJU_REMOTE_UNIT", u);
    }
    Ok(())
}

/// The id of the event's relation: `--relation`, else the endpoint's only
/// relation, else (when the event `creates` one) the next free id.
fn relation_id(args: &RunArgs, endpoint: &str, creates: bool, state: &SimState) -> Usage<String> {
    let hook = &args.event;
    let existing: Vec<String> = state
        .model
        .relations
        .keys()
        .filter(|k| k.rsplit_once(':').is_some_and(|(e, _)| e == endpoint))
        .cloned()
        .collect();
    match (&args.relation, existing.as_slice()) {
        (Some(r), _) => match crate::bindings::parse_relation_id(r) {
            None => usage(format!("--relation `{r}` is not `<endpoint>:<id>`")),
            Some(p) if p.endpoint != endpoint => usage(format!(
                "--relation `{r}` is not a relation of `{endpoint}`"
            )),
            Some(_) => Ok(r.clone()),
        },
        (None, [only]) => Ok(only.clone()),
        (None, []) if creates => {
            let next = state
                .model
                .relations
                .keys()
                .filter_map(|k| k.rsplit(':').next()?.parse::<u32>().ok())
                .max()
                .map_or(0, |m| m + 1);
            Ok(format!("{endpoint}:{next}"))
        }
        (None, []) => usage(format!("the state has no `{endpoint}` relation for {hook}")),
        (None, _) => usage(format!(
            "the state has several `{endpoint}` relations: name one with --relation"
        )),
    }
}

/// The relation `id` of the state, created with `--remote-app` when the
/// event `creates` it and the state has none.
fn relation_of_event<'s>(
    args: &RunArgs,
    id: &str,
    creates: bool,
    state: &'s mut SimState,
) -> Usage<&'s mut SimRelation> {
    let hook = &args.event;
    if !state.model.relations.contains_key(id) {
        if !creates {
            return usage(format!("the state has no relation `{id}` for {hook}"));
        }
        let Some(app) = args.remote_app.clone() else {
            return usage(format!(
                "{hook} creates relation `{id}`: name its application with --remote-app"
            ));
        };
        state.model.relations.insert(
            id.to_string(),
            SimRelation {
                app,
                ..SimRelation::default()
            },
        );
    }
    match state.model.relations.get_mut(id) {
        Some(rel) => Ok(rel),
        None => usage(format!("the state has no relation `{id}`")),
    }
}

/// The remote unit of the event: `--remote-unit`, else the relation's
/// first unit (joined and changed make `<app>/0` when it has none, and
/// join it). Departed needs one the relation has.
fn remote_unit(
    args: &RunArgs,
    kind: crate::bindings::EventKind,
    id: &str,
    rel: &mut SimRelation,
) -> Usage<Option<String>> {
    use crate::bindings::EventKind as K;
    let remote_unit = match (&args.remote_unit, kind) {
        (Some(u), _) => Some(u.clone()),
        (None, K::RelationJoined | K::RelationChanged) if rel.units.is_empty() => {
            Some(format!("{}/0", rel.app))
        }
        (None, K::RelationJoined | K::RelationChanged | K::RelationDeparted) => {
            rel.units.first().cloned()
        }
        _ => None,
    };
    match (&remote_unit, kind) {
        (Some(u), K::RelationJoined | K::RelationChanged) if !rel.units.contains(u) => {
            rel.units.push(u.clone());
        }
        (Some(u), K::RelationDeparted) if !rel.units.contains(u) => {
            return usage(format!(
                "relation `{id}` has no unit `{u}` to depart (its units: {:?})",
                rel.units
            ));
        }
        (None, K::RelationDeparted) => {
            return usage(format!(
                "relation `{id}` has no remote unit to depart; name one with --remote-unit"
            ));
        }
        _ => {}
    }
    Ok(remote_unit)
}

/// `--remote-app-data` and `--remote-unit-data`: the remote side's
/// databags, a key with an empty value deleted.
fn apply_remote_data(
    args: &RunArgs,
    rel: &mut SimRelation,
    remote_unit: Option<&str>,
) -> Usage<()> {
    for kv in &args.remote_app_data {
        let k = key_of("remote-app-data", &kv.key)?;
        set_or_delete(&mut rel.app_data, k, &kv.value);
    }
    for kv in &args.remote_unit_data {
        let (k, v) = (key_of("remote-unit-data", &kv.key)?, kv.value.as_str());
        let Some(u) = remote_unit else {
            return usage("--remote-unit-data needs a remote unit (--remote-unit)");
        };
        set_or_delete(rel.unit_data.entry(u.to_string()).or_default(), k, v);
    }
    Ok(())
}

fn set_or_delete(bag: &mut BTreeMap<String, String>, k: &str, v: &str) {
    if v.is_empty() {
        bag.remove(k);
    } else {
        bag.insert(k.to_string(), v.to_string());
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
pub(super) mod tests;
