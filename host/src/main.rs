//! `wasm-charm`: Juju's `dispatch` for charms compiled to WebAssembly
//! components, and the tools around it (DESIGN §9).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wasm_charm_host::{init, inspect, juju, offline, pack, replay, scenario, serve};

#[derive(Parser)]
#[command(name = "wasm-charm", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Juju mode: run the event Juju's environment describes (what `dispatch` does).
    Dispatch,
    /// Run one event offline, against a simulated Juju whose state is a YAML file.
    ///
    /// Every section and key of the state file: docs/offline-state.md in the
    /// wasm-charm repository.
    Run(Box<offline::RunArgs>),
    /// The simulated Juju of `run`, served to a charm's own processes.
    #[command(subcommand)]
    Sim(SimCommand),
    /// Run scenario files: steps of events on the simulated Juju of `run`,
    /// each with the changes before it and what to expect after it.
    Test(scenario::TestArgs),
    /// Build a charm project for wasm32-wasip2, assemble a charm directory,
    /// and zip it into a `.charm` for `juju deploy`.
    ///
    /// The `.charm` holds the directory's files and a `manifest.yaml` naming
    /// the Ubuntu bases and the architecture `dispatch` really runs on (all
    /// of them for the static dispatch it ships by default).
    Pack {
        /// The project: a Cargo package with metadata.yaml beside its Cargo.toml.
        project: PathBuf,
        /// Where to assemble the charm directory.
        #[arg(long)]
        out: PathBuf,
        /// The host executable to ship as `dispatch` [default: the static,
        /// runtime-only dispatch, built once from this wasm-charm's source].
        #[arg(long, value_name = "PATH")]
        dispatch: Option<PathBuf>,
        /// The `.charm` to write [default: `<name>.charm` beside the charm directory].
        #[arg(long, value_name = "FILE")]
        charm: Option<PathBuf>,
    },
    /// What a charm is made of: its handlers and the events each observes,
    /// the WIT version and imports of its component, and what it declares
    /// (actions, probes, the directories, services, commands and packages
    /// it may change on the machine, limits, bases).
    ///
    /// Reads a charm directory, a `.charm` or a bare component (`.wasm`);
    /// runs only the component's `declare`, in a sandboxed instance that can
    /// reach nothing, and writes nothing.
    Inspect {
        /// A charm directory, a `.charm` file or a component `.wasm`.
        path: PathBuf,
    },
    /// Prove, before deploying, that a charm runs the code `inspect`
    /// shows: every precompiled artifact is, byte for byte, what this
    /// wasm-charm compiles from the charm's component; `.wasm-charm/` holds
    /// nothing else; and `dispatch` is this release's runtime.
    ///
    /// Exit 0 when every file is verified, 1 naming the refused ones.
    Verify {
        /// A `.charm` file or a charm directory.
        path: PathBuf,
        /// The release's `dispatch` to compare with [default: the static
        /// dispatch built from the source tree this binary was built from].
        #[arg(long, value_name = "PATH")]
        dispatch: Option<PathBuf>,
    },
    /// Create a charm project that builds on its own: a Cargo workspace of
    /// its own depending on the SDK (or, with --language python,
    /// src/charm.py and pytest tests), metadata.yaml, config.yaml,
    /// actions.yaml, wasm-charm.yaml, a first handler with its unit tests,
    /// harness tests of whole events and a scenario, for a machine or a
    /// Kubernetes charm.
    Init {
        /// The project directory to create (it must not exist, or be empty).
        dir: PathBuf,
        /// The charm's name [default: the directory's name].
        #[arg(long)]
        name: Option<String>,
        /// The kind of charm: a machine charm, or a Kubernetes sidecar
        /// charm with a workload container driven through Pebble.
        #[arg(long, value_enum, default_value_t)]
        profile: init::Profile,
        /// The language of the charm's handlers: a Rust crate, or
        /// `src/charm.py` with pytest tests.
        #[arg(long, value_enum, default_value_t)]
        language: init::Language,
        /// The SDK to depend on: a path to wasm-charm's guest-sdk, or a git
        /// URL of the wasm-charm repository; for Python, a path to its
        /// guest-sdk-py [default: that of the source tree this binary was
        /// built from, when it exists].
        #[arg(long, value_name = "PATH_OR_GIT_URL")]
        sdk: Option<String>,
    },
    /// Every scope of a charm, its history and the statuses last written.
    ///
    /// Without --state: the offline state `run` writes by default
    /// (`<charm dir>.offline-state.yaml` beside the charm directory) when it
    /// exists, else the charm's own store (`<charm>/.wasm-charm/scopes.json`,
    /// what Juju-mode events write). The first line on stderr names the one read.
    Status {
        /// The charm directory.
        charm: PathBuf,
        /// Read the scopes of this offline state file.
        #[arg(long)]
        state: Option<PathBuf>,
        /// Print the scope store document as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the events of a recording again, offline, against the answers
    /// they got, with the charm directory's current component; print
    /// `same` per event or the differences (the calls made, statuses,
    /// failures, exit code, handler results, the store).
    ///
    /// Exit 0 when every event did the same, 1 when any differs, 2 for a
    /// recording or arguments that cannot be used.
    Replay(replay::ReplayArgs),
    /// Serve the simulator to a test harness: JSON requests on stdin, one
    /// per line, and one JSON response line each on stdout, after a hello
    /// line naming the protocol and its version; until stdin closes.
    ///
    /// The protocol: docs/harness-protocol.md in the wasm-charm repository.
    Serve,
    /// The offline model's `juju`: the commands jubilant and a person use
    /// (deploy, integrate, status, run, …), over many applications and
    /// units whose every event is a real dispatch. The same binary run as
    /// `juju` (a link) is this command.
    ///
    /// The subset and its sources: docs/world.md in the wasm-charm repository.
    Juju {
        /// The `juju` command line.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Fill the compiled-artifact cache of a charm directory ahead of the first event.
    Precompile {
        /// The charm directory.
        charm: PathBuf,
    },
}

#[derive(Subcommand)]
enum SimCommand {
    /// Run `<charm dir>/dispatch` (any charm's: a wasm-charm host, an ops
    /// charm's script) as a process against the simulated Juju of `run`.
    ///
    /// The hook tools are served from the state file by this binary under
    /// each tool's name, first on `PATH`; the environment is Juju's for the
    /// event. The process's writes are kept when it exits 0 and dropped
    /// otherwise, as Juju commits a hook. The state file and the flags are
    /// `run`'s, and so are the containers' simulated Pebbles (under the
    /// workload root, given to the process as WASM_CHARM_ROOT); the machine
    /// is the real one: a charm's workload calls are not simulated here.
    Dispatch(Box<offline::RunArgs>),
    /// Serve one container's Pebble API on a unix socket over a real
    /// directory, with services, exec and checks as real processes, until
    /// SIGTERM or SIGINT (then every process it started is stopped).
    ///
    /// The simulated Pebble of `run` in its process mode, for tests whose
    /// workload must really run.
    Pebble(offline::pebble::serve::PebbleArgs),
}

/// Under another name than its own (a symlink): `dispatch`, the host as
/// Juju runs it; a hook tool's name (linked by `sim dispatch`), that tool
/// of the simulated Juju; a machine tool's name (`systemctl`, linked
/// beside them), that tool of the simulated machine.
fn invoked_as_a_tool() -> Option<ExitCode> {
    let invoked_as = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_os_string()))?;
    let name = invoked_as.to_str()?;
    if name == "dispatch" {
        Some(juju::main())
    } else if name == "juju" {
        let args: Vec<String> = std::env::args().skip(1).collect();
        Some(wasm_charm_host::juju_cli::main(&args))
    } else if offline::tools::NAMES.contains(&name) {
        Some(offline::tool_session::serve(name))
    } else if offline::machine::TOOLS.contains(&name) {
        Some(offline::served_machine::serve(name))
    } else {
        None
    }
}

fn main() -> ExitCode {
    wasm_charm_host::juju::prepare_process();
    if let Some(code) = invoked_as_a_tool() {
        return code;
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Dispatch => return juju::main(),
        Command::Run(args) => offline::main(*args),
        Command::Sim(SimCommand::Dispatch(args)) => offline::sim_dispatch::main(&args),
        Command::Sim(SimCommand::Pebble(args)) => offline::pebble::serve::main(&args),
        Command::Test(args) => return scenario::main(&args),
        Command::Replay(args) => return replay::main(&args),
        Command::Pack {
            project,
            out,
            dispatch,
            charm,
        } => pack::pack(
            &project,
            &out,
            &pack::Options {
                dispatch,
                archive: charm,
            },
        )
        .map(|packed| {
            println!(
                "wrote {}: ubuntu {} on {} (dispatch: {})",
                packed.archive.display(),
                packed.channels.join(", "),
                packed.dispatch.arch.juju_name(),
                packed.dispatch
            );
            println!("packed {}", packed.dir.display());
            // What would only show on a unit, said now.
            if let Ok(inspection) = inspect::inspect_packed(&packed.dir) {
                for warning in inspection.warnings() {
                    eprintln!("warning: {warning}");
                }
            }
        }),
        Command::Inspect { path } => inspect::main(&path),
        Command::Verify { path, dispatch } => {
            wasm_charm_host::verify::main(&path, dispatch.as_deref())
        }
        Command::Init {
            dir,
            name,
            profile,
            language,
            sdk,
        } => init::main(&dir, name.as_deref(), profile, language, sdk.as_deref()),
        Command::Serve => serve::main(),
        Command::Juju { args } => return wasm_charm_host::juju_cli::main(&args),
        Command::Status { charm, state, json } => offline::status(&charm, state.as_deref(), json),
        Command::Precompile { charm } => wasm_charm_host::charm_dir::CharmDir::load(&charm)
            .map_err(anyhow::Error::from)
            .and_then(|c| {
                let source = wasm_charm_host::runtime::precompile(
                    &c.component_path(),
                    &c.path.join(wasm_charm_host::status::store_file::STATE_DIR),
                )?;
                println!("{}: {source:?}", c.component_path().display());
                Ok(())
            }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wasm-charm: {e:#}");
            // The README's promise: 2 for bad command-line arguments (clap
            // exits 2 itself for the ones it parses), 1 for a failed hook.
            if e.downcast_ref::<offline::UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
