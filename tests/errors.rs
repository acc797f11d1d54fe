//! Error paths outside the guest (DESIGN §6, §7): an unreadable store, a
//! process killed mid-event, a failing hook tool, a missing or wrong
//! component, a damaged artifact cache and an incomplete Juju environment.
//! The charm is `tests/guests/hostile` (see `tests/hostile.rs`).

use crate::support;
use crate::support::hostile as hostile_charm;

use hostile_charm::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{Unit, assert_failure, assert_success, future_wit_component, workspace_root};

/// No hook tool was called: the host stopped before any handler ran (the
/// host itself logs nothing either).
#[track_caller]
fn assert_no_calls(unit: &Unit) {
    assert_eq!(unit.calls(), Vec::<Vec<String>>::new());
}

// ------------------------------------------------------------ the store

/// Writes `bytes` as the store, dispatches `install`, and asserts the hook
/// failed naming the file, with the file untouched and no handler run.
fn assert_store_refused(bytes: &[u8]) -> String {
    let unit = unit("ok");
    std::fs::write(store_path(&unit), bytes).expect("write the store");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let err = stderr(&out);
    assert!(
        err.contains(&store_path(&unit).display().to_string()),
        "stderr does not name {}: {err}",
        store_path(&unit).display()
    );
    assert_eq!(store_bytes(&unit), bytes, "the store file was changed");
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());
    assert_no_calls(&unit);
    err
}

#[test]
fn corrupt_store_fails_the_hook_and_is_left_as_it_is() {
    let err = assert_store_refused(b"{\"format\": 1, \"clock\": 3, \"unit\": {");
    // The reason once: not repeated as its own cause.
    assert_eq!(
        err.matches("the scope store is not valid").count(),
        1,
        "stderr: {err}"
    );
    assert!(err.contains("the file is left as it is"), "stderr: {err}");
}

#[test]
fn store_of_a_newer_host_fails_the_hook_and_is_left_as_it_is() {
    let err = assert_store_refused(br#"{"format": 99, "clock": 0}"#);
    assert_eq!(
        err.matches("written by a newer wasm-charm (format 99")
            .count(),
        1,
        "stderr: {err}"
    );
}

// ------------------------------------------------------------ crash

/// Starts `cmd`, retrying while the just-copied binary is "text file busy"
/// (another test thread forking with its fd open), as the harness does.
fn spawn(mut cmd: Command) -> std::process::Child {
    for _ in 0..10 {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(Duration::from_millis(10)),
            other => return other.expect("spawn dispatch"),
        }
    }
    cmd.spawn().expect("spawn dispatch")
}

fn dir_listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn killed_mid_event_leaves_the_store_intact_and_the_next_event_runs() {
    use std::os::unix::process::ExitStatusExt as _;

    let unit = unit("ok");
    assert_success(&unit.dispatch("install"));
    let before = store_bytes(&unit);
    let state_dir = unit.charm_dir().join(".wasm-charm");
    let listing = dir_listing(&state_dir);

    set_mode(&unit, "loop");
    unit.clear_calls();
    let mut cmd = unit.dispatch_command("hooks/config-changed", &[]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = spawn(cmd);
    // Setup, not an assertion: wait until `marker` asked for the config, so
    // `hostile` is about to spin or spinning, then give it a moment.
    let start = Instant::now();
    while unit.calls_of("config-get").is_empty() {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "dispatch exited before its handlers ran: {:?}",
            unit.calls()
        );
        assert!(
            start.elapsed() < support::DISPATCH_TIMEOUT,
            "dispatch never ran a handler"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().expect("SIGKILL dispatch");
    let status = child.wait().expect("wait for dispatch");
    assert_eq!(
        status.signal(),
        Some(9),
        "dispatch was not killed mid-event but ended with {status}"
    );

    assert_eq!(store_bytes(&unit), before, "the store changed");
    assert_eq!(
        dir_listing(&state_dir),
        listing,
        "files left in {}",
        state_dir.display()
    );
    assert_eq!(unit.calls_of("status-set"), Vec::<Vec<String>>::new());

    // A crash during a save leaves a temporary file beside the store: the
    // next event must not trip over it (nor over the dead process's lock).
    std::fs::write(
        state_dir.join(".scopes-crash.tmp"),
        b"{\"format\": 1, \"clo",
    )
    .expect("write a stray temp file");
    set_mode(&unit, "ok");
    let out = unit.dispatch("config-changed");
    assert_success(&out);
    let store = store(&unit);
    assert_current(&store, "handler/marker", "waiting", "marker saw ok");
    assert_current(
        &store,
        "hostile-partial",
        "blocked",
        "written before failing",
    );
}

// ------------------------------------------------------------ hook tools

#[test]
fn failed_status_set_fails_the_hook_keeps_nothing_and_the_retry_writes_it() {
    let unit = unit("ok");
    unit.update_state(|s| {
        s["fail"] = json!({"status-set": {"code": 1, "stderr": "ERROR connection refused"}});
    });
    let out = unit.dispatch("install");
    assert_failure(&out);
    // The tool's stderr, as the operator reads it.
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l
            == "wasm-charm: writing the unit status failed: \
                status-set exited with code 1: connection refused"),
        "stderr: {err}"
    );
    let expected = argv(&["status-set", "blocked", "--", PARTIAL_PLUS_MARKER]);
    assert_eq!(unit.calls_of("status-set"), vec![expected.clone()]);
    // One event, one transaction: the failed hook stored nothing.
    assert!(!store_path(&unit).exists());

    // Juju retries the same hook, which reaches the same result and writes it.
    unit.update_state(|s| {
        s.as_object_mut().unwrap().remove("fail");
    });
    unit.clear_calls();
    assert_success(&unit.dispatch("install"));
    assert_eq!(unit.calls_of("status-set"), vec![expected]);
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "blocked", "message": PARTIAL_PLUS_MARKER})
    );
    let store_now = store(&unit);
    assert_current(
        &store_now,
        "hostile-partial",
        "blocked",
        "written before failing",
    );
    assert_eq!(
        store_now["written"]["unit"],
        json!({"status": "blocked", "message": PARTIAL_PLUS_MARKER})
    );
}

// ------------------------------------------------------------ the component

#[test]
fn missing_component_fails_the_hook_naming_the_file() {
    let unit = unit("ok");
    let wasm = unit.charm_dir().join("charm.wasm");
    std::fs::remove_file(&wasm).expect("remove charm.wasm");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let err = stderr(&out);
    assert!(err.contains(&wasm.display().to_string()), "stderr: {err}");
    assert_eq!(
        err.matches("No such file or directory").count(),
        1,
        "stderr: {err}"
    );
    assert_no_calls(&unit);
}

#[test]
fn core_module_is_refused_with_what_to_build() {
    let unit = unit("ok");
    let wasm = unit.charm_dir().join("charm.wasm");
    std::fs::write(&wasm, b"\0asm\x01\0\0\0").expect("write a core module");
    let out = unit.dispatch("install");
    assert_failure(&out);
    let err = stderr(&out);
    assert!(err.contains(&wasm.display().to_string()), "stderr: {err}");
    assert!(err.contains("core WebAssembly module"), "stderr: {err}");
    assert!(err.contains("wasm32-wasip2"), "stderr: {err}");
    assert_no_calls(&unit);
}

/// A unit whose charm is future-wit's metadata and `component`: no config,
/// no manifest, no cached artifact.
fn unit_of_future_wit(component: &[u8]) -> Unit {
    let unit = unit("ok");
    let charm = unit.charm_dir();
    std::fs::write(charm.join("charm.wasm"), component).expect("write component");
    std::fs::copy(
        workspace_root().join("tests/guests/future-wit/metadata.yaml"),
        charm.join("metadata.yaml"),
    )
    .expect("copy metadata.yaml");
    for file in ["config.yaml", "wasm-charm.yaml"] {
        std::fs::remove_file(charm.join(file)).expect("remove a hostile charm file");
    }
    std::fs::remove_dir_all(charm.join(".wasm-charm")).expect("remove the cache");
    unit
}

/// Dispatches `install` on `unit` and asserts the hook failed before any
/// guest code ran; the error, which names the component.
fn refused_before_it_runs(unit: &Unit) -> String {
    let out = unit.dispatch("install");
    assert_failure(&out);
    let err = stderr(&out);
    let wasm = unit.charm_dir().join("charm.wasm");
    assert!(err.contains(&wasm.display().to_string()), "stderr: {err}");
    // No guest code ran: no status, no log, nothing stored.
    assert_no_calls(unit);
    assert!(!store_path(unit).exists());
    err
}

#[test]
fn component_of_an_incompatible_wit_version_is_refused_before_it_runs() {
    let component = std::fs::read(future_wit_component()).expect("read future-wit");
    let err = refused_before_it_runs(&unit_of_future_wit(&component));
    // Names the interface and version it found, the host's, and what to do.
    assert!(
        err.contains("the component targets wasm-charm:charm/"),
        "stderr: {err}"
    );
    assert!(
        err.contains("@0.4.0, but this host implements wasm-charm:charm@0.3.0; rebuild the charm against the host's SDK, or use a host of that version"),
        "stderr: {err}"
    );
}

#[test]
fn component_of_the_previous_wit_version_is_refused_naming_what_to_do() {
    // future-wit with its contract's version relabelled `0.2.0`: a component
    // as one built against the previous contract names its imports (the
    // versions have the same length, so the binary stays well formed).
    let component = relabelled(
        &std::fs::read(future_wit_component()).expect("read future-wit"),
        b"@0.4.0",
        b"@0.2.0",
    );
    let err = refused_before_it_runs(&unit_of_future_wit(&component));
    assert!(
        err.contains("the component targets wasm-charm:charm/"),
        "stderr: {err}"
    );
    assert!(
        err.contains("@0.2.0, but this host implements wasm-charm:charm@0.3.0; rebuild the charm against the host's SDK"),
        "stderr: {err}"
    );
}

/// `bytes` with every `from` replaced by `to`, of the same length.
fn relabelled(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut at = 0;
    let mut found = 0;
    while let Some(i) = out[at..].windows(from.len()).position(|w| w == from) {
        out[at + i..at + i + to.len()].copy_from_slice(to);
        at += i + to.len();
        found += 1;
    }
    assert!(
        found > 0,
        "no {} in the component",
        String::from_utf8_lossy(from)
    );
    out
}

#[test]
fn pack_refuses_a_component_of_an_incompatible_wit_version() {
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("pack")
        .arg(workspace_root().join("tests/guests/future-wit"))
        .arg("--out")
        .arg(out_dir.path().join("future-wit"))
        .arg("--dispatch")
        .arg(env!("CARGO_BIN_EXE_wasm-charm"))
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm pack");
    assert_failure(&out);
    let err = stderr(&out);
    assert!(err.contains("@0.4.0"), "stderr: {err}");
    assert!(err.contains("wasm-charm:charm@0.3.0"), "stderr: {err}");
    assert!(
        !out_dir.path().join("future-wit").exists(),
        "a refused charm was assembled anyway"
    );
}

// ------------------------------------------------------------ artifact cache

/// The one native artifact in the unit's cache (the CLI, the dispatch of
/// these tests, compiles it again; the portable one is `dispatch`'s
/// fallback, tests/pack.rs).
fn artifact(unit: &Unit) -> PathBuf {
    let dir = unit.charm_dir().join(".wasm-charm/cache");
    let names: Vec<String> = dir_listing(&dir)
        .into_iter()
        .filter(|n| n.ends_with(".native.cwasm"))
        .collect();
    match names.as_slice() {
        [one] => dir.join(one),
        _ => panic!("expected one artifact in {}: {names:?}", dir.display()),
    }
}

#[test]
fn damaged_artifact_is_replaced_and_the_event_runs() {
    let unit = unit("ok");
    let path = artifact(&unit);
    let garbage = b"this is not an artifact".to_vec();
    std::fs::write(&path, &garbage).expect("damage the artifact");

    assert_success(&unit.dispatch("install"));
    assert_current(&store(&unit), "handler/marker", "waiting", "marker saw ok");
    assert_eq!(artifact(&unit), path, "the artifact's key changed");
    let replaced = std::fs::read(&path).expect("read the artifact");
    assert_ne!(replaced, garbage);
    assert!(replaced.starts_with(b"\x7fELF"), "not an ELF artifact");

    // An operator's WASMTIME_BACKTRACE_DETAILS must not make it unloadable:
    // the same artifact is used, not recompiled under another key.
    set_mode(&unit, "err");
    let out = unit.dispatch_with(
        "hooks/config-changed",
        &[("WASMTIME_BACKTRACE_DETAILS", "1")],
    );
    assert_success(&out);
    assert_current(
        &store(&unit),
        "handler/hostile",
        "blocked",
        "deliberate failure",
    );
    assert_eq!(artifact(&unit), path);
    assert_eq!(std::fs::read(&path).expect("read the artifact"), replaced);
}

// ------------------------------------------------------------ environment

#[test]
fn unknown_hook_succeeds_without_calling_anything() {
    let unit = unit("ok");
    let out = unit.dispatch("frobnicate");
    assert_success(&out);
    assert_no_calls(&unit);
    assert!(!store_path(&unit).exists());
}

/// Dispatch without `var` (removed, then set empty) fails naming it, before
/// anything runs.
fn assert_required(var: &str) {
    let unit = unit("ok");
    let removed = unit.dispatch_without("hooks/install", &[var]);
    let empty = unit.dispatch_with("hooks/install", &[(var, "")]);
    for out in [removed, empty] {
        assert_failure(&out);
        assert!(stderr(&out).contains(var), "stderr: {}", stderr(&out));
    }
    assert_no_calls(&unit);
    assert!(!store_path(&unit).exists());
}

#[test]
fn missing_unit_name_fails_naming_it() {
    assert_required("JUJU_UNIT_NAME");
}

#[test]
fn missing_dispatch_path_fails_naming_it() {
    assert_required("JUJU_DISPATCH_PATH");
}
