//! `wasm-charm inspect` on the examples, packed: as a directory, as the
//! `.charm` pack wrote beside it, and as a bare component; what a charm may
//! change on the machine (its declared directories, services, commands and
//! packages); and on a component of a WIT version this host does not
//! implement.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{Unit, assert_failure, assert_success, future_wit_component, packed};

fn inspect(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("inspect")
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm inspect")
}

/// `inspect`'s report, which must succeed.
fn report_of(path: &Path) -> String {
    let out = inspect(path);
    assert_success(&out);
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The `.charm` pack wrote beside the packed directory `dir`.
fn archive_of(dir: &Path, name: &str) -> PathBuf {
    let archive = dir
        .parent()
        .expect("a parent")
        .join(format!("{name}.charm"));
    assert!(archive.is_file(), "{} missing", archive.display());
    archive
}

#[track_caller]
fn assert_lines(report: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            report.lines().any(|l| l == *line),
            "no line {line:?} in:\n{report}"
        );
    }
}

#[test]
fn the_gateway_its_handlers_wit_version_and_declarations() {
    let dir = packed("examples/gateway");
    let report = report_of(&dir);
    assert!(
        report.starts_with("charm: gateway (charm directory "),
        "{report}"
    );
    assert!(report.contains("\ncomponent: charm.wasm ("), "{report}");
    assert_lines(
        &report,
        &[
            "WIT: wasm-charm:charm@0.3.0 (types, model, relations, handlers) (this host implements 0.3.0)",
            "handlers (3):",
            "  config (priority normal): install, config-changed",
            "  pilot (priority normal): install; relation-created, relation-joined, \
             relation-changed, relation-departed, relation-broken of istio-pilot",
            "  leader (priority normal): install, leader-elected, config-changed",
            "  wasm-charm:charm/model@0.3.0",
            "  wasm-charm:charm/relations@0.3.0",
            "exports: wasm-charm:charm/handlers@0.3.0",
            "relations:",
            "  istio-pilot: requires istio-pilot, limit 1",
            "config:",
            "  kind: string, default \"\"",
            "actions:",
            "  show-status (answered by the host)",
            "probes: none",
            "workload: none (no directory, service, command or package)",
            "limits: memory 64 MiB per handler instance, handler timeout 30000 ms",
            "on-error: block (a handler's error blocks its scope)",
            "store: auto (Juju's charm state on Kubernetes, a file in the charm directory on machines)",
            "record: off (unless the hook's environment sets WASM_CHARM_RECORD)",
        ],
    );
    let dispatch = report
        .lines()
        .find(|l| l.starts_with("dispatch: "))
        .expect("a dispatch line");
    assert!(dispatch.contains("x86_64 (amd64)") || dispatch.contains("aarch64 (arm64)"));
    // Its size, and whether it compiles: the tests pack the debug CLI.
    assert!(dispatch.contains(" MB, with a compiler;"), "{dispatch}");
    let artifacts = report
        .lines()
        .find(|l| l.starts_with("artifacts: "))
        .expect("an artifacts line");
    assert!(
        artifacts.contains("native (baseline CPU) ")
            && artifacts.contains("portable (Pulley, interpreted) ")
            && !artifacts.contains("stale"),
        "{artifacts}"
    );
    assert!(
        report.contains("bases (manifest.yaml): ubuntu "),
        "{report}"
    );

    // The .charm says the same, unpacked in a temporary directory.
    let archive = archive_of(&dir, "gateway");
    let from_archive = report_of(&archive);
    assert_eq!(
        from_archive.lines().skip(1).collect::<Vec<_>>(),
        report.lines().skip(1).collect::<Vec<_>>(),
        "the .charm and its directory differ"
    );
    assert!(
        from_archive.starts_with(&format!("charm: gateway (.charm {})", archive.display())),
        "{from_archive}"
    );
}

#[test]
fn the_api_service_its_handlers_actions_probes_workload_and_limits() {
    let dir = packed("examples/api-service");
    let report = report_of(&dir);
    assert_lines(
        &report,
        &[
            "WIT: wasm-charm:charm@0.3.0 (types, status, model, probe, stored, workload, handlers) \
             (this host implements 0.3.0)",
            "handlers (5):",
            "  package (priority normal): install, start, upgrade-charm, config-changed",
            "  workload (priority normal): install, start, upgrade-charm, config-changed",
            "  pause (priority normal): action pause",
            "  resume (priority normal): action resume",
            "  stop (priority normal): stop",
            "actions:",
            "  pause",
            "  resume",
            "  self-check (answered by the host)",
            "  show-status (answered by the host)",
            "probes:",
            "  api-port: port 127.0.0.1:8774 expected up, gates, timeout 2s, retries 2, backoff 500ms, grace 2m",
            "  api-stopped: process api-service expected down, gates only when a handler chooses, \
             timeout 2s, retries 1, backoff 500ms, grace 1m",
            "    /etc/api-service: read-write",
            "  commands:",
            "    db-sync: argv [\"api-service-manage\", \"db\", \"sync\"], no arguments may be appended, timeout 5m",
            "limits: memory 64 MiB per handler instance, handler timeout 30000 ms",
            "limits: handler package: timeout 900000 ms (its own)",
            "limits: handler workload: timeout 900000 ms (its own)",
            "ready-message: Unit is ready",
        ],
    );
}

#[test]
fn the_declared_workload_files_services_commands_and_packages() {
    let report = report_of(&packed("tests/guests/file-walls"));
    assert_lines(
        &report,
        &[
            "workload:",
            "  files:",
            "    /etc/walls/rw: read-write",
            "    /etc/walls/ro: read",
            "    /srv/walls/created: read-write",
            "    /opt/walls/absent: read",
            "  services: none",
            "  commands: none",
            "  packages (apt): none",
        ],
    );

    // Every kind, on a copy of the gateway whose manifest declares them.
    let unit = Unit::on_simulator(&packed("examples/gateway"), "gateway/0");
    unit.append_to(
        "wasm-charm.yaml",
        "workload:\n\
         \x20 files:\n\
         \x20   - {path: /etc/api-service, access: read-write}\n\
         \x20   - {path: /var/log/api-service}\n\
         \x20 services: [api-worker, api-service]\n\
         \x20 commands:\n\
         \x20   db-sync: {argv: [api-service-manage, db, sync], timeout: 5m}\n\
         \x20   hook: {argv: [run-hook, \"two words\"], args: true}\n\
         \x20 packages:\n\
         \x20   apt: [api-service, python3-api]\n",
    );
    let report = report_of(unit.charm_dir());
    let start = report
        .lines()
        .position(|l| l == "workload:")
        .unwrap_or_else(|| panic!("no workload section in:\n{report}"));
    assert_eq!(
        report.lines().skip(start).take(14).collect::<Vec<_>>(),
        [
            "workload:",
            "  files:",
            "    /etc/api-service: read-write",
            "    /var/log/api-service: read",
            "  services:",
            "    api-service",
            "    api-worker",
            "  commands:",
            "    db-sync: argv [\"api-service-manage\", \"db\", \"sync\"], no arguments may be appended, timeout 5m",
            "    hook: argv [\"run-hook\", \"two words\"], the handler may append arguments, timeout 1m",
            "  packages (apt):",
            "    api-service",
            "    python3-api",
            "limits: memory 64 MiB per handler instance, handler timeout 30000 ms",
        ]
    );
}

#[test]
fn a_bare_component_its_handlers_and_wit_version() {
    let wasm = packed("examples/gateway").join("charm.wasm");
    let report = report_of(&wasm);
    assert_lines(
        &report,
        &[
            &format!("component {}", wasm.display()),
            "WIT: wasm-charm:charm@0.3.0 (types, model, relations, handlers) (this host implements 0.3.0)",
            "  config (priority normal): install, config-changed",
        ],
    );
    // No charm files: nothing of them is claimed.
    assert!(!report.contains("actions"), "{report}");
    assert!(!report.contains("dispatch"), "{report}");
}

#[test]
fn an_incompatible_component_shows_its_version_and_fails() {
    let wasm = future_wit_component();
    let out = inspect(&wasm);
    assert_failure(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("WIT: wasm-charm:charm@0.4.0 (types, status, handlers, incompatible: "),
        "{report}"
    );
    assert!(report.contains("handlers: not read: "), "{report}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("@0.4.0"), "{err}");
    assert!(err.contains("wasm-charm:charm@0.3.0"), "{err}");
}

#[test]
fn what_is_no_charm_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "hello").unwrap();
    let out = inspect(&file);
    assert_failure(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: neither a charm directory, a .charm (zip) nor a WebAssembly component",
            file.display()
        )),
        "{err}"
    );
    // A directory without metadata.yaml names the file it lacks.
    let out = inspect(dir.path());
    assert_failure(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("metadata.yaml: cannot read"), "{err}");
}

#[test]
fn a_command_no_handler_deadline_lets_finish_is_warned_about() {
    // The api-service example without its two handlers' own deadlines:
    // db-sync's 5m outlasts every handler's 30 s.
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = dir.path().join("api-service");
    support::copy_charm(&packed("examples/api-service"), &charm).expect("copy the packed charm");
    let manifest = charm.join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    let cut: String = text
        .lines()
        .filter(|l| !l.contains("timeout-ms: 900000") && l.trim() != "handlers:")
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&manifest, cut).expect("write");
    let report = report_of(&charm);
    assert!(
        report.lines().any(|l| l.starts_with(
            "warning: workload.commands.db-sync: its timeout of 5m outlasts every handler's deadline (the longest is 30s)"
        )),
        "{report}"
    );
    // With them, nothing to say.
    assert!(!report_of(&packed("examples/api-service")).contains("warning:"));
}
