//! Fault injection for a unit's hook tools: one call of one tool made to
//! fail in a chosen way, every other call answered by the unit's own tools.
//!
//! [`inject`] replaces `<unit>/tools/<tool>` by a shell wrapper that counts
//! its calls in `<unit>/faults/<tool>.count`; the chosen call does what the
//! [`Fault`] says, every other call `exec`s the tool the unit had (the
//! simulator or the Python fake, kept under `<unit>/faults/real/<tool>`, so
//! it still sees its own name and records the call). [`Fault::Missing`]
//! removes the tool from `PATH` instead. [`restore`] puts the unit's tool
//! back.

use crate::support::Unit;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;

/// How the chosen call of a tool fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The tool is not on `PATH` at all.
    Missing,
    /// `ERROR …` on stderr, exit 1: a run-time error, as Juju's tools give.
    Exit1,
    /// `ERROR …` on stderr, exit 2: a flag or argument error.
    Exit2,
    /// Exit 0 with stdout that is not JSON (cut in the middle of a string).
    BrokenJson,
    /// Never answers (it and a child of its own sleep for an hour).
    Hang,
    /// Killed by SIGKILL before answering.
    Signal,
}

impl Fault {
    pub const ALL: [Fault; 6] = [
        Fault::Missing,
        Fault::Exit1,
        Fault::Exit2,
        Fault::BrokenJson,
        Fault::Hang,
        Fault::Signal,
    ];

    /// The shell that stands for the failing call.
    fn body(self, tool: &str) -> String {
        match self {
            Fault::Missing => String::new(),
            Fault::Exit1 => format!("echo 'ERROR injected failure of {tool}' >&2\nexit 1\n"),
            Fault::Exit2 => {
                format!(
                    "echo 'ERROR flag provided but not defined: -injected ({tool})' >&2\nexit 2\n"
                )
            }
            Fault::BrokenJson => "printf '{\"broken'\nexit 0\n".to_string(),
            // A child too, so that killing only the tool would not free its pipes.
            Fault::Hang => "sleep 3600 &\nexec sleep 3600\n".to_string(),
            Fault::Signal => "kill -KILL $$\n".to_string(),
        }
    }
}

fn faults_dir(unit: &Unit) -> PathBuf {
    unit.dir().join("faults")
}

/// Makes call number `call` (1: the first from now on) of `tool` fail as
/// `fault` says; the calls before and after it reach the unit's tool.
pub fn inject(unit: &Unit, tool: &str, call: u32, fault: Fault) {
    let tools = unit.dir().join("tools");
    let path = tools.join(tool);
    let real_dir = faults_dir(unit).join("real");
    fs::create_dir_all(&real_dir).expect("create the faults directory");
    let real = real_dir.join(tool);
    if !real.exists() {
        let target = fs::read_link(&path)
            .unwrap_or_else(|e| panic!("{} is not the unit's tool link: {e}", path.display()));
        std::os::unix::fs::symlink(&target, &real).expect("keep the real tool");
    }
    let _ = fs::remove_file(&path);
    if fault == Fault::Missing {
        return;
    }
    let count = faults_dir(unit).join(format!("{tool}.count"));
    fs::write(&count, "0").expect("reset the call count");
    let script = format!(
        "#!/bin/bash\n\
         n=$(( $(cat '{count}') + 1 ))\n\
         echo $n > '{count}'\n\
         if [ $n -eq {call} ]; then\n{body}fi\n\
         exec '{real}' \"$@\"\n",
        count = count.display(),
        body = fault.body(tool),
        real = real.display(),
    );
    fs::write(&path, script).expect("write the faulty tool");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod the faulty tool");
}

/// How many times `tool` was called since [`inject`] (0 for a missing one).
pub fn calls_seen(unit: &Unit, tool: &str) -> u32 {
    let count = faults_dir(unit).join(format!("{tool}.count"));
    fs::read_to_string(count)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// Gives `tool` back to the unit, as it was before [`inject`].
pub fn restore(unit: &Unit, tool: &str) {
    let path = unit.dir().join("tools").join(tool);
    let real = faults_dir(unit).join("real").join(tool);
    let target = fs::read_link(&real).expect("the kept tool");
    let _ = fs::remove_file(&path);
    std::os::unix::fs::symlink(target, &path).expect("restore the tool");
}

/// A small tmpfs mounted over a directory of a unit (needs root, or
/// `CAP_SYS_ADMIN`), holding what the directory held: to make the host's
/// writes there meet a full or a read-only file system. Unmounted on drop,
/// the directory's content copied back first, so a failing test leaves
/// nothing mounted.
pub struct Tmpfs {
    dir: PathBuf,
    filler: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount -t tmpfs -o size=…`) over `dir`,
    /// with a copy of what `dir` held. `Err`: mounting is not permitted
    /// here (the message says why).
    pub fn over(dir: &std::path::Path, size: &str) -> Result<Tmpfs, String> {
        let saved = dir.with_extension("saved");
        copy_dir(dir, &saved).map_err(|e| format!("copy {}: {e}", dir.display()))?;
        let out = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs over {} failed: {}",
                dir.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let fs = Tmpfs {
            dir: dir.to_path_buf(),
            filler: dir.join("filler"),
        };
        copy_dir(&saved, dir).map_err(|e| format!("fill {}: {e}", dir.display()))?;
        let _ = fs::remove_dir_all(&saved);
        Ok(fs)
    }

    /// Fills the file system until `leave` bytes are free (a multiple of
    /// its block size).
    pub fn fill(&self, leave: u64) {
        let out = std::process::Command::new("stat")
            .args(["-f", "-c", "%a %S"])
            .arg(&self.dir)
            .output()
            .expect("run stat -f");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text
            .split_whitespace()
            .map(|w| w.parse::<u64>().unwrap_or(0));
        let (avail, block) = (words.next().unwrap_or(0), words.next().unwrap_or(4096));
        let bytes = (avail * block).saturating_sub(leave);
        fs::write(&self.filler, vec![0u8; bytes as usize]).expect("write the filler");
    }

    /// Frees what [`Tmpfs::fill`] took.
    pub fn unfill(&self) {
        let _ = fs::remove_file(&self.filler);
    }

    /// Remounts it read-only (`true`) or read-write.
    pub fn read_only(&self, ro: bool) {
        assert!(
            self.remount(ro),
            "mount -o remount,{} {} failed",
            if ro { "ro" } else { "rw" },
            self.dir.display()
        );
    }

    fn remount(&self, ro: bool) -> bool {
        let how = if ro { "remount,ro" } else { "remount,rw" };
        std::process::Command::new("mount")
            .args(["-o", how])
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success())
    }
}

/// Declare the `Tmpfs` after the unit it is mounted in, so that it is
/// unmounted before the unit's directory is removed.
impl Drop for Tmpfs {
    fn drop(&mut self) {
        self.remount(false);
        self.unfill();
        let unmounted = std::process::Command::new("umount")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            // Busy (a process of the test still in it): detach it now, it
            // goes when the last user does.
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.dir)
                .status();
        }
    }
}

/// Copies the regular files and directories under `from` into `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else if kind.is_file() {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}
