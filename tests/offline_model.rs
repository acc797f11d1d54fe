//! The model calls beyond relations and statuses through `wasm-charm run`:
//! `network-get`, `goal-state`, `credential-get`, `resource-get`, the
//! secret tools, `storage-add`, `relation-model-get` and `juju-reboot`,
//! answered by the simulated Juju from its state file, as the
//! test charm `model-echo` logs them (`CALL <name> <answer>`); and what the
//! state file keeps of a successful hook and of a failed one (nothing).
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;

use serde_json::json;
use std::path::Path;
use support::{offline_ok as ok, offline_run as run, packed};

/// What `model-echo`'s handler `calls` got for each call, from the log
/// lines `run` prints.
fn answers(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("log: INFO CALL "))
        .map(str::to_string)
        .collect()
}

fn answer(stdout: &str, call: &str) -> String {
    answers(stdout)
        .into_iter()
        .find_map(|a| a.strip_prefix(&format!("{call} ")).map(str::to_string))
        .unwrap_or_else(|| panic!("no answer to {call} in:\n{stdout}"))
}

fn doc(state: &Path) -> serde_json::Value {
    serde_saphyr::from_str(&std::fs::read_to_string(state).unwrap()).unwrap()
}

fn edit(state: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut d = doc(state);
    f(&mut d);
    std::fs::write(state, serde_saphyr::to_string(&d).unwrap()).unwrap();
}

fn calls(list: &str) -> String {
    format!("calls={list}")
}

#[test]
fn the_simulated_juju_answers_the_whole_model_and_commits_like_juju() {
    let charm = packed("tests/guests/model-echo");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "relations:\n  db:1: {app: pg, units: [pg/0]}\n  peer:2: {app: model-echo, units: [model-echo/1]}\n\
         networks:\n  admin: {address: 192.168.1.5, cidr: 192.168.1.0/24}\n",
    )
    .unwrap();

    // A successful hook: every read answered, a secret added and granted.
    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &calls(
                "network network-missing network-admin goal-state credential resource secret-add secret-grant",
            ),
        ],
    );
    assert_eq!(
        answer(&out, "network"),
        r#"Ok(Network { bind-addresses: [BindAddress { mac-address: "00:16:3e:00:00:0a", interface-name: "eth0", addresses: [InterfaceAddress { hostname: "", value: "10.0.0.10", cidr: "10.0.0.0/24" }] }], ingress-addresses: ["10.0.0.10"], egress-subnets: ["10.0.0.10/32"] })"#
    );
    // A binding metadata.yaml does not declare is refused at the call.
    assert_eq!(
        answer(&out, "network-missing"),
        r#"Err(InvalidArgument("network-get: `nope` is neither a relation endpoint nor an extra binding of this charm (metadata.yaml declares endpoints: `db`, `peer`; extra-bindings: `admin`)"))"#
    );
    assert_eq!(
        answer(&out, "network-admin"),
        r#"Ok(Network { bind-addresses: [BindAddress { mac-address: "00:16:3e:00:00:0a", interface-name: "eth0", addresses: [InterfaceAddress { hostname: "", value: "192.168.1.5", cidr: "192.168.1.0/24" }] }], ingress-addresses: ["192.168.1.5"], egress-subnets: ["192.168.1.5/32"] })"#
    );
    assert_eq!(
        answer(&out, "goal-state"),
        r#"Ok(Goals { units: [GoalStatus { name: "model-echo/0", status: "unknown", since: None }, GoalStatus { name: "model-echo/1", status: "active", since: None }], relations: [("db", [GoalStatus { name: "pg", status: "joined", since: None }, GoalStatus { name: "pg/0", status: "active", since: None }])] })"#
    );
    assert_eq!(
        answer(&out, "credential"),
        r#"Err(PermissionDenied("cannot access cloud credentials: permission denied"))"#
    );
    assert_eq!(
        answer(&out, "resource"),
        r#"Err(NotFound("could not download resource: resource \"workload-image\" not found"))"#
    );
    let added = answer(&out, "secret-add");
    let (uri, read) = added
        .strip_prefix("Ok(\"")
        .and_then(|a| a.split_once("\") "))
        .unwrap_or_else(|| panic!("{added}"));
    assert_eq!(read, r#"Ok(({"password": "s3cret"}, 1))"#);
    assert!(uri.starts_with("secret:") && uri.len() == 27, "{uri}");
    assert_eq!(answer(&out, "secret-grant"), "Ok(())");
    let secrets = doc(&state)["secrets"].clone();
    assert_eq!(
        secrets,
        json!({uri: {"owner": "unit", "label": "db-pass",
            "revisions": [{"revision": 1, "content": {"password": "s3cret"}}],
            "grants": {"db:1": ["pg"]}}})
    );
    // No value reached a secret tool's argv: the host passes content in
    // files. (The charm logs what it read.)
    let sent: Vec<String> = doc(&state)["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str().filter(|c| c.starts_with("secret-")))
        .map(str::to_string)
        .collect();
    assert!(
        sent[0].starts_with("secret-add --label db-pass --owner unit 'password#file="),
        "{sent:?}"
    );
    assert!(!sent.iter().any(|c| c.contains("s3cret")), "{sent:?}");

    // The operator trusts the application and provides the resource. A
    // hook that adds a secret and then fails keeps nothing of it.
    std::fs::write(dir.path().join("image.json"), "{}").unwrap();
    edit(&state, |d| {
        d["trusted"] = json!(true);
        d["resources"] = json!({"workload-image": "image.json"});
    });
    let out = run(
        &charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &calls("credential resource secret-add-app panic"),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        answer(&stdout, "credential").starts_with(
            r#"Ok(CloudSpec { type: "lxd", name: "localhost", region: Some("default"), "#
        ),
        "{stdout}"
    );
    let image = dir.path().join("image.json");
    assert_eq!(
        answer(&stdout, "resource"),
        format!("Ok({:?})", image.display().to_string())
    );
    assert!(
        answer(&stdout, "secret-add-app").starts_with("Ok(\"secret:"),
        "{stdout}"
    );
    assert_eq!(
        doc(&state)["secrets"],
        secrets,
        "the failed hook's secret is gone"
    );
    assert_eq!(
        doc(&state)["trusted"],
        json!(true),
        "the operator's doing stays"
    );

    // The same writes in a successful hook are kept: a new revision, and
    // the application's secret.
    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &calls("secret-set secret-add-app"),
        ],
    );
    assert_eq!(answer(&out, "secret-set"), "Ok(())");
    let secrets = doc(&state)["secrets"].clone();
    assert_eq!(
        secrets[uri]["revisions"],
        json!([{"revision": 1, "content": {"password": "s3cret"}},
               {"revision": 2, "content": {"password": "new"}}])
    );
    let app_secret = secrets
        .as_object()
        .unwrap()
        .values()
        .find(|s| s["label"] == "api-token")
        .unwrap_or_else(|| panic!("{secrets}"));
    assert_eq!(app_secret["owner"], "application");
    assert_eq!(
        app_secret["revisions"],
        json!([{"revision": 1, "content": {"token": "t0k3n"}}])
    );
}

/// What the state file may name is checked against the charm before any
/// event runs: a typo there is a usage error (exit 2), naming the field.
#[test]
fn a_state_naming_what_the_charm_lacks_is_refused() {
    let charm = packed("tests/guests/model-echo");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    for (text, field) in [
        (
            "networks:\n  public: {address: 10.1.1.1}\n",
            "`networks.public`",
        ),
        ("resources:\n  image: i.json\n", "`resources.image`"),
        (
            "secrets:\n  secret:nope:\n    owner: vault\n    revisions: [{revision: 1, content: {a: b}}]\n",
            "`secrets.secret:nope`",
        ),
    ] {
        std::fs::write(&state, text).unwrap();
        let out = run(&charm, &state, &["--event", "install"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(field), "{text}: {stderr}");
        assert_eq!(std::fs::read_to_string(&state).unwrap(), text, "unchanged");
    }
}

/// `storage-add` and `juju-reboot` through `wasm-charm run`: the storage
/// added and the reboot recorded when the hook succeeds; `reboot(now)`
/// stops the event, which keeps nothing and does not fail; a relation's
/// `model-uuid` answers `relation-model-get`.
#[test]
fn storage_requests_reboots_and_the_remote_model_through_run() {
    let charm = packed("tests/guests/model-echo");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "relations:\n  db:1: {app: pg, units: [pg/0], model-uuid: 5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f}\n\
         storage:\n  data/0: {kind: filesystem, location: /srv/data}\n",
    )
    .unwrap();
    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &calls("storage-add remote-model reboot"),
        ],
    );
    assert_eq!(answer(&out, "storage-add"), "Ok(())");
    assert_eq!(
        answer(&out, "remote-model"),
        r#"Some(Ok(RemoteModel { uuid: "5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f" }))"#
    );
    assert_eq!(answer(&out, "reboot"), "Ok(())");
    assert!(out.contains("reboot: after-hook"), "{out}");
    let d = doc(&state);
    assert_eq!(
        d["storage"]["data/2"],
        json!({"kind": "filesystem", "location": "/var/lib/juju/storage/data/2"})
    );
    assert_eq!(d["reboot"], json!("after-hook"));
    assert_eq!(
        d["relations"]["db:1"]["model-uuid"],
        json!("5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f")
    );

    // reboot(now): the handler stops at the call; nothing held is kept.
    let out = ok(
        &charm,
        &state,
        &[
            "--event",
            "config-changed",
            "--config",
            &calls("storage-add reboot-now after"),
        ],
    );
    assert_eq!(answer(&out, "storage-add"), "Ok(())");
    assert!(!out.contains("CALL after"), "{out}");
    assert!(out.contains("reboot: now"), "{out}");
    let d = doc(&state);
    assert_eq!(d["reboot"], json!("now"));
    let ids: Vec<&String> = d["storage"]
        .as_object()
        .map(|s| s.keys().collect())
        .unwrap_or_default();
    assert_eq!(ids, ["data/0", "data/1", "data/2"], "no storage added");
    // The next event starts without the last one's reboot.
    ok(
        &charm,
        &state,
        &["--event", "update-status", "--config", &calls("")],
    );
    assert_eq!(doc(&state)["reboot"], serde_json::Value::Null);
}
