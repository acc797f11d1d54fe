//! `wasm-charm test`: the examples' scenario files (tests/scenarios) pass on
//! the packed examples; a wrong expectation is reported with its step and a
//! diff (exit 1); a bad file is refused naming the key (exit 2).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{packed, workspace_root};

/// A temporary directory holding the packed examples under their names, as
/// the scenario files name them.
fn charms() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let examples = ["gateway", "backup", "api-service", "web-k8s", "db-client"]
        .map(|n| format!("examples/{n}"));
    for source in examples
        .iter()
        .map(String::as_str)
        .chain(["tests/guests/model-echo", "tests/guests/pebble-calls"])
    {
        let charm = packed(source);
        let name = source.rsplit('/').next().unwrap_or(source);
        std::os::unix::fs::symlink(&charm, dir.path().join(name))
            .unwrap_or_else(|e| panic!("link {}: {e}", charm.display()));
    }
    dir
}

fn test(args: &[&Path]) -> (Output, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("test")
        .args(args)
        .output()
        .expect("run wasm-charm test");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

fn scenario(name: &str) -> PathBuf {
    workspace_root().join("tests/scenarios").join(name)
}

#[test]
fn the_examples_scenarios_pass() {
    let charms = charms();
    let files = [
        scenario("gateway.yaml"),
        scenario("backup.yaml"),
        scenario("api-service.yaml"),
        scenario("web-k8s.yaml"),
        scenario("juju-rules.yaml"),
        scenario("juju-rules-k8s.yaml"),
        scenario("model-requests.yaml"),
        scenario("pebble-rules.yaml"),
        scenario("db-client.yaml"),
    ];
    let mut args: Vec<&Path> = vec![Path::new("--charms"), charms.path()];
    args.extend(files.iter().map(PathBuf::as_path));
    let (out, stdout, stderr) = test(&args);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for file in &files {
        assert!(
            stdout.contains(&format!("ok      {}", file.display())),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("9 scenarios: 9 passed, 0 failed, 0 bad"),
        "{stdout}"
    );
}

/// The gateway's scenario file, unchanged, passes on the gateway written in
/// Python: `--charms` names a directory where `gateway` is that charm.
#[test]
fn the_gateway_scenario_passes_on_the_python_gateway() {
    scenario_passes_on("examples/gateway-py", "gateway", "gateway.yaml");
}

/// The web-k8s scenario file, unchanged, passes on web-k8s written in
/// Python, against the same simulated Pebble.
#[test]
fn the_web_k8s_scenario_passes_on_the_python_web_k8s() {
    scenario_passes_on("examples/web-k8s-py", "web-k8s", "web-k8s.yaml");
}

/// Scenario `file` passes with `project`'s charm linked as `name`, the
/// charm the file names.
fn scenario_passes_on(project: &str, name: &str, file: &str) {
    let charms = tempfile::tempdir().expect("temp dir");
    let charm = packed(project);
    std::os::unix::fs::symlink(&charm, charms.path().join(name))
        .unwrap_or_else(|e| panic!("link {}: {e}", charm.display()));
    let file = scenario(file);
    let (out, stdout, stderr) = test(&[Path::new("--charms"), charms.path(), &file]);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("ok      {}", file.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 scenarios: 1 passed, 0 failed, 0 bad"),
        "{stdout}"
    );
}

#[test]
fn a_wrong_expectation_names_its_step_and_shows_the_difference() {
    let charms = charms();
    // Relative to the file itself, without --charms.
    let file = charms.path().join("wrong.yaml");
    std::fs::write(
        &file,
        "charm: gateway\nsteps:\n  - event: install\n  - event: config-changed\n    \
         config: {kind: ingress}\n    expect:\n      \
         unit-status: {kind: active, message: ''}\n      scopes: {handler/config: null}\n",
    )
    .expect("write scenario");
    let (out, stdout, stderr) = test(&[&file]);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("FAILED  {}", file.display())),
        "{stdout}"
    );
    let at = format!(
        "{}: step 2 (config-changed): expect.unit-status:",
        file.display()
    );
    assert!(stdout.contains(&at), "{stdout}");
    // Only the expectation that failed, and only its lines that differ marked.
    assert!(!stdout.contains("expect.scopes"), "{stdout}");
    assert!(stdout.contains("- kind: active\n"), "{stdout}");
    assert!(stdout.contains("+ kind: blocked\n"), "{stdout}");
    assert!(
        stdout.contains("+ message: Waiting for istio-pilot relation\n"),
        "{stdout}"
    );
}

#[test]
fn a_bad_file_is_refused_naming_the_step_and_key() {
    let charms = charms();
    let file = charms.path().join("bad.yaml");
    std::fs::write(
        &file,
        "charm: gateway\nsteps:\n  - event: install\n    expect:\n      unit-stats: {kind: active}\n",
    )
    .expect("write scenario");
    let (out, stdout, stderr) = test(&[&file]);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("BAD     {}", file.display())),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "{}: step 1 (install): unknown key `expect.unit-stats`",
            file.display()
        )),
        "{stderr}"
    );
    // An event the charm does not have is refused as `run` refuses it.
    std::fs::write(&file, "charm: gateway\nsteps:\n  - event: instal\n").expect("write");
    let (out, _, stderr) = test(&[&file]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("step 1 (instal): --event `instal` is not an event"),
        "{stderr}"
    );
}

#[test]
fn an_empty_list_or_map_expects_none_and_fails_when_there_are_some() {
    let charms = charms();
    let file = charms.path().join("empty.yaml");
    std::fs::write(
        &file,
        "charm: gateway\nsteps:\n  - event: install\n    expect:\n      tool-calls: []\n",
    )
    .expect("write scenario");
    let (out, stdout, stderr) = test(&[&file]);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("expect.tool-calls"), "{stdout}");
    assert!(stdout.contains("+ status-set"), "{stdout}");
}

/// A model scenario: its steps are `juju` commands, its expectations name
/// units and applications; a wrong one is reported by unit with a diff,
/// and a typo in it is a bad file.
#[test]
fn a_model_scenario_drives_juju_and_checks_each_units_events() {
    let charms = tempfile::tempdir().expect("temp dir");
    for name in ["db-provider", "db-client"] {
        let charm = packed(&format!("examples/{name}"));
        std::os::unix::fs::symlink(&charm, charms.path().join(format!("{name}.charm")))
            .unwrap_or_else(|e| panic!("link {}: {e}", charm.display()));
    }
    let file = scenario("model-database.yaml");
    let (out, stdout, stderr) = test(&[Path::new("--charms"), charms.path(), &file]);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 scenarios: 1 passed"), "{stdout}");

    let wrong = charms.path().join("wrong.yaml");
    std::fs::write(
        &wrong,
        "model: {}\nsteps:\n  - juju: deploy db-provider.charm db\n    expect:\n      \
         units:\n        db/0: {events: [install, start]}\n        db/1: {leader: true}\n",
    )
    .expect("write scenario");
    let (out, stdout, _) = test(&[&wrong]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let at = format!(
        "{}: step 1 (juju deploy db-provider.charm db): expect.units.db/0:",
        wrong.display()
    );
    assert!(stdout.contains(&at), "{stdout}");
    assert!(stdout.contains("+ - leader-elected\n"), "{stdout}");
    // A unit that is not there shows as absent.
    assert!(
        stdout.contains("expect.units.db/1:\n    - leader: true\n    + null"),
        "{stdout}"
    );

    std::fs::write(
        &wrong,
        "model: {}\nsteps:\n  - juju: status\n    expects: {}\n",
    )
    .expect("write scenario");
    let (out, stdout, stderr) = test(&[&wrong]);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stderr.contains("step 1: unknown key `expects` (a model step has juju, expect)"),
        "{stderr}"
    );
}
