//! `systemctl` on the simulated machine: the verbs the host uses, with
//! systemctl's words and exit codes (5 for a unit not found, 3 for
//! `is-active` of a unit not active, 1 for the rest).

use super::{MachineState, Processes, SimService, UnitDefinition, said};
use crate::hook_tools::ToolOutput;

/// `systemctl <verb> [options] [--] <unit>`.
pub fn call(state: &mut MachineState, processes: &dyn Processes, args: &[String]) -> ToolOutput {
    let verb = args.first().map(String::as_str).unwrap_or_default();
    let unit = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(String::as_str)
        .unwrap_or_default();
    let name = unit.strip_suffix(".service").unwrap_or(unit);
    let full = if unit.contains('.') {
        unit.to_string()
    } else {
        format!("{unit}.service")
    };
    if let Some(words) = state.services.get(name).and_then(|s| s.fail.get(verb)) {
        let mut words = words.clone();
        if !words.ends_with('\n') {
            words.push('\n');
        }
        return said(1, "", words);
    }
    let known = definition(state, processes, name);
    let unit = Unit {
        name,
        full: &full,
        known: known.as_ref(),
    };
    match verb {
        "start" | "stop" | "restart" | "reload" => act(state, processes, verb, &unit),
        "enable" | "disable" => {
            if unit.known.is_none() {
                return said(
                    1,
                    "",
                    format!("Failed to {verb} unit: Unit file {full} does not exist.\n"),
                );
            }
            state.services.entry(name.to_string()).or_default().enabled = format!("{verb}d");
            said(0, "", "")
        }
        "is-active" => {
            let word = match unit.known {
                Some(_) => active_word(state, processes, name),
                None => "inactive".to_string(),
            };
            let code = if word == "active" { 0 } else { 3 };
            said(code, format!("{word}\n"), "")
        }
        "is-enabled" => match unit.known {
            None => said(
                1,
                "",
                format!("Failed to get unit file state for {full}: No such file or directory\n"),
            ),
            Some(_) => {
                let word = state
                    .services
                    .get(name)
                    .map_or_else(|| "disabled".to_string(), |s| s.enabled.clone());
                let code = if word == "enabled" { 0 } else { 1 };
                said(code, format!("{word}\n"), "")
            }
        },
        "daemon-reload" => said(0, "", ""),
        _ => said(1, "", format!("Unknown command verb '{verb}'.\n")),
    }
}

/// The unit a call names.
struct Unit<'a> {
    name: &'a str,
    full: &'a str,
    known: Option<&'a UnitDefinition>,
}

/// The unit `name` as the machine defines it: an entry of `units`, a unit
/// file under the root, a unit the state holds (state only), or any unit
/// while the machine defines none.
fn definition(
    state: &MachineState,
    processes: &dyn Processes,
    name: &str,
) -> Option<UnitDefinition> {
    if let Some(defined) = state.units.get(name) {
        return Some(defined.clone());
    }
    if let Some(file) = processes.unit_file(name) {
        return Some(file);
    }
    let scripted =
        state.services.contains_key(name) || (state.units.is_empty() && !processes.any_unit_file());
    scripted.then(UnitDefinition::default)
}

/// `active`, `inactive`, or `failed` for a unit whose process died unasked.
fn active_word(state: &MachineState, processes: &dyn Processes, name: &str) -> String {
    let Some(service) = state.services.get(name) else {
        return "inactive".to_string();
    };
    match service.pid {
        Some(pid) if service.active == "active" && !processes.alive(pid) => "failed".to_string(),
        _ => service.active.clone(),
    }
}

fn act(state: &mut MachineState, processes: &dyn Processes, verb: &str, unit: &Unit) -> ToolOutput {
    let Some(definition) = unit.known else {
        let full = unit.full;
        return said(
            5,
            "",
            format!("Failed to {verb} {full}: Unit {full} not found.\n"),
        );
    };
    if verb == "reload" {
        if active_word(state, processes, unit.name) != "active" {
            return said(
                1,
                "",
                format!("{} is not active, cannot reload.\n", unit.full),
            );
        }
        return said(0, "", "");
    }
    let service = state.services.entry(unit.name.to_string()).or_default();
    if verb == "stop" || verb == "restart" {
        stop(service, processes);
    }
    if verb == "start" || verb == "restart" {
        let running = service.pid.is_some_and(|pid| processes.alive(pid));
        if let (Some(command), false) = (&definition.exec_start, running) {
            match processes.start(unit.name, command) {
                Ok(pid) => service.pid = Some(pid),
                Err(why) => {
                    service.active = "failed".to_string();
                    return said(
                        1,
                        "",
                        format!(
                            "Job for {} failed because the control process exited with error \
                             code. ({why})\n",
                            unit.full
                        ),
                    );
                }
            }
        }
        service.active = "active".to_string();
    }
    said(0, "", "")
}

fn stop(service: &mut SimService, processes: &dyn Processes) {
    if let Some(pid) = service.pid.take() {
        processes.kill(pid);
    }
    service.active = "inactive".to_string();
}
