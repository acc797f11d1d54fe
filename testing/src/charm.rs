//! A charm under test: packed by `wasm-charm` once per test process, then
//! run event by event through `wasm-charm serve`.

use crate::error::Error;
use crate::event::Event;
use crate::outcome::Outcome;
use crate::reply::Reply;
use crate::state::State;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// A packed charm: its directory, as `wasm-charm pack` assembles it.
///
/// ```no_run
/// use wasm_charm_testing::{Charm, Event, State, Status};
///
/// let charm = Charm::build(env!("CARGO_MANIFEST_DIR"));
/// let out = charm.run(&State::new().leader(false), Event::install());
/// assert_eq!(out.scope("handler/leader"), Some(Status::waiting("Waiting for leadership")), "{out}");
/// ```
#[derive(Debug, Clone)]
pub struct Charm {
    dir: PathBuf,
    name: String,
}

/// The charms packed by this process, by project directory: a failed pack
/// is remembered too, so every test shows its error without building again.
type Packed = HashMap<PathBuf, Result<Charm, Error>>;

fn packed() -> &'static Mutex<Packed> {
    static PACKED: OnceLock<Mutex<Packed>> = OnceLock::new();
    PACKED.get_or_init(Default::default)
}

impl Charm {
    /// Pack the charm project at `project` (a Cargo package with a
    /// metadata.yaml: `env!("CARGO_MANIFEST_DIR")` in the project's own
    /// tests) with `wasm-charm`, once per test process.
    ///
    /// It is packed as `wasm-charm run <project>` packs it, into
    /// `<project>/target/wasm-charm/<name>`, again only when the component
    /// or a charm file changed; the component is built for wasm32-wasip2
    /// where `wasm-charm pack` builds it (`$CARGO_TARGET_DIR`, else the
    /// project's workspace's `target`), so one change costs one guest build
    /// whichever of them runs first.
    ///
    /// # Panics
    /// When the project cannot be packed, with the reason (cargo's own
    /// output is printed on stderr as it builds).
    #[track_caller]
    pub fn build(project: impl AsRef<Path>) -> Charm {
        Charm::try_build(project).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::build`], returning the error.
    pub fn try_build(project: impl AsRef<Path>) -> Result<Charm, Error> {
        let project = project.as_ref();
        let project = project.canonicalize().map_err(|e| {
            Error::Build(format!(
                "{}: cannot find the project: {e}",
                project.display()
            ))
        })?;
        // Held while packing: two tests of the process never pack one
        // project into one directory at once.
        let mut packed = packed().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(done) = packed.get(&project) {
            return done.clone();
        }
        let done = described(json!({"op": "pack", "project": project}));
        packed.insert(project, done.clone());
        done
    }

    /// A charm directory packed already (`wasm-charm pack … --out DIR`).
    #[track_caller]
    pub fn load(dir: impl AsRef<Path>) -> Charm {
        Charm::try_load(dir).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::load`], returning the error.
    pub fn try_load(dir: impl AsRef<Path>) -> Result<Charm, Error> {
        described(json!({"op": "load", "charm": dir.as_ref()}))
    }

    /// The charm directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The charm's name (metadata.yaml).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Run `event` from `state`, as `wasm-charm run` does: the same merge,
    /// sandbox and limits, the hook tools and workload calls answered from
    /// the state by the simulated Juju and machine, in a fresh temporary
    /// state file and workload root. A hook that fails is an [`Outcome`]
    /// too ([`Outcome::failed`]).
    ///
    /// # Panics
    /// When `wasm-charm run` would refuse the run (exit 2): an event the
    /// charm cannot receive, a flag or parameter that does not fit it, a
    /// state naming what the charm does not declare. The message says why.
    #[track_caller]
    pub fn run(&self, state: &State, event: impl Into<Event>) -> Outcome {
        self.try_run(state, event).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Charm::run`], returning the refusal as [`Error::Usage`].
    pub fn try_run(&self, state: &State, event: impl Into<Event>) -> Result<Outcome, Error> {
        let event = event.into();
        let at = |what: String| format!("charm {}, event {}: {what}", self.name, event.name());
        let io = |e: std::io::Error| Error::Io(at(e.to_string()));
        let dir = tempfile::Builder::new()
            .prefix("wasm-charm-testing-")
            .tempdir()
            .map_err(io)?;
        let root = dir.path().join("root");
        std::fs::create_dir(&root).map_err(io)?;
        state.write_files(&root)?;
        let request = json!({
            "op": "run",
            "charm": self.dir,
            "state": state.doc,
            "seed": state.seed,
            "event": event.to_json(&state.config),
            "root": root,
            // Stands for a state file in messages; nothing is written there.
            "state-file": dir.path().join("state.yaml"),
        });
        let reply = crate::server::call(request).map_err(|e| match e {
            Error::Usage(m) => Error::Usage(at(m)),
            Error::State(m) => Error::State(at(m)),
            other => other,
        })?;
        let reply: Reply = serde_json::from_value(reply)
            .map_err(|e| Error::Io(at(format!("wasm-charm serve's outcome: {e}"))))?;
        let next = if reply.error.is_some() {
            // The hook failed before any handler ran: the state is
            // unchanged, and the operator's config waits for the next run.
            state.clone()
        } else {
            State {
                files: crate::files::collect(&root)?,
                ..State::default()
            }
        };
        Outcome::from_reply(&self.name, event.name(), reply, next)
    }
}

/// The charm a `pack` or `load` request names.
fn described(request: Value) -> Result<Charm, Error> {
    let result = crate::server::call(request)?;
    match (result["charm"].as_str(), result["name"].as_str()) {
        (Some(dir), Some(name)) => Ok(Charm {
            dir: PathBuf::from(dir),
            name: name.to_string(),
        }),
        _ => Err(Error::Io(format!(
            "wasm-charm serve described no charm: {result}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_project_or_charm_is_named() {
        let e = Charm::try_build("/nonexistent/project").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/project"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = Charm::try_load(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("not a charm directory") && e.contains("metadata.yaml"),
            "{e}"
        );
    }
}
