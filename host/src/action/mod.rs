//! The `action` WIT interface: the running action's parameters, results,
//! failure and progress messages, answered by Juju's action tools
//! (reference juju-protocol.md §2.12). The built-in actions the host answers
//! itself are `crate::actions`.
//!
//! One [`Action`] serves a whole event and is handed from handler to
//! handler, like the model: `action-get` runs once per event and its answer,
//! checked against the action's schema in actions.yaml, is cached. Results,
//! failures and progress messages go to Juju at the call, as Juju's own
//! tools act: they are the action's output, not the unit's state, so they
//! are not transactional per handler.
//!
//! Every call is checked before its tool runs (keys as Juju checks them, the
//! argv limit, NUL) and bounded per event (DESIGN §7); outside an action
//! every call is `not-in-action` and runs nothing. What the pipeline does
//! with a handler's return value during an action is `crate::dispatch`'s.

pub mod results;

#[cfg(test)]
mod tests;

use crate::bindings::Event;
use crate::bindings::action::{ActionError, Host, ToolFailure};
use crate::charm_dir::{Actions, ParamsSchema};
use crate::hook_tools::{HOST_CALLS_TIMEOUT, HookTools};
use crate::text::argv_text;
use results::MAX_ARG_ELEMENT;
use std::sync::Arc;
use std::time::Instant;

/// Hook-tool calls the guest may cause through this interface per event
/// (`action-get` runs once at most). Past it, a call is refused.
pub const MAX_ACTION_TOOL_CALLS_PER_EVENT: usize = 1000;
/// Progress messages per event: each is a record Juju keeps with the
/// operation, and a process run under the machine-wide hook lock.
pub const MAX_ACTION_LOGS_PER_EVENT: usize = 500;
/// Bytes of progress messages per event.
pub const MAX_ACTION_LOG_BYTES_PER_EVENT: usize = 1 << 20;
/// Bytes of results (keys and values) per event: Juju keeps them with the
/// operation in its database, and `juju run` prints them all.
pub const MAX_RESULT_BYTES_PER_EVENT: usize = 1 << 20;

/// The action that runs, for the host and its `action` interface.
struct Running {
    name: String,
    schema: ParamsSchema,
}

/// What the guest has used of its per-event bounds.
#[derive(Debug, Default)]
struct Budget {
    tool_calls: usize,
    logs: usize,
    log_bytes: usize,
    result_bytes: usize,
}

/// The `action` interface for one event.
pub struct Action {
    tools: Arc<dyn HookTools>,
    /// When the tools run now must have finished: the handler's deadline.
    deadline: Instant,
    /// `None` in a hook, or while the component declares its handlers.
    running: Option<Running>,
    /// Why no action runs, for the error outside an action (`the event is
    /// config-changed, not an action`).
    not_an_action: String,
    /// `action-get`'s answer, checked, as the JSON text the guest gets.
    params: Option<Result<String, ActionError>>,
    budget: Budget,
    /// The message the action was last failed with this event.
    failed: Option<String>,
}

impl Action {
    /// The interface for `event` (described as the logs name it), answered
    /// by `tools`; the schema of an action comes from `actions`.
    pub fn new(
        tools: Arc<dyn HookTools>,
        event: &Event,
        described: &str,
        actions: &Actions,
    ) -> Action {
        let running = match event {
            Event::Action(a) => Some(Running {
                name: a.name.clone(),
                schema: actions.schema(&a.name),
            }),
            _ => None,
        };
        Action {
            tools,
            deadline: Instant::now() + HOST_CALLS_TIMEOUT,
            running,
            not_an_action: format!("the event is {described}, not an action"),
            params: None,
            budget: Budget::default(),
            failed: None,
        }
    }

    /// The interface outside any event (`why` says so: `no event runs
    /// while …`): every call is `not-in-action`, and no tool can run.
    pub fn outside(why: &str) -> Action {
        Action {
            tools: Arc::new(crate::hook_tools::Unavailable(
                "no action runs while the component declares its handlers",
            )),
            deadline: Instant::now(),
            running: None,
            not_an_action: why.to_string(),
            params: None,
            budget: Budget::default(),
            failed: None,
        }
    }

    /// Tool calls from now on must finish by `deadline`.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// The message the action was failed with during this event, if it was.
    pub fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// The host fails the action for `reason` (a handler's error or trap),
    /// within the host's own budget for tool calls, never counted nor
    /// refused: NUL is replaced and the message cut to one argv element.
    /// `Err` says why `action-fail` did not take it, naming the tool.
    pub fn fail_for_host(&mut self, reason: &str) -> Result<(), String> {
        let message = argv_text(reason).into_owned();
        let message = message[..message.floor_char_boundary(MAX_ARG_ELEMENT)].to_string();
        self.deadline = Instant::now() + HOST_CALLS_TIMEOUT;
        self.run("action-fail", &["--", &message])
            .map_err(|e| describe_error(&e))?;
        self.failed = Some(message);
        Ok(())
    }

    /// The running action, or the guest's `not-in-action` error for `call`.
    fn running(&self, call: &str) -> Result<&Running, ActionError> {
        self.running.as_ref().ok_or_else(|| {
            ActionError::NotInAction(format!(
                "action.{call}: {}: only an action has parameters, results and progress messages",
                self.not_an_action
            ))
        })
    }

    /// Count a guest's tool call, refusing it past the per-event bound.
    fn count_call(&mut self, tool: &str) -> Result<(), ActionError> {
        if self.budget.tool_calls >= MAX_ACTION_TOOL_CALLS_PER_EVENT {
            return Err(ActionError::InvalidArgument(format!(
                "{tool} not run: the charm made {MAX_ACTION_TOOL_CALLS_PER_EVENT} action-tool calls in this event, the limit (MAX_ACTION_TOOL_CALLS_PER_EVENT)"
            )));
        }
        self.budget.tool_calls += 1;
        Ok(())
    }

    /// Run a tool, turning a failure into the error that names it.
    fn run(&self, tool: &str, args: &[&str]) -> Result<Vec<u8>, ActionError> {
        let out = self
            .tools
            .call(tool, args, None, self.deadline)
            .map_err(|e| failure(tool, -1, format!("cannot run {tool}: {e}")))?;
        if out.code == 0 {
            return Ok(out.stdout);
        }
        let message = out.stderr.trim().trim_start_matches("ERROR ").to_string();
        let message = if message.is_empty() {
            format!("{tool} exited with code {}", out.code)
        } else {
            message
        };
        Err(failure(tool, out.code, message))
    }

    /// `action-get --format=json`, checked against the schema.
    fn read_params(&mut self) -> Result<String, ActionError> {
        self.count_call("action-get")?;
        let out = self.run("action-get", &["--format=json"])?;
        let given: serde_json::Value = serde_json::from_slice(&out).map_err(|e| {
            failure(
                "action-get",
                0,
                format!(
                    "action-get answered something that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&out).trim()
                ),
            )
        })?;
        let running = self.running("params")?;
        let params = running.schema.check(given).map_err(|why| {
            ActionError::InvalidParams(format!("action `{}`: {why}", running.name))
        })?;
        Ok(serde_json::Value::Object(params).to_string())
    }

    /// Refuse text a tool cannot take as its one argument: NUL, or more
    /// than one argv element.
    fn check_text(tool: &str, what: &str, text: &str) -> Result<(), ActionError> {
        if text.contains('\0') {
            return Err(ActionError::InvalidArgument(format!(
                "{tool}: the {what} contains a NUL character, which argv cannot carry; remove it"
            )));
        }
        if text.len() > MAX_ARG_ELEMENT {
            return Err(ActionError::InvalidArgument(format!(
                "{tool}: the {what} is {} bytes, over the {MAX_ARG_ELEMENT} bytes of one argv element (Linux's 128 KiB); shorten it",
                text.len()
            )));
        }
        Ok(())
    }
}

fn failure(tool: &str, exit_code: i32, message: String) -> ActionError {
    ActionError::ToolFailed(ToolFailure {
        tool: tool.to_string(),
        exit_code,
        message,
    })
}

/// An action error as the operator should read it, in one line.
pub fn describe_error(e: &ActionError) -> String {
    match e {
        ActionError::NotInAction(m)
        | ActionError::InvalidArgument(m)
        | ActionError::InvalidParams(m) => m.clone(),
        ActionError::ToolFailed(f) if f.exit_code > 0 => {
            format!("{} exited with code {}: {}", f.tool, f.exit_code, f.message)
        }
        ActionError::ToolFailed(f) if f.message.contains(f.tool.as_str()) => f.message.clone(),
        ActionError::ToolFailed(f) => format!("{}: {}", f.tool, f.message),
    }
}

impl Host for Action {
    fn params(&mut self) -> Result<String, ActionError> {
        self.running("params")?;
        if let Some(cached) = &self.params {
            return cached.clone();
        }
        let params = self.read_params();
        self.params = Some(params.clone());
        params
    }

    fn set_results(&mut self, results: Vec<(String, String)>) -> Result<(), ActionError> {
        self.running("set-results")?;
        results::check(&results)
            .map_err(|why| ActionError::InvalidArgument(format!("action-set not run: {why}")))?;
        let bytes: usize = results.iter().map(|(k, v)| k.len() + v.len()).sum();
        let total = self.budget.result_bytes + bytes;
        if total > MAX_RESULT_BYTES_PER_EVENT {
            return Err(ActionError::InvalidArgument(format!(
                "action-set not run: this event's results would be {total} bytes, over the limit of {MAX_RESULT_BYTES_PER_EVENT} (MAX_RESULT_BYTES_PER_EVENT); an action's results are for people and scripts to read: leave bulk data where the workload keeps it and return where"
            )));
        }
        for call in results::calls(&results) {
            self.count_call("action-set")?;
            let args: Vec<&str> = call.iter().map(String::as_str).collect();
            self.run("action-set", &args)?;
        }
        self.budget.result_bytes = total;
        Ok(())
    }

    fn fail(&mut self, message: String) -> Result<(), ActionError> {
        self.running("fail")?;
        Action::check_text("action-fail", "message", &message)?;
        self.count_call("action-fail")?;
        if message.is_empty() {
            // Juju's default message says more than an empty one.
            self.run("action-fail", &[])?;
            self.failed = Some(DEFAULT_FAIL_MESSAGE.to_string());
        } else {
            self.run("action-fail", &["--", &message])?;
            self.failed = Some(message);
        }
        Ok(())
    }

    fn log(&mut self, message: String) -> Result<(), ActionError> {
        self.running("log")?;
        Action::check_text("action-log", "message", &message)?;
        let b = &self.budget;
        if b.logs >= MAX_ACTION_LOGS_PER_EVENT {
            return Err(ActionError::InvalidArgument(format!(
                "action-log not run: the charm sent {MAX_ACTION_LOGS_PER_EVENT} progress messages in this event, the limit (MAX_ACTION_LOGS_PER_EVENT); send fewer, or log the detail with log::info"
            )));
        }
        if b.log_bytes + message.len() > MAX_ACTION_LOG_BYTES_PER_EVENT {
            return Err(ActionError::InvalidArgument(format!(
                "action-log not run: this event's progress messages would pass {MAX_ACTION_LOG_BYTES_PER_EVENT} bytes, the limit (MAX_ACTION_LOG_BYTES_PER_EVENT); send less, or log the detail with log::info"
            )));
        }
        self.count_call("action-log")?;
        self.run("action-log", &["--", &message])?;
        self.budget.logs += 1;
        self.budget.log_bytes += message.len();
        Ok(())
    }
}

/// What Juju says of an action failed without a message (reference §2.12).
pub const DEFAULT_FAIL_MESSAGE: &str =
    "action failed without reason given, check action for errors";

/// Register the `action` interface, answered by the event's [`Action`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut Action,
) -> wasmtime::Result<()> {
    crate::bindings::action::add_to_linker::<T, wasmtime::component::HasSelf<Action>>(linker, get)
}
