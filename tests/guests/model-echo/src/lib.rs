//! A test charm for the model tests: handler `echo` logs every event it
//! receives and the event's Juju context (`EVENT …`, `DEPARTING …`,
//! `CONTEXT …`); handler `calls` makes the model calls config option `calls`
//! names and logs each answer as `CALL <name> <answer>` (Rust's `Debug`).

// A test guest: each long handler is one list of attempts, read top to bottom.
#![allow(clippy::too_many_lines)]

use wasm_charm::model::{self, PortRange, Protocol, Relation};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    let every = EventKind::ALL
        .into_iter()
        .fold(On::default(), |on, kind| on | On::kind(kind));
    Charm::new()
        .observe("echo", every.clone(), echo)
        .observe("calls", every, calls)
}

wasm_charm::export_charm!(charm);

fn echo(event: &Event) -> Outcome {
    log::info(format!("EVENT {event:?}"));
    log::info(format!("DEPARTING {:?}", event.departing_unit()));
    log::info(format!("CONTEXT {:?}", model::context()));
    Ok(None)
}

fn calls(event: &Event) -> Outcome {
    let calls = match model::config()?.remove("calls") {
        Some(model::ConfigValue::String(s)) => s,
        _ => String::new(),
    };
    for call in calls.split_whitespace() {
        if let Some((verb, arg)) = call.split_once(':') {
            log::info(format!("CALL {call} {}", refusable(verb, arg)));
            continue;
        }
        let answer = match call {
            "ports" => format!("{:?}", model::opened_ports()),
            "open-port" => format!(
                "{:?} {:?} {:?}",
                model::open_port(PortRange::tcp(8080), &[]),
                model::open_port(PortRange::range(Protocol::Udp, 9000, 9010), &["db"]),
                model::close_port(PortRange::icmp(), &[]),
            ),
            "open-port-bad" => format!("{:?}", model::open_port(PortRange::tcp(0), &[])),
            "storage" => format!("{:?}", model::storages("data")),
            "storage-missing" => format!("{:?}", model::storage_get("data/9")),
            "network" => format!("{:?}", model::get_binding("db").network()),
            "network-missing" => format!("{:?}", model::get_binding("nope").network()),
            "network-admin" => format!("{:?}", model::get_binding("admin").network()),
            "goal-state" => format!("{:?}", model::goal_state()),
            "credential" => format!("{:?}", model::get_cloud_spec()),
            "resource" => format!("{:?}", model::resources::fetch("workload-image")),
            "relation-write-gone" => format!(
                "{:?}",
                Relation::new(RelationRef {
                    endpoint: "db".into(),
                    id: 99
                })
                .set_local_unit_data(&[("k", "v")])
            ),
            "relation-write-app" => format!(
                "{:?}",
                model::relations("db")?
                    .first()
                    .map(|r| r.set_local_app_data(&[("k", "v")]))
            ),
            "relation-read-app" => format!(
                "{:?}",
                model::relations("db")?
                    .first()
                    .map(Relation::local_app_data)
            ),
            "relation-units" => {
                let units = event.relation().map(|r| {
                    let relation = Relation::from(r);
                    (
                        relation.units(),
                        r.departing_unit
                            .as_deref()
                            .map(|leaving| relation.unit_data(leaving)),
                    )
                });
                format!("{units:?}")
            }
            "too-many-relations" => format!("{:?}", model::get_relation("db")),
            "secret-add" => {
                let options = model::SecretOptions {
                    label: Some("db-pass".into()),
                    ..Default::default()
                };
                let id =
                    model::add_secret(&[("password", "s3cret")], options, model::SecretOwner::Unit)
                        .map(|secret| secret.id.unwrap_or_default());
                let read = model::get_secret(None, Some("db-pass"))
                    .and_then(|s| Ok((s.get_content()?, s.get_info()?.revision)));
                format!("{id:?} {read:?}")
            }
            "secret-set" => {
                let set = model::secret_ids().and_then(|ids| {
                    let id = ids.first().cloned().unwrap_or_default();
                    model::get_secret(Some(&id), None)?.set_content(&[("password", "new")])
                });
                format!("{set:?}")
            }
            "secret-missing" => format!("{:?}", model::get_secret(Some("secret:missing"), None)),
            "secret-add-app" => {
                let options = model::SecretOptions {
                    label: Some("api-token".into()),
                    ..Default::default()
                };
                let id = model::add_secret(
                    &[("token", "t0k3n")],
                    options,
                    model::SecretOwner::Application,
                )
                .map(|secret| secret.id.unwrap_or_default());
                format!("{id:?}")
            }
            "secret-grant" => {
                let grant = model::secret_ids().and_then(|ids| {
                    let id = ids.first().cloned().unwrap_or_default();
                    let relation = model::get_relation("db")?
                        .ok_or_else(|| model::ModelError::NotFound("no db relation".into()))?;
                    model::get_secret(Some(&id), None)?.grant(&relation, None)
                });
                format!("{grant:?}")
            }
            "storage-add" => format!("{:?}", model::request_storage("data", 2)),
            "storage-add-undeclared" => format!("{:?}", model::request_storage("cache", 1)),
            "remote-model" => format!(
                "{:?}",
                model::relations("db")?.first().map(Relation::remote_model)
            ),
            "reboot" => format!("{:?}", model::reboot(false)),
            // On success this never returns: Juju kills the hook.
            "reboot-now" => format!("{:?}", model::reboot(true)),
            // The handler got this far: every answer before came back to it.
            "after" => "went on".to_string(),
            // A handler that traps: the hook fails, and Juju keeps nothing
            // it buffered.
            "panic" => panic!("asked to by config option `calls`"),
            other => format!("unknown call {other}"),
        };
        log::info(format!("CALL {call} {answer}"));
    }
    Ok(None)
}

/// A call Juju may refuse at the call, on secret `arg` or ports `arg`
/// (`8000-8100`, tcp): the answer the handler got.
fn refusable(verb: &str, arg: &str) -> String {
    let ports = || {
        let (from, to) = arg.split_once('-').unwrap_or((arg, arg));
        PortRange::range(
            Protocol::Tcp,
            from.parse().unwrap_or(0),
            to.parse().unwrap_or(0),
        )
    };
    let secret = || model::get_secret(Some(arg), None);
    let db = || {
        model::get_relation("db")?
            .ok_or_else(|| model::ModelError::NotFound("no db relation".into()))
    };
    let answer = match verb {
        "set" => secret().and_then(|s| s.set_content(&[("password", "changed")])),
        "set-label" => secret().and_then(|s| {
            s.set_info(model::SecretOptions {
                label: Some("renamed".into()),
                ..Default::default()
            })
        }),
        "grant" => secret().and_then(|s| s.grant(&db()?, None)),
        "revoke" => secret().and_then(|s| s.revoke(&db()?, None)),
        "remove" => secret().and_then(|s| s.remove_all_revisions()),
        "info" => return format!("{:?}", secret().and_then(|s| s.get_info())),
        // Known by its label only: every write resolves it, as ops does.
        "set-by-label" => model::get_secret(None, Some(arg))
            .and_then(|s| s.set_content(&[("password", "changed")])),
        "grant-by-label" => model::get_secret(None, Some(arg)).and_then(|s| s.grant(&db()?, None)),
        "open" => model::open_port(ports(), &[]),
        "close" => model::close_port(ports(), &[]),
        other => return format!("unknown call {other}"),
    };
    format!("{answer:?}")
}
