//! The only module that talks to wasmtime: the engine's configuration, loading
//! the component (through the artifact cache), checking that it targets a WIT
//! version this host implements, and running one handler in a fresh,
//! sandboxed instance.

pub mod cache;
#[cfg(feature = "compile")]
pub mod compiled_functions;
pub mod declarations;
pub mod engine;
#[cfg(feature = "compile")]
mod names;
pub mod preopens;
pub mod seal;

use crate::bindings::{self, CharmPre, Event, Handler, Status, WIT_PACKAGE, WIT_VERSION};
use crate::charm_dir::Limits;
use crate::deadline;
use crate::event_time::EventTime;
use crate::interfaces::{EventStates, HandlerState, InstanceStates, Start};
use crate::sandbox::Sandbox;
use crate::sandbox::output::OutputTail;
use preopens::Preopens;
use std::mem::ManuallyDrop;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Engine, Store, Trap};
use wasmtime_wasi::WasiCtx;

/// Why the component could not be made ready to run.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The cause is in the message, not a `source` that `{:#}` would repeat.
    #[error("{}: cannot read the charm component: {error}", path.display())]
    Read {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {why}", path.display())]
    NotComponent {
        path: std::path::PathBuf,
        why: &'static str,
    },
    #[error("{}: the component targets {interface}@{found}, but this host implements {WIT_PACKAGE}@{WIT_VERSION}; {advice}", path.display())]
    Incompatible {
        path: std::path::PathBuf,
        interface: String,
        found: String,
        advice: &'static str,
    },
    #[error("{}: {message}", path.display())]
    Link {
        path: std::path::PathBuf,
        message: String,
    },
    #[error(
        "{}: no precompiled artifact this dispatch can load ({why}); dispatch does not compile: \
         rebuild the charm with `wasm-charm pack`",
        path.display()
    )]
    NoArtifact {
        path: std::path::PathBuf,
        why: String,
    },
    #[error("{}: cannot compile the component: {message}", path.display())]
    Compile {
        path: std::path::PathBuf,
        message: String,
    },
}

/// How a handler ended.
#[derive(Debug)]
pub enum Outcome {
    /// The handler returned; its result is the WIT `run` result.
    Returned(Result<Option<Status>, String>),
    /// The handler trapped; the message says why, for `juju-log` and stderr.
    Trapped(String),
}

/// What a guest printed, for `juju-log`.
#[derive(Debug, Default)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

/// How one instance's run ended. `states` is `None` when the instance was
/// abandoned at its deadline, still blocked in a host call: the event's
/// states it held are gone, and the event can only fail.
pub struct Finished<R> {
    pub result: Result<R, String>,
    pub states: Option<InstanceStates>,
    pub output: Output,
}

impl<R> Finished<R> {
    /// The instance never ran, for `why`.
    fn not_run(why: String, states: Option<InstanceStates>) -> Self {
        Finished {
            result: Err(why),
            states,
            output: Output::default(),
        }
    }
}

/// How long after its deadline a handler blocked in a host call is given to
/// come back (a killed hook tool returns within milliseconds) before the
/// event abandons it.
const ABANDON_AFTER: Duration = Duration::from_millis(250);

/// The native stack of a handler's thread: wasm frames (bounded by
/// `max_wasm_stack`) plus the host's own, with room to spare.
const HANDLER_THREAD_STACK: usize = 8 << 20;

/// Set by a process that ends with its event (`dispatch`): see
/// [`keep_loaded_until_exit`].
static KEEP_UNTIL_EXIT: AtomicBool = AtomicBool::new(false);

/// Components loaded in this process are never unloaded: the process ends
/// with its one event, and the exit frees everything at once, where
/// unloading would free the metadata of each compiled function (some 23,000
/// for a componentize-py component) one by one and unmap the code.
/// Long-lived processes (the simulator, `serve`) do not call this.
pub fn keep_loaded_until_exit() {
    KEEP_UNTIL_EXIT.store(true, Ordering::Relaxed);
}

/// A loaded component, ready to instantiate.
pub struct Runtime {
    /// The engine and the component: dropped with the runtime unless the
    /// process keeps them until it exits ([`keep_loaded_until_exit`]).
    loaded: ManuallyDrop<(Engine, CharmPre<HandlerState>)>,
    /// The thread the event's instances run on, one after the other.
    worker: Worker,
    pub source: cache::Source,
    /// The wall clock its instances read (the machine's unless set).
    time: EventTime,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if !KEEP_UNTIL_EXIT.load(Ordering::Relaxed) {
            // SAFETY: dropped here once; the runtime is never used again.
            unsafe { ManuallyDrop::drop(&mut self.loaded) }
        }
    }
}

impl Runtime {
    /// Load the component `id`, using the artifact cache in `state_dir`.
    pub fn load(id: &mut cache::ComponentId, state_dir: &Path) -> Result<Runtime, LoadError> {
        let path = id.path.clone();
        let path = path.as_path();
        // The bytes are needed only to compile; a header problem found
        // then is reported as such, not as a compile error.
        let mut header: Option<LoadError> = None;
        let sha256 = id.sha256.clone();
        let loaded = {
            let mut bytes = || -> wasmtime::Result<Vec<u8>> {
                let wasm = id.bytes().map_err(wasmtime::Error::from)?.to_vec();
                if let Err(e) = check_component_header(path, &wasm) {
                    header = Some(e);
                    return Err(wasmtime::Error::msg("not a component"));
                }
                Ok(wasm)
            };
            cache::load(&sha256, state_dir, &mut bytes)
        }
        .map_err(|e| match e {
            cache::Failure::NoArtifact(why) => LoadError::NoArtifact {
                path: path.to_path_buf(),
                why,
            },
            cache::Failure::Wasmtime(e) => header.take().unwrap_or_else(|| LoadError::Compile {
                path: path.to_path_buf(),
                message: format!("{e:#}"),
            }),
        })?;
        if let Some(why) = &loaded.passed_over {
            // On the unit's log (Juju keeps dispatch's stderr): interpreted
            // handlers are much slower, and a repack fixes it.
            eprintln!("wasm-charm: warning: running the portable (interpreted) artifact: {why}");
        }
        let (engine, component, source) = (loaded.engine, loaded.component, loaded.source);
        check_versions(path, &engine, &component)?;
        let mut linker = Linker::<HandlerState>::new(&engine);
        add_to_linker(&mut linker).map_err(|e| LoadError::Link {
            path: path.to_path_buf(),
            message: format!("{e:#}"),
        })?;
        let pre = linker
            .instantiate_pre(&component)
            .and_then(CharmPre::new)
            .map_err(|e| LoadError::Link {
                path: path.to_path_buf(),
                message: format!("the component needs something this host does not provide: {e:#}"),
            })?;
        Ok(Runtime {
            loaded: ManuallyDrop::new((engine, pre)),
            worker: Worker::default(),
            source,
            time: EventTime::Machine,
        })
    }

    /// Its instances read `time` as WASI's wall clock: the event's, which
    /// on the offline model is the model's.
    pub fn set_time(&mut self, time: EventTime) {
        self.time = time;
    }

    /// Run `f` against a fresh instance, made of `states` for `handler`, on
    /// a thread of its own, bounded by `limits`. The deadline is wall-clock
    /// for everything the handler causes: at it the engine's epoch moves
    /// (wasm code traps) and the interfaces' calls (hook tools, probes,
    /// Pebble, workload) are cut (DESIGN §7); a handler still blocked
    /// [`ABANDON_AFTER`] later (a WASI sleep, say) is abandoned, so no
    /// blocking call can hold the unit. `files`: the declared directories,
    /// for a handler's instance.
    fn with_instance<R: Send + 'static>(
        &self,
        states: EventStates,
        handler: &str,
        limits: &Limits,
        files: Option<Arc<Preopens>>,
        f: impl FnOnce(&bindings::Charm, &mut Store<HandlerState>) -> wasmtime::Result<R>
        + Send
        + 'static,
    ) -> Finished<R> {
        let deadline = Instant::now() + limits.handler_timeout;
        let states = states.instance(&Start { handler, deadline });
        let (tx, rx) = mpsc::sync_channel(1);
        let (engine, pre) = &*self.loaded;
        let (engine, pre, limits_copy) = (engine.clone(), pre.clone(), *limits);
        let time = self.time;
        let job: Job = Box::new(move || {
            let instance = Instance {
                engine: &engine,
                pre: &pre,
                limits: &limits_copy,
                deadline,
                time,
            };
            let finished = instance.run(states, files.as_deref(), f);
            // Let go of the component (its artifact's file stays open while
            // it is loaded) before answering: once the event has its answer
            // and drops the runtime, nothing of it is left on this thread.
            drop((engine, pre, files));
            // The event may have given up on this thread: nobody listens.
            let _ = tx.send(finished);
        });
        if let Err(e) = self.worker.run(job) {
            let why = format!("could not be started: cannot spawn a thread: {e}");
            return Finished::not_run(why, None);
        }
        let weak = self.loaded.0.weak();
        let _interrupt = deadline::at(deadline, move || {
            if let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
            }
        });
        let wait = (deadline + ABANDON_AFTER).saturating_duration_since(Instant::now());
        rx.recv_timeout(wait).unwrap_or_else(|_| {
            // Still blocked: the next instance gets a thread of its own.
            self.worker.abandon();
            let why = format!(
                "{} while blocked in a host call, and was abandoned",
                time_limit(limits)
            );
            Finished::not_run(why, None)
        })
    }

    /// Ask the component for its handler declarations, in an instance of its
    /// own: `states` (`EventStates::declaring`) should answer nothing of the
    /// live event, so that what `declare` sees never depends on whether the
    /// cache was warm. It gets no declared directory either.
    pub fn declare(&self, states: EventStates, limits: &Limits) -> Finished<Vec<Handler>> {
        self.with_instance(states, "declare", limits, None, |charm, store| {
            charm.wasm_charm_charm_handlers().call_declare(store)
        })
    }

    /// Run one handler for one event in a fresh instance made of the
    /// event's `states`, with the declared directories `files`.
    pub fn run(
        &self,
        handler: &str,
        event_value: &Event,
        states: EventStates,
        limits: &Limits,
        files: &Arc<Preopens>,
    ) -> (Outcome, Option<InstanceStates>, Output) {
        let (name, event_value) = (handler.to_string(), event_value.clone());
        let finished = self.with_instance(
            states,
            handler,
            limits,
            Some(files.clone()),
            move |charm, store| {
                charm
                    .wasm_charm_charm_handlers()
                    .call_run(store, &name, &event_value)
            },
        );
        let outcome = match finished.result {
            Ok(r) => Outcome::Returned(r),
            Err(trap) => Outcome::Trapped(trap),
        };
        (outcome, finished.states, finished.output)
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// One thread that runs an event's instances in turn: a thread per handler
/// would cost a stack and a malloc arena each. Replaced when an instance is
/// abandoned at its deadline, since that thread may never come back.
#[derive(Default)]
struct Worker {
    jobs: std::sync::Mutex<Option<mpsc::Sender<Job>>>,
}

impl Worker {
    fn run(&self, job: Job) -> std::io::Result<()> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if jobs.is_none() {
            let (tx, rx) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("wasm-charm-handlers".into())
                .stack_size(HANDLER_THREAD_STACK)
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                })?;
            *jobs = Some(tx);
        }
        match jobs.as_ref().map(|tx| tx.send(job)) {
            Some(Ok(())) => Ok(()),
            // The thread is gone (it cannot be, short of a panic in the host):
            // say so rather than wait for an answer that will not come.
            _ => {
                *jobs = None;
                Err(std::io::Error::other("the handler thread has ended"))
            }
        }
    }

    fn abandon(&self) {
        *self.jobs.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// One instance on the handler thread: the engine and component it is made
/// of, and its bounds.
struct Instance<'a> {
    engine: &'a Engine,
    pre: &'a CharmPre<HandlerState>,
    limits: &'a Limits,
    deadline: Instant,
    time: EventTime,
}

impl Instance<'_> {
    /// Instantiate the component over `states` and call `f`; the states
    /// come back with the result, whatever it is.
    fn run<R>(
        &self,
        states: InstanceStates,
        files: Option<&Preopens>,
        f: impl FnOnce(&bindings::Charm, &mut Store<HandlerState>) -> wasmtime::Result<R>,
    ) -> Finished<R> {
        let mut store = match new_store(self.engine, states, self.limits, files, self.time) {
            Ok(store) => store,
            Err(failed) => {
                let (why, states) = *failed;
                return Finished::not_run(why, Some(states));
            }
        };
        let result = self
            .pre
            .instantiate(&mut store)
            .and_then(|instance| f(&instance, &mut store));
        let result = match result {
            // A handler that came back from a host call cut at the
            // deadline may return before its next epoch check: past
            // the deadline is past it, however it ended.
            Ok(_) if Instant::now() >= self.deadline => Err(time_limit(self.limits)),
            Ok(r) => Ok(r),
            Err(e) => Err(describe_trap(&e, store.data(), self.limits)),
        };
        let state = store.into_data();
        Finished {
            result,
            output: Output {
                stdout: state.sandbox.stdout.text(),
                stderr: state.sandbox.stderr.text(),
            },
            states: Some(state.states),
        }
    }
}

/// A store for one instance: nothing inherited (no environment, arguments,
/// network or stdin; no files but the declared directories `files`), output
/// captured, memory and instances bounded, trapping at the next epoch,
/// the wall clock `time`'s.
/// `Err`: a declared directory could not be opened; the states come back
/// with the reason.
fn new_store(
    engine: &Engine,
    mut states: InstanceStates,
    limits: &Limits,
    files: Option<&Preopens>,
    time: EventTime,
) -> Result<Store<HandlerState>, Box<(String, InstanceStates)>> {
    let stdout = OutputTail::default();
    let stderr = OutputTail::default();
    let mut wasi = WasiCtx::builder();
    wasi.stdout(stdout.clone()).stderr(stderr.clone());
    crate::sandbox::clock::set(&mut wasi, time);
    if let Some(files) = files {
        match files.grant(&mut wasi) {
            Ok(notes) => notes.log(states.host_log()),
            Err(why) => return Err(Box::new((why, states))),
        }
    }
    let state = HandlerState {
        sandbox: Sandbox::new(&mut wasi, stdout, stderr, limits.memory_bytes),
        states,
    };
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.sandbox.limiter);
    store.set_epoch_deadline(1);
    Ok(store)
}

/// WASI (with nothing granted) and the `types` interface, which are the
/// sandbox's own, then every registered charm interface
/// (`crate::interfaces`), each linking itself.
fn add_to_linker(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_sync(linker)?;
    bindings::wasm_charm::charm::types::add_to_linker::<HandlerState, HasSelf<HandlerState>>(
        linker,
        |s| s,
    )?;
    InstanceStates::link(linker)
}

impl bindings::wasm_charm::charm::types::Host for HandlerState {}

/// A core module, or not wasm at all, gets a message that says what to build.
pub fn check_component_header(path: &Path, wasm: &[u8]) -> Result<(), LoadError> {
    let not = |why| LoadError::NotComponent {
        path: path.to_path_buf(),
        why,
    };
    if wasm.len() < 8 || &wasm[..4] != b"\0asm" {
        return Err(not("not a WebAssembly file"));
    }
    match &wasm[4..8] {
        [0x0d, 0x00, 0x01, 0x00] => Ok(()),
        [0x01, 0x00, 0x00, 0x00] => Err(not(
            "a core WebAssembly module, not a component: build the charm for wasm32-wasip2 (wasm-charm pack does)",
        )),
        _ => Err(not(
            "a WebAssembly binary of a version this host does not read",
        )),
    }
}

/// Refuse a component built against a WIT version this host cannot serve,
/// naming the interface and version, before any guest code runs.
fn check_versions(path: &Path, engine: &Engine, component: &Component) -> Result<(), LoadError> {
    let ty = component.component_type();
    let names = ty
        .imports(engine)
        .map(|(n, _)| n.to_string())
        .chain(ty.exports(engine).map(|(n, _)| n.to_string()));
    let prefix = format!("{WIT_PACKAGE}/");
    let mut exports_handlers = false;
    for name in names {
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let (interface, version) = rest.split_once('@').unwrap_or((rest, ""));
        if interface == "handlers" {
            exports_handlers = true;
        }
        if let Some(advice) = incompatibility(version) {
            return Err(LoadError::Incompatible {
                path: path.to_path_buf(),
                interface: format!("{WIT_PACKAGE}/{interface}"),
                found: version.to_string(),
                advice,
            });
        }
    }
    if !exports_handlers {
        return Err(LoadError::Link {
            path: path.to_path_buf(),
            message: format!(
                "the component does not export {WIT_PACKAGE}/handlers@{WIT_VERSION}: it is not a charm (build it with the wasm-charm SDK)"
            ),
        });
    }
    Ok(())
}

/// `None` when a guest built against WIT `version` runs on this host.
/// Semver: same major (for 0.x, same minor), and not newer than this host.
pub fn incompatibility(version: &str) -> Option<&'static str> {
    let parse = |v: &str| -> Option<(u64, u64, u64)> {
        let core = v.split(['-', '+']).next()?;
        let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    };
    let (Some(theirs), Some(ours)) = (parse(version), parse(WIT_VERSION)) else {
        return Some("the version is not semver");
    };
    let track = |v: (u64, u64, u64)| if v.0 == 0 { (0, v.1) } else { (v.0, 0) };
    if track(theirs) != track(ours) {
        return Some("rebuild the charm against the host's SDK, or use a host of that version");
    }
    if theirs > ours {
        return Some("the charm needs a newer host: upgrade wasm-charm");
    }
    None
}

fn time_limit(limits: &Limits) -> String {
    let field = if limits.own_timeout {
        "its own limits.handlers.<name>.timeout-ms"
    } else {
        "limits.handler-timeout-ms"
    };
    format!(
        "exceeded its time limit of {} ms ({field} in wasm-charm.yaml)",
        limits.handler_timeout.as_millis()
    )
}

/// Say what a trap means, for a charm author reading `juju debug-log`.
fn describe_trap(e: &wasmtime::Error, state: &HandlerState, limits: &Limits) -> String {
    let mut why = if let Some(what) = state.sandbox.limiter.exceeded_count() {
        format!("exceeded this host's limit of {what} per handler instance")
    } else if state.sandbox.limiter.memory_exceeded {
        format!(
            "exceeded its memory limit of {} MiB (limits.memory-mib in wasm-charm.yaml)",
            limits.memory_bytes >> 20
        )
    } else {
        match e.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => time_limit(limits),
            Some(Trap::StackOverflow) => "overflowed its stack".to_string(),
            // Rust (and C) guests keep their stack frames in linear memory,
            // growing towards address 0: running past 0 is an out-of-bounds
            // access, not a `StackOverflow` trap, and wasmtime gives no
            // address when the access was the `memory.fill` zeroing a new
            // frame. Safe Rust reaches out of bounds no other way, so the
            // likely cause comes first.
            Some(Trap::MemoryOutOfBounds) => "overflowed its stack or accessed memory \
                 out of bounds (deep or unbounded recursion does this)"
                .to_string(),
            Some(Trap::UnreachableCodeReached) => "panicked or aborted".to_string(),
            Some(t) => format!("stopped on a {t}"),
            None => format!("failed: {e:#}"),
        }
    };
    let stderr = state.sandbox.stderr.text();
    if !stderr.trim().is_empty() {
        why.push_str("; its stderr ends with: ");
        why.push_str(stderr.trim());
    }
    why
}

/// Identify the component at `path` (reading it only if it changed).
pub fn identify(path: &Path, state_dir: &Path) -> Result<cache::ComponentId, LoadError> {
    cache::identify(path, state_dir).map_err(|error| LoadError::Read {
        path: path.to_path_buf(),
        error,
    })
}

/// Fill the artifact cache ahead of the first event (`wasm-charm precompile`).
pub fn precompile(path: &Path, state_dir: &Path) -> Result<cache::Source, LoadError> {
    Runtime::load(&mut identify(path, state_dir)?, state_dir).map(|r| r.source)
}

/// The portable artifact of the component at `path`, beside the native one
/// [`precompile`] made in `state_dir`'s cache, for a CPU of the byte order
/// `big_endian` (`pack` ships both).
#[cfg(feature = "compile")]
pub fn precompile_portable(
    path: &Path,
    state_dir: &Path,
    big_endian: bool,
) -> Result<std::path::PathBuf, LoadError> {
    let mut id = identify(path, state_dir)?;
    let sha256 = id.sha256.clone();
    let wasm = id.bytes().map_err(|error| LoadError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    check_component_header(path, wasm)?;
    let dir = state_dir.join(cache::CACHE_DIR);
    cache::compile_artifact(engine::Target::Portable { big_endian }, wasm, &dir, &sha256).map_err(
        |e| LoadError::Compile {
            path: path.to_path_buf(),
            message: format!("{e:#}"),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(incompatibility("0.3.0"), None);
        assert!(incompatibility("0.3.1").unwrap().contains("newer host"));
        // A charm built against 0.2 (one `model` interface for the whole
        // Juju model) or 0.1 (before probes could gate) is refused.
        assert!(incompatibility("0.2.0").unwrap().contains("rebuild"));
        assert!(incompatibility("0.1.0").unwrap().contains("rebuild"));
        assert!(incompatibility("0.4.0").unwrap().contains("rebuild"));
        assert!(incompatibility("1.0.0").unwrap().contains("rebuild"));
        assert!(incompatibility("").is_some());
    }

    #[test]
    fn headers() {
        let p = Path::new("charm.wasm");
        assert!(check_component_header(p, b"\0asm\x0d\x00\x01\x00").is_ok());
        let e = check_component_header(p, b"\0asm\x01\x00\x00\x00").unwrap_err();
        assert!(e.to_string().contains("core WebAssembly module"), "{e}");
        let e = check_component_header(p, b"#!/bin/sh").unwrap_err();
        assert!(
            e.to_string().contains("charm.wasm: not a WebAssembly file"),
            "{e}"
        );
    }
}
