//! The protocol's answer to a `run` request (docs/harness-protocol.md),
//! as serde reads it; [`crate::Outcome`] is made of it.

use crate::error::Error;
use crate::handler::Handler;
use crate::status::Status;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `result` of a `run` request (docs/harness-protocol.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Reply {
    pub failed: bool,
    pub error: Option<String>,
    pub ignored: Option<String>,
    pub handlers: Vec<HandlerReply>,
    pub failures: Vec<String>,
    pub status_set: StatusSet,
    pub scopes: Scopes,
    pub stored: BTreeMap<String, String>,
    pub probes: BTreeMap<String, ProbeReply>,
    pub gates: BTreeMap<String, bool>,
    pub probe_lines: Vec<String>,
    pub state: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HandlerReply {
    pub name: String,
    pub result: String,
    pub status: Option<StatusReply>,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct StatusReply {
    pub status: String,
    #[serde(default)]
    pub message: String,
}

impl StatusReply {
    pub(crate) fn status(&self) -> Result<Status, Error> {
        status_named(&self.status, &self.message)
            .ok_or_else(|| unknown(&format!("status `{}`", self.status)))
    }
}

/// The SDK's status of a kind named as Juju names it.
pub(crate) fn status_named(kind: &str, message: &str) -> Option<Status> {
    use crate::status::StatusKind;
    let kinds = [
        StatusKind::Active,
        StatusKind::Maintenance,
        StatusKind::Waiting,
        StatusKind::Blocked,
    ];
    let kind = kinds.into_iter().find(|k| k.name() == kind)?;
    Some(Status::new(kind, message))
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct StatusSet {
    pub unit: bool,
    pub app: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Scopes {
    pub unit: BTreeMap<String, ScopeReply>,
    pub app: BTreeMap<String, ScopeReply>,
}

/// A scope as the store keeps it: its status now, and its changes.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ScopeReply {
    pub current: Option<StatusReply>,
    #[serde(default)]
    pub history: Vec<ChangeReply>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ChangeReply {
    pub status: Option<String>,
    #[serde(default)]
    pub message: String,
    pub event: String,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ProbeReply {
    pub healthy: bool,
    pub detail: String,
}

impl HandlerReply {
    /// How the handler ended, as the harness says it.
    pub(crate) fn handler(&self) -> Result<Handler, Error> {
        let h = self;
        let status = || -> Result<Option<Status>, Error> {
            h.status.as_ref().map(StatusReply::status).transpose()
        };
        let message = || h.message.clone().unwrap_or_default();
        Ok(match h.result.as_str() {
            "set" => {
                Handler::Set(status()?.ok_or_else(|| unknown("a set handler without status"))?)
            }
            "cleared" => Handler::Cleared,
            "error" => Handler::Error(message()),
            "trapped" => Handler::Trapped(message()),
            "action-done" => Handler::ActionDone(status()?),
            other => return Err(unknown(&format!("handler result `{other}`"))),
        })
    }
}

pub(crate) fn unknown(what: &str) -> Error {
    Error::Io(format!(
        "wasm-charm serve answered {what}, which this harness does not know"
    ))
}
