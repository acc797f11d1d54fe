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
//!
//! Included with `#[path = "support/faults.rs"] mod faults;` after
//! `mod support;`.
#![allow(dead_code)]

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
