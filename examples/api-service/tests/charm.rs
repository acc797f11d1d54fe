//! The api-service charm on the host's simulated Juju and machine, through
//! the wasm-charm-testing harness: the package, the configuration file
//! under the workload root, the migration, the services, and pause and
//! resume, with the probes scripted healthy by name.

use wasm_charm_testing::{Charm, Event, Handler, State, Status};

const CONF: &str = "/etc/api-service/api-service.conf";

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

/// A unit whose every probe is scripted healthy: nothing runs on this
/// machine, and a probe not scripted would run for real.
fn healthy() -> State {
    [
        "api-port",
        "api-health",
        "api-service",
        "api-worker",
        "api-scheduler",
        "api-stopped",
        "worker-stopped",
        "scheduler-stopped",
        "port-closed",
    ]
    .into_iter()
    .fold(State::new(), |state, probe| state.probe_healthy(probe))
}

/// The unit after install and start.
fn started() -> State {
    let installed = charm().run(&healthy(), Event::install());
    installed.assert_ok();
    let started = charm().run(&installed.state(), Event::start());
    started.assert_ok();
    started.state()
}

#[test]
fn install_installs_configures_and_migrates_but_starts_nothing() {
    let out = charm().run(&healthy(), Event::install());
    out.assert_ok();
    assert_eq!(
        out.unit_status(),
        Some(Status::waiting(
            "api-service 2024.1 installed; the services start at the start event"
        )),
        "{out}"
    );
    assert_eq!(out.packages(), ["api-service"]);
    assert_eq!(
        out.machine_calls(),
        [
            "dpkg-query -W -f=${Status} -- api-service",
            "apt-get install -y -q -o Dpkg::Options::=--force-confold api-service",
            "api-service-manage db sync",
        ]
    );
    assert_eq!(out.service("api-service"), ("inactive", "disabled"));
    assert_eq!(out.stored_as::<bool>("installed"), Some(true));
    assert_eq!(
        out.stored_as::<String>("migrated-release").as_deref(),
        Some("2024.1")
    );
    assert_eq!(out.stored("started"), None);
    assert_eq!(out.application_version(), Some("2024.1"));
    let conf = out.file_text(CONF).expect("the configuration file");
    assert!(conf.contains("release = 2024.1\n"), "{conf}");
    assert!(conf.contains("debug = false\n") && conf.contains("port = 8774\n"));
    // Written beside and renamed over: nothing else is left.
    assert_eq!(out.files().len(), 1, "{out}");
}

#[test]
fn start_runs_the_release_services_and_the_unit_is_ready() {
    let installed = charm().run(&healthy(), Event::install()).state();
    let out = charm().run(&installed, Event::start());
    assert_eq!(
        out.unit_status(),
        Some(Status::active("Unit is ready")),
        "{out}"
    );
    for unit in ["api-service", "api-worker"] {
        assert_eq!(out.service(unit), ("active", "enabled"), "{out}");
        assert!(
            out.machine_calls()
                .contains(&format!("systemctl start -- {unit}"))
        );
    }
    // 2024.1 runs no scheduler; the migration ran once, at install.
    assert_eq!(out.service("api-scheduler"), ("inactive", "disabled"));
    assert!(!out.machine_calls().iter().any(|c| c.contains("db sync")));
    assert_eq!(out.stored_as::<bool>("started"), Some(true));
    // The release's probes gate readiness now, and were all checked.
    assert_eq!(
        out.gating(),
        ["api-health", "api-port", "api-service", "api-worker"]
    );
    assert!(matches!(out.probe("api-port"), Some((true, _))), "{out}");
}

#[test]
fn an_unhealthy_probe_shows_its_detail_until_it_recovers() {
    let state = started().probe_unhealthy("api-health", "GET /healthcheck: 503");
    let out = charm().run(&state, Event::update_status());
    // Within the grace period that the start began.
    assert_eq!(
        out.unit_status(),
        Some(Status::maintenance("GET /healthcheck: 503")),
        "{out}"
    );
    assert!(out.handlers().is_empty());
    let out = charm().run(
        &out.state().probe_healthy("api-health"),
        Event::update_status(),
    );
    assert_eq!(
        out.unit_status(),
        Some(Status::active("Unit is ready")),
        "{out}"
    );
}

#[test]
fn only_a_changed_file_restarts_the_services() {
    let state = started();
    let same = charm().run(&state, Event::config_changed());
    same.assert_ok();
    assert!(
        !same.machine_calls().iter().any(|c| c.contains("restart")),
        "{same}"
    );
    assert!(!same.logged("wrote /etc/api-service"));
    let debug = charm().run(&state.config("debug", true), Event::config_changed());
    assert!(
        debug
            .file_text(CONF)
            .is_some_and(|c| c.contains("debug = true\n"))
    );
    for unit in ["api-service", "api-worker"] {
        assert!(
            debug
                .machine_calls()
                .contains(&format!("systemctl restart -- {unit}")),
            "{debug}"
        );
    }
}

#[test]
fn a_new_release_migrates_and_starts_its_scheduler() {
    let out = charm().run(
        &started().config("release", "2024.2"),
        Event::config_changed(),
    );
    out.assert_ok();
    assert!(
        out.machine_calls()
            .contains(&"api-service-manage db sync".to_string()),
        "{out}"
    );
    assert_eq!(
        out.stored_as::<String>("migrated-release").as_deref(),
        Some("2024.2")
    );
    assert_eq!(out.service("api-scheduler"), ("active", "enabled"));
    assert!(out.gating().contains(&"api-scheduler"), "{out}");
    assert_eq!(out.application_version(), Some("2024.2"));
    assert_eq!(out.unit_status(), Some(Status::active("Unit is ready")));
}

#[test]
fn a_failed_migration_blocks_with_its_last_words_and_starts_nothing() {
    let state = healthy().command(
        "db-sync",
        1,
        "",
        "Traceback …\nOperationalError: database is locked\n",
    );
    let installed = charm().run(&state, Event::install());
    installed.assert_ok();
    assert_eq!(
        installed.scope("handler/workload"),
        Some(Status::blocked(
            "db-sync failed for release 2024.1 (exit 1): OperationalError: database is locked"
        )),
        "{installed}"
    );
    assert_eq!(installed.stored("migrated-release"), None);
    assert!(installed.logged("OperationalError: database is locked"));
    // It runs again at the next event, and still fails: nothing starts.
    let start = charm().run(&installed.state(), Event::start());
    assert_eq!(start.service("api-service").0, "inactive", "{start}");
    assert!(
        start
            .machine_calls()
            .contains(&"api-service-manage db sync".to_string())
    );
    // A timed-out migration says so.
    let slow = charm().run(&healthy().command_timed_out("db-sync"), Event::install());
    assert!(
        slow.scope("handler/workload")
            .is_some_and(|s| s.message.contains("(timed out)")),
        "{slow}"
    );
}

#[test]
fn a_config_the_charm_cannot_use_blocks_and_gates_nothing() {
    let out = charm().run(
        &started().config("release", "2023.2"),
        Event::config_changed(),
    );
    assert_eq!(
        out.scope("handler/workload"),
        Some(Status::blocked(
            "Config item `release`: unknown release \"2023.2\" (known: 2024.1, 2024.2)"
        )),
        "{out}"
    );
    assert_eq!(
        out.unit_status().map(|s| s.kind),
        Some(wasm_charm_testing::StatusKind::Blocked)
    );
    // Which processes should run is unknown: no probe gates.
    assert!(out.gating().is_empty(), "{out}");
    let out = charm().run(&started().config("port", 0), Event::config_changed());
    assert_eq!(
        out.scope("handler/workload"),
        Some(Status::blocked(
            "Config item `port`: 0 is not a port (1 to 65535)"
        ))
    );
}

#[test]
fn pause_stops_everything_and_resume_brings_it_back() {
    let paused = charm().run(&started(), Event::action("pause"));
    paused.assert_ok();
    assert_eq!(paused.action_failed(), None, "{paused}");
    for unit in ["api-service", "api-worker", "api-scheduler"] {
        assert_eq!(paused.service(unit), ("inactive", "disabled"), "{paused}");
    }
    let message = "Unit is paused; run the resume action";
    assert_eq!(paused.scope("paused"), Some(Status::active(message)));
    assert_eq!(paused.unit_status(), Some(Status::active(message)));
    assert!(paused.logged("paused: gating on port-closed, api-stopped, worker-stopped"));
    assert_eq!(
        paused.gating(),
        ["api-stopped", "port-closed", "worker-stopped"]
    );

    // A paused unit keeps its file up to date, and starts nothing.
    let changed = charm().run(
        &paused.state().config("debug", true),
        Event::config_changed(),
    );
    assert!(
        changed
            .file_text(CONF)
            .is_some_and(|c| c.contains("debug = true"))
    );
    assert!(
        !changed.machine_calls().iter().any(|c| c.contains("start")),
        "{changed}"
    );
    assert_eq!(changed.unit_status(), Some(Status::active(message)));

    let resumed = charm().run(&changed.state(), Event::action("resume"));
    assert_eq!(resumed.action_failed(), None, "{resumed}");
    assert_eq!(resumed.scope("paused"), None);
    assert_eq!(resumed.service("api-service"), ("active", "enabled"));
    assert_eq!(resumed.unit_status(), Some(Status::active("Unit is ready")));
    assert_eq!(
        resumed.gating(),
        ["api-health", "api-port", "api-service", "api-worker"]
    );
}

#[test]
fn resume_with_an_unusable_config_fails_the_action_and_stays_paused() {
    let paused = charm().run(&started(), Event::action("pause")).state();
    let out = charm().run(&paused.config("release", ""), Event::action("resume"));
    // A failed action is no failed hook.
    out.assert_ok();
    assert_eq!(
        out.action_failed(),
        Some("cannot resume: Config item `release` must be set (one of 2024.1, 2024.2)"),
        "{out}"
    );
    assert!(matches!(out.handler("resume"), Some(Handler::Error(_))));
    assert_eq!(out.service("api-service"), ("inactive", "disabled"));
    assert!(out.scope("paused").is_some());
}

#[test]
fn stop_stops_and_disables_the_services() {
    let out = charm().run(&started(), Event::stop());
    assert_eq!(
        out.scope("handler/stop"),
        Some(Status::maintenance(
            "api-service stopped: the unit is being removed"
        )),
        "{out}"
    );
    assert_eq!(out.service("api-worker"), ("inactive", "disabled"));
    assert_eq!(out.stored_as::<bool>("started"), Some(false));
}

#[test]
fn a_file_already_right_is_left_alone() {
    // The file the charm would write, there before install.
    let first = charm().run(&healthy(), Event::install());
    let conf = first.file(CONF).expect("written").to_vec();
    let out = charm().run(&healthy().file(CONF, &conf), Event::install());
    assert!(!out.logged("wrote /etc/api-service"), "{out}");
    assert_eq!(out.file(CONF), Some(conf.as_slice()));
}

#[test]
fn a_hook_that_fails_commits_nothing() {
    // A scope store written by a later host: this one refuses to use it,
    // and the hook fails before any handler runs.
    let state = started()
        .section("scopes", serde_json::json!({"format": 99, "clock": 0}))
        .config("debug", true);
    let out = charm().run(&state, Event::config_changed());
    out.assert_failed();
    assert!(out.handlers().is_empty(), "{out}");
    assert!(out.failures().iter().any(|f| f.contains("scopes")), "{out}");
    // Nothing changed: the file, the machine, the statuses and the store
    // are as they were, and the operator's config waits for the next run.
    assert!(out.machine_calls().is_empty());
    let conf = started().files()[std::path::Path::new(CONF)].clone();
    assert_eq!(out.file(CONF), Some(conf.as_slice()));
    let next = out.state();
    assert_eq!(out.service("api-service"), ("active", "enabled"));
    assert_eq!(out.packages(), ["api-service"]);
    for section in ["status", "scopes", "config", "application-version"] {
        assert_eq!(next.get(section), state.get(section), "{section}");
    }
    assert_eq!(out.unit_status(), Some(Status::active("Unit is ready")));
    assert!(!out.unit_status_set());
}

#[test]
fn past_its_grace_period_an_unhealthy_probe_blocks() {
    use std::time::{Duration, SystemTime};
    // Every event on one clock the test moves: the start begins the API's
    // 120 s grace period.
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let installed = charm().run(&healthy(), Event::install().at(t0));
    let started = charm().run(&installed.state(), Event::start().at(t0));
    assert_eq!(
        started.unit_status(),
        Some(Status::active("Unit is ready")),
        "{started}"
    );
    let down = started
        .state()
        .probe_unhealthy("api-port", "port 127.0.0.1:8774 not listening");
    let within = charm().run(
        &down,
        Event::update_status().at(t0 + Duration::from_secs(60)),
    );
    assert_eq!(
        within.unit_status(),
        Some(Status::maintenance("port 127.0.0.1:8774 not listening")),
        "{within}"
    );
    let past = charm().run(
        &within.state(),
        Event::update_status().at(t0 + Duration::from_secs(200)),
    );
    assert_eq!(
        past.unit_status(),
        Some(Status::blocked("port 127.0.0.1:8774 not listening")),
        "{past}"
    );
    assert_eq!(
        past.probe("api-port"),
        Some((false, "port 127.0.0.1:8774 not listening"))
    );
}
