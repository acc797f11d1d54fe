//! A test charm whose handlers misbehave on purpose, for the host's
//! sandbox and failure-policy tests.
//!
//! Config option `mode` picks the misbehaviour of handler `hostile`; handler
//! `marker`, declared first, only records the mode it saw, so a test can tell
//! which handlers' writes survived (in the `stored-*` modes it also stores
//! the event it ran for under key `marker`).

// A test guest: each long handler is one list of attempts, read top to bottom.
#![allow(clippy::too_many_lines)]

use wasm_charm::model::ConfigValue;
use wasm_charm::prelude::*;

#[path = "../../common/traps.rs"]
mod traps;
use traps::{exhaust_memory, recurse, spin};

fn charm() -> Charm {
    if mode().is_ok_and(|m| m == "declare-log") {
        // Side effects while the charm is built: `declare` runs this too, and
        // must reach nothing of the live event.
        log::warning("charm() ran");
    }
    let on = On::install()
        | On::config_changed()
        | On::start()
        | On::update_status()
        | On::relation("db");
    Charm::new()
        .observe("marker", on.clone(), marker)
        .observe("hostile", on, hostile)
}

wasm_charm::export_charm!(charm);

/// Config option `mode`; `ok` when unset.
fn mode() -> Result<String, Error> {
    Ok(match model::config()?.remove("mode") {
        Some(ConfigValue::String(mode)) => mode,
        Some(other) => {
            return Err(Error::msg(format!(
                "config `mode` is not a string: {other:?}"
            )));
        }
        None => "ok".to_owned(),
    })
}

/// Waiting "marker saw <mode>".
fn marker(event: &Event) -> Outcome {
    let mode = mode()?;
    if mode.starts_with("marker-writes") {
        write_db_relations()?;
    }
    if mode.starts_with("stored-") {
        stored::set_raw("marker", event_name(event))?;
    }
    Ok(Some(Status::waiting(format!("marker saw {mode}"))))
}

/// Writes scope `hostile-partial`, then does what `mode` says.
fn hostile(event: &Event) -> Outcome {
    status::set(
        Target::Unit,
        "hostile-partial",
        Status::blocked("written before failing"),
    )?;
    match mode()?.as_str() {
        "ok" | "marker-writes" | "declare-log" => Ok(None),
        "marker-writes-then-panic" => panic!("deliberate panic after the marker's relation write"),
        "err" => Err(Error::msg("deliberate failure")),
        "panic" => {
            eprintln!("hostile: about to panic");
            panic!("deliberate panic");
        }
        "loop" => spin(),
        "oom" => exhaust_memory(),
        "stack" => Ok(Some(Status::active(format!("depth {}", recurse(0))))),
        "print" => {
            println!("to stdout");
            eprintln!("to stderr");
            Ok(None)
        }
        "flood" => {
            // Far more output (2 MB) than the host keeps, or than wasmtime's
            // memory pipe would take: must not fail the handler.
            let flood: String = (0..120_000).map(|i| format!("flood line {i}\n")).collect();
            print!("{flood}");
            Ok(Some(Status::active("flooded")))
        }
        "sandbox" => Ok(Some(Status::active(sandbox_report()))),
        "probe" => match probe::run("nope") {
            Ok(_) => Ok(Some(Status::blocked("probe unexpectedly ran"))),
            Err(error) => Ok(Some(Status::waiting(error.to_string()))),
        },
        // The probe interface, for a manifest that declares `up` and `extra`
        // (tests/probes.rs writes it).
        "probe-run" => {
            let seen: Vec<String> = ["up", "extra"]
                .into_iter()
                .map(|name| {
                    let r = probe::run(name)?;
                    let health = if r.healthy { "healthy" } else { "unhealthy" };
                    Ok(format!("{name}: {health} ({})", r.detail))
                })
                .collect::<Result<_, probe::ProbeError>>()?;
            Ok(Some(Status::waiting(seen.join("; "))))
        }
        "probe-gate-extra" => {
            probe::gate("extra")?;
            Ok(Some(Status::waiting(gating())))
        }
        "probe-gate-extra-then-panic" => {
            probe::gate("extra")?;
            panic!("deliberate panic after choosing a gate")
        }
        "probe-ungate-extra" => {
            probe::ungate("extra")?;
            Ok(None)
        }
        "probe-restart-extra" => {
            probe::restart_grace("extra")?;
            Ok(None)
        }
        "probe-gates" => Ok(Some(Status::waiting(gating()))),
        "bad-scope" => match status::set(Target::Unit, "handler/evil", Status::blocked("evil")) {
            Ok(()) => Ok(Some(Status::active("bad scope accepted"))),
            Err(error) => Ok(Some(Status::blocked(error.to_string()))),
        },
        "relation-scope" => {
            if let Some(relation) = event.relation()
                && relation.relation.endpoint == "db"
            {
                status::set_relation(relation, Status::blocked("db relation scope"))?;
            }
            Ok(None)
        }
        "app" => {
            status::set(Target::App, "app-scope", Status::blocked("app problem"))?;
            Ok(None)
        }
        "app-clear" => {
            status::clear(Target::App, "app-scope")?;
            Ok(None)
        }
        "log" => {
            log::warning("hostile log line");
            Ok(None)
        }
        "relation-write" => {
            write_db_relations()?;
            Ok(None)
        }
        "relation-write-then-panic" => {
            write_db_relations()?;
            panic!("deliberate panic after a relation write");
        }
        // deadlines over blocking host calls
        "sleep" => {
            // A WASI poll that blocks inside the host, far past any deadline;
            // the line logged before it must still reach the unit log.
            wasm_charm::log::info("going to sleep");
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Ok(Some(Status::active("woke up")))
        }
        "leader" => {
            // A hook tool call (the tests make `is-leader` hang).
            let leader = model::is_leader()?;
            Ok(Some(Status::active(format!("leader={leader}"))))
        }
        // input hardening
        "nul-return" => {
            // Alone with the marker's waiting scope, this message wins the
            // merge and reaches status-set.
            status::clear(Target::Unit, "hostile-partial")?;
            Ok(Some(Status::blocked("bad\0message")))
        }
        "nul-status" => match status::set(Target::Unit, "nul", Status::blocked("bad\0message")) {
            Ok(()) => Ok(Some(Status::active("NUL message accepted"))),
            Err(error) => Ok(Some(Status::blocked(error.to_string()))),
        },
        "nul-log" => {
            log::warning("bad\0line");
            Ok(None)
        }
        "nul-version" => version_result("1.0\0beta"),
        "long-version" => version_result(&"1".repeat(1000)),
        "log-flood" => {
            for i in 0..200_000 {
                log::info(format!("flood {i}"));
            }
            Ok(Some(Status::active("logged 200000 lines")))
        }
        "relation-flood" => {
            // 6 MiB per key: the third write would take the event's pending
            // relation data past 16 MiB.
            let value = "v".repeat(6 << 20);
            let mut written = 0;
            for relation in model::relations("db")? {
                for key in ["a", "b", "c"] {
                    if let Err(error) = relation.set_local_unit_data(&[(key, value.as_str())]) {
                        return Ok(Some(Status::blocked(format!("after {written}: {error}"))));
                    }
                    written += 1;
                }
            }
            Ok(Some(Status::active(format!("wrote {written}"))))
        }
        "bad-unit" => match model::relations("db")?
            .first()
            .map(|r| r.unit_data("pg/01"))
        {
            Some(Err(error)) => Ok(Some(Status::blocked(error.to_string()))),
            other => Ok(Some(Status::active(format!("read: {other:?}")))),
        },
        "bad-endpoint" => match model::relations("no-such-endpoint") {
            Err(error) => Ok(Some(Status::blocked(error.to_string()))),
            Ok(found) => Ok(Some(Status::active(format!("found {}", found.len())))),
        },
        "many-scopes" => {
            // 200 new scopes per event, named after the event: the second
            // event would pass MAX_SCOPES (256) current unit scopes.
            let prefix = event_prefix(event);
            for i in 0..200 {
                if let Err(error) = status::set(
                    Target::Unit,
                    &format!("many-{prefix}-{i}"),
                    Status::waiting("many"),
                ) {
                    return Ok(Some(Status::blocked(format!("scope {i}: {error}"))));
                }
            }
            Ok(None)
        }
        // every tool an ordinary event calls, for the fault tables
        // (tests/faults.rs): relation data, leadership, a log line, an app
        // scope and stored data, each event's app status a new one.
        "everything" => {
            write_db_relations()?;
            let leader = model::is_leader()?;
            log::warning("everything: a log line");
            let count: u32 = stored::get("count")?.unwrap_or(0);
            stored::set("count", &(count + 1))?;
            status::set(
                Target::App,
                "app-scope",
                Status::waiting(format!("leader={leader}, event {}", count + 1)),
            )?;
            Ok(None)
        }
        // the charm's own data
        "stored-write" => stored_write(event),
        "stored-relation-write" => {
            write_db_relations()?;
            stored_write(event)
        }
        "stored-read" => Ok(Some(Status::waiting(stored_report()))),
        "stored-write-then-panic" => {
            stored::set_raw("doomed", "written before a panic")?;
            panic!("deliberate panic after a stored write");
        }
        "stored-write-then-err" => {
            stored::set_raw("errored", "written before an error")?;
            Err(Error::msg("deliberate failure after a stored write"))
        }
        "stored-bounds" => {
            // Each refused at the call, changing nothing: the handler goes on.
            let refused = [
                stored::set_raw("bad key", "v"),
                stored::set_raw("big", &"v".repeat((64 << 10) + 1)),
                stored::delete("bad=key"),
            ];
            let errors: Vec<String> = refused
                .into_iter()
                .map(|r| match r {
                    Ok(()) => "accepted".to_string(),
                    Err(error) => error.to_string(),
                })
                .collect();
            Ok(Some(Status::blocked(errors.join(" | "))))
        }
        "stored-fill" => {
            // 64 KiB values until the total (1 MiB) refuses one.
            let value = "v".repeat(64 << 10);
            for i in 0..32 {
                if let Err(error) = stored::set_raw(&format!("fill-{i:02}"), &value) {
                    return Ok(Some(Status::blocked(format!("after {i}: {error}"))));
                }
            }
            Ok(Some(Status::active("filled 32 values")))
        }
        other => Err(Error::msg(format!("unknown mode {other:?}"))),
    }
}

/// Counts the events under key `count` (as JSON) and stores the last one
/// under `last-event` (as text).
fn stored_write(event: &Event) -> Outcome {
    let count: u32 = stored::get("count")?.unwrap_or(0);
    stored::set("count", &(count + 1))?;
    stored::set_raw("last-event", event_name(event))?;
    Ok(Some(Status::active(format!("stored count {}", count + 1))))
}

/// `stored: k=v; …` for every stored key, or `stored: nothing`.
fn stored_report() -> String {
    let pairs: Vec<String> = stored::keys()
        .into_iter()
        .map(|k| {
            let v = stored::get_raw(&k).unwrap_or_else(|| "<vanished>".into());
            format!("{k}={v}")
        })
        .collect();
    if pairs.is_empty() {
        "stored: nothing".to_string()
    } else {
        format!("stored: {}", pairs.join("; "))
    }
}

/// The hook name of the events this charm observes.
fn event_name(event: &Event) -> &'static str {
    match event {
        Event::Install => "install",
        Event::ConfigChanged => "config-changed",
        Event::Start => "start",
        Event::UpdateStatus => "update-status",
        _ => "relation",
    }
}

/// What the guest can reach of the world: environment, arguments, files and
/// network.
fn sandbox_report() -> String {
    let env = std::env::vars_os().count();
    let args = std::env::args_os().count();
    let fs_root = verdict(std::fs::read_dir("/").is_ok());
    let fs_cwd = verdict(std::fs::read_dir(".").is_ok());
    let net = verdict(std::net::TcpStream::connect("127.0.0.1:22").is_ok());
    format!("env={env} args={args} fs-root={fs_root} fs-cwd={fs_cwd} net={net}")
}

fn verdict(allowed: bool) -> &'static str {
    if allowed { "allowed" } else { "denied" }
}

/// Sets `written-by: hostile` in this unit's databag of every db relation.
fn write_db_relations() -> Result<(), Error> {
    for relation in model::relations("db")? {
        relation.set_local_unit_data(&[("written-by", "hostile")])?;
    }
    Ok(())
}

// input hardening

/// The result of `application-version-set` as the handler's status.
fn version_result(version: &str) -> Outcome {
    match model::set_workload_version(version) {
        Ok(()) => Ok(Some(Status::active("version set"))),
        Err(error) => Ok(Some(Status::blocked(error.to_string()))),
    }
}

/// A short name for the event, for scope names.
fn event_prefix(event: &Event) -> &'static str {
    match event {
        Event::Install => "install",
        Event::ConfigChanged => "config",
        _ => "other",
    }
}

/// `gating: a, b` from the probe interface.
fn gating() -> String {
    let names: Vec<String> = probe::gates()
        .into_iter()
        .filter(|g| g.gate)
        .map(|g| g.name)
        .collect();
    format!("gating: {}", names.join(", "))
}
