//! `wasm-charm serve`: the simulator's API for test harnesses, as line-
//! delimited JSON on stdin and stdout (docs/harness-protocol.md). The
//! first line written is the hello; then one response line per request
//! line, until stdin closes. A harness in any language drives the one
//! simulated Juju through it, and compiles no wasmtime of its own.
//!
//! [`protocol`] holds the words (hello, requests, failures); [`run`] the
//! one request that runs an event.

pub mod protocol;
pub mod run;

use crate::charm_dir::{CharmDir, StoreChoice};
use anyhow::Context as _;
use protocol::{Failure, FailureKind, Request};
use serde_json::{Value, json};
use std::io::{BufRead as _, Write};
use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::Path;

/// Serve requests from stdin until it closes.
pub fn main() -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::from(protocol_stdout()?));
    write_line(&mut out, &protocol::hello())?;
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("wasm-charm serve: reading a request from stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        write_line(&mut out, &answer(&line, n as u64 + 1))?;
    }
    Ok(())
}

/// The response to request line number `line`.
pub fn answer(text: &str, line: u64) -> Value {
    let result = protocol::parse(text, line).and_then(|request| match request {
        Request::Pack { project } => pack(&project),
        Request::Load { charm } => load(&charm),
        Request::Check { state } => check(state),
        Request::Run(run) => run::run(&run),
        Request::Juju { home, args, seed } => {
            let answered = crate::juju_cli::answer_in(&args, &home, seed);
            serde_json::to_value(answered).map_err(|e| Failure::new(FailureKind::Io, e.to_string()))
        }
        Request::Model { home, model } => model_of(&home, &model),
    });
    match result {
        Ok(value) => json!({"result": value}),
        Err(failure) => failure.to_json(),
    }
}

/// A model as the `model` request answers it: the model's file, and each
/// unit's scope store as its charm keeps it (`stores`).
fn model_of(home: &Path, name: &str) -> Result<Value, Failure> {
    let dir = crate::world::store::model_dir(home, name);
    let world = crate::world::store::load(&dir)
        .map_err(|e| Failure::new(FailureKind::Io, format!("{e:#}")))?;
    let mut value =
        serde_json::to_value(&world).map_err(|e| Failure::new(FailureKind::Io, e.to_string()))?;
    let stores: serde_json::Map<String, Value> = world
        .unit_names()
        .into_iter()
        .filter_map(|u| {
            let store = crate::world::unit_store(&world, &u)?;
            Some((u, serde_json::to_value(store).ok()?))
        })
        .collect();
    value["stores"] = Value::Object(stores);
    // Kept beside the model's file, not in it: the harness reads them here.
    value["history"] = serde_json::to_value(&world.history)
        .map_err(|e| Failure::new(FailureKind::Io, e.to_string()))?;
    value["log"] = serde_json::to_value(&world.log)
        .map_err(|e| Failure::new(FailureKind::Io, e.to_string()))?;
    Ok(value)
}

/// The protocol's own stdout: a copy of fd 1, which then points at stderr,
/// so that nothing the host prints (cargo's progress, a stray message) can
/// break a response line.
fn protocol_stdout() -> anyhow::Result<OwnedFd> {
    // SAFETY: dup and dup2 on the process's standard descriptors, before any
    // other thread writes to them; the copy is owned by the returned value.
    unsafe {
        let copy = libc::dup(1);
        if copy < 0 {
            return Err(std::io::Error::last_os_error()).context("wasm-charm serve: dup(stdout)");
        }
        if libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error())
                .context("wasm-charm serve: pointing stdout at stderr");
        }
        Ok(OwnedFd::from_raw_fd(copy))
    }
}

fn write_line(out: &mut impl Write, value: &Value) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")?;
    out.flush().context("wasm-charm serve: writing a response")
}

/// `pack`: the project packed (incrementally) into its
/// `target/wasm-charm/<name>`, the directory `wasm-charm run <project>`
/// uses too.
fn pack(project: &Path) -> Result<Value, Failure> {
    let dir = crate::pack::project::packed(project).map_err(|e| {
        Failure::new(
            FailureKind::Build,
            format!(
                "cannot pack the charm project {}: {e:#} (cargo's output, if it ran, is above \
                 on stderr)",
                project.display()
            ),
        )
    })?;
    load(&dir)
}

/// `load`: what a packed charm directory is.
fn load(dir: &Path) -> Result<Value, Failure> {
    let charm = CharmDir::load(dir).map_err(|e| {
        Failure::new(
            FailureKind::Build,
            format!("{}: not a charm directory: {e:#}", dir.display()),
        )
    })?;
    let store = match charm.manifest.store {
        StoreChoice::Auto => "auto",
        StoreChoice::Local => "local",
        StoreChoice::Juju => "juju",
    };
    Ok(json!({
        "charm": dir,
        "name": charm.metadata.name,
        "store": store,
        "probes": charm.manifest.probes.keys().collect::<Vec<_>>(),
    }))
}

/// `check`: whether the state file takes `state`, as `run` reads it.
fn check(state: serde_json::Map<String, Value>) -> Result<Value, Failure> {
    serde_json::from_value::<crate::offline::state_file::StateFile>(Value::Object(state))
        .map_err(|e| Failure::new(FailureKind::State, e.to_string()))?;
    Ok(json!({}))
}

#[cfg(test)]
mod tests;
