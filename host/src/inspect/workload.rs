//! What a charm may change on the machine (wasm-charm.yaml `workload:`,
//! DESIGN §12), as `inspect` shows it: an operator reads this before
//! deploying. Pure: the parsed section in, lines out.

use crate::charm_dir::{CommandSpec, Workload};
use crate::duration::show_duration;

/// The `workload` section of the report: one line when nothing is declared,
/// else a heading and a sub-section per capability.
pub fn lines(workload: &Workload) -> Vec<String> {
    if workload.is_empty() {
        return vec!["workload: none (no directory, service, command or package)".to_string()];
    }
    let mut lines = vec!["workload:".to_string()];
    let mut section = |heading: &str, items: Vec<String>| {
        if items.is_empty() {
            lines.push(format!("  {heading}: none"));
        } else {
            lines.push(format!("  {heading}:"));
            lines.extend(items.into_iter().map(|i| format!("    {i}")));
        }
    };
    let files = workload
        .files
        .iter()
        .map(|f| format!("{}: {}", f.path.display(), f.access.as_str()))
        .collect();
    section("files", files);
    let services = workload.services.iter().cloned().collect();
    section("services", services);
    let commands = workload
        .commands
        .iter()
        .map(|(name, c)| command_line(name, c))
        .collect();
    section("commands", commands);
    let apt = workload.apt.iter().cloned().collect();
    section("packages (apt)", apt);
    // Only Kubernetes charms have containers: no line for the others.
    if !workload.containers.is_empty() {
        lines.push("  containers (run through Pebble):".to_string());
        for (container, grant) in &workload.containers {
            if grant.commands.is_empty() {
                lines.push(format!("    {container}: no command"));
                continue;
            }
            lines.push(format!("    {container}:"));
            lines.extend(
                grant
                    .commands
                    .iter()
                    .map(|(name, c)| format!("      {}", command_line(name, c))),
            );
        }
    }
    lines
}

fn command_line(name: &str, c: &CommandSpec) -> String {
    format!(
        "{name}: argv {:?}, {}, timeout {}",
        c.argv,
        if c.args {
            "the handler may append arguments"
        } else {
            "no arguments may be appended"
        },
        show_duration(c.timeout)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charm_dir::Access;
    use crate::charm_dir::{ContainerGrant, FileGrant};
    use std::time::Duration;

    #[test]
    fn every_capability_is_listed_with_what_it_allows() {
        let workload = Workload {
            files: vec![
                FileGrant {
                    path: "/etc/api-service".into(),
                    access: Access::ReadWrite,
                },
                FileGrant {
                    path: "/var/log/api".into(),
                    access: Access::Read,
                },
            ],
            services: ["api-worker".to_string(), "api-service".to_string()].into(),
            commands: [
                (
                    "db-sync".to_string(),
                    CommandSpec {
                        argv: vec!["api-service-manage".into(), "db".into(), "sync".into()],
                        args: false,
                        timeout: Duration::from_secs(300),
                    },
                ),
                (
                    "echo".to_string(),
                    CommandSpec {
                        argv: vec!["echo".into(), "two words".into()],
                        args: true,
                        timeout: Duration::from_millis(1500),
                    },
                ),
            ]
            .into(),
            apt: ["api-service".to_string()].into(),
            containers: Default::default(),
        };
        assert_eq!(
            lines(&workload),
            [
                "workload:",
                "  files:",
                "    /etc/api-service: read-write",
                "    /var/log/api: read",
                "  services:",
                "    api-service",
                "    api-worker",
                "  commands:",
                "    db-sync: argv [\"api-service-manage\", \"db\", \"sync\"], no arguments may be appended, timeout 5m",
                "    echo: argv [\"echo\", \"two words\"], the handler may append arguments, timeout 1500ms",
                "  packages (apt):",
                "    api-service",
            ]
        );
        let files_only = Workload {
            files: workload.files[1..].to_vec(),
            ..Workload::default()
        };
        assert_eq!(
            lines(&files_only),
            [
                "workload:",
                "  files:",
                "    /var/log/api: read",
                "  services: none",
                "  commands: none",
                "  packages (apt): none",
            ]
        );
        assert_eq!(
            lines(&Workload::default()),
            ["workload: none (no directory, service, command or package)"]
        );
    }

    #[test]
    fn container_commands_are_listed_under_their_container() {
        let reload = CommandSpec {
            argv: vec!["nginx".into(), "-s".into(), "reload".into()],
            args: false,
            timeout: Duration::from_secs(10),
        };
        let workload = Workload {
            containers: [
                (
                    "web".to_string(),
                    ContainerGrant {
                        commands: [("reload".to_string(), reload)].into(),
                    },
                ),
                ("db".to_string(), ContainerGrant::default()),
            ]
            .into(),
            ..Workload::default()
        };
        assert_eq!(
            lines(&workload),
            [
                "workload:",
                "  files: none",
                "  services: none",
                "  commands: none",
                "  packages (apt): none",
                "  containers (run through Pebble):",
                "    db: no command",
                "    web:",
                "      reload: argv [\"nginx\", \"-s\", \"reload\"], no arguments may be appended, timeout 10s",
            ]
        );
    }
}
