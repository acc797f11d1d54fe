//! A status as a test names it: its kind and message.

use std::fmt;
use wasm_charm_host::status::merge::{Kind, Written};

/// A status: its kind and message, as `status-set` writes it and a scope
/// holds it.
///
/// ```
/// use wasm_charm_testing::{Kind, Status};
///
/// let s = Status::blocked("Config item `kind` must be set");
/// assert_eq!(s.kind, Kind::Blocked);
/// assert_eq!(s.to_string(), "blocked \"Config item `kind` must be set\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub kind: Kind,
    pub message: String,
}

impl Status {
    pub fn new(kind: Kind, message: impl Into<String>) -> Status {
        Status {
            kind,
            message: message.into(),
        }
    }
    pub fn active(message: impl Into<String>) -> Status {
        Status::new(Kind::Active, message)
    }
    pub fn waiting(message: impl Into<String>) -> Status {
        Status::new(Kind::Waiting, message)
    }
    pub fn maintenance(message: impl Into<String>) -> Status {
        Status::new(Kind::Maintenance, message)
    }
    pub fn blocked(message: impl Into<String>) -> Status {
        Status::new(Kind::Blocked, message)
    }

    pub(crate) fn from_written(w: &Written) -> Status {
        Status::new(w.status, w.message.clone())
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} {:?}", self.kind.as_str(), self.message)
    }
}
