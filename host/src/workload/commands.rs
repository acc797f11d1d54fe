//! Declared commands: the argv a call runs (the declared one, then the
//! guest's arguments where the manifest allows them) and how it runs —
//! without a shell, with an environment holding only [`PATH`], stdin
//! empty, in `/` (or the directory given), in a process group of its own
//! killed whole at its deadline.

use super::process::{self, Ended, Ran};
use crate::bindings::workload::{CommandOutput, Exit, WorkloadError};
use crate::charm_dir::{CommandSpec, MAX_ARGS, MAX_ARGS_BYTES};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The only environment variable a command gets: where its programs are
/// found (a bare `argv[0]` too).
pub const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Linux's bound on one argument (`MAX_ARG_STRLEN`), terminating NUL included.
const MAX_ARG: usize = 128 * 1024 - 1;

/// The argv of command `name` (declared as `spec`) with the guest's `args`.
pub fn argv(name: &str, spec: &CommandSpec, args: &[String]) -> Result<Vec<String>, WorkloadError> {
    if !args.is_empty() && !spec.args {
        return Err(WorkloadError::Undeclared(format!(
            "command `{name}` takes no arguments from the charm (wasm-charm.yaml \
             workload.commands.{name}.args is false)"
        )));
    }
    if args.len() > MAX_ARGS {
        return Err(WorkloadError::Unavailable(format!(
            "command `{name}`: {} arguments, at most {MAX_ARGS}",
            args.len()
        )));
    }
    let bytes: usize = args.iter().map(String::len).sum();
    if bytes > MAX_ARGS_BYTES {
        return Err(WorkloadError::Unavailable(format!(
            "command `{name}`: {bytes} bytes of arguments, at most {MAX_ARGS_BYTES}"
        )));
    }
    for (i, arg) in args.iter().enumerate() {
        if arg.contains('\0') {
            return Err(WorkloadError::Unavailable(format!(
                "command `{name}`: argument {i} holds a NUL byte, which no argv can carry"
            )));
        }
        if arg.len() > MAX_ARG {
            return Err(WorkloadError::Unavailable(format!(
                "command `{name}`: argument {i} is {} bytes, at most {MAX_ARG}",
                arg.len()
            )));
        }
    }
    Ok(spec.argv.iter().chain(args).cloned().collect())
}

/// When a command started now must end: its declared timeout, cut to the
/// handler's deadline.
pub fn end(timeout: Duration, deadline: Instant, now: Instant) -> Instant {
    now.checked_add(timeout)
        .map_or(deadline, |t| t.min(deadline))
}

/// The `PATH` a command gets under `root` (`/`, or `WASM_CHARM_ROOT`): the
/// root's own copies of the system directories first, as for every declared
/// path, then the machine's, so a test's root still finds `/bin/sh`.
pub fn search_path(root: &Path) -> String {
    if root == Path::new("/") {
        return PATH.to_string();
    }
    let under: Vec<String> = PATH
        .split(':')
        .map(|dir| format!("{}{dir}", root.display()))
        .collect();
    format!("{}:{PATH}", under.join(":"))
}

/// The program to start: an absolute `argv[0]` is a declared path, looked
/// up under `root` like the declared directories; a bare name is searched
/// on [`search_path`].
pub fn program(root: &Path, argv0: &str) -> std::path::PathBuf {
    match argv0.strip_prefix('/') {
        Some(rest) if root != Path::new("/") => root.join(rest),
        _ => std::path::PathBuf::from(argv0),
    }
}

/// Run `argv` under `root` (its working directory) until it exits or
/// `until` passes.
pub fn run(argv: &[String], root: &Path, until: Instant) -> Result<CommandOutput, WorkloadError> {
    let Some((program_name, args)) = argv.split_first() else {
        return Err(WorkloadError::Unavailable("an empty argv".to_string()));
    };
    let program_name = program_name.as_str();
    let path = search_path(root);
    // A bare name is searched on the PATH given below (std uses the
    // child's PATH when it is set).
    let mut cmd = Command::new(program(root, program_name));
    cmd.arg0(program_name)
        .args(args)
        .env_clear()
        .env("PATH", &path)
        .current_dir(root);
    match process::run(&mut cmd, until) {
        Ok(ran) => Ok(output(ran)),
        Err(e) => Err(WorkloadError::Unavailable(format!(
            "cannot run `{program_name}`: {e}"
        ))),
    }
}

/// The WIT shape of what a command did.
pub fn output(ran: Ran) -> CommandOutput {
    CommandOutput {
        exit: match ran.ended {
            Ended::Code(c) => Exit::Code(c),
            Ended::Signal(s) => Exit::Signal(s),
            Ended::TimedOut => Exit::TimedOut,
        },
        stdout: ran.stdout,
        stderr: ran.stderr,
        truncated: ran.truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: bool) -> CommandSpec {
        CommandSpec {
            argv: vec!["api-manage".into(), "db".into(), "sync".into()],
            args,
            timeout: Duration::from_secs(5),
        }
    }

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_declared_argv_then_the_guests_arguments_where_allowed() {
        assert_eq!(
            argv("db-sync", &spec(false), &[]).unwrap(),
            ["api-manage", "db", "sync"]
        );
        assert_eq!(
            argv("db-sync", &spec(true), &strings(&["--to", "a b"])).unwrap(),
            ["api-manage", "db", "sync", "--to", "a b"]
        );
        let e = argv("db-sync", &spec(false), &strings(&["--to"])).unwrap_err();
        assert_eq!(
            e,
            WorkloadError::Undeclared(
                "command `db-sync` takes no arguments from the charm (wasm-charm.yaml \
                 workload.commands.db-sync.args is false)"
                    .into()
            )
        );
    }

    #[test]
    fn arguments_argv_cannot_carry_are_refused() {
        let e = argv("x", &spec(true), &strings(&["ok", "a\0b"])).unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Unavailable(m) if m.contains("argument 1 holds a NUL")),
            "{e:?}"
        );
        let many = vec!["a".to_string(); MAX_ARGS + 1];
        assert!(matches!(
            argv("x", &spec(true), &many),
            Err(WorkloadError::Unavailable(_))
        ));
        let long = vec!["a".repeat(MAX_ARG + 1)];
        assert!(matches!(
            argv("x", &spec(true), &long),
            Err(WorkloadError::Unavailable(_))
        ));
        let big = vec!["a".repeat(MAX_ARG); 9];
        assert!(
            matches!(argv("x", &spec(true), &big), Err(WorkloadError::Unavailable(m)) if m.contains("bytes of arguments"))
        );
    }

    #[test]
    fn under_a_root_programs_are_looked_up_there_first() {
        let root = Path::new("/tmp/r");
        assert_eq!(search_path(Path::new("/")), PATH);
        let path = search_path(root);
        assert!(path.starts_with("/tmp/r/usr/local/sbin:"), "{path}");
        assert!(path.ends_with(&format!(":{PATH}")), "{path}");
        assert_eq!(program(root, "/usr/bin/x"), Path::new("/tmp/r/usr/bin/x"));
        assert_eq!(
            program(Path::new("/"), "/usr/bin/x"),
            Path::new("/usr/bin/x")
        );
        assert_eq!(program(root, "x"), Path::new("x"));
    }

    #[test]
    fn the_timeout_is_cut_to_the_deadline() {
        let now = Instant::now();
        let deadline = now + Duration::from_secs(10);
        assert_eq!(
            end(Duration::from_secs(3), deadline, now),
            now + Duration::from_secs(3)
        );
        assert_eq!(end(Duration::from_secs(60), deadline, now), deadline);
        assert_eq!(end(Duration::MAX, deadline, now), deadline);
    }

    #[test]
    fn runs_without_shell_environment_or_stdin() {
        let root = Path::new("/");
        let out = run(
            &strings(&["env"]),
            root,
            Instant::now() + Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(out.exit, Exit::Code(0));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("PATH={PATH}\n")
        );
        let out = run(
            &strings(&["/bin/sh", "-c", "pwd; cat; echo '$HOME' \"$HOME\""]),
            root,
            Instant::now() + Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "/\n$HOME \n");
        let e = run(
            &strings(&["no-such-program-here"]),
            root,
            Instant::now() + Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Unavailable(m) if m.starts_with("cannot run `no-such-program-here`")),
            "{e:?}"
        );
    }
}
