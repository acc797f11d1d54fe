//! What the simulated machine reaches for real: the unit files a package
//! wrote under the workload root, the processes of units with a command,
//! and the payload programs of packages.

use super::UnitDefinition;
use std::fs::File;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where unit files are found, under the root, as a package installs them.
const UNIT_DIRS: [&str; 3] = [
    "etc/systemd/system",
    "lib/systemd/system",
    "usr/lib/systemd/system",
];

/// The machine's side effects, apart so that the state transitions can be
/// tested without processes.
pub trait Processes {
    /// The unit `name` as a unit file under the root defines it.
    fn unit_file(&self, name: &str) -> Option<UnitDefinition>;
    /// Whether any unit file is under the root.
    fn any_unit_file(&self) -> bool;
    /// Whether process `pid` runs (exists, and is not a zombie).
    fn alive(&self, pid: u32) -> bool;
    /// Start `command` for unit `name` as a process group of its own: its
    /// pid, or why it could not start.
    fn start(&self, name: &str, command: &str) -> Result<u32, String>;
    /// Kill the process group `pid` leads.
    fn kill(&self, pid: u32);
    /// Run package `name`'s payload program: whether it succeeded.
    fn install(&self, name: &str, payload: &Path) -> bool;
}

/// The places of one simulated machine: the workload root (none when it
/// is the machine's own, whose unit files are not the simulation's), and
/// the directory its processes' output goes to.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub root: Option<PathBuf>,
    /// `<state dir>/machine`.
    pub logs: PathBuf,
}

impl Place {
    /// The places for a state file's directory `state_dir`.
    pub fn new(root: Option<PathBuf>, state_dir: &Path) -> Place {
        Place {
            root,
            logs: state_dir.join("machine"),
        }
    }

    fn log(&self, file: &str) -> Result<(File, File), String> {
        let path = self.logs.join(file);
        let open = || {
            std::fs::create_dir_all(&self.logs)?;
            let out = File::options().create(true).append(true).open(&path)?;
            let err = out.try_clone()?;
            Ok::<_, std::io::Error>((out, err))
        };
        open().map_err(|e| format!("{}: cannot open: {e}", path.display()))
    }
}

/// The first `ExecStart=` of a unit file's text.
pub fn exec_start(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("ExecStart="))
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
}

impl Processes for Place {
    fn unit_file(&self, name: &str) -> Option<UnitDefinition> {
        let root = self.root.as_ref()?;
        UNIT_DIRS.iter().find_map(|dir| {
            let text = std::fs::read_to_string(root.join(dir).join(format!("{name}.service")));
            text.ok().map(|t| UnitDefinition {
                exec_start: exec_start(&t),
            })
        })
    }

    fn any_unit_file(&self) -> bool {
        let Some(root) = &self.root else {
            return false;
        };
        UNIT_DIRS.iter().any(|dir| {
            std::fs::read_dir(root.join(dir)).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "service"))
            })
        })
    }

    fn alive(&self, pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
    }

    fn start(&self, name: &str, command: &str) -> Result<u32, String> {
        let (out, err) = self.log(&format!("{name}.out"))?;
        // A group of its own: the host kills the tool's group when the tool
        // exits, and the service must outlive it, as systemd's do.
        let child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot run sh -c {command:?}: {e}"))?;
        Ok(child.id())
    }

    fn kill(&self, pid: u32) {
        if let Ok(pid) = libc::pid_t::try_from(pid)
            && pid > 0
        {
            // SAFETY: kill(2) takes no pointers; a group that is gone is ESRCH.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }

    fn install(&self, name: &str, payload: &Path) -> bool {
        let Ok((out, err)) = self.log(&format!("{name}.install.out")) else {
            return false;
        };
        let mut cmd = Command::new(payload);
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        if let Some(root) = &self.root {
            cmd.env(crate::workload_root::ROOT_VAR, root);
        }
        cmd.status().is_ok_and(|s| s.success())
    }
}
