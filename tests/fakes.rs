//! The test fakes commit like Juju (juju-protocol §1.6): `relation-set`,
//! `state-set` and `state-delete` are held until the hook exits 0 and dropped
//! when it fails, while `status-set` acts at once; the hook's own reads see
//! its uncommitted writes. Shown with a charm whose `dispatch` is a shell
//! script calling the fake hook tools, so no wasm is involved: what the host
//! promises under this rule is tested elsewhere, on these fakes.

use crate::support;

use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use support::{Unit, assert_failure, assert_success, context_id};

/// Writes relation data and charm state named after the hook, reads both
/// back, sets the status, and exits with `$HOOK_EXIT` (default 0).
const DISPATCH: &str = r#"#!/bin/sh
set -e
hook="${JUJU_DISPATCH_PATH#hooks/}"
relation-set -r db:1 written-by="$hook"
printf '{"hook": "%s"}' "$hook" | state-set --file -
echo "relation: $(relation-get --format=json -r db:1 written-by "$JUJU_UNIT_NAME")"
echo "state: $(state-get --format=json hook)"
status-set maintenance "ran $hook"
exit "${HOOK_EXIT:-0}"
"#;

/// A unit `shell/0` of the shell charm, related to `pg` over `db:1`.
fn unit() -> Unit {
    let source = tempfile::tempdir().expect("temporary charm source");
    let charm = source.path();
    fs::write(
        charm.join("metadata.yaml"),
        "name: shell\nrequires:\n  db:\n    interface: pgsql\n",
    )
    .expect("write metadata.yaml");
    write_executable(&charm.join("dispatch"), DISPATCH);
    let unit = Unit::with_charm_dir(charm, "shell/0", &[], &[]);
    unit.update_state(|s| {
        s["relations"]["db:1"] = json!({"app": "pg", "units": ["pg/0"], "unit-data": {"pg/0": {}}});
    });
    unit
}

fn write_executable(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

fn hook(unit: &Unit, name: &str, exit: &str) -> std::process::Output {
    unit.dispatch_with(&format!("hooks/{name}"), &[("HOOK_EXIT", exit)])
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What was committed: the local unit's relation data and the charm state.
fn committed(unit: &Unit) -> (Value, Value) {
    let state = unit.state();
    (
        state["relations"]["db:1"]["local-unit-data"].clone(),
        state["charm-state"].clone(),
    )
}

#[test]
fn pending_writes_are_committed_when_the_hook_exits_0() {
    let unit = unit();
    let out = hook(&unit, "install", "0");
    assert_success(&out);
    // During the hook, its own reads saw what it wrote.
    assert_eq!(stdout(&out), "relation: \"install\"\nstate: \"install\"\n");
    assert_eq!(
        committed(&unit),
        (json!({"written-by": "install"}), json!({"hook": "install"}))
    );
    assert_eq!(unit.pending(), Value::Null, "nothing left pending");
}

#[test]
fn pending_writes_are_dropped_when_the_hook_exits_1() {
    let unit = unit();
    assert_success(&hook(&unit, "install", "0"));

    let out = hook(&unit, "config-changed", "1");
    assert_failure(&out);
    assert_eq!(
        stdout(&out),
        "relation: \"config-changed\"\nstate: \"config-changed\"\n",
        "the failed hook saw its own writes"
    );
    assert_eq!(
        committed(&unit),
        (json!({"written-by": "install"}), json!({"hook": "install"})),
        "nothing the failed hook wrote was kept"
    );
    assert_eq!(unit.pending(), Value::Null, "nothing left pending");
    assert_eq!(
        unit.state()["status"]["unit"],
        json!({"status": "maintenance", "message": "ran config-changed"}),
        "status-set acts at once, kept although the hook failed"
    );

    // Juju retries the same hook; this time it succeeds.
    assert_success(&hook(&unit, "config-changed", "0"));
    assert_eq!(
        committed(&unit),
        (
            json!({"written-by": "config-changed"}),
            json!({"hook": "config-changed"})
        )
    );
}

#[test]
fn a_commit_over_the_charm_state_quota_fails_the_hook_and_keeps_nothing() {
    let unit = unit();
    unit.update_state(|s| s["max-charm-state-size"] = json!(8));
    let out = hook(&unit, "install", "0");
    assert_failure(&out);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("committing requested changes failed: max allowed charm state size (8)"),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(committed(&unit), (Value::Null, Value::Null));
    assert_eq!(unit.pending(), Value::Null);
}

#[test]
fn a_process_run_by_the_test_is_ended_with_end_hook() {
    let unit = unit();
    let mut cmd = unit.dispatch_command("hooks/install", &[("HOOK_EXIT", "0")]);
    let context = context_id(&cmd).expect("dispatch_command sets JUJU_CONTEXT_ID");
    let status = cmd
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run dispatch");
    assert!(status.success());
    assert_eq!(
        unit.pending()["charm-state"],
        json!({"hook": "install"}),
        "held until the hook is ended"
    );
    assert_eq!(committed(&unit), (Value::Null, Value::Null));

    // A hook nobody ends is dropped by the next one, which starts afresh.
    assert_failure(&hook(&unit, "config-changed", "1"));
    unit.end_hook(&context, true).expect("commit");
    assert_eq!(committed(&unit), (Value::Null, Value::Null));
}
