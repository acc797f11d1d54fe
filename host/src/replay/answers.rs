//! What answers a replayed event's calls: the recording, in order. Each
//! keeps the calls it was asked, and notes the ones the recording could not
//! answer as they were made (a difference, whatever else happens).
//!
//! A hook-tool call is answered by the recorded call at the cursor when its
//! argv is the same; else by the next recorded call with the same argv;
//! else by the next one of the same tool (its "best match"); else it fails
//! as a tool does, `ERROR …` and exit 1. Workload calls are matched the
//! same way on their call words, probes by name in the order they ran, and
//! the probes' clock reads back the times the event read.

use crate::bindings::workload::{CommandOutput, ServiceAction, ServiceStatus, WorkloadError};
use crate::hook_tools::{HookTools, ToolOutput};
use crate::probe::{Check, Clock, Outcome as ProbeOutcome, ProbeTap};
use crate::record::format::{
    ProbeRun, ToolAnswer, ToolCall, WorkloadAnswer, WorkloadCall, call_words, shell_words,
};
use crate::status::backend::ScopeBackend;
use crate::status::store::ScopeStore;
use crate::workload::Machine;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Recorded items served in order by key, the cursor moving past each
/// one used.
#[derive(Debug)]
struct Sequence {
    keys: Vec<Vec<String>>,
    used: Vec<bool>,
    cursor: usize,
}

/// How a call was answered.
enum Match {
    Exact(usize),
    /// Not there as made: answered by another call of the same kind.
    Best(usize),
    None,
}

impl Sequence {
    fn new(keys: Vec<Vec<String>>) -> Self {
        Sequence {
            used: vec![false; keys.len()],
            keys,
            cursor: 0,
        }
    }

    /// The recorded item for `key`: exact from the cursor, exact before it,
    /// then one whose first word is the same.
    fn take(&mut self, key: &[String]) -> Match {
        let n = self.keys.len();
        let order = (self.cursor..n).chain(0..self.cursor.min(n));
        let unused: Vec<usize> = order.filter(|i| !self.used[*i]).collect();
        let found = match unused.iter().find(|i| self.keys[**i] == key) {
            Some(i) => Match::Exact(*i),
            None => match unused
                .iter()
                .find(|i| self.keys[**i].first() == key.first())
            {
                Some(i) => Match::Best(*i),
                None => Match::None,
            },
        };
        if let Match::Exact(i) | Match::Best(i) = found {
            self.used[i] = true;
            if i >= self.cursor {
                self.cursor = i + 1;
            }
        }
        found
    }
}

/// Hook tools answered from the recorded calls.
pub struct Tools {
    recorded: Vec<ToolCall>,
    state: Mutex<ToolsState>,
}

struct ToolsState {
    sequence: Sequence,
    made: Vec<ToolCall>,
    notes: Vec<String>,
}

impl Tools {
    pub fn new(recorded: Vec<ToolCall>) -> Self {
        let keys = recorded.iter().map(|c| c.argv.clone()).collect();
        Tools {
            recorded,
            state: Mutex::new(ToolsState {
                sequence: Sequence::new(keys),
                made: Vec::new(),
                notes: Vec::new(),
            }),
        }
    }

    /// The calls made so far, with the answers given, and the notes.
    pub fn made(&self) -> (Vec<ToolCall>, Vec<String>) {
        let state = lock(&self.state);
        (state.made.clone(), state.notes.clone())
    }
}

impl HookTools for Tools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        _deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let mut call = ToolCall::new(
            tool,
            args,
            stdin,
            ToolAnswer::NotRun {
                error: String::new(),
                timed_out: false,
            },
        );
        let mut state = lock(&self.state);
        let answer = match state.sequence.take(&call.argv) {
            Match::Exact(i) => self.recorded[i].answer.clone(),
            Match::Best(i) => {
                let note = format!(
                    "hook tool `{}` is not in the recording; answered as the recorded `{}`",
                    call.line(),
                    self.recorded[i].line()
                );
                state.notes.push(note);
                self.recorded[i].answer.clone()
            }
            Match::None => {
                let note = format!(
                    "hook tool `{}` is not in the recording; answered ERROR, exit 1",
                    call.line()
                );
                state.notes.push(note);
                ToolAnswer::of(&Ok(ToolOutput::error(
                    1,
                    format!("{tool}: no such call in the recording"),
                )))
            }
        };
        call.answer = answer;
        let result = call.answer.result();
        state.made.push(call);
        result
    }
}

/// The machine answered from the recorded workload calls.
pub struct OnMachine {
    recorded: Vec<WorkloadCall>,
    state: Mutex<(Sequence, Vec<String>)>,
}

impl OnMachine {
    pub fn new(recorded: Vec<WorkloadCall>) -> Self {
        let keys = recorded.iter().map(|c| c.call.clone()).collect();
        OnMachine {
            recorded,
            state: Mutex::new((Sequence::new(keys), Vec::new())),
        }
    }

    pub fn notes(&self) -> Vec<String> {
        lock(&self.state).1.clone()
    }

    fn answer(&self, call: Vec<String>) -> Option<WorkloadAnswer> {
        let mut state = lock(&self.state);
        let (answer, note) = match state.0.take(&call) {
            Match::Exact(i) => (Some(self.recorded[i].answer.clone()), None),
            Match::Best(i) => (
                Some(self.recorded[i].answer.clone()),
                Some(format!(
                    "workload call `{}` is not in the recording; answered as the recorded `{}`",
                    shell_words(&call),
                    shell_words(&self.recorded[i].call)
                )),
            ),
            Match::None => (
                None,
                Some(format!(
                    "workload call `{}` is not in the recording; answered unavailable",
                    shell_words(&call)
                )),
            ),
        };
        state.1.extend(note);
        answer
    }
}

fn missing() -> WorkloadError {
    WorkloadError::Unavailable("not in the recording being replayed".to_string())
}

impl Machine for OnMachine {
    fn service(
        &self,
        unit: &str,
        action: ServiceAction,
        _deadline: Instant,
    ) -> Result<(), WorkloadError> {
        self.answer(call_words::service(unit, action))
            .map_or(Err(missing()), |a| a.unit())
    }

    fn service_state(
        &self,
        unit: &str,
        _deadline: Instant,
    ) -> Result<ServiceStatus, WorkloadError> {
        self.answer(call_words::service_state(unit))
            .map_or(Err(missing()), |a| a.state())
    }

    fn run_command(
        &self,
        name: &str,
        argv: &[String],
        _until: Instant,
    ) -> Result<CommandOutput, WorkloadError> {
        let call = call_words::run_command(name, argv);
        self.answer(call).map_or(Err(missing()), |a| a.output())
    }

    fn package_installed(&self, package: &str, _deadline: Instant) -> Result<bool, WorkloadError> {
        self.answer(call_words::package_installed(package))
            .map_or(Err(missing()), |a| a.installed())
    }

    fn install_packages(
        &self,
        packages: &[String],
        _deadline: Instant,
    ) -> Result<(), WorkloadError> {
        let call = call_words::install_packages(packages);
        self.answer(call).map_or(Err(missing()), |a| a.unit())
    }
}

/// Probe results by name, in the order they ran; past the recorded ones
/// of a name, its last again.
pub struct Probes {
    /// The runs left by name, and the notes.
    state: Mutex<(ByName, Vec<String>)>,
}

type ByName = BTreeMap<String, VecDeque<ProbeRun>>;

impl Probes {
    pub fn new(recorded: Vec<ProbeRun>) -> Self {
        let mut by_name: BTreeMap<String, VecDeque<ProbeRun>> = BTreeMap::new();
        for run in recorded {
            by_name.entry(run.name.clone()).or_default().push_back(run);
        }
        Probes {
            state: Mutex::new((by_name, Vec::new())),
        }
    }

    pub fn notes(&self) -> Vec<String> {
        lock(&self.state).1.clone()
    }
}

impl ProbeTap for Probes {
    fn answer(&self, name: &str) -> Option<ProbeOutcome> {
        let mut state = lock(&self.state);
        match state.0.get_mut(name) {
            Some(runs) if runs.len() > 1 => runs.pop_front().map(|r| r.outcome()),
            Some(runs) => runs.front().map(|r| r.outcome()),
            None => {
                state
                    .1
                    .push(format!("probe `{name}` did not run in the recording"));
                Some(ProbeOutcome {
                    check: Check::unhealthy(format!(
                        "probe {name}: not in the recording being replayed"
                    )),
                    attempts: 0,
                })
            }
        }
    }
}

/// The probes' clock, reading back the recorded times; past them, the last
/// one, moved on by every sleep (which returns at once).
pub struct Replayed {
    state: Mutex<(VecDeque<u64>, SystemTime)>,
}

impl Replayed {
    /// `readings` in milliseconds since the epoch; `start` the event's time
    /// in seconds, for an event that read none.
    pub fn new(readings: Vec<u64>, start: u64) -> Self {
        Replayed {
            state: Mutex::new((
                readings.into(),
                SystemTime::UNIX_EPOCH + Duration::from_secs(start),
            )),
        }
    }
}

impl Clock for Replayed {
    fn now(&self) -> SystemTime {
        let mut state = lock(&self.state);
        if let Some(ms) = state.0.pop_front() {
            state.1 = SystemTime::UNIX_EPOCH + Duration::from_millis(ms);
        }
        state.1
    }

    fn sleep(&self, d: Duration) {
        let mut state = lock(&self.state);
        state.1 += d;
    }
}

/// The store in memory: loaded as recorded, saved nowhere.
pub struct Memory(pub Result<ScopeStore, String>);

impl ScopeBackend for Memory {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        self.0.clone().map_err(anyhow::Error::msg)
    }

    fn save(&mut self, _edit: &crate::status::store_edit::StoreEdit) -> anyhow::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(tools: &Tools, argv: &[&str]) -> ToolOutput {
        tools
            .call(argv[0], &argv[1..], None, Instant::now())
            .unwrap()
    }

    #[test]
    fn tools_answer_in_order_then_by_best_match() {
        let tools = Tools::new(vec![
            ToolCall::exited_ok(&["is-leader"], "true"),
            ToolCall::exited_ok(&["config-get"], "{}"),
            ToolCall::exited_ok(&["status-set", "active", "--", ""], ""),
            ToolCall::exited_ok(&["is-leader"], "false"),
        ]);
        assert_eq!(ask(&tools, &["is-leader"]).stdout, b"true");
        // Out of order: the next exact one is found.
        assert_eq!(ask(&tools, &["status-set", "active", "--", ""]).stdout, b"");
        assert_eq!(ask(&tools, &["is-leader"]).stdout, b"false");
        assert_eq!(ask(&tools, &["config-get"]).stdout, b"{}");
        // All used: another is-leader has no answer, and fails as a tool.
        let out = ask(&tools, &["is-leader"]);
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.starts_with("ERROR is-leader: "),
            "{}",
            out.stderr
        );
        let (made, notes) = tools.made();
        assert_eq!(made.len(), 5);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("`is-leader` is not in the recording"));

        let tools = Tools::new(vec![ToolCall::exited_ok(
            &["status-set", "active", "--", "a"],
            "",
        )]);
        assert_eq!(ask(&tools, &["status-set", "blocked", "--", "b"]).code, 0);
        let (_, notes) = tools.made();
        assert!(notes[0].contains("answered as the recorded `status-set active -- a`"));
    }

    #[test]
    fn the_machine_answers_as_recorded() {
        let machine = OnMachine::new(vec![WorkloadCall {
            call: vec!["service".into(), "db".into(), "restart".into()],
            answer: WorkloadAnswer::Done,
        }]);
        let far = Instant::now();
        assert_eq!(machine.service("db", ServiceAction::Restart, far), Ok(()));
        assert!(matches!(
            machine.service_state("db", far),
            Err(WorkloadError::Unavailable(_))
        ));
        assert_eq!(machine.notes().len(), 1);
    }

    #[test]
    fn probes_and_clock_read_back() {
        let run = |healthy| ProbeRun {
            name: "web".into(),
            healthy,
            detail: "d".into(),
            waiting: false,
            pid: None,
            attempts: 1,
        };
        let probes = Probes::new(vec![run(false), run(true)]);
        assert!(!probes.answer("web").unwrap().check.healthy);
        assert!(probes.answer("web").unwrap().check.healthy);
        assert!(
            probes.answer("web").unwrap().check.healthy,
            "the last again"
        );
        assert!(!probes.answer("db").unwrap().check.healthy);
        assert_eq!(probes.notes().len(), 1);

        let clock = Replayed::new(vec![5_000, 7_000], 1);
        let at = |ms| SystemTime::UNIX_EPOCH + Duration::from_millis(ms);
        assert_eq!(clock.now(), at(5_000));
        assert_eq!(clock.now(), at(7_000));
        clock.sleep(Duration::from_millis(500));
        assert_eq!(clock.now(), at(7_500));
        assert_eq!(Replayed::new(vec![], 3).now(), at(3_000));
    }
}
