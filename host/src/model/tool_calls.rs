//! How the model runs a hook tool: by the budget's deadline, counted when
//! the guest causes it, its failure typed, its JSON read.

use super::Model;
use super::cache::ReadCache;
use super::errors::{classify, failure};
use crate::bindings::model::ModelError;

/// Who makes a tool call: only the guest's are counted and bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Caller {
    Host,
    Guest,
}

impl Model {
    /// Run a tool, turning failures into typed errors that name the tool.
    pub fn run(
        &mut self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, ModelError> {
        let out = self
            .tools
            .call(tool, args, stdin, self.budget.deadline())
            .map_err(|e| failure(tool, -1, format!("cannot run {tool}: {e}")))?;
        classify(tool, out)
    }

    /// Run a tool for `caller`: the guest's calls are counted, and refused
    /// past [`MAX_GUEST_TOOL_CALLS_PER_EVENT`](super::MAX_GUEST_TOOL_CALLS_PER_EVENT).
    pub(super) fn run_as(
        &mut self,
        caller: Caller,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, ModelError> {
        if caller == Caller::Guest {
            self.budget.charge_tool_call(tool)?;
        }
        self.run(tool, args, stdin)
    }

    /// Run a tool for `caller` and read its answer as JSON.
    pub(super) fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        caller: Caller,
        tool: &str,
        args: &[&str],
    ) -> Result<T, ModelError> {
        let out = self.run_as(caller, tool, args, None)?;
        serde_json::from_slice(&out).map_err(|e| {
            failure(
                tool,
                0,
                format!(
                    "{tool} answered something that is not the expected JSON ({e}): {}",
                    String::from_utf8_lossy(&out).trim()
                ),
            )
        })
    }

    /// A tool's `--format=json` answer read once per event: the cached value
    /// `slot` picks, else the tool's (`null` read as the shape's default).
    pub(super) fn cached_json<J, T>(
        &mut self,
        tool: &str,
        slot: fn(&mut ReadCache) -> &mut Option<T>,
    ) -> Result<T, ModelError>
    where
        J: serde::de::DeserializeOwned + Default,
        T: From<J> + Clone,
    {
        if let Some(v) = slot(&mut self.cache) {
            return Ok(v.clone());
        }
        let raw: Option<J> = self.json(Caller::Guest, tool, &["--format=json"])?;
        let value = T::from(raw.unwrap_or_default());
        *slot(&mut self.cache) = Some(value.clone());
        Ok(value)
    }
}
