//! What `wasm-charm run` prints of one event: its handlers, scopes,
//! statuses, probes and data, then what the event left in the state file
//! (action results, the log, the machine's and each container's calls).

use super::machine::MachineState;
use super::sim::{SimReboot, SimState};
use crate::charm_dir::CharmDir;
use crate::show::{HandlerResult, Report};
use crate::status::store::Target;
use std::path::Path;

/// Print the report of one event.
pub(super) fn print_report(
    report: &Report,
    charm: &CharmDir,
    state: &SimState,
    machine: &MachineState,
    state_path: &Path,
) {
    if let Some(why) = &report.ignored {
        println!("{why}");
        return;
    }
    println!("event: {}", report.event.as_deref().unwrap_or("?"));
    for (name, result) in &report.handlers {
        println!("  handler {name}: {}", handler_line(result));
    }
    print_scopes(report);
    print_statuses(report);
    print_probes(report, charm, state);
    for line in crate::show::data_lines(&report.store.data) {
        println!("{line}");
    }
    print_event_record(state, machine);
    for f in &report.failures {
        println!("failure: {f}");
    }
    println!("state: {}", state_path.display());
}

/// What one handler did, as its `handler` line says it.
fn handler_line(result: &HandlerResult) -> String {
    match result {
        HandlerResult::Set(s) => format!(
            "set {} {:?}",
            crate::status::merge::Kind::from(s.kind).as_str(),
            s.message
        ),
        HandlerResult::Cleared => "cleared".to_string(),
        HandlerResult::Error(e) => format!("returned Err({e:?})"),
        HandlerResult::Trapped(t) => format!("trapped: {t}"),
        HandlerResult::ActionDone(None) => "returned (an action sets no scope)".to_string(),
        HandlerResult::ActionDone(Some(s)) => format!(
            "returned {} {:?}, ignored (an action sets no scope)",
            crate::status::merge::Kind::from(s.kind).as_str(),
            s.message
        ),
    }
}

/// The unit's and the application's scopes, each under its heading when
/// there are any.
fn print_scopes(report: &Report) {
    for target in [Target::Unit, Target::App] {
        let lines = crate::show::scope_lines(&report.store, target, false);
        if !lines.is_empty() {
            println!("{} scopes:", target.as_str());
            for line in lines {
                println!("{line}");
            }
        }
    }
}

/// The unit's and the application's statuses, and whether this event
/// wrote them.
fn print_statuses(report: &Report) {
    if let Some(unit) = &report.unit {
        let wrote = if report.wrote.contains(&Target::Unit) {
            "status-set"
        } else {
            "unchanged"
        };
        println!(
            "unit: {} ({wrote})",
            crate::show::written_line(Some(&unit.written))
        );
    }
    match &report.app {
        Some(app) => {
            let wrote = if report.wrote.contains(&Target::App) {
                "status-set"
            } else {
                "unchanged"
            };
            println!(
                "app: {} ({wrote})",
                crate::show::written_line(Some(&app.written))
            );
        }
        None => println!("app: left to Juju"),
    }
}

/// The probes' outcomes, and which of them the state file scripts.
fn print_probes(report: &Report, charm: &CharmDir, state: &SimState) {
    let gates = crate::probe::gates(&charm.manifest.probes, &report.store.probes);
    let probes = crate::show::probe_lines(&report.store.probes, Some(&gates));
    if !probes.is_empty() {
        println!("probes:");
        for line in probes {
            println!("{line}");
        }
        if !state.scripts.probes.is_empty() {
            let names: Vec<&str> = state.scripts.probes.keys().map(String::as_str).collect();
            println!("  scripted by the state file: {}", names.join(", "));
        }
    }
}

/// What the event left in the state file: an action's results and
/// failure, the reboot it asked for, the unit log, and the machine's and each container's calls.
pub(super) fn print_event_record(state: &SimState, machine: &MachineState) {
    for (key, value) in &state.last_event.action_results {
        print!("{}", result_lines(key, value));
    }
    if let Some(message) = &state.last_event.action_failed {
        println!("action failed: {message}");
    }
    match state.last_event.reboot {
        Some(SimReboot::Now) => println!(
            "reboot: now (Juju kills the hook, keeps nothing it held, reboots and runs it again)"
        ),
        Some(SimReboot::AfterHook) => println!("reboot: after-hook (Juju reboots the machine now)"),
        None => {}
    }
    for line in &state.last_event.log {
        println!("log: {line}");
    }
    for line in &machine.calls {
        println!("machine: {line}");
    }
    for (name, container) in &state.model.containers {
        for line in &container.calls {
            println!("pebble {name}: {line}");
        }
    }
}

/// An action result as `result <key>: <value>`; a value of several lines
/// starts on the next line, each line indented.
fn result_lines(key: &str, value: &str) -> String {
    if !value.contains('\n') {
        return format!("result {key}: {value}\n");
    }
    let mut out = format!("result {key}:\n");
    for line in value.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    out
}
