//! `storage-add`, `relation-model-get` and `juju-reboot` answering with
//! Juju's syntax, JSON, exit codes and words, and what the one commit rule
//! (`end_hook`) keeps of them.

use super::tests::{call, tools};
use crate::juju_env::JujuEnv;
use crate::offline::end_hook;
use crate::offline::sim::{MODEL_UUID, SimReboot, SimRelation, SimState, SimStorage};

fn with_relation(model_uuid: Option<&str>) -> SimState {
    let mut state = SimState::default();
    state.model.relations.insert(
        "db:1".into(),
        SimRelation {
            app: "pg".into(),
            model_uuid: model_uuid.map(str::to_string),
            ..SimRelation::default()
        },
    );
    state
}

/// Run `calls` as one hook from `before`, then end it as the simulator does.
fn hook(
    before: &SimState,
    succeeded: bool,
    calls: &[(&str, &[&str])],
) -> (SimState, Option<String>) {
    let mut t = tools(before.clone());
    for (tool, args) in calls {
        let out = call(&mut t, tool, args);
        assert_eq!(out.code, 0, "{tool} {args:?}: {}", out.stderr);
    }
    let after = t.state.lock().unwrap().clone();
    let ended = end_hook(before, after, &JujuEnv::default(), succeeded, t.now);
    (ended.state, ended.refused)
}

#[test]
fn storage_add_checks_directives_as_juju_does() {
    let mut t = tools(SimState::default());
    for (args, words) in [
        (&[][..], "storage add requires a storage directive"),
        (
            &["data=0"],
            "cannot parse constraints for storage \"data\": cannot parse count: count must be greater than zero, got \"0\"",
        ),
        (&["data=-2"], "count must be greater than zero, got \"-2\""),
        (
            &["data="],
            "storage constraints require at least one field to be specified",
        ),
        (&["data=ebs"], "only count can be specified for \"data\""),
        (&["data=2,10G"], "only count can be specified for \"data\""),
        (
            &["=2"],
            "expected \"name=constraints\" or \"name\", got \"=2\"",
        ),
        (
            &["data=1", "data=2"],
            "storage \"data\" specified more than once",
        ),
    ] {
        let out = call(&mut t, "storage-add", args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.starts_with("ERROR "), "{args:?}: {out:?}");
        assert!(
            out.stderr.ends_with(&format!("{words}\n")),
            "{args:?}: {out:?}"
        );
    }
    assert_eq!(t.state.lock().unwrap().pending_storage, Default::default());
}

#[test]
fn storage_add_is_held_until_the_hook_succeeds() {
    let mut before = SimState::default();
    before.model.storage.insert(
        "data/0".into(),
        SimStorage {
            kind: "filesystem".into(),
            location: "/srv/data".into(),
        },
    );
    let calls: &[(&str, &[&str])] = &[
        ("storage-add", &["data=2", "disks"]),
        ("storage-add", &["--", "data"]),
        // Held: the hook's own storage-list does not show them.
        ("storage-list", &["--format=json"]),
    ];
    let (failed, _) = hook(&before, false, calls);
    assert_eq!(failed.model.storage, before.model.storage);
    let (kept, refused) = hook(&before, true, calls);
    assert_eq!(refused, None);
    let ids: Vec<&str> = kept.model.storage.keys().map(String::as_str).collect();
    assert_eq!(ids, ["data/0", "data/1", "data/2", "data/3", "disks/0"]);
    assert_eq!(kept.model.storage["data/1"].kind, "filesystem");
    assert_eq!(
        kept.model.storage["data/1"].location,
        "/var/lib/juju/storage/data/1"
    );
    assert_eq!(kept.model.storage["disks/0"].kind, "block");
    assert_eq!(kept.model.storage["disks/0"].location, "/dev/loop0");
    assert_eq!(kept.pending_storage, Default::default());
}

#[test]
fn storage_metadata_does_not_declare_fails_the_hook_at_its_commit() {
    let before = SimState::default();
    let (state, refused) = hook(&before, true, &[("storage-add", &["cache=1", "data"])]);
    let refused = refused.expect("the commit is refused");
    assert!(
        refused.contains("charm storage \"cache\" not found"),
        "{refused}"
    );
    assert!(state.model.storage.is_empty(), "nothing is added");
}

#[test]
fn relation_model_get_answers_the_remote_models_uuid() {
    let mut t = tools(with_relation(None));
    let out = call(
        &mut t,
        "relation-model-get",
        &["--format=json", "-r", "db:1"],
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{{\"uuid\":\"{MODEL_UUID}\"}}\n")
    );
    let out = call(&mut t, "relation-model-get", &["-r", "1"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("uuid: {MODEL_UUID}\n")
    );
    let other = "5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f";
    let mut t = tools(with_relation(Some(other)));
    let out = call(
        &mut t,
        "relation-model-get",
        &["--format=json", "-r", "db:1"],
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{{\"uuid\":\"{other}\"}}\n")
    );
    let out = call(&mut t, "relation-model-get", &["--format=json"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "ERROR no relation id specified\n")
    );
    let out = call(&mut t, "relation-model-get", &["-r", "db:7"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.ends_with("relation not found\n"), "{out:?}");
    let out = call(&mut t, "relation-model-get", &["-r", "db:1", "x"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "ERROR unrecognized args: [\"x\"]\n")
    );
    // In a relation hook, the hook's relation is the default.
    t.relation = Some("db:1".into());
    assert_eq!(call(&mut t, "relation-model-get", &[]).code, 0);
}

#[test]
fn juju_reboot_is_recorded_and_refused_in_an_action() {
    let mut t = tools(SimState::default());
    assert_eq!(call(&mut t, "juju-reboot", &[]).code, 0);
    assert_eq!(
        t.state.lock().unwrap().last_event.reboot,
        Some(SimReboot::AfterHook)
    );
    assert_eq!(call(&mut t, "juju-reboot", &["--now"]).code, 0);
    assert_eq!(call(&mut t, "juju-reboot", &[]).code, 0);
    assert_eq!(
        t.state.lock().unwrap().last_event.reboot,
        Some(SimReboot::Now)
    );
    let out = call(&mut t, "juju-reboot", &["soon"]);
    assert_eq!(out.code, 2, "{out:?}");
    let out = call(&mut t, "juju-reboot", &["--later"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "ERROR option provided but not defined: --later\n")
    );
    let mut t = tools(SimState::default());
    t.action = Some("backup".into());
    let out = call(&mut t, "juju-reboot", &[]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            1,
            "ERROR juju-reboot is not supported when running an action.\n"
        )
    );
    assert_eq!(t.state.lock().unwrap().last_event.reboot, None);
}

#[test]
fn a_reboot_now_keeps_nothing_the_hook_held_and_fails_nothing() {
    let before = with_relation(None);
    let calls: &[(&str, &[&str])] = &[
        ("relation-set", &["-r", "db:1", "k=v"]),
        ("storage-add", &["data"]),
        ("open-port", &["80"]),
        ("juju-reboot", &["--now"]),
    ];
    let (state, refused) = hook(&before, true, calls);
    assert_eq!(refused, None, "the hook is no failure");
    assert_eq!(state.last_event.reboot, Some(SimReboot::Now));
    assert!(state.model.relations["db:1"].local_unit_data.is_empty());
    assert!(state.model.storage.is_empty() && state.model.opened_ports.is_empty());
    // A reboot after a hook that failed does not happen.
    let (state, _) = hook(&before, false, &[("juju-reboot", &[])]);
    assert_eq!(state.last_event.reboot, None);
    let (state, _) = hook(&before, true, &[("juju-reboot", &[])]);
    assert_eq!(state.last_event.reboot, Some(SimReboot::AfterHook));
}
