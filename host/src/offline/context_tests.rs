use super::*;
use crate::bindings::EventKind;
use crate::offline::{KeyValue, Param};
use crate::text::edit_distance;

use crate::event::tests::{actions, metadata};

#[test]
fn edit_distances() {
    assert_eq!(edit_distance("", ""), 0);
    assert_eq!(edit_distance("install", "instal"), 1);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(edit_distance("", "abc"), 3);
}

#[test]
fn a_typo_names_the_closest_event_of_this_charm() {
    for (typo, want) in [
        ("instal", "install"),
        ("config-chnged", "config-changed"),
        ("db-relation-joind", "db-relation-joined"),
        ("dbb-relation-joined", "db-relation-joined"),
        ("data-storage-attach", "data-storage-attached"),
        ("workload-pebble-ready", "work-load-pebble-ready"),
        ("actions/show-stats", "actions/show-status"),
        ("hooks/strat", "start"),
    ] {
        let e = check_event(typo, &metadata(), &actions()).unwrap_err();
        assert!(
            e.0.contains(&format!("did you mean `{want}`?")),
            "{typo}: {e}"
        );
    }
}

#[test]
fn events_of_the_charm_are_accepted_with_their_kind() {
    let e = check_event("istio-pilot-relation-departed", &metadata(), &actions()).unwrap();
    assert_eq!(e.kind, EventKind::RelationDeparted);
    assert_eq!(e.entity.as_deref(), Some("istio-pilot"));
    let e = check_event("actions/show-status", &metadata(), &actions()).unwrap();
    assert_eq!(e.kind, EventKind::Action);
    let e = check_event("hooks/install", &metadata(), &actions()).unwrap();
    assert_eq!(e.path, DispatchPath::Hook("install".into()));
}

pub(in crate::offline) fn charm() -> CharmDir {
    CharmDir {
        path: "/charm".into(),
        metadata: metadata(),
        config: Default::default(),
        actions: actions(),
        manifest: Default::default(),
    }
}

fn env_for(event: &str, flags: impl FnOnce(&mut RunArgs)) -> Usage<(JujuEnv, SimState)> {
    let mut args = RunArgs {
        event: event.into(),
        ..RunArgs::default()
    };
    flags(&mut args);
    let run = check_event(event, &metadata(), &actions())?;
    let mut state = SimState::default();
    let env = hook_env(&args, &charm(), &run, &mut state, "gw/0")?;
    Ok((env, state))
}

#[test]
fn storage_pebble_secret_and_action_events_get_their_variables() {
    let (env, _) = env_for("data-storage-attached", |a| {
        a.storage = Some("data/2".into())
    })
    .unwrap();
    assert_eq!(env.get("JUJU_STORAGE_ID"), Some("data/2"));
    assert_eq!(env.get("JUJU_STORAGE_KIND"), Some("filesystem"));
    assert_eq!(
        env.get("JUJU_STORAGE_LOCATION"),
        Some("/var/lib/juju/storage/data/2")
    );
    let (env, _) = env_for("data-storage-detaching", |_| {}).unwrap();
    assert_eq!(env.get("JUJU_STORAGE_ID"), Some("data/0"));

    let (env, _) = env_for("work-load-pebble-custom-notice", |a| {
        a.notice_id = Some("7".into());
        a.notice_key = Some("example.com/a".into());
    })
    .unwrap();
    assert_eq!(env.get("JUJU_WORKLOAD_NAME"), Some("work-load"));
    assert_eq!(env.get("JUJU_NOTICE_ID"), Some("7"));
    assert_eq!(env.get("JUJU_NOTICE_TYPE"), Some("custom"));
    assert_eq!(env.get("JUJU_NOTICE_KEY"), Some("example.com/a"));
    let (env, _) = env_for("work-load-pebble-check-failed", |a| {
        a.check = Some("up".into())
    })
    .unwrap();
    assert_eq!(env.get("JUJU_PEBBLE_CHECK_NAME"), Some("up"));

    let (env, _) = env_for("secret-expired", |a| {
        a.secret_id = Some("secret:abc".into());
        a.secret_label = Some("tls".into());
        a.secret_revision = Some("3".into());
    })
    .unwrap();
    assert_eq!(env.get("JUJU_SECRET_ID"), Some("secret:abc"));
    assert_eq!(env.get("JUJU_SECRET_LABEL"), Some("tls"));
    assert_eq!(env.get("JUJU_SECRET_REVISION"), Some("3"));

    let (env, _) = env_for("actions/show-status", |_| {}).unwrap();
    assert_eq!(env.get("JUJU_ACTION_NAME"), Some("show-status"));
    assert_eq!(env.get("JUJU_DISPATCH_PATH"), Some("actions/show-status"));

    // Every environment built here is one the host resolves.
    for (event, flags) in [
        ("secret-changed", "--secret-id"),
        ("data-storage-attached", ""),
        ("work-load-pebble-ready", ""),
    ] {
        let (env, _) = env_for(event, |a| {
            if !flags.is_empty() {
                a.secret_id = Some("secret:x".into());
            }
        })
        .unwrap();
        let resolved = crate::event::resolve(&env, &metadata(), &actions()).unwrap();
        assert!(
            matches!(resolved, crate::event::Resolved::Event(_)),
            "{event}"
        );
    }
}

#[test]
fn missing_or_misplaced_context_names_the_flag() {
    let err = |event: &str, flags: fn(&mut RunArgs)| env_for(event, flags).unwrap_err().0;
    assert!(err("secret-changed", |_| {}).contains("--secret-id"));
    assert!(
        err("secret-remove", |a| a.secret_id = Some("secret:x".into()))
            .contains("--secret-revision")
    );
    assert!(
        err("secret-remove", |a| {
            a.secret_id = Some("secret:x".into());
            a.secret_revision = Some("x".into());
        })
        .contains("--secret-revision `x`")
    );
    assert!(err("work-load-pebble-custom-notice", |_| {}).contains("--notice-id"));
    assert!(err("work-load-pebble-check-recovered", |_| {}).contains("--check"));
    assert!(
        err("work-load-pebble-ready", |a| a.container =
            Some("other".into()))
        .contains("--container")
    );
    assert!(
        err("data-storage-attached", |a| a.storage =
            Some("logs/1".into()))
        .contains("--storage")
    );
    assert!(err("install", |a| a.secret_id = Some("secret:x".into())).contains("--secret-id"));
    assert!(
        err("install", |a| a.remote_app_data =
            vec![KeyValue::new("k", "v")])
        .contains("--remote-app-data")
    );
    assert!(err("db-relation-joined", |_| {}).contains("--remote-app"));
    assert!(
        err("db-relation-joined", |a| {
            a.remote_app = Some("pg".into());
            a.relation = Some("db".into());
        })
        .contains("--relation")
    );
}

#[test]
fn a_new_relation_takes_the_next_id_and_departed_needs_a_unit() {
    let (env, state) = env_for("db-relation-joined", |a| a.remote_app = Some("pg".into())).unwrap();
    assert_eq!(env.get("JUJU_RELATION_ID"), Some("db:0"));
    assert_eq!(env.get("JUJU_REMOTE_UNIT"), Some("pg/0"));
    assert_eq!(state.model.relations["db:0"].units, ["pg/0"]);
    let err = env_for("db-relation-departed", |_| {}).unwrap_err();
    assert!(err.0.contains("no `db` relation"), "{err}");
}

#[test]
fn action_params_are_read_as_yaml_nested_and_checked_against_the_schema() {
    let mut charm = charm();
    charm.actions = Actions::parse(
        "backup:\n  params:\n    target: {type: string}\n    compress: {type: boolean, default: true}\n    level: {type: integer}\n    opts: {type: object}\n  required: [target]\n",
        std::path::Path::new("actions.yaml"),
    )
    .unwrap();
    // The flags as the command line parses them, then checked.
    let params = |flags: &[&str]| {
        let param = flags
            .iter()
            .map(|f| crate::offline::run_args::param_flag(f).map_err(UsageError))
            .collect::<Result<Vec<_>, _>>()?;
        let args = RunArgs {
            event: "actions/backup".into(),
            param,
            ..RunArgs::default()
        };
        let run = check_event(&args.event, &charm.metadata, &charm.actions).unwrap();
        action_params(&args, &charm, &run).map(serde_json::Value::Object)
    };
    assert_eq!(
        params(&[
            "target=/srv",
            "level=3",
            "opts.a.b=x",
            "opts.c=",
            "compress=false"
        ])
        .unwrap(),
        serde_json::json!({
            "target": "/srv", "level": 3, "compress": false,
            "opts": {"a": {"b": "x"}, "c": ""},
        })
    );
    assert_eq!(
        params(&["target=s3://bucket/x"]).unwrap(),
        serde_json::json!({"target": "s3://bucket/x", "compress": true})
    );
    let e = params(&["level=3"]).unwrap_err();
    assert_eq!(
        e.0,
        "--param: action `backup`: the parameters: missing properties 'target'"
    );
    let e = params(&["target=/srv", "level=high"]).unwrap_err();
    assert_eq!(
        e.0,
        "--param: action `backup`: parameter `level`: want integer, but got string"
    );
    let e = params(&["target"]).unwrap_err();
    assert_eq!(e.0, "--param takes KEY=VALUE, got `target`");

    // Another event takes no parameters.
    let e = env_for("install", |a| a.param = vec![Param::new("target", "/srv")]).unwrap_err();
    assert_eq!(
        e.0,
        "--param applies to actions (actions/<name>), not to `install`"
    );
}

#[test]
fn a_charm_declaring_containers_runs_on_kubernetes_whatever_the_state_says() {
    let run = check_event("install", &metadata(), &actions()).unwrap();
    let env_of = |charm: &CharmDir| {
        let mut state = SimState::default();
        let env = hook_env(&RunArgs::default(), charm, &run, &mut state, "gw/0").unwrap();
        (
            env.exported("JUJU_MACHINE_ID").map(str::to_string),
            state.model.kubernetes,
        )
    };
    // Juju exports the machine empty on Kubernetes, and never leaves it out.
    assert_eq!(env_of(&charm()), (Some(String::new()), true));
    let mut machine = charm();
    machine.metadata.containers.clear();
    assert_eq!(env_of(&machine), (Some("0".into()), false));
}
