//! The simulated machine served as its tools to a charm's own `dispatch`
//! process: `wasm-charm` run under the name `systemctl`, `apt-get` or
//! `dpkg-query` (a symlink beside the hook tools) answers from the
//! `machine` of the hook's session (the file [`SESSION_VAR`] names), locked
//! while it runs, with [`machine::answer`], as `run`'s host gets it in
//! process. The machine acts at once: what the tool did is written back
//! before it exits, not held until the hook ends.

use super::machine::{self, Place};
use super::tool_session::{SESSION_VAR, Session, answer_as_process, lock};
use crate::hook_tools::ToolOutput;
use anyhow::Context as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Answer one call of `tool` made as a process.
pub fn serve(tool: &str) -> ExitCode {
    answer_as_process(tool, answer, |e| ToolOutput {
        code: 1,
        stdout: Vec::new(),
        stderr: format!("{tool}: {e:#}\n"),
    })
}

fn answer(tool: &str, args: &[String]) -> anyhow::Result<ToolOutput> {
    let path = std::env::var_os(SESSION_VAR)
        .map(PathBuf::from)
        .with_context(|| {
            format!("not a tool of the simulated machine here ({SESSION_VAR} is not set)")
        })?;
    let _lock = lock(&path)?;
    let mut session = Session::read(&path)?;
    // The root the hook runs under (`WASM_CHARM_ROOT`), as the host reads it.
    let root = std::env::var_os(crate::workload_root::ROOT_VAR)
        .filter(|r| !r.is_empty())
        .map(PathBuf::from);
    let state_dir = match &session.context {
        Some(context) => context.state_dir.clone(),
        None => crate::atomic_file::parent(&path).to_path_buf(),
    };
    let place = Place::new(root, &state_dir);
    let out = machine::answer(tool, args, &mut session.machine, &place);
    session.write(&path)?;
    Ok(out)
}
