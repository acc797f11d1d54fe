//! Reads started ahead: the hook tools' reads a hook made the last time it
//! ran ([`super::plan`]) are started as the event starts, and run while
//! the host loads the charm and its component; a handler that then asks
//! the same question gets the answer already read.
//!
//! An answer read ahead is the answer the call would have had: the reads
//! are ones Juju answers from the hook's context, and one is served only
//! until the event's first call that could change what a read answers.
//! Juju's agent runs one hook-tool command at a time whoever starts them,
//! so a read ahead never overlaps another command on its side; what
//! overlaps is the start of the tools' processes. They are started from
//! the calling thread, not from threads of their own: a thread of this
//! process running beside the host's makes each of the host's unmaps
//! interrupt the other CPU, which cost more than the overlap won.

use super::plan::{changes_no_read, is_read};
use super::{HOST_CALLS_TIMEOUT, HookTools, Started, ToolOutput};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// The event's hook tools, with the reads of its plan started ahead.
pub struct ReadsAhead {
    inner: Arc<dyn HookTools>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    ahead: Vec<Ahead>,
    /// Set as the first call that may change a read's answer starts: from
    /// then on nothing read ahead is served, and nothing more learned.
    changed: bool,
    /// The reads made before that call, first of each, in order.
    made: Vec<Vec<String>>,
}

struct Ahead {
    argv: Vec<String>,
    /// Taken by the call it answers, or at the end of the event.
    started: Option<Box<dyn Started>>,
}

impl ReadsAhead {
    /// `inner`, with each of `reads` (argv, tool first) started now.
    pub fn start(inner: Arc<dyn HookTools>, reads: Vec<Vec<String>>) -> ReadsAhead {
        // A tool that hangs is killed as the host's own calls are.
        let deadline = Instant::now() + HOST_CALLS_TIMEOUT;
        let ahead = reads
            .into_iter()
            .filter(|argv| argv.first().is_some_and(|tool| is_read(tool)))
            .map(|argv| {
                let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
                let started = Some(inner.start(&argv[0], &args, deadline));
                Ahead { argv, started }
            })
            .collect();
        ReadsAhead {
            inner,
            state: Mutex::new(State {
                ahead,
                ..State::default()
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait for every read started ahead and not asked for; the reads the
    /// event made before its first write, for the next run's plan.
    pub fn finish(&self) -> Vec<Vec<String>> {
        let unasked: Vec<Box<dyn Started>> = self
            .state()
            .ahead
            .iter_mut()
            .filter_map(|a| a.started.take())
            .collect();
        for started in unasked {
            let _ = started.output(Instant::now() + HOST_CALLS_TIMEOUT);
        }
        self.state().made.clone()
    }

    fn note_read(&self, argv: Vec<String>) {
        let mut state = self.state();
        if !state.changed && !state.made.contains(&argv) {
            state.made.push(argv);
        }
    }
}

impl HookTools for ReadsAhead {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let read = is_read(tool) && stdin.is_none();
        let argv: Vec<String> = std::iter::once(tool)
            .chain(args.iter().copied())
            .map(str::to_string)
            .collect();
        let started = {
            let mut state = self.state();
            if !changes_no_read(tool) {
                state.changed = true;
            }
            match read && !state.changed {
                true => state
                    .ahead
                    .iter_mut()
                    .find(|a| a.argv == argv && a.started.is_some())
                    .and_then(|a| a.started.take()),
                false => None,
            }
        };
        let out = match started {
            Some(started) => started.output(deadline),
            None => self.inner.call(tool, args, stdin, deadline),
        };
        if read && out.is_ok() {
            self.note_read(argv);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::ErrorKind;
    use std::sync::Condvar;
    use std::time::Duration;

    /// Tools answering each call with its words and its number among the
    /// calls; `network-get` fails to start, and a started `is-leader`
    /// answers only once `open` was called (or its deadline passed).
    #[derive(Default)]
    struct Counting {
        ran: Mutex<Vec<String>>,
        gate: Arc<(Mutex<bool>, Condvar)>,
    }

    impl Counting {
        fn open(&self) {
            *self.gate.0.lock().unwrap() = true;
            self.gate.1.notify_all();
        }
        fn ran(&self) -> Vec<String> {
            self.ran.lock().unwrap().clone()
        }
        fn answer(&self, tool: &str, args: &[&str]) -> std::io::Result<ToolOutput> {
            let mut ran = self.ran.lock().unwrap();
            let line = format!("{tool} {} #{}", args.join(" "), ran.len());
            ran.push(line.clone());
            if tool == "network-get" {
                return Err(std::io::Error::new(ErrorKind::NotFound, "no such tool"));
            }
            Ok(ToolOutput::ok(line))
        }
    }

    struct Gated {
        answer: std::io::Result<ToolOutput>,
        gate: Arc<(Mutex<bool>, Condvar)>,
    }

    impl Started for Gated {
        fn output(self: Box<Self>, deadline: Instant) -> std::io::Result<ToolOutput> {
            let (open, opened) = &*self.gate;
            let mut open = open.lock().unwrap();
            while !*open {
                let now = Instant::now();
                if now >= deadline {
                    return Err(std::io::Error::new(ErrorKind::TimedOut, "killed"));
                }
                open = opened.wait_timeout(open, deadline - now).unwrap().0;
            }
            self.answer
        }
    }

    impl HookTools for Counting {
        fn call(
            &self,
            tool: &str,
            args: &[&str],
            _stdin: Option<&[u8]>,
            _deadline: Instant,
        ) -> std::io::Result<ToolOutput> {
            self.answer(tool, args)
        }

        fn start(&self, tool: &str, args: &[&str], _deadline: Instant) -> Box<dyn Started> {
            let answer = self.answer(tool, args);
            let gate = match tool {
                "is-leader" => self.gate.clone(),
                _ => Arc::new((Mutex::new(true), Condvar::new())),
            };
            Box::new(Gated { answer, gate })
        }
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(30)
    }

    #[test]
    fn a_read_started_ahead_answers_its_call_once() {
        let tools = Arc::new(Counting::default());
        let ahead = ReadsAhead::start(tools.clone(), vec![argv(&["config-get", "--format=json"])]);
        assert_eq!(tools.ran(), ["config-get --format=json #0"]);
        let first = ahead
            .call("config-get", &["--format=json"], None, later())
            .unwrap();
        assert_eq!(first.stdout, b"config-get --format=json #0");
        // Asked again, it runs again: an answer is served once.
        let second = ahead
            .call("config-get", &["--format=json"], None, later())
            .unwrap();
        assert_eq!(second.stdout, b"config-get --format=json #1");
        assert_eq!(ahead.finish(), [argv(&["config-get", "--format=json"])]);
        assert_eq!(tools.ran().len(), 2);
    }

    #[test]
    fn a_failed_read_is_served_as_made_and_not_planned() {
        let tools = Arc::new(Counting::default());
        let ahead = ReadsAhead::start(tools.clone(), vec![argv(&["network-get", "db"])]);
        let failed = ahead
            .call("network-get", &["db"], None, later())
            .unwrap_err();
        assert_eq!(failed.kind(), ErrorKind::NotFound);
        assert!(ahead.finish().is_empty());
        assert_eq!(tools.ran().len(), 1);
    }

    #[test]
    fn a_caller_waits_for_a_read_still_running_until_its_own_deadline() {
        let tools = Arc::new(Counting::default());
        let ahead = ReadsAhead::start(tools.clone(), vec![argv(&["is-leader", "--format=json"])]);
        let e = ahead
            .call("is-leader", &["--format=json"], None, Instant::now())
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TimedOut);
        // The same read started again waits, and is answered when it is.
        let again = ReadsAhead::start(tools.clone(), vec![argv(&["is-leader", "--format=json"])]);
        let asking = std::thread::spawn(move || {
            let out = again.call("is-leader", &["--format=json"], None, later());
            (out, again.finish())
        });
        tools.open();
        let (out, made) = asking.join().unwrap();
        assert_eq!(out.unwrap().stdout, b"is-leader --format=json #1");
        assert_eq!(made, [argv(&["is-leader", "--format=json"])]);
    }

    #[test]
    fn after_a_write_nothing_read_ahead_is_served_nor_learned() {
        let tools = Arc::new(Counting::default());
        let own_bag = ["--format=json", "-r", "db:1", "--", "-", "me/0"];
        let mut read = vec!["relation-get".to_string()];
        read.extend(own_bag.iter().map(|a| a.to_string()));
        let ahead = ReadsAhead::start(tools.clone(), vec![read]);
        ahead
            .call("juju-log", &["--", "hello"], None, later())
            .unwrap();
        ahead
            .call("relation-set", &["-r", "db:1", "--", "a=b"], None, later())
            .unwrap();
        let after = ahead.call("relation-get", &own_bag, None, later()).unwrap();
        assert_eq!(
            after.stdout,
            b"relation-get --format=json -r db:1 -- - me/0 #3"
        );
        assert_eq!(ahead.finish(), Vec::<Vec<String>>::new());
        assert_eq!(tools.ran().len(), 4);
    }

    #[test]
    fn a_plan_that_names_a_write_starts_nothing() {
        let tools = Arc::new(Counting::default());
        let ahead = ReadsAhead::start(tools.clone(), vec![argv(&["status-set", "active"]), vec![]]);
        assert!(ahead.finish().is_empty());
        assert!(tools.ran().is_empty());
    }
}
