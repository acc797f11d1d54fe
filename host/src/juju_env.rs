//! The hook environment Juju gives `dispatch` (reference juju-protocol.md §1.4),
//! read once into typed fields. Pure: built from any list of variables, so the
//! offline path and tests construct it without touching the process environment.

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

    /// A variable's value; an empty value counts as absent, as in Juju, which
    /// exports some variables empty rather than leaving them out.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
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
}
