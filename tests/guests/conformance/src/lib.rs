//! The conformance suite's test charm (docs/conformance.md): three handlers
//! observe the same events, and each does what the plan in its config option
//! (`alpha`, `beta`, `urgent`) says, so that a scenario file shows one rule
//! of the runtime with a few lines of configuration.
//!
//! A plan is commands separated by `;`, each a verb and its words; a
//! `<message…>` is the rest of the command. The plan runs at every event the
//! handler observes; an empty plan returns `Ok(None)`.
//!
//! | command | what the handler does |
//! |---|---|
//! | `return <kind> <message…>` / `return none` | returns that status / `Ok(None)`, ending the plan |
//! | `set <scope> <kind> <message…>` | sets a free unit scope, normal band (`set-critical`, `set-low`: other bands) |
//! | `clear <scope>` | clears a free unit scope |
//! | `app-set <scope> <kind> <message…>` / `app-clear <scope>` | the same for an app scope |
//! | `relation-set <kind> <message…>` / `relation-clear` | the event's relation scope |
//! | `unit-set <kind> <message…>` / `unit-clear` | the event's remote unit's scope |
//! | `relation-data <key> <value>` | writes this unit's databag of every `db` relation |
//! | `store <key> <value…>` | stores text under a key (the `stored` interface) |
//! | `gate <probe> on\|off` / `restart-grace <probe>` | the `probe` interface |
//! | `start\|stop\|restart <service>` | a workload service call |
//! | `try-read <path>`, `try-write <path>`, `try-service <name>`, `try-command <name>`, `try-probe <name>` | tries it and logs `tried <verb> <arg>: ok` or `tried <verb> <arg>: refused: <error>`, then goes on |
//! | `log <message…>` | logs the message |
//! | `err <message…>` | returns `Err(message)` |
//! | `panic <message…>` | panics (a trap) |
//! | `loop`, `oom`, `stack`, `sleep` | spins past the deadline, exhausts memory, overflows the stack, blocks in a host call past the deadline |
//!
//! A plan the charm cannot read returns an error naming the handler and the
//! command.

use wasm_charm::prelude::*;

#[path = "../../common/traps.rs"]
mod traps;
use traps::{exhaust_memory, recurse, spin};

fn charm() -> Charm {
    let on = || {
        On::install()
            | On::start()
            | On::config_changed()
            | On::update_status()
            | On::upgrade_charm()
            | On::leader_elected()
            | On::leader_settings_changed()
            | On::relation("db")
            | On::action("act")
    };
    Charm::new()
        .observe("alpha", on(), |e| plan("alpha", e))
        .observe("beta", on(), |e| plan("beta", e))
        .observe_with_priority("urgent", on(), Priority::Critical, |e| plan("urgent", e))
}

wasm_charm::export_charm!(charm);

/// Run handler `handler`'s plan for `event`.
fn plan(handler: &str, event: &Event) -> Outcome {
    let text = match model::config()?.remove(handler) {
        Some(model::ConfigValue::String(s)) => s,
        _ => String::new(),
    };
    for command in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let words: Vec<&str> = command.split_whitespace().collect();
        let bad = || Error::msg(format!("plan of {handler}: cannot read `{command}`"));
        let (verb, args) = words.split_first().ok_or_else(bad)?;
        let rest = |from: usize| args.get(from..).map(|w| w.join(" ")).ok_or_else(bad);
        let arg = |i: usize| args.get(i).copied().ok_or_else(bad);
        let status = |from: usize| -> Result<Status, Error> {
            let kind = match arg(from)? {
                "active" => StatusKind::Active,
                "maintenance" => StatusKind::Maintenance,
                "waiting" => StatusKind::Waiting,
                "blocked" => StatusKind::Blocked,
                _ => return Err(bad()),
            };
            Ok(Status::new(kind, rest(from + 1)?))
        };
        match *verb {
            "return" if arg(0)? == "none" => return Ok(None),
            "return" => return Ok(Some(status(0)?)),
            "set" | "set-critical" | "set-low" => {
                let band = match *verb {
                    "set-critical" => Priority::Critical,
                    "set-low" => Priority::Low,
                    _ => Priority::Normal,
                };
                status::set_with_priority(Target::Unit, arg(0)?, status(1)?, band)?;
            }
            "clear" => status::clear(Target::Unit, arg(0)?)?,
            "app-set" => status::set(Target::App, arg(0)?, status(1)?)?,
            "app-clear" => status::clear(Target::App, arg(0)?)?,
            "relation-set" => status::set_relation(relation(event)?, status(0)?)?,
            "relation-clear" => status::clear_relation(relation(event)?)?,
            "unit-set" => status::set_remote_unit(&remote_unit(event)?, status(0)?)?,
            "unit-clear" => status::clear_remote_unit(&remote_unit(event)?)?,
            "relation-data" => {
                for relation in model::relations("db")? {
                    relation.set_local_unit_data(&[(arg(0)?, rest(1)?.as_str())])?;
                }
            }
            "store" => stored::set_raw(arg(0)?, &rest(1)?)?,
            "gate" if arg(1)? == "on" => probe::gate(arg(0)?)?,
            "gate" => probe::ungate(arg(0)?)?,
            "restart-grace" => probe::restart_grace(arg(0)?)?,
            "start" => workload::start(arg(0)?)?,
            "stop" => workload::stop(arg(0)?)?,
            "restart" => workload::restart(arg(0)?)?,
            "try-read" | "try-write" | "try-service" | "try-command" | "try-probe" => {
                let target = arg(0)?;
                let tried = attempt(verb, target);
                log::info(format!(
                    "tried {verb} {target}: {}",
                    match tried {
                        Ok(()) => "ok".to_string(),
                        Err(why) => format!("refused: {why}"),
                    }
                ));
            }
            "log" => log::info(rest(0)?),
            "err" => return Err(Error::msg(rest(0)?)),
            "panic" => panic!("{}", rest(0)?),
            "loop" => spin(),
            "oom" => exhaust_memory(),
            "stack" => log::info(format!("depth {}", recurse(0))),
            "sleep" => {
                // A WASI poll that blocks inside the host, far past the deadline.
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            _ => return Err(bad()),
        }
    }
    Ok(None)
}

/// One `try-*` command: `Err` with the refusal's text.
fn attempt(verb: &str, target: &str) -> Result<(), String> {
    match verb {
        "try-read" => std::fs::read(target).map(drop).map_err(|e| e.to_string()),
        "try-write" => {
            std::fs::write(target, "written by the conformance charm").map_err(|e| e.to_string())
        }
        "try-service" => workload::restart(target).map_err(|e| e.to_string()),
        "try-command" => workload::run(target, &[])
            .map(drop)
            .map_err(|e| e.to_string()),
        _ => probe::run(target).map(drop).map_err(|e| e.to_string()),
    }
}

fn relation(event: &Event) -> Result<RelationRef, Error> {
    event
        .relation()
        .map(|r| r.relation.clone())
        .ok_or_else(|| Error::msg(format!("{event} is not a relation event")))
}

fn remote_unit(event: &Event) -> Result<String, Error> {
    event
        .relation()
        .and_then(|r| r.departing_unit.clone().or_else(|| r.remote_unit.clone()))
        .ok_or_else(|| Error::msg(format!("{event} has no remote unit")))
}
