//! The guest's calls about the unit itself: its config (typed by
//! config.yaml), its leadership, its application version, and a reboot of
//! its machine.

use super::Model;
use super::budget::MAX_APPLICATION_VERSION;
use super::errors::failure;
use super::tool_calls::Caller;
use crate::bindings::model::{ConfigOption, ConfigValue, ModelError};
use crate::charm_dir::{ConfigSchema, ConfigType};
use std::collections::BTreeMap;

/// `juju-reboot`: after the hook, buffered in the running handler's
/// transaction; `now`, sent at once, and the handler stopped when Juju
/// takes it (on a unit Juju kills the process first). `Err`: the trap
/// that stops the handler.
pub(super) fn reboot(m: &mut Model, now: bool) -> wasmtime::Result<Result<(), ModelError>> {
    if m.facts.during_action {
        // Juju's own words: the tool fails the same way in an action.
        return Ok(Err(ModelError::InvalidArgument(
            "juju-reboot is not supported when running an action.".to_string(),
        )));
    }
    if !now {
        m.transaction.request_reboot();
        return Ok(Ok(()));
    }
    if let Err(e) = m.run_as(Caller::Guest, "juju-reboot", &["--now"], None) {
        return Ok(Err(e));
    }
    m.rebooting_now = true;
    Err(wasmtime::Error::msg(
        "stopped at reboot(now): Juju reboots the machine now and runs this event again after the reboot",
    ))
}

pub(super) fn config(m: &mut Model) -> Result<Vec<ConfigOption>, ModelError> {
    if let Some(c) = &m.cache.config {
        return Ok(c.clone());
    }
    let raw: Option<BTreeMap<String, serde_json::Value>> =
        m.json(Caller::Guest, "config-get", &["--format=json"])?;
    let mut options = Vec::new();
    for (name, value) in raw.unwrap_or_default() {
        if let Some(value) = typed_config(&m.facts.schema, &name, value)? {
            options.push(ConfigOption { name, value });
        }
    }
    m.cache.config = Some(options.clone());
    Ok(options)
}

/// An option's value as config.yaml declares it; `None` for null (unset).
fn typed_config(
    schema: &ConfigSchema,
    name: &str,
    value: serde_json::Value,
) -> Result<Option<ConfigValue>, ModelError> {
    use serde_json::Value as J;
    let declared = schema.options.get(name).copied();
    let v = match (declared, value) {
        (_, J::Null) => return Ok(None),
        (Some(ConfigType::String) | None, J::String(s)) => ConfigValue::String(s),
        (Some(ConfigType::Secret), J::String(s)) => ConfigValue::Secret(s),
        (Some(ConfigType::Boolean) | None, J::Bool(b)) => ConfigValue::Boolean(b),
        (Some(ConfigType::Int), J::Number(n)) if n.as_i64().is_some() => {
            ConfigValue::Int(n.as_i64().unwrap_or_default())
        }
        (None, J::Number(n)) if n.as_i64().is_some() => {
            ConfigValue::Int(n.as_i64().unwrap_or_default())
        }
        (Some(ConfigType::Float) | None, J::Number(n)) => {
            ConfigValue::Float(n.as_f64().unwrap_or_default())
        }
        (declared, other) => {
            return Err(failure(
                "config-get",
                0,
                format!(
                    "option `{name}` is declared {} in config.yaml but Juju gave {other}",
                    declared.map_or("untyped".to_string(), |d| format!("{d:?}").to_lowercase())
                ),
            ));
        }
    };
    Ok(Some(v))
}

impl Model {
    /// Whether this unit leads, for the host: as the guest's `is-leader`
    /// (cached for the event) but never counted against the guest's bound.
    pub fn leader(&mut self) -> Result<bool, ModelError> {
        is_leader(self, Caller::Host)
    }
}

/// `is-leader`: a unit that lost the lease stays a follower for the rest of
/// the event, so `false` is kept; while it leads, Juju checks the lease at
/// every call of the charm's, and so does this. The host's own question (at
/// the end of the event, for the application's status) takes the last
/// answer: each call is a process, and `status-set --application` is
/// refused anyway by a unit that lost the lease.
pub(super) fn is_leader(m: &mut Model, caller: Caller) -> Result<bool, ModelError> {
    match (m.cache.leader, caller) {
        (Some(false), _) => return Ok(false),
        (Some(true), Caller::Host) => return Ok(true),
        _ => {}
    }
    let leader: bool = m.json(caller, "is-leader", &["--format=json"])?;
    m.cache.leader = Some(leader);
    Ok(leader)
}

pub(super) fn application_version_set(m: &mut Model, version: String) -> Result<(), ModelError> {
    if version.contains('\0') {
        return Err(ModelError::InvalidArgument(
            "application-version-set: the version contains a NUL character, which Juju cannot carry; remove it".into(),
        ));
    }
    if version.len() > MAX_APPLICATION_VERSION {
        return Err(ModelError::InvalidArgument(format!(
            "application-version-set: the version is {} bytes, over the limit of {MAX_APPLICATION_VERSION} (MAX_APPLICATION_VERSION; juju status shows 15 characters)",
            version.len()
        )));
    }
    m.run_as(
        Caller::Guest,
        "application-version-set",
        &["--", &version],
        None,
    )
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::model::Host;
    use crate::hook_tools::ToolOutput;
    use crate::model::tests::{model, tool_calls};
    use serde_json::json;

    #[test]
    fn values_are_typed_by_config_yaml() {
        let mut schema = ConfigSchema::default();
        schema.options.insert("ratio".into(), ConfigType::Float);
        schema.options.insert("pw".into(), ConfigType::Secret);
        schema.options.insert("port".into(), ConfigType::Int);
        let typed = |name, v| typed_config(&schema, name, v);
        assert_eq!(typed("ratio", json!(1)), Ok(Some(ConfigValue::Float(1.0))));
        assert_eq!(
            typed("pw", json!("secret:x")),
            Ok(Some(ConfigValue::Secret("secret:x".into())))
        );
        assert_eq!(typed("undeclared", json!(2)), Ok(Some(ConfigValue::Int(2))));
        assert_eq!(typed("port", serde_json::Value::Null), Ok(None));
        assert!(matches!(
            typed("port", json!(1.5)),
            Err(ModelError::ToolFailed(_))
        ));
    }

    #[test]
    fn reads_are_cached_for_the_event() {
        let (mut m, calls) = model(&[
            ("is-leader", ToolOutput::ok("true\n")),
            (
                "config-get",
                ToolOutput::ok(r#"{"port": 80, "ratio": 1, "name": "x", "gone": null}"#),
            ),
        ]);
        assert!(m.is_leader().unwrap());
        assert!(m.is_leader().unwrap());
        let config = m.config().unwrap();
        assert_eq!(m.config().unwrap(), config);
        // Typed by config.yaml: an integral JSON number for a float option is a float.
        assert_eq!(
            config,
            vec![
                ConfigOption {
                    name: "name".into(),
                    value: ConfigValue::String("x".into())
                },
                ConfigOption {
                    name: "port".into(),
                    value: ConfigValue::Int(80)
                },
                ConfigOption {
                    name: "ratio".into(),
                    value: ConfigValue::Float(1.0)
                },
            ]
        );
        // is-leader asked at each call while the unit leads.
        assert_eq!(calls.lock().unwrap().len(), 3);
    }

    #[test]
    fn the_hosts_own_question_takes_the_last_answer() {
        let (mut m, calls) = model(&[("is-leader", ToolOutput::ok("true\n"))]);
        assert!(m.leader().unwrap());
        assert!(m.is_leader().unwrap());
        assert!(m.leader().unwrap());
        // The host asked first and last; only the charm's call asked again.
        assert_eq!(calls.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_follower_stays_one_for_the_event() {
        let (mut m, calls) = model(&[("is-leader", ToolOutput::ok("false\n"))]);
        assert!(!m.is_leader().unwrap());
        assert!(!m.is_leader().unwrap());
        assert_eq!(calls.lock().unwrap().len(), 1);
    }

    #[test]
    fn application_version_refuses_what_juju_cannot_carry() {
        let (mut m, calls) = model(&[("application-version-set", ToolOutput::ok(""))]);
        let e = m.application_version_set("1.0\0".into()).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("NUL")),
            "{e:?}"
        );
        let long = "1".repeat(MAX_APPLICATION_VERSION + 1);
        let e = m.application_version_set(long).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(msg) if msg.contains("MAX_APPLICATION_VERSION")),
            "{e:?}"
        );
        m.application_version_set("-1.0".into()).unwrap();
        assert_eq!(
            tool_calls(&calls, "application-version-set"),
            [["--", "-1.0"]]
        );
    }
}
