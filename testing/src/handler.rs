//! How one handler ended, as an outcome shows it.

use crate::status::Status;
use std::fmt;

/// How one handler ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Handler {
    /// It returned a status: its scope (`handler/<name>`) holds it.
    Set(Status),
    /// It returned no status: its scope is cleared.
    Cleared,
    /// It returned an error (the message the host made of it).
    Error(String),
    /// It trapped, ran out of time or memory (what the host saw).
    Trapped(String),
    /// An action's handler returned; a status it returned is ignored (an
    /// action leaves no status behind).
    ActionDone(Option<Status>),
}

impl fmt::Display for Handler {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Handler::Set(s) => write!(f, "set {s}"),
            Handler::Cleared => write!(f, "cleared"),
            Handler::Error(e) => write!(f, "returned Err({e:?})"),
            Handler::Trapped(t) => write!(f, "trapped: {t}"),
            Handler::ActionDone(None) => write!(f, "returned"),
            Handler::ActionDone(Some(s)) => write!(f, "returned {s}, ignored (an action)"),
        }
    }
}
