//! The recording's format: one JSON document per event ([`Recorded`]), one
//! a line, the newest last; and how the file is kept within its bounds.
//! Pure: no I/O here.
//!
//! Bytes that are not UTF-8 (in a tool's or a command's output, or a tool's
//! stdin) are kept as UTF-8 with replacement characters: hook tools speak
//! text, and a replay needs only what the host made of it.

pub mod state_once;
pub mod store_once;

use super::Bounds;
use crate::bindings::workload::{CommandOutput, Exit, ServiceStatus, ToolFailure, WorkloadError};
use crate::hook_tools::ToolOutput;
use crate::probe::{Check, Outcome as ProbeOutcome};
use crate::show::{HandlerResult, Report};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The version of the document; a replay refuses a newer one. Format 2
/// keeps the store once, then its changes (`store_once`); 1 is read too.
pub const FORMAT: u32 = 2;

/// One event, as the host saw it and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Recorded {
    pub format: u32,
    /// The version of the host that ran it.
    pub host: String,
    /// The event as the store's history names it (`config-changed`);
    /// `None` when none was read (an unknown hook, a bad environment).
    #[serde(default)]
    pub event: Option<String>,
    /// Seconds since the Unix epoch the event ran at.
    pub time: u64,
    /// The `JUJU_*` variables (and `CHARM_DIR`) of the hook.
    pub env: BTreeMap<String, String>,
    /// Where the scope store was kept.
    pub backend: Backend,
    /// The hash of the store the event left (`store_once::sha256`). Before
    /// `store`: the first key of the line with this name is this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_left_sha256: Option<String>,
    /// The store as loaded is the one the event before this one in the
    /// file left (`store` is then absent; see `store_once`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub store_previous: bool,
    /// The store as loaded before the event, local or juju (a juju store
    /// is read through `state-get`, one of the calls, which then leaves
    /// the store's keys out: `state_once`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<Value>,
    /// Why the store could not be loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
    /// Every hook-tool call, in order.
    #[serde(default)]
    pub calls: Vec<ToolCall>,
    /// Every probe run, in the order they ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<ProbeRun>,
    /// Every reading of the probes' clock, in milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<u64>,
    /// Every workload call, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload: Vec<WorkloadCall>,
    pub outcome: Outcome,
}

impl Recorded {
    /// An event of this host, before anything of it is known.
    pub fn empty() -> Recorded {
        Recorded {
            format: FORMAT,
            host: env!("CARGO_PKG_VERSION").to_string(),
            event: None,
            time: 0,
            env: BTreeMap::new(),
            backend: Backend::Local,
            store: None,
            store_previous: false,
            store_left_sha256: None,
            store_error: None,
            calls: Vec::new(),
            probes: Vec::new(),
            clock: Vec::new(),
            workload: Vec::new(),
            outcome: Outcome::default(),
        }
    }
}

/// Where an event's scope store was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    Local,
    Juju,
}

/// One hook-tool call: `argv[0]` is the tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ToolCall {
    pub argv: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    pub answer: ToolAnswer,
    /// The store's keys of Juju's charm state are left out of this call's
    /// answer (`state-get`) or input (`state-set`): the event's stores
    /// make them again (`state_once`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub store_keys_omitted: bool,
}

impl ToolCall {
    /// A call that exited 0 printing `stdout`, for tests: `argv[0]` is the
    /// tool.
    #[cfg(test)]
    pub fn exited_ok(argv: &[&str], stdout: &str) -> ToolCall {
        ToolCall::new(
            argv[0],
            &argv[1..],
            None,
            ToolAnswer::Exited {
                code: 0,
                stdout: stdout.into(),
                stderr: String::new(),
            },
        )
    }

    pub fn new(tool: &str, args: &[&str], stdin: Option<&[u8]>, answer: ToolAnswer) -> Self {
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.push(tool.to_string());
        argv.extend(args.iter().map(|a| a.to_string()));
        ToolCall {
            argv,
            stdin: stdin.map(|s| String::from_utf8_lossy(s).into_owned()),
            answer,
            store_keys_omitted: false,
        }
    }

    /// The call as one line: argv shell-quoted, and the stdin it was fed.
    pub fn line(&self) -> String {
        let mut line = shell_words(&self.argv);
        if let Some(stdin) = &self.stdin {
            line.push_str(" <<< ");
            line.push_str(&quote(stdin));
        }
        line
    }
}

/// What a hook tool answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum ToolAnswer {
    /// It ran and exited.
    Exited {
        code: i32,
        #[serde(default)]
        stdout: String,
        #[serde(default)]
        stderr: String,
    },
    /// It could not be run, or was stopped at the deadline.
    NotRun {
        error: String,
        #[serde(default)]
        timed_out: bool,
    },
}

impl ToolAnswer {
    pub fn of(result: &std::io::Result<ToolOutput>) -> Self {
        match result {
            Ok(out) => ToolAnswer::Exited {
                code: out.code,
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: out.stderr.clone(),
            },
            Err(e) => ToolAnswer::NotRun {
                error: e.to_string(),
                timed_out: e.kind() == std::io::ErrorKind::TimedOut,
            },
        }
    }

    /// The answer again, as the tool gave it.
    pub fn result(&self) -> std::io::Result<ToolOutput> {
        match self {
            ToolAnswer::Exited {
                code,
                stdout,
                stderr,
            } => Ok(ToolOutput {
                code: *code,
                stdout: stdout.clone().into_bytes(),
                stderr: stderr.clone(),
            }),
            ToolAnswer::NotRun { error, timed_out } => Err(std::io::Error::new(
                if *timed_out {
                    std::io::ErrorKind::TimedOut
                } else {
                    std::io::ErrorKind::Other
                },
                error.clone(),
            )),
        }
    }
}

/// One probe run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProbeRun {
    pub name: String,
    pub healthy: bool,
    pub detail: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waiting: bool,
    /// The process a process probe found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    pub attempts: u32,
}

impl ProbeRun {
    pub fn new(name: &str, outcome: &ProbeOutcome) -> Self {
        ProbeRun {
            name: name.to_string(),
            healthy: outcome.check.healthy,
            detail: outcome.check.detail.clone(),
            waiting: outcome.check.waiting,
            pid: outcome.check.pid,
            attempts: outcome.attempts,
        }
    }

    pub fn outcome(&self) -> ProbeOutcome {
        ProbeOutcome {
            check: Check {
                healthy: self.healthy,
                detail: self.detail.clone(),
                waiting: self.waiting,
                pid: self.pid,
            },
            attempts: self.attempts,
        }
    }
}

/// One workload call: `call` names it (`["service", unit, action]`,
/// `["service-state", unit]`, `["run-command", name, argv…]`,
/// `["package-installed", package]`, `["install-packages", package…]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct WorkloadCall {
    pub call: Vec<String>,
    pub answer: WorkloadAnswer,
}

/// What a workload call answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadAnswer {
    Done,
    State {
        active: String,
        enabled: String,
    },
    Installed(bool),
    Output {
        exit: CommandExit,
        stdout: String,
        stderr: String,
        truncated: bool,
    },
    Error(CallError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum CommandExit {
    Code(i32),
    Signal(i32),
    TimedOut,
}

/// The `workload-error` of the WIT interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum CallError {
    Undeclared(String),
    Failed {
        tool: String,
        code: Option<i32>,
        message: String,
    },
    Unavailable(String),
}

/// The words a workload call is recorded, and matched in a replay, by:
/// the recorder and the replay's answers build them here, so that a call
/// recorded is a call found.
pub mod call_words {
    use crate::bindings::workload::ServiceAction;

    fn words(first: &str, rest: &[&str]) -> Vec<String> {
        std::iter::once(first)
            .chain(rest.iter().copied())
            .map(str::to_string)
            .collect()
    }

    pub fn service(unit: &str, action: ServiceAction) -> Vec<String> {
        words("service", &[unit, crate::workload::services::verb(action)])
    }

    pub fn service_state(unit: &str) -> Vec<String> {
        words("service-state", &[unit])
    }

    pub fn run_command(name: &str, argv: &[String]) -> Vec<String> {
        let mut call = words("run-command", &[name]);
        call.extend(argv.iter().cloned());
        call
    }

    pub fn package_installed(package: &str) -> Vec<String> {
        words("package-installed", &[package])
    }

    pub fn install_packages(packages: &[String]) -> Vec<String> {
        let mut call = vec!["install-packages".to_string()];
        call.extend(packages.iter().cloned());
        call
    }
}

impl From<&WorkloadError> for CallError {
    fn from(e: &WorkloadError) -> Self {
        match e {
            WorkloadError::Undeclared(m) => CallError::Undeclared(m.clone()),
            WorkloadError::Failed(f) => CallError::Failed {
                tool: f.tool.clone(),
                code: f.code,
                message: f.message.clone(),
            },
            WorkloadError::Unavailable(m) => CallError::Unavailable(m.clone()),
        }
    }
}

impl From<&CallError> for WorkloadError {
    fn from(e: &CallError) -> Self {
        match e {
            CallError::Undeclared(m) => WorkloadError::Undeclared(m.clone()),
            CallError::Failed {
                tool,
                code,
                message,
            } => WorkloadError::Failed(ToolFailure {
                tool: tool.clone(),
                code: *code,
                message: message.clone(),
            }),
            CallError::Unavailable(m) => WorkloadError::Unavailable(m.clone()),
        }
    }
}

impl WorkloadAnswer {
    pub fn of_unit(r: &Result<(), WorkloadError>) -> Self {
        match r {
            Ok(()) => WorkloadAnswer::Done,
            Err(e) => WorkloadAnswer::Error(e.into()),
        }
    }

    pub fn of_state(r: &Result<ServiceStatus, WorkloadError>) -> Self {
        match r {
            Ok(s) => WorkloadAnswer::State {
                active: s.active.clone(),
                enabled: s.enabled.clone(),
            },
            Err(e) => WorkloadAnswer::Error(e.into()),
        }
    }

    pub fn of_installed(r: &Result<bool, WorkloadError>) -> Self {
        match r {
            Ok(b) => WorkloadAnswer::Installed(*b),
            Err(e) => WorkloadAnswer::Error(e.into()),
        }
    }

    pub fn of_output(r: &Result<CommandOutput, WorkloadError>) -> Self {
        match r {
            Ok(o) => WorkloadAnswer::Output {
                exit: match o.exit {
                    Exit::Code(c) => CommandExit::Code(c),
                    Exit::Signal(s) => CommandExit::Signal(s),
                    Exit::TimedOut => CommandExit::TimedOut,
                },
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                truncated: o.truncated,
            },
            Err(e) => WorkloadAnswer::Error(e.into()),
        }
    }

    /// The answer as a call of another shape would read it: a recording
    /// that answers differently is an `unavailable` error naming both.
    fn mismatch(&self, wanted: &str) -> WorkloadError {
        WorkloadError::Unavailable(format!(
            "the recording answers this call with {self:?}, not {wanted}"
        ))
    }

    pub fn unit(&self) -> Result<(), WorkloadError> {
        match self {
            WorkloadAnswer::Done => Ok(()),
            WorkloadAnswer::Error(e) => Err(e.into()),
            other => Err(other.mismatch("done")),
        }
    }

    pub fn state(&self) -> Result<ServiceStatus, WorkloadError> {
        match self {
            WorkloadAnswer::State { active, enabled } => Ok(ServiceStatus {
                active: active.clone(),
                enabled: enabled.clone(),
            }),
            WorkloadAnswer::Error(e) => Err(e.into()),
            other => Err(other.mismatch("a service state")),
        }
    }

    pub fn installed(&self) -> Result<bool, WorkloadError> {
        match self {
            WorkloadAnswer::Installed(b) => Ok(*b),
            WorkloadAnswer::Error(e) => Err(e.into()),
            other => Err(other.mismatch("installed or not")),
        }
    }

    pub fn output(&self) -> Result<CommandOutput, WorkloadError> {
        match self {
            WorkloadAnswer::Output {
                exit,
                stdout,
                stderr,
                truncated,
            } => Ok(CommandOutput {
                exit: match exit {
                    CommandExit::Code(c) => Exit::Code(*c),
                    CommandExit::Signal(s) => Exit::Signal(*s),
                    CommandExit::TimedOut => Exit::TimedOut,
                },
                stdout: stdout.clone().into_bytes(),
                stderr: stderr.clone().into_bytes(),
                truncated: *truncated,
            }),
            WorkloadAnswer::Error(e) => Err(e.into()),
            other => Err(other.mismatch("a command's output")),
        }
    }
}

/// How the event ended: what `dispatch` exits with and reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Outcome {
    /// The process's exit code (0: the hook succeeded).
    pub exit: i32,
    /// Why the hook failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
    /// Each handler that ran, and how it ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handlers: Vec<HandlerRun>,
    /// The targets whose status was written (`unit`, `app`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrote: Vec<String>,
    /// The merged statuses, `<status>: <message>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Why nothing ran (a hook the charm has no event for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_failed: Option<String>,
    /// The store the event left (as loaded, when it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<Value>,
    /// Instead of `store`, for a local store: the changes from the store
    /// as loaded (a JSON merge patch, `store_once`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_changes: Option<Value>,
}

/// One handler's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct HandlerRun {
    pub handler: String,
    pub result: String,
}

/// A handler's result in words.
pub fn describe_result(result: &HandlerResult) -> String {
    let status = |s: &crate::bindings::Status| {
        format!(
            "{}: {}",
            crate::status::merge::Kind::from(s.kind).as_str(),
            s.message
        )
    };
    match result {
        HandlerResult::Set(s) => format!("set {}", status(s)),
        HandlerResult::Cleared => "cleared".to_string(),
        HandlerResult::Error(e) => format!("error: {e}"),
        HandlerResult::Trapped(t) => format!("trapped: {t}"),
        HandlerResult::ActionDone(None) => "action done".to_string(),
        HandlerResult::ActionDone(Some(s)) => format!("action done, returned {}", status(s)),
    }
}

impl Outcome {
    /// What `run_event` returned, as `dispatch` ends on it (exit 1 for an
    /// error before any handler ran, or for any failure).
    pub fn of(result: &anyhow::Result<Report>) -> Self {
        let report = match result {
            Err(e) => {
                return Outcome {
                    exit: 1,
                    failures: vec![format!("{e:#}")],
                    ..Outcome::default()
                };
            }
            Ok(report) => report,
        };
        let merged = |m: &crate::status::merge::Merged| {
            format!("{}: {}", m.written.status.as_str(), m.written.message)
        };
        Outcome {
            exit: i32::from(!report.failures.is_empty()),
            failures: report.failures.clone(),
            handlers: report
                .handlers
                .iter()
                .map(|(h, r)| HandlerRun {
                    handler: h.clone(),
                    result: describe_result(r),
                })
                .collect(),
            wrote: report
                .wrote
                .iter()
                .map(|t| t.as_str().to_string())
                .collect(),
            unit: report.unit.as_ref().map(merged),
            app: report.app.as_ref().map(merged),
            ignored: report.ignored.clone(),
            action_failed: report.action_failed.clone(),
            store: report
                .ignored
                .is_none()
                .then(|| serde_json::to_value(&report.store).ok())
                .flatten(),
            store_changes: None,
        }
    }
}

impl Outcome {
    /// The same outcome with the directory `from` (a replay's copy of the
    /// charm) written as `to` (the unit's charm directory) wherever a
    /// message names it, so that a message naming a file of the charm
    /// compares equal to the recorded one.
    pub fn relocated(mut self, from: &str, to: &str) -> Outcome {
        if from.is_empty() || from == to {
            return self;
        }
        let fix = |s: &mut String| {
            if s.contains(from) {
                *s = s.replace(from, to);
            }
        };
        self.failures.iter_mut().for_each(fix);
        self.handlers.iter_mut().for_each(|h| fix(&mut h.result));
        self.action_failed.iter_mut().for_each(fix);
        self.ignored.iter_mut().for_each(fix);
        self
    }
}

/// A line of the recording that is no event document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// The events of a recording's text, oldest first; blank lines are skipped.
pub fn parse(text: &str) -> Result<Vec<Recorded>, LineError> {
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let error = |message: String| LineError {
            line: i + 1,
            message,
        };
        let doc: Recorded = serde_json::from_str(line).map_err(|e| error(e.to_string()))?;
        if !(1..=FORMAT).contains(&doc.format) {
            return Err(error(format!(
                "field `format`: {} is not 1 to {FORMAT}, the formats this host reads{}",
                doc.format,
                if doc.format > FORMAT {
                    " (written by a newer host)"
                } else {
                    ""
                }
            )));
        }
        events.push((i + 1, doc));
    }
    let (lines, mut events): (Vec<usize>, Vec<Recorded>) = events.into_iter().unzip();
    store_once::resolve(&mut events).map_err(|n| LineError {
        line: lines[n],
        message: "field `store-previous`: no event before it left a store".to_string(),
    })?;
    for (line, rec) in lines.iter().zip(&mut events) {
        state_once::restore(rec).map_err(|message| LineError {
            line: *line,
            message,
        })?;
    }
    Ok(events)
}

/// The recording's text once `rec` is added to `old`, its store kept once
/// (`store_once`): as [`append`], the first event kept holding its whole
/// store.
pub fn append_event(old: &str, mut rec: Recorded, bounds: Bounds) -> Result<String, String> {
    state_once::omit(&mut rec);
    store_once::compact(&mut rec);
    let old_lines: Vec<&str> = old.lines().filter(|l| !l.trim().is_empty()).collect();
    if let Some(last) = old_lines.last()
        && store_once::follows(&rec, last)
    {
        rec.store = None;
        rec.store_previous = true;
    }
    let line = serde_json::to_string(&rec).map_err(|e| format!("cannot encode the event: {e}"))?;
    let mut text = append(old, &line, bounds)?;
    // The oldest event kept must hold its whole store.
    loop {
        let kept: Vec<&str> = text.lines().collect();
        let dropped = old_lines.len() + 1 - kept.len();
        let Some(first) = kept.first() else {
            return Ok(text);
        };
        if dropped == 0 {
            return Ok(text);
        }
        let whole = match store_once::materialize(&old_lines[..dropped], first) {
            Some(None) => return Ok(text),
            Some(Some(whole)) => Some(whole),
            None => None,
        };
        let rest = &kept[1..];
        let size = whole.as_ref().map_or(0, |w| w.len() + 1)
            + rest.iter().map(|l| l.len() + 1).sum::<usize>();
        let mut next = String::with_capacity(size);
        match whole {
            Some(whole) if size <= bounds.bytes => {
                next.push_str(&whole);
                next.push('\n');
            }
            // Too large with its store, or its store cannot be made: it
            // goes too, and the next one is made whole instead.
            _ => {}
        }
        let done = !next.is_empty();
        for l in rest {
            next.push_str(l);
            next.push('\n');
        }
        if done || rest.is_empty() {
            return Ok(next);
        }
        text = next;
    }
}

/// The recording's text once `line` (one event's document, no newline) is
/// added to `old`: the newest `bounds.events` lines that fit in
/// `bounds.bytes`, oldest dropped. `Err`: the event alone is larger than
/// the bound, and is not kept.
pub fn append(old: &str, line: &str, bounds: Bounds) -> Result<String, String> {
    if line.len() + 1 > bounds.bytes {
        return Err(format!(
            "the event's record is {} bytes, over the recording's bound of {}",
            line.len() + 1,
            bounds.bytes
        ));
    }
    let mut kept: Vec<&str> = vec![line];
    let mut bytes = line.len() + 1;
    for old_line in old.lines().rev().filter(|l| !l.trim().is_empty()) {
        if kept.len() >= bounds.events || bytes + old_line.len() + 1 > bounds.bytes {
            break;
        }
        bytes += old_line.len() + 1;
        kept.push(old_line);
    }
    let mut text = String::with_capacity(bytes);
    for l in kept.iter().rev() {
        text.push_str(l);
        text.push('\n');
    }
    Ok(text)
}

/// `argv` as a shell would read it back.
pub fn shell_words(argv: &[String]) -> String {
    argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// One word, single-quoted when it holds anything but plain characters.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
