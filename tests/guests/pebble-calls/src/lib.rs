//! A test charm for the Pebble tests: handler `calls` makes the Pebble calls
//! that config option `calls` names, on container `web`, and logs each
//! answer as `CALL <name> <answer>` (Rust's `Debug`).

// A test guest: each long handler is one list of attempts, read top to bottom.
#![allow(clippy::too_many_lines)]

use wasm_charm::pebble::{
    self, AddLayerOptions, CheckLevel, ExecOptions, ListFilesOptions, MakeDirOptions, NoticeFilter,
    PushOptions, RemovePathOptions,
};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    let every = EventKind::ALL
        .into_iter()
        .fold(On::default(), |on, kind| on | On::kind(kind));
    Charm::new().observe("calls", every, calls)
}

wasm_charm::export_charm!(charm);

fn text(name: &str) -> Result<String, Error> {
    Ok(match model::config()?.remove(name) {
        Some(model::ConfigValue::String(s)) => s,
        _ => String::new(),
    })
}

/// A command's output as text, or the error.
fn shown(out: Result<wasm_charm::workload::CommandOutput, pebble::PebbleError>) -> String {
    match out {
        Ok(out) => format!(
            "{:?} stdout={:?} stderr={:?} truncated={}",
            out.exit,
            out.stdout_text(),
            out.stderr_text(),
            out.truncated
        ),
        Err(e) => format!("Err({e:?})"),
    }
}

fn calls(event: &Event) -> Outcome {
    let web = pebble::get_container("web");
    let layer = text("layer")?;
    for call in text("calls")?.split_whitespace() {
        let answer = match call {
            // Shown as a result, as the Pebble tests read it.
            "can-connect" => format!("{:?}", Ok::<bool, pebble::PebbleError>(web.can_connect())),
            "add-layer" => format!(
                "{:?}",
                web.add_layer("base", &layer, AddLayerOptions::default())
            ),
            "combine-layer" => format!(
                "{:?}",
                web.add_layer("base", &layer, AddLayerOptions { combine: true })
            ),
            "plan" => format!("{:?}", web.get_plan().map(|plan| plan.to_yaml())),
            "replan" => format!("{:?}", web.replan()),
            "start" => format!("{:?}", web.start(&["web"])),
            "stop" => format!("{:?}", web.stop(&["web"])),
            "restart" => format!("{:?}", web.restart(&["web"])),
            "start-unknown" => format!("{:?}", web.start(&["nope"])),
            "start-failing" => format!("{:?}", web.start(&["failing"])),
            "services" => format!("{:?}", web.get_services(&[])),
            "checks" => format!("{:?}", web.get_checks(&["up"], Some(CheckLevel::Ready))),
            "push" => format!(
                "{:?}",
                web.push(
                    "/etc/web/web.conf",
                    b"port = 8080\n",
                    PushOptions {
                        make_dirs: true,
                        permissions: Some(0o600),
                        ..Default::default()
                    }
                )
            ),
            "pull" => format!(
                "{:?}",
                web.pull("/etc/web/web.conf")
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            ),
            "list" => format!(
                "{:?}",
                web.list_files("/etc/web").map(|files| files
                    .into_iter()
                    .map(|f| (f.path, f.kind, f.size, format!("{:o}", f.permissions)))
                    .collect::<Vec<_>>())
            ),
            "make-dir" => format!(
                "{:?}",
                web.make_dir(
                    "/var/lib/web/cache",
                    MakeDirOptions {
                        make_parents: true,
                        ..Default::default()
                    }
                )
            ),
            "make-dir-again" => format!(
                "{:?}",
                web.make_dir("/var/lib/web/cache", MakeDirOptions::default())
            ),
            "remove" => format!(
                "{:?}",
                web.remove_path("/etc/web", RemovePathOptions { recursive: true })
            ),
            "list-missing" => format!("{:?}", web.list_files("/nowhere")),
            "pull-missing" => match web.pull("/etc/web/web.conf") {
                Err(e) => format!("{:?} {}", e.kind().as_ref().map(|k| k.as_str()), e),
                Ok(b) => format!("unexpected {} bytes", b.len()),
            },
            // can-connect answers a bool and panics for an undeclared
            // container; any other call shows the refusal.
            "undeclared" => format!("{:?}", pebble::get_container("db").get_plan().map(|_| true)),
            "exec-echo" => shown(web.exec("echo", &["hello", "two words"])),
            "exec-fail" => shown(web.exec("fail", &[])),
            "exec-args-refused" => shown(web.exec("fail", &["more"])),
            "exec-undeclared" => shown(web.exec("nope", &[])),
            "exec-hang" => shown(web.exec("hang", &[])),
            "exec-big" => match web.exec("big", &[]) {
                Ok(out) => format!(
                    "{:?} stdout={} stderr={} truncated={}",
                    out.exit,
                    out.stdout.len(),
                    out.stderr.len(),
                    out.truncated
                ),
                Err(e) => format!("Err({e:?})"),
            },
            "pull-stream" => format!(
                "{:?}",
                web.pull_stream("/etc/web/web.conf")
                    .map_err(Error::from)
                    .and_then(|mut file| {
                        let mut text = String::new();
                        std::io::Read::read_to_string(&mut file, &mut text).map_err(|e| {
                            Error::from(pebble::PebbleError::Protocol(e.to_string()))
                        })?;
                        Ok(text)
                    })
            ),
            "autostart" => format!("{:?}", web.autostart()),
            "send-signal" => format!("{:?}", web.send_signal("SIGHUP", &["web"])),
            "send-signal-bad" => format!("{:?}", web.send_signal("hup", &["web"])),
            "start-checks" => format!("{:?}", web.start_checks(&["up"])),
            "stop-checks" => format!("{:?}", web.stop_checks(&["up"])),
            "exists" => format!(
                "{:?} {:?}",
                web.exists("/etc/web/web.conf"),
                web.exists("/nowhere")
            ),
            "isdir" => format!(
                "{:?} {:?}",
                web.isdir("/etc/web"),
                web.isdir("/etc/web/web.conf")
            ),
            "list-pattern" => format!(
                "{:?}",
                web.list_files_with(
                    "/etc/web",
                    &ListFilesOptions {
                        pattern: Some("*.conf".into()),
                        ..Default::default()
                    }
                )
                .map(|files| files.into_iter().map(|f| f.path).collect::<Vec<_>>())
            ),
            "push-owned" => format!(
                "{:?}",
                web.push(
                    "/etc/web/owned.conf",
                    "owned\n",
                    PushOptions {
                        make_dirs: true,
                        user: Some("web".into()),
                        group_id: Some(33),
                        ..Default::default()
                    }
                )
            ),
            "exec-options" => shown(web.exec_with(
                "echo",
                &["with options"],
                &ExecOptions {
                    environment: [("LANG".to_string(), "C".to_string())].into(),
                    working_dir: Some("/tmp".into()),
                    stdin: b"input".to_vec(),
                    combine_stderr: true,
                    ..Default::default()
                },
            )),
            "notices" => format!(
                "{:?}",
                web.get_notices(&NoticeFilter {
                    types: vec!["custom".into()],
                    ..Default::default()
                })
                .map(|notices| notices
                    .into_iter()
                    .map(|n| (n.key, n.occurrences, n.last_data))
                    .collect::<Vec<_>>())
            ),
            // What real Pebble refuses, and the simulated one too.
            "push-setuid" => format!(
                "{:?}",
                web.push(
                    "/etc/web/run.sh",
                    "#!/bin/sh\n",
                    PushOptions {
                        make_dirs: true,
                        permissions: Some(0o4755),
                        ..Default::default()
                    }
                )
            ),
            "push-no-parent" => {
                format!("{:?}", web.push("/srv/none/x", "x", PushOptions::default()))
            }
            "make-dir-private" => format!(
                "{:?}",
                web.make_dir(
                    "/var/lib/web/secret",
                    MakeDirOptions {
                        make_parents: true,
                        permissions: Some(0o700),
                        ..Default::default()
                    }
                )
            ),
            "list-var" => format!(
                "{:?}",
                web.list_files("/var/lib").map(|files| files
                    .into_iter()
                    .map(|f| (f.path, format!("{:o}", f.permissions)))
                    .collect::<Vec<_>>())
            ),
            "all-checks" => format!(
                "{:?}",
                web.get_checks(&[], None).map(|checks| checks
                    .into_iter()
                    .map(|c| (c.name, c.status, c.failures))
                    .collect::<Vec<_>>())
            ),
            "notice-event" => match event {
                Event::PebbleCustomNotice(n) => format!(
                    "{:?}",
                    n.notice().map(|notice| (notice.key, notice.last_data))
                ),
                other => format!("not a notice event: {other}"),
            },
            other => format!("unknown call {other}"),
        };
        log::info(format!("CALL {call} {answer}"));
    }
    Ok(None)
}
