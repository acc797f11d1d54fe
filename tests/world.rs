//! The offline model: many applications and units, each event a real
//! `dispatch` process, driven through `wasm-charm juju` as a person or
//! jubilant drives `juju`. Each test has its own models directory.

use crate::support::packed;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A models directory of the test's own, and `juju` over it.
pub struct Juju {
    pub home: tempfile::TempDir,
    pub seed: Option<u64>,
}

impl Juju {
    pub fn new() -> Juju {
        Juju {
            home: tempfile::tempdir().expect("a temporary directory"),
            seed: None,
        }
    }

    pub fn run(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wasm-charm"));
        cmd.arg("juju")
            .args(args)
            .env("WASM_CHARM_JUJU_HOME", self.home.path())
            .env_remove("WASM_CHARM_ROOT")
            .env_remove("JUJU_MODEL")
            .stdin(Stdio::null());
        match self.seed {
            Some(s) => cmd.env("WASM_CHARM_SEED", s.to_string()),
            None => cmd.env_remove("WASM_CHARM_SEED"),
        };
        cmd.output().expect("run wasm-charm juju")
    }

    /// Run `args`, which must succeed; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "juju {}: {}\n--- stderr\n{}\n--- stdout\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn status(&self) -> Value {
        serde_json::from_str(&self.ok(&["status", "--format", "json"])).expect("status is JSON")
    }

    fn model_file(&self, model: &str) -> PathBuf {
        self.home
            .path()
            .join("models")
            .join(model)
            .join("model.json")
    }

    /// The model's saved state.
    pub fn model(&self, model: &str) -> Value {
        let text = std::fs::read_to_string(self.model_file(model)).expect("model.json");
        serde_json::from_str(&text).expect("model.json is JSON")
    }

    /// Every hook the model ran, in order: its `history.jsonl`, which
    /// model.json accounts for.
    pub fn history(&self, model: &str) -> Vec<Value> {
        let path = self.model_file(model).with_file_name("history.jsonl");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let kept = self.model(model)["appended"]["history-bytes"]
            .as_u64()
            .unwrap_or(0);
        text[..usize::try_from(kept).expect("a length")]
            .lines()
            .map(|l| serde_json::from_str(l).expect("a history line is JSON"))
            .collect()
    }

    /// The events `unit` ran, in order, each `hook` or `hook (remote)`.
    pub fn events(&self, model: &str, unit: &str) -> Vec<String> {
        self.history(model)
            .iter()
            .filter(|r| r["unit"] == unit)
            .map(|r| {
                let e = &r["event"];
                let hook = e["hook"].as_str().unwrap_or_default().to_string();
                match (e["remote-unit"].as_str(), e["remote-app"].as_str()) {
                    (Some(u), _) if !hook.ends_with("-created") && !hook.ends_with("-broken") => {
                        format!("{hook} ({u})")
                    }
                    (None, Some(a)) if hook.ends_with("-relation-changed") => {
                        format!("{hook} ({a})")
                    }
                    _ => hook,
                }
            })
            .collect()
    }
}

fn workload(status: &Value, app: &str, unit: &str) -> (String, String) {
    let w = &status["applications"][app]["units"][unit]["workload-status"];
    (
        w["current"].as_str().unwrap_or_default().to_string(),
        w["message"].as_str().unwrap_or_default().to_string(),
    )
}

fn echo_charm() -> PathBuf {
    packed("tests/guests/model-echo")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn deploy_runs_jujus_setup_on_every_unit_and_peers_see_each_other_join() {
    let juju = Juju::new();
    juju.ok(&["add-model", "dev"]);
    let charm = echo_charm();
    juju.ok(&["deploy", path_str(&charm), "echo", "-n", "2"]);
    let leader = juju.events("dev", "echo/0");
    assert_eq!(
        leader[..7],
        [
            "data-storage-attached",
            "install",
            "peer-relation-created",
            "leader-elected",
            "config-changed",
            "start",
            "workload-pebble-ready",
        ],
        "{leader:?}"
    );
    let other = juju.events("dev", "echo/1");
    assert_eq!(other[3], "leader-settings-changed", "{other:?}");
    for (unit, remote) in [("echo/0", "echo/1"), ("echo/1", "echo/0")] {
        let events = juju.events("dev", unit);
        let joined = events
            .iter()
            .position(|e| *e == format!("peer-relation-joined ({remote})"));
        let changed = events
            .iter()
            .position(|e| *e == format!("peer-relation-changed ({remote})"));
        assert!(joined.is_some() && changed > joined, "{unit}: {events:?}");
    }
    let status = juju.status();
    assert_eq!(
        status["model"]["type"], "caas",
        "a charm with containers is a Kubernetes charm"
    );
    assert_eq!(
        status["applications"]["echo"]["units"]["echo/0"]["leader"],
        true
    );
    assert_eq!(
        status["applications"]["echo"]["units"]["echo/1"]["juju-status"]["current"],
        "idle"
    );
    let _ = workload(&status, "echo", "echo/0");
}

/// The ops requirer's charm directory, in `dir`: its files, and the ops
/// peer's venv (ops from PyPI) linked in.
fn ops_client(dir: &Path) -> PathBuf {
    let venv = crate::support::ops_peer_charm().join("venv");
    let charm = dir.join("ops-db-client");
    crate::support::copy_charm(
        &crate::support::workspace_root().join("tests/ops-db-client"),
        &charm,
    )
    .expect("copy the ops charm");
    std::os::unix::fs::symlink(&venv, charm.join("venv")).expect("link the venv");
    charm
}

fn pos(events: &[String], wanted: &str) -> usize {
    events
        .iter()
        .position(|e| e == wanted)
        .unwrap_or_else(|| panic!("no `{wanted}` in {events:?}"))
}

/// `app`'s bag on the relation between `app:endpoint` and `other`.
fn app_bag(model: &Value, app: &str, endpoint: &str, other: &str) -> Value {
    model["relations"]
        .as_object()
        .expect("relations")
        .values()
        .find(|r| {
            let ends = r["ends"].as_array().expect("ends");
            ends.iter()
                .any(|e| e["app"] == app && e["endpoint"] == endpoint)
                && ends.iter().any(|e| e["app"] == other)
        })
        .map(|r| r["app-data"][app].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn a_provider_two_requirers_one_on_ops_scaled_led_anew_and_taken_apart() {
    let juju = Juju::new();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let (db, app, ops) = (
        packed("examples/db-provider"),
        packed("examples/db-client"),
        ops_client(tmp.path()),
    );
    juju.ok(&["add-model", "story"]);
    juju.ok(&["deploy", path_str(&db), "db"]);
    juju.ok(&["deploy", path_str(&app), "app"]);
    juju.ok(&["deploy", path_str(&ops), "ops"]);
    juju.ok(&["integrate", "app", "db"]);
    juju.ok(&["integrate", "ops:database", "db:database"]);
    both_requirers_connect(&juju);
    scaled_to_three(&juju);
    the_leader_goes(&juju);
    a_new_password(&juju);
    the_ops_side_leaves(&juju);
}

/// Events `unit` ran after the first `skip`.
fn events_since(juju: &Juju, unit: &str, skip: usize) -> Vec<String> {
    juju.events("story", unit).split_off(skip)
}

fn scaled_to_three(juju: &Juju) {
    let seen = juju.events("story", "app/0").len();
    juju.ok(&["add-unit", "db", "-n", "2"]);
    // The leader answers both requirers with every unit's address, which it
    // learns from its peers; each requirer reconnects to all three.
    let three = "10.0.0.10:5432,10.0.0.13:5432,10.0.0.14:5432";
    let model = juju.model("story");
    for client in ["app", "ops"] {
        assert_eq!(
            app_bag(&model, "db", "database", client)["endpoints"],
            three,
            "{client}"
        );
    }
    let status = juju.status();
    assert_eq!(
        workload(&status, "app", "app/0").1,
        format!("connected to {three} as relation_1")
    );
    assert_eq!(
        workload(&status, "ops", "ops/0").1,
        format!("connected to {three} as relation_2")
    );
    assert_eq!(workload(&status, "db", "db/2").1, "replica");
    // A new unit: install, then relation-created for each relation its
    // application is in (the peer one first), leader-settings-changed as a
    // non-leader, config-changed, start; then it joins its peers and the
    // requirers' units.
    let new = juju.events("story", "db/2");
    assert_eq!(
        new[..7],
        [
            "install",
            "cluster-relation-created",
            "database-relation-created",
            "database-relation-created",
            "leader-settings-changed",
            "config-changed",
            "start",
        ],
        "{new:?}"
    );
    for joined in [
        "cluster-relation-joined (db/0)",
        "cluster-relation-joined (db/1)",
    ] {
        assert!(pos(&new, joined) > 6, "{new:?}");
    }
    // The requirer sees both new units join, each followed by its
    // relation-changed, and the leader's new endpoints.
    let app = events_since(juju, "app/0", seen);
    for unit in ["db/1", "db/2"] {
        let joined = pos(&app, &format!("database-relation-joined ({unit})"));
        let changed = pos(&app, &format!("database-relation-changed ({unit})"));
        assert!(joined < changed, "{app:?}");
    }
    assert!(
        app.contains(&"database-relation-changed (db)".to_string()),
        "{app:?}"
    );
}

fn the_leader_goes(juju: &Juju) {
    let seen: Vec<usize> = ["app/0", "db/1", "db/2", "ops/0"]
        .iter()
        .map(|u| juju.events("story", u).len())
        .collect();
    juju.ok(&["remove-unit", "db/0"]);
    let status = juju.status();
    assert_eq!(
        status["applications"]["db"]["units"]["db/1"]["leader"],
        true
    );
    assert!(status["applications"]["db"]["units"].get("db/0").is_none());
    // The unit going departs every relation, sees each broken, stops and
    // is removed; the others see it depart; db/1 is elected.
    let gone = juju.events("story", "db/0");
    assert_eq!(gone[gone.len() - 2..], ["stop", "remove"], "{gone:?}");
    let broken = gone
        .iter()
        .filter(|e| e.ends_with("-relation-broken"))
        .count();
    assert_eq!(broken, 3, "{gone:?}");
    let leader = events_since(juju, "db/1", seen[1]);
    assert!(leader.contains(&"leader-elected".to_string()), "{leader:?}");
    assert!(
        pos(&leader, "cluster-relation-departed (db/0)") < pos(&leader, "leader-elected"),
        "{leader:?}"
    );
    for (unit, skip) in [("app/0", seen[0]), ("ops/0", seen[3])] {
        let events = events_since(juju, unit, skip);
        assert_eq!(
            events[0], "database-relation-departed (db/0)",
            "{unit}: {events:?}"
        );
    }
    // The new leader still finds the users by their labels: both requirers
    // stay connected, now to the two units left.
    let two = "10.0.0.13:5432,10.0.0.14:5432";
    assert_eq!(
        workload(&status, "app", "app/0"),
        ("active".into(), format!("connected to {two} as relation_1"))
    );
    assert_eq!(
        workload(&status, "ops", "ops/0"),
        ("active".into(), format!("connected to {two} as relation_2"))
    );
    assert_eq!(workload(&status, "db", "db/1").1, "serving 2 databases");
}

fn a_new_password(juju: &Juju) {
    let seen = juju.events("story", "app/0").len();
    let out: Value =
        serde_json::from_str(&juju.ok(&["run", "db/1", "rotate-password", "--format", "json"]))
            .expect("run's JSON");
    assert_eq!(out["db/1"]["status"], "completed", "{out}");
    assert_eq!(out["db/1"]["results"]["rotated"], "2", "{out}");
    // Each consumer hears of the new revision; once it has read it, the
    // owner is told the old one is tracked by nobody.
    let app = events_since(juju, "app/0", seen);
    assert_eq!(app, ["secret-changed"], "{app:?}");
    let owner = juju.events("story", "db/1");
    assert_eq!(
        owner[owner.len() - 2..],
        ["secret-remove", "secret-remove"],
        "{owner:?}"
    );
    // The new password reached the workload's configuration (never the log).
    let password = juju
        .home
        .path()
        .join("models/story/units/app-0/root/etc/db-client/password");
    assert_eq!(
        std::fs::read_to_string(&password).ok().as_deref(),
        Some("pw-db-1-1"),
        "{}",
        password.display()
    );
    let log = juju.ok(&["debug-log", "--replay", "--include", "app/0"]);
    assert!(
        log.contains("credentials relation_1, configuration written"),
        "{log}"
    );
    assert!(!log.contains("pw-db-1-1"), "{log}");
}

fn the_ops_side_leaves(juju: &Juju) {
    let seen = juju.events("story", "db/2").len();
    juju.ok(&["remove-relation", "ops", "db"]);
    let status = juju.status();
    assert_eq!(workload(&status, "ops", "ops/0").0, "blocked");
    let ops = juju.events("story", "ops/0");
    assert_eq!(
        ops.last().map(String::as_str),
        Some("database-relation-broken")
    );
    let db = events_since(juju, "db/2", seen);
    assert_eq!(
        db,
        [
            "database-relation-departed (ops/0)",
            "database-relation-broken"
        ],
        "{db:?}"
    );
    assert_eq!(workload(&status, "db", "db/1").1, "serving 1 database");
    assert_eq!(
        workload(&status, "app", "app/0").0,
        "active",
        "the other requirer keeps its database"
    );
}

fn both_requirers_connect(juju: &Juju) {
    // Both requirers connected, each with the user of its own relation.
    let status = juju.status();
    let one = "10.0.0.10:5432";
    let (s, m) = workload(&status, "app", "app/0");
    assert_eq!(
        (s.as_str(), m.as_str()),
        (
            "active",
            format!("connected to {one} as relation_1").as_str()
        )
    );
    let (s, m) = workload(&status, "ops", "ops/0");
    assert_eq!(
        (s.as_str(), m.as_str()),
        (
            "active",
            format!("connected to {one} as relation_2").as_str()
        )
    );
    let model = juju.model("story");
    assert_eq!(app_bag(&model, "ops", "database", "db")["database"], "ops");
    assert_eq!(app_bag(&model, "db", "database", "ops")["endpoints"], one);
    let events = juju.events("story", "app/0");
    let created = pos(&events, "database-relation-created");
    let joined = pos(&events, "database-relation-joined (db/0)");
    let changed = pos(&events, "database-relation-changed (db/0)");
    let answered = pos(&events, "database-relation-changed (db)");
    assert!(
        created < joined && joined < changed && changed < answered,
        "{events:?}"
    );
}

#[test]
fn two_charms_answering_each_other_forever_are_stopped_with_the_cycle_named() {
    let juju = Juju::new();
    let charm = packed("tests/guests/ping-pong");
    juju.ok(&["add-model", "loop"]);
    juju.ok(&["deploy", path_str(&charm), "a"]);
    juju.ok(&["deploy", path_str(&charm), "b"]);
    let out = juju.run(&["integrate", "a:ping", "b:pong"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ERROR the model did not settle after")
            && err.contains("a/0 ping-relation-changed → b/0 pong-relation-changed → a/0 …"),
        "{err}"
    );
    // With a limit, the same pair settles.
    let juju = Juju::new();
    juju.ok(&["add-model", "bounded"]);
    juju.ok(&["deploy", path_str(&charm), "a", "--config", "limit=5"]);
    juju.ok(&["deploy", path_str(&charm), "b", "--config", "limit=5"]);
    juju.ok(&["integrate", "a:ping", "b:pong"]);
    let model = juju.model("bounded");
    let bags: Vec<&Value> = model["relations"]
        .as_object()
        .expect("relations")
        .values()
        .map(|r| &r["app-data"])
        .collect();
    assert_eq!(bags.len(), 1);
    assert!(
        bags[0]["a"]["count"] == "5" || bags[0]["b"]["count"] == "5",
        "{bags:?}"
    );
}

#[test]
fn a_seed_finds_an_order_that_fails_a_charm_and_replays_it_exactly() {
    let charm = packed("tests/guests/ping-pong");
    let story = |seed: Option<u64>| {
        let mut juju = Juju::new();
        juju.seed = seed;
        juju.ok(&["add-model", "order"]);
        juju.ok(&[
            "deploy",
            path_str(&charm),
            "a",
            "-n",
            "2",
            "--config",
            "limit=1",
        ]);
        juju.ok(&[
            "deploy",
            path_str(&charm),
            "b",
            "-n",
            "2",
            "--config",
            "limit=1",
            "--config",
            "strict=true",
        ]);
        let out = juju.run(&["integrate", "a:ping", "b:pong"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let status = juju.status();
        let failed = ["b/0", "b/1"]
            .iter()
            .any(|u| workload(&status, "b", u).0 == "error");
        (failed, Value::Array(juju.history("order")), stderr)
    };
    let (in_turn, _, _) = story(None);
    assert!(
        !in_turn,
        "in turn, the remote leader writes before the units' changes reach b"
    );
    let failing = (0..16)
        .find(|s| story(Some(*s)).0)
        .expect("some order of the first 16 seeds runs b's change before a's count");
    let (first, history, stderr) = story(Some(failing));
    assert!(first);
    assert!(stderr.contains(&format!("(seed {failing})")), "{stderr}");
    let (again, replayed, _) = story(Some(failing));
    assert!(again);
    assert_eq!(
        history, replayed,
        "the same seed runs the same events in the same order"
    );
}

/// jubilant (PyPI, pinned in scripts/setup-python), unchanged, drives the
/// story through `juju` on PATH: this wasm-charm linked under that name
/// (tests/jubilant/test_story.py).
#[test]
fn jubilant_drives_the_model_through_juju_as_it_drives_a_controller() {
    let (db, app) = (packed("examples/db-provider"), packed("examples/db-client"));
    let bin = tempfile::tempdir().expect("a temporary directory");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_wasm-charm"), bin.path().join("juju"))
        .expect("link juju");
    let home = tempfile::tempdir().expect("a temporary directory");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (passed, text) = crate::python::pytest_with(
        &["tests/jubilant"],
        &[
            ("PATH", path.as_ref()),
            ("WASM_CHARM_JUJU_HOME", home.path().as_os_str()),
            ("WASM_CHARM_DB_PROVIDER", db.as_os_str()),
            ("WASM_CHARM_DB_CLIENT", app.as_os_str()),
        ],
    );
    assert!(passed, "{text}");
    assert!(text.contains("4 passed"), "{text}");
    // temp_model destroyed its model on the way out.
    let models = home.path().join("models");
    let left = std::fs::read_dir(&models)
        .map(|d| d.filter_map(Result::ok).count())
        .unwrap_or(0);
    assert_eq!(left, 0, "models left in {}", models.display());
}

/// A charm of one shell `dispatch` in `dir`, named `name`.
fn shell_charm(dir: &Path, name: &str, script: &str) {
    crate::support::shell_charm(
        dir,
        &format!("name: {name}\nsummary: s\ndescription: d\n"),
        &format!("#!/bin/sh\n{script}"),
    );
}

/// The commands an operator mends a model with: `models` and `switch`,
/// `resolve` of a failed hook, and `exec` in a unit's context.
#[test]
fn resolve_retries_the_failed_hook_and_exec_runs_in_the_units_context() {
    let juju = Juju::new();
    let charm = tempfile::tempdir().expect("a temporary directory");
    let fixed = charm.path().join("fixed");
    // install fails until the operator has fixed what it needs.
    shell_charm(
        charm.path(),
        "flaky",
        &format!(
            "[ \"$JUJU_DISPATCH_PATH\" != hooks/install ] || [ -e {} ] || exit 1\n",
            fixed.display()
        ),
    );
    juju.ok(&["add-model", "other"]);
    juju.ok(&["add-model", "dev"]);
    models_and_switch(&juju);
    juju.ok(&["deploy", path_str(charm.path()), "flaky"]);
    let status = juju.status();
    let unit = &status["applications"]["flaky"]["units"]["flaky/0"];
    assert_eq!(unit["workload-status"]["current"], "error", "{unit}");
    assert_eq!(juju.events("dev", "flaky/0"), ["install"]);

    // Juju's `resolve` retries the hook; the queue behind it then runs.
    std::fs::write(&fixed, "").expect("fix it");
    juju.ok(&["resolve", "flaky/0"]);
    let events = juju.events("dev", "flaky/0");
    assert_eq!(events[..2], ["install", "install"], "{events:?}");
    assert!(events.contains(&"start".to_string()), "{events:?}");
    let status = juju.status();
    let unit = &status["applications"]["flaky"]["units"]["flaky/0"];
    assert_ne!(unit["workload-status"]["current"], "error", "{unit}");
    let refused = juju.run(&["resolve", "flaky/0"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "ERROR unit \"flaky/0\" is not in an error state\n"
    );

    exec_runs_in_the_units_context(&juju);
}

/// `models` and `switch`, as jubilant and a person read them, and `-o`.
fn models_and_switch(juju: &Juju) {
    let models: Value =
        serde_json::from_str(&juju.ok(&["models", "--format", "json"])).expect("models' JSON");
    assert_eq!(models["current-model"], "dev", "{models}");
    let names: Vec<&str> = models["models"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|m| m["short-name"].as_str())
        .collect();
    assert_eq!(names, ["dev", "other"], "{models}");
    let switched = juju.run(&["switch", "other"]);
    assert!(switched.status.success(), "{switched:?}");
    assert_eq!(
        String::from_utf8_lossy(&switched.stderr),
        "wasm-charm:admin/dev -> wasm-charm:admin/other\n"
    );
    juju.ok(&["switch", "wasm-charm:admin/dev"]);
    assert_eq!(juju.ok(&["switch"]), "wasm-charm:admin/dev\n");
    // `-o FILE` is Juju's output file, not a format.
    let file = juju.home.path().join("models.json");
    let path = file.to_str().expect("a UTF-8 path");
    assert_eq!(juju.ok(&["models", "--format", "json", "-o", path]), "");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the output file"))
            .expect("JSON in the output file");
    assert_eq!(written["current-model"], "dev", "{written}");
}

fn exec_runs_in_the_units_context(juju: &Juju) {
    // exec: bash in the unit's hook context, no hook named, its tools on
    // PATH, its output printed as Juju prints one unit's.
    let out = juju.ok(&[
        "exec",
        "--unit",
        "flaky/leader",
        "--",
        "echo path=${JUJU_DISPATCH_PATH-none} unit=$JUJU_UNIT_NAME; is-leader; status-set active from-exec",
    ]);
    assert_eq!(out, "path=none unit=flaky/0\nTrue\n");
    let status = juju.status();
    let unit = &status["applications"]["flaky"]["units"]["flaky/0"];
    assert_eq!(unit["workload-status"]["message"], "from-exec", "{unit}");

    // Commands that exit non-zero fail the task, yet their writes are
    // flushed, as the uniter flushes an exec's context.
    let failed = juju.run(&[
        "exec",
        "--format",
        "json",
        "--unit",
        "flaky/0",
        "--",
        "state-set k=v; echo oops >&2; exit 3",
    ]);
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.starts_with("ERROR the following task failed:\n id \"")
            && stderr.contains("with return code 3"),
        "{stderr}"
    );
    let shown: Value = serde_json::from_slice(&failed.stdout).expect("exec's JSON");
    let task = &shown["flaky/0"];
    assert_eq!(task["status"], "failed", "{shown}");
    assert_eq!(task["results"]["return-code"], 3, "{shown}");
    assert_eq!(task["results"]["stderr"], "oops\n", "{shown}");
    assert_eq!(task["unit"], "flaky/0", "{shown}");
    let out = juju.ok(&["exec", "--unit", "flaky/0", "--", "state-get", "k"]);
    assert_eq!(out, "v\n");
    let gone = juju.run(&["remove-unit", "flaky/7"]);
    assert_eq!(gone.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&gone.stderr),
        "ERROR removing unit flaky/7 failed: unit \"flaky/7\" not found\n"
    );
    let none = juju.run(&["exec", "--unit", "nope/0", "--", "true"]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&none.stderr),
        "ERROR unit \"nope/0\" not found\n"
    );
}

/// A charm whose hook never ends does not stall the model: past the
/// deadline its dispatch is killed with every process it started, and the
/// unit is in error as after any failed hook.
#[test]
fn a_hook_that_never_ends_is_killed_at_its_deadline_and_fails() {
    let juju = Juju::new();
    let charm = tempfile::tempdir().expect("a temporary directory");
    let dir = charm.path();
    let pidfile = dir.join("sleeper.pid");
    shell_charm(
        dir,
        "hang",
        &format!(
            "[ \"$JUJU_DISPATCH_PATH\" = hooks/install ] || exit 0\nsleep 1000 &\necho $! > {}\nwait\n",
            pidfile.display()
        ),
    );
    juju.ok(&["add-model", "dev"]);
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .args(["juju", "deploy", path_str(dir), "hang"])
        .env("WASM_CHARM_JUJU_HOME", juju.home.path())
        .env("WASM_CHARM_HOOK_DEADLINE", "1")
        .env_remove("JUJU_MODEL")
        .stdin(Stdio::null())
        .output()
        .expect("run juju deploy");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("did not finish within 1 s (WASM_CHARM_HOOK_DEADLINE)"),
        "{stderr}"
    );
    let status = juju.status();
    let unit = &status["applications"]["hang"]["units"]["hang/0"];
    assert_eq!(unit["workload-status"]["current"], "error", "{unit}");
    assert_eq!(
        unit["workload-status"]["message"], "hook failed: \"install\"",
        "{unit}"
    );
    // The process the hook started went with it.
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .expect("the sleeper's pid")
        .trim()
        .parse()
        .expect("a pid");
    // Gone, or a zombie its new parent has yet to reap: not running.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(") ").next().and_then(|r| r.chars().next());
    assert!(
        matches!(state, None | Some('Z' | 'X')),
        "the sleeper {pid} is still running: {stat}"
    );
}

/// Time passes when a command says so (`advance`): update-status every
/// `update-status-hook-interval`, secret-rotate on the owner's leader at
/// the rotation, secret-expired at the expiry, each retried as Juju
/// retries them.
#[test]
fn advance_runs_update_status_rotations_and_expiries_at_their_time() {
    let juju = Juju::new();
    let charm = tempfile::tempdir().expect("a temporary directory");
    // The leader adds a secret rotating hourly and expiring in two hours;
    // its first rotation writes a revision, later ones do not; an expired
    // revision is removed the second time it is named.
    shell_charm(
        charm.path(),
        "rot",
        "juju-log \"$JUJU_DISPATCH_PATH rev=${JUJU_SECRET_REVISION-none}\"\n\
         case \"$JUJU_DISPATCH_PATH\" in\n\
         hooks/leader-elected) secret-add --label pw --rotate hourly --expire 2h password=one >/dev/null ;;\n\
         hooks/secret-rotate) [ \"$(state-get rotated)\" ] || { secret-set \"$JUJU_SECRET_ID\" password=two; state-set rotated=1; } ;;\n\
         hooks/secret-expired) if [ \"$(state-get expired)\" ]; then secret-remove \"$JUJU_SECRET_ID\" --revision \"$JUJU_SECRET_REVISION\"; else state-set expired=1; fi ;;\n\
         esac\n",
    );
    juju.ok(&["add-model", "dev"]);
    model_config_sets_the_interval_as_juju_checks_it(&juju);
    juju.ok(&["deploy", path_str(charm.path()), "rot", "-n", "2"]);
    let secret = |juju: &Juju| {
        let model = juju.model("dev");
        let (uri, s) = model["secrets"]
            .as_object()
            .and_then(|m| m.iter().next())
            .map(|(k, v)| (k.clone(), v.clone()))
            .expect("the leader's secret");
        (uri, s)
    };
    let (uri, s) = secret(&juju);
    let due = |s: &Value, key: &str| s[key].as_str().map(str::to_string);
    let first_rotation = due(&s, "rotates").expect("a rotation time");
    let seen = |juju: &Juju, unit: &str| juju.events("dev", unit).len();
    let (before0, before1) = (seen(&juju, "rot/0"), seen(&juju, "rot/1"));

    // An hour: the rotation (a new revision) and one tick, on the leader;
    // the tick alone on the other unit.
    juju.ok(&["advance", "1h"]);
    let ran0 = juju.events("dev", "rot/0")[before0..].to_vec();
    assert_eq!(ran0, ["secret-rotate", "update-status"], "{ran0:?}");
    assert_eq!(juju.events("dev", "rot/1")[before1..], ["update-status"]);
    let (_, s) = secret(&juju);
    assert_eq!(s["revisions"].as_array().map(Vec::len), Some(2), "{s}");
    let next = due(&s, "rotates").expect("the next rotation");
    assert!(next > first_rotation, "{next} after {first_rotation}");
    let log = juju.ok(&["debug-log", "--include", "rot/0"]);
    assert!(log.contains("hooks/secret-rotate rev=none"), "{log}");

    retried_and_removed(&juju, &uri);
}

/// The second hour of [`advance_runs_update_status_rotations_and_expiries_at_their_time`].
fn retried_and_removed(juju: &Juju, uri: &str) {
    let start = juju.model("dev")["clock"].as_u64().expect("the clock");
    // Another hour: the rotation writes nothing, so it comes back five
    // minutes on; the expiry (two hours after the secret) names revision 2,
    // which is kept, so it too comes back five minutes later; the second
    // time it is removed.
    let before0 = juju.events("dev", "rot/0").len();
    juju.ok(&["advance", "1h10m"]);
    let ran0: Vec<Value> = juju
        .history("dev")
        .into_iter()
        .filter(|r| r["unit"] == "rot/0")
        .skip(before0)
        .collect();
    let hooks: Vec<&str> = ran0
        .iter()
        .filter_map(|r| r["event"]["hook"].as_str())
        .collect();
    let rotations = hooks.iter().filter(|h| **h == "secret-rotate").count();
    let expiries: Vec<&Value> = ran0
        .iter()
        .filter(|r| r["event"]["hook"] == "secret-expired")
        .collect();
    assert!(rotations >= 3, "retried every five minutes: {hooks:?}");
    assert_eq!(expiries.len(), 2, "{hooks:?}");
    assert!(
        expiries
            .iter()
            .all(|r| r["event"]["secret-revision"] == 2 && r["event"]["secret"] == uri)
    );
    let log = juju.ok(&["debug-log", "--include", "rot/0"]);
    assert!(log.contains("hooks/secret-expired rev=2"), "{log}");
    let s = &juju.model("dev")["secrets"][uri];
    assert_eq!(s["revisions"].as_array().map(Vec::len), Some(1), "{s}");
    assert!(
        s.get("expiry").is_none() && s.get("expire-retry").is_none(),
        "{s}"
    );
    let now = juju.model("dev")["clock"].as_u64().expect("the clock");
    assert!(now >= start + 4200, "{now} vs {start}");

    // Fifty days at 60m is more ticks than one command runs: refused whole.
    let refused = juju.run(&["advance", "1200h"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "ERROR advancing 1200h0m0s runs 1200 update-status hooks on every unit, more than the \
         1000 one command runs: advance less at a time, or set a longer \
         update-status-hook-interval (at most 60m) with `juju model-config`\n"
    );
    assert_eq!(
        juju.model("dev")["clock"].as_u64(),
        Some(now),
        "nothing ran"
    );
    let bad = juju.run(&["advance", "soon"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `juju model-config` of the one key the model simulates, checked as
/// Juju's model config checks it; jubilant's `model_config()` reads it.
fn model_config_sets_the_interval_as_juju_checks_it(juju: &Juju) {
    let shown: Value = serde_json::from_str(&juju.ok(&["model-config", "--format", "json"]))
        .expect("model-config's JSON");
    assert_eq!(
        shown["update-status-hook-interval"],
        serde_json::json!({"Value": "5m", "Source": "default"})
    );
    let refused = juju.run(&["model-config", "update-status-hook-interval=10s"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "ERROR update status hook frequency 10s cannot be less than 1m\n"
    );
    let other = juju.run(&["model-config", "logging-config=<root>=DEBUG"]);
    assert_eq!(other.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&other.stderr)
            .contains("\"logging-config\" is not a model config key the offline model simulates")
    );
    juju.ok(&["model-config", "update-status-hook-interval=60m"]);
    assert_eq!(
        juju.ok(&["model-config", "update-status-hook-interval"]),
        "60m\n"
    );
}

/// Every bag any charm writes is checked against the interface its
/// metadata names: an ops requirer that writes `requested-secrets` as a
/// comma list (data_interfaces writes a JSON list) is reported with its
/// unit, hook, relation and field, on the command's stderr, in its
/// history and in `debug-log`; the write is kept, as Juju keeps it.
#[test]
fn an_ops_charms_write_that_does_not_fit_its_interface_is_reported() {
    let juju = Juju::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let client = ops_client(dir.path());
    let charm_py = client.join("src/charm.py");
    let text = std::fs::read_to_string(&charm_py).expect("charm.py");
    let wrong = text.replace(
        "event.relation.data[self.app][\"database\"] = \"ops\"",
        "event.relation.data[self.app][\"database\"] = \"ops\"\n            \
         event.relation.data[self.app][\"requested-secrets\"] = \"username,password\"",
    );
    assert_ne!(
        wrong, text,
        "the charm's request is where the test expects it"
    );
    std::fs::write(&charm_py, wrong).expect("write charm.py");
    juju.ok(&["add-model", "dev"]);
    juju.ok(&["deploy", path_str(&packed("examples/db-provider")), "db"]);
    juju.ok(&["deploy", path_str(&client), "ops"]);
    let out = juju.run(&["integrate", "ops", "db"]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = "ops/0 wrote database:1 in database-relation-created, which does not fit \
                    postgresql_client v0 (requirer's application bag): requested-secrets: is not \
                    JSON text (expected value at line 1 column 1): \"username,password\"";
    assert!(
        stderr.contains(&format!("WARNING {expected}\n")),
        "{stderr}"
    );
    let reported: Vec<Value> = juju
        .history("dev")
        .into_iter()
        .filter(|r| r.get("violations").is_some())
        .collect();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0]["violations"][0], expected);
    let log = juju.ok(&["debug-log", "--include", "ops/0", "--level", "WARNING"]);
    assert!(log.contains(expected), "{log}");
    // Kept: the provider still sees the request, as it would on Juju.
    let model = juju.model("dev");
    assert_eq!(
        app_bag(&model, "ops", "database", "db")["requested-secrets"],
        "username,password"
    );
}
