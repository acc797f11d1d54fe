//! A charm runs the code `inspect` shows (docs/trust.md): `wasm-charm
//! verify` refuses every artifact that is not the compilation of
//! `charm.wasm`, any other file under `.wasm-charm/` and a `dispatch` that
//! is not the release's, naming the file; `inspect` reads the component,
//! never an artifact; and the host refuses, at run time, an artifact whose
//! seal does not match the component beside it. These charms' `dispatch`
//! is the debug CLI (`support::packed`), which compiles the component again
//! when it refuses an artifact; tests/pack.rs shows the static dispatch,
//! which cannot, taking the portable artifact or failing the hook.

use crate::support;

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{Unit, assert_failure, assert_success, copy_charm, packed, replaced};
use wasm_charm_host::runtime::seal;

fn wasm_charm(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm")
}

/// `wasm-charm verify <charm>`, its `dispatch` held against itself: these
/// tests are about the artifacts (the release's dispatch: the last test).
fn verify_artifacts(charm: &Path) -> Output {
    let dispatch = charm.join("dispatch");
    wasm_charm(&[
        "verify".as_ref(),
        charm.as_os_str(),
        "--dispatch".as_ref(),
        dispatch.as_os_str(),
    ])
}

fn stdout_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The artifact of `kind` in the cache of the charm directory `charm`.
fn artifact(charm: &Path, kind: &str) -> PathBuf {
    support::artifact(&charm.join(".wasm-charm/cache"), kind)
}

/// The SHA-256 an artifact's file is named for.
fn named_for(artifact: &Path) -> String {
    let name = artifact.file_name().unwrap_or_default().to_string_lossy();
    name.split('.').next().unwrap_or_default().to_string()
}

/// A copy of the packed gateway in `dir`, its cache changed by `edit`.
fn gateway_copy(dir: &Path, edit: impl FnOnce(&Path)) -> PathBuf {
    let charm = dir.join("gateway");
    copy_charm(&packed("examples/gateway"), &charm).expect("copy the packed gateway");
    edit(&charm);
    charm
}

/// `config-changed` on the unit of the charm directory `charm`, `kind`
/// unset: the gateway says it must be set.
fn config_changed(charm: &Path) -> (Unit, Output) {
    let unit = Unit::with_charm_dir_on_simulator(charm, "gateway/0", &[], &[]);
    unit.set_state(json!({
        "leader": true,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    let out = unit.dispatch("config-changed");
    (unit, out)
}

/// The gateway's own status, not another charm's.
fn assert_the_gateway_ran(unit: &Unit) {
    let sets = unit.calls_of("status-set");
    assert_eq!(
        sets.last().map(|c| c[1..].to_vec()),
        Some(vec![
            "blocked".to_string(),
            "--".to_string(),
            "Config item `kind` must be set".to_string()
        ]),
        "{sets:?}"
    );
}

/// The unit's native artifact is now what `pack` compiled, byte for byte:
/// the refused one was replaced by the compilation of the component.
fn assert_compiled_again(unit: &Unit) {
    let now = std::fs::read(artifact(unit.charm_dir(), "native")).expect("the unit's artifact");
    let packed = std::fs::read(artifact(&packed("examples/gateway"), "native"))
        .expect("the packed artifact");
    assert!(
        now == packed,
        "the unit's native artifact is not the compilation"
    );
}

#[test]
fn an_untouched_packed_charm_has_every_artifact_verified() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |_| {});
    let out = verify_artifacts(&charm);
    assert_success(&out);
    let report = stdout_of(&out);
    for kind in ["native", "portable"] {
        let file = artifact(&charm, kind);
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        assert!(
            report.contains(&format!(
                "  ok       .wasm-charm/cache/{name}: the compilation of the component for "
            )),
            "{report}"
        );
    }
    assert!(report.contains("\nverified: "), "{report}");
    let inspected = wasm_charm(&["inspect".as_ref(), charm.as_os_str()]);
    assert_success(&inspected);
    assert!(
        stdout_of(&inspected).contains("verified: the native artifact is the compilation"),
        "{}",
        stdout_of(&inspected)
    );
}

/// `wasm-charm run` keeps what it derives from the component beside its
/// state file, taking the artifact the charm ships (a link, not a
/// compile): the charm directory stays as `pack` made it, and verified.
#[test]
fn an_offline_run_leaves_the_charm_directory_as_pack_made_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |_| {});
    let cache = charm.join(".wasm-charm/cache");
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let shipped = names(&cache);
    let state = dir.path().join("state.yaml");
    for event in ["install", "config-changed"] {
        let out = wasm_charm(&[
            "run".as_ref(),
            charm.as_os_str(),
            "--state".as_ref(),
            state.as_os_str(),
            "--event".as_ref(),
            event.as_ref(),
        ]);
        assert_success(&out);
    }
    assert_eq!(names(&cache), shipped, "the charm's cache after two runs");
    assert_success(&verify_artifacts(&charm));

    let own = dir.path().join("state.cache/cache");
    let kept = names(&own);
    assert!(kept.contains(&"component.id".to_string()), "{kept:?}");
    use std::os::unix::fs::MetadataExt as _;
    let inode = |path: &Path| std::fs::metadata(path).expect("an artifact").ino();
    let native = artifact(&charm, "native");
    assert_eq!(
        inode(&own.join(native.file_name().unwrap_or_default())),
        inode(&native),
        "the run's native artifact is the one the charm ships: {kept:?}"
    );
}

/// The case that ran another charm's handlers in the gateway's place: the
/// api-service's native artifact copied over the gateway's, same name.
#[test]
fn an_artifact_of_another_component_is_refused_by_verify_inspect_and_the_host() {
    let dir = tempfile::tempdir().expect("temp dir");
    let other = artifact(&packed("examples/api-service"), "native");
    let charm = gateway_copy(dir.path(), |charm| {
        std::fs::copy(&other, artifact(charm, "native")).expect("copy the other artifact over");
    });
    let own = artifact(&charm, "native");
    let name = own
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();

    let out = verify_artifacts(&charm);
    assert_failure(&out);
    let report = stdout_of(&out);
    let said = format!(
        "  REFUSED  .wasm-charm/cache/{name}: not the compilation of the component: it is the \
         compilation of another component (sha256 {}), not of this charm's (sha256 {})",
        named_for(&other),
        named_for(&own)
    );
    assert!(report.contains(&said), "{report}");
    assert!(report.contains("not verified: 1 of "), "{report}");
    assert!(
        stderr_of(&out).contains(&format!("not verified: .wasm-charm/cache/{name}")),
        "{}",
        stderr_of(&out)
    );

    // inspect shows the gateway's handlers, read from charm.wasm, and says
    // that the unit would not run them.
    let inspected = wasm_charm(&["inspect".as_ref(), charm.as_os_str()]);
    assert_failure(&inspected);
    let shown = stdout_of(&inspected);
    assert!(shown.contains("charm: gateway "), "{shown}");
    assert!(shown.contains("  pilot (priority"), "{shown}");
    assert!(
        shown.contains("verified: NO: the native artifact is not"),
        "{shown}"
    );

    // The host refuses it, says so on the unit's log, and runs the
    // gateway's own code (compiled again: this dispatch can).
    let (unit, out) = config_changed(&charm);
    assert_success(&out);
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "wasm-charm: warning: refused {}: it is the compilation of another component",
            unit.charm_dir()
                .join(".wasm-charm/cache")
                .join(&name)
                .display()
        )),
        "{err}"
    );
    assert_the_gateway_ran(&unit);
    assert_compiled_again(&unit);
}

#[test]
fn a_hand_edited_artifact_is_refused_by_verify_and_the_host() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |charm| {
        let path = artifact(charm, "native");
        let mut bytes = std::fs::read(&path).expect("the artifact");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::fs::write(&path, bytes).expect("edit the artifact");
    });
    let out = verify_artifacts(&charm);
    assert_failure(&out);
    let report = stdout_of(&out);
    assert!(
        report.contains("not the compilation of the component: its bytes were changed after it was compiled (sha256 "),
        "{report}"
    );
    let (unit, out) = config_changed(&charm);
    assert_success(&out);
    let err = stderr_of(&out);
    assert!(
        err.contains(": its bytes were changed after it was compiled"),
        "{err}"
    );
    assert_the_gateway_ran(&unit);
}

/// An artifact sealed as it should be but made by another wasmtime (here:
/// its recorded version rewritten, and sealed again, as another release's
/// pack would have sealed it).
#[test]
fn an_artifact_of_another_wasmtime_is_refused_by_verify_and_by_wasmtime() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |charm| {
        let path = artifact(charm, "native");
        let bytes = std::fs::read(&path).expect("the artifact");
        let (elf, sealed) = seal::split(&bytes).expect("a sealed artifact");
        let older = replaced(elf, b"wasmtime 48.0.8", b"wasmtime 48.0.0");
        std::fs::write(&path, seal::append(older, &sealed.component)).expect("write it");
    });
    let out = verify_artifacts(&charm);
    assert_failure(&out);
    let report = stdout_of(&out);
    assert!(
        report.contains(
            "not the compilation of the component: made by another wasmtime (`wasm-charm \
             artifact of wasmtime 48.0.0`; this wasm-charm's is `wasm-charm artifact of \
             wasmtime 48.0.8`)"
        ),
        "{report}"
    );
    // wasmtime's own check refuses it at load; this host compiles again.
    let (unit, out) = config_changed(&charm);
    assert_success(&out);
    assert_the_gateway_ran(&unit);
    assert_compiled_again(&unit);
}

/// What only `verify` can catch: code changed and sealed again to match.
#[test]
fn a_forged_artifact_with_a_matching_seal_is_refused_by_verify() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |charm| {
        let path = artifact(charm, "native");
        let bytes = std::fs::read(&path).expect("the artifact");
        let (elf, sealed) = seal::split(&bytes).expect("a sealed artifact");
        let mut forged = elf.to_vec();
        let middle = forged.len() / 2;
        forged[middle] ^= 0x01;
        std::fs::write(&path, seal::append(forged, &sealed.component)).expect("write it");
    });
    let out = verify_artifacts(&charm);
    assert_failure(&out);
    assert!(
        stdout_of(&out).contains(
            "not the compilation of the component: its seal claims it is, but its code is not \
             what this wasm-charm compiles"
        ),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn a_file_pack_does_not_ship_under_the_state_directory_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charm = gateway_copy(dir.path(), |charm| {
        let sha = named_for(&artifact(charm, "native"));
        std::fs::write(
            charm.join(format!(".wasm-charm/cache/{sha}.handlers.json")),
            "[]",
        )
        .expect("plant declarations");
        std::fs::write(charm.join(".wasm-charm/scopes.json"), "{}").expect("plant a store");
    });
    let out = verify_artifacts(&charm);
    assert_failure(&out);
    let report = stdout_of(&out);
    for file in [".wasm-charm/scopes.json", ".handlers.json"] {
        let line = report
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} in {report}"));
        assert!(
            line.contains("REFUSED") && line.contains("not a file `pack` ships"),
            "{line}"
        );
    }
}

/// The tests' packed charms ship the debug CLI as `dispatch`: not the
/// runtime of the release, which verify builds from this source tree.
#[test]
fn a_dispatch_that_is_not_the_releases_runtime_is_refused() {
    let charm = packed("examples/gateway");
    let out = wasm_charm(&["verify".as_ref(), charm.as_os_str()]);
    assert_failure(&out);
    let report = stdout_of(&out);
    let line = report
        .lines()
        .find(|l| l.contains(" dispatch: "))
        .unwrap_or_else(|| panic!("a dispatch line in {report}"));
    assert!(
        line.starts_with("  REFUSED  dispatch: not the runtime of wasm-charm ")
            && line.contains("it holds a compiler"),
        "{line}"
    );
}
