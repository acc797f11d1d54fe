//! The unit log, through `juju-log`: the host's own messages, never counted
//! nor dropped, and the guest's, within the event's bounds on messages,
//! bytes and tool calls; past them the guest's are dropped, counted, and
//! reported once at the end of the event.
//!
//! A guest's lines are buffered while they keep one level and sent joined,
//! one `juju-log` when the level changes, when the run fills one argv
//! element, when the handler ends, or before the host logs a line of its
//! own: each `juju-log` is a process, and a handler logging in a loop would
//! otherwise spend its deadline starting them. The unit log keeps the
//! order lines were logged in, as Juju's log sender keeps a unit's records.

use super::Model;
use super::budget::{
    Budget, MAX_GUEST_TOOL_CALLS_PER_EVENT, MAX_LOG_ARG, MAX_LOG_BYTES_PER_EVENT,
    MAX_LOG_MESSAGES_PER_EVENT,
};
use super::errors::describe_error;
use crate::bindings::model::LogLevel;
use crate::text::argv_text;
use std::sync::{Arc, Mutex};

/// Which per-event bound made the host drop the guest's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LogLimit {
    Messages,
    Bytes,
    ToolCalls,
}

impl LogLimit {
    fn describe(self) -> String {
        match self {
            LogLimit::Messages => format!(
                "{MAX_LOG_MESSAGES_PER_EVENT} messages per event (MAX_LOG_MESSAGES_PER_EVENT)"
            ),
            LogLimit::Bytes => {
                format!("{MAX_LOG_BYTES_PER_EVENT} bytes per event (MAX_LOG_BYTES_PER_EVENT)")
            }
            LogLimit::ToolCalls => format!(
                "{MAX_GUEST_TOOL_CALLS_PER_EVENT} hook-tool calls per event (MAX_GUEST_TOOL_CALLS_PER_EVENT)"
            ),
        }
    }
}

/// The guest's lines not yet sent: a run of one level, in the order
/// logged.
#[derive(Debug, Default)]
struct LogBuffer {
    pending: Option<(LogLevel, String, usize)>,
}

/// The event's unsent guest lines, shared by every model of the event: a
/// handler abandoned at its deadline keeps its model, and the host still
/// sends the lines it logged before it hung.
#[derive(Debug, Default)]
pub struct GuestLines(Mutex<LogBuffer>);

impl GuestLines {
    fn lock(&self) -> std::sync::MutexGuard<'_, LogBuffer> {
        // A thread that panicked holding it left whole lines: keep them.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl LogBuffer {
    /// Add `line` at `level`; a run of another level, or one the line
    /// would take past one argv element, comes back whole to be sent
    /// first (with its count).
    fn push(&mut self, level: LogLevel, line: &str) -> Option<(LogLevel, String, usize)> {
        let ends = self
            .pending
            .as_ref()
            .is_some_and(|(l, text, _)| *l != level || text.len() + 1 + line.len() > MAX_LOG_ARG);
        let sent = if ends { self.pending.take() } else { None };
        match &mut self.pending {
            Some((_, text, count)) => {
                text.push('\n');
                text.push_str(line);
                *count += 1;
            }
            None => self.pending = Some((level, line.to_string(), 1)),
        }
        sent
    }

    /// The pending run, leaving the buffer empty.
    fn take(&mut self) -> Option<(LogLevel, String, usize)> {
        self.pending.take()
    }
}

/// What the guest has logged in this event, and dropped.
#[derive(Debug, Default)]
pub(super) struct LogAccount {
    messages: usize,
    bytes: usize,
    /// The bound that first dropped a message: from then on every message
    /// is dropped, so the log shows a head without holes.
    dropped_by: Option<LogLimit>,
    dropped_messages: usize,
    dropped_bytes: usize,
}

impl LogAccount {
    /// Whether a guest message of `len` bytes goes to the log: counted if
    /// so, counted as dropped if not. The tool call is charged when the
    /// buffer is sent ([`LogAccount::send`]).
    fn admit(&mut self, len: usize, budget: &Budget) -> bool {
        if self.dropped_by.is_none() {
            self.dropped_by = if self.messages >= MAX_LOG_MESSAGES_PER_EVENT {
                Some(LogLimit::Messages)
            } else if self.bytes + len > MAX_LOG_BYTES_PER_EVENT {
                Some(LogLimit::Bytes)
            } else if budget.tool_calls_spent() {
                Some(LogLimit::ToolCalls)
            } else {
                None
            };
        }
        if self.dropped_by.is_some() {
            self.drop(1, len);
            return false;
        }
        self.messages += 1;
        self.bytes += len;
        true
    }

    fn drop(&mut self, messages: usize, bytes: usize) {
        self.dropped_messages += messages;
        self.dropped_bytes += bytes;
    }

    /// Whether `count` buffered lines of `bytes` may be sent: one tool call
    /// of `budget`; past it they are dropped, and so is every later line.
    fn send(&mut self, count: usize, bytes: usize, budget: &mut Budget) -> bool {
        if budget.charge_tool_call("juju-log").is_ok() {
            return true;
        }
        self.dropped_by.get_or_insert(LogLimit::ToolCalls);
        self.messages -= count;
        self.bytes -= bytes;
        self.drop(count, bytes);
        false
    }

    /// The warning that says how many messages were dropped, at which
    /// bound; `None` when none were since the last report.
    fn take_drop_report(&mut self) -> Option<String> {
        let limit = self.dropped_by.filter(|_| self.dropped_messages > 0)?;
        let (messages, bytes) = (self.dropped_messages, self.dropped_bytes);
        self.dropped_messages = 0;
        self.dropped_bytes = 0;
        Some(format!(
            "the charm logged more than the unit log takes from one event: {messages} messages ({bytes} bytes) dropped past the limit of {}; log less, or less often",
            limit.describe()
        ))
    }
}

/// Juju's name of a level.
fn level_name(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Debug => "DEBUG",
        LogLevel::Info => "INFO",
        LogLevel::Warning => "WARNING",
        LogLevel::Error => "ERROR",
    }
}

impl Model {
    /// The host's own log: through `juju-log`, never counted nor dropped. A
    /// failure to log is reported on stderr, which Juju also sends to the
    /// unit log, and never fails the event. The message may quote guest text
    /// (a handler's error): NUL is replaced, as argv cannot carry it.
    pub fn log(&mut self, level: LogLevel, message: &str) {
        // The guest's lines so far come first, as they were logged first.
        self.flush_guest_logs();
        self.send_log(level, message);
    }

    /// One `juju-log` call.
    fn send_log(&mut self, level: LogLevel, message: &str) {
        let message = argv_text(message);
        let message = &message[..message.floor_char_boundary(MAX_LOG_ARG)];
        let args = ["--log-level", level_name(level), "--", message];
        if let Err(e) = self.run("juju-log", &args, None) {
            eprintln!(
                "wasm-charm: juju-log failed ({}); the message was: {message}",
                describe_error(&e)
            );
        }
    }

    /// The guest's log: as [`Model::log`], within the per-event bounds on
    /// messages, bytes and tool calls; past them, dropped and counted for
    /// [`Model::report_dropped_logs`].
    pub(super) fn guest_log(&mut self, level: LogLevel, message: &str) {
        let message = &message[..message.floor_char_boundary(MAX_LOG_ARG)];
        if !self.log_account.admit(message.len(), &self.budget) {
            return;
        }
        let full = self.guest_lines.lock().push(level, message);
        if let Some(full) = full {
            self.send_guest_lines(full);
        }
    }

    /// Send the guest's buffered run of lines: at the end of each handler,
    /// and before any line of the host's own.
    pub fn flush_guest_logs(&mut self) {
        let pending = self.guest_lines.lock().take();
        if let Some(pending) = pending {
            self.send_guest_lines(pending);
        }
    }

    /// Share the event's unsent guest lines ([`GuestLines`]).
    pub fn share_guest_lines(&mut self, lines: Arc<GuestLines>) {
        self.guest_lines = lines;
    }

    /// One run's joined lines, within the tool-call bound.
    fn send_guest_lines(&mut self, (level, text, count): (LogLevel, String, usize)) {
        // Joined with one newline each: the lines' own bytes are what the
        // per-event bound counted.
        let bytes = text.len() + 1 - count;
        if self.log_account.send(count, bytes, &mut self.budget) {
            self.send_log(level, &text);
        }
    }

    /// Say, with one WARNING, how many of the guest's log messages this
    /// event dropped and at which bound; nothing when none were. Called at
    /// the end of the event (and safe to call again: the count restarts).
    pub fn report_dropped_logs(&mut self) {
        self.flush_guest_logs();
        if let Some(report) = self.log_account.take_drop_report() {
            self.log(LogLevel::Warning, &report);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::model::Host;
    use crate::hook_tools::ToolOutput;
    use crate::model::tests::{model, tool_calls};

    #[test]
    fn past_the_message_bound_every_message_is_dropped_and_reported_once() {
        let (mut account, budget) = (LogAccount::default(), Budget::new());
        for _ in 0..MAX_LOG_MESSAGES_PER_EVENT {
            assert!(account.admit(10, &budget));
        }
        assert!(!account.admit(10, &budget));
        assert!(!account.admit(0, &budget));
        let report = account.take_drop_report().expect("two were dropped");
        assert!(
            report.contains("2 messages (10 bytes)")
                && report.contains("MAX_LOG_MESSAGES_PER_EVENT"),
            "{report}"
        );
        assert_eq!(account.take_drop_report(), None);
        // Still dropping: a later message is reported again.
        assert!(!account.admit(1, &budget));
        assert!(account.take_drop_report().is_some());
    }

    #[test]
    fn the_first_bound_passed_is_the_one_named() {
        let (mut account, budget) = (LogAccount::default(), Budget::new());
        assert!(account.admit(MAX_LOG_BYTES_PER_EVENT, &budget));
        assert!(!account.admit(1, &budget));
        let report = account.take_drop_report().unwrap_or_default();
        assert!(report.contains("MAX_LOG_BYTES_PER_EVENT"), "{report}");

        let (mut account, mut budget) = (LogAccount::default(), Budget::new());
        while budget.charge_tool_call("config-get").is_ok() {}
        assert!(!account.admit(1, &budget));
        let report = account.take_drop_report().unwrap_or_default();
        assert!(
            report.contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
            "{report}"
        );
    }

    #[test]
    fn a_sent_buffer_is_one_guest_tool_call_and_past_the_bound_is_dropped() {
        let (mut account, mut budget) = (LogAccount::default(), Budget::new());
        for _ in 0..MAX_GUEST_TOOL_CALLS_PER_EVENT - 1 {
            budget.charge_tool_call("config-get").unwrap();
        }
        // Two runs' lines admitted while one call is left.
        assert!(account.admit(3, &budget) && account.admit(4, &budget));
        assert!(account.admit(5, &budget));
        assert!(account.send(2, 7, &mut budget));
        assert!(budget.tool_calls_spent());
        // Nothing dropped: nothing to report.
        assert_eq!(account.take_drop_report(), None);
        // The second run finds the bound spent: dropped.
        assert!(!account.send(1, 5, &mut budget));
        assert!(!account.admit(1, &budget));
        let report = account.take_drop_report().unwrap_or_default();
        assert!(
            report.contains("2 messages (6 bytes)") && report.contains("MAX_GUEST_TOOL_CALLS"),
            "{report}"
        );
    }

    #[test]
    fn lines_are_sent_joined_while_their_level_holds_in_the_order_logged() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Host::log(&mut m, LogLevel::Info, "a".into());
        Host::log(&mut m, LogLevel::Info, "b".into());
        assert!(tool_calls(&calls, "juju-log").is_empty(), "buffered");
        Host::log(&mut m, LogLevel::Debug, "c".into());
        Host::log(&mut m, LogLevel::Info, "d".into());
        Model::log(&mut m, LogLevel::Error, "host");
        Host::log(&mut m, LogLevel::Warning, "e".into());
        m.flush_guest_logs();
        m.flush_guest_logs();
        assert_eq!(
            tool_calls(&calls, "juju-log"),
            [
                ["--log-level", "INFO", "--", "a\nb"],
                ["--log-level", "DEBUG", "--", "c"],
                ["--log-level", "INFO", "--", "d"],
                ["--log-level", "ERROR", "--", "host"],
                ["--log-level", "WARNING", "--", "e"],
            ]
        );
    }

    #[test]
    fn a_level_that_fills_one_argv_element_is_sent_at_once() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        let half = "x".repeat(MAX_LOG_ARG / 2);
        for _ in 0..3 {
            Host::log(&mut m, LogLevel::Info, half.clone());
        }
        // The third would not fit beside the first two.
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0][3], format!("{half}\n{half}"));
        m.flush_guest_logs();
        assert_eq!(tool_calls(&calls, "juju-log")[1][3], half);
    }

    #[test]
    fn log_of_nul_is_carried_by_argv() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Host::log(&mut m, LogLevel::Info, "guest \0 text".into());
        Model::log(&mut m, LogLevel::Error, "host quoting \0 guest");
        assert_eq!(
            tool_calls(&calls, "juju-log"),
            [
                ["--log-level", "INFO", "--", "guest \u{FFFD} text"],
                ["--log-level", "ERROR", "--", "host quoting \u{FFFD} guest"],
            ]
        );
    }

    #[test]
    fn a_log_message_is_cut_to_one_argv_element() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Model::log(&mut m, LogLevel::Info, &"é".repeat(MAX_LOG_ARG));
        let logs = tool_calls(&calls, "juju-log");
        assert!(logs[0][3].len() <= MAX_LOG_ARG && logs[0][3].len() > MAX_LOG_ARG - 2);
    }

    #[test]
    fn guest_logs_are_bounded_per_event_and_the_drop_reported_once() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        for i in 0..MAX_LOG_MESSAGES_PER_EVENT + 7 {
            Host::log(&mut m, LogLevel::Debug, format!("line {i}"));
        }
        // The host's own messages are never dropped.
        Model::log(&mut m, LogLevel::Error, "host error");
        m.report_dropped_logs();
        m.report_dropped_logs();
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), 3);
        let lines: Vec<&str> = logs[0][3].split('\n').collect();
        assert_eq!(lines.len(), MAX_LOG_MESSAGES_PER_EVENT);
        assert_eq!(lines[MAX_LOG_MESSAGES_PER_EVENT - 1], "line 9999");
        assert_eq!(logs[1][3], "host error");
        let report = &logs[2];
        assert_eq!(report[1], "WARNING");
        assert!(
            report[3].contains("7 messages (")
                && report[3].contains("10000 messages per event (MAX_LOG_MESSAGES_PER_EVENT)"),
            "{}",
            report[3]
        );
    }

    #[test]
    fn guest_log_bytes_are_bounded_per_event() {
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        let big = "x".repeat(100 << 10);
        for _ in 0..12 {
            Host::log(&mut m, LogLevel::Info, big.clone());
        }
        // Once dropping, a small message is dropped too: no holes.
        Host::log(&mut m, LogLevel::Info, "small".into());
        m.report_dropped_logs();
        let logs = tool_calls(&calls, "juju-log");
        assert_eq!(logs.len(), 10 + 1);
        let report = &logs[10][3];
        assert!(
            report.contains(&format!("3 messages ({} bytes)", 2 * big.len() + 5))
                && report.contains("MAX_LOG_BYTES_PER_EVENT"),
            "{report}"
        );
        // Nothing dropped: nothing reported.
        let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
        Host::log(&mut m, LogLevel::Info, "one".into());
        m.report_dropped_logs();
        assert_eq!(tool_calls(&calls, "juju-log").len(), 1);
    }
}
