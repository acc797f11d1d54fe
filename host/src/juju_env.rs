//! The hook environment Juju gives `dispatch` (reference juju-protocol.md §1.4),
//! read once into typed fields. Pure: built from any list of variables, so the
//! offline path and tests construct it without touching the process environment.

use crate::bindings::model::JujuContext;
use std::collections::BTreeMap;

/// The variables of one hook or action run that the host uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JujuEnv {
    vars: BTreeMap<String, String>,
}

/// A variable the host cannot work without is missing or empty.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("the Juju environment has no {name}: {why}")]
pub struct MissingVar {
    pub name: &'static str,
    pub why: &'static str,
}

impl JujuEnv {
    /// Keep the `JUJU_*` variables (and legacy `CHARM_DIR`) of `vars`.
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> JujuEnv {
        let vars = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .filter(|(k, _)| k.starts_with("JUJU_") || k == "CHARM_DIR")
            .collect();
        JujuEnv { vars }
    }

    /// The process environment; variables that are not UTF-8 are skipped.
    pub fn from_process() -> JujuEnv {
        JujuEnv::from_vars(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        )
    }

    /// Every variable kept, as exported (a recording keeps them).
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// A variable's value; an empty value counts as absent, as in Juju, which
    /// exports some variables empty rather than leaving them out.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A variable's value as exported, an empty value included: for the few
    /// whose emptiness itself says something (`JUJU_MACHINE_ID`, exported
    /// empty on Kubernetes).
    pub fn exported(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// Whether the hook runs for a Kubernetes unit: `JUJU_MACHINE_ID`
    /// exported and empty, as Juju exports it there.
    pub fn on_kubernetes(&self) -> bool {
        self.exported("JUJU_MACHINE_ID") == Some("")
    }

    /// A variable that must be present.
    pub fn require(&self, name: &'static str, why: &'static str) -> Result<&str, MissingVar> {
        self.get(name).ok_or(MissingVar { name, why })
    }

    /// Set a variable (offline runs and tests build environments this way).
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.vars.insert(name.to_string(), value.into());
    }

    /// `JUJU_UNIT_NAME`, e.g. `gateway/0`.
    pub fn unit_name(&self) -> Result<&str, MissingVar> {
        self.require("JUJU_UNIT_NAME", "every hook runs for a unit")
    }

    /// `JUJU_MODEL_NAME`.
    pub fn model_name(&self) -> &str {
        self.get("JUJU_MODEL_NAME").unwrap_or("")
    }

    /// The application part of the unit name.
    pub fn app_name(&self) -> Result<&str, MissingVar> {
        let unit = self.unit_name()?;
        Ok(unit.split_once('/').map_or(unit, |(app, _)| app))
    }

    /// `JUJU_DISPATCH_PATH`, e.g. `hooks/config-changed` or `actions/backup`.
    pub fn dispatch_path(&self) -> Result<&str, MissingVar> {
        self.require(
            "JUJU_DISPATCH_PATH",
            "Juju ≥ 2.8 sets it for every hook and action; without it the event is unknown",
        )
    }

    /// What Juju exports to every hook that no event record carries
    /// (juju-protocol §1.4), for the model's `juju-context`.
    pub fn juju_context(&self) -> JujuContext {
        let opt = |name: &str| self.get(name).map(str::to_string);
        JujuContext {
            model_uuid: self.get("JUJU_MODEL_UUID").unwrap_or("").to_string(),
            juju_version: self.get("JUJU_VERSION").unwrap_or("").to_string(),
            availability_zone: opt("JUJU_AVAILABILITY_ZONE"),
            machine_id: opt("JUJU_MACHINE_ID"),
            principal_unit: opt("JUJU_PRINCIPAL_UNIT"),
            target_base: opt("JUJU_TARGET_BASE"),
            target_series: opt("JUJU_TARGET_SERIES"),
            meter_status: opt("JUJU_METER_STATUS"),
            meter_info: opt("JUJU_METER_INFO"),
            api_addresses: self
                .get("JUJU_API_ADDRESSES")
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            http_proxy: opt("JUJU_CHARM_HTTP_PROXY"),
            https_proxy: opt("JUJU_CHARM_HTTPS_PROXY"),
            ftp_proxy: opt("JUJU_CHARM_FTP_PROXY"),
            no_proxy: opt("JUJU_CHARM_NO_PROXY"),
        }
    }
}

/// The context of no environment: every field empty.
pub fn empty_context() -> JujuContext {
    JujuEnv::default().juju_context()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_read_and_empty_variables_are_none() {
        let env = JujuEnv::from_vars([
            ("JUJU_MODEL_UUID", "d1a3"),
            ("JUJU_VERSION", "3.6.4"),
            ("JUJU_AVAILABILITY_ZONE", ""),
            ("JUJU_MACHINE_ID", "3"),
            ("JUJU_TARGET_BASE", "ubuntu@24.04"),
            ("JUJU_API_ADDRESSES", "10.0.0.1:17070 10.0.0.2:17070"),
            ("JUJU_CHARM_HTTP_PROXY", "http://proxy:3128"),
            ("HTTP_PROXY", "ignored"),
        ]);
        let c = env.juju_context();
        assert_eq!(
            (c.model_uuid.as_str(), c.juju_version.as_str()),
            ("d1a3", "3.6.4")
        );
        assert_eq!(c.availability_zone, None);
        assert_eq!(c.machine_id.as_deref(), Some("3"));
        assert_eq!(c.target_base.as_deref(), Some("ubuntu@24.04"));
        assert_eq!(c.api_addresses, ["10.0.0.1:17070", "10.0.0.2:17070"]);
        assert_eq!(c.http_proxy.as_deref(), Some("http://proxy:3128"));
        assert_eq!(c.no_proxy, None);
        assert_eq!(empty_context().api_addresses, Vec::<String>::new());
    }
}
