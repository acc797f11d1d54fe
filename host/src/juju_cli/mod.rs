//! `wasm-charm juju …`, and the same binary run as `juju` (a link): the
//! part of Juju's command line that jubilant and a person at a terminal
//! use, over the offline model (`crate::world`). Each command that changes
//! the model settles it before it returns, as Juju's agents go idle, so
//! `juju wait` (jubilant's) sees a settled model. Errors are Juju's:
//! `ERROR …` on stderr, exit 1; a usage error exits 2.
//!
//! `args` parses a line, `status` renders `status` and `show-unit`,
//! `secrets` the secret commands; the table of commands is here.

/// A line on the command's stdout.
macro_rules! say {
    ($($t:tt)*) => { $crate::juju_cli::output::push(false, format!($($t)*) + "\n") };
}
/// Text on the command's stdout, as it is.
macro_rules! say_raw {
    ($($t:tt)*) => { $crate::juju_cli::output::push(false, format!($($t)*)) };
}
/// A line on the command's stderr: what Juju says to a person.
macro_rules! tell {
    ($($t:tt)*) => { $crate::juju_cli::output::push(true, format!($($t)*) + "\n") };
}

pub mod args;
mod clock;
mod config;
mod exec;
mod models;
pub mod output;
mod secrets;
pub mod status;

use crate::world::{Model, Refused, store};
use args::{Parsed, Spec, Usage};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Juju's version, as the simulated agents report it.
pub const VERSION: &str = "3.6.4";

/// A command's failure, with Juju's exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl From<Usage> for Failure {
    fn from(u: Usage) -> Failure {
        Failure {
            code: 2,
            message: u.0,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        match e.downcast_ref::<Refused>() {
            Some(r) => Failure {
                code: 1,
                message: r.0.clone(),
            },
            None => Failure {
                code: 1,
                message: format!("{e:#}"),
            },
        }
    }
}

impl From<Refused> for Failure {
    fn from(r: Refused) -> Failure {
        Failure {
            code: 1,
            message: r.0,
        }
    }
}

type Done = Result<(), Failure>;

fn refuse<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        code: 1,
        message: message.into(),
    })
}

fn usage<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        code: 2,
        message: message.into(),
    })
}

/// The flags of `command` that take a value (`-m` and `--model` too), when
/// it is one of the subset's: what a caller rewriting a command line must
/// step over.
pub fn valued_flags(command: &str) -> Option<Vec<&'static str>> {
    let (_, valued, _) = COMMANDS.iter().find(|(n, _, _)| *n == command)?;
    let mut all = valued.to_vec();
    all.extend(["-m", "--model"]);
    Some(all)
}

/// The commands of the subset, each with its flags (besides `-m`).
const COMMANDS: &[(&str, &[&str], &[&str])] = &[
    ("version", &["--format", "-o", "--output"], &["--all"]),
    (
        "add-model",
        &["--config", "--credential", "-c", "--controller"],
        &["--no-switch"],
    ),
    (
        "destroy-model",
        &["--timeout"],
        &[
            "--no-prompt",
            "-y",
            "--force",
            "--destroy-storage",
            "--release-storage",
            "--no-wait",
        ],
    ),
    ("models", &["--format", "-o", "--output"], &["--all"]),
    ("switch", &[], &[]),
    (
        "deploy",
        &[
            "-n",
            "--num-units",
            "--config",
            "--resource",
            "--base",
            "--channel",
            "--revision",
            "--constraints",
            "--to",
            "--bind",
            "--storage",
        ],
        &["--trust", "--force"],
    ),
    ("add-unit", &["-n", "--num-units", "--to"], &[]),
    (
        "remove-unit",
        &["--num-units"],
        &["--no-prompt", "--force", "--destroy-storage", "--no-wait"],
    ),
    (
        "remove-application",
        &[],
        &["--no-prompt", "--force", "--destroy-storage", "--no-wait"],
    ),
    ("integrate", &["--via"], &[]),
    ("relate", &["--via"], &[]),
    ("remove-relation", &[], &["--force"]),
    (
        "config",
        &["--format", "-o", "--output", "--reset", "--file"],
        &[],
    ),
    (
        "run",
        &[
            "--format",
            "-o",
            "--output",
            "--params",
            "--wait",
            "--timeout",
        ],
        &["--background", "--quiet"],
    ),
    (
        "exec",
        &[
            "--unit",
            "-u",
            "--format",
            "-o",
            "--output",
            "--wait",
            "--timeout",
            "--machine",
            "--application",
            "--app",
            "-a",
        ],
        &["--all"],
    ),
    (
        "status",
        &["--format", "-o", "--output"],
        &["--relations", "--storage", "--watch", "--integrations"],
    ),
    ("show-unit", &["--format", "-o", "--output"], &[]),
    (
        "refresh",
        &["--path", "--channel", "--revision", "--resource", "--base"],
        &["--force", "--force-units"],
    ),
    ("trust", &["--scope"], &["--remove"]),
    ("secrets", &["--format", "-o", "--output", "--owner"], &[]),
    (
        "show-secret",
        &["--format", "-o", "--output", "--revision", "-r"],
        &["--reveal", "--revisions"],
    ),
    ("add-secret", &["--info", "--file"], &[]),
    ("grant-secret", &[], &[]),
    ("revoke-secret", &[], &[]),
    ("remove-secret", &["--revision"], &[]),
    (
        "debug-log",
        &[
            "--include",
            "-i",
            "--level",
            "-l",
            "--limit",
            "-n",
            "--lines",
            "--exclude",
            "-x",
        ],
        &["--replay", "--no-tail", "--tail", "--ms", "--date"],
    ),
    (
        "model-config",
        &["--format", "-o", "--output", "--reset", "--file"],
        &["--ignore-read-only-fields"],
    ),
    // The offline model's own: its time passes when a command says so.
    ("advance", &[], &[]),
    ("resolve", &[], &["--no-retry", "--all"]),
    ("resolved", &[], &["--no-retry", "--all"]),
];

/// `wasm-charm juju ARGS…`: run one command and answer as Juju does.
pub fn main(args: &[String]) -> ExitCode {
    let answered = answer(args);
    use std::io::Write as _;
    // A closed pipe is the reader's business: the command has run.
    let _ = std::io::stdout().write_all(answered.stdout.as_bytes());
    let _ = std::io::stderr().write_all(answered.stderr.as_bytes());
    ExitCode::from(answered.code)
}

/// Run one command: its stdout, its stderr (Juju's `ERROR …` last when
/// it failed) and its exit code, as a process would give them. What the
/// harness protocol's `juju` request answers.
pub fn answer(args: &[String]) -> output::Answered {
    output::capture(|| {
        let done = where_from_env().and_then(|(home, seed)| run(args, &home, seed));
        match done {
            Ok(()) => 0,
            Err(f) => {
                tell!("ERROR {}", f.message);
                f.code
            }
        }
    })
}

/// [`answer`] with the models' directory and the seed given rather than
/// read from the environment (`WASM_CHARM_JUJU_HOME`, `WASM_CHARM_SEED`).
pub fn answer_in(args: &[String], home: &Path, seed: Option<u64>) -> output::Answered {
    output::capture(|| match run(args, home, seed) {
        Ok(()) => 0,
        Err(f) => {
            tell!("ERROR {}", f.message);
            f.code
        }
    })
}

fn where_from_env() -> Result<(PathBuf, Option<u64>), Failure> {
    Ok((store::home()?, seed()?))
}

fn run(args: &[String], home: &Path, seed: Option<u64>) -> Done {
    let Some((command, rest)) = args.split_first() else {
        return usage("no command specified; the commands: see `juju help`");
    };
    if matches!(command.as_str(), "help" | "--help" | "-h") {
        print_help();
        return Ok(());
    }
    if command == "--version" {
        say!("{VERSION}-genericlinux-amd64");
        return Ok(());
    }
    let Some((_, valued, switches)) = COMMANDS.iter().find(|(n, _, _)| n == command) else {
        let names: Vec<String> = COMMANDS.iter().map(|(n, _, _)| n.to_string()).collect();
        let nearest = crate::text::closest(command, &names).unwrap_or("status");
        return refuse(format!(
            "juju: \"{command}\" is not a juju command of wasm-charm's offline Juju; \
             the nearest it has is \"{nearest}\" (all: `juju help`)"
        ));
    };
    let p = args::parse(rest, &Spec { valued, switches })?;
    let home = home.to_path_buf();
    let with_model = |home: &Path, p: &Parsed, f: &mut dyn FnMut(&mut Model) -> Done| {
        with_model(home, p, seed, f)
    };
    let done = match command.as_str() {
        "version" => version(&p),
        "add-model" => models::add_model(&home, &p),
        "destroy-model" => models::destroy_model(&home, &p),
        "models" => models::models(&home, &p),
        "switch" => models::switch(&home, &p),
        "status" => with_model(&home, &p, &mut |m| show_status(m, &p)),
        "show-unit" => with_model(&home, &p, &mut |m| show_unit(m, &p)),
        "debug-log" => with_model(&home, &p, &mut |m| debug_log(m, &p)),
        "secrets" | "show-secret" | "add-secret" | "grant-secret" | "revoke-secret"
        | "remove-secret" => with_model(&home, &p, &mut |m| secrets::run(m, command, &p)),
        "model-config" => with_model(&home, &p, &mut |m| clock::model_config(m, &p)),
        _ => with_model(&home, &p, &mut |m| {
            change(m, command, &p)?;
            settle(m)
        }),
    };
    done?;
    // `-o FILE`/`--output FILE`: what the command printed goes to the file.
    if let Some(file) = p.value(&["-o", "--output"]) {
        let text = output::take_stdout();
        std::fs::write(file, text).map_err(|e| Failure {
            code: 1,
            message: format!("{file}: cannot write: {e}"),
        })?;
    }
    Ok(())
}

fn print_help() {
    say!("wasm-charm's offline Juju: the commands it answers, as Juju's do:");
    for (name, _, _) in COMMANDS {
        say!("  {name}");
    }
    say!(
        "Models live in ${} (default ~/.local/share/wasm-charm/juju).",
        store::HOME_VAR
    );
}

/// The model `-m`/`--model` names (`controller:model` too), else
/// `JUJU_MODEL`, else the current one.
fn model_name(home: &Path, p: &Parsed) -> Result<String, Failure> {
    let given = p
        .value(&["-m", "--model"])
        .map(str::to_string)
        .or_else(|| std::env::var("JUJU_MODEL").ok().filter(|v| !v.is_empty()));
    if let Some(name) = given {
        return Ok(name
            .rsplit_once(':')
            .map_or(name.clone(), |(_, m)| m.to_string()));
    }
    store::current(home).map_or_else(
        || refuse("no model in focus: add one with `juju add-model`, or name one with --model"),
        Ok,
    )
}

fn with_model(
    home: &Path,
    p: &Parsed,
    seed: Option<u64>,
    f: &mut dyn FnMut(&mut Model) -> Done,
) -> Done {
    let name = model_name(home, p)?;
    let mut model = Model::open(home, &name)?;
    if seed.is_some() {
        model.order = crate::world::Order::new(seed);
    }
    f(&mut model)
}

/// The seed of `WASM_CHARM_SEED`, when set: units then run in an order
/// drawn from it.
fn seed() -> Result<Option<u64>, Failure> {
    match std::env::var("WASM_CHARM_SEED") {
        Ok(v) if !v.is_empty() => v.parse().map(Some).map_err(|_| Failure {
            code: 2,
            message: format!("WASM_CHARM_SEED: `{v}` is not a number"),
        }),
        _ => Ok(None),
    }
}

fn settle(m: &mut Model) -> Done {
    let settled = m.settle()?;
    settled_told(&settled);
    Ok(())
}

/// What a person is told of a settle: its seed, and every write that does
/// not fit its interface.
fn settled_told(settled: &crate::world::Settled) {
    for v in &settled.violations {
        tell!("WARNING {v}");
    }
    if let Some(seed) = settled.seed {
        tell!("settled after {} events (seed {seed})", settled.events);
    }
}

fn format_of(p: &Parsed) -> Option<&str> {
    p.value(&["--format"])
}

fn print_formatted(p: &Parsed, value: &serde_json::Value, table: impl FnOnce() -> String) -> Done {
    match format_of(p) {
        Some("json") => say!("{value}"),
        Some("yaml") => say_raw!(
            "{}",
            serde_saphyr::to_string(value).map_err(|e| Failure {
                code: 1,
                message: e.to_string()
            })?
        ),
        None | Some("tabular") | Some("summary") | Some("oneline") | Some("short")
        | Some("line") => say_raw!("{}", table()),
        Some(other) => {
            return usage(format!(
                "invalid value \"{other}\" for option --format: unknown format"
            ));
        }
    }
    Ok(())
}

fn one_positional<'a>(p: &'a Parsed, what: &str) -> Result<&'a str, Failure> {
    match p.positional.as_slice() {
        [one] => Ok(one),
        [] => usage(format!("no {what} specified")),
        [_, extra @ ..] => usage(format!("unrecognized args: {}", quoted(extra))),
    }
}

fn quoted(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `version [--all]`: the binary's version; with `--all`, Juju's detail
/// as a map (what jubilant's `version()` reads), of which only the version
/// and `official: false` are true of this one.
fn version(p: &Parsed) -> Done {
    let full = format!("{VERSION}-genericlinux-amd64");
    match (format_of(p), p.has(&["--all"])) {
        (Some("json"), false) => say!("{}", serde_json::json!(full)),
        (Some("json"), true) => say!(
            "{}",
            serde_json::json!({"version": full, "official": false})
        ),
        (_, true) => say!("version: {full}\nofficial: false"),
        (_, false) => say!("{full}"),
    }
    Ok(())
}

fn show_status(m: &mut Model, p: &Parsed) -> Done {
    let value = status::status_json(&m.world);
    print_formatted(p, &value, || status::status_table(&m.world))
}

fn show_unit(m: &mut Model, p: &Parsed) -> Done {
    let mut all = serde_json::Map::new();
    if p.positional.is_empty() {
        return usage("an unit name must be supplied");
    }
    for unit in &p.positional {
        let Some(serde_json::Value::Object(v)) = status::show_unit(&m.world, unit) else {
            return refuse(format!("unit \"{unit}\" not found"));
        };
        all.extend(v);
    }
    let value = serde_json::Value::Object(all);
    let yaml = serde_saphyr::to_string(&value).unwrap_or_default();
    print_formatted(p, &value, || yaml)
}

/// `debug-log`: the model's log, each line as Juju's debug-log shows a
/// unit's (`unit-<app>-<n>: <time> <LEVEL> unit.<unit>.juju-log <message>`).
fn debug_log(m: &mut Model, p: &Parsed) -> Done {
    let include = p.values(&["--include", "-i"]);
    let level = p.value(&["--level", "-l"]).map(str::to_uppercase);
    let rank = |l: &str| {
        ["TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
            .iter()
            .position(|x| *x == l)
            .unwrap_or(2)
    };
    let limit = p
        .value(&["--limit", "-n", "--lines"])
        .and_then(|v| v.parse::<usize>().ok());
    let mut lines = Vec::new();
    for l in &m.world.log {
        let tag = format!("unit-{}", l.unit.replace('/', "-"));
        if !include.is_empty()
            && !include
                .iter()
                .any(|i| *i == l.unit || *i == tag || l.unit.starts_with(&format!("{i}/")))
        {
            continue;
        }
        let (lvl, msg) = l.line.split_once(' ').unwrap_or(("INFO", l.line.as_str()));
        if level.as_deref().is_some_and(|want| rank(lvl) < rank(want)) {
            continue;
        }
        let time = crate::show::utc(l.at);
        lines.push(format!(
            "{tag}: {} {lvl} unit.{}.juju-log {msg}",
            time.get(11..19).unwrap_or_default(),
            l.unit
        ));
    }
    let skip = limit.map_or(0, |n| lines.len().saturating_sub(n));
    for line in &lines[skip..] {
        say!("{line}");
    }
    Ok(())
}

/// The commands that change the model; the caller settles it after.
fn change(m: &mut Model, command: &str, p: &Parsed) -> Done {
    match command {
        "deploy" => deploy(m, p),
        "add-unit" => {
            let app = one_positional(p, "application name")?;
            let n = count(p)?;
            m.add_unit(app, n)?;
            Ok(())
        }
        "remove-unit" => {
            if p.positional.is_empty() {
                return usage("no units specified");
            }
            p.positional
                .iter()
                .try_for_each(|unit| remove_unit(m, unit))
        }
        "remove-application" => {
            if p.positional.is_empty() {
                return usage("no application specified");
            }
            for app in &p.positional {
                m.remove_application(app)?;
            }
            Ok(())
        }
        "integrate" | "relate" => match p.positional.as_slice() {
            [a, b] => {
                m.integrate(a, b)?;
                Ok(())
            }
            _ => usage("an integration must involve two applications"),
        },
        "remove-relation" => match p.positional.as_slice() {
            [a, b] => Ok(m.remove_relation(a, b)?),
            _ => usage("a relation must involve two applications"),
        },
        "config" => config::config(m, p),
        "advance" => clock::advance(m, p),
        "run" => run_action(m, p),
        "exec" => exec::exec(m, p),
        "refresh" => {
            let app = one_positional(p, "application name")?;
            let Some(path) = p.value(&["--path"]) else {
                return refuse("refresh needs --path: the offline Juju has no Charmhub");
            };
            Ok(m.refresh(app, Path::new(path))?)
        }
        "trust" => {
            let app = one_positional(p, "application name")?;
            Ok(m.trust(app, !p.has(&["--remove"]))?)
        }
        "resolve" | "resolved" => {
            let units: Vec<String> = if p.has(&["--all"]) {
                m.world
                    .unit_names()
                    .into_iter()
                    .filter(|u| m.world.unit(u).is_some_and(|x| x.error.is_some()))
                    .collect()
            } else if p.positional.is_empty() {
                return usage("no unit specified");
            } else {
                p.positional.clone()
            };
            for unit in units {
                m.resolve(&unit, !p.has(&["--no-retry"]))?;
            }
            Ok(())
        }
        other => refuse(format!("{other}: not a command that changes the model")),
    }
}

fn count(p: &Parsed) -> Result<u32, Failure> {
    match p.value(&["-n", "--num-units"]) {
        None => Ok(1),
        Some(v) => v.parse::<u32>().ok().filter(|n| *n > 0).map_or_else(
            || {
                usage(format!(
                    "--num-units must be a positive integer, got \"{v}\""
                ))
            },
            Ok,
        ),
    }
}

fn key_values(words: &[String], flag: &str) -> Result<Vec<(String, String)>, Failure> {
    words
        .iter()
        .map(|w| {
            w.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .map_or_else(
                    || usage(format!("{flag}: expected \"key=value\", got \"{w}\"")),
                    Ok,
                )
        })
        .collect()
}

fn deploy(m: &mut Model, p: &Parsed) -> Done {
    let (charm, name) = match p.positional.as_slice() {
        [charm] => (charm, None),
        [charm, name] => (charm, Some(name.as_str())),
        [] => return usage("no charm name specified"),
        [_, _, extra @ ..] => return usage(format!("unrecognized args: {}", quoted(extra))),
    };
    let path = PathBuf::from(charm);
    if !path.exists() {
        return refuse(format!(
            "cannot deploy \"{charm}\": the offline Juju deploys local charms only (a .charm file or a charm directory), and there is none at that path"
        ));
    }
    let mut config = Vec::new();
    for c in p.values(&["--config"]) {
        if c.contains('=') {
            config.extend(key_values(std::slice::from_ref(&c), "--config")?);
        } else {
            config.extend(config::config_file(Path::new(&c), name)?);
        }
    }
    let resources = key_values(&p.values(&["--resource"]), "--resource")?
        .into_iter()
        .map(|(k, v)| (k, PathBuf::from(v)))
        .collect();
    let n = count(p)?;
    let deploy = crate::world::Deploy {
        config,
        trust: p.has(&["--trust"]),
        resources,
    };
    let app = m.deploy(&path, name, n, deploy)?;
    tell!(
        "Located local charm \"{}\", revision 0\nDeploying \"{app}\" from local charm \"{}\", revision 0",
        m.world.apps[&app].charm_name,
        m.world.apps[&app].charm_name
    );
    Ok(())
}

/// `juju run UNIT ACTION [k=v …] [--params FILE]`: the model settled, the
/// action run, its outcome printed as Juju 3 prints it.
fn run_action(m: &mut Model, p: &Parsed) -> Done {
    let (unit, action, rest) = match p.positional.as_slice() {
        [unit, action, rest @ ..] => (unit, action, rest),
        _ => return usage("no unit and action specified"),
    };
    let mut params = serde_json::Map::new();
    if let Some(file) = p.value(&["--params"]) {
        let text = std::fs::read_to_string(file).map_err(|e| Failure {
            code: 1,
            message: format!("{file}: cannot read: {e}"),
        })?;
        let v: serde_json::Value = serde_saphyr::from_str(&text).map_err(|e| Failure {
            code: 1,
            message: format!("{file}: not YAML: {e}"),
        })?;
        if let serde_json::Value::Object(map) = v {
            params.extend(map);
        }
    }
    for (k, v) in key_values(rest, "run")? {
        // Juju reads each value as YAML: `n=3` is a number.
        let value = serde_saphyr::from_str::<serde_json::Value>(&v)
            .unwrap_or(serde_json::Value::String(v.clone()));
        params.insert(k, value);
    }
    settle(m)?;
    let ran = m.run_action(unit, action, serde_json::Value::Object(params))?;
    let failed = ran.status != "completed";
    let mut results = serde_json::Map::new();
    for (k, v) in &ran.results {
        insert_dotted(&mut results, k, v);
    }
    let mut entry = serde_json::json!({
        "id": ran.id,
        "status": ran.status,
        "results": results,
        "unit": unit,
        "log": ran.log,
    });
    entry["results"]["return-code"] = serde_json::json!(if failed { 1 } else { 0 });
    if let Some(msg) = &ran.message {
        entry["message"] = serde_json::json!(msg);
    }
    match format_of(p) {
        Some("json") => say!("{}", serde_json::json!({ unit.as_str(): entry })),
        Some("yaml") => say_raw!(
            "{}",
            serde_saphyr::to_string(&serde_json::json!({ unit.as_str(): entry }))
                .unwrap_or_default()
        ),
        _ => {
            for line in &ran.log {
                tell!("{line}");
            }
            for (k, v) in &ran.results {
                say!("{k}: {v}");
            }
        }
    }
    if failed {
        return refuse(format!(
            "action {} failed: {}",
            ran.id,
            ran.message.unwrap_or_default()
        ));
    }
    Ok(())
}

/// One unit of `remove-unit`: Juju names the unit it failed on
/// (`removing unit %s failed`), whatever the reason.
fn remove_unit(m: &mut Model, unit: &str) -> Done {
    if m.world.unit(unit).is_none() {
        return refuse(format!(
            "removing unit {unit} failed: unit \"{unit}\" not found"
        ));
    }
    m.remove_unit(unit).map_err(|e| {
        let f = Failure::from(e);
        Failure {
            code: f.code,
            message: format!("removing unit {unit} failed: {}", f.message),
        }
    })
}

fn insert_dotted(map: &mut serde_json::Map<String, serde_json::Value>, key: &str, value: &str) {
    match key.split_once('.') {
        Some((head, tail)) => {
            let entry = map
                .entry(head.to_string())
                .or_insert_with(|| serde_json::json!({}));
            if let serde_json::Value::Object(inner) = entry {
                insert_dotted(inner, tail, value);
            }
        }
        None => {
            map.insert(key.to_string(), serde_json::json!(value));
        }
    }
}
