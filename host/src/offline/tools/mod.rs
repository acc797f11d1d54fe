//! The hook tools of the embedded simulated Juju, answered from the
//! state ([`SimState`](crate::offline::sim::SimState)) with Juju's syntax,
//! JSON shapes and exit codes (reference juju-protocol.md §2). Writes
//! change the in-memory state at once, except the port, secret and
//! storage tools', held in the state's `pending_ports`, `pending_secrets`
//! and `pending_storage`; what the state file keeps of them is the
//! offline runner's decision: a failed hook keeps only what acts at once in
//! Juju (see `commit` in `offline`). This module is the table from a
//! tool's name to its answer; the tools are split by what they answer:
//! `unit` (config, leadership, log, status, juju-reboot), `relations`
//! (relation-*), `actions` (action-*), `ports` and `storage`, `network` (network-get),
//! `deployment` (goal-state, credential-get, resource-get), `secrets`
//! (secret-*), `charm_state` (state-get, state-set, state-delete), each
//! over the vocabulary of `args`.

pub mod actions;
mod args;
pub mod charm_state;
mod deployment;
mod network;
pub mod ports;
mod relations;
mod secret_content;
mod secrets;
mod storage;
mod unit;

use crate::hook_tools::{HookTools, ToolOutput};

/// Every tool the simulated Juju answers: the names `sim dispatch` serves.
pub const NAMES: &[&str] = &[
    "config-get",
    "is-leader",
    "relation-ids",
    "relation-list",
    "relation-get",
    "relation-set",
    "relation-model-get",
    "juju-log",
    "juju-reboot",
    "status-set",
    "status-get",
    "application-version-set",
    "action-get",
    "action-set",
    "action-log",
    "action-fail",
    "open-port",
    "close-port",
    "opened-ports",
    "storage-list",
    "storage-get",
    "storage-add",
    "network-get",
    "goal-state",
    "credential-get",
    "resource-get",
    "secret-add",
    "secret-set",
    "secret-get",
    "secret-info-get",
    "secret-ids",
    "secret-grant",
    "secret-revoke",
    "secret-remove",
    "state-get",
    "state-set",
    "state-delete",
];
use crate::offline::sim::SimTools;
use args::Answer;

impl SimTools {
    /// The answer of `tool`: the table from a tool's name to the method
    /// that answers it.
    fn answer(&self, tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Answer {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        match tool {
            "config-get" => self.config_get(state, args),
            "is-leader" => self.is_leader(state, args),
            "relation-ids" => self.relation_ids(state, args),
            "relation-list" => self.relation_list(state, args),
            "relation-get" => self.relation_get(state, args),
            "relation-set" => self.relation_set(state, args, stdin),
            "relation-model-get" => self.relation_model_get(state, args),
            "juju-log" => self.juju_log(state, args),
            "juju-reboot" => self.juju_reboot(state, args),
            "status-set" => self.status_set(state, args),
            "status-get" => self.status_get(state, args),
            "application-version-set" => self.application_version_set(state, args),
            "action-get" => self.action_get(state, args),
            "action-set" => self.action_set(state, args),
            "action-log" => self.action_log(state, args),
            "action-fail" => self.action_fail(state, args),
            "open-port" => self.port(state, args, true),
            "close-port" => self.port(state, args, false),
            "opened-ports" => self.opened_ports(state, args),
            "storage-list" => self.storage_list(state, args),
            "storage-get" => self.storage_get(state, args),
            "storage-add" => self.storage_add(state, args),
            "network-get" => self.network_get(state, args),
            "goal-state" => self.goal_state(state, args),
            "credential-get" => self.credential_get(state, args),
            "resource-get" => self.resource_get(state, args),
            "secret-add" => self.secret_add(state, args),
            "secret-set" => self.secret_set(state, args),
            "secret-get" => self.secret_get(state, args),
            "secret-info-get" => self.secret_info_get(state, args),
            "secret-ids" => self.secret_ids(state, args),
            "secret-grant" => self.secret_grant(state, args),
            "secret-revoke" => self.secret_revoke(state, args),
            "secret-remove" => self.secret_remove(state, args),
            "state-get" => self.state_get(state, args),
            "state-set" => self.state_set(state, args, stdin),
            "state-delete" => self.state_delete(state, args),
            other => Err(ToolOutput::error(
                1,
                format!("the simulated Juju does not implement {other}"),
            )),
        }
    }
}

impl HookTools for SimTools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        _deadline: std::time::Instant,
    ) -> std::io::Result<ToolOutput> {
        let scripted = {
            let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            state.scripts.fail.get(tool).map(|f| ToolOutput {
                code: f.code,
                stdout: f.stdout.clone().into_bytes(),
                stderr: if f.stderr.is_empty() || f.stderr.ends_with('\n') {
                    f.stderr.clone()
                } else {
                    format!("{}\n", f.stderr)
                },
            })
        };
        let out = match scripted {
            Some(out) => out,
            None => self.answer(tool, args, stdin).unwrap_or_else(|e| e),
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = tool.to_string();
        for a in args {
            line.push(' ');
            line.push_str(&shell_quote(a));
        }
        if out.code != 0 {
            line.push_str(&format!("  → exit {}", out.code));
        }
        state.last_event.calls.push(line);
        Ok(out)
    }
}

/// Quote an argument for display when it needs it.
fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=/:.,@".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod requests_tests;
#[cfg(test)]
pub(in crate::offline) mod tests;
