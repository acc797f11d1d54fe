//! What the state file keeps of an event (`commit`) and what it may name
//! (`check_state`).

use super::*;
use crate::offline::secrets::{SimRevision, SimSecret};
use crate::offline::sim::SimRelation;
use crate::offline::tools::tests::{call, tools};
use crate::offline::{bindings, check_state};
use std::path::Path;

const SHARED: &str = "secret:d1ulvkcavc0s73ak2mcg";

fn env(vars: &[(&str, &str)]) -> JujuEnv {
    JujuEnv::from_vars(vars.iter().copied())
}

/// A state with relation `db:1` and a secret `vault` shares.
fn state() -> SimState {
    let mut state = SimState::default();
    state.model.relations.insert(
        "db:1".into(),
        SimRelation {
            app: "pg".into(),
            units: vec!["pg/0".into()],
            ..SimRelation::default()
        },
    );
    state.model.secrets.insert(
        SHARED.into(),
        SimSecret {
            owner: "vault".into(),
            revisions: vec![SimRevision {
                revision: 1,
                content: [("token".to_string(), "t".to_string())].into(),
            }],
            ..SimSecret::default()
        },
    );
    state
}

/// Run `calls` on the sim, then commit as `run` does.
fn hook(failed: bool, calls: &[(&str, &[&str])]) -> SimState {
    let before = state();
    let mut t = tools(before.clone());
    for (tool, args) in calls {
        let out = call(&mut t, tool, args);
        assert_eq!(out.code, 0, "{tool} {args:?}: {}", out.stderr);
    }
    let after = t.state.lock().unwrap().clone();
    commit(&before, after, &env(&[]), failed, t.now)
}

#[test]
fn a_failed_hook_keeps_no_secret_change_but_what_the_controller_recorded() {
    let calls: &[(&str, &[&str])] = &[
        ("secret-add", &["--label", "new", "abc=1"]),
        ("secret-get", &["--label", "mine", SHARED]),
        ("relation-set", &["-r", "db:1", "k=v"]),
    ];
    let failed = hook(true, calls);
    assert_eq!(failed.model.secrets.len(), 1, "the new secret is not kept");
    assert_eq!(failed.model.relations, state().model.relations);
    // Reading a shared secret fixed its revision and label at once.
    assert_eq!(failed.model.secrets[SHARED].tracking, Some(1));
    assert_eq!(failed.model.secrets[SHARED].label.as_deref(), Some("mine"));
    assert_eq!(failed.pending_secrets, Default::default());

    let done = hook(false, calls);
    assert_eq!(done.model.secrets.len(), 2);
    let (_, added) = done
        .model
        .secrets
        .iter()
        .find(|(id, _)| id.as_str() != SHARED)
        .unwrap();
    assert_eq!(added.label.as_deref(), Some("new"));
    assert_eq!(done.pending_secrets, Default::default());
    assert_eq!(done.model.relations["db:1"].local_unit_data["k"], "v");
}

#[test]
fn a_failed_hook_keeps_no_charm_state_and_a_successful_one_keeps_it() {
    let calls: &[(&str, &[&str])] = &[("state-set", &["k=v"])];
    let failed = hook(true, calls);
    assert!(
        failed.model.charm_state.is_empty(),
        "{:?}",
        failed.model.charm_state
    );
    let done = hook(false, calls);
    assert_eq!(
        done.model.charm_state,
        [("k".to_string(), "v".to_string())].into()
    );
}

#[test]
fn a_broken_relation_takes_its_secret_grants_along() {
    let mut after = state();
    after.model.secrets.get_mut(SHARED).unwrap().owner = "application".into();
    after.model.secrets.get_mut(SHARED).unwrap().grants = [
        ("db:1".to_string(), ["pg".to_string()].into()),
        ("db:2".to_string(), ["mysql".to_string()].into()),
    ]
    .into();
    let env = env(&[
        ("JUJU_HOOK_NAME", "db-relation-broken"),
        ("JUJU_RELATION_ID", "db:1"),
    ]);
    let kept = commit(&after.clone(), after.clone(), &env, true, 0);
    assert_eq!(
        kept.model.secrets[SHARED].grants.len(),
        2,
        "not when it failed"
    );
    let done = commit(&after.clone(), after, &env, false, 0);
    assert!(!done.model.relations.contains_key("db:1"));
    assert_eq!(
        done.model.secrets[SHARED].grants,
        [("db:2".to_string(), ["mysql".to_string()].into())].into()
    );
}

#[test]
fn the_state_names_only_bindings_resources_and_secrets_there_can_be() {
    let mut charm = crate::offline::context::tests::charm();
    charm.metadata.extra_bindings = vec!["admin".into()];
    charm.metadata.resources = vec!["image".into()];
    let path = Path::new("/s/state.yaml");
    let mut ok = SimState::default();
    ok.model.networks.insert("db".into(), Default::default());
    ok.model.networks.insert("admin".into(), Default::default());
    ok.model
        .resources
        .insert("image".into(), "image.json".into());
    ok.model.secrets = state().model.secrets;
    check_state(&charm, &ok, path).unwrap();
    assert_eq!(
        bindings(&charm).into_iter().collect::<Vec<_>>(),
        ["admin", "config", "db", "istio-pilot", "my-peer"]
    );

    let refused = |edit: &dyn Fn(&mut SimState)| {
        let mut state = ok.clone();
        edit(&mut state);
        check_state(&charm, &state, path).unwrap_err().0
    };
    assert_eq!(
        refused(&|s| {
            s.model.networks.insert("public".into(), Default::default());
        }),
        "/s/state.yaml: `networks.public`: metadata.yaml has no endpoint or extra binding \
         `public` (bindings: `admin`, `config`, `db`, `istio-pilot`, `my-peer`)"
    );
    assert_eq!(
        refused(&|s| {
            s.model.resources.insert("conf".into(), "c".into());
        }),
        "/s/state.yaml: `resources.conf`: metadata.yaml declares no resource `conf` \
         (resources: `image`)"
    );
    let moved = |s: &mut SimState, key: &str| {
        let secret = s.model.secrets.remove(SHARED).unwrap();
        s.model.secrets.insert(key.into(), secret);
    };
    for bad in [
        "d1ulvkcavc0s73ak2mcg",
        "secret:short",
        "secret://1f2e3d4c-5b6a-4789-8abc-def012345678/d1ulvkcavc0s73ak2mcg",
    ] {
        let e = refused(&|s| moved(s, bad));
        assert!(
            e.starts_with(&format!("/s/state.yaml: `secrets.{bad}`: not a secret id")),
            "{e}"
        );
    }
    assert_eq!(
        refused(&|s| s.model.secrets.get_mut(SHARED).unwrap().owner = "Vault!".into()),
        format!(
            "/s/state.yaml: `secrets.{SHARED}.owner`: `Vault!` is neither `application`, \
             `unit` nor an application name"
        )
    );
    assert_eq!(
        refused(&|s| s.model.secrets.get_mut(SHARED).unwrap().revisions.clear()),
        format!("/s/state.yaml: `secrets.{SHARED}.revisions`: a secret has at least one revision")
    );
}
