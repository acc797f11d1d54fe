//! A tool's answer as the typed error the guest matches, and a model error
//! as the operator reads it.

use crate::bindings::model::{ModelError, ToolFailure};
use crate::hook_tools::ToolOutput;

/// A model error as the operator should read it, in one line: the
/// generated `Display` of WIT types is their `Debug`.
pub fn describe_error(e: &ModelError) -> String {
    match e {
        ModelError::RelationNotFound(m)
        | ModelError::NotLeader(m)
        | ModelError::InvalidArgument(m)
        | ModelError::NotFound(m)
        | ModelError::PermissionDenied(m)
        | ModelError::TooManyRelations(m) => m.clone(),
        ModelError::ToolFailed(f) if f.message.contains(f.tool.as_str()) => f.message.clone(),
        ModelError::ToolFailed(f) if f.exit_code > 0 => {
            format!("{} exited with code {}: {}", f.tool, f.exit_code, f.message)
        }
        ModelError::ToolFailed(f) => format!("{}: {}", f.tool, f.message),
    }
}

/// `tool-failed`, naming the tool.
pub(super) fn failure(tool: &str, exit_code: i32, message: String) -> ModelError {
    ModelError::ToolFailed(ToolFailure {
        tool: tool.to_string(),
        exit_code,
        message,
    })
}

/// Map a tool's answer to Juju's error kinds, the way ops reads them
/// (reference §2.0, ops' `_wrap_hookcmd`): stderr names relations not
/// found, missing leadership, refused access, and other things not found.
/// Each kind keeps the tool's words; exit 1 and exit 2 map alike, since ops
/// reads only the words (a bad `-r` exits 2, an unknown storage id too).
pub(super) fn classify(tool: &str, out: ToolOutput) -> Result<Vec<u8>, ModelError> {
    if out.code == 0 {
        return Ok(out.stdout);
    }
    let message = out.stderr.trim().trim_start_matches("ERROR ").to_string();
    let message = if message.is_empty() {
        format!("{tool} exited with code {}", out.code)
    } else {
        message
    };
    if message.contains("relation not found") {
        Err(ModelError::RelationNotFound(message))
    } else if message.contains("not the leader")
        || message.contains("cannot write relation settings")
    {
        Err(ModelError::NotLeader(message))
    } else if message.contains("permission denied") || message.contains("access denied") {
        Err(ModelError::PermissionDenied(message))
    } else if message.contains("not found") || message.contains("no network config found") {
        Err(ModelError::NotFound(message))
    } else {
        Err(failure(tool, out.code, message))
    }
}
