//! `dispatch`: what Juju runs on the unit, once per event (DESIGN §2). The
//! runtime alone: it reads the event from Juju's environment, loads the
//! artifact `wasm-charm pack` precompiled, and runs the handlers; no
//! command line, no compiler (built without default features), none of
//! the tools around a charm.

use std::process::ExitCode;

fn main() -> ExitCode {
    wasm_charm_host::juju::prepare_process();
    wasm_charm_host::juju::main()
}
