//! One test per event kind: `dispatch` runs with the environment Juju gives
//! that event (juju-protocol §1.2–§1.4) and the test charm `model-echo` logs
//! what its handler received, the event's Juju context included.

use crate::support;

use serde_json::json;
use support::{Unit, assert_success, packed};

// The echo charm declares a container: on Kubernetes, where Juju exports
// the machine empty.
const CONTEXT: &str = r#"CONTEXT JujuContext { model-uuid: "d1a3c0de-0000-4000-8000-00000000f00d", juju-version: "3.6.4", availability-zone: None, machine-id: None, principal-unit: None, target-base: None, target-series: None, meter-status: None, meter-info: None, api-addresses: ["10.0.0.10:17070"], http-proxy: None, https-proxy: None, ftp-proxy: None, no-proxy: None }"#;

fn unit() -> Unit {
    let unit = Unit::on_simulator(&packed("tests/guests/model-echo"), "echo/0");
    unit.update_state(|s| {
        s["relations"]["db:1"] = json!({"app": "pg", "units": ["pg/0", "pg/1"],
            "unit-data": {"pg/0": {}, "pg/1": {"host": "10.0.0.9"}}});
        s["relations"]["peer:2"] = json!({"app": "echo", "units": ["echo/1"]});
    });
    unit
}

/// Dispatch `path` with `env`; the lines the handler `echo` logged.
fn received(unit: &Unit, path: &str, env: &[(&str, &str)]) -> (String, String, String) {
    unit.clear_debug_log();
    let out = unit.dispatch_with(path, env);
    assert_success(&out);
    let log = unit.debug_log();
    // Juju starts a relation hook's records with the relation's id
    // (`juju-log.go`): the first line of the handler's one record has it.
    let relation = env
        .iter()
        .find(|(k, _)| *k == "JUJU_RELATION_ID")
        .map(|(_, id)| format!("{id}: "));
    if let Some(rel) = &relation {
        let first = log.lines().find_map(|l| l.strip_prefix("INFO "));
        assert!(
            first.is_some_and(|l| l.starts_with(rel.as_str())),
            "{path}: the record does not start with `{rel}`:\n{log}"
        );
    }
    let line = |prefix: &str| {
        log.lines()
            .filter_map(|l| l.strip_prefix("INFO "))
            .map(|l| {
                relation
                    .as_deref()
                    .and_then(|r| l.strip_prefix(r))
                    .unwrap_or(l)
            })
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{path}: no `{prefix}` line in the log:\n{log}"))
            .to_string()
    };
    (line("EVENT "), line("DEPARTING "), line("CONTEXT "))
}

/// The event a fixed hook gives, with the context every hook has.
fn fixed(hook: &str, event: &str) {
    let unit = unit();
    let (e, departing, context) = received(&unit, &format!("hooks/{hook}"), &[]);
    assert_eq!(e, format!("EVENT Event::{event}"), "{hook}");
    assert_eq!(departing, "DEPARTING None");
    assert_eq!(context, CONTEXT, "{hook}");
}

macro_rules! fixed_hooks {
    ($($test:ident: $hook:literal => $event:literal;)*) => {
        $(
            #[test]
            fn $test() {
                fixed($hook, $event);
            }
        )*
    };
}

fixed_hooks! {
    install: "install" => "Install";
    start: "start" => "Start";
    stop: "stop" => "Stop";
    remove: "remove" => "Remove";
    upgrade_charm: "upgrade-charm" => "UpgradeCharm";
    config_changed: "config-changed" => "ConfigChanged";
    update_status: "update-status" => "UpdateStatus";
    leader_elected: "leader-elected" => "LeaderElected";
    leader_settings_changed: "leader-settings-changed" => "LeaderSettingsChanged";
    leader_deposed: "leader-deposed" => "LeaderDeposed";
    post_series_upgrade: "post-series-upgrade" => "PostSeriesUpgrade";
    collect_metrics: "collect-metrics" => "CollectMetrics";
}

#[test]
fn pre_series_upgrade_has_its_target_base() {
    let unit = unit();
    let (e, _, context) = received(
        &unit,
        "hooks/pre-series-upgrade",
        &[
            ("JUJU_TARGET_BASE", "ubuntu@24.04"),
            ("JUJU_TARGET_SERIES", "noble"),
        ],
    );
    assert_eq!(e, "EVENT Event::PreSeriesUpgrade");
    assert_eq!(
        context,
        CONTEXT.replace(
            "target-base: None, target-series: None",
            r#"target-base: Some("ubuntu@24.04"), target-series: Some("noble")"#
        )
    );
}

#[test]
fn meter_status_changed_has_its_status() {
    let unit = unit();
    let (e, _, context) = received(
        &unit,
        "hooks/meter-status-changed",
        &[("JUJU_METER_STATUS", "GREEN"), ("JUJU_METER_INFO", "ok")],
    );
    assert_eq!(e, "EVENT Event::MeterStatusChanged");
    assert!(
        context.contains(r#"meter-status: Some("GREEN"), meter-info: Some("ok")"#),
        "{context}"
    );
}

#[test]
fn the_whole_context_juju_exports_is_read() {
    let unit = unit();
    let (_, _, context) = received(
        &unit,
        "hooks/config-changed",
        &[
            ("JUJU_AVAILABILITY_ZONE", "zone-a"),
            ("JUJU_PRINCIPAL_UNIT", "main/0"),
            ("JUJU_MACHINE_ID", "3/lxd/1"),
            ("JUJU_API_ADDRESSES", "10.0.0.10:17070 10.0.0.11:17070"),
            ("JUJU_CHARM_HTTP_PROXY", "http://squid:3128"),
            ("JUJU_CHARM_HTTPS_PROXY", "http://squid:3128"),
            ("JUJU_CHARM_FTP_PROXY", ""),
            ("JUJU_CHARM_NO_PROXY", "127.0.0.1,localhost"),
        ],
    );
    assert_eq!(
        context,
        r#"CONTEXT JujuContext { model-uuid: "d1a3c0de-0000-4000-8000-00000000f00d", juju-version: "3.6.4", availability-zone: Some("zone-a"), machine-id: Some("3/lxd/1"), principal-unit: Some("main/0"), target-base: None, target-series: None, meter-status: None, meter-info: None, api-addresses: ["10.0.0.10:17070", "10.0.0.11:17070"], http-proxy: Some("http://squid:3128"), https-proxy: Some("http://squid:3128"), ftp-proxy: None, no-proxy: Some("127.0.0.1,localhost") }"#
    );
}

fn relation(suffix: &str, remote_unit: &str, departing: &str) -> (String, String) {
    let unit = unit();
    let mut env = vec![
        ("JUJU_RELATION", "db"),
        ("JUJU_RELATION_ID", "db:1"),
        ("JUJU_REMOTE_APP", "pg"),
        ("JUJU_REMOTE_UNIT", remote_unit),
    ];
    if suffix == "departed" {
        env.push(("JUJU_DEPARTING_UNIT", departing));
    }
    let (e, d, context) = received(&unit, &format!("hooks/db-relation-{suffix}"), &env);
    assert_eq!(context, CONTEXT);
    (e, d)
}

const REL: &str = r#"relation: RelationRef { endpoint: "db", id: 1 }, remote-app: "pg""#;

#[test]
fn relation_created() {
    let (e, _) = relation("created", "", "");
    assert_eq!(
        e,
        format!(
            "EVENT Event::RelationCreated(RelationEvent {{ {REL}, remote-unit: None, departing-unit: None }})"
        )
    );
}

#[test]
fn relation_joined() {
    let (e, _) = relation("joined", "pg/0", "");
    assert_eq!(
        e,
        format!(
            r#"EVENT Event::RelationJoined(RelationEvent {{ {REL}, remote-unit: Some("pg/0"), departing-unit: None }})"#
        )
    );
}

#[test]
fn relation_changed() {
    let (e, _) = relation("changed", "pg/0", "");
    assert_eq!(
        e,
        format!(
            r#"EVENT Event::RelationChanged(RelationEvent {{ {REL}, remote-unit: Some("pg/0"), departing-unit: None }})"#
        )
    );
    // Changed by the remote application's data: no remote unit.
    let (e, _) = relation("changed", "", "");
    assert!(e.contains("remote-unit: None"), "{e}");
}

#[test]
fn relation_departed_names_the_departing_unit() {
    let (e, d) = relation("departed", "pg/1", "pg/1");
    assert_eq!(
        e,
        format!(
            r#"EVENT Event::RelationDeparted(RelationEvent {{ {REL}, remote-unit: Some("pg/1"), departing-unit: Some("pg/1") }})"#
        )
    );
    assert_eq!(d, r#"DEPARTING Some("pg/1")"#);
}

#[test]
fn relation_broken() {
    let unit = unit();
    // Juju may leave the remote app empty once the relation is broken.
    let (e, _, _) = received(
        &unit,
        "hooks/db-relation-broken",
        &[
            ("JUJU_RELATION", "db"),
            ("JUJU_RELATION_ID", "db:1"),
            ("JUJU_REMOTE_APP", ""),
            ("JUJU_REMOTE_UNIT", ""),
        ],
    );
    assert_eq!(
        e,
        r#"EVENT Event::RelationBroken(RelationEvent { relation: RelationRef { endpoint: "db", id: 1 }, remote-app: "", remote-unit: None, departing-unit: None })"#
    );
}

#[test]
fn an_empty_remote_app_is_the_remote_units() {
    let unit = unit();
    let (e, _, _) = received(
        &unit,
        "hooks/peer-relation-joined",
        &[
            ("JUJU_RELATION", "peer"),
            ("JUJU_RELATION_ID", "peer:2"),
            ("JUJU_REMOTE_APP", ""),
            ("JUJU_REMOTE_UNIT", "echo/1"),
        ],
    );
    assert!(
        e.contains(r#"remote-app: "echo", remote-unit: Some("echo/1")"#),
        "{e}"
    );
}

#[test]
fn storage_attached_and_detaching() {
    let unit = unit();
    let env = [
        ("JUJU_STORAGE_ID", "data/0"),
        ("JUJU_STORAGE_KIND", "filesystem"),
        ("JUJU_STORAGE_LOCATION", "/srv/data"),
    ];
    let storage = r#"StorageEvent { name: "data", id: "data/0", kind: Some("filesystem"), location: Some("/srv/data") }"#;
    let (e, _, context) = received(&unit, "hooks/data-storage-attached", &env);
    assert_eq!(e, format!("EVENT Event::StorageAttached({storage})"));
    assert_eq!(context, CONTEXT);
    let (e, _, _) = received(&unit, "hooks/data-storage-detaching", &env);
    assert_eq!(e, format!("EVENT Event::StorageDetaching({storage})"));
}

#[test]
fn pebble_ready() {
    let unit = unit();
    let (e, _, _) = received(
        &unit,
        "hooks/workload-pebble-ready",
        &[("JUJU_WORKLOAD_NAME", "workload")],
    );
    assert_eq!(e, r#"EVENT Event::PebbleReady("workload")"#);
}

#[test]
fn pebble_custom_notice() {
    let unit = unit();
    let (e, _, _) = received(
        &unit,
        "hooks/workload-pebble-custom-notice",
        &[
            ("JUJU_WORKLOAD_NAME", "workload"),
            ("JUJU_NOTICE_ID", "123"),
            ("JUJU_NOTICE_TYPE", "custom"),
            ("JUJU_NOTICE_KEY", "example.com/a"),
        ],
    );
    assert_eq!(
        e,
        r#"EVENT Event::PebbleCustomNotice(NoticeEvent { container: "workload", id: "123", type: "custom", key: "example.com/a" })"#
    );
}

#[test]
fn pebble_check_failed_and_recovered() {
    let unit = unit();
    let env = [
        ("JUJU_WORKLOAD_NAME", "workload"),
        ("JUJU_PEBBLE_CHECK_NAME", "http-alive"),
    ];
    let check = r#"CheckEvent { container: "workload", check: "http-alive" }"#;
    let (e, _, _) = received(&unit, "hooks/workload-pebble-check-failed", &env);
    assert_eq!(e, format!("EVENT Event::PebbleCheckFailed({check})"));
    let (e, _, _) = received(&unit, "hooks/workload-pebble-check-recovered", &env);
    assert_eq!(e, format!("EVENT Event::PebbleCheckRecovered({check})"));
}

#[test]
fn secret_events() {
    let unit = unit();
    let id = "secret:cj4v1qdfor1c77b9mgj0";
    let with_revision = [
        ("JUJU_SECRET_ID", id),
        ("JUJU_SECRET_LABEL", "tls"),
        ("JUJU_SECRET_REVISION", "3"),
    ];
    let (e, _, _) = received(&unit, "hooks/secret-changed", &with_revision[..2]);
    assert_eq!(
        e,
        format!(
            r#"EVENT Event::SecretChanged(SecretEvent {{ id: "{id}", label: Some("tls"), revision: None }})"#
        )
    );
    let (e, _, _) = received(
        &unit,
        "hooks/secret-rotate",
        &[("JUJU_SECRET_ID", id), ("JUJU_SECRET_LABEL", "")],
    );
    assert_eq!(
        e,
        format!(
            r#"EVENT Event::SecretRotate(SecretEvent {{ id: "{id}", label: None, revision: None }})"#
        )
    );
    for (hook, kind) in [
        ("secret-remove", "SecretRemove"),
        ("secret-expired", "SecretExpired"),
    ] {
        let (e, _, _) = received(&unit, &format!("hooks/{hook}"), &with_revision);
        assert_eq!(
            e,
            format!(
                r#"EVENT Event::{kind}(SecretEvent {{ id: "{id}", label: Some("tls"), revision: Some(3) }})"#
            )
        );
    }
}

#[test]
fn action() {
    let unit = unit();
    let (e, _, context) = received(
        &unit,
        "actions/echo",
        &[
            ("JUJU_ACTION_NAME", "echo"),
            ("JUJU_ACTION_UUID", "7"),
            ("JUJU_ACTION_TAG", "action-7"),
        ],
    );
    assert_eq!(
        e,
        r#"EVENT Event::Action(ActionEvent { name: "echo", id: "7" })"#
    );
    assert_eq!(context, CONTEXT);
}
