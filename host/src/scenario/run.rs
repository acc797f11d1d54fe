//! Running a scenario: each step is one `wasm-charm run` (the same
//! `offline::execute`) on a state file in a fresh temporary directory, and
//! its expectations are checked against the state it saved.

use super::diff::line_diff;
use super::format::{BadFile, Expect, Scenario, Step};
use crate::charm_dir::StoreChoice;
use crate::offline::sim::SimState;
use crate::offline::state_file::StateFile;
use crate::offline::{self, UsageError};
use crate::status::store::{Scope, ScopeStore};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// One expectation that did not hold.
pub struct Mismatch {
    /// 1-based, as the file reads.
    pub step: usize,
    pub event: String,
    pub key: String,
    /// The expectation and what happened, as YAML, and their line diff.
    pub diff: String,
    /// The error of a step whose hook failed, for context.
    pub error: Option<String>,
}

/// When every scenario starts: 2026-01-01T00:00:00Z. The clock moves only
/// by the steps' `after`, so the store's history and the probes' grace
/// periods are the same at every run.
pub const START: Duration = Duration::from_secs(1_767_225_600);

/// Run every step; the first step whose expectations do not all hold ends
/// the scenario (later steps build on its state). `Err`: the file is bad
/// (a step `run` would refuse).
pub fn run(scenario: &Scenario, charms: Option<&Path>) -> Result<Vec<Mismatch>, BadFile> {
    let file = scenario.path.display();
    let base = charms.unwrap_or_else(|| crate::atomic_file::parent(&scenario.path));
    // A charm that cannot be read is the file's mistake, not a failed hook;
    // a project is packed once, before the first step, when it changed.
    let charm = crate::pack::project::charm_for_run(&base.join(&scenario.charm))
        .map_err(|e| BadFile(format!("{file}: `charm`: {e:#}")))?;
    let loaded = crate::charm_dir::CharmDir::load(&charm)
        .map_err(|e| BadFile(format!("{file}: `charm`: {e}")))?;
    // Where the scopes are kept: `auto` keeps them in Juju's charm state on
    // Kubernetes, which a charm declaring containers is.
    let kubernetes = loaded.metadata.is_kubernetes()
        || scenario
            .state
            .as_ref()
            .is_some_and(|s| s.sim.model.kubernetes);
    let juju_store = match loaded.manifest.store {
        StoreChoice::Juju => true,
        StoreChoice::Auto => kubernetes,
        StoreChoice::Local => false,
    };
    let dir = tempfile::tempdir()
        .map_err(|e| BadFile(format!("{file}: cannot make a temporary directory: {e}")))?;
    let state_path = dir.path().join("state.yaml");
    let initial = scenario.state.clone().unwrap_or_default();
    save(&state_path, &initial).map_err(|e| BadFile(format!("{file}: `state`: {e:#}")))?;
    let mut clock = UNIX_EPOCH + START;
    for (i, step) in scenario.steps.iter().enumerate() {
        let at = format!("{file}: step {} ({})", i + 1, step.args.event);
        clock += step.after;
        change_state(&at, &state_path, step)?;
        let args = offline::RunArgs {
            charm: charm.clone(),
            state: Some(state_path.clone()),
            now: Some(clock),
            ..clone_args(&step.args)
        };
        let (outcome, error) = match execute(&at, &args, juju_store, &step.expect)? {
            Ran::Event(outcome, error) => (outcome, error),
            Ran::Refused(found) => {
                if found.is_empty() {
                    continue;
                }
                return Ok(mismatches(i, step, found, None));
            }
        };
        if step.expect.refused.is_some() {
            let diff = line_diff("exit: refused\n", "exit: ran\n");
            return Ok(mismatches(i, step, vec![("exit".into(), diff)], error));
        }
        let saved =
            offline::load_state(&state_path).map_err(|e| BadFile(format!("{at}: {e:#}")))?;
        let found = check(&step.expect, &outcome, &saved);
        if !found.is_empty() {
            return Ok(mismatches(i, step, found, error));
        }
    }
    Ok(Vec::new())
}

fn mismatches(
    i: usize,
    step: &Step,
    found: Vec<(String, String)>,
    error: Option<String>,
) -> Vec<Mismatch> {
    found
        .into_iter()
        .map(|(key, diff)| Mismatch {
            step: i + 1,
            event: step.args.event.clone(),
            key,
            diff,
            error: error.clone(),
        })
        .collect()
}

/// How a step's event went: it ran (and how it ended, with the error of a
/// hook that failed before any handler ran), or it was refused as the
/// step expected (with what did not match the expected words).
enum Ran {
    Event(Outcome, Option<String>),
    Refused(Vec<(String, String)>),
}

/// What a step changes in the state file before its event: its scripted
/// probes, then its containers.
fn change_state(at: &str, state_path: &Path, step: &Step) -> Result<(), BadFile> {
    if !step.probes.is_empty() {
        let mut state =
            offline::load_state(state_path).map_err(|e| BadFile(format!("{at}: {e:#}")))?;
        for (name, outcome) in &step.probes {
            match outcome {
                Some(o) => state.sim.scripts.probes.insert(name.clone(), o.clone()),
                None => state.sim.scripts.probes.remove(name),
            };
        }
        save(state_path, &state).map_err(|e| BadFile(format!("{at}: {e:#}")))?;
    }
    if !step.containers.is_empty() {
        let mut state =
            offline::load_state(state_path).map_err(|e| BadFile(format!("{at}: {e:#}")))?;
        change_containers(&mut state, &step.containers)
            .map_err(|e| BadFile(format!("{at}: `containers`: {e}")))?;
        save(state_path, &state).map_err(|e| BadFile(format!("{at}: {e:#}")))?;
    }
    Ok(())
}

/// Run the step's event. A usage error is the file's mistake, unless the
/// step expects Juju to refuse the event.
fn execute(
    at: &str,
    args: &offline::RunArgs,
    juju_store: bool,
    expect: &Expect,
) -> Result<Ran, BadFile> {
    Ok(match offline::execute(args, offline::Runner::Sandbox) {
        Ok(run) => Ran::Event(
            Outcome {
                failed: run.failed,
                juju_store,
            },
            None,
        ),
        Err(e) if e.downcast_ref::<UsageError>().is_some() => {
            let words = format!("{e:#}");
            let Some(wanted) = &expect.refused else {
                return Err(BadFile(format!("{at}: {words}")));
            };
            if words.contains(wanted.as_str()) {
                Ran::Refused(Vec::new())
            } else {
                let diff = line_diff(
                    &format!("refusal: {wanted}\n"),
                    &format!("refusal: {words}\n"),
                );
                Ran::Refused(vec![("refusal".into(), diff)])
            }
        }
        // Failed before any handler ran: the state file is unchanged.
        Err(e) => Ran::Event(
            Outcome {
                failed: true,
                juju_store,
            },
            Some(format!("{e:#}")),
        ),
    })
}

/// Merge a step's `containers` into the state: maps merged key by key,
/// `null` removing, anything else replacing (a JSON merge patch).
fn change_containers(
    state: &mut StateFile,
    changes: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    let mut all = serde_json::to_value(&state.sim.model.containers).map_err(|e| e.to_string())?;
    crate::merge_patch::apply(&mut all, &Value::Object(changes.clone()));
    state.sim.model.containers = serde_json::from_value(all).map_err(|e| e.to_string())?;
    Ok(())
}

fn save(path: &Path, state: &StateFile) -> anyhow::Result<()> {
    offline::save_state(path, &state.sim, &state.machine)
}

/// `RunArgs` is not `Clone` (clap's derive does not need it): the fields a
/// step sets.
fn clone_args(a: &offline::RunArgs) -> offline::RunArgs {
    offline::RunArgs {
        event: a.event.clone(),
        config: a.config.clone(),
        leader: a.leader,
        relation: a.relation.clone(),
        remote_app: a.remote_app.clone(),
        remote_unit: a.remote_unit.clone(),
        remote_app_data: a.remote_app_data.clone(),
        remote_unit_data: a.remote_unit_data.clone(),
        storage: a.storage.clone(),
        container: a.container.clone(),
        notice_id: a.notice_id.clone(),
        notice_type: a.notice_type.clone(),
        notice_key: a.notice_key.clone(),
        check: a.check.clone(),
        secret_id: a.secret_id.clone(),
        secret_label: a.secret_label.clone(),
        secret_revision: a.secret_revision.clone(),
        param: a.param.clone(),
        ..offline::RunArgs::default()
    }
}

/// What the state file does not say: whether the hook failed, and where
/// the charm keeps its scope store.
struct Outcome {
    failed: bool,
    juju_store: bool,
}

/// Every expectation that does not hold, by key, with its diff.
fn check(expect: &Expect, outcome: &Outcome, saved: &StateFile) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let exit = |ok: bool| if ok { "exit: ok\n" } else { "exit: failed\n" };
    if expect.exit_ok == outcome.failed {
        found.push((
            "exit".to_string(),
            line_diff(exit(expect.exit_ok), exit(!outcome.failed)),
        ));
    }
    for (key, wanted) in &expect.documents {
        let actual = project(&actual(key, outcome, saved), wanted);
        if !matches(wanted, &actual) {
            found.push((key.to_string(), line_diff(&yaml(wanted), &yaml(&actual))));
        }
    }
    for (key, wanted) in &expect.contains {
        let lines = lines_of(key, saved);
        // An empty list means none at all, not "nothing in particular".
        if wanted.is_empty() && !lines.is_empty() {
            let actual: String = lines.iter().map(|l| format!("{l}\n")).collect();
            found.push((key.to_string(), line_diff("", &actual)));
            continue;
        }
        let missing: Vec<&String> = wanted
            .iter()
            .filter(|w| !lines.iter().any(|l| l.contains(w.as_str())))
            .collect();
        if !missing.is_empty() {
            // The missing parts against every line there was.
            let expected: String = missing.iter().map(|w| format!("… {w} …\n")).collect();
            let actual: String = lines.iter().map(|l| format!("{l}\n")).collect();
            found.push((key.to_string(), line_diff(&expected, &actual)));
        }
    }
    for (key, counts) in &expect.counts {
        if let Some(diff) = count_diff(counts, &lines_of(key, saved)) {
            found.push((key.to_string(), diff));
        }
    }
    found
}

/// The lines a list or count key is about: the unit log, the hook-tool
/// calls, the Pebble calls (each prefixed by its container) or the
/// machine calls of the event.
fn lines_of(key: &str, saved: &StateFile) -> Vec<String> {
    let sim = &saved.sim;
    match key {
        "logs-contain" => sim.last_event.log.clone(),
        "tool-calls" | "tool-call-counts" => sim.last_event.calls.clone(),
        "pebble-calls" | "pebble-call-counts" => sim
            .model
            .containers
            .iter()
            .flat_map(|(name, c)| c.calls.iter().map(move |l| format!("{name}: {l}")))
            .collect(),
        _ => saved.machine.calls.clone(),
    }
}

/// Every count named against how many `lines` contain its text, then
/// every line there was, for context; `None` when all hold.
fn count_diff(counts: &[(String, u64)], lines: &[String]) -> Option<String> {
    let count = |text: &str| lines.iter().filter(|l| l.contains(text)).count() as u64;
    if counts.iter().all(|(text, n)| count(text) == *n) {
        return None;
    }
    let shown = |n: &dyn Fn(&str, u64) -> u64| -> String {
        counts
            .iter()
            .map(|(text, want)| format!("{text:?}: {}\n", n(text, *want)))
            .collect()
    };
    let context: String = lines.iter().map(|l| format!("# {l}\n")).collect();
    Some(line_diff(
        &shown(&|_, want| want),
        &(shown(&|text, _| count(text)) + &context),
    ))
}

pub(super) fn yaml(v: &Value) -> String {
    serde_saphyr::to_string(v).unwrap_or_else(|e| format!("(cannot show: {e})\n"))
}

/// The part of what happened an expectation key is about.
fn actual(key: &str, outcome: &Outcome, saved: &StateFile) -> Value {
    let sim = &saved.sim;
    let store = || -> ScopeStore {
        if outcome.juju_store {
            crate::status::store_juju::decode_state(&sim.model.charm_state).unwrap_or_default()
        } else {
            sim.store.scopes.clone().unwrap_or_default()
        }
    };
    match key {
        "scope-history" => scope_history(&store().unit),
        "app-scope-history" => scope_history(&store().app),
        "unit-status" => status(&sim.model.status.unit),
        "app-status" => status(&sim.model.status.app),
        "scopes" => current_scopes(&store().unit),
        "app-scopes" => current_scopes(&store().app),
        "relation-data" => relation_data(sim),
        "stored" => Value::Object(
            store()
                .data
                .iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect(),
        ),
        "action-results" => json!(sim.last_event.action_results),
        "action-failed" => match &sim.last_event.action_failed {
            Some(m) => Value::String(m.clone()),
            None => Value::Bool(false),
        },
        "storage" => serde_json::to_value(&sim.model.storage).unwrap_or_default(),
        "reboot" => match sim.last_event.reboot {
            Some(r) => serde_json::to_value(r).unwrap_or_default(),
            None => Value::Bool(false),
        },
        "machine" => serde_json::to_value(&saved.machine).unwrap_or_default(),
        "containers" => serde_json::to_value(&sim.model.containers).unwrap_or_default(),
        "secrets" => secrets(&sim.model.secrets),
        _ => Value::Null,
    }
}

/// The secrets Juju keeps, by label (by id when one has none, as a secret
/// the charm adds has an id no scenario can know): `{id, owner, revision,
/// content, description, grants}`, content the latest revision's.
fn secrets(all: &BTreeMap<String, crate::offline::secrets::SimSecret>) -> Value {
    Value::Object(
        all.iter()
            .map(|(id, s)| {
                let latest = s.revisions.iter().max_by_key(|r| r.revision);
                let view = json!({
                    "id": id,
                    "owner": s.owner,
                    "revision": latest.map_or(0, |r| r.revision),
                    "content": latest.map(|r| r.content.clone()).unwrap_or_default(),
                    "description": s.description,
                    "grants": s.grants,
                });
                (s.label.clone().unwrap_or_else(|| id.clone()), view)
            })
            .collect(),
    )
}

/// A status as `{kind, message}`; `null` when none was written.
fn status(w: &Option<crate::status::merge::Written>) -> Value {
    match w {
        Some(w) => json!({"kind": w.status.as_str(), "message": w.message}),
        None => Value::Null,
    }
}

/// Each scope's current status as `{kind, message}`; a cleared scope left
/// out.
fn current_scopes(scopes: &BTreeMap<String, Scope>) -> Value {
    Value::Object(
        scopes
            .iter()
            .filter_map(|(name, s)| {
                let c = s.current.as_ref()?;
                Some((
                    name.clone(),
                    json!({"kind": c.status.as_str(), "message": c.message}),
                ))
            })
            .collect(),
    )
}

/// Each scope's changes as {kind, message, event}; a clearing as kind
/// `null`.
fn scope_history(scopes: &BTreeMap<String, Scope>) -> Value {
    Value::Object(
        scopes
            .iter()
            .map(|(name, s)| {
                let changes = s
                    .history
                    .iter()
                    .map(|c| {
                        json!({
                            "kind": c.status.map(|k| k.as_str()),
                            "message": c.message,
                            "event": c.event,
                        })
                    })
                    .collect();
                (name.clone(), Value::Array(changes))
            })
            .collect(),
    )
}

/// Each relation's four databags, by relation id.
fn relation_data(sim: &SimState) -> Value {
    Value::Object(
        sim.model
            .relations
            .iter()
            .map(|(id, r)| {
                (
                    id.clone(),
                    json!({
                        "app": r.local_app_data,
                        "unit": r.local_unit_data,
                        "remote-app": r.app_data,
                        "remote-units": r.unit_data,
                    }),
                )
            })
            .collect(),
    )
}

/// `actual` cut to the keys `wanted` names, a missing one as `null`, so
/// the diff shows only what the expectation is about.
pub(super) fn project(actual: &Value, wanted: &Value) -> Value {
    match (actual, wanted) {
        // An empty map or list means none at all: compared whole, absent
        // counting as empty.
        (Value::Null, Value::Object(w)) if w.is_empty() => json!({}),
        (Value::Null, Value::Array(w)) if w.is_empty() => json!([]),
        (_, Value::Object(w)) if w.is_empty() => actual.clone(),
        (Value::Object(a), Value::Object(w)) => Value::Object(
            w.iter()
                .map(|(k, wv)| {
                    let av = a.get(k).unwrap_or(&Value::Null);
                    (k.clone(), project(av, wv))
                })
                .collect(),
        ),
        // Item by item (a scope's history): each cut to the keys its
        // expectation names; items past the expected ones shown whole.
        (Value::Array(a), Value::Array(w)) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, av)| w.get(i).map_or_else(|| av.clone(), |wv| project(av, wv)))
                .collect(),
        ),
        // A scope expected absent shows as absent when it has no status.
        (Value::Null, _) => Value::Null,
        _ => actual.clone(),
    }
}

/// Equal, a number or boolean the file wrote matching the same text (Juju's
/// data and results are strings; `port: 80` means "80").
pub(super) fn matches(wanted: &Value, actual: &Value) -> bool {
    match (wanted, actual) {
        (Value::Object(w), Value::Object(a)) => {
            w.len() == a.len()
                && w.iter()
                    .all(|(k, wv)| a.get(k).is_some_and(|av| matches(wv, av)))
        }
        (Value::Array(w), Value::Array(a)) => {
            w.len() == a.len() && w.iter().zip(a).all(|(wv, av)| matches(wv, av))
        }
        (Value::Number(_) | Value::Bool(_), Value::String(s)) => {
            let shown = wanted.to_string();
            *s == shown
        }
        _ => wanted == actual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_keeps_only_the_keys_expected() {
        let actual = json!({"kind": "active", "message": "ready", "extra": 1});
        let wanted = json!({"kind": "active", "gone": null});
        let p = project(&actual, &wanted);
        assert_eq!(p, json!({"kind": "active", "gone": null}));
        assert!(matches(&wanted, &p));
    }

    #[test]
    fn an_empty_map_or_list_means_none_at_all() {
        let some = json!({"k": "v"});
        assert!(!matches(&json!({}), &project(&some, &json!({}))));
        assert!(matches(&json!({}), &project(&json!({}), &json!({}))));
        // Absent is none too.
        assert!(matches(&json!({}), &project(&Value::Null, &json!({}))));
        assert!(matches(&json!([]), &project(&Value::Null, &json!([]))));
        assert!(!matches(&json!([]), &project(&json!(["x"]), &json!([]))));
        // Nested: a bag expected empty is compared whole.
        let data = json!({"db:0": {"app": {"k": "v"}, "unit": {}}});
        let wanted = json!({"db:0": {"app": {}}});
        assert!(!matches(&wanted, &project(&data, &wanted)));
        let wanted = json!({"db:0": {"unit": {}}});
        assert!(matches(&wanted, &project(&data, &wanted)));
    }

    #[test]
    fn counts_of_any_kind_of_call_show_every_call() {
        let lines = ["web: replan".to_string(), "web: start web".to_string()];
        assert_eq!(count_diff(&[("replan".into(), 1)], &lines), None);
        let diff = count_diff(&[("replan".into(), 0)], &lines).unwrap();
        assert!(diff.contains("# web: start web"), "{diff}");
    }

    #[test]
    fn lists_are_projected_item_by_item() {
        let actual = json!([
            {"kind": "blocked", "message": "a", "event": "start"},
            {"kind": null, "message": "", "event": "stop"},
        ]);
        let wanted = json!([{"kind": "blocked"}, {"kind": null, "event": "stop"}]);
        let p = project(&actual, &wanted);
        assert_eq!(
            p,
            json!([{"kind": "blocked"}, {"kind": null, "event": "stop"}])
        );
        assert!(matches(&wanted, &p));
        // One change fewer than happened: the extra one shows, whole.
        let p = project(&actual, &json!([{"kind": "blocked"}]));
        assert_eq!(p[1]["event"], "stop");
        assert!(!matches(&json!([{"kind": "blocked"}]), &p));
    }

    #[test]
    fn a_steps_containers_merge_into_the_state() {
        let mut state: StateFile = serde_saphyr::from_str(
            "containers:\n  web:\n    can-connect: false\n    services: {web: active}\n",
        )
        .unwrap();
        let change = json!({"web": {"can-connect": null, "checks": {"alive": {"status": "down"}}}});
        change_containers(&mut state, change.as_object().unwrap()).unwrap();
        let web = &state.sim.model.containers["web"];
        assert!(web.can_connect);
        assert_eq!(web.services.len(), 1);
        assert_eq!(web.checks["alive"].status.as_str(), "down");
        let typo = json!({"web": {"servces": {}}});
        let e = change_containers(&mut state, typo.as_object().unwrap()).unwrap_err();
        assert!(e.contains("servces"), "{e}");
    }

    #[test]
    fn numbers_match_the_strings_juju_keeps() {
        assert!(matches(&json!({"port": 80}), &json!({"port": "80"})));
        assert!(!matches(&json!({"port": 81}), &json!({"port": "80"})));
        assert!(matches(&json!(false), &json!(false)));
    }
}
