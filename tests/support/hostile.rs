//! Helpers shared by `tests/hostile.rs` and `tests/errors.rs`: a unit of the
//! hostile test charm (`tests/guests/hostile`), whose handler `hostile`
//! misbehaves as config option `mode` says, and readers of the scope store
//! the host keeps in `<charm>/.wasm-charm/scopes.json`.

use crate::support::{Unit, packed};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Output;

/// The hostile charm's project, for [`packed`].
pub const HOSTILE: &str = "tests/guests/hostile";

/// The merged unit status after any event in which `hostile-partial`
/// (blocked) and `handler/marker` (waiting) are the only problems.
pub const PARTIAL_PLUS_MARKER: &str = "written before failing (+1 more)";

/// A unit `hostile/0` of the packed hostile charm: the leader, `mode` set,
/// no relations.
pub fn unit(mode: &str) -> Unit {
    unit_as(mode, true)
}

/// As [`unit`], leader or not.
pub fn unit_as(mode: &str, leader: bool) -> Unit {
    let unit = Unit::on_simulator(&packed(HOSTILE), "hostile/0");
    unit.update_state(|s| {
        s["leader"] = json!(leader);
        s["config"] = json!({"mode": mode});
    });
    unit
}

/// Changes config option `mode` (the next event is usually `config-changed`).
pub fn set_mode(unit: &Unit, mode: &str) {
    unit.update_state(|s| s["config"]["mode"] = json!(mode));
}

/// Adds relation `db:1` with application `pg` and unit `pg/0`.
pub fn add_db_relation(unit: &Unit) {
    unit.update_state(|s| {
        s["relations"]["db:1"] = json!({
            "app": "pg",
            "units": ["pg/0"],
            "app-data": {},
            "unit-data": {"pg/0": {}},
            "local-unit-data": {},
            "local-app-data": {},
        });
    });
}

/// `<charm>/.wasm-charm/scopes.json`.
pub fn store_path(unit: &Unit) -> PathBuf {
    unit.charm_dir().join(".wasm-charm/scopes.json")
}

/// The store file's bytes; panics when it is missing.
pub fn store_bytes(unit: &Unit) -> Vec<u8> {
    let path = store_path(unit);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The store document.
pub fn store(unit: &Unit) -> Value {
    let path = store_path(unit);
    serde_json::from_slice(&store_bytes(unit))
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// One unit-target scope of `store` (`Value::Null` when absent).
pub fn unit_scope<'a>(store: &'a Value, name: &str) -> &'a Value {
    &store["unit"][name]
}

/// Asserts that unit scope `name` currently holds `status` with `message`.
#[track_caller]
pub fn assert_current(store: &Value, name: &str, status: &str, message: &str) {
    let current = &unit_scope(store, name)["current"];
    assert_eq!(
        (current["status"].as_str(), current["message"].as_str()),
        (Some(status), Some(message)),
        "scope {name}: {:#}",
        store["unit"]
    );
}

/// The unit scopes of `store` other than `except`.
pub fn unit_scopes_except(store: &Value, except: &str) -> Value {
    let mut scopes = store["unit"].clone();
    if let Some(map) = scopes.as_object_mut() {
        map.remove(except);
    }
    scopes
}

/// `[tool, args…]` as owned strings, to compare with `Unit::calls`.
pub fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The messages passed to `juju-log` at `level`, from the call log (one
/// element per call, however many lines it has).
pub fn logged(unit: &Unit, level: &str) -> Vec<String> {
    unit.calls_of("juju-log")
        .into_iter()
        .filter_map(|call| match call.as_slice() {
            [_, flag, l, dashes, message]
                if flag == "--log-level" && l == level && dashes == "--" =>
            {
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

/// The process's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
