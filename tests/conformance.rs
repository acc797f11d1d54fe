//! The conformance suite (docs/conformance.md): every scenario file in
//! tests/conformance passes on the packed examples and the conformance test
//! charm, and every file of the conformance charm passes on its Python twin
//! (tests/guests/conformance-py) too; docs/conformance.md links every file and nothing else; and the
//! runner's keys for the suite (the clock's `after`, `tool-call-counts`,
//! `scope-history`) refuse what is wrong and report what fails.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{packed, workspace_root};

/// The charms the suite's files name, packed, under those names.
const CHARMS: [&str; 5] = [
    "examples/gateway",
    "examples/backup",
    "examples/api-service",
    "tests/guests/conformance",
    "tests/guests/conformance-strict",
];

/// The Python conformance charms, packed under the names of the Rust ones
/// the suite's files name.
const PYTHON_CHARMS: [(&str, &str); 2] = [
    ("conformance", "tests/guests/conformance-py"),
    ("conformance-strict", "tests/guests/conformance-strict-py"),
];

/// A temporary directory holding the packed charms under their names.
fn charms() -> tempfile::TempDir {
    let named = CHARMS.map(|project| {
        let name = Path::new(project)
            .file_name()
            .unwrap_or_else(|| panic!("{project} has no name"))
            .to_string_lossy()
            .into_owned();
        (name, project)
    });
    link(&named)
}

/// Each project packed, linked under its name in a temporary directory.
fn link(named: &[(String, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, project) in named {
        let charm = packed(project);
        std::os::unix::fs::symlink(&charm, dir.path().join(name))
            .unwrap_or_else(|e| panic!("link {}: {e}", charm.display()));
    }
    dir
}

fn test(charms: &Path, files: &[PathBuf]) -> (Output, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("test")
        .arg("--charms")
        .arg(charms)
        .args(files)
        .output()
        .expect("run wasm-charm test");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// Every scenario file of the suite, sorted.
fn suite() -> Vec<PathBuf> {
    let dir = workspace_root().join("tests/conformance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

/// Run `files` against `charms`: each passes, and the summary says so.
fn every_file_passes(charms: &Path, files: &[PathBuf]) {
    let (out, stdout, stderr) = test(charms, files);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for file in files {
        assert!(
            stdout.contains(&format!("ok      {}", file.display())),
            "{stdout}"
        );
    }
    let n = files.len();
    assert!(
        stdout.contains(&format!("{n} scenarios: {n} passed, 0 failed, 0 bad")),
        "{stdout}"
    );
}

#[test]
fn every_rule_holds() {
    let charms = charms();
    let files = suite();
    assert!(files.len() >= 30, "only {} scenario files", files.len());
    every_file_passes(charms.path(), &files);
}

/// The charm a scenario file names.
fn charm_of(file: &Path) -> String {
    let text =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    text.lines()
        .find_map(|l| l.strip_prefix("charm:"))
        .map(|name| name.trim().to_string())
        .unwrap_or_else(|| panic!("{} names no charm", file.display()))
}

#[test]
fn every_rule_of_the_conformance_charm_holds_on_its_python_twin() {
    // Every file naming the conformance charms runs against the Python ones
    // linked under those names; the other charms are not needed. No file is
    // left out: the Python charm makes the traps (panic, memory, stack) a
    // Rust charm gets, and the host's deadline cuts its loops and sleeps.
    let named = PYTHON_CHARMS.map(|(name, project)| (name.to_string(), project));
    let charms = link(&named);
    let files: Vec<PathBuf> = suite()
        .into_iter()
        .filter(|f| PYTHON_CHARMS.iter().any(|(name, _)| charm_of(f) == *name))
        .collect();
    assert!(files.len() >= 30, "only {} scenario files", files.len());
    every_file_passes(charms.path(), &files);
}

/// The relative links of docs/conformance.md into tests/conformance.
fn linked() -> BTreeSet<String> {
    let page = workspace_root().join("docs/conformance.md");
    let text =
        std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("read {}: {e}", page.display()));
    const PREFIX: &str = "](../tests/conformance/";
    text.match_indices(PREFIX)
        .map(|(at, _)| {
            let rest = &text[at + PREFIX.len()..];
            let end = rest
                .find(')')
                .unwrap_or_else(|| panic!("unclosed link at byte {at}"));
            rest[..end].to_string()
        })
        .collect()
}

#[test]
fn the_page_links_every_rule_file_and_only_those() {
    let links = linked();
    let files: BTreeSet<String> = suite()
        .iter()
        .map(|p| {
            p.file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let unlinked: Vec<&String> = files.difference(&links).collect();
    assert!(
        unlinked.is_empty(),
        "not linked from docs/conformance.md: {unlinked:?}"
    );
    let dangling: Vec<&String> = links.difference(&files).collect();
    assert!(
        dangling.is_empty(),
        "docs/conformance.md links files that do not exist: {dangling:?}"
    );
}

/// A scenario of the conformance charm written to a temporary file.
fn scenario(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
    file
}

#[test]
fn a_wrong_after_is_a_bad_file() {
    let charms = charms();
    let file = scenario(
        charms.path(),
        "after.yaml",
        "charm: conformance\nsteps:\n  - event: install\n  - event: update-status\n    \
         after: soon\n",
    );
    let (out, stdout, stderr) = test(charms.path(), std::slice::from_ref(&file));
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: step 2 (update-status): `after`: `soon` is not a duration",
            file.display()
        )),
        "{stderr}"
    );
}

#[test]
fn after_moves_the_clock_past_a_grace_period() {
    let charms = charms();
    // Without `after` the probe stays within its 60s grace period; the
    // expectation of blocked fails and shows maintenance.
    let text = |after: &str| {
        format!(
            "charm: conformance\nstate:\n  probes:\n    web: {{healthy: false, detail: down}}\n\
             steps:\n  - event: install\n    config: {{alpha: gate web on}}\n  \
             - event: update-status\n{after}    expect:\n      unit-status: {{kind: blocked}}\n"
        )
    };
    let file = scenario(charms.path(), "late.yaml", &text("    after: 61s\n"));
    let (out, stdout, stderr) = test(charms.path(), &[file]);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let file = scenario(charms.path(), "early.yaml", &text("    after: 59s\n"));
    let (out, stdout, stderr) = test(charms.path(), &[file]);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("- kind: blocked\n"), "{stdout}");
    assert!(stdout.contains("+ kind: maintenance\n"), "{stdout}");
}

#[test]
fn counts_and_histories_that_fail_show_a_diff() {
    let charms = charms();
    let file = scenario(
        charms.path(),
        "counts.yaml",
        "charm: conformance\nsteps:\n  - event: install\n    \
         config: {alpha: 'set disk blocked disk full'}\n    expect:\n      \
         tool-call-counts: {status-set: 0}\n      \
         scope-history: {disk: [{kind: waiting, event: install}]}\n",
    );
    let (out, stdout, stderr) = test(charms.path(), std::slice::from_ref(&file));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let at = format!("{}: step 1 (install): expect.", file.display());
    assert!(
        stdout.contains(&format!("{at}tool-call-counts:")),
        "{stdout}"
    );
    assert!(stdout.contains("- \"status-set\": 0\n"), "{stdout}");
    assert!(stdout.contains("+ \"status-set\": 1\n"), "{stdout}");
    // Every call of the event, for context.
    assert!(
        stdout.contains("+ # status-set blocked -- 'disk full'"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{at}scope-history:")), "{stdout}");
    assert!(stdout.contains("-   kind: waiting\n"), "{stdout}");
    assert!(stdout.contains("+   kind: blocked\n"), "{stdout}");
}
