//! Upgrades (issue 20): a unit as the previous release left it, run by this
//! host through `upgrade-charm` and the events after it.
//!
//! `tests/upgrade-fixtures/` holds what a unit of the hostile test charm
//! kept after `install` (mode `ok`) and `config-changed` (mode
//! `everything`), as wasm-charm 0.1.0 before the store's release marker
//! (store format 1) wrote it: `local/scopes.json` and
//! `local/recording.jsonl` (store `local`, recording on, probe `down`
//! failing), `juju/charm-state.json` (the same with `store: juju`: Juju's
//! charm state), and `cache/layout.json` (the names of the artifact cache's
//! files, by kind: the artifacts themselves are build outputs, recreated
//! here from the packed charm). [`make_fixtures`] made them; run it again
//! (ignored, with `WASM_CHARM_WRITE_FIXTURES=1`) only to record a new
//! release's unit.

use crate::support;
use crate::support::hostile as hostile_charm;
use crate::support::reserved_port;

use hostile_charm::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{Unit, assert_failure, assert_success};

fn fixtures() -> PathBuf {
    support::workspace_root().join("tests/upgrade-fixtures")
}

fn read_fixture(name: &str) -> Vec<u8> {
    let path = fixtures().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A leader unit of the hostile charm with a `db` relation, probe `down`
/// declared (failing: a reserved port), as the fixtures' unit was.
fn unit_like_the_fixtures(store: &str, closed: &reserved_port::ReservedPort) -> Unit {
    let unit = unit("ok");
    add_db_relation(&unit);
    unit.append_to(
        "wasm-charm.yaml",
        &format!(
            "store: {store}\nrecord: true\nprobes:\n  down:\n    tcp: 127.0.0.1:{}\n    timeout: 500ms\n    retries: 0\n    grace: 60s\n",
            closed.port
        ),
    );
    unit
}

fn closed_port() -> reserved_port::ReservedPort {
    reserved_port::ReservedPort::on(std::net::Ipv4Addr::LOCALHOST.into(), 0)
        .expect("reserve a port")
}

/// Records the fixtures with the host under test (see the module's doc).
#[test]
#[ignore = "records tests/upgrade-fixtures with this host: only for a new release's unit"]
fn make_fixtures() {
    if std::env::var_os("WASM_CHARM_WRITE_FIXTURES").is_none() {
        return;
    }
    let closed = closed_port();
    let dir = fixtures();
    for store in ["local", "juju"] {
        let unit = unit_like_the_fixtures(store, &closed);
        assert_success(&unit.dispatch("install"));
        set_mode(&unit, "everything");
        assert_success(&unit.dispatch("config-changed"));
        std::fs::create_dir_all(dir.join(store)).expect("create the fixtures' directory");
        let host = unit.charm_dir().join(".wasm-charm");
        if store == "local" {
            for file in ["scopes.json", "recording.jsonl"] {
                std::fs::copy(host.join(file), dir.join("local").join(file)).expect("copy");
            }
            let mut layout = BTreeMap::new();
            for entry in std::fs::read_dir(host.join("cache"))
                .expect("the cache")
                .flatten()
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                let kind = name
                    .split_once('.')
                    .map_or(name.as_str(), |(_, k)| k)
                    .to_string();
                layout.insert(kind, name);
            }
            std::fs::create_dir_all(dir.join("cache")).expect("create cache/");
            let text = serde_json::to_string_pretty(&layout).expect("encode");
            std::fs::write(dir.join("cache/layout.json"), text + "\n").expect("write");
        } else {
            let state = serde_json::to_string_pretty(&unit.state()["charm-state"]).expect("encode");
            std::fs::write(dir.join("juju/charm-state.json"), state + "\n").expect("write");
        }
    }
}

/// Where a row's unit keeps its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Store {
    Local,
    Juju,
}

impl Store {
    fn name(self) -> &'static str {
        match self {
            Store::Local => "local",
            Store::Juju => "juju",
        }
    }
}

/// The fixture's store document of `store`.
fn fixture_store(store: Store) -> Value {
    match store {
        Store::Local => serde_json::from_slice(&read_fixture("local/scopes.json")).expect("JSON"),
        Store::Juju => {
            let state: Value =
                serde_json::from_slice(&read_fixture("juju/charm-state.json")).expect("JSON");
            // One chunk: the document is the chunk (see status/store_chunks).
            serde_json::from_str(state["wasm-charm.store.0"].as_str().expect("one chunk"))
                .expect("the chunk is the document")
        }
    }
}

/// The unit's store document now.
fn unit_store(unit: &Unit, store: Store) -> Value {
    match store {
        Store::Local => hostile_charm::store(unit),
        Store::Juju => {
            let state = unit.state();
            let chunks: Vec<String> = (0..)
                .map_while(|n| {
                    state["charm-state"][format!("wasm-charm.store.{n}")]
                        .as_str()
                        .map(str::to_string)
                })
                .collect();
            serde_json::from_str(&chunks.concat()).expect("the juju store is JSON")
        }
    }
}

/// Puts the fixture of `store` where the unit keeps its store (and, for
/// `local`, its recording).
fn install_fixture(unit: &Unit, store: Store) {
    match store {
        Store::Local => {
            let host = unit.charm_dir().join(".wasm-charm");
            std::fs::create_dir_all(&host).expect("create .wasm-charm");
            for file in ["scopes.json", "recording.jsonl"] {
                std::fs::write(host.join(file), read_fixture(&format!("local/{file}")))
                    .expect("write");
            }
        }
        Store::Juju => {
            let state: Value =
                serde_json::from_slice(&read_fixture("juju/charm-state.json")).expect("JSON");
            unit.update_state(|s| s["charm-state"] = state);
        }
    }
}

/// A unit the previous release left (its store, its recording), taken
/// through `upgrade-charm` and the events after it by this host: every
/// scope of both targets and every stored key is still there, the store is
/// saved in this host's format naming its release, and the old recording
/// goes on (its events still replay the same).
#[test]
fn a_unit_left_by_the_previous_release_upgrades_keeping_every_scope_and_key() {
    let closed = closed_port();
    for store in [Store::Local, Store::Juju] {
        let unit = unit_like_the_fixtures(store.name(), &closed);
        install_fixture(&unit, store);
        let before = fixture_store(store);
        assert_eq!(
            before["format"],
            json!(1),
            "the fixture is the previous release's"
        );
        for event in ["upgrade-charm", "config-changed", "update-status"] {
            assert_success(&unit.dispatch(event));
        }
        let after = unit_store(&unit, store);
        for target in ["unit", "app"] {
            let scopes = before[target].as_object().expect("scopes");
            assert!(
                !scopes.is_empty() || target == "app",
                "{store:?}: no {target} scopes"
            );
            for (name, scope) in scopes {
                if scope["current"].is_null() {
                    continue;
                }
                assert!(
                    !after[target][name]["current"].is_null(),
                    "{store:?}: {target} scope {name} lost: {after:#}"
                );
            }
        }
        // Mode `ok` stores nothing: the data is as the previous release left it.
        assert_eq!(after["data"], before["data"], "{store:?}");
        assert!(before["data"]["count"].is_string(), "{before:#}");
        assert!(
            !before["app"]["app-scope"]["current"].is_null(),
            "{before:#}"
        );
        assert!(
            !before["unit"]["probe/down"]["current"].is_null(),
            "{before:#}"
        );
        assert_eq!(
            after["probes"]["down"]["failing_since"],
            before["probes"]["down"]["failing_since"]
        );
        // Saved in this host's format, naming the release that saved it.
        assert_eq!(after["format"], json!(2), "{store:?}");
        assert_eq!(
            after["release"],
            json!(env!("CARGO_PKG_VERSION")),
            "{store:?}"
        );

        if store == Store::Local {
            let recording = unit.charm_dir().join(".wasm-charm/recording.jsonl");
            let text = std::fs::read_to_string(&recording).expect("the recording");
            let old = String::from_utf8(read_fixture("local/recording.jsonl")).expect("UTF-8");
            assert!(text.starts_with(&old), "the old events are kept first");
            assert_eq!(text.lines().count(), old.lines().count() + 3);
            // The previous release's events replay the same on this host.
            for n in ["1", "2"] {
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
                    .arg("replay")
                    .arg(&recording)
                    .args(["--charm"])
                    .arg(unit.charm_dir())
                    .args(["--event", n])
                    .output()
                    .expect("run wasm-charm replay");
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success() && stdout.contains(": same"),
                    "replay of the old event {n}: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
}

/// A store claiming a newer format, written by a newer release, is
/// refused untouched (the file's bytes, or Juju's charm state, as they
/// were; no status written), the message naming that release; the same
/// store in this host's format runs again.
#[test]
fn a_store_of_a_newer_release_is_refused_untouched_naming_it() {
    let closed = closed_port();
    for store in [Store::Local, Store::Juju] {
        let unit = unit_like_the_fixtures(store.name(), &closed);
        let mut newer = fixture_store(store);
        newer["format"] = json!(4);
        newer["release"] = json!("9.4.1");
        let text = serde_json::to_string(&newer).expect("encode");
        match store {
            Store::Local => {
                let host = unit.charm_dir().join(".wasm-charm");
                std::fs::create_dir_all(&host).expect("create .wasm-charm");
                std::fs::write(host.join("scopes.json"), &text).expect("write");
            }
            Store::Juju => unit.update_state(|s| {
                s["charm-state"] = json!({"wasm-charm.store.0": text});
                // The header, as the layout wants it (status/store_chunks).
                let header = json!({"layout": 1, "chunks": 1, "bytes": text.len(),
                    "sha256": sha256_hex(text.as_bytes())});
                s["charm-state"]["wasm-charm.store"] = json!(header.to_string());
            }),
        }
        let bytes_before = std::fs::read(store_path(&unit)).ok();
        let state_before = unit.state()["charm-state"].clone();
        unit.clear_calls();
        let out = unit.dispatch("upgrade-charm");
        assert_failure(&out);
        let err = stderr(&out);
        assert!(
            err.contains("written by wasm-charm 9.4.1 (format 4;")
                && err.contains(&format!(
                    "this host, wasm-charm {}",
                    env!("CARGO_PKG_VERSION")
                )),
            "{store:?}: {err}"
        );
        assert_eq!(
            std::fs::read(store_path(&unit)).ok(),
            bytes_before,
            "{store:?}"
        );
        assert_eq!(unit.state()["charm-state"], state_before, "{store:?}");
        assert!(unit.calls_of("status-set").is_empty(), "{store:?}");
        assert!(unit.calls_of("state-set").is_empty(), "{store:?}");
    }
}

/// SHA-256 in lower-case hexadecimal, with the system's `sha256sum`.
fn sha256_hex(bytes: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run sha256sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(bytes)
        .expect("feed sha256sum");
    let out = child.wait_with_output().expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// `wasm` with a custom section appended: another component (another
/// hash, so other artifacts) that does the same.
fn another_component(wasm: &[u8]) -> Vec<u8> {
    let (name, payload) = (b"upgrade-test", b"2");
    let size = 1 + name.len() + payload.len();
    let mut out = wasm.to_vec();
    out.extend([0u8, size as u8, name.len() as u8]);
    out.extend(name);
    out.extend(payload);
    out
}

/// The cache's entries of the component: its artifacts, its declarations
/// and its id. The charm's parsed files (`charm-files.json`) and the
/// hooks' reads to start ahead (`reads-ahead.json`), which the previous
/// release did not keep (a host finding none parses the files, and starts
/// nothing ahead), are not the component's, and every event rewrites them
/// as it needs.
/// The kinds of file a unit's cache holds that the previous release's did
/// not: the memo of the native artifact's seal check.
const SINCE_THE_PREVIOUS_RELEASE: &[&str] = &["native.cwasm.checked"];

fn cache_names(charm: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(charm.join(".wasm-charm/cache"))
        .expect("the cache")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "charm-files.json" && n != "reads-ahead.json")
        .collect();
    names.sort();
    names
}

/// `upgrade-charm` to a new component: Juju deploys the new charm's files
/// (its component and the artifacts `pack` made for it) over the old
/// charm's, and here leaves the old artifacts as they were (Juju removes
/// those the old archive shipped; a host that compiled leaves others): the
/// event runs the new component, and the cache then holds its artifacts
/// alone, laid out as the previous release laid them out.
#[test]
fn upgrade_charm_to_a_new_component_replaces_the_stale_artifacts() {
    let layout: BTreeMap<String, String> =
        serde_json::from_slice(&read_fixture("cache/layout.json")).expect("the layout");
    let unit = unit("ok");
    assert_success(&unit.dispatch("install"));
    let old = cache_names(unit.charm_dir());
    let kinds = |names: &[String]| -> Vec<String> {
        let mut k: Vec<String> = names
            .iter()
            .map(|n| n.split_once('.').map_or(n.as_str(), |(_, k)| k).to_string())
            .collect();
        k.sort();
        k
    };
    // The previous release's layout, and the memos of the artifacts' seal
    // checks (docs/trust.md) that this release adds, which that release's
    // host never reads.
    let mut expected: Vec<String> = layout.keys().cloned().collect();
    expected.extend(SINCE_THE_PREVIOUS_RELEASE.iter().map(|k| k.to_string()));
    expected.sort();
    assert_eq!(
        kinds(&old),
        expected,
        "the cache as the previous release laid it out, and what this one adds"
    );

    // The new charm, packed: its component and its artifacts.
    let new_charm = tempfile::tempdir().expect("tempdir");
    support::copy_charm(unit.charm_dir(), new_charm.path()).expect("copy the charm");
    std::fs::remove_dir_all(new_charm.path().join(".wasm-charm")).expect("fresh cache");
    let wasm = std::fs::read(unit.charm_dir().join("charm.wasm")).expect("charm.wasm");
    std::fs::write(
        new_charm.path().join("charm.wasm"),
        another_component(&wasm),
    )
    .expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("precompile")
        .arg(new_charm.path())
        .output()
        .expect("run wasm-charm precompile");
    assert_success(&out);
    let new_sha = sha256_hex(&another_component(&wasm));
    // Juju's deployer: the new files over the old ones.
    std::fs::copy(
        new_charm.path().join("charm.wasm"),
        unit.charm_dir().join("charm.wasm"),
    )
    .expect("deploy");
    for name in cache_names(new_charm.path()) {
        if name.starts_with(&new_sha) {
            std::fs::copy(
                new_charm.path().join(".wasm-charm/cache").join(&name),
                unit.charm_dir().join(".wasm-charm/cache").join(&name),
            )
            .expect("deploy an artifact");
        }
    }
    assert_success(&unit.dispatch("upgrade-charm"));
    let now = cache_names(unit.charm_dir());
    assert!(
        now.iter()
            .all(|n| n == "component.id" || n.starts_with(&new_sha)),
        "stale artifacts left: {now:?}"
    );
    // `precompile` makes the native artifact (`pack` the portable one too).
    assert_eq!(
        kinds(&now),
        [
            "handlers.json",
            "id",
            "native.cwasm",
            "native.cwasm.checked"
        ],
        "{now:?}"
    );
    assert!(
        kinds(&now)
            .iter()
            .all(|k| layout.contains_key(k) || SINCE_THE_PREVIOUS_RELEASE.contains(&k.as_str())),
        "{now:?}"
    );
    let id = std::fs::read_to_string(unit.charm_dir().join(".wasm-charm/cache/component.id"))
        .expect("id");
    assert!(id.trim_end().ends_with(&new_sha), "{id}");
    assert_success(&unit.dispatch("update-status"));
}
