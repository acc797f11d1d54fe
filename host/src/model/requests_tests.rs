//! The model calls ops has beside the databags and ports: `storage-add`
//! and a reboot after the hook, checked at the call and buffered per
//! handler like ports; `juju-reboot --now`, sent at once and stopping the
//! handler; `relation-model-get`, read once per relation. Tools answer as
//! juju-protocol §2 and Juju's `jujuc` specify.

use super::tests::{rel, tool_calls as calls_of};
use super::{MAX_STORAGE_ADD_COUNT, MAX_STORAGE_REQUESTS_PER_EVENT, Model};
use crate::bindings::RelationRef;
use crate::bindings::model::{Host, ModelError};
use crate::bindings::relations::Host as _;
use crate::bindings::storage::Host as _;
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::Calls;

fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
    let (mut m, calls) = super::tests::model_on(false, &["db"], answers);
    m.set_storage(["data".to_string(), "logs".to_string()].into());
    (m, calls)
}

fn invalid(e: &ModelError) -> &str {
    match e {
        ModelError::InvalidArgument(m) => m,
        other => panic!("expected invalid-argument, got {other:?}"),
    }
}

#[test]
fn storage_add_is_buffered_per_handler_and_sent_at_the_end() {
    let (mut m, calls) = model(&[("storage-add", ToolOutput::ok(""))]);
    m.storage_add("data".into(), 2).unwrap();
    m.commit_handler();
    m.storage_add("logs".into(), 1).unwrap();
    m.abort_handler();
    m.storage_add("logs".into(), 3).unwrap();
    m.commit_handler();
    // Nothing is sent before the end of the event.
    assert!(calls_of(&calls, "storage-add").is_empty());
    m.flush().unwrap();
    assert_eq!(
        calls_of(&calls, "storage-add"),
        vec![vec!["--", "data=2"], vec!["--", "logs=3"]]
    );
    // Sent once: a second flush has nothing left.
    m.flush().unwrap();
    assert_eq!(calls_of(&calls, "storage-add").len(), 2);
}

#[test]
fn storage_add_is_checked_at_the_call() {
    let (mut m, calls) = model(&[]);
    let e = m.storage_add("cache".into(), 1).unwrap_err();
    assert!(
        invalid(&e).contains("metadata.yaml declares: `data`, `logs`"),
        "{e:?}"
    );
    for bad in ["", "-data", "Data", "da ta", "data=2", "data,x"] {
        assert!(m.storage_add(bad.into(), 1).is_err(), "{bad:?}");
    }
    let e = m.storage_add("data".into(), 0).unwrap_err();
    assert!(invalid(&e).contains("greater than zero"), "{e:?}");
    let e = m
        .storage_add("data".into(), MAX_STORAGE_ADD_COUNT + 1)
        .unwrap_err();
    assert!(invalid(&e).contains("MAX_STORAGE_ADD_COUNT"), "{e:?}");
    m.storage_add("data".into(), MAX_STORAGE_ADD_COUNT).unwrap();
    for _ in 1..MAX_STORAGE_REQUESTS_PER_EVENT {
        m.storage_add("logs".into(), 1).unwrap();
    }
    let e = m.storage_add("logs".into(), 1).unwrap_err();
    assert!(
        invalid(&e).contains("MAX_STORAGE_REQUESTS_PER_EVENT"),
        "{e:?}"
    );
    assert!(calls.lock().unwrap().is_empty());
}

#[test]
fn a_storage_add_juju_refuses_at_the_end_fails_the_flush() {
    let (mut m, _) = model(&[(
        "storage-add",
        ToolOutput::error(1, "charm storage \"data\" not found"),
    )]);
    m.storage_add("data".into(), 1).unwrap();
    m.commit_handler();
    let Err(ModelError::ToolFailed(f)) = m.flush() else {
        panic!("the refused commit fails the flush");
    };
    assert!(f.message.contains("storage-add"), "{}", f.message);
}

#[test]
fn relation_model_get_reads_the_uuid_once_per_relation() {
    let uuid = "b2a7f3c1-6f0e-4c1d-9a4e-0c2b5d8e9f10";
    let answer = format!("{{\"uuid\":\"{uuid}\"}}\n");
    let (mut m, calls) = model(&[("relation-model-get", ToolOutput::ok(answer))]);
    assert_eq!(m.relation_model_get(rel(3)).unwrap().uuid, uuid);
    assert_eq!(m.relation_model_get(rel(3)).unwrap().uuid, uuid);
    assert_eq!(
        calls_of(&calls, "relation-model-get"),
        vec![vec!["--format=json", "-r", "db:3"]]
    );
    // An endpoint metadata.yaml does not declare is refused before Juju.
    let other = RelationRef {
        endpoint: "web".into(),
        id: 3,
    };
    assert!(matches!(
        m.relation_model_get(other),
        Err(ModelError::InvalidArgument(_))
    ));
}

#[test]
fn relation_model_get_errors_are_typed() {
    let (mut m, _) = model(&[(
        "relation-model-get",
        ToolOutput::error(
            2,
            "invalid value \"db:9\" for option -r: relation not found",
        ),
    )]);
    assert!(matches!(
        m.relation_model_get(rel(9)),
        Err(ModelError::RelationNotFound(_))
    ));
    let (mut m, _) = model(&[("relation-model-get", ToolOutput::ok("{\"uuid\":\"\"}"))]);
    assert!(matches!(
        m.relation_model_get(rel(1)),
        Err(ModelError::ToolFailed(_))
    ));
}

#[test]
fn a_reboot_after_the_hook_follows_the_handler_and_goes_last() {
    let (mut m, calls) = model(&[
        ("juju-reboot", ToolOutput::ok("")),
        ("storage-add", ToolOutput::ok("")),
    ]);
    m.reboot(false).unwrap().unwrap();
    m.abort_handler();
    m.flush().unwrap();
    assert!(calls_of(&calls, "juju-reboot").is_empty());
    m.reboot(false).unwrap().unwrap();
    m.reboot(false).unwrap().unwrap();
    m.storage_add("data".into(), 1).unwrap();
    m.commit_handler();
    assert!(!m.rebooting_now());
    m.flush().unwrap();
    let tools: Vec<String> = calls.lock().unwrap().iter().map(|c| c.0.clone()).collect();
    assert_eq!(tools, ["storage-add", "juju-reboot"]);
    assert_eq!(calls_of(&calls, "juju-reboot"), vec![Vec::<String>::new()]);
}

#[test]
fn a_reboot_now_is_sent_at_once_and_stops_the_handler() {
    let (mut m, calls) = model(&[("juju-reboot", ToolOutput::ok(""))]);
    let trap = m.reboot(true).unwrap_err();
    assert!(trap.to_string().contains("reboot(now)"), "{trap}");
    assert!(m.rebooting_now());
    assert_eq!(calls_of(&calls, "juju-reboot"), vec![vec!["--now"]]);
    // Juju refused it: the handler gets Juju's words and goes on.
    let (mut m, _) = model(&[("juju-reboot", ToolOutput::error(1, "cannot reboot"))]);
    assert!(matches!(m.reboot(true), Ok(Err(ModelError::ToolFailed(_)))));
    assert!(!m.rebooting_now());
}

#[test]
fn an_action_may_not_reboot() {
    let (mut m, calls) = model(&[]);
    m.set_during_action(true);
    for now in [false, true] {
        let e = m.reboot(now).unwrap().unwrap_err();
        assert!(
            invalid(&e).contains("not supported when running an action"),
            "{e:?}"
        );
    }
    m.commit_handler();
    m.flush().unwrap();
    assert!(calls.lock().unwrap().is_empty());
}
