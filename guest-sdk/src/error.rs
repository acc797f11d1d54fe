//! [`Error`]: what a handler returns when it cannot decide its status.

use std::fmt;

/// A handler's failure: a message for the operator.
///
/// Any [`std::error::Error`] converts into it, so `?` works on the SDK's
/// errors ([`ModelError`](crate::model::ModelError),
/// [`ProbeError`](crate::probe::ProbeError),
/// [`StoredError`](crate::stored::StoredError),
/// [`WorkloadError`](crate::workload::WorkloadError)), on `serde_json` errors and
/// on the standard library's. The message keeps the error's causes, joined with
/// `: `. A handler returning `Err(error)` gets its scope set to blocked with
/// this message (or fails the hook, when the manifest says `on-error: fail`).
///
/// Like `anyhow::Error`, it does not implement [`std::error::Error`] itself:
/// that is what lets every error convert into it.
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
pub struct Error {
    message: String,
}

impl Error {
    /// An error with this message.
    pub fn msg(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }

    /// The same error, its message preceded by `context: `.
    ///
    /// ```
    /// use wasm_charm::Error;
    ///
    /// let error = Error::msg("connection refused").context("reaching the database");
    /// assert_eq!(error.to_string(), "reaching the database: connection refused");
    /// ```
    pub fn context(self, context: impl fmt::Display) -> Self {
        Self {
            message: format!("{context}: {}", self.message),
        }
    }

    /// The message, as the operator will see it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: std::error::Error> From<E> for Error {
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Self { message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Error").field(&self.message).finish()
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
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    impl std::error::Error for Inner {}

    #[test]
    fn converts_with_causes() {
        let error = Error::from(Outer(Inner));
        assert_eq!(error.to_string(), "reading config: config-get failed");
        assert_eq!(
            format!("{error:?}"),
            "Error(\"reading config: config-get failed\")"
        );
    }

    #[test]
    fn question_mark_on_serde_errors() {
        fn parse() -> Result<serde_json::Value, Error> {
            Ok(serde_json::from_str("{")?)
        }
        assert!(parse().unwrap_err().message().contains("EOF"));
    }
}
