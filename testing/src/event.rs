//! The event a test runs: what `wasm-charm run`'s `--event` and context
//! flags say, as a value.

use serde_json::{Map, Value, json};
use std::time::SystemTime;

/// One constructor per event that concerns no entity, named as the SDK's
/// `On::…` names it.
macro_rules! hook_events {
    ($($f:ident => $hook:literal;)+) => {
        $(
            #[doc = concat!("`", $hook, "`, as the SDK's `On::", stringify!($f), "()` observes it.")]
            pub fn $f() -> Event {
                Event::named($hook)
            }
        )+
    };
}

/// One constructor per event of an entity (a relation endpoint, a storage,
/// a container): `<entity>-<event>`, as Juju names the hook.
macro_rules! entity_events {
    ($($f:ident => $suffix:literal, $what:literal;)+) => {
        $(
            #[doc = concat!("`<", $what, ">-", $suffix, "` of `", $what, "`, as the SDK's `On::", stringify!($f), "(…)` observes it.")]
            pub fn $f(entity: &str) -> Event {
                Event::named(format!("{entity}-{}", $suffix))
            }
        )+
    };
}

/// One event to run, with the context Juju gives it: the same choices as
/// `wasm-charm run`'s flags, checked by the host against the charm when it
/// runs (an event the charm cannot receive, a flag its kind does not take,
/// a parameter actions.yaml does not allow: each is an [`Error::Usage`]
/// naming what is wrong).
///
/// Events are built as the SDK observes them (`Event::config_changed()`
/// for `On::config_changed()`, `Event::relation_joined("db")` for
/// `On::relation_joined("db")`, `Event::action("backup")`); the builder
/// methods add the context.
///
/// ```
/// use wasm_charm_testing::Event;
///
/// let joined = Event::relation_joined("db")
///     .remote_app("postgresql")
///     .remote_unit_data("password", "s3cret");
/// assert_eq!(joined.name(), "db-relation-joined");
///
/// let backup = Event::action("backup").param("target", "/srv").param("level", 9);
/// assert_eq!(backup.name(), "actions/backup");
/// ```
///
/// [`Error::Usage`]: crate::Error::Usage
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Event {
    name: String,
    relation: Option<String>,
    remote_app: Option<String>,
    remote_unit: Option<String>,
    remote_app_data: Vec<(String, String)>,
    remote_unit_data: Vec<(String, String)>,
    storage: Option<String>,
    container: Option<String>,
    notice_id: Option<String>,
    notice_type: Option<String>,
    notice_key: Option<String>,
    check: Option<String>,
    secret_id: Option<String>,
    secret_label: Option<String>,
    secret_revision: Option<String>,
    params: Vec<(String, Value)>,
    now: Option<SystemTime>,
}

impl Event {
    /// The event Juju names `name` (a hook, or `actions/<name>`).
    fn named(name: impl Into<String>) -> Event {
        Event {
            name: name.into(),
            ..Event::default()
        }
    }

    hook_events! {
        install => "install";
        start => "start";
        stop => "stop";
        remove => "remove";
        upgrade_charm => "upgrade-charm";
        config_changed => "config-changed";
        update_status => "update-status";
        leader_elected => "leader-elected";
        leader_settings_changed => "leader-settings-changed";
        pre_series_upgrade => "pre-series-upgrade";
        post_series_upgrade => "post-series-upgrade";
        collect_metrics => "collect-metrics";
        secret_changed => "secret-changed";
        secret_rotate => "secret-rotate";
        secret_remove => "secret-remove";
        secret_expired => "secret-expired";
    }

    entity_events! {
        relation_created => "relation-created", "relation endpoint";
        relation_joined => "relation-joined", "relation endpoint";
        relation_changed => "relation-changed", "relation endpoint";
        relation_departed => "relation-departed", "relation endpoint";
        relation_broken => "relation-broken", "relation endpoint";
        storage_attached => "storage-attached", "storage";
        storage_detaching => "storage-detaching", "storage";
        pebble_ready => "pebble-ready", "container";
        pebble_custom_notice => "pebble-custom-notice", "container";
        pebble_check_failed => "pebble-check-failed", "container";
        pebble_check_recovered => "pebble-check-recovered", "container";
    }

    /// The action `name` (`actions/<name>`).
    pub fn action(name: &str) -> Event {
        Event::named(format!("actions/{name}"))
    }

    /// The event's name as `wasm-charm run --event` takes it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The relation of a relation event (`db:1`); created/joined/changed
    /// events create it when the state has none. Default: the endpoint's
    /// only relation.
    pub fn relation(mut self, id: impl Into<String>) -> Event {
        self.relation = Some(id.into());
        self
    }

    /// The remote application of a relation the event creates.
    pub fn remote_app(mut self, app: impl Into<String>) -> Event {
        self.remote_app = Some(app.into());
        self
    }

    /// The remote unit of a relation event (for departed: the unit leaving).
    pub fn remote_unit(mut self, unit: impl Into<String>) -> Event {
        self.remote_unit = Some(unit.into());
        self
    }

    /// Set a key of the remote application's databag before the event, as
    /// the remote application would; an empty value deletes the key.
    pub fn remote_app_data(mut self, key: impl Into<String>, value: impl Into<String>) -> Event {
        self.remote_app_data.push((key.into(), value.into()));
        self
    }

    /// Set a key of the remote unit's databag before the event; an empty
    /// value deletes the key.
    pub fn remote_unit_data(mut self, key: impl Into<String>, value: impl Into<String>) -> Event {
        self.remote_unit_data.push((key.into(), value.into()));
        self
    }

    /// The storage instance of a storage event (`data/1`). Default:
    /// `<storage>/0`.
    pub fn storage(mut self, id: impl Into<String>) -> Event {
        self.storage = Some(id.into());
        self
    }

    /// The container of a Pebble event (it must match the hook's).
    pub fn container(mut self, name: impl Into<String>) -> Event {
        self.container = Some(name.into());
        self
    }

    /// The notice of a `pebble-custom-notice` event: its id and key.
    pub fn notice(mut self, id: impl Into<String>, key: impl Into<String>) -> Event {
        self.notice_id = Some(id.into());
        self.notice_key = Some(key.into());
        self
    }

    /// The notice's type. Default: `custom`.
    pub fn notice_type(mut self, kind: impl Into<String>) -> Event {
        self.notice_type = Some(kind.into());
        self
    }

    /// The check of a `pebble-check-failed` or `-recovered` event.
    pub fn check(mut self, name: impl Into<String>) -> Event {
        self.check = Some(name.into());
        self
    }

    /// The secret of a secret event (`secret:…`).
    pub fn secret(mut self, id: impl Into<String>) -> Event {
        self.secret_id = Some(id.into());
        self
    }

    /// The secret's label.
    pub fn secret_label(mut self, label: impl Into<String>) -> Event {
        self.secret_label = Some(label.into());
        self
    }

    /// The revision of a `secret-remove` or `secret-expired` event.
    pub fn secret_revision(mut self, revision: u32) -> Event {
        self.secret_revision = Some(revision.to_string());
        self
    }

    /// An action parameter; checked against actions.yaml at the run, with
    /// its defaults filled in, as Juju does. A dotted key nests
    /// (`opts.level`).
    pub fn param(mut self, key: impl Into<String>, value: impl Into<Value>) -> Event {
        self.params.push((key.into(), value.into()));
        self
    }

    /// Run the event at `time` instead of the system clock's now: the time
    /// of the scopes' history, secret expiry and the probes' grace periods
    /// (a probe's back-off then moves this clock on instead of sleeping).
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use wasm_charm_testing::Event;
    ///
    /// let later = SystemTime::now() + Duration::from_secs(600);
    /// let event = Event::update_status().at(later);
    /// assert_eq!(event.time(), Some(later));
    /// ```
    pub fn at(mut self, time: SystemTime) -> Event {
        self.now = Some(time);
        self
    }

    /// The time [`Event::at`] set.
    pub fn time(&self) -> Option<SystemTime> {
        self.now
    }

    /// The event as the protocol's `run` takes it: the same choices as
    /// `wasm-charm run`'s flags, typed, with the operator's `config`.
    pub(crate) fn to_json(&self, config: &[(String, String)]) -> Value {
        let pairs = |pairs: &[(String, String)]| -> Map<String, Value> {
            pairs.iter().map(|(k, v)| (k.clone(), json!(v))).collect()
        };
        let mut event = Map::new();
        event.insert("name".into(), json!(self.name));
        let optional = [
            ("relation", &self.relation),
            ("remote-app", &self.remote_app),
            ("remote-unit", &self.remote_unit),
            ("storage", &self.storage),
            ("container", &self.container),
            ("notice-id", &self.notice_id),
            ("notice-type", &self.notice_type),
            ("notice-key", &self.notice_key),
            ("check", &self.check),
            ("secret-id", &self.secret_id),
            ("secret-label", &self.secret_label),
            ("secret-revision", &self.secret_revision),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                event.insert(key.into(), json!(value));
            }
        }
        event.insert(
            "remote-app-data".into(),
            Value::Object(pairs(&self.remote_app_data)),
        );
        event.insert(
            "remote-unit-data".into(),
            Value::Object(pairs(&self.remote_unit_data)),
        );
        let params: Map<String, Value> = self.params.iter().cloned().collect();
        event.insert("params".into(), Value::Object(params));
        event.insert("config".into(), Value::Object(pairs(config)));
        if let Some(now) = self.now {
            event.insert("time".into(), json!(now));
        }
        Value::Object(event)
    }
}

impl From<&Event> for Event {
    fn from(event: &Event) -> Event {
        event.clone()
    }
}

/// 0.1.0's events by hook name, kept working for one release. A trait's
/// use cannot carry `#[deprecated]`, so the conversion says it once per
/// name on stderr (shown with a failing test's output), naming the
/// constructor to use: a typo in a string is only found when the test runs.
impl From<&str> for Event {
    fn from(name: &str) -> Event {
        warn_string_event(name);
        Event::named(name)
    }
}

impl From<String> for Event {
    fn from(name: String) -> Event {
        warn_string_event(&name);
        Event::named(name)
    }
}

impl Event {
    /// An event by its hook name (`install`, `db-relation-joined`).
    ///
    /// ```
    /// use wasm_charm_testing::Event;
    ///
    /// assert_eq!(Event::relation_joined("db"), Event::relation_joined("db"));
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use the event's constructor, as `On::` observes it: `Event::install()`, `Event::relation_joined(\"db\")`, `Event::action(\"backup\")`"
    )]
    pub fn new(name: impl Into<String>) -> Event {
        Event::named(name)
    }
}

fn warn_string_event(name: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if !said.iter().any(|n| n == name) {
        said.push(name.to_string());
        eprintln!(
            "wasm-charm-testing: warning: the event {name:?} given as a string is deprecated \
             since 0.2.0: use {}",
            constructor_for(name)
        );
    }
}

/// The constructor that makes the event of hook `name`. Pure.
fn constructor_for(name: &str) -> String {
    const ENTITY: &[(&str, &str)] = &[
        ("-relation-created", "relation_created"),
        ("-relation-joined", "relation_joined"),
        ("-relation-changed", "relation_changed"),
        ("-relation-departed", "relation_departed"),
        ("-relation-broken", "relation_broken"),
        ("-storage-attached", "storage_attached"),
        ("-storage-detaching", "storage_detaching"),
        ("-pebble-ready", "pebble_ready"),
        ("-pebble-custom-notice", "pebble_custom_notice"),
        ("-pebble-check-failed", "pebble_check_failed"),
        ("-pebble-check-recovered", "pebble_check_recovered"),
    ];
    if let Some(action) = name.strip_prefix("actions/") {
        return format!("`Event::action({action:?})`");
    }
    for (suffix, f) in ENTITY {
        if let Some(entity) = name.strip_suffix(suffix) {
            return format!("`Event::{f}({entity:?})`");
        }
    }
    format!("`Event::{}()`", name.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_name_is_told_the_constructor_of_its_event() {
        assert_eq!(constructor_for("install"), "`Event::install()`");
        assert_eq!(constructor_for("upgrade-charm"), "`Event::upgrade_charm()`");
        assert_eq!(
            constructor_for("db-relation-joined"),
            "`Event::relation_joined(\"db\")`"
        );
        assert_eq!(
            constructor_for("web-pebble-ready"),
            "`Event::pebble_ready(\"web\")`"
        );
        assert_eq!(
            constructor_for("actions/backup"),
            "`Event::action(\"backup\")`"
        );
        #[allow(deprecated)]
        let old = Event::new("install");
        assert_eq!(old, Event::install());
        assert_eq!(
            Event::from("db-relation-joined"),
            Event::relation_joined("db")
        );
    }

    #[test]
    fn every_choice_becomes_the_field_run_takes() {
        let event = Event::relation_changed("db")
            .relation("db:3")
            .remote_app("pg")
            .remote_unit("pg/1")
            .remote_app_data("host", "10.0.0.1")
            .remote_unit_data("gone", "")
            .storage("data/1")
            .secret("secret:x")
            .secret_label("l")
            .secret_revision(4)
            .to_json(&[("kind".into(), "ingress".into())]);
        assert_eq!(
            event,
            json!({
                "name": "db-relation-changed", "relation": "db:3", "remote-app": "pg",
                "remote-unit": "pg/1", "remote-app-data": {"host": "10.0.0.1"},
                "remote-unit-data": {"gone": ""}, "storage": "data/1",
                "secret-id": "secret:x", "secret-label": "l", "secret-revision": "4",
                "params": {}, "config": {"kind": "ingress"},
            })
        );
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7);
        assert_eq!(
            Event::start().at(at).to_json(&[])["time"],
            json!({"secs_since_epoch": 7, "nanos_since_epoch": 0})
        );
    }

    #[test]
    fn params_keep_their_type() {
        let event = Event::action("backup")
            .param("target", "/srv")
            .param("level", 9)
            .param("compress", false)
            .param("id", "3")
            .param("databases", serde_json::json!(["a", "b"]))
            .to_json(&[]);
        assert_eq!(event["name"], "actions/backup");
        assert_eq!(
            event["params"],
            json!({"target": "/srv", "level": 9, "compress": false, "id": "3", "databases": ["a", "b"]})
        );
    }

    #[test]
    fn pebble_context() {
        let event = Event::pebble_custom_notice("web")
            .container("web")
            .notice("7", "example.com/a")
            .notice_type("custom")
            .to_json(&[]);
        assert_eq!(event["container"], "web");
        assert_eq!(event["notice-id"], "7");
        assert_eq!(event["notice-key"], "example.com/a");
        assert_eq!(event["notice-type"], "custom");
        let event = Event::pebble_check_failed("web")
            .check("alive")
            .to_json(&[]);
        assert_eq!(event["check"], "alive");
    }
}
