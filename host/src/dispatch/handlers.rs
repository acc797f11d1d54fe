//! Step 5: every handler that observes the event, in declaration order, each
//! in a fresh sandboxed instance. Every registered interface begins from the
//! store as the earlier handlers left it and finishes with the handler's
//! writes as data; the failure [`policy`](super::policy) says whether they
//! are kept, and the first handler that fails stops the event.

use super::policy::{self, Situation, Then, Verdict};
use super::{EventRun, Halt, model};
use crate::bindings::model::LogLevel;
use crate::bindings::{Event, Handler};
use crate::event;
use crate::hook_tools::HOST_CALLS_TIMEOUT;
use crate::interfaces::ActionInterface;
use crate::interfaces::{EventStates, HandlerWrites, Keep};
use crate::model::Model;
use crate::runtime::{Outcome, Output};
use crate::show::HandlerResult;
use std::time::Instant;

impl EventRun<'_, '_> {
    /// Step 5: run the handlers that observe the event, keeping the writes of
    /// each that returned. `Err`: one failed, and the event stops there.
    pub(super) fn run_handlers(&mut self, handlers: &[Handler]) -> Result<EventStates, Halt> {
        let mut states = self.fresh_states();
        let observing: Vec<&Handler> = handlers
            .iter()
            .filter(|h| {
                h.observes
                    .iter()
                    .any(|o| event::observes(o, &self.ctx.event))
            })
            .collect();
        for (i, handler) in observing.iter().enumerate() {
            states = self.run_handler(handler, states).map_err(|mut halt| {
                halt.not_run = observing[i + 1..].iter().map(|h| h.name.clone()).collect();
                halt
            })?;
        }
        states.host_log().report_dropped_logs();
        Ok(states)
    }

    /// One handler, in a fresh instance made of the event's `states`.
    fn run_handler(
        &mut self,
        handler: &Handler,
        mut states: EventStates,
    ) -> Result<EventStates, Halt> {
        let (ctx, files) = (self.ctx, self.files.clone());
        let limits = ctx.charm.manifest.limits_of(&handler.name);
        states.begin(&self.store);
        // Only the calls this handler makes are its.
        let cut = self.cut.clone();
        cut.take();
        let runtime = match self.runtime() {
            Ok(rt) => rt,
            Err(e) => return Err(Halt::fail(states, format!("{e:#}"))),
        };
        let (mut outcome, instance, output) =
            runtime.run(&handler.name, &ctx.event, states, &limits, &files);
        if let Outcome::Trapped(why) = outcome {
            outcome = Outcome::Trapped(super::cut_calls::naming_the_cut(why, &cut.take()));
        }
        let mut warnings = Vec::new();
        let (mut states, writes) = match instance {
            Some(instance) => instance.finish(&mut warnings),
            // An instance abandoned at its deadline took the event's states
            // with it; the host still logs through the same tools.
            None => (self.fresh_states(), HandlerWrites::default()),
        };
        after_instance(&mut states, handler, &outcome, output, warnings);
        if model(&mut states).rebooting_now() {
            return Err(self.reboot_now(handler, states, outcome));
        }
        let situation = Situation {
            described: &ctx.described,
            during_action: matches!(ctx.event, Event::Action(_)),
            on_error: ctx.charm.manifest.on_error,
        };
        let verdict = policy::judge(handler, outcome, &situation);
        self.carry_out(handler, verdict, states, writes)
    }

    /// Do what the policy said of `handler`, which wrote `writes`.
    fn carry_out(
        &mut self,
        handler: &Handler,
        verdict: Verdict,
        mut states: EventStates,
        writes: HandlerWrites,
    ) -> Result<EventStates, Halt> {
        if let Some(warning) = &verdict.warning {
            states.log(LogLevel::Warning, warning);
        }
        self.report
            .handlers
            .push((handler.name.clone(), verdict.result));
        match verdict.then {
            Then::Keep { own } => {
                let ctx = self.ctx;
                let mut to = Keep {
                    store: &mut self.store,
                    described: &ctx.described,
                    now: ctx.now,
                };
                states.keep(writes, &mut to);
                if let Some(own) = own {
                    self.store.apply(own, &ctx.described, ctx.now);
                }
                Ok(states)
            }
            Then::FailHook(why) => Err(Halt::fail(states, why)),
            Then::FailAction { why, message } => Err(self.fail_action(states, &why, &message)),
        }
    }

    /// `handler` called `reboot(now)` and Juju took it: Juju kills the hook,
    /// commits nothing it held and runs it again after the reboot. So the
    /// event stops at this handler and keeps and sends nothing (no status,
    /// no store), and the hook does not fail: on a unit Juju killed the
    /// process before this; elsewhere (the simulated Juju, debug-hooks) the
    /// host ends the event as Juju would have.
    fn reboot_now(&mut self, handler: &Handler, mut states: EventStates, outcome: Outcome) -> Halt {
        let why = match outcome {
            Outcome::Trapped(why) => why,
            Outcome::Returned(_) => "returned after reboot(now)".to_string(),
        };
        self.report
            .handlers
            .push((handler.name.clone(), HandlerResult::Trapped(why)));
        states.log(
            LogLevel::Warning,
            &format!(
                "handler `{}` asked Juju to reboot the machine now (juju-reboot --now): {} stops here, keeps nothing, and runs again after the reboot",
                handler.name, self.ctx.described
            ),
        );
        Halt::quiet(states)
    }

    /// During an action, a handler returned an error or trapped (`why`):
    /// the action fails with `message` (`action-fail`), and the event keeps
    /// nothing, as a failed hook keeps nothing; yet the process exits 0, as
    /// Juju asks of a failing action (reference juju-protocol.md §1.6): its
    /// exit code would only replace the message by `exit status 1`, and the
    /// host sends nothing Juju would commit (relation data, the store) for
    /// an event that failed. Only an `action-fail` that fails fails the hook.
    fn fail_action(&mut self, mut states: EventStates, why: &str, message: &str) -> Halt {
        let ctx = self.ctx;
        let described = &ctx.described;
        states.log(
            LogLevel::Error,
            &format!("{described} failed: {why}; nothing this event stored is kept"),
        );
        let action = states.get_mut::<ActionInterface>();
        match action.fail_for_host(message) {
            Ok(()) => {
                self.report.action_failed = action.failed().map(str::to_string);
                Halt::quiet(states)
            }
            Err(e) => Halt::fail(states, format!("{described} could not be failed: {e}")),
        }
    }
}

/// The handler's instance ended: its deadline is over, so the host's own
/// calls (its log lines, say) get a budget of their own; what the guest
/// printed and the interfaces' warnings go to the unit log.
fn after_instance(
    states: &mut EventStates,
    handler: &Handler,
    outcome: &Outcome,
    mut output: Output,
    warnings: Vec<String>,
) {
    model(states).set_deadline(Instant::now() + HOST_CALLS_TIMEOUT);
    if matches!(outcome, Outcome::Trapped(_)) {
        // The trap's report already ends with the stderr tail.
        output.stderr.clear();
    }
    forward_output(states.host_log(), &handler.name, &output);
    for w in warnings {
        states.log(
            LogLevel::Warning,
            &format!("handler `{}`: {w}", handler.name),
        );
    }
}

/// Guest output goes to the unit log: stdout at INFO, stderr at WARNING,
/// one `juju-log` per stream and handler.
fn forward_output(log: &mut Model, handler: &str, output: &Output) {
    for (text, level) in [
        (&output.stdout, LogLevel::Info),
        (&output.stderr, LogLevel::Warning),
    ] {
        let text = text.trim_end();
        if !text.is_empty() {
            log.log(level, &format!("[{handler}] {text}"));
        }
    }
}
