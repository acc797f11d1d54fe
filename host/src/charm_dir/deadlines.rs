//! Deadlines against the commands they cut: every handler runs under its
//! deadline (`limits.handler-timeout-ms`, or its own
//! `limits.handlers.<name>.timeout-ms`), and a declared command's timeout
//! is cut to the deadline of the handler that runs it. A command whose
//! timeout outlasts every handler's deadline can never run to it, which an
//! author should hear at `pack` and `inspect`, not from a unit.

use super::Manifest;
use std::time::Duration;

/// What `pack` and `inspect` warn about, given the handlers the component
/// declares: each command no handler can give its whole timeout, and each
/// handler deadline naming a handler that is not declared.
pub fn warnings(manifest: &Manifest, handlers: &[&str]) -> Vec<String> {
    let longest = manifest.longest_deadline(handlers.iter().copied());
    let mut out = Vec::new();
    let machine = manifest
        .workload
        .commands
        .iter()
        .map(|(name, spec)| (format!("workload.commands.{name}"), spec.timeout));
    let containers = manifest.workload.containers.iter().flat_map(|(c, grant)| {
        grant.commands.iter().map(move |(name, spec)| {
            (
                format!("workload.containers.{c}.commands.{name}"),
                spec.timeout,
            )
        })
    });
    for (field, timeout) in machine.chain(containers) {
        if timeout > longest {
            out.push(format!(
                "{field}: its timeout of {} outlasts every handler's deadline (the longest is {}), \
                 so it is cut to it; give the handler that runs it a deadline of its own \
                 (limits.handlers.<name>.timeout-ms)",
                shown(timeout),
                shown(longest)
            ));
        }
    }
    for name in manifest.handler_timeouts.keys() {
        if !handlers.contains(&name.as_str()) {
            out.push(format!(
                "limits.handlers.{name}: the component declares no handler `{name}` \
                 (it declares {})",
                if handlers.is_empty() {
                    "none".to_string()
                } else {
                    handlers.join(", ")
                }
            ));
        }
    }
    out
}

fn shown(d: Duration) -> String {
    crate::duration::show_duration(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn manifest(text: &str) -> Manifest {
        Manifest::parse(text, Path::new("wasm-charm.yaml")).unwrap()
    }

    const COMMANDS: &str = "workload:\n  commands:\n    migrate:\n      argv: [migrate]\n      \
                            timeout: 10m\n    quick:\n      argv: [true]\n      timeout: 5s\n";

    #[test]
    fn a_command_no_handler_can_wait_for_is_named() {
        let m = manifest(COMMANDS);
        let w = warnings(&m, &["config", "upgrade"]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("workload.commands.migrate: its timeout of 10m outlasts every handler's deadline (the longest is 30s)"),
            "{w:?}"
        );
    }

    #[test]
    fn a_handler_with_a_deadline_of_its_own_lets_it_run() {
        let m = manifest(&format!(
            "{COMMANDS}limits:\n  handlers:\n    upgrade: {{timeout-ms: 900000}}\n"
        ));
        assert_eq!(warnings(&m, &["config", "upgrade"]), Vec::<String>::new());
        assert_eq!(
            m.limits_of("upgrade").handler_timeout,
            Duration::from_secs(900)
        );
        assert_eq!(
            m.limits_of("config").handler_timeout,
            Duration::from_secs(30)
        );
        // A deadline for a handler the component does not declare.
        let w = warnings(&m, &["config"]);
        assert!(
            w.iter().any(
                |l| l.starts_with("limits.handlers.upgrade: the component declares no handler")
            ),
            "{w:?}"
        );
    }

    #[test]
    fn a_handler_deadline_is_bounded_like_the_others() {
        let e = Manifest::parse(
            "limits:\n  handlers:\n    x: {timeout-ms: 0}\n",
            Path::new("wasm-charm.yaml"),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("limits.handlers.x.timeout-ms"),
            "{e}"
        );
    }
}
