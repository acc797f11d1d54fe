//! The simulated machine served as its tools to a charm's own `dispatch`
//! process: `wasm-charm` run under the name `systemctl`, `apt-get` or
//! `dpkg-query` (a symlink beside the hook tools) answers from the
//! `machine` of the hook's session (the file [`SESSION_VAR`] names), locked
//! while it runs, with [`machine::answer`], as `run`'s host gets it in
//! process. The machine acts at once: what the tool did is written back
//! before it exits, not held until the hook ends.

use super::machine::{self, Place};
use super::tool_session::{SESSION_VAR, Session, lock};
use crate::hook_tools::ToolOutput;
use anyhow::Context as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Answer one call of `tool` made as a process.
pub fn serve(tool: &str) -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let out = answer(tool, &args).unwrap_or_else(|e| ToolOutput {
        code: 1,
        stdout: Vec::new(),
        stderr: format!("{tool}: {e:#}\n"),
    });
    // A closed pipe is the caller's business: the answer stands.
    let _ = std::io::stdout().write_all(&out.stdout);
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    ExitCode::from(u8::try_from(out.code).unwrap_or(1))
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
