//! Every model call against hook tools answering as juju-protocol §2
//! specifies: the exact argv, the JSON read back, the cache, and each error
//! path (exit 1 and exit 2 with `ERROR …` on stderr) as the typed error the
//! guest matches.

use super::errors::classify;
use super::tests::{rel, tool_calls as calls_of};
use super::{Model, describe_error, ports};
use crate::bindings::model::{GoalStatus, Host, ModelError};
use crate::bindings::network::{BindAddress, Host as _, InterfaceAddress};
use crate::bindings::ports::{Host as _, PortRange, Protocol};
use crate::bindings::relations::{Databag, Host as _, LocalBag};
use crate::bindings::secrets::{Host as _, SecretOptions, SecretOwner, SecretRead};
use crate::bindings::storage::Host as _;
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::Calls;

fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
    super::tests::model_on(false, &["db", "web"], answers)
}

fn tcp(from: u16, to: u16) -> PortRange {
    PortRange {
        protocol: Protocol::Tcp,
        from,
        to,
    }
}

/// The error a tool's `ERROR <words>` with `code` becomes, for each call.
fn error_kind(e: &ModelError) -> &'static str {
    match e {
        ModelError::RelationNotFound(_) => "relation-not-found",
        ModelError::NotLeader(_) => "not-leader",
        ModelError::InvalidArgument(_) => "invalid-argument",
        ModelError::ToolFailed(_) => "tool-failed",
        ModelError::NotFound(_) => "not-found",
        ModelError::PermissionDenied(_) => "permission-denied",
        ModelError::TooManyRelations(_) => "too-many-relations",
    }
}

#[test]
fn tool_words_map_to_the_error_kinds_ops_has() {
    let cases = [
        (
            2,
            "invalid value \"db:9\" for option -r: relation not found",
            "relation-not-found",
        ),
        (1, "this unit is not the leader", "not-leader"),
        (1, "cannot write relation settings", "not-leader"),
        (
            1,
            "cannot access cloud credentials: permission denied",
            "permission-denied",
        ),
        (1, "secret access denied", "permission-denied"),
        (
            2,
            "invalid value \"data/9\" for option -s: storage instance \"data/9\" not found",
            "not-found",
        ),
        (1, "no network config found for binding \"x\"", "not-found"),
        (1, "something else broke", "tool-failed"),
    ];
    for (code, words, kind) in cases {
        let e = classify("tool", ToolOutput::error(code, words)).unwrap_err();
        assert_eq!(error_kind(&e), kind, "{words}");
        // The tool's own words, without `ERROR `.
        assert!(describe_error(&e).contains(words), "{e:?}");
        if let ModelError::ToolFailed(f) = e {
            assert_eq!(f.exit_code, code);
        }
    }
    // A tool that says nothing still names itself and its code.
    let e = classify(
        "goal-state",
        ToolOutput {
            code: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(describe_error(&e), "goal-state exited with code 1");
}

#[test]
fn ports_are_buffered_per_handler_and_sent_in_order_at_the_end() {
    let (mut m, calls) = model(&[
        ("opened-ports", ToolOutput::ok(r#"["80/tcp (*)"]"#)),
        ("open-port", ToolOutput::ok("")),
        ("close-port", ToolOutput::ok("")),
    ]);
    // A trapped handler's requests vanish.
    m.open_port(tcp(22, 22), None).unwrap();
    m.abort_handler();
    m.open_port(tcp(80, 80), None).unwrap();
    m.open_port(
        PortRange {
            protocol: Protocol::Udp,
            from: 8000,
            to: 8100,
        },
        Some(vec!["db".into(), "web".into()]),
    )
    .unwrap();
    m.commit_handler();
    m.close_port(
        PortRange {
            protocol: Protocol::Icmp,
            from: 0,
            to: 0,
        },
        None,
    )
    .unwrap();
    // The last word on a port counts.
    m.close_port(tcp(80, 80), None).unwrap();
    m.commit_handler();
    // Nothing is sent before the end of the event; the ports open when it
    // began are read once, to check each request by Juju's rules.
    assert_eq!(calls_of(&calls, "opened-ports").len(), 1);
    assert_eq!(calls.lock().unwrap().len(), 1);
    m.flush().unwrap();
    let sent: Vec<(String, Vec<String>)> = calls
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.0 != "opened-ports")
        .map(|c| (c.0.clone(), c.1.clone()))
        .collect();
    let expect = |t: &str, a: &[&str]| (t.to_string(), a.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        sent,
        [
            expect("open-port", &["--endpoints", "db,web", "8000-8100/udp"]),
            expect("close-port", &["icmp"]),
            expect("close-port", &["80/tcp"]),
        ]
    );
}

#[test]
fn bad_port_requests_are_refused_at_the_call_and_bounded_per_event() {
    let (mut m, _) = model(&[("opened-ports", ToolOutput::ok("[]"))]);
    for (port, endpoints) in [
        (tcp(0, 0), None),
        (tcp(90, 80), None),
        (tcp(80, 80), Some(vec![])),
        (tcp(80, 80), Some(vec!["a,b".to_string()])),
    ] {
        let e = m.open_port(port, endpoints).unwrap_err();
        assert_eq!(error_kind(&e), "invalid-argument", "{e:?}");
    }
    for p in 1..=ports::MAX_PORT_REQUESTS_PER_EVENT as u16 {
        m.open_port(tcp(p, p), None).unwrap();
    }
    let e = m.open_port(tcp(9999, 9999), None).unwrap_err();
    assert!(
        describe_error(&e).contains("MAX_PORT_REQUESTS_PER_EVENT"),
        "{e:?}"
    );
    // Repeating a pending request is no growth.
    m.close_port(tcp(1, 1), None).unwrap();
}

#[test]
fn a_failed_port_request_at_the_end_fails_the_flush_with_the_tools_words() {
    let (mut m, _) = model(&[
        ("opened-ports", ToolOutput::ok("[]")),
        (
            "open-port",
            ToolOutput::error(2, "invalid port range 80-70/tcp"),
        ),
    ]);
    m.open_port(tcp(80, 80), None).unwrap();
    m.commit_handler();
    let e = m.flush().unwrap_err();
    assert!(describe_error(&e).contains("invalid port range"), "{e:?}");
}

#[test]
fn bindings_metadata_does_not_declare_are_refused_at_the_call() {
    let (mut m, calls) = model(&[
        ("network-get", ToolOutput::ok("{}")),
        ("opened-ports", ToolOutput::ok("[]")),
        ("open-port", ToolOutput::ok("")),
        ("close-port", ToolOutput::ok("")),
    ]);
    // Until the extra bindings are known, only a name's form is checked.
    m.network_get("admin".into(), None).unwrap();
    m.set_extra_bindings(["admin".to_string()].into());
    m.network_get("db".into(), None).unwrap();
    m.network_get("admin".into(), Some(rel(1))).unwrap();
    let e = m.network_get("public".into(), None).unwrap_err();
    assert_eq!(
        e,
        ModelError::InvalidArgument(
            "network-get: `public` is neither a relation endpoint nor an extra binding of this charm (metadata.yaml declares endpoints: `db`, `web`; extra-bindings: `admin`)".into()
        )
    );
    // Endpoints and extra bindings alike take ports; anything else is refused
    // with the call that named it, and nothing is buffered.
    m.open_port(tcp(80, 80), Some(vec!["db".into(), "admin".into()]))
        .unwrap();
    let e = m
        .open_port(tcp(81, 81), Some(vec!["web".into(), "nope".into()]))
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(msg)
            if msg.starts_with("open-port --endpoints: `nope` is neither")),
        "{e:?}"
    );
    let e = m
        .close_port(tcp(80, 80), Some(vec!["*".into()]))
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(msg)
            if msg.starts_with("close-port --endpoints: `*` is neither")),
        "{e:?}"
    );
    m.commit_handler();
    m.flush().unwrap();
    assert_eq!(
        calls_of(&calls, "open-port"),
        [["--endpoints", "db,admin", "80/tcp"]]
    );
    assert!(calls_of(&calls, "close-port").is_empty());
    assert_eq!(calls_of(&calls, "network-get").len(), 3);
    // A charm without extra bindings says so.
    m.set_extra_bindings(Default::default());
    let e = m.network_get("admin".into(), Some(rel(2))).unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidArgument(msg) if msg.ends_with("extra-bindings: none)")),
        "{e:?}"
    );
}

#[test]
fn opened_ports_reads_the_endpoints_form_once() {
    let (mut m, calls) = model(&[(
        "opened-ports",
        ToolOutput::ok(r#"["80/tcp (*)","8000-8100/udp (db, web)","icmp (*)"]"#),
    )]);
    let opened = m.opened_ports().unwrap();
    assert_eq!(opened.len(), 3);
    assert_eq!(opened[0].port, tcp(80, 80));
    assert_eq!(opened[0].endpoints, None);
    assert_eq!(
        opened[1].endpoints,
        Some(vec!["db".to_string(), "web".to_string()])
    );
    assert_eq!(opened[2].port.protocol, Protocol::Icmp);
    assert_eq!(m.opened_ports().unwrap(), opened);
    assert_eq!(
        calls_of(&calls, "opened-ports"),
        [["--format=json", "--endpoints"]]
    );

    let (mut m, _) = model(&[("opened-ports", ToolOutput::ok(r#"["80/sctp"]"#))]);
    assert_eq!(error_kind(&m.opened_ports().unwrap_err()), "tool-failed");
    let (mut m, _) = model(&[("opened-ports", ToolOutput::ok("null"))]);
    assert_eq!(m.opened_ports().unwrap(), []);
}

#[test]
fn storage_list_and_get() {
    let (mut m, calls) = model(&[
        ("storage-list", ToolOutput::ok(r#"["data/1","data/0"]"#)),
        (
            "storage-get",
            ToolOutput::ok(r#"{"kind":"filesystem","location":"/srv/data"}"#),
        ),
    ]);
    assert_eq!(
        m.storage_list(Some("data".into())).unwrap(),
        ["data/0", "data/1"]
    );
    assert_eq!(m.storage_list(None).unwrap(), ["data/0", "data/1"]);
    m.storage_list(Some("data".into())).unwrap();
    assert_eq!(
        calls_of(&calls, "storage-list"),
        [vec!["--format=json", "--", "data"], vec!["--format=json"]]
    );
    let s = m.storage_get("data/0".into()).unwrap();
    assert_eq!(
        (s.id.as_str(), s.kind.as_str(), s.location.as_str()),
        ("data/0", "filesystem", "/srv/data")
    );
    m.storage_get("data/0".into()).unwrap();
    assert_eq!(
        calls_of(&calls, "storage-get"),
        [["--format=json", "-s", "data/0"]]
    );
    for bad in ["data", "-s/0", "data/x", "", "data/"] {
        let e = m.storage_get(bad.into()).unwrap_err();
        assert_eq!(error_kind(&e), "invalid-argument", "{bad}");
    }
    assert_eq!(
        error_kind(&m.storage_list(Some("-x".into())).unwrap_err()),
        "invalid-argument"
    );

    let (mut m, _) = model(&[(
        "storage-get",
        ToolOutput::error(
            2,
            "invalid value \"data/9\" for option -s: storage instance \"data/9\" not found",
        ),
    )]);
    assert_eq!(
        error_kind(&m.storage_get("data/9".into()).unwrap_err()),
        "not-found"
    );
    let (mut m, _) = model(&[(
        "storage-list",
        ToolOutput::error(1, "connection is shut down"),
    )]);
    let e = m.storage_list(None).unwrap_err();
    assert!(
        matches!(&e, ModelError::ToolFailed(f) if f.exit_code == 1 && f.tool == "storage-list"),
        "{e:?}"
    );
}

#[test]
fn network_get_reads_bind_and_ingress_addresses() {
    let answer = r#"{"bind-addresses":[{"mac-address":"00:16:3e:aa","interface-name":"eth0","addresses":[{"hostname":"","value":"10.0.0.5","cidr":"10.0.0.0/24"}]}],"egress-subnets":["10.0.0.0/24"],"ingress-addresses":["10.0.0.5"]}"#;
    let (mut m, calls) = model(&[("network-get", ToolOutput::ok(answer))]);
    let n = m.network_get("db".into(), None).unwrap();
    assert_eq!(
        n.bind_addresses,
        [BindAddress {
            mac_address: "00:16:3e:aa".into(),
            interface_name: "eth0".into(),
            addresses: vec![InterfaceAddress {
                hostname: String::new(),
                value: "10.0.0.5".into(),
                cidr: "10.0.0.0/24".into()
            }]
        }]
    );
    assert_eq!(n.ingress_addresses, ["10.0.0.5"]);
    assert_eq!(n.egress_subnets, ["10.0.0.0/24"]);
    m.network_get("db".into(), None).unwrap();
    m.network_get("db".into(), Some(rel(3))).unwrap();
    assert_eq!(
        calls_of(&calls, "network-get"),
        [
            vec!["--format=json", "--", "db"],
            vec!["--format=json", "-r", "db:3", "--", "db"]
        ]
    );
    // Juju leaves empty keys out.
    let (mut m, _) = model(&[("network-get", ToolOutput::ok("{}"))]);
    assert_eq!(
        m.network_get("db".into(), None).unwrap().ingress_addresses,
        Vec::<String>::new()
    );
    let (mut m, _) = model(&[(
        "network-get",
        ToolOutput::error(1, "no network config found for binding \"nope\""),
    )]);
    assert_eq!(
        error_kind(&m.network_get("nope".into(), None).unwrap_err()),
        "not-found"
    );
    let (mut m, _) = model(&[(
        "network-get",
        ToolOutput::error(
            2,
            "invalid value \"db:9\" for option -r: relation not found",
        ),
    )]);
    assert_eq!(
        error_kind(&m.network_get("db".into(), Some(rel(9))).unwrap_err()),
        "relation-not-found"
    );
    assert_eq!(
        error_kind(&m.network_get("".into(), None).unwrap_err()),
        "invalid-argument"
    );
}

#[test]
fn goal_state_lists_units_and_related_applications() {
    let answer = r#"{"units":{"gw/0":{"status":"active","since":"2026-01-04 06:29:46Z"},"gw/1":{"status":"dying","since":"2026-01-04 06:30:00Z"}},"relations":{"db":{"pg":{"status":"joined","since":"2026-01-04 06:31:00Z"},"pg/0":{"status":"active","since":"2026-01-04 06:31:00Z"}}}}"#;
    let (mut m, calls) = model(&[("goal-state", ToolOutput::ok(answer))]);
    let g = m.goal_state().unwrap();
    assert_eq!(
        g.units[1],
        GoalStatus {
            name: "gw/1".into(),
            status: "dying".into(),
            since: Some("2026-01-04 06:30:00Z".into())
        }
    );
    assert_eq!(g.relations[0].0, "db");
    assert_eq!(g.relations[0].1.len(), 2);
    m.goal_state().unwrap();
    assert_eq!(calls_of(&calls, "goal-state"), [["--format=json"]]);
    let (mut m, _) = model(&[(
        "goal-state",
        ToolOutput::error(2, "option provided but not defined: --format"),
    )]);
    let e = m.goal_state().unwrap_err();
    assert!(
        matches!(&e, ModelError::ToolFailed(f) if f.exit_code == 2),
        "{e:?}"
    );
}

#[test]
fn credential_get_reads_the_cloud_spec_and_needs_trust() {
    let answer = r#"{"type":"lxd","name":"localhost","region":"default","endpoint":"https://10.0.0.1:8443","credential":{"auth-type":"certificate","attrs":{"client-cert":"C"},"redacted":["client-key"]},"cacertificates":["CA"],"skip-tls-verify":false,"is-controller-cloud":true}"#;
    let (mut m, calls) = model(&[("credential-get", ToolOutput::ok(answer))]);
    let c = m.credential_get().unwrap();
    assert_eq!((c.type_.as_str(), c.name.as_str()), ("lxd", "localhost"));
    assert_eq!(c.identity_endpoint, None);
    let cred = c.credential.unwrap();
    assert_eq!(cred.attrs, [("client-cert".to_string(), "C".to_string())]);
    assert_eq!(cred.redacted, ["client-key"]);
    assert!(c.is_controller_cloud && !c.skip_tls_verify);
    assert_eq!(calls_of(&calls, "credential-get"), [["--format=json"]]);
    let (mut m, _) = model(&[(
        "credential-get",
        ToolOutput::error(1, "cannot access cloud credentials: permission denied"),
    )]);
    assert_eq!(
        error_kind(&m.credential_get().unwrap_err()),
        "permission-denied"
    );
}

#[test]
fn resource_get_gives_the_path() {
    let (mut m, calls) = model(&[(
        "resource-get",
        ToolOutput::ok("/var/lib/juju/agents/unit-gw-0/resources/bin/bin.tgz\n"),
    )]);
    assert_eq!(
        m.resource_get("bin".into()).unwrap(),
        "/var/lib/juju/agents/unit-gw-0/resources/bin/bin.tgz"
    );
    m.resource_get("bin".into()).unwrap();
    assert_eq!(calls_of(&calls, "resource-get"), [["--", "bin"]]);
    let (mut m, _) = model(&[(
        "resource-get",
        ToolOutput::error(
            1,
            "could not download resource: resource \"nope\" not found",
        ),
    )]);
    assert_eq!(
        error_kind(&m.resource_get("nope".into()).unwrap_err()),
        "not-found"
    );
    let (mut m, _) = model(&[("resource-get", ToolOutput::ok(""))]);
    assert_eq!(
        error_kind(&m.resource_get("x".into()).unwrap_err()),
        "tool-failed"
    );
}

#[test]
fn context_without_an_environment_is_empty() {
    let (mut m, calls) = model(&[]);
    let c = Host::context(&mut m);
    assert_eq!(c.model_uuid, "");
    assert_eq!(c.target_base, None);
    assert!(calls.lock().unwrap().is_empty());
}

#[test]
fn a_write_to_a_relation_that_is_gone_is_an_error_at_the_call() {
    let (mut m, calls) = model(&[
        ("relation-ids", ToolOutput::ok(r#"["db:1","db:2"]"#)),
        ("is-leader", ToolOutput::ok("false")),
    ]);
    let e = m
        .relation_set(rel(7), LocalBag::Unit, vec![("k".into(), "v".into())])
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::RelationNotFound(msg) if msg.contains("db:7")),
        "{e:?}"
    );
    // The app bag of a live relation, not leading: refused at the call.
    let e = m
        .relation_set(rel(1), LocalBag::App, vec![("k".into(), "v".into())])
        .unwrap_err();
    assert_eq!(error_kind(&e), "not-leader");
    // Keys Juju accepts through `--file`: `=` and spaces included.
    m.relation_set(rel(1), LocalBag::Unit, vec![("a=b c".into(), "v".into())])
        .unwrap();
    assert_eq!(calls_of(&calls, "relation-ids").len(), 1, "cached");

    // The relation being broken is gone for writes too.
    let (mut m, _) = model(&[("relation-ids", ToolOutput::ok(r#"["db:1"]"#))]);
    m.set_event_relation(&rel(1), "pg", true);
    let e = m
        .relation_set(rel(1), LocalBag::Unit, vec![("k".into(), "v".into())])
        .unwrap_err();
    assert!(
        matches!(&e, ModelError::RelationNotFound(msg) if msg.contains("being broken")),
        "{e:?}"
    );
}

#[test]
fn the_departing_unit_is_not_listed_but_its_data_stays_readable() {
    let (mut m, calls) = model(&[
        // Juju no longer lists it; a stale answer that does is filtered too.
        ("relation-list", ToolOutput::ok(r#"["pg/1","pg/0"]"#)),
        ("relation-get", ToolOutput::ok(r#"{"host":"10.0.0.9"}"#)),
    ]);
    m.set_event_relation(&rel(1), "pg", false);
    m.set_departing_unit(&rel(1), "pg/1");
    assert_eq!(m.relation_units(rel(1)).unwrap(), ["pg/0"]);
    let data = m
        .relation_get(rel(1), Databag::RemoteUnit("pg/1".into()))
        .unwrap();
    assert_eq!(data, [("host".to_string(), "10.0.0.9".to_string())]);
    assert_eq!(
        calls_of(&calls, "relation-get"),
        [["--format=json", "-r", "db:1", "--", "-", "pg/1"]]
    );
}

fn no_options() -> SecretOptions {
    SecretOptions {
        label: None,
        description: None,
        expire: None,
        rotate: None,
    }
}

#[test]
fn secret_reads_go_to_their_tools_and_are_cached() {
    let (mut m, calls) = model(&[
        (
            "secret-get",
            ToolOutput::ok(r#"{"password":"pw","username":"u"}"#),
        ),
        ("secret-ids", ToolOutput::ok(r#"["secret:b","a"]"#)),
        (
            "secret-info-get",
            ToolOutput::ok(r#"{"secret:a":{"revision":3,"label":"db","owner":"unit"}}"#),
        ),
    ]);
    let id = Some("secret:a".to_string());
    let got = m.secret_get(id.clone(), None, SecretRead::Current).unwrap();
    assert_eq!(got[0], ("password".to_string(), "pw".to_string()));
    m.secret_get(id.clone(), None, SecretRead::Current).unwrap();
    m.secret_get(None, Some("db".into()), SecretRead::Peek)
        .unwrap();
    m.secret_get(id.clone(), None, SecretRead::Refresh).unwrap();
    assert_eq!(
        calls_of(&calls, "secret-get"),
        [
            vec!["--format=json", "--", "secret:a"],
            vec!["--format=json", "--peek", "--label", "db"],
            vec!["--format=json", "--refresh", "--", "secret:a"],
        ]
    );
    assert_eq!(m.secret_ids().unwrap(), ["secret:a", "secret:b"]);
    let info = m.secret_info_get(id.clone(), None).unwrap();
    assert_eq!((info.revision, info.owner.as_deref()), (3, Some("unit")));
    // An id and a label: secret-info-get takes one of them (Juju exits 2 on both).
    m.secret_info_get(id, Some("db".into())).unwrap();
    assert_eq!(
        calls_of(&calls, "secret-info-get"),
        [
            ["--format=json", "--", "secret:a"],
            ["--format=json", "--", "secret:a"]
        ]
    );
    assert!(matches!(
        m.secret_get(None, None, SecretRead::Current),
        Err(ModelError::InvalidArgument(_))
    ));
}

#[test]
fn a_missing_secret_is_not_found() {
    let (mut m, _) = model(&[(
        "secret-get",
        ToolOutput::error(1, r#"secret "secret:x" not found"#),
    )]);
    assert_eq!(
        m.secret_get(Some("secret:x".into()), None, SecretRead::Current),
        Err(ModelError::NotFound(
            r#"secret "secret:x" not found"#.into()
        ))
    );
}

#[test]
fn secret_add_runs_at_the_call_and_the_rest_follow_the_handler() {
    let (mut m, calls) = model(&[
        ("secret-add", ToolOutput::ok("secret:new\n")),
        ("relation-list", ToolOutput::ok(r#""pg""#)),
    ]);
    let uri = m
        .secret_add(
            vec![("password".into(), "hunter2".into())],
            SecretOptions {
                label: Some("db".into()),
                ..no_options()
            },
            SecretOwner::Unit,
        )
        .unwrap();
    assert_eq!(uri, "secret:new");
    let add = &calls_of(&calls, "secret-add")[0];
    assert_eq!(add[..4], ["--label", "db", "--owner", "unit"]);
    assert!(add[4].starts_with("password#file="), "{add:?}");
    assert!(!add.iter().any(|a| a.contains("hunter2")));

    // A trapped handler's requests are dropped; a returned one's are sent.
    m.secret_remove("secret:new".into(), None).unwrap();
    m.abort_handler();
    m.secret_set(
        "secret:new".into(),
        Some(vec![("password".into(), "x".into())]),
        no_options(),
    )
    .unwrap();
    m.secret_grant("secret:new".into(), rel(1), Some("pg/0".into()))
        .unwrap();
    m.secret_revoke("secret:new".into(), rel(1), None).unwrap();
    m.secret_remove("secret:new".into(), Some(2)).unwrap();
    assert!(calls_of(&calls, "secret-set").is_empty());
    m.commit_handler();
    m.flush().unwrap_err(); // the table has no answer for secret-set
    let set = &calls_of(&calls, "secret-set")[0];
    assert_eq!(set[..2], ["--", "secret:new"]);
    assert!(set[2].starts_with("password#file="));
    assert!(matches!(
        m.secret_remove("x".into(), Some(0)),
        Err(ModelError::InvalidArgument(_))
    ));
    assert!(matches!(
        m.secret_grant("x".into(), rel(1), Some("bad".into())),
        Err(ModelError::InvalidArgument(_))
    ));
}

#[test]
fn buffered_secret_requests_go_out_in_order() {
    let (mut m, calls) = model(&[
        (
            "secret-info-get",
            ToolOutput::ok(r#"{"cq3a": {"revision": 2, "owner": "application"}}"#),
        ),
        ("is-leader", ToolOutput::ok("true")),
        ("relation-list", ToolOutput::ok(r#""pg""#)),
        ("secret-grant", ToolOutput::ok("")),
        ("secret-revoke", ToolOutput::ok("")),
        ("secret-remove", ToolOutput::ok("")),
    ]);
    m.secret_grant("secret:a".into(), rel(1), Some("pg/0".into()))
        .unwrap();
    m.secret_revoke("secret:a".into(), rel(1), None).unwrap();
    m.secret_remove("secret:a".into(), Some(2)).unwrap();
    // Checked at the call: the owner read once, leadership at each call.
    assert_eq!(calls_of(&calls, "secret-info-get").len(), 1);
    assert_eq!(calls_of(&calls, "is-leader").len(), 3);
    m.commit_handler();
    m.flush().unwrap();
    let all: Vec<(String, Vec<String>)> = calls
        .lock()
        .unwrap()
        .iter()
        .filter(|c| {
            !matches!(
                c.0.as_str(),
                "secret-info-get" | "is-leader" | "relation-list"
            )
        })
        .map(|c| (c.0.clone(), c.1.clone()))
        .collect();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    assert_eq!(
        all,
        [
            (
                "secret-grant".to_string(),
                s(&["--relation", "db:1", "--unit", "pg/0", "--", "secret:a"])
            ),
            (
                "secret-revoke".to_string(),
                s(&["--relation", "db:1", "--", "secret:a"])
            ),
            (
                "secret-remove".to_string(),
                s(&["--revision", "2", "--", "secret:a"])
            ),
        ]
    );
}
