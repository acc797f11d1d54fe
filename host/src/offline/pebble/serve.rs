//! `wasm-charm sim pebble`: one container's simulated Pebble in its
//! process mode, served until SIGTERM or SIGINT, for tests whose workload
//! really runs (the web-k8s example's server answering HTTP, a service
//! killed as a crash would). At the signal every service and exec it
//! started is stopped and the socket removed.

use super::api::Sim;
use super::server::Server;
use std::path::PathBuf;

/// The command line of `sim pebble`.
#[derive(Debug, clap::Args)]
pub struct PebbleArgs {
    /// Where to listen (a unix socket; its directory is made).
    #[arg(long, value_name = "PATH")]
    pub socket: PathBuf,
    /// The container's file system: container path /etc/x is DIR/etc/x;
    /// exec runs there unless asked for another working directory.
    #[arg(long, value_name = "DIR")]
    pub root: PathBuf,
    /// Where each running service's pid is written, as `<service>.pid`.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
}

/// SIGTERM and SIGINT, blocked in every thread so that one `sigwait`
/// takes them (each child unblocks them: `process::in_session`).
fn stop_signals() -> std::io::Result<libc::sigset_t> {
    // SAFETY: signal(2) only sets the dispositions; the set is initialised
    // by sigemptyset before any other use; pthread_sigmask only changes
    // this thread's mask, inherited by the threads started after it.
    unsafe {
        // A shell starts a background job with SIGINT ignored, and an
        // ignored signal is discarded rather than left for sigwait.
        for signal in [libc::SIGTERM, libc::SIGINT] {
            if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
        }
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        let e = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if e != 0 {
            return Err(std::io::Error::from_raw_os_error(e));
        }
        Ok(set)
    }
}

fn wait_for(set: &libc::sigset_t) {
    let mut signal = 0;
    // SAFETY: `set` was made by `stop_signals`; sigwait writes the signal
    // taken into `signal`.
    unsafe { libc::sigwait(set, &mut signal) };
}

/// Serve until told to stop. Before any thread starts (the signal mask).
pub fn main(args: &PebbleArgs) -> anyhow::Result<()> {
    let signals = stop_signals().map_err(|e| anyhow::anyhow!("cannot block signals: {e}"))?;
    std::fs::create_dir_all(&args.root)
        .map_err(|e| anyhow::anyhow!("--root {}: {e}", args.root.display()))?;
    let root = std::fs::canonicalize(&args.root)
        .map_err(|e| anyhow::anyhow!("--root {}: {e}", args.root.display()))?;
    if let Some(state) = &args.state {
        std::fs::create_dir_all(state)
            .map_err(|e| anyhow::anyhow!("--state {}: {e}", state.display()))?;
    }
    let sim = Sim::process(root, args.state.clone());
    let server =
        Server::start(args.socket.clone(), sim).map_err(|e| anyhow::anyhow!("--socket {e}"))?;
    wait_for(&signals);
    let mut sim = server.stop();
    sim.shutdown();
    Ok(())
}
