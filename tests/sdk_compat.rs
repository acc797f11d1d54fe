//! A charm written against the SDK's previous release still builds and
//! behaves (CHANGELOG.md, issue of SDK stability): the fixture
//! `tests/sdk-compat/legacy-k8s` uses 0.1.0's names throughout; built
//! against this SDK it gets deprecation warnings only, each naming its
//! replacement, and its events end as they did. A component on the WIT of
//! a release this host no longer speaks is refused naming both versions
//! (tests/future_wit.rs for a newer one; runtime::tests::versions for an
//! older one).

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use support::{offline_ok, workspace_root};

/// Every deprecated name the fixture calls, as rustc names it.
const DEPRECATED: &[&str] = &[
    "wasm_charm::model::config_value",
    "wasm_charm::model::secret_get",
    "wasm_charm::model::application_version_set",
    "wasm_charm::model::resource_get",
    "wasm_charm::pebble::container",
    "wasm_charm::probe::set_gate",
    "wasm_charm::model::relation",
    "wasm_charm::model::network_get",
    "wasm_charm::model::network_get_for",
    "wasm_charm::model::config_options",
    "wasm_charm::model::model_name",
    "<impl wasm_charm::Error>::message",
    "<impl wasm_charm::model::Relation>::endpoint",
];

/// The copy of the fixture, its own workspace.
fn project() -> PathBuf {
    workspace_root().join("target/test-charms/sdk-compat/legacy-k8s")
}

/// The fixture, packed once per test process against this SDK: the packed
/// directory and what the build printed.
fn packed() -> &'static (PathBuf, String) {
    static PACKED: OnceLock<(PathBuf, String)> = OnceLock::new();
    PACKED.get_or_init(|| {
        let root = workspace_root();
        let dir = root.join("target/test-charms/sdk-compat");
        let _ = std::fs::remove_dir_all(&dir);
        let project = project();
        support::copy_charm(&root.join("tests/sdk-compat/legacy-k8s"), &project)
            .expect("copy the fixture");
        // Its own workspace, outside this one: the SDK by absolute path,
        // and the workspace's lock, so the same dependencies' builds are
        // shared in target/wasm-guests.
        let manifest = project.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("the fixture's Cargo.toml");
        let mut text = text;
        for crate_dir in ["guest-sdk", "testing"] {
            let path = root.join(crate_dir).display().to_string();
            text = text.replace(
                &format!("path = \"../../../{crate_dir}\""),
                &format!("path = {path:?}"),
            );
            assert!(text.contains(&path), "{text}");
        }
        std::fs::write(&manifest, text).expect("write the copy's Cargo.toml");
        std::fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock")).expect("the lock");
        let out = dir.join("packed");
        let output = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
            .arg("pack")
            .arg(&project)
            .arg("--out")
            .arg(&out)
            .arg("--dispatch")
            .arg(env!("CARGO_BIN_EXE_wasm-charm"))
            .env("CARGO_TARGET_DIR", root.join("target/wasm-guests"))
            .stdin(Stdio::null())
            .output()
            .expect("run wasm-charm pack");
        let printed = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "the 0.1.0 fixture does not build against this SDK:\n{printed}"
        );
        (out, printed)
    })
}

#[test]
fn a_charm_of_the_previous_release_builds_with_deprecation_warnings_naming_the_replacements() {
    let (_, printed) = packed();
    // Cargo's part of what `pack` printed (pack's own warnings, about the
    // debug dispatch, come before it).
    let cargo = printed
        .split_once(" for wasm32-wasip2\n")
        .map_or(printed.as_str(), |(_, after)| after);
    let warnings: Vec<&str> = cargo
        .lines()
        .filter(|l| l.starts_with("warning: ") || l.starts_with("error"))
        .filter(|l| !l.contains("generated") || !l.contains("warning"))
        .collect();
    for line in &warnings {
        assert!(
            line.starts_with("warning: use of deprecated "),
            "not a deprecation: {line}\n{printed}"
        );
        // rustc's "…`name`: <note>": the note names what to use.
        let note = line.rsplit_once("`: ").map(|(_, n)| n).unwrap_or_default();
        assert!(note.starts_with("use `"), "no replacement named: {line}");
    }
    for name in DEPRECATED {
        assert!(
            warnings
                .iter()
                .any(|l| l.contains(&format!("`{name}`")) || l.contains(&format!("::{name}`"))),
            "no warning for {name}:\n{}",
            warnings.join("\n")
        );
    }
    assert!(
        printed.contains(&format!(
            "warning: `legacy-k8s` (lib) generated {} warnings",
            warnings.len()
        )),
        "{printed}"
    );
}

/// The state file as a document.
fn doc(state: &Path) -> Value {
    let text = std::fs::read_to_string(state).expect("the state file");
    serde_saphyr::from_str(&text).expect("the state file's YAML")
}

fn edit(state: &Path, f: impl FnOnce(&mut Value)) {
    let mut d = doc(state);
    f(&mut d);
    std::fs::write(state, serde_saphyr::to_string(&d).expect("YAML")).expect("write the state");
}

fn unit_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("unit: "))
        .unwrap_or_else(|| panic!("no unit line in:\n{out}"))
}

const TOKEN: &str = "secret:cs0k1ed8000000000000";

/// Its config, its secret, its container, its relation and its action, as
/// 0.1.0 ran them: every deprecated call does what it did.
#[test]
fn a_charm_of_the_previous_release_runs_its_events_as_it_did() {
    let (charm, _) = packed();
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.yaml");

    // config_value: the secret's id is not set.
    let out = offline_ok(charm, &state, &["--event", "install"]);
    assert_eq!(
        unit_line(&out),
        "unit: blocked \"Config item `token-secret` must be set (+1 more)\" (status-set)"
    );

    // secret_get of a secret that does not exist; Error::message says why.
    let out = offline_ok(
        charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &format!("token-secret={TOKEN}"),
        ],
    );
    assert!(
        out.contains("handler config: set blocked \"token: not found: secret "),
        "{out}"
    );

    // The secret, owned by this unit: read, the version set, and the
    // container's service asked through pebble::container; set_gate gated
    // the probe on it, which waits for the service in Pebble's plan.
    edit(&state, |d| {
        d["secrets"] = json!({TOKEN: {"owner": "unit", "label": "token",
            "revisions": [{"revision": 1, "content": {"token": "t0k3n"}}]}});
    });
    let out = offline_ok(charm, &state, &["--event", "config-changed"]);
    assert!(out.contains("  handler config: cleared"), "{out}");
    assert!(out.contains("pebble app: get-services app"), "{out}");
    assert!(out.contains("gating (a handler's choice)"), "{out}");
    assert_eq!(
        unit_line(&out),
        "unit: waiting \"waiting for service app/app in the Pebble plan\" (status-set)"
    );
    assert_eq!(doc(&state)["application-version"], "0.1.0");
    assert!(
        doc(&state)["calls"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c == "resource-get -- app-image  → exit 1")),
        "{}",
        doc(&state)["calls"]
    );

    // relation, network_get and network_get_for: the website is told where.
    let out = offline_ok(
        charm,
        &state,
        &[
            "--event",
            "website-relation-joined",
            "--relation",
            "website:3",
            "--remote-app",
            "client",
            "--remote-unit",
            "client/0",
        ],
    );
    assert!(out.contains("handler website: cleared"), "{out}");
    let relation = doc(&state)["relations"]["website:3"].clone();
    assert_eq!(
        relation["local-app-data"],
        json!({"hostname": "10.0.0.10", "port": "8080"}),
        "{relation}"
    );

    // config_options and model_name, through the action.
    let out = offline_ok(charm, &state, &["--event", "actions/show-config"]);
    assert!(out.contains("handler show-config: returned"), "{out}");
    let results = doc(&state)["action-results"].clone();
    assert_eq!(results["config.port"], "8080", "{results}");
    assert_eq!(
        results["config.token-secret"],
        format!("\"{TOKEN}\""),
        "{results}"
    );
    assert_eq!(results["model"], "offline", "{results}");
}

/// Its own `cargo test`, on the harness as 0.1.0 had it: the harness's
/// `Kind` is deprecated, and the tests pass.
#[test]
fn a_charm_of_the_previous_release_passes_its_own_tests() {
    let (_, _) = packed();
    let root = workspace_root();
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["test", "--manifest-path"])
        .arg(project().join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/wasm-guests"))
        .env("WASM_CHARM", env!("CARGO_BIN_EXE_wasm-charm"))
        // The suite's flags are for its own crates.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdin(Stdio::null())
        .output()
        .expect("run cargo test on the fixture");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(output.status.success(), "{printed}");
    assert!(
        printed.contains(
            "warning: use of deprecated type alias `wasm_charm_testing::Kind`: use `StatusKind`"
        ),
        "{printed}"
    );
    assert!(
        printed.contains("test result: ok. 2 passed; 0 failed"),
        "{printed}"
    );
}

/// The value of the first line of `text` that starts with `prefix`,
/// between quotes.
fn quoted_after<'t>(text: &'t str, prefix: &str) -> &'t str {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split('"').nth(1))
        .unwrap_or_else(|| panic!("no `{prefix}` line"))
}

/// One version per SDK release, said alike by the Rust SDK, its harness,
/// the Python SDK and the changelog; one WIT version, said alike by the
/// WIT files and both SDKs.
#[test]
fn the_sdks_the_changelog_and_the_wit_name_the_same_versions() {
    let root = workspace_root();
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let sdk = quoted_after(&read("guest-sdk/Cargo.toml"), "version = ").to_string();
    assert_eq!(quoted_after(&read("testing/Cargo.toml"), "version = "), sdk);
    let python = read("guest-sdk-py/wasm_charm/__init__.py");
    assert_eq!(quoted_after(&python, "__version__ = "), sdk);
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog
            .lines()
            .any(|l| l.starts_with("## [") && l.contains(&sdk)),
        "CHANGELOG.md has no release heading naming {sdk}"
    );

    let lib = read("guest-sdk/src/lib.rs");
    let wit = quoted_after(&lib, "pub const WIT_VERSION: &str = ");
    assert_eq!(quoted_after(&python, "WIT_VERSION = "), wit);
    for entry in std::fs::read_dir(root.join("wit")).expect("wit/").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("a WIT file");
        assert!(
            text.starts_with(&format!("package wasm-charm:charm@{wit};")),
            "{} is not of WIT {wit}",
            entry.path().display()
        );
    }
}
