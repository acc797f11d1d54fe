//! The bounds on the guest's model calls (DESIGN §7), per event and per
//! call, and the deadline every tool call must meet. Only the guest's calls
//! are counted: the host's own ([`Model::log`](super::Model::log),
//! [`Model::run`](super::Model::run), [`Model::flush`](super::Model::flush),
//! [`Model::leader`](super::Model::leader)) never are nor refused, so the host
//! can always say why a hook failed.

use super::errors::failure;
use crate::bindings::model::ModelError;
use crate::hook_tools::HOST_CALLS_TIMEOUT;
use std::time::Instant;

/// Hook-tool calls the guest may cause per event (log lines included; reads
/// are cached, so in practice failures, writes and logs count). Past it, a
/// call fails with `tool-failed` naming the limit.
pub const MAX_GUEST_TOOL_CALLS_PER_EVENT: usize = 1000;
/// Log messages the guest may send per event. They are buffered and sent
/// joined (one `juju-log` per level and handler, or per full argv element),
/// so the bound is on what the unit log should hold, not on processes.
/// Past it, messages are dropped and counted.
pub const MAX_LOG_MESSAGES_PER_EVENT: usize = 10_000;
/// Log bytes the guest may send per event; past it, messages are dropped.
pub const MAX_LOG_BYTES_PER_EVENT: usize = 1 << 20;
/// Relation data (keys and values) one event may leave pending, all bags
/// together: what one settings collection may hold, so no event can build
/// writes Juju refuses at commit (which fails the hook and every retry).
pub const MAX_RELATION_BYTES_PER_EVENT: usize = 16 << 20;

/// `storage-add` requests one event may leave pending, all handlers
/// together: each is one tool call at the end of the event.
pub const MAX_STORAGE_REQUESTS_PER_EVENT: usize = 64;
/// Most instances one `storage-add` request may ask for: far above any
/// charm's `multiple` range in practice, and Juju creates a volume for each.
pub const MAX_STORAGE_ADD_COUNT: u32 = 64;

/// Largest value of one relation-set: the whole document travels on stdin,
/// but Juju (main) caps a settings collection at 16 MiB.
pub(super) const MAX_RELATION_WRITE: usize = 16 << 20;
/// Juju passes a log message as one argv element: Linux caps those at 128 KiB.
pub(super) const MAX_LOG_ARG: usize = 128 * 1024 - 1;
/// Longest application version: Juju shows 15 characters of it, and the
/// value travels as one argv element.
pub const MAX_APPLICATION_VERSION: usize = 256;

/// The deadline of the calls made now, and the guest's hook-tool calls so
/// far in the event.
#[derive(Debug)]
pub(super) struct Budget {
    /// When the tool calls made now must have finished: the running
    /// handler's deadline, or the event's for the host's own calls.
    deadline: Instant,
    tool_calls: usize,
}

impl Budget {
    /// A fresh event's: no call made, [`HOST_CALLS_TIMEOUT`] from now.
    pub(super) fn new() -> Budget {
        Budget {
            deadline: Instant::now() + HOST_CALLS_TIMEOUT,
            tool_calls: 0,
        }
    }

    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    pub(super) fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// Count a guest's call of `tool`, or refuse it once the guest has made
    /// [`MAX_GUEST_TOOL_CALLS_PER_EVENT`].
    pub(super) fn charge_tool_call(&mut self, tool: &str) -> Result<(), ModelError> {
        if self.tool_calls_spent() {
            return Err(failure(
                tool,
                -1,
                format!(
                    "{tool} not run: the charm made {MAX_GUEST_TOOL_CALLS_PER_EVENT} hook-tool calls in this event, the limit (MAX_GUEST_TOOL_CALLS_PER_EVENT); stop retrying failed calls in a loop"
                ),
            ));
        }
        self.tool_calls += 1;
        Ok(())
    }

    /// Whether the guest has no hook-tool call left in this event.
    pub(super) fn tool_calls_spent(&self) -> bool {
        self.tool_calls >= MAX_GUEST_TOOL_CALLS_PER_EVENT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guests_tool_calls_are_refused_past_the_bound() {
        let mut budget = Budget::new();
        for _ in 0..MAX_GUEST_TOOL_CALLS_PER_EVENT {
            assert!(!budget.tool_calls_spent());
            budget.charge_tool_call("config-get").unwrap();
        }
        assert!(budget.tool_calls_spent());
        let Err(ModelError::ToolFailed(f)) = budget.charge_tool_call("is-leader") else {
            panic!("the call past the bound is refused");
        };
        assert_eq!((f.tool.as_str(), f.exit_code), ("is-leader", -1));
        assert!(
            f.message.contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
            "{}",
            f.message
        );
    }

    #[test]
    fn a_fresh_budget_gives_the_host_its_timeout() {
        let before = Instant::now();
        let mut budget = Budget::new();
        assert!(budget.deadline() >= before + HOST_CALLS_TIMEOUT);
        budget.set_deadline(before);
        assert_eq!(budget.deadline(), before);
    }
}
