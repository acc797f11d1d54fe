//! Fault injection (issue 20): every hook tool the host calls, and every
//! file it writes, made to fail, and what Juju and the operator then see.
//!
//! The unit is the packed `tests/guests/hostile` charm on the simulator's
//! tools, installed in mode `ok` and then switched to mode `everything`:
//! its handlers read the config, write relation data, ask for leadership,
//! log, store data and change both statuses, so that one `config-changed`
//! calls every tool an ordinary event calls. Each row
//! breaks one thing, runs the event, and asserts the outcome: an exit code
//! Juju retries (1) with a message naming the tool or file, or a fault the
//! host absorbs by design; the store before the event intact, byte for
//! byte; and the next event whole, reaching what a unit that never saw the
//! fault reaches.

use crate::support;
use crate::support::faults;
use crate::support::hostile as hostile_charm;
use crate::support::reserved_port;

use faults::Fault;
use hostile_charm::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::process::Output;
use support::{Unit, assert_success};

/// The mode of the event under test (the unit is installed in `ok`).
const MODE: &str = "everything";

/// Where the row's unit keeps its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Store {
    Local,
    Juju,
}

/// A leader unit of the hostile charm with a `db` relation, its store kept
/// as `store` says, after its `install` (mode `ok`), switched to [`MODE`].
fn installed(store: Store) -> Unit {
    installed_recording(store, false)
}

/// As [`installed`], recording its events when `record` says so.
fn installed_recording(store: Store, record: bool) -> Unit {
    let unit = unit("ok");
    add_db_relation(&unit);
    if store == Store::Juju {
        unit.append_to("wasm-charm.yaml", "store: juju\n");
    }
    if record {
        unit.append_to("wasm-charm.yaml", "record: true\n");
    }
    assert_success(&unit.dispatch("install"));
    set_mode(&unit, MODE);
    unit
}

/// Everything the event could have changed that Juju or the next event
/// sees: the store (the local file's bytes, or Juju's charm state), the
/// committed relation data, and the files of the host's directory.
fn snapshot(unit: &Unit) -> Value {
    let local = std::fs::read(store_path(unit))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .ok();
    let state = unit.state();
    json!({
        "local": local,
        "charm-state": state["charm-state"],
        "relations": state["relations"],
        "files": host_files(unit),
    })
}

/// The names in the charm's `.wasm-charm/` (a leftover temporary file
/// would show here).
fn host_files(unit: &Unit) -> BTreeSet<String> {
    std::fs::read_dir(unit.charm_dir().join(".wasm-charm"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// What an event reached, without the wall-clock times: every scope's
/// current status, the statuses written, the stored data.
fn reached(unit: &Unit, store: Store) -> Value {
    let doc: Value = match store {
        Store::Local => hostile_charm::store(unit),
        Store::Juju => {
            let state = unit.state();
            let text = state["charm-state"]["wasm-charm.store"]
                .as_str()
                .unwrap_or_else(|| panic!("no store in Juju's state: {state:#}"))
                .to_string();
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("the juju store: {e}"))
        }
    };
    let current = |target: &str| -> Value {
        doc[target]
            .as_object()
            .map(|scopes| {
                scopes
                    .iter()
                    // A cleared scope is kept for its history only.
                    .filter(|(_, scope)| !scope["current"].is_null())
                    .map(|(name, scope)| (name.clone(), scope["current"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    json!({
        "unit": current("unit"),
        "app": current("app"),
        "written": doc["written"],
        "data": doc["data"],
        "juju-status": unit.state()["status"],
        "relations": unit.state()["relations"],
    })
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

// ------------------------------------------------------------ hook tools

/// What a row of the hook-tool table must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Exit 1 (Juju retries), stderr naming the tool (for a hang, with the
    /// deadline that cut it), nothing of the event kept.
    Fails,
    /// A call the charm made: the handler gets the error, returns it, and
    /// its scope is blocked with a message naming the tool (the charm's
    /// `on-error: block`); exit 0. The next event heals the scope.
    Blocks,
    /// The fault cannot change the outcome: exit 0, and the event reached
    /// what it reaches without it.
    Absorbed,
}

/// The tools one event of the unit calls, in the order first called, and
/// whether each answer is read as JSON.
fn tools_called(store: Store) -> Vec<(String, bool)> {
    let unit = installed(store);
    unit.clear_calls();
    assert_success(&unit.dispatch("config-changed"));
    let mut seen: Vec<(String, bool)> = Vec::new();
    for call in unit.calls() {
        let json = call.iter().any(|a| a == "--format=json");
        match seen.iter_mut().find(|(t, _)| *t == call[0]) {
            Some((_, j)) => *j |= json,
            None => seen.push((call[0].clone(), json)),
        }
    }
    seen
}

/// The rule. The host's own calls (statuses, relation data, the store)
/// fail the hook however they fail, so that Juju retries it whole. A call
/// the charm made is an error value for its handler (blocked under the
/// default `on-error: block`), unless it hangs: then the handler's deadline
/// fails the hook. `juju-log` is best effort: a log line lost must not fail
/// the event, nor make every retry fail the same way; the line is printed
/// on stderr instead.
fn expected(tool: &str, fault: Fault) -> Expect {
    match (tool, fault) {
        ("juju-log", _) => Expect::Absorbed,
        (_, Fault::Hang) => Expect::Fails,
        // The first read is the component's `charm()`, which ignores a
        // failed one; a failed read is not cached, so the handler's own
        // read asks again and gets the config.
        ("config-get", Fault::Missing) => Expect::Blocks,
        ("config-get", _) => Expect::Absorbed,
        ("relation-ids" | "relation-list" | "relation-get" | "is-leader", _) => Expect::Blocks,
        _ => Expect::Fails,
    }
}

/// The unit scopes of `reached` (see [`reached`]), without their ages
/// (a scope blocked in between is a new problem, and younger).
fn unit_scopes(reached: &Value) -> Value {
    let mut scopes = reached["unit"].clone();
    for current in scopes
        .as_object_mut()
        .into_iter()
        .flat_map(|m| m.values_mut())
    {
        if let Some(c) = current.as_object_mut() {
            c.remove("since");
        }
    }
    scopes
}

/// One row: `fault` at the first call of `tool` during `config-changed`.
fn tool_row(store: Store, tool: &str, fault: Fault, control: &Value) -> Result<(), String> {
    let unit = installed(store);
    let before = snapshot(&unit);
    faults::inject(&unit, tool, 1, fault);
    let out = unit.dispatch("config-changed");
    let row = format!("{tool} {fault:?} ({store:?} store)");
    let expect = expected(tool, fault);
    match expect {
        Expect::Fails => {
            if out.status.code() != Some(1) {
                return Err(format!("{row}: expected exit 1, got {}", text(&out)));
            }
            let err = String::from_utf8_lossy(&out.stderr);
            if !err.contains(tool) {
                return Err(format!(
                    "{row}: stderr does not name {tool}: {}",
                    text(&out)
                ));
            }
            let after = snapshot(&unit);
            if after != before {
                return Err(format!(
                    "{row}: the failed event changed what it must not:\nbefore {before:#}\nafter {after:#}"
                ));
            }
        }
        Expect::Blocks => {
            if !out.status.success() {
                return Err(format!("{row}: expected exit 0, got {}", text(&out)));
            }
            let got = reached(&unit, store);
            let blocked =
                unit_scopes(&got)
                    .as_object()
                    .into_iter()
                    .flatten()
                    .any(|(name, current)| {
                        name.starts_with("handler/")
                            && current["status"] == "blocked"
                            && current["message"]
                                .as_str()
                                .is_some_and(|m| m.contains(tool))
                    });
            if !blocked {
                return Err(format!(
                    "{row}: no handler scope is blocked naming {tool}: {:#}",
                    unit_scopes(&got)
                ));
            }
        }
        Expect::Absorbed => {
            if !out.status.success() {
                return Err(format!("{row}: expected exit 0, got {}", text(&out)));
            }
            let got = reached(&unit, store);
            if &got != control {
                return Err(format!(
                    "{row}: absorbed, yet reached\n{got:#}\ninstead of\n{control:#}"
                ));
            }
        }
    }
    // The next event (Juju's retry) is whole once the tool answers again.
    faults::restore(&unit, tool);
    let retry = unit.dispatch("config-changed");
    if !retry.status.success() {
        return Err(format!("{row}: the retry failed: {}", text(&retry)));
    }
    let got = reached(&unit, store);
    // After a blocked handler the retry is one more event of the charm (its
    // count moved on); its scopes are healed all the same.
    let (got, want) = match expect {
        Expect::Fails => (&got, control),
        Expect::Blocks => (&unit_scopes(&got), &unit_scopes(control)),
        Expect::Absorbed => return Ok(()),
    };
    if got != want {
        return Err(format!(
            "{row}: the retry reached\n{got:#}\ninstead of\n{want:#}"
        ));
    }
    Ok(())
}

/// Runs `rows` on a few threads at once (each row is its own unit and
/// processes; a hanging tool makes a row last its deadline), and fails
/// with every row that did not hold.
fn run_rows<R: Sync>(rows: &[R], run: impl Fn(&R) -> Result<(), String> + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(row) = rows.get(i) else { break };
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(row)))
                            .unwrap_or_else(|p| {
                                Err(p
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_else(|| "panicked".into()))
                            });
                    if let Err(e) = result {
                        failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n\n")
    );
}

/// Every tool one event calls, failing in each way at its first call. A
/// broken-JSON answer is tried only on tools whose answer is read as JSON
/// (for the others, stdout is not an answer). The hanging rows take the
/// charm's handler deadline (5 s) or the host's own budget (30 s).
#[test]
fn every_hook_tool_failing_every_way() {
    let mut rows = Vec::new();
    for store in [Store::Local, Store::Juju] {
        let control_unit = installed(store);
        assert_success(&control_unit.dispatch("config-changed"));
        let control = reached(&control_unit, store);
        for (tool, json) in tools_called(store) {
            // The local unit covers the tools both call.
            if store == Store::Juju && !tool.starts_with("state-") {
                continue;
            }
            for fault in Fault::ALL {
                if fault == Fault::BrokenJson && !json {
                    continue;
                }
                rows.push((store, tool.clone(), fault, control.clone()));
            }
        }
    }
    let tools: BTreeSet<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    for must in [
        "config-get",
        "relation-set",
        "status-set",
        "juju-log",
        "is-leader",
        "state-get",
        "state-set",
    ] {
        assert!(tools.contains(must), "the event calls no {must}: {tools:?}");
    }
    run_rows(&rows, |(store, tool, fault, control)| {
        tool_row(*store, tool, *fault, control)
    });
}

// ------------------------------------------------------------ files

/// What the host writes, each under the directory a row mounts a tmpfs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// `.wasm-charm/scopes.json` (and its lock), on a tmpfs over `.wasm-charm`.
    Store,
    /// `.wasm-charm/recording.jsonl`, on the same tmpfs, filled so that the
    /// store (written first, one block) still fits and the recording does not.
    Recording,
    /// `.wasm-charm/cache/`, on a tmpfs of its own, the native artifact
    /// removed so that the host compiles and writes it again.
    Cache,
}

/// How the file system refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Full,
    ReadOnly,
}

fn recording_path(unit: &Unit) -> std::path::PathBuf {
    unit.charm_dir().join(".wasm-charm/recording.jsonl")
}

fn native_artifacts(unit: &Unit) -> Vec<String> {
    std::fs::read_dir(unit.charm_dir().join(".wasm-charm/cache"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".native.cwasm"))
                .collect()
        })
        .unwrap_or_default()
}

/// Every name under the host's directory, the cache's included.
fn all_host_files(unit: &Unit) -> BTreeSet<String> {
    let cache = unit.charm_dir().join(".wasm-charm/cache");
    let mut names = host_files(unit);
    if let Ok(entries) = std::fs::read_dir(cache) {
        names.extend(
            entries
                .flatten()
                .map(|e| format!("cache/{}", e.file_name().to_string_lossy())),
        );
    }
    names.remove("filler");
    names.remove("cache/filler");
    names
}

fn file_row(written: Written, refusal: Refusal, control: &Value) -> Result<(), String> {
    let row = format!("{written:?} on a {refusal:?} file system");
    let unit = installed_recording(Store::Local, true);
    let host_dir = unit.charm_dir().join(".wasm-charm");
    let mounted = match written {
        Written::Store | Written::Recording => host_dir.clone(),
        Written::Cache => host_dir.join("cache"),
    };
    if written == Written::Cache {
        for name in native_artifacts(&unit) {
            std::fs::remove_file(host_dir.join("cache").join(name)).map_err(|e| e.to_string())?;
        }
    }
    let tmpfs = faults::Tmpfs::over(&mounted, "8m")?;
    match refusal {
        Refusal::Full if written == Written::Recording => {
            // One block free: the new copy of the store (or of the
            // component's id) takes it while the old one exists, and frees
            // the old one's; the recording with one more event needs two.
            tmpfs.fill(4096);
        }
        Refusal::Full => tmpfs.fill(0),
        Refusal::ReadOnly => tmpfs.read_only(true),
    }
    let store_before = std::fs::read(store_path(&unit)).map_err(|e| e.to_string())?;
    let recording_before = std::fs::read(recording_path(&unit)).map_err(|e| e.to_string())?;
    let files_before = all_host_files(&unit);
    unit.clear_debug_log();

    let out = unit.dispatch("config-changed");
    let store_after = std::fs::read(store_path(&unit)).map_err(|e| e.to_string())?;
    let recording_after = std::fs::read(recording_path(&unit)).map_err(|e| e.to_string())?;
    if all_host_files(&unit) != files_before {
        return Err(format!(
            "{row}: files were left behind: {:?} instead of {files_before:?}",
            all_host_files(&unit)
        ));
    }
    let before = (store_before.as_slice(), recording_before.as_slice());
    let after = (store_after.as_slice(), recording_after.as_slice());
    check_refused(&unit, written, &out, before, after, control)
        .map_err(|e| format!("{row}: {e}"))?;

    // The file system takes writes again: the next event is whole.
    match refusal {
        Refusal::Full => tmpfs.unfill(),
        Refusal::ReadOnly => tmpfs.read_only(false),
    }
    let next = unit.dispatch("config-changed");
    if !next.status.success() {
        return Err(format!("{row}: the next event failed: {}", text(&next)));
    }
    check_next(&unit, written, &recording_before, control).map_err(|e| format!("{row}: {e}"))?;
    drop(tmpfs);
    Ok(())
}

/// What the event on a refusing file system must have done: `before` and
/// `after` are the store's and the recording's bytes.
fn check_refused(
    unit: &Unit,
    written: Written,
    out: &Output,
    before: (&[u8], &[u8]),
    after: (&[u8], &[u8]),
    control: &Value,
) -> Result<(), String> {
    let (store_before, recording_before) = before;
    let (store_after, recording_after) = after;
    match written {
        Written::Store => {
            let err = String::from_utf8_lossy(&out.stderr);
            if out.status.code() != Some(1) || !err.contains(".wasm-charm/") {
                return Err(format!("expected exit 1 naming the file: {}", text(out)));
            }
            if store_after != store_before {
                return Err("the store changed".to_string());
            }
        }
        Written::Recording => {
            if !out.status.success() {
                return Err(format!("expected exit 0, got {}", text(out)));
            }
            if &reached(unit, Store::Local) != control {
                return Err("the event did not reach what it reaches".to_string());
            }
            if recording_after != recording_before {
                return Err("the recording changed".to_string());
            }
            let warned = unit.debug_log().lines().any(|l| {
                l.starts_with("WARNING recording the event failed: ")
                    && l.contains("recording.jsonl")
            });
            if !warned {
                return Err(format!(
                    "no warning naming the recording: {}",
                    unit.debug_log()
                ));
            }
        }
        Written::Cache => {
            if !out.status.success() {
                return Err(format!("expected exit 0, got {}", text(out)));
            }
            if &reached(unit, Store::Local) != control {
                return Err("the event did not reach what it reaches".to_string());
            }
            if !native_artifacts(unit).is_empty() {
                return Err("an artifact was written on a refusing file system".to_string());
            }
        }
    }

    Ok(())
}

/// What the next event, with room again, must have done.
fn check_next(
    unit: &Unit,
    written: Written,
    recording_before: &[u8],
    control: &Value,
) -> Result<(), String> {
    match written {
        Written::Store => {
            if &reached(unit, Store::Local) != control {
                return Err("the retry did not reach what the event reaches".to_string());
            }
        }
        Written::Recording => {
            let text = std::fs::read_to_string(recording_path(unit)).map_err(|e| e.to_string())?;
            let before = String::from_utf8_lossy(recording_before).lines().count();
            if text.lines().count() != before + 1
                || !text.starts_with(&*String::from_utf8_lossy(recording_before))
            {
                return Err("the next event was not added whole to the recording".to_string());
            }
        }
        Written::Cache => {
            if native_artifacts(unit).len() != 1 {
                return Err("the next event did not cache the artifact again".to_string());
            }
        }
    }
    Ok(())
}

/// The store, the recording and the artifact cache on a full and on a
/// read-only file system (a tmpfs mounted over the directory: the test
/// needs root or `CAP_SYS_ADMIN`). The store refused fails the hook naming
/// the file and keeps the old one byte for byte; the recording and the
/// cache are best effort and fail no hook; nothing is left half-written.
/// A read-only `.wasm-charm` is a refused store (the store's lock is taken
/// first), so the recording is refused by a full file system only.
#[test]
fn writes_to_a_full_or_read_only_file_system() {
    let control_unit = installed_recording(Store::Local, true);
    assert_success(&control_unit.dispatch("config-changed"));
    let control = reached(&control_unit, Store::Local);
    let rows = [
        (Written::Store, Refusal::Full),
        (Written::Store, Refusal::ReadOnly),
        (Written::Recording, Refusal::Full),
        (Written::Cache, Refusal::Full),
        (Written::Cache, Refusal::ReadOnly),
    ];
    run_rows(&rows, |(written, refusal)| {
        file_row(*written, *refusal, &control)
    });
}

// ------------------------------------------------------------ the artifact cache

/// What happens to `.wasm-charm/cache/` between two events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CacheDamage {
    /// The whole directory removed.
    Deleted,
    /// The native artifact cut to half its length (a torn copy).
    NativeTruncated,
    /// The native artifact overwritten with other bytes.
    NativeGarbage,
    /// The cached handler declarations not JSON.
    HandlersGarbage,
    /// The component's cached id (stat stamp and hash) not one.
    IdGarbage,
}

fn cache_file(unit: &Unit, suffix: &str) -> std::path::PathBuf {
    let cache = unit.charm_dir().join(".wasm-charm/cache");
    std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no *{suffix} in {}", cache.display()))
}

fn damage(unit: &Unit, how: CacheDamage) {
    let write = |suffix: &str, bytes: &[u8]| {
        std::fs::write(cache_file(unit, suffix), bytes).expect("damage the cache");
    };
    match how {
        CacheDamage::Deleted => {
            std::fs::remove_dir_all(unit.charm_dir().join(".wasm-charm/cache"))
                .expect("delete the cache");
        }
        CacheDamage::NativeTruncated => {
            let path = cache_file(unit, ".native.cwasm");
            let bytes = std::fs::read(&path).expect("read the artifact");
            std::fs::write(&path, &bytes[..bytes.len() / 2]).expect("truncate it");
        }
        CacheDamage::NativeGarbage => write(".native.cwasm", &[0x5a; 4096]),
        CacheDamage::HandlersGarbage => write(".handlers.json", b"{\"handlers\": [tru"),
        CacheDamage::IdGarbage => write("component.id", b"not a stamp\n"),
    }
}

/// The cache after the damage was repaired: the native artifact of the
/// component (whose hash names it), its declarations as JSON, its id, and
/// no temporary file.
fn cache_whole(unit: &Unit) -> Result<(), String> {
    let wasm = std::fs::read(unit.charm_dir().join("charm.wasm")).map_err(|e| e.to_string())?;
    let id =
        std::fs::read_to_string(cache_file(unit, "component.id")).map_err(|e| e.to_string())?;
    let sha = id.split_whitespace().last().unwrap_or_default().to_string();
    let native = cache_file(unit, ".native.cwasm");
    let handlers = std::fs::read(cache_file(unit, ".handlers.json")).map_err(|e| e.to_string())?;
    let names: Vec<String> = all_host_files(unit).into_iter().collect();
    if names.iter().any(|n| n.ends_with(".tmp")) {
        return Err(format!("a temporary file was left: {names:?}"));
    }
    if !native.to_string_lossy().contains(&sha) || sha.len() != 64 {
        return Err(format!(
            "the id {id:?} does not name the artifact {}",
            native.display()
        ));
    }
    serde_json::from_slice::<Value>(&handlers).map_err(|e| format!("handlers: {e}"))?;
    if std::fs::metadata(&native).map_or(0, |m| m.len()) < 4096 || wasm.is_empty() {
        return Err("the artifact is not whole".into());
    }
    Ok(())
}

/// The artifact cache deleted or damaged between events, with the `dispatch`
/// the tests pack (the CLI, which can compile): the event runs and reaches
/// what it reaches on a whole cache, the cache is whole again after it, and
/// the next event runs on it. (The shipped dispatch cannot compile: it runs
/// the portable artifact, or fails naming `wasm-charm pack`;
/// `tests/pack.rs` shows it.)
#[test]
fn the_artifact_cache_deleted_or_damaged_between_events() {
    let control_unit = installed(Store::Local);
    assert_success(&control_unit.dispatch("config-changed"));
    let control = reached(&control_unit, Store::Local);
    let rows = [
        CacheDamage::Deleted,
        CacheDamage::NativeTruncated,
        CacheDamage::NativeGarbage,
        CacheDamage::HandlersGarbage,
        CacheDamage::IdGarbage,
    ];
    run_rows(&rows, |how| {
        let row = format!("cache {how:?}");
        let unit = installed(Store::Local);
        damage(&unit, *how);
        let out = unit.dispatch("config-changed");
        if !out.status.success() {
            return Err(format!("{row}: expected exit 0, got {}", text(&out)));
        }
        if reached(&unit, Store::Local) != control {
            return Err(format!("{row}: the event did not reach what it reaches"));
        }
        cache_whole(&unit).map_err(|e| format!("{row}: {e}"))?;
        let next = unit.dispatch("update-status");
        if !next.status.success() {
            return Err(format!("{row}: the next event failed: {}", text(&next)));
        }
        Ok(())
    });
}

// ------------------------------------------------------------ the clock

/// Moves every time the store keeps of its probes by `ms` (negative:
/// back): the store is the probes' only memory of time between events, so
/// moving it back is the clock jumping forward, and moving it on is the
/// clock jumping back.
fn shift_probe_times(store: &mut Value, ms: i64) {
    let shift = |v: &mut Value| {
        if let Some(t) = v.as_u64() {
            *v = json!(t.saturating_add_signed(ms));
        }
    };
    for probe in store["probes"]
        .as_object_mut()
        .into_iter()
        .flat_map(|m| m.values_mut())
    {
        shift(&mut probe["grace_start"]);
        shift(&mut probe["failing_since"]);
        shift(&mut probe["last"]["at"]);
        shift(&mut probe["last"]["since"]);
    }
}

fn rewrite_store(unit: &Unit, f: impl FnOnce(&mut Value)) {
    let mut doc = hostile_charm::store(unit);
    f(&mut doc);
    let text = serde_json::to_string_pretty(&doc).expect("encode the store");
    std::fs::write(store_path(unit), text).expect("write the store");
}

const DAY_MS: i64 = 24 * 3600 * 1000;

/// The wall clock jumping between events, under a failing gated probe
/// whose grace period is 60 s: each row jumps, runs `update-status`, and
/// checks the probe's scope, then lets 61 s pass (by the store) and checks
/// that the grace period ends as it would have without the jump.
/// (Deadlines are monotonic `Instant`s, which a jump of the wall clock does
/// not move; the probes' clock is injected in the host's own tests,
/// `probe::clock::ManualClock`.)
#[test]
fn the_clock_jumping_between_events() {
    let closed = reserved_port::ReservedPort::on(std::net::Ipv4Addr::LOCALHOST.into(), 0)
        .expect("reserve a port");
    // (jump in ms, the probe's status right after it)
    let rows: [(&str, i64, &str); 4] = [
        ("forward a day", DAY_MS, "blocked"),
        ("forward a minute", 61_000, "blocked"),
        ("back a day", -DAY_MS, "maintenance"),
        ("back a year", -365 * DAY_MS, "maintenance"),
    ];
    run_rows(&rows, |(name, jump, right_after)| {
        let row = format!("clock {name}");
        let unit = unit("ok");
        unit.append_to(
            "wasm-charm.yaml",
            &format!(
                "probes:\n  down:\n    tcp: 127.0.0.1:{}\n    timeout: 500ms\n    retries: 0\n    grace: 60s\n",
                closed.port
            ),
        );
        assert_success(&unit.dispatch("install"));
        let probe = |unit: &Unit| {
            hostile_charm::store(unit)["unit"]["probe/down"]["current"]["status"]
                .as_str()
                .unwrap_or("none")
                .to_string()
        };
        if probe(&unit) != "maintenance" {
            return Err(format!("{row}: the probe starts as {}", probe(&unit)));
        }
        rewrite_store(&unit, |s| shift_probe_times(s, -jump));
        let out = unit.dispatch("update-status");
        if !out.status.success() {
            return Err(format!("{row}: update-status failed: {}", text(&out)));
        }
        if probe(&unit) != *right_after {
            return Err(format!(
                "{row}: the probe is {} right after the jump",
                probe(&unit)
            ));
        }
        // 61 s later the grace period is over, whatever the jump did.
        rewrite_store(&unit, |s| shift_probe_times(s, -61_000));
        assert_success(&unit.dispatch("update-status"));
        if probe(&unit) != "blocked" {
            return Err(format!(
                "{row}: 61 s after the jump the probe is {}",
                probe(&unit)
            ));
        }
        Ok(())
    });
}
