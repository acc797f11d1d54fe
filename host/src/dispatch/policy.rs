//! The failure policy (DESIGN §7): what the pipeline does with how one
//! handler ended, during an action or not, under the manifest's `on-error`.
//! Pure: the pipeline carries the verdict out.
//!
//! | handler | in a hook, `on-error: block` | in a hook, `on-error: fail` | during an action |
//! |---|---|---|---|
//! | returned `Ok(status)` | keep; its scope set (cleared for `None`) | the same | keep; no scope, a status returned is ignored with a warning |
//! | returned `Err(msg)` | keep; its scope blocked(msg), with a warning | the hook fails | the action fails with `msg` |
//! | trapped | the hook fails | the hook fails | the action fails |
//!
//! A failed hook or action keeps nothing of the event.

use crate::bindings::{Handler, Status, StatusKind};
use crate::charm_dir::OnError;
use crate::runtime::Outcome;
use crate::show::HandlerResult;
use crate::status::handler_scope;
use crate::status::store::{Target, Write};

/// What the policy depends on besides the handler's end.
#[derive(Debug, Clone, Copy)]
pub(super) struct Situation<'a> {
    /// The event, as the logs name it.
    pub described: &'a str,
    pub during_action: bool,
    pub on_error: OnError,
}

/// What to do with one handler's end.
#[derive(Debug, PartialEq)]
pub(super) struct Verdict {
    /// How it ended, for the report.
    pub result: HandlerResult,
    /// Logged at WARNING before anything else is done.
    pub warning: Option<String>,
    pub then: Then,
}

#[derive(Debug, PartialEq)]
pub(super) enum Then {
    /// Keep the handler's writes, then make `own` to its own scope.
    Keep { own: Option<Write> },
    /// The hook fails for this reason, and the event keeps nothing.
    FailHook(String),
    /// The action fails with `message` (`action-fail`), the log saying
    /// `why`; the event keeps nothing, yet the hook succeeds (see
    /// `EventRun::fail_action`).
    FailAction { why: String, message: String },
}

/// The verdict on `handler`, which ended with `outcome`, at `at`.
pub(super) fn judge(handler: &Handler, outcome: Outcome, at: &Situation<'_>) -> Verdict {
    let name = &handler.name;
    match outcome {
        // An action leaves no unit status behind: its handler's return
        // value sets no scope.
        Outcome::Returned(Ok(status)) if at.during_action => Verdict {
            warning: status.as_ref().map(|s| {
                format!(
                    "handler `{name}` returned {:?} during {}: an action leaves no unit status, so it is ignored (status::set sets a scope that outlives the action)",
                    s.message, at.described
                )
            }),
            result: HandlerResult::ActionDone(status),
            then: Then::Keep { own: None },
        },
        Outcome::Returned(Err(msg)) if at.during_action => Verdict {
            then: Then::FailAction {
                why: format!("handler `{name}` returned an error: {msg}"),
                message: msg.clone(),
            },
            result: HandlerResult::Error(msg),
            warning: None,
        },
        Outcome::Trapped(trap) if at.during_action => {
            let why = format!("handler `{name}` {trap}");
            Verdict {
                then: Then::FailAction {
                    message: why.clone(),
                    why,
                },
                result: HandlerResult::Trapped(trap),
                warning: None,
            }
        }
        Outcome::Returned(Ok(status)) => Verdict {
            result: status
                .clone()
                .map_or(HandlerResult::Cleared, HandlerResult::Set),
            warning: None,
            then: Then::Keep {
                own: Some(own_write(handler, status)),
            },
        },
        Outcome::Returned(Err(msg)) if at.on_error == OnError::Block => Verdict {
            warning: Some(format!(
                "handler `{name}` returned an error, shown as blocked: {msg}"
            )),
            then: Then::Keep {
                own: Some(own_write(
                    handler,
                    Some(Status {
                        kind: StatusKind::Blocked,
                        message: msg.clone(),
                    }),
                )),
            },
            result: HandlerResult::Error(msg),
        },
        Outcome::Returned(Err(msg)) => Verdict {
            then: Then::FailHook(format!("handler `{name}` failed: {msg} (on-error: fail)")),
            result: HandlerResult::Error(msg),
            warning: None,
        },
        Outcome::Trapped(trap) => Verdict {
            then: Then::FailHook(format!(
                "handler `{name}` {trap}; nothing this event stored is kept"
            )),
            result: HandlerResult::Trapped(trap),
            warning: None,
        },
    }
}

/// The write a handler's return value makes to its own scope.
fn own_write(handler: &Handler, status: Option<Status>) -> Write {
    let scope = handler_scope(&handler.name);
    match status {
        Some(s) => Write::Set {
            target: Target::Unit,
            scope,
            status: s.kind.into(),
            message: crate::text::status_message(&s.message),
            priority: handler.priority.into(),
        },
        None => Write::Clear {
            target: Target::Unit,
            scope,
        },
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
