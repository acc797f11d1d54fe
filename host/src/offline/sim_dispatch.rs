//! `wasm-charm sim dispatch`: any charm's own `dispatch` (a wasm-charm
//! host, an ops charm's script) run as a process against the simulated
//! Juju of `run` ([`Runner::Process`]): its hook tools served from the
//! state file by this binary under each tool's name (`tool_session`), the
//! simulated machine's tools too (`served_machine`), Juju's environment
//! set, and the hook ended by the process's exit code through the one
//! commit rule (`end_hook`); the machine is kept whatever the exit code,
//! as it acted at once.

use super::report::print_event_record;
use super::run_args::RunArgs;
use super::{Program, Runner, execute};

pub fn main(args: &RunArgs) -> anyhow::Result<()> {
    let run = execute(
        args,
        Runner::Process(Program::Dispatch {
            stdout_to_stderr: false,
        }),
    )?;
    let state = &run.state;
    if let Some(exit) = run.exit {
        println!("dispatch {}: {exit}", args.event);
    }
    for call in &state.last_event.calls {
        println!("call: {call}");
    }
    print_event_record(state, &run.machine);
    for (target, written) in [
        ("unit", &state.model.status.unit),
        ("app", &state.model.status.app),
    ] {
        if let Some(w) = written {
            println!("{target} status: {} {:?}", w.status.as_str(), w.message);
        }
    }
    for why in &run.report.failures {
        println!("failure: {why}");
    }
    println!("state: {}", run.state_path.display());
    if run.failed {
        anyhow::bail!(
            "the hook failed ({}); its relation data, ports, secret changes and charm state \
             were not saved",
            if run.report.failures.is_empty() {
                "dispatch did not exit 0".to_string()
            } else {
                run.report.failures.join("; ")
            }
        );
    }
    Ok(())
}
