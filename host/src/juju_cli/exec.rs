//! `juju exec --unit U[,U…] [--application A] -- COMMANDS…`: the commands
//! run by bash in each unit's hook context (its hook tools on `PATH`, its
//! environment), once the model is idle, as Juju 3's `exec` runs them as a
//! task per unit. Each task's result is printed as Juju prints it: the
//! stdout itself for one unit, a map by unit with `--format json|yaml`.
//! A task whose commands exit non-zero fails the command with Juju's
//! `the following task failed` (exit 1), after its result is printed.

use super::args::Parsed;
use super::{Done, print_formatted, refuse, settle, usage};
use crate::world::Model;
use serde_json::json;

pub fn exec(m: &mut Model, p: &Parsed) -> Done {
    if p.positional.is_empty() {
        return usage("no commands specified");
    }
    if p.has(&["--machine", "--all"]) {
        return refuse(
            "the offline Juju runs commands in a unit's hook context only: give --unit or --application",
        );
    }
    let commands = p.positional.join(" ");
    let units = targets(m, p)?;
    settle(m)?;
    let mut results = serde_json::Map::new();
    let mut failed = Vec::new();
    let mut plain = Vec::new();
    for given in &units {
        let unit = leader_of(m, given)?;
        let ran = m.exec(&unit, &commands)?;
        let mut entry = json!({
            "id": ran.id,
            "results": {"return-code": ran.code},
            "status": if ran.code == 0 { "completed" } else { "failed" },
            "unit": unit,
        });
        if !ran.stdout.is_empty() {
            entry["results"]["stdout"] = json!(ran.stdout);
        }
        if !ran.stderr.is_empty() {
            entry["results"]["stderr"] = json!(ran.stderr);
        }
        if ran.code != 0 {
            entry["message"] = json!(format!("exit status {}", ran.code));
            failed.push((ran.id.clone(), ran.code));
        }
        plain.push((ran.stdout, ran.stderr));
        results.insert(unit, entry);
    }
    // The commands' writes may have queued events: Juju's agents run them.
    settle(m)?;
    let value = serde_json::Value::Object(results);
    print_formatted(p, &value, || match plain.as_slice() {
        // One unit's output as it is, its stderr on stderr.
        [(out, err)] => {
            super::output::push(true, err.clone());
            out.clone()
        }
        _ => serde_saphyr::to_string(&value).unwrap_or_default(),
    })?;
    if failed.is_empty() {
        return Ok(());
    }
    let tasks: Vec<String> = failed
        .iter()
        .map(|(id, code)| format!(" id \"{id}\" with return code {code}"))
        .collect();
    refuse(format!(
        "the following task failed:\n{}\n\nuse 'juju show-task' to inspect the failure",
        tasks.join("\n")
    ))
}

/// The units `--unit` and `--application` name, in the order given.
fn targets(m: &Model, p: &Parsed) -> Result<Vec<String>, super::Failure> {
    let mut units = Vec::new();
    for given in p.values(&["--unit", "-u"]) {
        units.extend(
            given
                .split(',')
                .filter(|u| !u.is_empty())
                .map(str::to_string),
        );
    }
    for app in p.values(&["--application", "--app", "-a"]) {
        for app in app.split(',').filter(|a| !a.is_empty()) {
            let Some(a) = m.world.apps.get(app) else {
                return refuse(format!("application \"{app}\" not found"));
            };
            units.extend(a.units.values().map(|u| u.name.clone()));
        }
    }
    if units.is_empty() {
        return usage(
            "you must specify a target, either through --all, --machine, --application or --unit",
        );
    }
    Ok(units)
}

/// `app/leader` as Juju resolves it: the application's leader.
fn leader_of(m: &Model, unit: &str) -> Result<String, super::Failure> {
    let Some(app) = unit.strip_suffix("/leader") else {
        return Ok(unit.to_string());
    };
    match m.world.apps.get(app).and_then(|a| a.leader.clone()) {
        Some(leader) => Ok(leader),
        None => refuse(format!("application \"{app}\" has no leader")),
    }
}
