//! Every model call of the test charm `model-echo`, through `dispatch` and
//! the simulated Juju's hook tools (`Unit::on_simulator`) answering as
//! juju-protocol §2 specifies: what the handler got back (logged as
//! `CALL <name> <answer>`), the tools' argv, and each error path (exit 1
//! and exit 2, `ERROR …`) as the typed error.

use crate::support;

use serde_json::json;
use support::{Unit, assert_success, packed};

/// A unit of model-echo whose handler `calls` makes `calls`, related to
/// `pg` over `db:1`.
fn unit(calls: &str) -> Unit {
    with_calls(
        Unit::on_simulator(&packed("tests/guests/model-echo"), "echo/0"),
        calls,
    )
}

/// [`unit`] of the charm without its container: a machine charm, for the
/// calls Kubernetes refuses (port ranges).
fn machine_unit(calls: &str) -> Unit {
    with_calls(
        Unit::on_simulator_as_machine(&packed("tests/guests/model-echo"), "echo/0"),
        calls,
    )
}

fn with_calls(unit: Unit, calls: &str) -> Unit {
    unit.update_state(|s| {
        s["config"]["calls"] = json!(calls);
        s["relations"]["db:1"] = json!({"app": "pg", "units": ["pg/0"],
            "unit-data": {"pg/0": {}, "pg/1": {"host": "10.0.0.9"}}});
    });
    unit
}

/// Run `hook`; the answer logged for each call, in order.
fn answers(unit: &Unit, hook: &str) -> Vec<String> {
    unit.clear_debug_log();
    let out = unit.dispatch(hook);
    assert_success(&out);
    unit.debug_log()
        .lines()
        .filter_map(|l| l.strip_prefix("INFO CALL "))
        .map(str::to_string)
        .collect()
}

fn answer(unit: &Unit, call: &str) -> String {
    let all = answers(unit, "config-changed");
    all.into_iter()
        .find_map(|a| a.strip_prefix(&format!("{call} ")).map(str::to_string))
        .unwrap_or_else(|| panic!("no answer to {call}:\n{}", unit.debug_log()))
}

#[test]
fn ports_are_opened_at_the_end_of_a_successful_hook() {
    let unit = machine_unit("ports open-port open-port-bad");
    unit.update_state(|s| s["opened-ports"] = json!({"80/tcp": ["*"], "icmp": ["*"]}));
    let got = answers(&unit, "config-changed");
    assert_eq!(
        got[0],
        r#"ports Ok([OpenedPort { port: PortRange { protocol: Protocol::Tcp, from: 80, to: 80 }, endpoints: None }, OpenedPort { port: PortRange { protocol: Protocol::Icmp, from: 0, to: 0 }, endpoints: None }])"#
    );
    assert_eq!(got[1], "open-port Ok(()) Ok(()) Ok(())");
    assert!(
        got[2].starts_with(
            "open-port-bad Err(InvalidArgument(\"port 0-0/tcp: ports are 1 to 65535\"))"
        ),
        "{}",
        got[2]
    );
    assert_eq!(
        unit.calls_of("opened-ports"),
        [["opened-ports", "--format=json", "--endpoints"]]
    );
    assert_eq!(
        [unit.calls_of("open-port"), unit.calls_of("close-port")].concat(),
        [
            vec!["open-port", "8080/tcp"],
            vec!["open-port", "--endpoints", "db", "9000-9010/udp"],
            vec!["close-port", "icmp"],
        ]
    );
    // Committed with the hook.
    assert_eq!(
        unit.state()["opened-ports"],
        json!({"80/tcp": ["*"], "8080/tcp": ["*"], "9000-9010/udp": ["db"]})
    );
}

#[test]
fn storage_instances_and_a_missing_one() {
    let unit = unit("storage storage-missing");
    unit.update_state(|s| {
        s["storage"] = json!({"data/0": {"kind": "filesystem", "location": "/srv/data"},
                              "data/1": {"kind": "block", "location": "/dev/vdb"}})
    });
    let got = answers(&unit, "config-changed");
    assert_eq!(
        got[0],
        r#"storage Ok([StorageInstance { id: "data/0", kind: "filesystem", location: "/srv/data" }, StorageInstance { id: "data/1", kind: "block", location: "/dev/vdb" }])"#
    );
    // Exit 2 with `ERROR … not found`.
    assert_eq!(
        got[1],
        r#"storage-missing Err(NotFound("invalid value \"data/9\" for option -s: storage instance \"data/9\" not found"))"#
    );
    assert_eq!(
        unit.calls_of("storage-list"),
        [["storage-list", "--format=json", "--", "data"]]
    );
    assert_eq!(
        unit.calls_of("storage-get")[0],
        ["storage-get", "--format=json", "-s", "data/0"]
    );
}

#[test]
fn network_get_and_a_missing_binding() {
    let unit = unit("network network-missing");
    unit.update_state(|s| {
        s["networks"]["db"] = json!({"mac-address": "00:16:3e:aa", "interface-name": "eth0",
            "hostname": "", "address": "10.0.0.5", "cidr": "10.0.0.0/24",
            "egress-subnets": [], "ingress-addresses": ["10.0.0.5"]})
    });
    let got = answers(&unit, "config-changed");
    assert_eq!(
        got[0],
        r#"network Ok(Network { bind-addresses: [BindAddress { mac-address: "00:16:3e:aa", interface-name: "eth0", addresses: [InterfaceAddress { hostname: "", value: "10.0.0.5", cidr: "10.0.0.0/24" }] }], ingress-addresses: ["10.0.0.5"], egress-subnets: [] })"#
    );
    // A binding metadata.yaml does not declare is refused before any tool runs.
    assert_eq!(
        got[1],
        r#"network-missing Err(InvalidArgument("network-get: `nope` is neither a relation endpoint nor an extra binding of this charm (metadata.yaml declares endpoints: `db`, `peer`; extra-bindings: `admin`)"))"#
    );
    assert_eq!(
        unit.calls_of("network-get")[0],
        ["network-get", "--format=json", "--", "db"]
    );
    // Exit 1 with `ERROR no network config found …`: the simulator answers
    // every declared binding, so Juju's answer for one it has no config for
    // is scripted.
    unit.update_state(|s| {
        s["config"]["calls"] = json!("network-admin");
        s["fail"]["network-get"] =
            json!({"code": 1, "stderr": "ERROR no network config found for binding \"admin\""});
    });
    assert_eq!(
        answer(&unit, "network-admin"),
        r#"Err(NotFound("no network config found for binding \"admin\""))"#
    );
}

#[test]
fn goal_state_and_its_failures() {
    let unit = unit("goal-state");
    unit.update_state(|s| s["status"]["unit"] = json!({"status": "active", "message": ""}));
    // Derived from the relations: the related application and its units.
    // The simulator keeps no times, so `since` is left out, as Juju does
    // when it does not know it.
    assert_eq!(
        answer(&unit, "goal-state"),
        r#"Ok(Goals { units: [GoalStatus { name: "echo/0", status: "active", since: None }], relations: [("db", [GoalStatus { name: "pg", status: "joined", since: None }, GoalStatus { name: "pg/0", status: "active", since: None }])] })"#
    );
    assert_eq!(
        unit.calls_of("goal-state"),
        [["goal-state", "--format=json"]]
    );
    // Juju's times, as the tool prints them (scripted: exit 0 and its output).
    unit.update_state(|s| {
        s["fail"]["goal-state"] = json!({"code": 0, "stdout": json!({
            "units": {"echo/0": {"status": "active", "since": "2026-01-04 06:29:46Z"}},
            "relations": {"db": {"pg": {"status": "joined", "since": "2026-01-04 06:31:00Z"}}}
        }).to_string()})
    });
    assert_eq!(
        answer(&unit, "goal-state"),
        r#"Ok(Goals { units: [GoalStatus { name: "echo/0", status: "active", since: Some("2026-01-04 06:29:46Z") }], relations: [("db", [GoalStatus { name: "pg", status: "joined", since: Some("2026-01-04 06:31:00Z") }])] })"#
    );
    // Exit 2 and exit 1 with words no other kind names: the tool, its code and words.
    unit.update_state(|s| {
        s["fail"]["goal-state"] =
            json!({"code": 2, "stderr": "ERROR option provided but not defined: --format"})
    });
    assert_eq!(
        answer(&unit, "goal-state"),
        r#"Err(ToolFailed(ToolFailure { tool: "goal-state", exit_code: 2, message: "option provided but not defined: --format" }))"#
    );
    unit.update_state(|s| {
        s["fail"]["goal-state"] = json!({"code": 1, "stderr": "ERROR connection is shut down"})
    });
    assert_eq!(
        answer(&unit, "goal-state"),
        r#"Err(ToolFailed(ToolFailure { tool: "goal-state", exit_code: 1, message: "connection is shut down" }))"#
    );
}

#[test]
fn credential_get_needs_trust() {
    let unit = unit("credential");
    assert_eq!(
        answer(&unit, "credential"),
        r#"Err(PermissionDenied("cannot access cloud credentials: permission denied"))"#
    );
    unit.update_state(|s| {
        s["trusted"] = json!(true);
        s["credential"] = json!({"type": "lxd", "name": "localhost", "region": "default",
            "credential": {"auth-type": "certificate", "attrs": {"client-cert": "C"}, "redacted": []},
            "cacertificates": [], "skip-tls-verify": false, "is-controller-cloud": true});
    });
    assert_eq!(
        answer(&unit, "credential"),
        r#"Ok(CloudSpec { type: "lxd", name: "localhost", region: Some("default"), endpoint: None, identity-endpoint: None, storage-endpoint: None, credential: Some(CloudCredential { auth-type: "certificate", attrs: [("client-cert", "C")], redacted: [] }), ca-certificates: [], skip-tls-verify: false, is-controller-cloud: true })"#
    );
}

#[test]
fn resource_get_gives_the_path_or_not_found() {
    let unit = unit("resource");
    assert_eq!(
        answer(&unit, "resource"),
        r#"Err(NotFound("could not download resource: resource \"workload-image\" not found"))"#
    );
    // The operator's file, relative to the state file's directory.
    std::fs::write(unit.dir().join("img.json"), "{}").expect("write the resource");
    unit.update_state(|s| s["resources"]["workload-image"] = json!("img.json"));
    assert_eq!(
        answer(&unit, "resource"),
        format!(
            "Ok({:?})",
            unit.dir().join("img.json").display().to_string()
        )
    );
    assert_eq!(
        unit.calls_of("resource-get")[0],
        ["resource-get", "--", "workload-image"]
    );
}

#[test]
fn relation_writes_that_cannot_succeed_fail_at_the_call() {
    let unit = unit("relation-write-gone relation-write-app");
    let got = answers(&unit, "config-changed");
    assert_eq!(
        got[0],
        r#"relation-write-gone Err(RelationNotFound("cannot write relation data to db:99: Juju does not list it"))"#
    );
    assert_eq!(
        got[1],
        r#"relation-write-app Some(Err(NotLeader("only the leader may write the application data of db:1")))"#
    );
    // Nothing was sent, and the hook succeeded.
    assert!(unit.calls_of("relation-set").is_empty());
}

#[test]
fn more_than_one_relation_where_one_was_asked_for_is_an_error() {
    let unit = unit("too-many-relations");
    unit.update_state(|s| s["relations"]["db:3"] = json!({"app": "pg2", "units": []}));
    assert_eq!(
        answer(&unit, "too-many-relations"),
        r#"Err(TooManyRelations("endpoint `db` has 2 relations (db:1, db:3), not one; use model::relations"))"#
    );
}

#[test]
fn during_relation_departed_the_leaving_unit_is_gone_but_readable() {
    let unit = unit("relation-units");
    unit.clear_debug_log();
    // Juju has already taken pg/1 out of relation-list.
    let out = unit.relation_event("departed", "db:1", Some("pg/1"));
    assert_success(&out);
    let log = unit.debug_log();
    // A relation hook's record starts with the relation, as Juju's do.
    let got = log
        .lines()
        .find_map(|l| l.strip_prefix("INFO db:1: CALL relation-units "))
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(
        got,
        r#"Some((Ok(["pg/0"]), Some(Ok({"host": "10.0.0.9"}))))"#
    );
}

#[test]
fn secrets_travel_in_files_and_commit_with_the_hook() {
    let unit = unit("secret-add");
    let added = answer(&unit, "secret-add");
    // The id is Juju's: `secret:` and 20 characters of 0-9 and a-v.
    let uri = added
        .strip_prefix(r#"Ok(""#)
        .and_then(|rest| rest.split_once('"'))
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| panic!("no id: {added}"));
    let chars = uri.strip_prefix("secret:").unwrap_or_default();
    assert!(
        chars.len() == 20
            && chars
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'v')),
        "not Juju's form: {uri}"
    );
    let uri = uri.as_str();
    assert_eq!(
        added,
        format!(r#"Ok("{uri}") Ok(({{"password": "s3cret"}}, 1))"#)
    );
    let add = &unit.calls_of("secret-add")[0];
    assert_eq!(
        &add[..5],
        ["secret-add", "--label", "db-pass", "--owner", "unit"]
    );
    assert!(add[5].starts_with("password#file="), "{add:?}");
    // (The charm logs what it read; no secret tool got the value in argv.)
    let secret_tools: Vec<Vec<String>> = unit
        .calls()
        .into_iter()
        .filter(|c| c[0].starts_with("secret-"))
        .collect();
    assert!(
        !secret_tools.iter().flatten().any(|a| a.contains("s3cret")),
        "a secret's value reached argv: {secret_tools:?}"
    );
    assert_eq!(
        unit.state()["secrets"][uri]["revisions"],
        json!([{"revision": 1, "content": {"password": "s3cret"}}])
    );

    // A new revision: held per handler, sent at the end, committed with it.
    unit.update_state(|s| s["config"]["calls"] = json!("secret-set secret-missing"));
    unit.clear_calls();
    assert_eq!(answer(&unit, "secret-set"), "Ok(())");
    let revisions = unit.state()["secrets"][uri]["revisions"].clone();
    let latest = revisions
        .as_array()
        .and_then(|r| r.iter().max_by_key(|r| r["revision"].as_u64()))
        .unwrap_or_else(|| panic!("no revisions: {revisions}"));
    assert_eq!(latest["revision"], json!(2));
    assert_eq!(latest["content"], json!({"password": "new"}));
    // A missing secret is not-found, with Juju's words. (The charm asks
    // for `secret:missing`, which the simulator refuses as no id of
    // Juju's form; Juju's answer for a missing one is scripted.)
    unit.update_state(|s| {
        s["config"]["calls"] = json!("secret-missing");
        s["fail"]["secret-get"] =
            json!({"code": 1, "stderr": "ERROR secret \"secret:missing\" not found"});
    });
    assert_eq!(
        answer(&unit, "secret-missing"),
        r#"Err(NotFound("secret \"secret:missing\" not found"))"#
    );
}

#[test]
fn storage_requests_and_a_reboot_after_the_hook_commit_with_it() {
    let unit = unit("storage-add storage-add-undeclared remote-model reboot after");
    unit.update_state(|s| {
        s["storage"]["data/0"] = json!({"kind": "filesystem", "location": "/srv/data"});
    });
    let got = answers(&unit, "config-changed");
    assert_eq!(got[0], "storage-add Ok(())");
    assert_eq!(
        got[1],
        r#"storage-add-undeclared Err(InvalidArgument("storage-add: `cache` is not a storage of this charm (metadata.yaml declares: `data`)"))"#
    );
    // A relation within the model: its own UUID, the hook's JUJU_MODEL_UUID.
    assert_eq!(
        got[2],
        r#"remote-model Some(Ok(RemoteModel { uuid: "d1a3c0de-0000-4000-8000-00000000f00d" }))"#
    );
    assert_eq!(got[3..], ["reboot Ok(())", "after went on"]);
    assert_eq!(
        unit.calls_of("relation-model-get"),
        [["relation-model-get", "--format=json", "-r", "db:1"]]
    );
    // Sent at the end of the event, the reboot last.
    assert_eq!(
        unit.calls_of("storage-add"),
        [["storage-add", "--", "data=2"]]
    );
    assert_eq!(unit.calls_of("juju-reboot"), [["juju-reboot"]]);
    let tools: Vec<String> = unit.calls().into_iter().map(|c| c[0].clone()).collect();
    let at = |tool: &str| tools.iter().position(|t| t == tool);
    assert!(at("storage-add") < at("juju-reboot"), "{tools:?}");
    // Committed with the hook.
    let state = unit.state();
    let ids: Vec<&String> = state["storage"]
        .as_object()
        .map(|s| s.keys().collect())
        .unwrap_or_default();
    assert_eq!(ids, ["data/0", "data/1", "data/2"]);
    assert_eq!(state["reboot"], json!("after-hook"));

    // A cross-model relation: the remote model's UUID.
    let other = "5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f";
    unit.update_state(|s| {
        s["config"]["calls"] = json!("remote-model");
        s["relations"]["db:1"]["model-uuid"] = json!(other);
    });
    assert_eq!(
        answer(&unit, "remote-model"),
        format!(r#"Some(Ok(RemoteModel {{ uuid: "{other}" }}))"#)
    );
}

#[test]
fn a_reboot_now_stops_the_event_which_keeps_nothing_and_does_not_fail() {
    let unit = unit("storage-add reboot-now after");
    unit.clear_debug_log();
    let out = unit.dispatch("config-changed");
    assert_success(&out);
    let log = unit.debug_log();
    assert!(log.contains("INFO CALL storage-add Ok(())"), "{log}");
    // The handler stopped at the call.
    assert!(
        !log.contains("CALL reboot-now") && !log.contains("CALL after"),
        "{log}"
    );
    assert!(
        log.contains("asked Juju to reboot the machine now (juju-reboot --now)"),
        "{log}"
    );
    assert_eq!(unit.calls_of("juju-reboot"), [["juju-reboot", "--now"]]);
    // Nothing the event held is sent, and no status is written.
    assert!(unit.calls_of("storage-add").is_empty());
    assert!(unit.calls_of("status-set").is_empty());
    let state = unit.state();
    assert_eq!(state["reboot"], json!("now"));
    assert!(state["storage"].as_object().is_none_or(|s| s.is_empty()));
}

/// The reads a hook made are started again as its next run starts, from
/// the plan the host keeps in its cache: a handler asking the same
/// question gets that answer, and no second call is made for it; a read
/// the handler no longer makes is started once more, then dropped from
/// the plan; a plan that names anything but a read is not trusted with it.
#[test]
fn the_reads_a_hook_made_are_started_as_its_next_run_starts() {
    let unit = unit("goal-state");
    let plan_file = unit.charm_dir().join(".wasm-charm/cache/reads-ahead.json");
    let plan = || -> serde_json::Value {
        let bytes = std::fs::read(&plan_file).expect("the plans of reads ahead");
        serde_json::from_slice(&bytes).expect("plans as JSON")
    };
    assert!(answers(&unit, "config-changed")[0].starts_with("goal-state Ok("));
    assert_eq!(
        plan()["hooks"]["hooks/config-changed"],
        json!([
            ["config-get", "--format=json"],
            ["goal-state", "--format=json"]
        ])
    );

    // The handler now asks for a binding's network instead.
    unit.update_state(|s| s["config"]["calls"] = json!("network"));
    unit.clear_calls();
    let got = answers(&unit, "config-changed");
    assert!(got[0].starts_with("network Ok("), "{got:?}");
    let tools: Vec<String> = unit.calls().into_iter().map(|c| c[0].clone()).collect();
    // goal-state ran though nothing asked for it; config-get ran once, for
    // the handler that asked, with the value set since the last run.
    assert_eq!(
        tools.iter().filter(|t| *t == "goal-state").count(),
        1,
        "{tools:?}"
    );
    assert_eq!(
        tools.iter().filter(|t| *t == "config-get").count(),
        1,
        "{tools:?}"
    );
    assert_eq!(
        plan()["hooks"]["hooks/config-changed"],
        json!([
            ["config-get", "--format=json"],
            ["network-get", "--format=json", "--", "db"]
        ])
    );

    std::fs::write(
        &plan_file,
        r#"{"version":1,"hooks":{"hooks/config-changed":[
            ["relation-set","-r","db:1","--","planted=yes"],
            ["status-set","blocked","planted"],
            ["config-get","--format=json"]]}}"#,
    )
    .expect("write a plan");
    unit.clear_calls();
    assert!(answers(&unit, "config-changed")[0].starts_with("network Ok("));
    assert!(
        unit.calls_of("relation-set").is_empty(),
        "{:?}",
        unit.calls()
    );
    assert!(unit.calls_of("status-set").is_empty(), "{:?}", unit.calls());
    assert_eq!(unit.calls_of("config-get").len(), 1, "{:?}", unit.calls());
}
