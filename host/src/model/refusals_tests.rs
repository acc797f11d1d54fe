//! Juju's refusals at the call (juju-protocol §2.18): port requests and
//! secret changes are checked when the handler makes them, by Juju's rules
//! and in its words, and the event's own pending writes show in its reads.

use super::Model;
use crate::bindings::RelationRef;
use crate::bindings::model::{ModelError, ToolFailure};
use crate::bindings::ports::{Host as _, OpenedPort, PortRange, Protocol};
use crate::bindings::secrets::{Host as _, SecretOptions, SecretOwner, SecretRead};
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::Calls;

fn model_on(kubernetes: bool, answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
    super::tests::model_on(kubernetes, &["db"], answers)
}

fn sent(calls: &Calls, tool: &str) -> usize {
    calls.lock().unwrap().iter().filter(|c| c.0 == tool).count()
}

fn tcp(from: u16, to: u16) -> PortRange {
    PortRange {
        protocol: Protocol::Tcp,
        from,
        to,
    }
}

fn refused(tool: &str, message: &str) -> ModelError {
    ModelError::ToolFailed(ToolFailure {
        tool: tool.into(),
        exit_code: 1,
        message: message.into(),
    })
}

#[test]
fn kubernetes_refuses_a_port_range_at_the_call() {
    let answers = [
        ("opened-ports", ToolOutput::ok("[]")),
        ("open-port", ToolOutput::ok("")),
    ];
    let (mut m, calls) = model_on(true, &answers);
    assert_eq!(
        m.open_port(tcp(8000, 8100), None),
        Err(refused(
            "open-port",
            "port ranges are not supported for k8s applications, please specify a single port"
        ))
    );
    // The handler goes on: a single port is taken.
    m.open_port(tcp(8000, 8000), None).unwrap();
    m.commit_handler();
    m.flush().unwrap();
    assert_eq!(sent(&calls, "open-port"), 1);
    // On a machine the range is fine.
    let (mut m, _) = model_on(false, &answers);
    m.open_port(tcp(8000, 8100), None).unwrap();
}

#[test]
fn a_conflicting_port_is_refused_and_opened_ports_show_the_events_requests() {
    let (mut m, _) = model_on(
        false,
        &[("opened-ports", ToolOutput::ok(r#"["8000-8100/tcp (*)"]"#))],
    );
    assert_eq!(
        m.open_port(tcp(8080, 8080), None),
        Err(refused(
            "open-port",
            "cannot open 8080/tcp (unit \"gw/0\"): port range conflicts with 8000-8100/tcp (unit \"gw/0\")"
        ))
    );
    m.open_port(tcp(443, 443), Some(vec!["db".into()])).unwrap();
    m.close_port(tcp(8000, 8100), None).unwrap();
    let opened = m.opened_ports().unwrap();
    assert_eq!(
        opened,
        vec![OpenedPort {
            port: tcp(443, 443),
            endpoints: Some(vec!["db".into()]),
        }]
    );
    // A trapped handler's requests are gone from the reads too.
    m.abort_handler();
    assert_eq!(
        m.opened_ports().unwrap(),
        vec![OpenedPort {
            port: tcp(8000, 8100),
            endpoints: None,
        }]
    );
}

fn options() -> SecretOptions {
    SecretOptions {
        label: None,
        description: None,
        expire: None,
        rotate: None,
    }
}

fn content() -> Option<Vec<(String, String)>> {
    Some(vec![("password".into(), "x".into())])
}

const APP_SECRET: &str = r#"{"cq3app": {"revision": 1, "label": "db", "owner": "application"}}"#;

#[test]
fn a_secret_the_charm_does_not_own_is_not_found_at_the_call() {
    let (mut m, calls) = model_on(
        false,
        &[(
            "secret-info-get",
            ToolOutput::error(1, r#"secret "cq3other" not found"#),
        )],
    );
    let not_found = ModelError::NotFound(r#"secret "cq3other" not found"#.into());
    assert_eq!(
        m.secret_set("secret:cq3other".into(), content(), options()),
        Err(not_found.clone())
    );
    let db = RelationRef {
        endpoint: "db".into(),
        id: 1,
    };
    assert_eq!(
        m.secret_grant("secret:cq3other".into(), db.clone(), None),
        Err(not_found.clone())
    );
    assert_eq!(
        m.secret_revoke("cq3other".into(), db, None),
        Err(not_found.clone())
    );
    assert_eq!(
        m.secret_remove("secret:cq3other".into(), None),
        Err(not_found)
    );
    m.commit_handler();
    m.flush().unwrap();
    assert_eq!(
        sent(&calls, "secret-set") + sent(&calls, "secret-remove"),
        0
    );
}

#[test]
fn an_applications_secret_needs_the_leader_at_the_call() {
    let (mut m, calls) = model_on(
        false,
        &[
            ("secret-info-get", ToolOutput::ok(APP_SECRET)),
            ("is-leader", ToolOutput::ok("false")),
        ],
    );
    let not_leader = ModelError::NotLeader("this unit is not the leader".into());
    assert_eq!(
        m.secret_set("secret:cq3app".into(), content(), options()),
        Err(not_leader.clone())
    );
    assert_eq!(
        m.secret_remove("secret:cq3app".into(), Some(1)),
        Err(not_leader)
    );
    assert_eq!(sent(&calls, "is-leader"), 1);
}

#[test]
fn a_units_own_secret_is_added_and_changed_in_one_event_without_leadership() {
    let (mut m, calls) = model_on(
        false,
        &[
            ("secret-add", ToolOutput::ok("cq3mine\n")),
            ("secret-set", ToolOutput::ok("")),
        ],
    );
    let id = m
        .secret_add(content().unwrap(), options(), SecretOwner::Unit)
        .unwrap();
    assert_eq!(id, "secret:cq3mine");
    m.secret_set(id, content(), options()).unwrap();
    assert_eq!(
        sent(&calls, "secret-info-get") + sent(&calls, "is-leader"),
        0
    );
}

#[test]
fn secret_reads_show_the_events_own_changes() {
    let (mut m, _) = model_on(
        false,
        &[
            ("secret-info-get", ToolOutput::ok(APP_SECRET)),
            ("is-leader", ToolOutput::ok("true")),
            ("secret-ids", ToolOutput::ok(r#"["cq3app", "cq3kept"]"#)),
        ],
    );
    let info = m.secret_info_get(Some("cq3app".into()), None).unwrap();
    // One form of id everywhere.
    assert_eq!(info.id, "secret:cq3app");
    m.secret_set(
        "secret:cq3app".into(),
        None,
        SecretOptions {
            label: Some("db-admin".into()),
            description: Some("the admin's".into()),
            ..options()
        },
    )
    .unwrap();
    let info = m
        .secret_info_get(Some("secret:cq3app".into()), None)
        .unwrap();
    assert_eq!(
        (info.label.as_deref(), info.description.as_deref()),
        (Some("db-admin"), Some("the admin's"))
    );
    m.secret_remove("secret:cq3app".into(), None).unwrap();
    assert_eq!(m.secret_ids().unwrap(), ["secret:cq3kept"]);
    assert!(matches!(
        m.secret_info_get(Some("secret:cq3app".into()), None),
        Err(ModelError::NotFound(_))
    ));
    // Dropped with a trapped handler.
    m.abort_handler();
    assert_eq!(m.secret_ids().unwrap(), ["secret:cq3app", "secret:cq3kept"]);
}

#[test]
fn a_refresh_is_what_later_reads_see() {
    let (mut m, calls) = model_on(
        false,
        &[("secret-get", ToolOutput::ok(r#"{"password": "new"}"#))],
    );
    let id = Some("secret:cq3app".to_string());
    m.secret_get(id.clone(), None, SecretRead::Refresh).unwrap();
    let current = m.secret_get(id, None, SecretRead::Current).unwrap();
    assert_eq!(current, [("password".to_string(), "new".to_string())]);
    assert_eq!(sent(&calls, "secret-get"), 1);
}

#[test]
fn a_refusal_at_the_end_names_the_tool() {
    let (mut m, _) = model_on(
        false,
        &[
            ("opened-ports", ToolOutput::ok("[]")),
            (
                "open-port",
                ToolOutput::error(
                    1,
                    "cannot open 80/tcp (unit \"gw/0\"): port range conflicts with 80/tcp (unit \"other/0\")",
                ),
            ),
        ],
    );
    m.open_port(tcp(80, 80), None).unwrap();
    m.commit_handler();
    let e = m.flush().unwrap_err();
    assert!(
        matches!(&e, ModelError::ToolFailed(f) if f.tool == "open-port" && f.message.contains("other/0")),
        "{e:?}"
    );
}

#[test]
fn a_grant_to_a_unit_of_another_application_is_refused_at_the_call() {
    let (mut m, calls) = model_on(
        false,
        &[
            ("relation-list", ToolOutput::ok(r#""pg""#)),
            ("secret-info-get", ToolOutput::ok(APP_SECRET)),
            ("is-leader", ToolOutput::ok("true")),
        ],
    );
    let db = RelationRef {
        endpoint: "db".into(),
        id: 1,
    };
    assert_eq!(
        m.secret_grant("secret:cq3app".into(), db.clone(), Some("mysql/0".into())),
        Err(ModelError::InvalidArgument(
            r#"cannot specify unit "mysql/0" in relation to application "pg""#.into()
        ))
    );
    m.secret_grant("secret:cq3app".into(), db, Some("pg/0".into()))
        .unwrap();
    assert_eq!(sent(&calls, "relation-list"), 1);
}
