//! Which backend keeps the scope store (DESIGN §6): the manifest's `store`,
//! and for `auto` whether the unit runs on Kubernetes, as Juju tells the two
//! apart at dispatch. Pure.
//!
//! **The signal.** Juju exports no model type to a hook. What it does export
//! follows from it: the context factory looks up the unit's assigned machine
//! only in an IAAS (machine) model, and `HookVars` always exports
//! `JUJU_MACHINE_ID=<that machine's id>`, so the variable is exported
//! **empty** exactly on Kubernetes (CAAS) and holds an id (`0`, `3/lxd/1`)
//! on machines, subordinates included (`juju/juju`
//! `internal/worker/uniter/runner/context/contextfactory.go`
//! `NewContextFactory`, `context.go` `HookVars`; reference juju-protocol.md
//! §1.4). The other candidates say less: `KUBERNETES_SERVICE_HOST` reaches
//! the hook only when the agent's own environment has it (an allow-list in
//! `context/env.go`), metadata's `containers` is absent from a Kubernetes
//! charm without workload containers, `assumes: k8s-api` is optional, and
//! ops decides nothing of the kind for sidecar charms (its only check is a
//! podspec charm's `series: kubernetes`). A variable that is not exported
//! at all (not a Juju hook, or the offline runner) means a machine: `local`
//! is the backend that needs nothing from Juju.

use crate::charm_dir::StoreChoice;
use crate::juju_env::JujuEnv;

/// The backend an event uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The charm directory's file (`store_file`).
    Local,
    /// Juju's charm state (`store_juju`).
    Juju,
}

/// Whether the hook runs for a Kubernetes unit: `JUJU_MACHINE_ID` exported
/// and empty (see the module's documentation).
pub fn on_kubernetes(env: &JujuEnv) -> bool {
    env.on_kubernetes()
}

/// The backend for a charm whose manifest says `choice`, in `env`.
pub fn choose(choice: StoreChoice, env: &JujuEnv) -> Backend {
    match choice {
        StoreChoice::Local => Backend::Local,
        StoreChoice::Juju => Backend::Juju,
        StoreChoice::Auto if on_kubernetes(env) => Backend::Juju,
        StoreChoice::Auto => Backend::Local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(machine_id: Option<&str>) -> JujuEnv {
        let mut vars = vec![
            ("JUJU_UNIT_NAME", "app/0"),
            ("KUBERNETES_SERVICE_HOST", "10.1.0.1"),
        ];
        vars.extend(machine_id.map(|id| ("JUJU_MACHINE_ID", id)));
        JujuEnv::from_vars(vars)
    }

    #[test]
    fn auto_is_juju_on_kubernetes_and_local_on_machines() {
        let kubernetes = env(Some(""));
        assert!(on_kubernetes(&kubernetes));
        assert_eq!(choose(StoreChoice::Auto, &kubernetes), Backend::Juju);
        for machine in ["0", "3/lxd/1"] {
            let e = env(Some(machine));
            assert!(!on_kubernetes(&e), "{machine}");
            assert_eq!(choose(StoreChoice::Auto, &e), Backend::Local, "{machine}");
        }
        // Not exported at all: not a Juju hook (the offline runner, a test).
        assert_eq!(choose(StoreChoice::Auto, &env(None)), Backend::Local);
    }

    #[test]
    fn an_explicit_choice_holds_everywhere() {
        for machine_id in [Some(""), Some("0"), None] {
            let e = env(machine_id);
            assert_eq!(choose(StoreChoice::Local, &e), Backend::Local);
            assert_eq!(choose(StoreChoice::Juju, &e), Backend::Juju);
        }
    }
}
