//! The harness itself on a real charm (the gateway example): packing once,
//! what it carries between events, and the paths the examples' own tests
//! do not take (a `store: juju` charm, a hook failing before any handler,
//! a refused state); on the test charm `model-echo`, the state keys of
//! storage requests, a cross-model relation and a reboot; and a scripted
//! Pebble notice read back by the event naming it.

use std::path::{Path, PathBuf};
use wasm_charm_testing::{Charm, Error, Event, State, Status};

fn gateway_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gateway")
}

fn gateway() -> Charm {
    Charm::build(gateway_project())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        }
    }
}

#[test]
fn a_project_is_packed_once_per_process() {
    let (a, b) = (gateway(), gateway());
    assert_eq!(a.dir(), b.dir());
    assert_eq!(a.name(), "gateway");
    assert!(a.dir().join("charm.wasm").is_file() && a.dir().join("metadata.yaml").is_file());
    // The component is precompiled by this very engine.
    let cache = a.dir().join(".wasm-charm/cache");
    let artifacts = std::fs::read_dir(&cache)
        .unwrap_or_else(|e| panic!("{}: {e}", cache.display()))
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
        .count();
    assert_eq!(artifacts, 1);
    // Never used here: not left on disk.
    assert!(!a.dir().join("dispatch").exists());
    assert!(!a.dir().with_extension("charm").exists());
    // Where `wasm-charm run <project>` packs it: one guest build for both.
    assert_eq!(
        a.dir(),
        gateway_project()
            .canonicalize()
            .expect("the gateway project")
            .join("target/wasm-charm/gateway")
    );
    let loaded = Charm::load(a.dir());
    assert_eq!(loaded.dir(), a.dir());
}

#[test]
fn a_juju_store_charm_keeps_scopes_and_data_in_the_charm_state() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let copy = dir.path().join("gateway");
    copy_dir(gateway().dir(), &copy);
    let manifest = copy.join("wasm-charm.yaml");
    let text = std::fs::read_to_string(&manifest).expect("wasm-charm.yaml");
    std::fs::write(&manifest, format!("{text}store: juju\n")).expect("wasm-charm.yaml");
    let charm = Charm::load(&copy);
    let state = State::new()
        .leader(false)
        .scope("handler/leader", Status::waiting("set before"))
        .stored("kept", "yes");
    let out = charm.run(&state, Event::install());
    out.assert_ok();
    let saved = out.state();
    assert_eq!(saved.get("scopes"), None, "{saved:?}");
    let charm_state = saved.get("charm-state").expect("Juju's charm state");
    assert!(
        charm_state.get("wasm-charm.store").is_some(),
        "{charm_state}"
    );
    assert_eq!(out.stored("kept"), Some("\"yes\""));
    let history = out.scope_history("handler/leader");
    assert_eq!(history[0].event, "(the test's state)", "{out}");
    // Carried to the next event, and changed there by the state's builder
    // too: the store comes back out of the charm state and goes back in.
    let out = charm.run(
        &saved.leader(true).stored("more", 2),
        Event::leader_elected(),
    );
    assert_eq!(out.scope("handler/leader"), None, "{out}");
    assert_eq!(
        (out.stored("kept"), out.stored("more")),
        (Some("\"yes\""), Some("2"))
    );
}

#[test]
fn a_hook_that_fails_before_its_handlers_changes_nothing() {
    let state = State::new()
        .section("scopes", serde_json::json!({"format": 99, "clock": 0}))
        .file("/srv/kept", "as it was")
        .config("kind", "ingress");
    let out = gateway().run(&state, Event::config_changed());
    out.assert_failed();
    assert!(out.handlers().is_empty());
    assert!(out.failures()[0].contains("scopes"), "{:?}", out.failures());
    assert!(out.to_string().contains("failed before any handler ran"));
    // The operator's config waits for the next run, the files are there.
    assert_eq!(out.state(), state);
    assert_eq!(out.file_text("/srv/kept"), Some("as it was"));
}

#[test]
fn what_run_refuses_is_a_usage_error_naming_it() {
    let refused = |state: &State, event: Event| match gateway().try_run(state, event) {
        Err(Error::Usage(m)) => m,
        other => panic!("not refused: {other:?}"),
    };
    let m = refused(
        &State::new().section("networks", serde_json::json!({"admin": {}})),
        Event::install(),
    );
    assert!(m.contains("`networks.admin`"), "{m}");
    // A section added to the state file after the harness: Pebble's.
    let m = refused(
        &State::new().section_yaml("containers", "web: {can-connect: true}\n"),
        Event::install(),
    );
    assert!(m.contains("`containers.web`"), "{m}");
    let m = refused(&State::new().probe_healthy("nope"), Event::install());
    assert!(m.contains("`probes.nope`"), "{m}");
    let m = refused(&State::new(), Event::action("nope"));
    assert!(m.starts_with("charm gateway, event actions/nope: "), "{m}");
}

#[test]
fn files_and_relations_carry_from_event_to_event() {
    let state = State::new().file("/srv/a", "a");
    let joined = gateway().run(
        &state,
        wasm_charm_testing::Event::relation_joined("istio-pilot").remote_app("pilot"),
    );
    let next = joined.state();
    assert_eq!(next.files().len(), 1);
    let departed = gateway().run(
        &next,
        wasm_charm_testing::Event::relation_broken("istio-pilot"),
    );
    departed.assert_ok();
    // A broken relation goes once the hook succeeded.
    assert!(departed.relation_ids().is_empty(), "{departed}");
    assert_eq!(
        departed.scope("handler/pilot"),
        Some(Status::blocked("Waiting for istio-pilot relation"))
    );
    assert_eq!(departed.file_text("/srv/a"), Some("a"));
}

#[test]
fn a_project_that_cannot_be_packed_is_named_with_the_reason() {
    // A Cargo package of its own, without the metadata.yaml Juju requires:
    // refused before any build (which would print cargo's output here).
    let dir = tempfile::tempdir().expect("a temporary directory");
    let project = dir.path().join("no-metadata");
    std::fs::create_dir_all(project.join("src")).expect("src");
    let manifest = "[package]\nname = \"no-metadata\"\nversion = \"0.1.0\"\n\
                    edition = \"2024\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[workspace]\n";
    std::fs::write(project.join("Cargo.toml"), manifest).expect("Cargo.toml");
    std::fs::write(project.join("src/lib.rs"), "").expect("lib.rs");
    let e = Charm::try_build(&project).unwrap_err();
    let shown = e.to_string();
    assert!(matches!(e, Error::Build(_)), "{e:?}");
    assert!(
        shown.starts_with("cannot pack the charm project ") && shown.contains("no-metadata"),
        "{shown}"
    );
    assert!(shown.contains("metadata.yaml: not found"), "{shown}");
    // Remembered: the next test of the process gets the same answer at once.
    assert_eq!(Charm::try_build(&project).unwrap_err(), e);
}

/// The state keys of `storage-add`, `relation-model-get` and `juju-reboot`,
/// set and read through the harness, on the test charm `model-echo`.
#[test]
fn storage_requests_a_remote_model_and_a_reboot_are_set_and_read() {
    let charm = model_echo();
    let uuid = "5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f";
    let state = State::new()
        .config("calls", "storage-add remote-model reboot")
        .storage("data/0", "filesystem", "/srv/data")
        .relation(wasm_charm_testing::Relation::new("db:1", "pg").remote_model_uuid(uuid));
    let out = charm.run(&state, Event::config_changed());
    out.assert_ok();
    assert!(
        out.logs()
            .iter()
            .any(|l| l.contains(&format!("RemoteModel {{ uuid: \"{uuid}\" }}"))),
        "{out}"
    );
    assert_eq!(out.storage(), ["data/0", "data/1", "data/2"]);
    assert_eq!(out.reboot(), Some("after-hook"));
    let now = charm.run(
        &out.state().config("calls", "storage-add reboot-now"),
        Event::config_changed(),
    );
    now.assert_ok();
    assert_eq!(now.reboot(), Some("now"));
    assert_eq!(
        now.storage(),
        ["data/0", "data/1", "data/2"],
        "nothing kept"
    );
}

/// The test charm that makes the model calls its config option `calls`
/// names (tests/guests/model-echo).
fn model_echo() -> Charm {
    Charm::build(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/guests/model-echo"))
}

#[test]
fn the_secrets_an_event_leaves_are_read_typed() {
    let state = State::new().config("calls", "secret-add secret-add-app");
    let out = model_echo().run(&state, Event::config_changed());
    out.assert_ok();
    let secrets = out.secrets();
    assert_eq!(secrets.len(), 2, "{secrets:?}");
    let unit = out
        .secret("db-pass")
        .expect("the unit's secret, by its label");
    assert_eq!(unit.owner, "unit");
    assert_eq!(unit.revision, 1);
    assert_eq!(
        unit.content.get("password").map(String::as_str),
        Some("s3cret")
    );
    let app = out
        .secret("api-token")
        .expect("the application's, by its label");
    assert_eq!(app.owner, "application");
    assert!(app.id.starts_with("secret:"), "{app:?}");
    assert_eq!(out.secret(&app.id), Some(app));
}

#[test]
fn a_section_edit_merges_into_what_is_there() {
    let state = State::new()
        .pebble_file("web", "/etc/web.conf", "port = 80\n")
        .pebble_service("web", "web", "active")
        .section(
            "containers",
            serde_json::json!({"web": {"checks": {"alive": {"status": "down"}}}}),
        );
    let web = state.get("containers").expect("containers")["web"].clone();
    // The edit of the checks kept the file and the service.
    assert_eq!(web["services"]["web"], "active", "{web}");
    assert!(web["files"].get("/etc/web.conf").is_some(), "{web}");
    assert_eq!(web["checks"]["alive"]["status"], "down", "{web}");
    // A null removes a key; replace_section drops the rest.
    let state = state.section("containers", serde_json::json!({"web": {"services": null}}));
    assert!(
        state.get("containers").expect("containers")["web"]
            .get("services")
            .is_none()
    );
    let state = state.replace_section("containers", serde_json::json!({"db": {}}));
    assert!(
        state
            .get("containers")
            .expect("containers")
            .get("web")
            .is_none()
    );
}

#[test]
fn a_scripted_notice_is_what_a_custom_notice_event_reads_back() {
    let charm =
        Charm::build(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/guests/pebble-calls"));
    let state = State::new()
        .config("calls", "notice-event notices")
        .pebble_notice("web", "example.com/a", &[("k", "v")]);
    let event = Event::pebble_custom_notice("web").notice("1", "example.com/a");
    let out = charm.run(&state, event);
    out.assert_ok();
    assert!(
        out.logged(r#"CALL notice-event Ok(("example.com/a", [("k", "v")]))"#),
        "{:?}",
        out.logs()
    );
    assert!(
        out.logged(r#"CALL notices Ok([("example.com/a", 1, [("k", "v")])])"#),
        "{:?}",
        out.logs()
    );
    // Then the probes' own questions.
    assert_eq!(
        out.pebble_calls("web")[..2],
        ["get-notice 1", "get-notices"]
    );
}
