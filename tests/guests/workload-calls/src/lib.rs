//! A test charm for the workload tests: handler `calls` makes the workload
//! calls config option `calls` names and logs each answer as
//! `CALL <call> <answer>`; handler `strict` starts the unit config option
//! `strict` names and returns any error with `?`, as a charm would.

use wasm_charm::prelude::*;
use wasm_charm::workload::{CommandOutput, ServiceAction, WorkloadError};

fn charm() -> Charm {
    Charm::new()
        .observe("calls", On::config_changed(), calls)
        .observe("strict", On::config_changed(), strict)
}

wasm_charm::export_charm!(charm);

fn config(name: &str) -> Result<String, Error> {
    Ok(match model::config()?.remove(name) {
        Some(model::ConfigValue::String(s)) => s,
        _ => String::new(),
    })
}

fn calls(_event: &Event) -> Outcome {
    for call in config("calls")?.split_whitespace() {
        let mut parts = call.splitn(3, ':');
        let (op, first, rest) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next(),
        );
        let list = |s: &str| -> Vec<String> {
            s.split(',')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect()
        };
        let answer = match op {
            "service" => {
                let unit = rest.unwrap_or_default();
                match action(first) {
                    Some(a) => format!("{:?}", workload::service(unit, a)),
                    None => format!("no action {first}"),
                }
            }
            "status" => format!("{:?}", workload::service_status(first)),
            "run" => {
                let args = list(rest.unwrap_or_default());
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                shown(workload::run(first, &args))
            }
            "install" => {
                let packages = list(first);
                let packages: Vec<&str> = packages.iter().map(String::as_str).collect();
                format!("{:?}", workload::install(&packages))
            }
            other => format!("unknown call {other}"),
        };
        log::info(format!("CALL {call} {answer}"));
    }
    Ok(None)
}

fn action(name: &str) -> Option<ServiceAction> {
    Some(match name {
        "start" => ServiceAction::Start,
        "stop" => ServiceAction::Stop,
        "restart" => ServiceAction::Restart,
        "reload" => ServiceAction::Reload,
        "enable" => ServiceAction::Enable,
        "disable" => ServiceAction::Disable,
        _ => return None,
    })
}

/// A command's output in one line: how it ended, each stream's length and
/// its first 80 bytes as text, whether some was cut.
fn shown(result: Result<CommandOutput, WorkloadError>) -> String {
    match result {
        Err(e) => format!("Err({e:?})"),
        Ok(out) => {
            let head = |bytes: &[u8]| {
                let text = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
                format!("{}:{text:?}", bytes.len())
            };
            format!(
                "Ok(exit={:?} success={} stdout={} stderr={} truncated={})",
                out.exit,
                out.success(),
                head(&out.stdout),
                head(&out.stderr),
                out.truncated
            )
        }
    }
}

fn strict(_event: &Event) -> Outcome {
    let unit = config("strict")?;
    if !unit.is_empty() {
        workload::start(&unit)?;
    }
    Ok(None)
}
