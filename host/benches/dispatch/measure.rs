//! Spawning a dispatch as Juju would, and what one run costs.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub struct Sample {
    pub wall_ms: f64,
    pub rss_kib: i64,
}

/// Spawn, wait with `wait4`, and return wall time and peak RSS. A child
/// starts in this process's memory until it execs, and the kernel keeps
/// that peak in its figure: this process must stay smaller than what it
/// measures (`/bin/true`'s figure shows its floor).
pub fn measure(cmd: &mut Command) -> Sample {
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own unreaped child; both pointers are valid for writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed: status {status}"
    );
    std::mem::forget(child); // already reaped
    Sample {
        wall_ms,
        rss_kib: usage.ru_maxrss,
    }
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
