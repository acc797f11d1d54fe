//! Declared systemd units through `systemctl`: the argv of each action, and
//! the state read from `is-active` and `is-enabled`, whose words are the
//! answer whatever their exit code (`is-active` exits 3 for `inactive`,
//! `is-enabled` 1 for `disabled`).

use super::process::Ran;
use super::tool_error;
use crate::bindings::workload::{ServiceAction, ServiceStatus, WorkloadError};
use crate::probe::{ProbeSpec, Target};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// systemctl's verb for `action`.
pub fn verb(action: ServiceAction) -> &'static str {
    match action {
        ServiceAction::Start => "start",
        ServiceAction::Stop => "stop",
        ServiceAction::Restart => "restart",
        ServiceAction::Reload => "reload",
        ServiceAction::Enable => "enable",
        ServiceAction::Disable => "disable",
    }
}

/// The arguments of `systemctl` for `verb` on `unit`: `--` first, so that a
/// unit is never read as an option (the manifest's check already refuses a
/// leading `-`; this holds whatever the check).
pub fn argv(verb: &str, unit: &str) -> Vec<String> {
    vec![verb.to_string(), "--".to_string(), unit.to_string()]
}

/// `systemctl <action> -- <unit>`, finished by `deadline`.
pub fn act(
    systemctl: &Path,
    unit: &str,
    action: ServiceAction,
    deadline: Instant,
) -> Result<(), WorkloadError> {
    let ran = systemctl_run(systemctl, verb(action), unit, deadline)?;
    match ran.code() {
        Some(0) => Ok(()),
        _ => Err(tool_error("systemctl", &ran)),
    }
}

/// `systemctl is-active` and `is-enabled` of `unit`.
pub fn state(
    systemctl: &Path,
    unit: &str,
    deadline: Instant,
) -> Result<ServiceStatus, WorkloadError> {
    let active = systemctl_run(systemctl, "is-active", unit, deadline)?;
    let enabled = systemctl_run(systemctl, "is-enabled", unit, deadline)?;
    read_state(&active, &enabled)
}

fn systemctl_run(
    systemctl: &Path,
    verb: &str,
    unit: &str,
    deadline: Instant,
) -> Result<Ran, WorkloadError> {
    let mut cmd = Command::new(systemctl);
    cmd.args(argv(verb, unit));
    super::run_tool("systemctl", &mut cmd, deadline)
}

/// The state from what `is-active` and `is-enabled` printed. `is-active`
/// always prints a word (an unknown unit is `inactive`): without one,
/// systemctl itself failed (no systemd, no bus). `is-enabled` prints
/// nothing for a unit without a unit file: `unknown`.
pub fn read_state(active: &Ran, enabled: &Ran) -> Result<ServiceStatus, WorkloadError> {
    let word = |ran: &Ran| {
        String::from_utf8_lossy(&ran.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let active_word = word(active);
    if active_word.is_empty() {
        return Err(tool_error("systemctl", active));
    }
    let enabled_word = word(enabled);
    Ok(ServiceStatus {
        active: active_word,
        enabled: if enabled_word.is_empty() {
            "unknown".to_string()
        } else {
            enabled_word
        },
    })
}

/// A unit name without systemd's default `.service` suffix.
fn bare(unit: &str) -> &str {
    unit.strip_suffix(".service").unwrap_or(unit)
}

/// For each declared unit, the probes that watch it: a `systemd` probe of
/// that unit (with or without `.service`), or a `process` probe of its
/// name. A restart starts their grace periods again.
pub fn watchers<'a>(
    units: impl IntoIterator<Item = &'a String>,
    probes: &BTreeMap<String, ProbeSpec>,
) -> BTreeMap<String, Vec<String>> {
    units
        .into_iter()
        .map(|unit| {
            let watching = probes
                .iter()
                .filter(|(_, spec)| match &spec.target {
                    Target::Systemd { unit: watched } => bare(watched) == bare(unit),
                    Target::Process { name } => name == bare(unit),
                    _ => false,
                })
                .map(|(name, _)| name.clone())
                .collect();
            (unit.clone(), watching)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::workload::ToolFailure;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran::exited(code, stdout, stderr)
    }

    #[test]
    fn every_action_puts_the_unit_after_double_dash() {
        for (action, v) in [
            (ServiceAction::Start, "start"),
            (ServiceAction::Stop, "stop"),
            (ServiceAction::Restart, "restart"),
            (ServiceAction::Reload, "reload"),
            (ServiceAction::Enable, "enable"),
            (ServiceAction::Disable, "disable"),
        ] {
            assert_eq!(verb(action), v);
            assert_eq!(argv(verb(action), "api.service"), [v, "--", "api.service"]);
        }
    }

    #[test]
    fn the_words_are_the_state_whatever_the_exit_code() {
        let s = read_state(&ran(3, "inactive\n", ""), &ran(1, "disabled\n", "")).unwrap();
        assert_eq!(
            (s.active.as_str(), s.enabled.as_str()),
            ("inactive", "disabled")
        );
        let s = read_state(&ran(0, "active\n", ""), &ran(0, "enabled\n", "")).unwrap();
        assert_eq!(
            (s.active.as_str(), s.enabled.as_str()),
            ("active", "enabled")
        );
        let no_file = ran(
            1,
            "",
            "Failed to get unit file state for x.service: No such file or directory\n",
        );
        let s = read_state(&ran(3, "inactive\n", ""), &no_file).unwrap();
        assert_eq!(s.enabled, "unknown");
        // No word from is-active: systemctl itself failed.
        let e = read_state(
            &ran(
                1,
                "",
                "System has not been booted with systemd as init system (PID 1). Can't operate.\n",
            ),
            &no_file,
        )
        .unwrap_err();
        assert_eq!(
            e,
            WorkloadError::Failed(ToolFailure {
                tool: "systemctl".into(),
                code: Some(1),
                message:
                    "System has not been booted with systemd as init system (PID 1). Can't operate."
                        .into()
            })
        );
    }

    #[test]
    fn probes_watch_a_unit_by_systemd_unit_or_process_name() {
        let mut probes = BTreeMap::new();
        let spec = |t| ProbeSpec::new(t);
        probes.insert(
            "api".to_string(),
            spec(Target::Systemd {
                unit: "api-service.service".into(),
            }),
        );
        probes.insert(
            "api-proc".to_string(),
            spec(Target::Process {
                name: "api-service".into(),
            }),
        );
        probes.insert(
            "worker".to_string(),
            spec(Target::Systemd {
                unit: "api-worker".into(),
            }),
        );
        probes.insert(
            "port".to_string(),
            spec(Target::Tcp(crate::charm_dir::probes::HostPort {
                host: "127.0.0.1".into(),
                port: 80,
            })),
        );
        let units = [
            "api-service".to_string(),
            "api-worker.service".to_string(),
            "other".to_string(),
        ];
        let w = watchers(&units, &probes);
        assert_eq!(w["api-service"], ["api", "api-proc"]);
        assert_eq!(w["api-worker.service"], ["worker"]);
        assert!(w["other"].is_empty());
    }
}
