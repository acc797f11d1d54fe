//! Statuses, and scopes beyond the handler's own.
//!
//! A handler's return value is the status of its own scope,
//! `handler/<name>`. This module sets other scopes: one per relation
//! ([`set_relation`]), one per remote unit ([`set_remote_unit`]), or any free
//! name ([`set`]). The host merges every scope into the unit's status (and,
//! on the leader, the application's): the most severe kind wins, and
//! `(+N more)` counts the other problems.
//!
//! # The rules of every scope kind
//!
//! | scope | set by | cleared by | cleared automatically | band |
//! |---|---|---|---|---|
//! | `handler/<name>` | the handler's return value: `Ok(Some(s))` sets it, `Err(e)` sets blocked (with `on-error: block`) | `Ok(None)` | when the charm no longer declares the handler | the handler's ([`Charm::observe_with_priority`](crate::Charm::observe_with_priority)) |
//! | any free name ([`set`]) | any handler | [`clear`] | never | [`set_with_priority`] |
//! | `relation/<endpoint>:<id>` ([`set_relation`]) | any handler | [`clear_relation`] | after that relation's `relation-broken` | [`set_relation_with_priority`] |
//! | `unit/<app>/<n>` ([`set_remote_unit`]) | any handler | [`clear_remote_unit`] | after that unit's `relation-departed` | [`set_remote_unit_with_priority`] |
//! | `probe/<name>` | the host, from a gating readiness probe | the host, when the probe passes or stops gating | when the probe is no longer declared | normal |
//!
//! * **Transactional per handler.** Writes take effect only if the handler
//!   returns (`Ok` or `Err`); a handler that traps changes no scope, and a
//!   hook that fails keeps no scope of any of its handlers.
//! * **Write-only.** A handler cannot read the merged status back: status is
//!   an output, not control flow.
//! * **Merge.** Severity first (blocked > maintenance > waiting > active),
//!   then the band (critical, normal, low), then the age of the problem,
//!   then the name. When nothing is a problem, the unit is active with the
//!   message of the best-ranked active scope that has one, else the
//!   manifest's `ready-message`.
//! * **App scopes** ([`Target::App`]) count only when the leader writes them.
//!
//! ```no_run
//! use wasm_charm::prelude::*;
//!
//! fn db(event: &Event) -> Outcome {
//!     if let Some(relation) = event.relation() {
//!         if relation.remote_app == "legacy-db" {
//!             status::set_relation(relation, Status::blocked("legacy-db is not supported"))?;
//!         } else {
//!             status::clear_relation(relation)?;
//!         }
//!     }
//!     Ok(None)
//! }
//! ```

use std::fmt;

use crate::__bindings::wasm_charm::charm::status as wit;
use crate::RelationRef;

/// A tie-break band between scopes of the same severity.
///
/// ```
/// use wasm_charm::Priority;
///
/// assert_eq!(Priority::default(), Priority::Normal);
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Priority;
/// One status: what `juju status` shows in its Workload and Message
/// columns, and what a handler returns.
///
/// ```
/// use wasm_charm::{Status, StatusKind};
///
/// let status = Status::blocked("Needs a db relation");
/// assert_eq!((status.kind, status.message.as_str()), (StatusKind::Blocked, "Needs a db relation"));
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Status;
/// The workload status kinds a charm may set.
///
/// ```
/// use wasm_charm::StatusKind;
///
/// assert_eq!(StatusKind::Waiting.to_string(), "waiting");
/// ```
pub use crate::__bindings::wasm_charm::charm::types::StatusKind;
/// Which status a scope feeds: this unit's, or (the leader's only) the
/// application's.
///
/// ```no_run
/// use wasm_charm::{Status, Target, status};
///
/// status::set(Target::App, "backups", Status::waiting("No backup yet"))?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub use crate::__bindings::wasm_charm::charm::types::Target;

impl Status {
    /// A status of `kind` with `message`.
    ///
    /// ```
    /// use wasm_charm::{Status, StatusKind};
    ///
    /// assert_eq!(Status::new(StatusKind::Waiting, "for db"), Status::waiting("for db"));
    /// ```
    pub fn new(kind: StatusKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// `active`: all is well. A handler usually returns `Ok(None)` instead;
    /// an active status with a message is for saying something while all is
    /// well ("Unit is paused"): when no scope is a problem, the unit shows the
    /// message of the best-ranked active scope that has one, else the
    /// manifest's `ready-message`.
    ///
    /// ```
    /// use wasm_charm::prelude::*;
    ///
    /// fn paused(_event: &Event) -> Outcome {
    ///     Ok(Some(Status::active("Unit is paused")))
    /// }
    /// ```
    pub fn active(message: impl Into<String>) -> Self {
        Self::new(StatusKind::Active, message)
    }

    /// `maintenance`: the charm is busy with something that takes a while.
    ///
    /// ```
    /// let status = wasm_charm::Status::maintenance("Installing packages");
    /// assert_eq!(status.to_string(), "maintenance: Installing packages");
    /// ```
    pub fn maintenance(message: impl Into<String>) -> Self {
        Self::new(StatusKind::Maintenance, message)
    }

    /// `waiting`: waiting for something outside the charm's control.
    ///
    /// ```
    /// let status = wasm_charm::Status::waiting("Waiting for leadership");
    /// assert_eq!(status.kind, wasm_charm::StatusKind::Waiting);
    /// ```
    pub fn waiting(message: impl Into<String>) -> Self {
        Self::new(StatusKind::Waiting, message)
    }

    /// `blocked`: needs a human to act (config, a missing relation).
    ///
    /// ```
    /// let status = wasm_charm::Status::blocked("Config item `kind` must be set");
    /// assert_eq!(status.message, "Config item `kind` must be set");
    /// ```
    pub fn blocked(message: impl Into<String>) -> Self {
        Self::new(StatusKind::Blocked, message)
    }
}

/// `kind: message`, or only the kind when the message is empty.
///
/// ```
/// use wasm_charm::Status;
///
/// assert_eq!(Status::waiting("for db").to_string(), "waiting: for db");
/// assert_eq!(Status::active("").to_string(), "active");
/// ```
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl StatusKind {
    /// The kind as Juju spells it: `active`, `maintenance`, `waiting`,
    /// `blocked`.
    ///
    /// ```
    /// assert_eq!(wasm_charm::StatusKind::Maintenance.name(), "maintenance");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            StatusKind::Active => "active",
            StatusKind::Maintenance => "maintenance",
            StatusKind::Waiting => "waiting",
            StatusKind::Blocked => "blocked",
        }
    }
}

/// The kind's [`name`](StatusKind::name).
///
/// ```
/// assert_eq!(wasm_charm::StatusKind::Blocked.to_string(), "blocked");
/// ```
impl fmt::Display for StatusKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the host refused a status write. The kind stays through `?` into
/// [`Error`](crate::Error) ([`ErrorKind::Status`](crate::ErrorKind::Status)).
///
/// ```no_run
/// use wasm_charm::status::{self, StatusError};
/// use wasm_charm::{Status, Target};
///
/// match status::set(Target::Unit, "handler/mine", Status::blocked("no")) {
///     Err(StatusError::Refused(why)) => println!("refused: {why}"),
///     Ok(()) => {}
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatusError {
    /// The host refused the scope name or the message (a prefix it keeps,
    /// a name it does not take, NUL in the message): its words, which name
    /// what is wrong.
    Refused(String),
}

/// The host's words.
///
/// ```
/// use wasm_charm::status::StatusError;
///
/// let e = StatusError::Refused("scope prefix `handler/` belongs to the host".into());
/// assert_eq!(e.to_string(), "scope prefix `handler/` belongs to the host");
/// ```
impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusError::Refused(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for StatusError {}

/// Set scope `scope` of `target` to `status`, in the `normal` priority band.
///
/// Scope names are 1 to 128 bytes of `a-z 0-9 - _ . : /`; the prefixes
/// `handler/` and `probe/` belong to the host. An `App` scope counts only
/// when the leader writes it. The error is the host's reason for refusing.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// status::set(Target::Unit, "paused", Status::active("Unit is paused"))?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set(target: Target, scope: &str, status: Status) -> Result<(), StatusError> {
    set_with_priority(target, scope, status, Priority::Normal)
}

/// As [`set`], in the priority band `priority`.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// let status = Status::blocked("the database is unreachable");
/// status::set_with_priority(Target::Unit, "database", status, Priority::Critical)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set_with_priority(
    target: Target,
    scope: &str,
    status: Status,
    priority: Priority,
) -> Result<(), StatusError> {
    wit::set(target, scope, &status, priority).map_err(StatusError::Refused)
}

/// Clear scope `scope` of `target`; clearing a scope that is not set is fine.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// status::clear(Target::Unit, "paused")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn clear(target: Target, scope: &str) -> Result<(), StatusError> {
    wit::clear(target, scope).map_err(StatusError::Refused)
}

/// The unit scope the host clears when `relation` is broken:
/// `relation/<endpoint>:<id>`.
///
/// ```
/// use wasm_charm::{RelationRef, status};
///
/// let relation = RelationRef { endpoint: "db".into(), id: 4 };
/// assert_eq!(status::relation_scope(&relation), "relation/db:4");
/// ```
pub fn relation_scope(relation: impl AsRef<RelationRef>) -> String {
    format!("relation/{}", relation.as_ref())
}

/// Set the unit scope of `relation` ([`relation_scope`]): it lasts until
/// cleared or until the relation is broken.
///
/// `relation` is a [`RelationRef`], a [`RelationEvent`](crate::RelationEvent)
/// or a [`model::Relation`](crate::model::Relation).
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn db(event: &Event) -> Outcome {
///     if let Some(relation) = event.relation() {
///         status::set_relation(relation, Status::waiting("waiting for credentials"))?;
///     }
///     Ok(None)
/// }
/// ```
pub fn set_relation(relation: impl AsRef<RelationRef>, status: Status) -> Result<(), StatusError> {
    set(Target::Unit, &relation_scope(relation), status)
}

/// As [`set_relation`], in the priority band `priority`.
///
/// ```no_run
/// use wasm_charm::prelude::*;
/// use wasm_charm::Priority;
///
/// fn db(event: &Event) -> Outcome {
///     if let Some(relation) = event.relation() {
///         // Without its database the charm can do nothing: show it first.
///         let missing = Status::blocked("database relation has no credentials");
///         status::set_relation_with_priority(relation, missing, Priority::Critical)?;
///     }
///     Ok(None)
/// }
/// ```
pub fn set_relation_with_priority(
    relation: impl AsRef<RelationRef>,
    status: Status,
    priority: Priority,
) -> Result<(), StatusError> {
    set_with_priority(Target::Unit, &relation_scope(relation), status, priority)
}

/// Clear the unit scope of `relation`.
///
/// ```no_run
/// use wasm_charm::prelude::*;
///
/// fn db(event: &Event) -> Outcome {
///     if let Some(relation) = event.relation() {
///         status::clear_relation(relation)?;
///     }
///     Ok(None)
/// }
/// ```
pub fn clear_relation(relation: impl AsRef<RelationRef>) -> Result<(), StatusError> {
    clear(Target::Unit, &relation_scope(relation))
}

/// The unit scope the host clears when remote unit `unit` departs:
/// `unit/<unit>`.
///
/// ```
/// assert_eq!(wasm_charm::status::remote_unit_scope("db/1"), "unit/db/1");
/// ```
pub fn remote_unit_scope(unit: &str) -> String {
    format!("unit/{unit}")
}

/// Set the unit scope of remote unit `unit` (`db/1`): it lasts until cleared
/// or until that unit departs.
///
/// ```no_run
/// use wasm_charm::{Status, status};
///
/// status::set_remote_unit("db/1", Status::waiting("db/1 is still catching up"))?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set_remote_unit(unit: &str, status: Status) -> Result<(), StatusError> {
    set(Target::Unit, &remote_unit_scope(unit), status)
}

/// As [`set_remote_unit`], in the priority band `priority`.
///
/// ```no_run
/// use wasm_charm::{Priority, Status, status};
///
/// let lagging = Status::waiting("db/1 is still catching up");
/// status::set_remote_unit_with_priority("db/1", lagging, Priority::Low)?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn set_remote_unit_with_priority(
    unit: &str,
    status: Status,
    priority: Priority,
) -> Result<(), StatusError> {
    set_with_priority(Target::Unit, &remote_unit_scope(unit), status, priority)
}

/// Clear the unit scope of remote unit `unit`.
///
/// ```no_run
/// wasm_charm::status::clear_remote_unit("db/1")?;
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn clear_remote_unit(unit: &str) -> Result<(), StatusError> {
    clear(Target::Unit, &remote_unit_scope(unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_and_display() {
        assert_eq!(
            Status::blocked("Config item `kind` must be set"),
            Status {
                kind: StatusKind::Blocked,
                message: "Config item `kind` must be set".into()
            }
        );
        assert_eq!(Status::waiting("x").kind, StatusKind::Waiting);
        assert_eq!(Status::maintenance("x").kind, StatusKind::Maintenance);
        assert_eq!(Status::active(String::new()).to_string(), "active");
        assert_eq!(Status::waiting("for db").to_string(), "waiting: for db");
        assert_eq!(Priority::default(), Priority::Normal);
    }
}
