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

    /// The events `unit` ran, in order, each `hook` or `hook (remote)`.
    pub fn events(&self, model: &str, unit: &str) -> Vec<String> {
        self.model(model)["history"]
            .as_array()
            .expect("a history")
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
