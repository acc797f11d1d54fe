//! A model of many applications and units, run by the installed
//! `wasm-charm` over the harness protocol's `juju` and `model` requests:
//! every event of every unit a real `dispatch` process, in Juju's order.

use crate::charm::Charm;
use crate::error::Error;
use crate::server::call;
use crate::status::Status;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// A `juju` command's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// An offline model of the test's own (a models directory that goes with
/// the value), named `test`.
///
/// ```no_run
/// use wasm_charm_testing::{Charm, Model};
///
/// let db = Charm::build("../db-provider");
/// let app = Charm::build(env!("CARGO_MANIFEST_DIR"));
/// let model = Model::new();
/// model.deploy(&db, "db", 1);
/// model.deploy(&app, "app", 3);
/// model.juju_ok(&["integrate", "app", "db"]);
/// let now = model.read();
/// assert!(now.unit_status("app/2").is_some());
/// ```
pub struct Model {
    home: tempfile::TempDir,
    seed: Option<u64>,
}

impl Default for Model {
    fn default() -> Self {
        Model::new()
    }
}

impl Model {
    /// A new empty model; units run in turn, in unit order.
    pub fn new() -> Model {
        Model::try_new(None).unwrap_or_else(|e| panic!("cannot make a model: {e}"))
    }

    /// A new empty model whose units run in an order drawn from `seed`.
    pub fn seeded(seed: u64) -> Model {
        Model::try_new(Some(seed)).unwrap_or_else(|e| panic!("cannot make a model: {e}"))
    }

    fn try_new(seed: Option<u64>) -> Result<Model, Error> {
        let home =
            tempfile::tempdir().map_err(|e| Error::Io(format!("a temporary directory: {e}")))?;
        let model = Model { home, seed };
        let added = model.juju(&["add-model", "test"])?;
        if added.code != 0 {
            return Err(Error::Io(added.stderr));
        }
        Ok(model)
    }

    /// The models' directory (`WASM_CHARM_JUJU_HOME` for `wasm-charm juju`).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Run a `juju` command on the model.
    pub fn juju(&self, args: &[&str]) -> Result<Answer, Error> {
        let r = call(json!({
            "op": "juju",
            "home": self.home.path(),
            "args": args,
            "seed": self.seed,
        }))?;
        Ok(Answer {
            code: r["code"].as_u64().unwrap_or(1) as u8,
            stdout: r["stdout"].as_str().unwrap_or_default().to_string(),
            stderr: r["stderr"].as_str().unwrap_or_default().to_string(),
        })
    }

    /// Run a `juju` command that must succeed; its stdout. Panics with its
    /// stderr otherwise.
    pub fn juju_ok(&self, args: &[&str]) -> String {
        match self.juju(args) {
            Ok(a) if a.code == 0 => a.stdout,
            Ok(a) => panic!("juju {}: exit {}\n{}", args.join(" "), a.code, a.stderr),
            Err(e) => panic!("juju {}: {e}", args.join(" ")),
        }
    }

    /// `juju deploy <charm> <app> -n <units>`, settled.
    pub fn deploy(&self, charm: &Charm, app: &str, units: u32) {
        let dir = charm.dir().display().to_string();
        self.juju_ok(&["deploy", &dir, app, "-n", &units.to_string()]);
    }

    /// Let `by` pass on the model's clock (a Go duration: `5m`, `1h30m`):
    /// the update-status ticks, secret rotations and expiries due on the
    /// way run at their time, and the model settles. Panics with the
    /// command's error when it is refused.
    ///
    /// ```no_run
    /// use wasm_charm_testing::{Charm, Model};
    ///
    /// let model = Model::new();
    /// model.deploy(&Charm::build(env!("CARGO_MANIFEST_DIR")), "app", 1);
    /// model.juju_ok(&["model-config", "update-status-hook-interval=60m"]);
    /// model.advance("1h");
    /// assert!(model.read().events("app/0").contains(&"update-status".to_string()));
    /// ```
    pub fn advance(&self, by: &str) {
        self.juju_ok(&["advance", by]);
    }

    /// The model as it stands.
    pub fn read(&self) -> ModelState {
        let v = call(json!({ "op": "model", "home": self.home.path(), "model": "test" }))
            .unwrap_or_else(|e| panic!("cannot read the model: {e}"));
        ModelState(v)
    }
}

/// A model read at one moment: every unit's statuses, scopes, bags, the
/// events it ran and its log.
pub struct ModelState(pub Value);

fn status_of(v: &Value) -> Option<Status> {
    let kind = v.get("status")?.as_str()?;
    let message = v.get("message").and_then(Value::as_str).unwrap_or_default();
    crate::reply::status_named(kind, message)
}

impl ModelState {
    fn unit(&self, unit: &str) -> Option<&Value> {
        let (app, n) = unit.rsplit_once('/')?;
        self.0["apps"][app]["units"].get(n)
    }

    /// The units of `app`, by number.
    pub fn units(&self, app: &str) -> Vec<String> {
        self.0["apps"][app]["units"]
            .as_object()
            .map(|u| {
                u.values()
                    .filter_map(|x| x["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The unit leading `app`.
    pub fn leader(&self, app: &str) -> Option<String> {
        self.0["apps"][app]["leader"].as_str().map(str::to_string)
    }

    /// What the unit's charm last set with `status-set`.
    pub fn unit_status(&self, unit: &str) -> Option<Status> {
        status_of(&self.unit(unit)?["state"]["status"]["unit"])
    }

    /// The hook that failed, when the unit is in error.
    pub fn error(&self, unit: &str) -> Option<String> {
        self.unit(unit)?["error"]["message"]
            .as_str()
            .map(str::to_string)
    }

    /// What the leader of `app` set with `status-set --application`.
    pub fn app_status(&self, app: &str) -> Option<Status> {
        status_of(&self.0["apps"][app]["status"])
    }

    /// The unit's scope `name` (`handler/pilot`), as its store keeps it.
    pub fn scope(&self, unit: &str, name: &str) -> Option<Status> {
        status_of(&self.0["stores"][unit]["unit"][name]["current"])
    }

    /// The events `unit` ran, in order: `hook`, or `hook (remote)` for a
    /// relation event about a remote unit or application.
    pub fn events(&self, unit: &str) -> Vec<String> {
        self.0["history"]
            .as_array()
            .map(|h| {
                h.iter()
                    .filter(|r| r["unit"] == unit)
                    .map(|r| event_label(&r["event"]))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn relation(&self, app: &str, endpoint: &str) -> Option<&Value> {
        self.0["relations"].as_object()?.values().find(|r| {
            r["ends"].as_array().is_some_and(|ends| {
                ends.iter()
                    .any(|e| e["app"] == app && e["endpoint"] == endpoint)
            })
        })
    }

    /// `app`'s bag on its relation of `endpoint`.
    pub fn app_data(&self, app: &str, endpoint: &str) -> BTreeMap<String, String> {
        bag(self.relation(app, endpoint).map(|r| &r["app-data"][app]))
    }

    /// `unit`'s bag on its application's relation of `endpoint`.
    pub fn unit_data(&self, unit: &str, endpoint: &str) -> BTreeMap<String, String> {
        let app = unit.split('/').next().unwrap_or(unit);
        bag(self.relation(app, endpoint).map(|r| &r["unit-data"][unit]))
    }

    /// The unit's log lines, every hook's, in order.
    pub fn log(&self, unit: &str) -> Vec<String> {
        self.0["log"]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter(|x| x["unit"] == unit)
                    .filter_map(|x| x["line"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The latest content of the secret `uri`.
    pub fn secret(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let revs = self.0["secrets"][uri]["revisions"].as_array()?;
        let latest = revs.iter().max_by_key(|r| r["revision"].as_u64())?;
        Some(bag(Some(&latest["content"])))
    }
}

fn bag(v: Option<&Value>) -> BTreeMap<String, String> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn event_label(e: &Value) -> String {
    let hook = e["hook"].as_str().unwrap_or_default().to_string();
    let created_or_broken =
        hook.ends_with("-relation-created") || hook.ends_with("-relation-broken");
    match (e["remote-unit"].as_str(), e["remote-app"].as_str()) {
        (Some(u), _) if !created_or_broken => format!("{hook} ({u})"),
        (None, Some(a)) if hook.ends_with("-relation-changed") => format!("{hook} ({a})"),
        _ => hook,
    }
}
