//! Every case of the failure policy: how the handler ended (returned a
//! status, returned none, returned an error, trapped) × in a hook or during
//! an action × `on-error: block` or `fail`.

use super::*;
use crate::bindings::Priority;
use crate::status::merge::{Band, Kind};

const ON_ERROR: [OnError; 2] = [OnError::Block, OnError::Fail];

fn handler() -> Handler {
    Handler {
        name: "db".into(),
        observes: vec![],
        priority: Priority::Critical,
    }
}

fn in_hook(on_error: OnError) -> Situation<'static> {
    Situation {
        described: "config-changed",
        during_action: false,
        on_error,
    }
}

fn in_action(on_error: OnError) -> Situation<'static> {
    Situation {
        described: "action backup",
        during_action: true,
        on_error,
    }
}

fn waiting() -> Status {
    Status {
        kind: StatusKind::Waiting,
        message: "waiting for the database\0".into(),
    }
}

fn set(kind: Kind, message: &str) -> Option<Write> {
    Some(Write::Set {
        target: Target::Unit,
        scope: "handler/db".into(),
        status: kind,
        message: message.into(),
        priority: Band::Critical,
    })
}

fn returned(status: Option<Status>) -> Outcome {
    Outcome::Returned(Ok(status))
}

fn errored() -> Outcome {
    Outcome::Returned(Err("no database".into()))
}

fn trapped() -> Outcome {
    Outcome::Trapped("panicked or aborted".into())
}

#[test]
fn in_a_hook_a_returned_status_sets_the_handlers_scope() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), returned(Some(waiting())), &in_hook(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::Set(waiting()),
                warning: None,
                // As status-set can carry it: NUL replaced.
                then: Then::Keep {
                    own: set(Kind::Waiting, "waiting for the database\u{FFFD}")
                },
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn in_a_hook_a_returned_none_clears_the_handlers_scope() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), returned(None), &in_hook(on_error));
        let clear = Write::Clear {
            target: Target::Unit,
            scope: "handler/db".into(),
        };
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::Cleared,
                warning: None,
                then: Then::Keep { own: Some(clear) },
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn in_a_hook_an_error_under_on_error_block_blocks_the_handlers_scope() {
    let verdict = judge(&handler(), errored(), &in_hook(OnError::Block));
    assert_eq!(
        verdict,
        Verdict {
            result: HandlerResult::Error("no database".into()),
            warning: Some("handler `db` returned an error, shown as blocked: no database".into()),
            then: Then::Keep {
                own: set(Kind::Blocked, "no database")
            },
        }
    );
}

#[test]
fn in_a_hook_an_error_under_on_error_fail_fails_the_hook() {
    let verdict = judge(&handler(), errored(), &in_hook(OnError::Fail));
    assert_eq!(
        verdict,
        Verdict {
            result: HandlerResult::Error("no database".into()),
            warning: None,
            then: Then::FailHook("handler `db` failed: no database (on-error: fail)".into()),
        }
    );
}

#[test]
fn in_a_hook_a_trap_fails_the_hook_whatever_on_error_says() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), trapped(), &in_hook(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::Trapped("panicked or aborted".into()),
                warning: None,
                then: Then::FailHook(
                    "handler `db` panicked or aborted; nothing this event stored is kept".into()
                ),
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn during_an_action_a_returned_status_sets_no_scope_and_is_warned_of() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), returned(Some(waiting())), &in_action(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::ActionDone(Some(waiting())),
                warning: Some(
                    "handler `db` returned \"waiting for the database\\0\" during action backup: an action leaves no unit status, so it is ignored (status::set sets a scope that outlives the action)".into()
                ),
                then: Then::Keep { own: None },
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn during_an_action_a_returned_none_sets_no_scope_silently() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), returned(None), &in_action(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::ActionDone(None),
                warning: None,
                then: Then::Keep { own: None },
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn during_an_action_an_error_fails_the_action_with_its_message_whatever_on_error_says() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), errored(), &in_action(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::Error("no database".into()),
                warning: None,
                then: Then::FailAction {
                    why: "handler `db` returned an error: no database".into(),
                    message: "no database".into(),
                },
            },
            "{on_error:?}"
        );
    }
}

#[test]
fn during_an_action_a_trap_fails_the_action_saying_why_whatever_on_error_says() {
    for on_error in ON_ERROR {
        let verdict = judge(&handler(), trapped(), &in_action(on_error));
        assert_eq!(
            verdict,
            Verdict {
                result: HandlerResult::Trapped("panicked or aborted".into()),
                warning: None,
                then: Then::FailAction {
                    why: "handler `db` panicked or aborted".into(),
                    message: "handler `db` panicked or aborted".into(),
                },
            },
            "{on_error:?}"
        );
    }
}
