//! [`Error`]: what a handler returns when it cannot decide its status, and
//! [`ErrorKind`]: which call failed and why, kept through `?`.

use std::any::Any;
use std::error::Error as StdError;
use std::fmt;

use crate::action::ActionError;
use crate::model::ModelError;
use crate::pebble::PebbleError;
use crate::probe::ProbeError;
use crate::status::StatusError;
use crate::stored::StoredError;
use crate::workload::WorkloadError;

/// A handler's failure: a message for the operator, and the kind of error
/// it came from.
///
/// Any [`std::error::Error`] converts into it, so `?` works on the SDK's
/// errors ([`ModelError`], [`PebbleError`], [`ActionError`],
/// [`ProbeError`], [`StoredError`], [`StatusError`], [`WorkloadError`]),
/// on `serde_json` errors and on the standard library's. An SDK error keeps
/// its type: [`Error::kind`] matches it, so a helper returning
/// `Result<_, wasm_charm::Error>` loses nothing its caller may want to
/// look at. A handler returning `Err(error)` gets its scope set to blocked
/// with the error's message (or fails the hook, when the manifest says
/// `on-error: fail`).
///
/// Like `anyhow::Error`, it does not implement [`std::error::Error`]
/// itself: that is what lets every error convert into it.
///
/// ```
/// use wasm_charm::{Error, Outcome};
///
/// fn parse_port(text: &str) -> Outcome {
///     let port: u16 = text.parse()?;
///     if port < 1024 {
///         return Err(Error::msg(format!("port {port} is privileged")));
///     }
///     Ok(None)
/// }
///
/// assert_eq!(parse_port("x").unwrap_err().to_string(), "invalid digit found in string");
/// assert_eq!(parse_port("80").unwrap_err().to_string(), "port 80 is privileged");
/// ```
///
/// Matching the kind after `?`:
///
/// ```no_run
/// use wasm_charm::model::{self, ModelError};
/// use wasm_charm::{Error, ErrorKind};
///
/// fn mount_point() -> Result<String, Error> {
///     Ok(model::storage_get("data/0")?.location)
/// }
///
/// match mount_point() {
///     Ok(path) => println!("mounted at {path}"),
///     Err(e) if matches!(e.kind(), ErrorKind::Model(ModelError::NotFound(_))) => {
///         println!("not attached yet")
///     }
///     Err(e) => return Err(e),
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub struct Error {
    kind: ErrorKind,
    /// What was being done, outermost first (see [`Error::context`]).
    context: Vec<String>,
}

/// The error an [`Error`] came from: one of the SDK's, a message of the
/// charm's own, or any other [`std::error::Error`].
///
/// New kinds may be added: match with a `_` arm.
///
/// ```
/// use wasm_charm::{Error, ErrorKind};
/// use wasm_charm::stored::StoredError;
///
/// let e = Error::from(StoredError::Refused("stored key \"a b\" is invalid".into()));
/// assert!(matches!(e.kind(), ErrorKind::Stored(StoredError::Refused(_))));
/// assert!(matches!(Error::msg("no").kind(), ErrorKind::Message(_)));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A call of [`model`](crate::model): a hook tool refused or failed.
    Model(ModelError),
    /// A call of [`pebble`](crate::pebble).
    Pebble(PebbleError),
    /// A call of [`action`](crate::action).
    Action(ActionError),
    /// A call of [`probe`](crate::probe).
    Probe(ProbeError),
    /// A call of [`stored`](crate::stored).
    Stored(StoredError),
    /// A call of [`status`](crate::status).
    Status(StatusError),
    /// A call of [`workload`](crate::workload).
    Workload(WorkloadError),
    /// A relation's bag that did not hold its interface's typed value
    /// ([`Relation::read`](crate::model::Relation::read)).
    Data(Box<crate::interfaces::DataError>),
    /// A message of the charm's own, from [`Error::msg`].
    Message(String),
    /// Any other error: `serde_json`'s, `std::io`'s, a parse error.
    Other(Box<dyn StdError + Send + Sync>),
}

impl Error {
    /// An error with this message, of kind [`ErrorKind::Message`].
    ///
    /// ```
    /// let e = wasm_charm::Error::msg(format!("port {} is privileged", 80));
    /// assert_eq!(e.to_string(), "port 80 is privileged");
    /// ```
    pub fn msg(message: impl fmt::Display) -> Self {
        Self {
            kind: ErrorKind::Message(message.to_string()),
            context: Vec::new(),
        }
    }

    /// The same error, its message preceded by `context: `. The kind stays.
    ///
    /// ```
    /// use wasm_charm::{Error, ErrorKind};
    ///
    /// let error = Error::msg("connection refused").context("reaching the database");
    /// assert_eq!(error.to_string(), "reaching the database: connection refused");
    /// assert!(matches!(error.kind(), ErrorKind::Message(_)));
    /// ```
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.context.insert(0, context.to_string());
        self
    }

    /// The error this one came from, to match.
    ///
    /// ```
    /// use wasm_charm::pebble::{ApiError, ApiErrorKind, PebbleError};
    /// use wasm_charm::{Error, ErrorKind};
    ///
    /// let e = Error::from(PebbleError::Api(ApiError {
    ///     status_code: 404,
    ///     kind: "not-found".into(),
    ///     message: "stat /etc/web.conf: no such file or directory".into(),
    /// }))
    /// .context("reading the config file");
    /// match e.kind() {
    ///     ErrorKind::Pebble(p) => assert_eq!(p.kind(), Some(ApiErrorKind::NotFound)),
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The error this one came from, without the context.
    ///
    /// ```
    /// use wasm_charm::probe::ProbeError;
    /// use wasm_charm::{Error, ErrorKind};
    ///
    /// let e = Error::from(ProbeError::Undeclared("api".into())).context("gating");
    /// let ErrorKind::Probe(ProbeError::Undeclared(name)) = e.into_kind() else { panic!() };
    /// assert_eq!(name, "api");
    /// ```
    pub fn into_kind(self) -> ErrorKind {
        self.kind
    }

    /// The error this one came from, if it is a `T`: an SDK error, or the
    /// type of an [`ErrorKind::Other`] error.
    ///
    /// ```
    /// use wasm_charm::Error;
    /// use wasm_charm::workload::WorkloadError;
    ///
    /// let e = Error::from(WorkloadError::Unavailable("dpkg lock held".into()));
    /// assert_eq!(e.downcast_ref::<WorkloadError>(), Some(&WorkloadError::Unavailable("dpkg lock held".into())));
    /// let e = Error::from("x".parse::<u8>().unwrap_err());
    /// assert!(e.downcast_ref::<std::num::ParseIntError>().is_some());
    /// ```
    pub fn downcast_ref<T: StdError + 'static>(&self) -> Option<&T> {
        self.kind.as_error()?.downcast_ref()
    }
}

impl ErrorKind {
    /// The error as a [`std::error::Error`]; `None` for a message.
    fn as_error(&self) -> Option<&(dyn StdError + 'static)> {
        Some(match self {
            ErrorKind::Model(e) => e,
            ErrorKind::Pebble(e) => e,
            ErrorKind::Action(e) => e,
            ErrorKind::Probe(e) => e,
            ErrorKind::Stored(e) => e,
            ErrorKind::Status(e) => e,
            ErrorKind::Workload(e) => e,
            ErrorKind::Data(e) => e.as_ref(),
            ErrorKind::Message(_) => return None,
            ErrorKind::Other(e) => e.as_ref(),
        })
    }
}

/// The error's message, followed by its causes (each after `: `).
///
/// ```
/// use wasm_charm::{ErrorKind, Error};
///
/// let e = Error::msg("late").into_kind();
/// assert_eq!(e.to_string(), "late");
/// ```
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each SDK error by its own `Display` (they have no causes): going
        // through `dyn Error` would link every SDK error's `Debug` into
        // every charm.
        match self {
            ErrorKind::Model(e) => e.fmt(f),
            ErrorKind::Pebble(e) => e.fmt(f),
            ErrorKind::Action(e) => e.fmt(f),
            ErrorKind::Probe(e) => e.fmt(f),
            ErrorKind::Stored(e) => e.fmt(f),
            ErrorKind::Status(e) => e.fmt(f),
            ErrorKind::Workload(e) => e.fmt(f),
            ErrorKind::Data(e) => e.fmt(f),
            ErrorKind::Message(message) => f.write_str(message),
            ErrorKind::Other(error) => {
                write!(f, "{error}")?;
                let mut source = error.source();
                while let Some(cause) = source {
                    write!(f, ": {cause}")?;
                    source = cause.source();
                }
                Ok(())
            }
        }
    }
}

/// The `T` in `slot`, taken, if the slot holds one.
fn take<T: 'static>(slot: &mut dyn Any) -> Option<T> {
    slot.downcast_mut::<Option<T>>().and_then(Option::take)
}

/// The kind of `error`: an SDK error's own case, else `Other`. The type
/// tests are constants once `E` is known, so a charm keeps only the branch
/// its error takes.
fn kind_of<E: StdError + Send + Sync + 'static>(error: E) -> ErrorKind {
    let mut slot = Some(error);
    let any: &mut dyn Any = &mut slot;
    if let Some(e) = take(any) {
        return ErrorKind::Model(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Pebble(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Action(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Probe(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Stored(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Status(e);
    }
    if let Some(e) = take(any) {
        return ErrorKind::Workload(e);
    }
    if let Some(e) = take::<crate::interfaces::DataError>(any) {
        return ErrorKind::Data(Box::new(e));
    }
    match slot {
        Some(other) => ErrorKind::Other(Box::new(other)),
        None => ErrorKind::Message(String::new()),
    }
}

/// Converts any error, keeping an SDK error's type as its [`ErrorKind`].
///
/// ```
/// use wasm_charm::{Error, ErrorKind};
/// use wasm_charm::model::ModelError;
///
/// let e = Error::from(ModelError::NotLeader("relation-set --app".into()));
/// assert!(matches!(e.kind(), ErrorKind::Model(ModelError::NotLeader(_))));
/// ```
impl<E: StdError + Send + Sync + 'static> From<E> for Error {
    fn from(error: E) -> Self {
        Self {
            kind: kind_of(error),
            context: Vec::new(),
        }
    }
}

/// The context, then the error's message and its causes, joined with `: `.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for context in &self.context {
            write!(f, "{context}: ")?;
        }
        self.kind.fmt(f)
    }
}

/// `Error("<message>")`, the message as [`Display`](fmt::Display) gives it.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Error").field(&self.to_string()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(Inner);
    #[derive(Debug)]
    struct Inner;

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("reading config")
        }
    }
    impl fmt::Display for Inner {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("config-get failed")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }
    impl StdError for Inner {}

    #[test]
    fn converts_with_causes() {
        let error = Error::from(Outer(Inner));
        assert_eq!(error.to_string(), "reading config: config-get failed");
        assert_eq!(
            format!("{error:?}"),
            "Error(\"reading config: config-get failed\")"
        );
        assert!(error.downcast_ref::<Outer>().is_some());
    }

    #[test]
    fn question_mark_on_serde_errors() {
        fn parse() -> Result<serde_json::Value, Error> {
            Ok(serde_json::from_str("{")?)
        }
        let e = parse().unwrap_err();
        assert!(e.to_string().contains("EOF"));
        assert!(matches!(e.kind(), ErrorKind::Other(_)));
    }

    #[test]
    fn sdk_errors_keep_their_kind_through_question_mark() {
        fn model() -> Result<(), Error> {
            Err(ModelError::NotLeader("relation-set --app".into()))?
        }
        fn pebble() -> Result<(), Error> {
            Err(PebbleError::Timeout("late".into()))?
        }
        fn status() -> Result<(), Error> {
            Err(StatusError::Refused(
                "scope `handler/x` is the host's".into(),
            ))?
        }
        let e = model().unwrap_err().context("publishing the address");
        assert!(matches!(
            e.kind(),
            ErrorKind::Model(ModelError::NotLeader(_))
        ));
        assert_eq!(
            e.to_string(),
            "publishing the address: not the leader: relation-set --app"
        );
        assert!(matches!(
            pebble().unwrap_err().into_kind(),
            ErrorKind::Pebble(PebbleError::Timeout(_))
        ));
        assert!(matches!(
            status().unwrap_err().kind(),
            ErrorKind::Status(StatusError::Refused(_))
        ));
        assert_eq!(
            status().unwrap_err().downcast_ref::<StatusError>(),
            Some(&StatusError::Refused(
                "scope `handler/x` is the host's".into()
            ))
        );
        assert!(Error::msg("x").downcast_ref::<StatusError>().is_none());
        assert!(
            Error::from(ActionError::NotInAction("install".into()))
                .downcast_ref::<ActionError>()
                .is_some()
        );
    }
}
