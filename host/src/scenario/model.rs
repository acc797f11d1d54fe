//! Model scenarios: a scenario file whose steps are `juju` commands on the
//! offline model (the code `wasm-charm juju` runs, in a models directory of
//! the scenario's own) and whose expectations name units and applications.
//!
//! ```yaml
//! model: {seed: 7}          # or `model: {}`; `seed` picks an interleaving
//! steps:
//!   - juju: deploy db-provider.charm db
//!     expect:
//!       units:
//!         db/0:
//!           events: [install, leader-elected, config-changed, start]
//!           workload-status: {current: active}
//!   - juju: [config, db, "greeting=hello world"]   # a list when a word holds spaces
//!     expect:
//!       exit: ok
//!       stdout: []
//!       apps:
//!         db: {application-status: {current: active}}
//! ```
//!
//! A unit's `events` are the hooks it ran during the step, in order, a
//! relation's with the remote unit (`db-relation-joined (db/0)`), or the
//! remote application for a change of its bag, a secret's with the secret;
//! every other key of a
//! unit or an application is checked against `juju status --format json`
//! (only the keys it names; `null` means absent). `stdout` and `stderr`
//! list texts each found in what the command printed. The charm of a
//! `deploy` and of `refresh --path` is looked up relative to the file
//! (or `--charms`).

use super::diff::line_diff;
use super::format::{BadFile, steps, unknown};
use super::run::{Mismatch, matches, project, yaml};
use crate::juju_cli;
use crate::world::store;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The model scenario's own model, made before the first step.
const MODEL: &str = "scenario";

const TOP: &[&str] = &["model", "steps"];
const MODEL_KEYS: &[&str] = &["seed"];
const STEP: &[&str] = &["juju", "expect"];
const EXPECT: &[&str] = &["exit", "stdout", "stderr", "units", "apps"];

pub struct ModelScenario {
    pub path: PathBuf,
    pub seed: Option<u64>,
    pub steps: Vec<ModelStep>,
}

pub struct ModelStep {
    /// The command's words, `juju` left out.
    pub words: Vec<String>,
    /// The exit code expected: 0, 1 (`failed`) or 2 (`usage`).
    pub exit: u8,
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
    /// By unit or application name: what to find (`null`: absent).
    pub units: Map<String, Value>,
    pub apps: Map<String, Value>,
}

type Bad<T> = Result<T, BadFile>;

/// Whether `top` is a model scenario's document.
pub fn is_model(top: &Value) -> bool {
    top.get("model").is_some()
}

pub fn parse(path: &Path, top: &Value) -> Bad<ModelScenario> {
    let file = path.display();
    let Value::Object(top) = top else {
        return Err(BadFile(format!("{file}: a scenario is a map")));
    };
    if let Some(key) = unknown(top, TOP) {
        return Err(BadFile(format!(
            "{file}: unknown key `{key}` (a model scenario has {})",
            TOP.join(", ")
        )));
    }
    let seed = match top.get("model") {
        Some(Value::Object(m)) => {
            if let Some(key) = unknown(m, MODEL_KEYS) {
                return Err(BadFile(format!(
                    "{file}: `model.{key}`: unknown key (the model takes {})",
                    MODEL_KEYS.join(", ")
                )));
            }
            match m.get("seed") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    BadFile(format!("{file}: `model.seed`: a whole number, not {v}"))
                })?),
            }
        }
        Some(Value::Null) => None,
        _ => return Err(BadFile(format!("{file}: `model`: a map (`{{}}` for none)"))),
    };
    Ok(ModelScenario {
        path: path.to_path_buf(),
        seed,
        steps: steps(path, top, step)?,
    })
}

fn step(at: &str, raw: &Value) -> Bad<ModelStep> {
    let Value::Object(m) = raw else {
        return Err(BadFile(format!("{at}: a step is a map with `juju`")));
    };
    if let Some(key) = unknown(m, STEP) {
        return Err(BadFile(format!(
            "{at}: unknown key `{key}` (a model step has {})",
            STEP.join(", ")
        )));
    }
    let words = words(at, m.get("juju"))?;
    if words.is_empty() {
        return Err(BadFile(format!("{at}: `juju`: no command")));
    }
    let mut step = ModelStep {
        words,
        exit: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
        units: Map::new(),
        apps: Map::new(),
    };
    let expect = match m.get("expect") {
        None | Some(Value::Null) => return Ok(step),
        Some(Value::Object(e)) => e,
        Some(_) => return Err(BadFile(format!("{at}: `expect`: a map"))),
    };
    if let Some(key) = unknown(expect, EXPECT) {
        return Err(BadFile(format!(
            "{at}: `expect.{key}`: unknown key (a model step expects {})",
            EXPECT.join(", ")
        )));
    }
    expectations(at, expect, &mut step)?;
    if let Some((unit, _)) = step
        .units
        .iter()
        .find(|(_, v)| !matches!(v, Value::Object(_) | Value::Null))
    {
        return Err(BadFile(format!(
            "{at}: `expect.units.{unit}`: a map of what to find, or null for absent"
        )));
    }
    Ok(step)
}

/// The command's words: a line split at spaces, or a list.
fn words(at: &str, given: Option<&Value>) -> Bad<Vec<String>> {
    Ok(match given {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(words)) => words
            .iter()
            .map(|w| match w {
                Value::String(s) => Ok(s.clone()),
                Value::Number(_) | Value::Bool(_) => Ok(w.to_string()),
                other => Err(BadFile(format!(
                    "{at}: `juju`: each word is a string, not {other}"
                ))),
            })
            .collect::<Bad<_>>()?,
        _ => {
            return Err(BadFile(format!(
                "{at}: `juju`: the command, as a line or a list of words, is required"
            )));
        }
    })
}

/// `expect`'s exit code, texts, units and applications, into `step`.
fn expectations(at: &str, expect: &Map<String, Value>, step: &mut ModelStep) -> Bad<()> {
    step.exit = match expect.get("exit").and_then(Value::as_str) {
        None if expect.get("exit").is_none() => 0,
        Some("ok") => 0,
        Some("failed") => 1,
        Some("usage") => 2,
        _ => {
            return Err(BadFile(format!(
                "{at}: `expect.exit`: ok, failed (exit 1) or usage (exit 2)"
            )));
        }
    };
    for (key, into) in [("stdout", &mut step.stdout), ("stderr", &mut step.stderr)] {
        *into = match expect.get(key) {
            None => Vec::new(),
            Some(Value::Array(texts)) => texts
                .iter()
                .map(|t| {
                    t.as_str().map(str::to_string).ok_or_else(|| {
                        BadFile(format!("{at}: `expect.{key}`: each text is a string"))
                    })
                })
                .collect::<Bad<_>>()?,
            Some(_) => {
                return Err(BadFile(format!("{at}: `expect.{key}`: a list of texts")));
            }
        };
    }
    for (key, into) in [("units", &mut step.units), ("apps", &mut step.apps)] {
        *into = match expect.get(key) {
            None => Map::new(),
            Some(Value::Object(named)) => named.clone(),
            Some(_) => {
                return Err(BadFile(format!("{at}: `expect.{key}`: a map by name")));
            }
        };
    }
    Ok(())
}

/// Run every step on a fresh model; the first step whose expectations do
/// not all hold ends the scenario.
pub fn run(scenario: &ModelScenario, charms: Option<&Path>) -> Bad<Vec<Mismatch>> {
    let file = scenario.path.display();
    let base = charms.unwrap_or_else(|| crate::atomic_file::parent(&scenario.path));
    let base = std::path::absolute(base)
        .map_err(|e| BadFile(format!("{file}: cannot find its directory: {e}")))?;
    let home = tempfile::tempdir()
        .map_err(|e| BadFile(format!("{file}: cannot make a temporary directory: {e}")))?;
    let made = juju_cli::answer_in(&["add-model".into(), MODEL.into()], home.path(), None);
    if made.code != 0 {
        return Err(BadFile(format!(
            "{file}: cannot make its model: {}",
            made.stderr
        )));
    }
    for (i, step) in scenario.steps.iter().enumerate() {
        let before = history_len(home.path());
        let words = with_charm_paths(&step.words, &base);
        let answered = juju_cli::answer_in(&words, home.path(), scenario.seed);
        let found = check(step, &answered, home.path(), before);
        if !found.is_empty() {
            let event = format!("juju {}", step.words.join(" "));
            return Ok(found
                .into_iter()
                .map(|(key, diff)| Mismatch {
                    step: i + 1,
                    event: event.clone(),
                    key,
                    diff,
                    error: None,
                })
                .collect());
        }
    }
    Ok(Vec::new())
}

/// `words` with the charm of `deploy` and `refresh --path` made absolute
/// under `base` when given relative.
fn with_charm_paths(words: &[String], base: &Path) -> Vec<String> {
    let mut out = words.to_vec();
    let absolute = |w: &str| {
        let p = Path::new(w);
        if p.is_absolute() {
            w.to_string()
        } else {
            base.join(p).display().to_string()
        }
    };
    match words.first().map(String::as_str) {
        Some("deploy") => {
            // The first positional word: flags and their values stepped over.
            let valued = juju_cli::valued_flags("deploy").unwrap_or_default();
            let mut i = 1;
            while i < out.len() {
                let w = &out[i];
                if w == "--" {
                    i += 1;
                    break;
                }
                if !w.starts_with('-') {
                    break;
                }
                i += if !w.contains('=') && valued.contains(&w.as_str()) {
                    2
                } else {
                    1
                };
            }
            if i < out.len() {
                out[i] = absolute(&out[i]);
            }
        }
        Some("refresh") => {
            for i in 1..out.len() {
                if let Some(p) = out[i].strip_prefix("--path=") {
                    out[i] = format!("--path={}", absolute(p));
                } else if out[i] == "--path" && i + 1 < out.len() {
                    out[i + 1] = absolute(&out[i + 1]);
                }
            }
        }
        _ => {}
    }
    out
}

fn history_len(home: &Path) -> usize {
    store::load(&store::model_dir(home, MODEL)).map_or(0, |w| w.history.len())
}

/// What each unit ran since history entry `since`, each named as the
/// model's history and cycles name it ([`Pending::label`]).
///
/// [`Pending::label`]: crate::world::state::Pending::label
fn events_since(home: &Path, since: usize) -> Map<String, Value> {
    let mut by_unit = Map::new();
    let Ok(world) = store::load(&store::model_dir(home, MODEL)) else {
        return by_unit;
    };
    for ran in world.history.iter().skip(since) {
        let shown = ran.event.label();
        let list = by_unit.entry(ran.unit.clone()).or_insert_with(|| json!([]));
        if let Value::Array(l) = list {
            l.push(json!(shown));
        }
    }
    by_unit
}

fn check(
    step: &ModelStep,
    answered: &juju_cli::output::Answered,
    home: &Path,
    since: usize,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if answered.code != step.exit {
        let name = |c: u8| match c {
            0 => "ok".to_string(),
            1 => "failed".to_string(),
            2 => "usage".to_string(),
            n => format!("exit {n}"),
        };
        found.push((
            "exit".to_string(),
            line_diff(
                &format!("exit: {}\n", name(step.exit)),
                &format!("exit: {}\n{}", name(answered.code), answered.stderr),
            ),
        ));
    }
    for (key, wanted, got) in [
        ("stdout", &step.stdout, &answered.stdout),
        ("stderr", &step.stderr, &answered.stderr),
    ] {
        let missing: Vec<&String> = wanted
            .iter()
            .filter(|t| !got.contains(t.as_str()))
            .collect();
        if !missing.is_empty() {
            let want: String = missing.iter().map(|t| format!("{t}\n")).collect();
            found.push((key.to_string(), line_diff(&want, got)));
        }
    }
    if step.units.is_empty() && step.apps.is_empty() {
        return found;
    }
    let status = juju_cli::answer_in(
        &["status".into(), "--format".into(), "json".into()],
        home,
        None,
    );
    let status: Value = serde_json::from_str(&status.stdout).unwrap_or(Value::Null);
    let events = events_since(home, since);
    for (unit, wanted) in &step.units {
        let app = unit.split('/').next().unwrap_or_default();
        let mut actual = status["applications"][app]["units"][unit].clone();
        if let (Value::Object(a), true) = (&mut actual, wanted.get("events").is_some()) {
            a.insert(
                "events".into(),
                events.get(unit).cloned().unwrap_or_else(|| json!([])),
            );
        }
        compare(&mut found, &format!("units.{unit}"), wanted, &actual);
    }
    for (app, wanted) in &step.apps {
        let mut actual = status["applications"][app].clone();
        if let Value::Object(a) = &mut actual {
            // Units are the `units` expectations'.
            a.remove("units");
        }
        compare(&mut found, &format!("apps.{app}"), wanted, &actual);
    }
    found
}

fn compare(found: &mut Vec<(String, String)>, key: &str, wanted: &Value, actual: &Value) {
    let shown = project(actual, wanted);
    if !matches(wanted, &shown) {
        found.push((key.to_string(), line_diff(&yaml(wanted), &yaml(&shown))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Bad<ModelScenario> {
        let doc: Value = serde_saphyr::from_str(text).expect("YAML");
        parse(Path::new("s.yaml"), &doc)
    }

    #[test]
    fn a_step_is_a_command_line_or_its_words_and_typos_are_named() {
        let s = parsed(
            "model: {seed: 3}\nsteps:\n  - juju: deploy ./a.charm a\n  - juju: [config, a, 'k=two words']\n    expect: {exit: failed, stderr: [ERROR]}\n",
        )
        .expect("a good file");
        assert_eq!(s.seed, Some(3));
        assert_eq!(s.steps[0].words, ["deploy", "./a.charm", "a"]);
        assert_eq!(s.steps[1].words, ["config", "a", "k=two words"]);
        assert_eq!((s.steps[1].exit, s.steps[1].stderr.len()), (1, 1));
        let bad = |text: &str| parsed(text).err().map(|e| e.0).unwrap_or_default();
        assert_eq!(
            bad("model: {}\nsteps:\n  - juju: status\n    expect: {unit: {}}\n"),
            "s.yaml: step 1: `expect.unit`: unknown key (a model step expects exit, stdout, stderr, units, apps)"
        );
        assert_eq!(
            bad("model: {sed: 1}\nsteps: [{juju: status}]\n"),
            "s.yaml: `model.sed`: unknown key (the model takes seed)"
        );
        assert_eq!(
            bad("model: {}\nsteps: [{juju: status, expect: {exit: maybe}}]\n"),
            "s.yaml: step 1: `expect.exit`: ok, failed (exit 1) or usage (exit 2)"
        );
        assert_eq!(
            bad("model: {}\nsteps: [{expect: {}}]\n"),
            "s.yaml: step 1: `juju`: the command, as a line or a list of words, is required"
        );
    }

    #[test]
    fn the_charm_of_deploy_and_refresh_is_found_under_the_files_directory() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let base = Path::new("/charms");
        assert_eq!(
            with_charm_paths(
                &words(&["deploy", "-n", "2", "--trust", "db.charm", "db"]),
                base
            ),
            words(&["deploy", "-n", "2", "--trust", "/charms/db.charm", "db"])
        );
        assert_eq!(
            with_charm_paths(&words(&["deploy", "db.charm", "db", "-n", "2"]), base),
            words(&["deploy", "/charms/db.charm", "db", "-n", "2"])
        );
        assert_eq!(
            with_charm_paths(&words(&["refresh", "db", "--path", "new.charm"]), base),
            words(&["refresh", "db", "--path", "/charms/new.charm"])
        );
        assert_eq!(
            with_charm_paths(&words(&["deploy", "/abs/db.charm"]), base),
            words(&["deploy", "/abs/db.charm"])
        );
    }
}
