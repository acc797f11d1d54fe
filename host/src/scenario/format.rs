//! The scenario file: a charm, an optional initial state (the fields of
//! `wasm-charm run`'s state file), and steps, each an event with the changes
//! made before it (as `run`'s flags make them) and what to expect after it.
//! Every key is checked here, so a typo is a bad file naming the file, the
//! step and the key, never an expectation silently not checked.

use crate::offline::sim::ScriptedProbe;
use crate::offline::state_file::StateFile;
use crate::offline::{KeyValue, Param, RunArgs};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A scenario file that cannot be run as written: `test` exits 2 for it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadFile(pub String);

type Bad<T> = Result<T, BadFile>;

pub struct Scenario {
    pub path: PathBuf,
    /// As written: relative to the scenario file's directory (or `--charms`).
    pub charm: PathBuf,
    pub state: Option<StateFile>,
    pub steps: Vec<Step>,
}

pub struct Step {
    /// The flags this step stands for; `charm` and `state` are the runner's.
    pub args: RunArgs,
    /// Scripted probe outcomes set (or, for `null`, removed) before the event.
    pub probes: BTreeMap<String, Option<ScriptedProbe>>,
    /// How far the scenario's clock moves on before the event (`after`).
    pub after: Duration,
    /// Changes to the simulated containers before the event, by container:
    /// merged into what the state has (maps merged, `null` removes).
    pub containers: Map<String, Value>,
    pub expect: Expect,
}

/// What to check after a step. A map is checked for the keys it names
/// only; `null` there means the key must be absent.
#[derive(Default)]
pub struct Expect {
    /// `ok` (also when not given) or `failed`.
    pub exit_ok: bool,
    /// `exit: refused`: Juju refuses to run the event (an action's
    /// parameters its schema does not take), with `refusal`'s text in its
    /// words when given.
    pub refused: Option<String>,
    /// By key, in the order the file gives them: the documents compared
    /// whole against the same part of what happened.
    pub documents: Vec<(&'static str, Value)>,
    /// By key: lines each of which must be part of one line of what happened.
    pub contains: Vec<(&'static str, Vec<String>)>,
    /// By key (`tool-call-counts`, `pebble-call-counts`,
    /// `machine-call-counts`): how many of the event's calls of that kind
    /// contain each text, in the order the file gives them.
    pub counts: Vec<(&'static str, Vec<(String, u64)>)>,
}

const TOP: &[&str] = &["charm", "state", "fixtures", "steps"];
const STEP: &[&str] = &[
    "event",
    "config",
    "leader",
    "relation",
    "remote-app",
    "remote-unit",
    "remote-app-data",
    "remote-unit-data",
    "storage",
    "container",
    "notice-id",
    "notice-type",
    "notice-key",
    "check",
    "secret-id",
    "secret-label",
    "secret-revision",
    "params",
    "probes",
    "after",
    "containers",
    "expect",
];
/// Compared as documents (`exit` and the list keys apart).
pub const DOCUMENTS: &[&str] = &[
    "unit-status",
    "app-status",
    "scopes",
    "app-scopes",
    "relation-data",
    "stored",
    "action-results",
    "action-failed",
    "storage",
    "reboot",
    "machine",
    "scope-history",
    "app-scope-history",
    "containers",
    "secrets",
];
pub const CONTAINS: &[&str] = &[
    "logs-contain",
    "tool-calls",
    "machine-calls",
    "pebble-calls",
];
/// The keys compared as counts, each of the calls its list key names.
pub const COUNTS: &[&str] = &[
    "tool-call-counts",
    "pebble-call-counts",
    "machine-call-counts",
];

pub(super) fn unknown(keys: &Map<String, Value>, known: &[&str]) -> Option<String> {
    keys.keys().find(|k| !known.contains(&k.as_str())).cloned()
}

/// A scalar as a flag's value: strings as they are, numbers and booleans
/// as YAML writes them, `null` as empty (which deletes, as `--x KEY=` does).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => Some(String::new()),
        Value::Bool(_) | Value::Number(_) => Some(v.to_string()),
        _ => None,
    }
}

/// Read and check a scenario file.
pub fn load(path: &Path) -> Bad<Scenario> {
    let file = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|e| BadFile(format!("{file}: cannot read: {e}")))?;
    parse_text(path, &text)
}

/// Check a scenario file's text; `path` names it as in [`parse`].
pub fn parse_text(path: &Path, text: &str) -> Bad<Scenario> {
    let doc: Value = serde_saphyr::from_str(text)
        .map_err(|e| BadFile(format!("{}: not YAML: {e}", path.display())))?;
    parse(path, doc)
}

/// Check a scenario document; `path` names it in messages and anchors its
/// relative charm path.
pub fn parse(path: &Path, doc: Value) -> Bad<Scenario> {
    let file = path.display();
    let Value::Object(top) = doc else {
        return Err(BadFile(format!(
            "{file}: a scenario is a map with `charm`, `state` and `steps`"
        )));
    };
    if let Some(key) = unknown(&top, TOP) {
        return Err(BadFile(format!(
            "{file}: unknown key `{key}` (a scenario has {})",
            TOP.join(", ")
        )));
    }
    let charm = match top.get("charm") {
        Some(Value::String(c)) if !c.is_empty() => PathBuf::from(c),
        _ => {
            return Err(BadFile(format!(
                "{file}: `charm`: the charm directory, relative to this file, is required"
            )));
        }
    };
    let raw_state = match top.get("fixtures") {
        None => top.get("state").cloned(),
        Some(f) => Some(
            super::fixtures::apply(f, top.get("state").cloned())
                .map_err(|e| BadFile(format!("{file}: {e}")))?,
        ),
    };
    let state = match raw_state {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<StateFile>(v)
                .map_err(|e| BadFile(format!("{file}: `state`: {e}")))?,
        ),
    };
    let steps = steps(path, &top, step)?;
    Ok(Scenario {
        path: path.to_path_buf(),
        charm,
        state,
        steps,
    })
}

/// A scenario's `steps`, each read by `step` with where it is
/// (`<file>: step <n>`); none is a bad file.
pub(super) fn steps<T>(
    path: &Path,
    top: &Map<String, Value>,
    step: impl Fn(&str, &Value) -> Bad<T>,
) -> Bad<Vec<T>> {
    let file = path.display();
    let Some(Value::Array(raw)) = top.get("steps") else {
        return Err(BadFile(format!(
            "{file}: `steps`: a list of steps is required"
        )));
    };
    if raw.is_empty() {
        return Err(BadFile(format!("{file}: `steps`: no step to run")));
    }
    raw.iter()
        .enumerate()
        .map(|(i, s)| step(&format!("{file}: step {}", i + 1), s))
        .collect()
}

fn step(at: &str, raw: &Value) -> Bad<Step> {
    let Value::Object(m) = raw else {
        return Err(BadFile(format!("{at}: a step is a map with `event`")));
    };
    let event = match m.get("event") {
        Some(Value::String(e)) if !e.is_empty() => e.clone(),
        _ => return Err(BadFile(format!("{at}: `event` is required"))),
    };
    let at = format!("{at} ({event})");
    if let Some(key) = unknown(m, STEP) {
        return Err(BadFile(format!(
            "{at}: unknown key `{key}` (a step has {})",
            STEP.join(", ")
        )));
    }
    let leader = match m.get("leader") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(BadFile(format!("{at}: `leader`: true or false"))),
    };
    // Each parameter as the file types it (`compress: false` a boolean,
    // `target: '3'` a string).
    let param = match m.get("params") {
        None => Vec::new(),
        Some(Value::Object(map)) => map.iter().map(|(k, v)| Param::new(k, v.clone())).collect(),
        Some(_) => return Err(BadFile(format!("{at}: `params`: a map is expected"))),
    };
    let probes = match m.get("probes") {
        None => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| BadFile(format!("{at}: `probes`: {e}")))?,
    };
    let after = after(&at, m)?;
    let containers = containers(&at, m)?;
    let args = run_args(&at, m, event, leader, param)?;
    let expect = match m.get("expect") {
        None => Expect {
            exit_ok: true,
            ..Expect::default()
        },
        Some(v) => expect(&at, v)?,
    };
    Ok(Step {
        args,
        probes,
        after,
        containers,
        expect,
    })
}

/// A step's `after`: how far the clock moves on before its event.
fn after(at: &str, m: &Map<String, Value>) -> Bad<Duration> {
    match m.get("after") {
        None => Ok(Duration::ZERO),
        Some(Value::String(d)) => {
            crate::duration::parse_duration(d).map_err(|e| BadFile(format!("{at}: `after`: {e}")))
        }
        Some(_) => Err(BadFile(format!(
            "{at}: `after`: a duration is expected (e.g. 500ms, 90s, 5m, 1h)"
        ))),
    }
}

/// A step's `containers`: the changes to the simulated containers.
fn containers(at: &str, m: &Map<String, Value>) -> Bad<Map<String, Value>> {
    match m.get("containers") {
        None => Ok(Map::new()),
        Some(Value::Object(c)) => Ok(c.clone()),
        Some(_) => Err(BadFile(format!(
            "{at}: `containers`: a map of containers is expected"
        ))),
    }
}

/// The `wasm-charm run` flags a step stands for.
fn run_args(
    at: &str,
    m: &Map<String, Value>,
    event: String,
    leader: Option<bool>,
    param: Vec<Param>,
) -> Bad<RunArgs> {
    let text = |key: &str| flag_text(at, m, key);
    let pairs = |key: &str| flag_pairs(at, m, key);
    Ok(RunArgs {
        event,
        config: pairs("config")?,
        leader,
        relation: text("relation")?,
        remote_app: text("remote-app")?,
        remote_unit: text("remote-unit")?,
        remote_app_data: pairs("remote-app-data")?,
        remote_unit_data: pairs("remote-unit-data")?,
        storage: text("storage")?,
        container: text("container")?,
        notice_id: text("notice-id")?,
        notice_type: text("notice-type")?,
        notice_key: text("notice-key")?,
        check: text("check")?,
        secret_id: text("secret-id")?,
        secret_label: text("secret-label")?,
        secret_revision: text("secret-revision")?,
        param,
        ..RunArgs::default()
    })
}

/// A step's flag given as a string (or another scalar).
fn flag_text(at: &str, m: &Map<String, Value>, key: &str) -> Bad<Option<String>> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match scalar(v) {
            Some(s) if !v.is_null() => Ok(Some(s)),
            _ => Err(BadFile(format!("{at}: `{key}`: a string is expected"))),
        },
    }
}

/// `KEY=VALUE` flags from a map of scalars.
fn flag_pairs(at: &str, m: &Map<String, Value>, key: &str) -> Bad<Vec<KeyValue>> {
    match m.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match scalar(v) {
                Some(s) => Ok(KeyValue::new(k, s)),
                None => Err(BadFile(format!(
                    "{at}: `{key}.{k}`: a string, number or boolean is expected"
                ))),
            })
            .collect(),
        Some(_) => Err(BadFile(format!("{at}: `{key}`: a map is expected"))),
    }
}

fn expect(at: &str, raw: &Value) -> Bad<Expect> {
    let Value::Object(m) = raw else {
        return Err(BadFile(format!("{at}: `expect` is a map")));
    };
    let mut out = Expect {
        exit_ok: true,
        ..Expect::default()
    };
    for (key, value) in m {
        if key == "exit" {
            out.exit_ok = match value.as_str() {
                Some("ok") => true,
                Some("failed") => false,
                Some("refused") => {
                    out.refused.get_or_insert_with(String::new);
                    false
                }
                _ => {
                    return Err(BadFile(format!(
                        "{at}: `expect.exit`: `ok`, `failed` or `refused`"
                    )));
                }
            };
        } else if key == "refusal" {
            let Some(text) = value.as_str() else {
                return Err(BadFile(format!(
                    "{at}: `expect.refusal`: a text is expected"
                )));
            };
            out.refused = Some(text.to_string());
            out.exit_ok = false;
        } else if let Some(name) = DOCUMENTS.iter().find(|k| **k == key) {
            shape(at, &format!("expect.{key}"), key, value)?;
            out.documents.push((name, value.clone()));
        } else if let Some(name) = CONTAINS.iter().find(|k| **k == key) {
            let lines = match value {
                Value::String(s) => vec![s.clone()],
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        BadFile(format!(
                            "{at}: `expect.{key}`: a list of strings is expected"
                        ))
                    })?,
                _ => {
                    return Err(BadFile(format!(
                        "{at}: `expect.{key}`: a list of strings is expected"
                    )));
                }
            };
            out.contains.push((name, lines));
        } else if let Some(name) = COUNTS.iter().find(|k| **k == key) {
            out.counts.push((name, counts(at, name, value)?));
        } else {
            return Err(BadFile(format!(
                "{at}: unknown key `expect.{key}` (expect has exit, refusal, {}, {}, {})",
                DOCUMENTS.join(", "),
                CONTAINS.join(", "),
                COUNTS.join(", ")
            )));
        }
    }
    Ok(out)
}

/// `tool-call-counts`: a map of texts to the number of calls expected to
/// contain each (0: none may).
fn counts(at: &str, key: &str, value: &Value) -> Bad<Vec<(String, u64)>> {
    let Value::Object(m) = value else {
        return Err(BadFile(format!(
            "{at}: `expect.{key}`: a map of texts to counts is expected"
        )));
    };
    m.iter()
        .map(|(text, n)| match n.as_u64() {
            Some(n) if !text.is_empty() => Ok((text.clone(), n)),
            _ => Err(BadFile(format!(
                "{at}: `expect.{key}.{text}`: a count (0 or more) of calls containing a \
                 non-empty text is expected"
            ))),
        })
        .collect()
}

/// The keys a document expectation may use below its own, where they are
/// fixed: a misspelt `kind` would otherwise be compared, and never match.
fn shape(at: &str, path: &str, key: &str, value: &Value) -> Bad<()> {
    const STATUS: &[&str] = &["kind", "message"];
    const RELATION: &[&str] = &["app", "unit", "remote-app", "remote-units"];
    const CHANGE: &[&str] = &["kind", "message", "event"];
    const STORAGE: &[&str] = &["kind", "location"];
    const SECRET: &[&str] = &[
        "id",
        "owner",
        "revision",
        "content",
        "description",
        "grants",
    ];
    let check = |path: &str, v: &Value, known: &[&str]| -> Bad<()> {
        match v {
            Value::Null => Ok(()),
            Value::Object(m) => match unknown(m, known) {
                Some(k) => Err(BadFile(format!(
                    "{at}: `{path}`: unknown key `{k}` (expected {})",
                    known.join(", ")
                ))),
                None => Ok(()),
            },
            _ => Err(BadFile(format!(
                "{at}: `{path}`: a map of {} is expected",
                known.join(", ")
            ))),
        }
    };
    let each = |known: &[&str]| -> Bad<()> {
        let Value::Object(m) = value else {
            return Err(BadFile(format!("{at}: `{path}`: a map is expected")));
        };
        m.iter()
            .try_for_each(|(name, v)| check(&format!("{path}.{name}"), v, known))
    };
    match key {
        "unit-status" | "app-status" => check(path, value, STATUS),
        "scopes" | "app-scopes" => each(STATUS),
        "relation-data" => each(RELATION),
        "storage" => each(STORAGE),
        "reboot" => match value {
            Value::String(r) if r == "now" || r == "after-hook" => Ok(()),
            Value::Bool(false) => Ok(()),
            _ => Err(BadFile(format!(
                "{at}: `{path}`: `now`, `after-hook` or `false`"
            ))),
        },
        "secrets" => each(SECRET),
        "scope-history" | "app-scope-history" => {
            let Value::Object(m) = value else {
                return Err(BadFile(format!("{at}: `{path}`: a map is expected")));
            };
            m.iter().try_for_each(|(name, changes)| match changes {
                Value::Null => Ok(()),
                Value::Array(items) => items.iter().enumerate().try_for_each(|(i, c)| {
                    let p = format!("{path}.{name}[{i}]");
                    match c {
                        Value::Object(_) => check(&p, c, CHANGE),
                        _ => Err(BadFile(format!(
                            "{at}: `{p}`: a map of {} is expected",
                            CHANGE.join(", ")
                        ))),
                    }
                }),
                _ => Err(BadFile(format!(
                    "{at}: `{path}.{name}`: a list of changes is expected"
                ))),
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(yaml: &str) -> Value {
        serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("test YAML: {e}"))
    }

    fn bad(yaml: &str) -> String {
        match parse(Path::new("s.yaml"), doc(yaml)) {
            Ok(_) => panic!("accepted: {yaml}"),
            Err(e) => e.0,
        }
    }

    #[test]
    fn a_step_becomes_run_flags() {
        let s = parse(
            Path::new("s.yaml"),
            doc(
                "charm: gw\nsteps:\n- event: config-changed\n  config: {kind: ingress, n: 3}\n  \
                 leader: false\n  params: {target: '3', on: true}\n  \
                 expect: {exit: failed, unit-status: {kind: blocked}, logs-contain: x}\n",
            ),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let step = &s.steps[0];
        assert_eq!(
            step.args.config,
            [KeyValue::new("kind", "ingress"), KeyValue::new("n", "3")]
        );
        assert_eq!(step.args.leader, Some(false));
        assert_eq!(
            step.args.param,
            [Param::new("on", true), Param::new("target", "3")]
        );
        assert!(!step.expect.exit_ok);
        assert_eq!(step.expect.documents[0].0, "unit-status");
        assert_eq!(
            step.expect.contains,
            [("logs-contain", vec!["x".to_string()])]
        );
    }

    #[test]
    fn unknown_keys_name_the_file_step_and_key() {
        assert_eq!(
            bad("charm: gw\nsteps:\n- event: start\n- event: install\n  confg: {}\n"),
            "s.yaml: step 2 (install): unknown key `confg` (a step has event, config, leader, \
             relation, remote-app, remote-unit, remote-app-data, remote-unit-data, storage, \
             container, notice-id, notice-type, notice-key, check, secret-id, secret-label, \
             secret-revision, params, probes, after, containers, expect)"
        );
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {unit-stat: {}}\n");
        assert!(
            e.starts_with("s.yaml: step 1 (start): unknown key `expect.unit-stat`"),
            "{e}"
        );
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {scopes: {a: {knd: x}}}\n");
        assert_eq!(
            e,
            "s.yaml: step 1 (start): `expect.scopes.a`: unknown key `knd` (expected kind, message)"
        );
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {unit-status: active}\n");
        assert!(
            e.contains("`expect.unit-status`: a map of kind, message"),
            "{e}"
        );
        let e = bad("charm: gw\nstep: []\n");
        assert!(e.starts_with("s.yaml: unknown key `step`"), "{e}");
        let e = bad("charm: gw\nstate: {leadr: true}\nsteps: [{event: start}]\n");
        assert!(
            e.starts_with("s.yaml: `state`: ") && e.contains("leadr"),
            "{e}"
        );
    }

    #[test]
    fn after_moves_the_clock_by_a_duration() {
        let s = parse(
            Path::new("s.yaml"),
            doc("charm: gw\nsteps:\n- event: start\n- event: update-status\n  after: 90s\n"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.steps[0].after, Duration::ZERO);
        assert_eq!(s.steps[1].after, Duration::from_secs(90));
        let e = bad("charm: gw\nsteps:\n- event: start\n  after: 90 s\n");
        assert_eq!(
            e,
            "s.yaml: step 1 (start): `after`: `90 s` is not a duration (e.g. 500ms, 2s, 5m, 1h)"
        );
        let e = bad("charm: gw\nsteps:\n- event: start\n  after: 90\n");
        assert!(e.contains("`after`: a duration is expected"), "{e}");
    }

    #[test]
    fn counts_and_histories_are_checked_to_their_keys() {
        let s = parse(
            Path::new("s.yaml"),
            doc("charm: gw\nsteps:\n- event: start\n  expect:\n    \
                 tool-call-counts: {status-set: 1, 'status-set --application': 0}\n    \
                 scope-history: {x: [{kind: blocked, event: start}, {kind: null}]}\n"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let expect = &s.steps[0].expect;
        assert_eq!(
            expect.counts,
            [(
                "tool-call-counts",
                vec![
                    ("status-set".to_string(), 1),
                    ("status-set --application".to_string(), 0)
                ]
            )]
        );
        assert_eq!(expect.documents[0].0, "scope-history");
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {tool-call-counts: {x: -1}}\n");
        assert!(e.contains("`expect.tool-call-counts.x`: a count"), "{e}");
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {tool-call-counts: [x]}\n");
        assert!(e.contains("a map of texts to counts"), "{e}");
        let e =
            bad("charm: gw\nsteps:\n- event: start\n  expect: {scope-history: {x: [{tim: 1}]}}\n");
        assert_eq!(
            e,
            "s.yaml: step 1 (start): `expect.scope-history.x[0]`: unknown key `tim` \
             (expected kind, message, event)"
        );
        let e = bad("charm: gw\nsteps:\n- event: start\n  expect: {scope-history: {x: blocked}}\n");
        assert!(
            e.contains("`expect.scope-history.x`: a list of changes"),
            "{e}"
        );
    }

    #[test]
    fn required_parts_are_named() {
        assert!(bad("steps: [{event: start}]\n").contains("`charm`"));
        assert!(bad("charm: gw\n").contains("`steps`"));
        assert!(bad("charm: gw\nsteps: [{config: {}}]\n").contains("step 1: `event`"));
        assert!(bad("charm: gw\nsteps: [{event: x, expect: {exit: maybe}}]\n").contains("exit"));
        assert!(bad("charm: gw\nsteps: [{event: x, expect: {refusal: [a]}}]\n").contains("a text"));
    }
}
