//! The `workload:` section of wasm-charm.yaml (DESIGN §12): the directories,
//! systemd units, programs and packages a handler may touch. Nothing else of
//! the machine is reachable, and `wasm-charm inspect` prints this section so
//! an operator can read it before deploying.
//!
//! Parsed through serde types for the shape, then checked field by field so
//! every error names the entry (`workload.commands.db-sync.argv`).

use crate::duration::{parse_duration, show_duration};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longest a declared command may run: the handler's own deadline bounds it
/// further at run time.
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(3600);
/// A command's timeout when the manifest gives none.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// Arguments a guest may append to one run of a declared command, and their
/// bytes together: well inside what `execve` takes (Linux: 128 KiB per
/// argument, about 2 MiB in all). The same wherever the command runs, on
/// the machine (`workload`) or in a container (Pebble's exec).
pub const MAX_ARGS: usize = 1024;
pub const MAX_ARGS_BYTES: usize = 1 << 20;
/// Bytes kept of each output stream of a workload call (a declared command
/// on the machine or in a container, `systemctl`, `apt-get` …).
pub const OUTPUT_LIMIT: usize = 64 << 10;
/// Bounds on how much a manifest may declare: each file grant is a preopen
/// in every handler instance.
pub const MAX_FILES: usize = 64;
pub const MAX_ENTRIES: usize = 256;
/// Where Juju keeps each unit's agent on a machine: its credentials, its
/// state and the unit's charm directory, which holds the handlers' stored
/// data. No directory grant may hold it or lie inside it. Juju's storage
/// (`/var/lib/juju/storage`) is beside it, and grantable.
pub const JUJU_AGENTS_DIR: &str = "/var/lib/juju/agents";

/// How a declared directory is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Read files and list directories; nothing is created, changed or removed.
    #[default]
    Read,
    /// Also create, write, rename and remove inside the directory.
    ReadWrite,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::ReadWrite => "read-write",
        }
    }
}

/// One declared directory, seen by the guest at the same absolute path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileGrant {
    /// Absolute and normal: no `.`, `..` or trailing `/`.
    pub path: PathBuf,
    pub access: Access,
}

/// A program a handler may run by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// The program and its fixed arguments; run without a shell.
    pub argv: Vec<String>,
    /// Whether the guest may append arguments.
    pub args: bool,
    pub timeout: Duration,
}

/// Everything a handler may change on the machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Workload {
    pub files: Vec<FileGrant>,
    pub services: BTreeSet<String>,
    pub commands: BTreeMap<String, CommandSpec>,
    pub apt: BTreeSet<String>,
    /// Per workload container (metadata.yaml `containers:`): what a handler
    /// may run there through Pebble's exec.
    pub containers: BTreeMap<String, ContainerGrant>,
}

/// What a handler may do in one workload container.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ContainerGrant {
    /// Commands run by name through Pebble's exec, with the same shape and
    /// limits as `workload.commands`.
    pub commands: BTreeMap<String, CommandSpec>,
}

impl Workload {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
            && self.services.is_empty()
            && self.commands.is_empty()
            && self.apt.is_empty()
            && self.containers.is_empty()
    }

    /// Every container named here must be declared in metadata.yaml
    /// `containers:`; the error names the field.
    pub fn check_containers(&self, declared: &[String]) -> Result<(), String> {
        match self.containers.keys().find(|c| !declared.contains(c)) {
            None => Ok(()),
            Some(c) => Err(format!(
                "field `workload.containers.{c}`: container `{c}` is not declared in \
                 metadata.yaml `containers:` ({})",
                if declared.is_empty() {
                    "none is".to_string()
                } else {
                    declared.join(", ")
                }
            )),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct RawWorkload {
    #[serde(default)]
    files: Vec<RawFile>,
    #[serde(default)]
    services: Vec<String>,
    #[serde(default)]
    commands: BTreeMap<String, RawCommand>,
    #[serde(default)]
    packages: RawPackages,
    #[serde(default)]
    containers: BTreeMap<String, RawContainer>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawContainer {
    #[serde(default)]
    commands: BTreeMap<String, RawCommand>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawFile {
    path: String,
    #[serde(default)]
    access: Access,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawCommand {
    argv: Vec<String>,
    #[serde(default)]
    args: bool,
    timeout: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawPackages {
    #[serde(default)]
    apt: Vec<String>,
}

/// Checks the section; the error names the field, the caller adds the file.
pub(crate) fn parse_workload(raw: RawWorkload) -> Result<Workload, String> {
    for (field, len) in [
        ("files", raw.files.len()),
        ("services", raw.services.len()),
        ("commands", raw.commands.len()),
        ("containers", raw.containers.len()),
        ("packages.apt", raw.packages.apt.len()),
    ] {
        let max = if field == "files" {
            MAX_FILES
        } else {
            MAX_ENTRIES
        };
        if len > max {
            let what = if field == "files" { " directories" } else { "" };
            return Err(format!(
                "field `workload.{field}`: {len}{what} declared, at most {max}"
            ));
        }
    }
    let mut workload = Workload {
        files: parse_files(raw.files)?,
        ..Workload::default()
    };
    for unit in raw.services {
        if !is_unit_name(&unit) {
            return Err(format!(
                "field `workload.services`: `{unit}` is not a systemd unit name (letters, digits \
                 and :_.\\@-, not starting with `-`)"
            ));
        }
        workload.services.insert(unit);
    }
    for (name, command) in raw.commands {
        let spec = parse_command(&format!("workload.commands.{name}"), &name, command)?;
        workload.commands.insert(name, spec);
    }
    for (container, grant) in raw.containers {
        let grant = parse_container(&container, grant)?;
        workload.containers.insert(container, grant);
    }
    for package in raw.packages.apt {
        if !is_apt_name(&package) {
            return Err(format!(
                "field `workload.packages.apt`: `{package}` is not a Debian package name \
                 (lower-case letters, digits and +-., starting with a letter or digit)"
            ));
        }
        workload.apt.insert(package);
    }
    Ok(workload)
}

/// The declared directories, each once, none read-only inside a read-write one.
fn parse_files(raw: Vec<RawFile>) -> Result<Vec<FileGrant>, String> {
    let mut files: Vec<FileGrant> = Vec::new();
    for (i, file) in raw.into_iter().enumerate() {
        let path =
            parse_dir(&file.path).map_err(|e| format!("field `workload.files[{i}].path`: {e}"))?;
        if files.iter().any(|f| f.path == path) {
            return Err(format!(
                "field `workload.files[{i}].path`: `{}` is declared twice",
                path.display()
            ));
        }
        let grant = FileGrant {
            path,
            access: file.access,
        };
        for other in &files {
            check_nesting(i, &grant, other)?;
        }
        files.push(grant);
    }
    Ok(files)
}

/// A read grant inside a read-write one would be writable through the outer
/// preopen: say so rather than promise what the sandbox cannot keep.
fn check_nesting(i: usize, new: &FileGrant, other: &FileGrant) -> Result<(), String> {
    let (outer, inner) = if new.path.starts_with(&other.path) {
        (other, new)
    } else if other.path.starts_with(&new.path) {
        (new, other)
    } else {
        return Ok(());
    };
    if outer.access == Access::ReadWrite && inner.access == Access::Read {
        return Err(format!(
            "field `workload.files[{i}]`: `{}` (read) lies inside `{}` (read-write), \
             so it would be writable through it; declare them apart or both read-write",
            inner.path.display(),
            outer.path.display()
        ));
    }
    Ok(())
}

/// One container's grant: the commands a handler may exec in it.
fn parse_container(container: &str, grant: RawContainer) -> Result<ContainerGrant, String> {
    let field = format!("workload.containers.{container}");
    if container.is_empty() || container.contains('/') {
        return Err(format!(
            "field `{field}`: `{container}` is not a container name"
        ));
    }
    if grant.commands.len() > MAX_ENTRIES {
        return Err(format!(
            "field `{field}.commands`: {} declared, at most {MAX_ENTRIES}",
            grant.commands.len()
        ));
    }
    let mut commands = BTreeMap::new();
    for (name, command) in grant.commands {
        let spec = parse_command(&format!("{field}.commands.{name}"), &name, command)?;
        commands.insert(name, spec);
    }
    Ok(ContainerGrant { commands })
}

/// One declared command at `field` (`workload.commands.<name>` or
/// `workload.containers.<container>.commands.<name>`).
fn parse_command(field: &str, name: &str, command: RawCommand) -> Result<CommandSpec, String> {
    if !is_command_name(name) {
        return Err(format!(
            "field `{field}`: `{name}` is not a command name ([a-z0-9-]+, at most 63)"
        ));
    }
    let Some(program) = command.argv.first() else {
        return Err(format!(
            "field `{field}.argv`: empty; give the program to run"
        ));
    };
    if program.is_empty() {
        return Err(format!(
            "field `{field}.argv`: the program is an empty string"
        ));
    }
    if command.argv.iter().any(|a| a.contains('\0')) {
        return Err(format!(
            "field `{field}.argv`: an argument holds a NUL byte"
        ));
    }
    let timeout = match command.timeout {
        None => DEFAULT_COMMAND_TIMEOUT,
        Some(text) => {
            let t = parse_duration(&text).map_err(|e| format!("field `{field}.timeout`: {e}"))?;
            if t.is_zero() || t > MAX_COMMAND_TIMEOUT {
                return Err(format!(
                    "field `{field}.timeout`: {} is outside 1ms to {}",
                    show_duration(t),
                    show_duration(MAX_COMMAND_TIMEOUT)
                ));
            }
            t
        }
    };
    Ok(CommandSpec {
        argv: command.argv,
        args: command.args,
        timeout,
    })
}

/// A declared directory: absolute, normal, not `/` itself (that would be the
/// whole machine) nor anything of Juju's unit agents ([`JUJU_AGENTS_DIR`]),
/// at most 4 KiB.
fn parse_dir(text: &str) -> Result<PathBuf, String> {
    let path = Path::new(text);
    if !path.is_absolute() {
        return Err(format!("`{text}` is not an absolute path"));
    }
    if text.len() > 4096 || text.contains('\0') {
        return Err(format!("`{text}` is not a usable path"));
    }
    // Segment by segment on the text: `Path::components` would hide an
    // inner `.`, which the preopen mapping refuses.
    let normal = text == "/"
        || text[1..]
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    if !normal {
        return Err(format!(
            "`{text}` is not a normal path (no `.`, `..`, `//` or trailing `/`)"
        ));
    }
    if path == Path::new("/") {
        return Err(
            "`/` would grant the whole machine; declare the directories the workload uses".into(),
        );
    }
    if let Some(relation) = overlap(path, Path::new(JUJU_AGENTS_DIR)) {
        return Err(format!(
            "`{text}` {relation} {JUJU_AGENTS_DIR}, Juju's unit agents: their credentials, state and \
             charm directories (the handlers' stored data) are never granted; declare the \
             directories the workload uses"
        ));
    }
    Ok(path.to_path_buf())
}

/// How `path` stands to `other` when one holds the other, component by
/// component, as the refusals say it: `is`, `holds` or `lies inside`;
/// `None` when they are apart (`/var/lib/jujux` is beside `/var/lib/juju`).
pub fn overlap(path: &Path, other: &Path) -> Option<&'static str> {
    if path == other {
        Some("is")
    } else if other.starts_with(path) {
        Some("holds")
    } else if path.starts_with(other) {
        Some("lies inside")
    } else {
        None
    }
}

/// A unit name as `systemctl` takes it: no option (`-…`), no glob, no space.
pub(crate) fn is_unit_name(unit: &str) -> bool {
    !unit.is_empty()
        && unit.len() <= 256
        && !unit.starts_with('-')
        && unit
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b":_.\\@-".contains(&b))
}

fn is_command_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Debian policy §5.6.1: at least two characters, lower case, digits, `+-.`,
/// starting with a letter or digit (so never an option to apt-get).
fn is_apt_name(name: &str) -> bool {
    name.len() >= 2
        && name.len() <= 128
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Workload, String> {
        let raw: RawWorkload = serde_saphyr::from_str(yaml).map_err(|e| e.to_string())?;
        parse_workload(raw)
    }

    #[test]
    fn the_design_example_parses() {
        let w = parse(
            "files:\n  - path: /etc/api-service\n    access: read-write\n  - path: /var/log/api\n\
             services: [api-service, api-worker]\n\
             commands:\n  db-sync:\n    argv: [api-service-manage, db, sync]\n    args: false\n    timeout: 5m\n\
             packages:\n  apt: [api-service]\n",
        )
        .unwrap();
        assert_eq!(
            w.files,
            vec![
                FileGrant {
                    path: "/etc/api-service".into(),
                    access: Access::ReadWrite
                },
                FileGrant {
                    path: "/var/log/api".into(),
                    access: Access::Read
                }
            ]
        );
        assert!(w.services.contains("api-worker"));
        let sync = &w.commands["db-sync"];
        assert_eq!(sync.argv, ["api-service-manage", "db", "sync"]);
        assert!(!sync.args);
        assert_eq!(sync.timeout, Duration::from_secs(300));
        assert!(w.apt.contains("api-service"));
        assert!(parse("{}").unwrap().is_empty());
    }

    #[test]
    fn container_commands_parse_like_machine_ones_and_need_their_container() {
        let w = parse(
            "containers:\n  web:\n    commands:\n      reload:\n        argv: [nginx, -s, reload]\n\
             \x20       timeout: 10s\n      logs:\n        argv: [tail]\n        args: true\n",
        )
        .unwrap();
        let web = &w.containers["web"];
        assert_eq!(
            web.commands["reload"],
            CommandSpec {
                argv: vec!["nginx".into(), "-s".into(), "reload".into()],
                args: false,
                timeout: Duration::from_secs(10)
            }
        );
        assert!(web.commands["logs"].args);
        assert_eq!(web.commands["logs"].timeout, DEFAULT_COMMAND_TIMEOUT);
        assert!(!w.is_empty() && w.commands.is_empty());
        assert_eq!(w.check_containers(&["web".into()]), Ok(()));
        let e = w.check_containers(&["db".into()]).unwrap_err();
        assert!(
            e.contains("field `workload.containers.web`") && e.contains("(db)"),
            "{e}"
        );
        let e = w.check_containers(&[]).unwrap_err();
        assert!(e.contains("none is"), "{e}");
    }

    #[test]
    fn bad_entries_are_named() {
        for (yaml, field) in [
            ("files: [{path: etc/x}]", "workload.files[0].path"),
            ("files: [{path: /etc/../x}]", "workload.files[0].path"),
            ("files: [{path: /}]", "workload.files[0].path"),
            ("files: [{path: /a}, {path: /a}]", "workload.files[1].path"),
            ("files: [{path: /etc/./x}]", "workload.files[0].path"),
            ("files: [{path: /etc/x/}]", "workload.files[0].path"),
            (
                "files: [{path: /a, access: read-write}, {path: /a/b}]",
                "workload.files[1]",
            ),
            (
                "files: [{path: /a/b}, {path: /a, access: read-write}]",
                "workload.files[1]",
            ),
            ("services: [--now]", "workload.services"),
            ("commands: {Sync: {argv: [x]}}", "workload.commands.Sync"),
            (
                "commands: {sync: {argv: []}}",
                "workload.commands.sync.argv",
            ),
            (
                "commands: {sync: {argv: [x], timeout: 2h}}",
                "workload.commands.sync.timeout",
            ),
            ("packages: {apt: [-y]}", "workload.packages.apt"),
            (
                "containers: {web: {commands: {reload: {argv: []}}}}",
                "workload.containers.web.commands.reload.argv",
            ),
            (
                "containers: {web: {commands: {Reload: {argv: [x]}}}}",
                "workload.containers.web.commands.Reload",
            ),
            (
                "containers: {web: {commands: {reload: {argv: [x], timeout: 0s}}}}",
                "workload.containers.web.commands.reload.timeout",
            ),
        ] {
            let e = parse(yaml).unwrap_err();
            assert!(e.contains(&format!("field `{field}")), "{yaml}: {e}");
        }
        assert!(parse("files: [{path: /x, access: write}]").is_err());
        assert!(parse("containers: {web: {comands: {}}}").is_err());
        assert!(parse("servics: []").is_err());
    }

    /// Whatever the access: a grant holding the unit agents' directory
    /// would reach the agent's credentials and every handler's stored
    /// data, one inside it the same of one unit.
    #[test]
    fn the_unit_agents_directory_is_never_granted() {
        for (path, relation) in [
            ("/var", "holds"),
            ("/var/lib/juju", "holds"),
            ("/var/lib/juju/agents", "is"),
            ("/var/lib/juju/agents/unit-web-0/charm", "lies inside"),
            (
                "/var/lib/juju/agents/unit-web-0/charm/.wasm-charm",
                "lies inside",
            ),
        ] {
            for access in ["read", "read-write"] {
                let e = parse(&format!("files: [{{path: {path}, access: {access}}}]")).unwrap_err();
                assert!(
                    e.starts_with(&format!(
                        "field `workload.files[0].path`: `{path}` {relation} /var/lib/juju/agents"
                    )),
                    "{path} ({access}): {e}"
                );
            }
        }
        // Beside it: Juju's storage, and a name that only begins the same.
        for path in ["/var/lib/juju/storage/data", "/var/lib/jujux", "/var/log"] {
            let w = parse(&format!("files: [{{path: {path}, access: read-write}}]")).unwrap();
            assert_eq!(w.files[0].path, Path::new(path));
        }
    }

    #[test]
    fn overlapping_paths_are_told_by_component() {
        let overlap = |a: &str, b: &str| overlap(Path::new(a), Path::new(b));
        assert_eq!(overlap("/a", "/a/b"), Some("holds"));
        assert_eq!(overlap("/a/b", "/a"), Some("lies inside"));
        assert_eq!(overlap("/a/b", "/a/b"), Some("is"));
        assert_eq!(overlap("/a/b", "/a/bc"), None);
        assert_eq!(overlap("/a/b", "/c"), None);
    }
}
