//! The unit's log, as `juju debug-log` shows it.
//!
//! ```no_run
//! use wasm_charm::log;
//!
//! log::info("configuring the gateway");
//! log::warning(format!("unknown kind {:?}, ignored", "sideways"));
//! ```
//!
//! A guest's standard output and error are forwarded to the log too, but
//! without a level: prefer these.

use crate::__bindings::wasm_charm::charm::model::{LogLevel, log};

/// Log `message` at level `DEBUG` (ops: `logging.debug` through the
/// Juju log handler).
///
/// ```no_run
/// wasm_charm::log::debug(format!("port {} configured", 8080));
/// ```
#[doc(alias = "juju-log")]
pub fn debug(message: impl AsRef<str>) {
    log(LogLevel::Debug, message.as_ref());
}

/// Log `message` at level `INFO` (ops: `logging.info` through the
/// Juju log handler).
///
/// ```no_run
/// wasm_charm::log::info(format!("port {} configured", 8080));
/// ```
#[doc(alias = "juju-log")]
pub fn info(message: impl AsRef<str>) {
    log(LogLevel::Info, message.as_ref());
}

/// Log `message` at level `WARNING` (ops: `logging.warning` through the
/// Juju log handler).
///
/// ```no_run
/// wasm_charm::log::warning(format!("port {} configured", 8080));
/// ```
#[doc(alias = "juju-log")]
pub fn warning(message: impl AsRef<str>) {
    log(LogLevel::Warning, message.as_ref());
}

/// Log `message` at level `ERROR` (ops: `logging.error` through the
/// Juju log handler).
///
/// ```no_run
/// wasm_charm::log::error(format!("port {} configured", 8080));
/// ```
#[doc(alias = "juju-log")]
pub fn error(message: impl AsRef<str>) {
    log(LogLevel::Error, message.as_ref());
}
