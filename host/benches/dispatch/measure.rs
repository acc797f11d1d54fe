//! Spawning a dispatch as Juju would, and what one run costs.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub struct Sample {
    pub wall_ms: f64,
    pub rss_kib: i64,
}

/// The argument that makes this benchmark's executable the spawner of one
/// measured command ([`spawner_main`]).
pub const SPAWNER: &str = "--spawn-and-measure";

/// Run `cmd` and return its wall time and peak RSS. `cmd` runs with only
/// the environment it sets (every command here starts from `env_clear`).
///
/// A child starts in its parent's memory until it execs, and the kernel
/// keeps that peak in the child's figure; this process grows (it reads
/// charms and stores), so the command is spawned, timed and reaped by a
/// fresh, small copy of this executable ([`spawner_main`]), which reports
/// the figures on its stdout. `/bin/true`'s figure shows what is left of
/// that floor.
pub fn measure(cmd: &mut Command) -> Sample {
    let mut spawner = Command::new(std::env::current_exe().expect("the benchmark's executable"));
    spawner
        .arg(SPAWNER)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    spawner.env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            spawner.env(k, v);
        }
    }
    if let Some(dir) = cmd.get_current_dir() {
        spawner.current_dir(dir);
    }
    let out = spawner
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("spawn the spawner");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut figures = text.split_whitespace();
    match (
        out.status.success(),
        figures.next().and_then(|w| w.parse().ok()),
        figures.next().and_then(|r| r.parse().ok()),
    ) {
        (true, Some(wall_ms), Some(rss_kib)) => Sample { wall_ms, rss_kib },
        _ => panic!("{cmd:?} failed: {text}"),
    }
}

/// The spawner's side of [`measure`]: run `argv` (stdio to /dev/null), wait
/// with `wait4`, print its wall time in ms and peak RSS in KiB; exit 1 if
/// it failed.
pub fn spawner_main(argv: &[std::ffi::OsString]) -> std::process::ExitCode {
    let Some((program, args)) = argv.split_first() else {
        eprintln!("{SPAWNER}: no command");
        return std::process::ExitCode::FAILURE;
    };
    let start = Instant::now();
    let child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("{SPAWNER}: {}: {e}", Path::new(program).display());
            return std::process::ExitCode::FAILURE;
        }
    };
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own unreaped child; both pointers are valid for writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    std::mem::forget(child); // reaped above, or lost with this process
    if r != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        eprintln!(
            "{SPAWNER}: {}: status {status}",
            Path::new(program).display()
        );
        return std::process::ExitCode::FAILURE;
    }
    println!("{wall_ms} {}", usage.ru_maxrss);
    std::process::ExitCode::SUCCESS
}

/// The order of round `round` among `n` commands measured in turn: each
/// round starts one further on, so that each command takes each place
/// (say, just after a Python process that emptied the caches) equally
/// often.
pub fn rotation(round: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| (round + k) % n)
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The hook environment of the peer's env.sh, for `hook`.
pub fn hook_command(peer: &Path, charm: &Path, hook: &str) -> Command {
    let mut cmd = Command::new(charm.join("dispatch"));
    let path = format!(
        "{}:{}",
        peer.join("tools").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env_clear()
        .current_dir(charm)
        .env("PATH", path)
        .env("FAKE_JUJU_DATA", peer.join("data"))
        .env("JUJU_UNIT_NAME", "gateway/0")
        .env("JUJU_MODEL_NAME", "bench")
        .env("JUJU_MODEL_UUID", "00000000-0000-4000-8000-000000000000")
        .env("JUJU_VERSION", "3.6.4")
        .env("JUJU_MACHINE_ID", "0")
        .env(
            "JUJU_CONTEXT_ID",
            format!("gateway/0-{hook}-00000000000000000000000000000001"),
        )
        .env(
            "JUJU_AGENT_SOCKET_ADDRESS",
            "@/var/lib/juju/agents/unit-gateway-0/agent.socket",
        )
        .env("JUJU_AGENT_SOCKET_NETWORK", "unix")
        .env("JUJU_API_ADDRESSES", "127.0.0.1:17070")
        .env("JUJU_DISPATCH_PATH", format!("hooks/{hook}"))
        .env("JUJU_HOOK_NAME", hook)
        .env("JUJU_CHARM_DIR", charm)
        .env("CHARM_DIR", charm)
        .env("LANG", "C.UTF-8");
    cmd
}

pub fn run_ok(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Copy the directory `from` to `to` (files keep their permissions).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst)
                .unwrap_or_else(|e| panic!("{} → {}: {e}", src.display(), dst.display()));
        }
    }
}

/// An event beyond a plain hook: the environment Juju adds for it.
pub struct EventEnv {
    /// What the tables call it.
    pub label: &'static str,
    /// The hook's name, or the action's.
    pub name: &'static str,
    pub action: bool,
    pub env: &'static [(&'static str, &'static str)],
}

/// `hook_command` for `event`: a relation's variables, or an action's
/// dispatch path and id in place of a hook's.
pub fn event_command(peer: &Path, charm: &Path, event: &EventEnv) -> Command {
    let mut cmd = hook_command(peer, charm, event.name);
    if event.action {
        cmd.env_remove("JUJU_HOOK_NAME")
            .env("JUJU_DISPATCH_PATH", format!("actions/{}", event.name))
            .env("JUJU_ACTION_NAME", event.name)
            .env("JUJU_ACTION_UUID", "1");
    }
    for (k, v) in event.env {
        cmd.env(k, v);
    }
    cmd
}
