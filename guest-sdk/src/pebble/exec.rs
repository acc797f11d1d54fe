//! [`Container::exec`]: the commands wasm-charm.yaml declares for a
//! container, run through Pebble's exec, and the charm's options for them.

use std::collections::BTreeMap;

use super::{Container, PebbleError, owned, wit};
use crate::workload::CommandOutput;

/// How [`Container::exec_with`] runs a declared command (ops'
/// `Container.exec` keyword arguments). What is not given is Pebble's
/// default: its environment, the user's home directory, Pebble's user.
///
/// ```
/// use wasm_charm::pebble::ExecOptions;
///
/// let options = ExecOptions { working_dir: Some("/srv".into()), ..Default::default() };
/// assert!(options.stdin.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecOptions {
    /// Variables added to the command's environment.
    pub environment: BTreeMap<String, String>,
    /// The working directory.
    pub working_dir: Option<String>,
    /// The user's name to run as.
    pub user: Option<String>,
    /// The user's id to run as.
    pub user_id: Option<u32>,
    /// The group's name to run as.
    pub group: Option<String>,
    /// The group's id to run as.
    pub group_id: Option<u32>,
    /// What the command reads on stdin (at most 1 MiB). It is written
    /// before the output is read: a command that writes much before
    /// reading its input may run into its timeout.
    pub stdin: Vec<u8>,
    /// Join stderr into stdout; [`CommandOutput::stderr`] is then empty.
    pub combine_stderr: bool,
}

impl Container {
    /// Run the command `name` that wasm-charm.yaml declares for this
    /// container (`workload.containers.<container>.commands.<name>`) through
    /// Pebble's exec (ops' `Container.exec`, of a declared command): its
    /// declared argv, then `args` (refused as [`PebbleError::Undeclared`]
    /// unless the manifest says `args: true`). No shell, an empty stdin and
    /// Pebble's defaults for the rest ([`exec_with`](Container::exec_with)
    /// sets them). A non-zero exit is an output, not an error: look at
    /// [`CommandOutput::success`]. Past its declared timeout (or the
    /// handler's deadline) its exit is [`Exit::TimedOut`]. Each stream
    /// keeps its first 64 KiB.
    ///
    /// [`Exit::TimedOut`]: crate::workload::Exit::TimedOut
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn reload(_event: &Event) -> Outcome {
    ///     let out = pebble::get_container("web").exec("reload", &[])?;
    ///     if !out.success() {
    ///         return Ok(Some(Status::blocked(format!(
    ///             "reload failed: {}",
    ///             out.stderr_text().trim()
    ///         ))));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    #[doc(alias = "v1/exec")]
    pub fn exec(&self, name: &str, args: &[&str]) -> Result<CommandOutput, PebbleError> {
        self.exec_with(name, args, &ExecOptions::default())
    }

    /// [`exec`](Container::exec) with ops' keyword arguments: environment,
    /// working directory, user and group, stdin, and stderr joined into
    /// stdout. The command is still only one the manifest declares; the
    /// options are the charm's. Too much of them (over 256 variables or
    /// 64 KiB of environment, over 1 MiB of stdin) is
    /// [`PebbleError::Invalid`].
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, ExecOptions};
    ///
    /// let options = ExecOptions {
    ///     environment: [("LANG".to_string(), "C.UTF-8".to_string())].into(),
    ///     user: Some("postgres".into()),
    ///     stdin: b"SELECT 1;".to_vec(),
    ///     combine_stderr: true,
    ///     ..Default::default()
    /// };
    /// let out = pebble::get_container("db").exec_with("psql", &[], &options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn exec_with(
        &self,
        name: &str,
        args: &[&str],
        options: &ExecOptions,
    ) -> Result<CommandOutput, PebbleError> {
        let wit_options = wit::ExecOptions {
            environment: options
                .environment
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            working_dir: options.working_dir.clone(),
            run_as: wit::Ownership {
                user: options.user.clone(),
                user_id: options.user_id,
                group: options.group.clone(),
                group_id: options.group_id,
            },
            stdin: options.stdin.clone(),
            combine_stderr: options.combine_stderr,
        };
        wit::exec(&self.name, name, &owned(args), &wit_options)
    }
}
