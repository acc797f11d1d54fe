//! The WIT `model` interface as the guest calls it: each call answered by
//! the module of its topic.

use super::tool_calls::Caller;
use super::{Model, host_config, host_network, host_storage};
use crate::bindings::model::{
    CloudSpec, ConfigOption, Goals, Host, JujuContext, LogLevel, ModelError,
};

impl Host for Model {
    fn config(&mut self) -> Result<Vec<ConfigOption>, ModelError> {
        host_config::config(self)
    }

    fn is_leader(&mut self) -> Result<bool, ModelError> {
        host_config::is_leader(self, Caller::Guest)
    }

    fn unit_name(&mut self) -> String {
        self.facts.identity.unit.clone()
    }

    fn app_name(&mut self) -> String {
        self.facts.identity.app.clone()
    }

    fn model_name(&mut self) -> String {
        self.facts.identity.model.clone()
    }

    fn log(&mut self, level: LogLevel, message: String) {
        self.guest_log(level, &message);
    }

    fn application_version_set(&mut self, version: String) -> Result<(), ModelError> {
        host_config::application_version_set(self, version)
    }

    fn context(&mut self) -> JujuContext {
        self.facts
            .identity
            .juju
            .clone()
            .unwrap_or_else(crate::juju_env::empty_context)
    }

    fn goal_state(&mut self) -> Result<Goals, ModelError> {
        host_network::goal_state(self)
    }

    fn credential_get(&mut self) -> Result<CloudSpec, ModelError> {
        host_network::credential_get(self)
    }

    fn resource_get(&mut self, name: String) -> Result<String, ModelError> {
        host_storage::resource_get(self, name)
    }

    fn reboot(&mut self, now: bool) -> wasmtime::Result<Result<(), ModelError>> {
        host_config::reboot(self, now)
    }
}
