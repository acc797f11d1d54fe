//! `/v1/exec` and its task's websockets: a scripted outcome of a declared
//! command, or a real process (process mode), each one change with a
//! single task carrying the exit code.

use super::api::Sim;
use super::backend::{Exec, Files, Task, TaskIo};
use super::changes::{exec_done, exec_pending, timed_out};
use super::files::unknown_account;
use super::process::exec::{self as real, Spec};
use super::reply::{Attach, Reply, Request, bad, error, json_body, started, strings};
use crate::offline::machine::{ExitWord, ScriptedExit, line};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where `program` is: itself when it names a path, else the first
/// executable of that name on `PATH`.
fn find_program(program: &str, path: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(program))
        .find(|p| executable(p))
}

/// The exec options a request set, for its `calls` line: ` [env K=V,
/// dir D, user U, user-id N, group G, group-id N]`, or nothing.
fn options_note(body: &Value) -> String {
    let mut notes = Vec::new();
    if let Some(Value::Object(env)) = body.get("environment") {
        let pairs: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect();
        if !pairs.is_empty() {
            notes.push(format!("env {}", pairs.join(" ")));
        }
    }
    let fields = [
        ("working-dir", "dir"),
        ("user", "user"),
        ("user-id", "user-id"),
        ("group", "group"),
        ("group-id", "group-id"),
    ];
    for (key, word) in fields {
        match body.get(key) {
            Some(Value::String(t)) if !t.is_empty() => notes.push(format!("{word} {t}")),
            Some(Value::Number(n)) => notes.push(format!("{word} {n}")),
            _ => {}
        }
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", notes.join(", "))
    }
}

/// Whom a real exec runs as: the request's `user-id`/`user` and
/// `group-id`/`group` when the server runs as root (names looked up here);
/// as anyone else they are accepted and ignored, as nobody else may switch
/// users.
fn run_as(body: &Value) -> Result<(Option<u32>, Option<u32>), String> {
    // SAFETY: geteuid(2) reads the process's own id; it cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Ok((None, None));
    }
    let id = |id_key: &str, name_key: &str, user: bool| -> Result<Option<u32>, String> {
        if let Some(n) = body.get(id_key).and_then(Value::as_u64) {
            return u32::try_from(n)
                .map(Some)
                .map_err(|_| format!("invalid {id_key}"));
        }
        match body.get(name_key).and_then(Value::as_str) {
            None | Some("") => Ok(None),
            Some(name) => real::account(name, user)
                .map(Some)
                .ok_or_else(|| unknown_account(name, user)),
        }
    };
    Ok((
        id("user-id", "user", true)?,
        id("group-id", "group", false)?,
    ))
}

impl Sim {
    /// The declared command `argv` runs: the longest declared argv it
    /// starts with (all of it when the command takes no arguments).
    fn command_of(&self, argv: &[String]) -> Option<String> {
        let Exec::Scripted { commands, .. } = &self.exec else {
            return None;
        };
        commands
            .iter()
            .filter(|(_, spec)| {
                argv.starts_with(&spec.argv) && (spec.args || argv.len() == spec.argv.len())
            })
            .max_by_key(|(_, spec)| spec.argv.len())
            .map(|(name, _)| name.clone())
    }

    pub(super) fn exec(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let argv = strings(&body, "command");
        let Some((program, args)) = argv.split_first() else {
            return bad("must specify command");
        };
        self.calls.push(format!(
            "exec {}{}",
            line(program, args),
            options_note(&body)
        ));
        let timeout = body
            .get("timeout")
            .and_then(Value::as_str)
            .unwrap_or("0s")
            .to_string();
        match &self.exec {
            Exec::Scripted { .. } => {
                // Pebble looks the names up first: HTTP 400 in Go's words.
                let name = |k: &str| {
                    body.get(k)
                        .and_then(Value::as_str)
                        .filter(|n| !n.is_empty())
                };
                if let Files::Memory(fs) = &self.fs
                    && let Some((n, user)) = fs.unknown_name(name("user"), name("group"))
                {
                    return bad(unknown_account(&n, user));
                }
                let split = body.get("split-stderr").and_then(Value::as_bool) == Some(true);
                self.exec_scripted(&argv, &timeout, split)
            }
            Exec::Real { working_dir } => {
                let working_dir = working_dir.clone();
                self.exec_real(&body, argv, &timeout, working_dir)
            }
        }
    }

    /// A new change and task id, and the change's summary.
    fn exec_ids(&mut self, program: &str) -> (String, String, String) {
        let change = self.next_id();
        let task = self.next_id();
        (change, task, format!("Execute command \"{program}\""))
    }

    fn exec_scripted(&mut self, argv: &[String], timeout: &str, split_stderr: bool) -> Reply {
        let program = argv.first().map(String::as_str).unwrap_or_default();
        let Some(name) = self.command_of(argv) else {
            return bad(format!(
                "cannot find executable \"{program}\" (the simulated container runs only \
                 the commands wasm-charm.yaml declares for it)"
            ));
        };
        let scripted = match &self.exec {
            Exec::Scripted { outcomes, .. } => outcomes.get(&name).cloned().unwrap_or_default(),
            Exec::Real { .. } => return bad("not a scripted container"),
        };
        if let ScriptedExit::Word(ExitWord::NotFound | ExitWord::PermissionDenied) = scripted.exit {
            // Pebble looks the program up before any change: neither a
            // missing one nor one not executable is found.
            return bad(format!("cannot find executable {program:?}"));
        }
        let (change, task, summary) = self.exec_ids(program);
        let now = self.time();
        let mut doc = exec_pending(&change, &task, &summary, &now);
        match scripted.exit {
            ScriptedExit::Code(c) => exec_done(&mut doc, c.into(), None, &now),
            ScriptedExit::Word(_) => {
                exec_done(&mut doc, -1, Some(&timed_out(timeout)), &now);
            }
        }
        self.changes.insert(&change, doc);
        self.tasks.insert(
            task.clone(),
            Task {
                opened: BTreeSet::new(),
                io: if split_stderr {
                    TaskIo::Scripted {
                        stdout: scripted.stdout.into_bytes(),
                        stderr: scripted.stderr.into_bytes(),
                    }
                } else {
                    // No stderr websocket: both on stdio, as Pebble's pty
                    // or pipe would carry them.
                    TaskIo::Scripted {
                        stdout: format!("{}{}", scripted.stdout, scripted.stderr).into_bytes(),
                        stderr: Vec::new(),
                    }
                },
            },
        );
        started(
            &change,
            json!({"task-id": task, "environment": {}, "working-dir": "/"}),
        )
    }

    fn exec_real(
        &mut self,
        body: &Value,
        argv: Vec<String>,
        timeout_text: &str,
        working_dir: PathBuf,
    ) -> Reply {
        let program = argv.first().cloned().unwrap_or_default();
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        if find_program(&program, &path).is_none() {
            return bad(format!("cannot find executable \"{program}\""));
        }
        let timeout = match crate::duration::parse_duration(timeout_text) {
            Ok(t) if t.is_zero() => None,
            Ok(t) => Some((t, timeout_text.to_string())),
            Err(e) => return bad(format!("invalid timeout: {e}")),
        };
        // As Pebble's: PATH, then what the request sets.
        let mut environment = BTreeMap::from([("PATH".to_string(), path)]);
        if let Some(Value::Object(env)) = body.get("environment") {
            for (k, v) in env {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                environment.insert(k.clone(), v);
            }
        }
        let working_dir = body
            .get("working-dir")
            .and_then(Value::as_str)
            .map_or(working_dir, PathBuf::from);
        let (uid, gid) = match run_as(body) {
            Ok(ids) => ids,
            Err(e) => return bad(e),
        };
        let (change, task, summary) = self.exec_ids(&program);
        self.changes.insert(
            &change,
            exec_pending(&change, &task, &summary, &self.time()),
        );
        let answer = json!({"task-id": task, "environment": environment,
            "working-dir": working_dir.display().to_string()});
        let spec = Spec {
            argv,
            environment,
            working_dir,
            timeout,
            split_stderr: body.get("split-stderr").and_then(Value::as_bool) == Some(true),
            uid,
            gid,
        };
        let run = real::start(spec, self.changes.clone(), change.clone());
        self.tasks.insert(
            task,
            Task {
                opened: BTreeSet::new(),
                io: TaskIo::Running(run),
            },
        );
        started(&change, answer)
    }

    pub(super) fn websocket(&mut self, task: &str, id: &str) -> Reply {
        let Some(t) = self.tasks.get_mut(task) else {
            return error(
                404,
                "not-found",
                &format!("cannot find task with id \"{task}\""),
            );
        };
        if !matches!(id, "control" | "stdio" | "stderr") || !t.opened.insert(id.to_string()) {
            return error(
                404,
                "not-found",
                &format!("cannot find websocket with id \"{id}\""),
            );
        }
        match &t.io {
            TaskIo::Scripted { stdout, stderr } => Reply::Upgrade {
                output: match id {
                    "stdio" => Some(stdout.clone()),
                    "stderr" => Some(stderr.clone()),
                    _ => None,
                },
                stdin_of: (id == "stdio").then(|| task.to_string()),
            },
            TaskIo::Running(run) => Reply::Attach(Attach {
                id: id.to_string(),
                sink: run.clone(),
            }),
        }
    }
}
