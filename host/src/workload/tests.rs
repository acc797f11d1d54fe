//! The interface's capability checks and what reaches the machine, with a
//! machine that records every call and a model whose tools record the
//! warnings.

use super::*;
use crate::bindings::workload::Exit;
use crate::charm_dir::CommandSpec;
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::{Calls as ToolCalls, ToolTable};
use crate::probe::{Prober, Target};
use std::sync::Mutex;

/// A machine that records calls and answers from a few settings.
#[derive(Default)]
struct Recording {
    calls: Mutex<Vec<String>>,
    installed: BTreeSet<String>,
    /// The answer of every service action.
    service_fails: Option<WorkloadError>,
}

impl Recording {
    fn log(&self, line: String) {
        self.calls.lock().unwrap().push(line);
    }
    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl Machine for Recording {
    fn service(&self, unit: &str, action: ServiceAction, _: Instant) -> Result<(), WorkloadError> {
        self.log(format!("service {} {unit}", services::verb(action)));
        self.service_fails.clone().map_or(Ok(()), Err)
    }
    fn service_state(&self, unit: &str, _: Instant) -> Result<ServiceStatus, WorkloadError> {
        self.log(format!("state {unit}"));
        Ok(ServiceStatus {
            active: "active".into(),
            enabled: "enabled".into(),
        })
    }
    fn run_command(
        &self,
        name: &str,
        argv: &[String],
        until: Instant,
    ) -> Result<CommandOutput, WorkloadError> {
        let left = until.saturating_duration_since(Instant::now());
        self.log(format!(
            "run {name}: {} (within {}s)",
            argv.join(" "),
            left.as_secs_f64().round()
        ));
        Ok(CommandOutput {
            exit: Exit::Code(0),
            stdout: Vec::new(),
            stderr: Vec::new(),
            truncated: false,
        })
    }
    fn package_installed(&self, package: &str, _: Instant) -> Result<bool, WorkloadError> {
        self.log(format!("installed? {package}"));
        Ok(self.installed.contains(package))
    }
    fn install_packages(&self, packages: &[String], _: Instant) -> Result<(), WorkloadError> {
        self.log(format!("install {}", packages.join(" ")));
        Ok(())
    }
}

fn declared() -> Workload {
    let mut w = Workload::default();
    w.services.insert("api-service".into());
    w.services.insert("api-worker".into());
    w.commands.insert(
        "db-sync".into(),
        CommandSpec {
            argv: vec!["api-manage".into(), "db".into(), "sync".into()],
            args: false,
            timeout: Duration::from_secs(5),
        },
    );
    w.commands.insert(
        "migrate".into(),
        CommandSpec {
            argv: vec!["api-manage".into(), "migrate".into()],
            args: true,
            timeout: Duration::from_secs(3600),
        },
    );
    w.apt.insert("api-service".into());
    w.apt.insert("libpq5".into());
    w
}

fn probe_specs() -> BTreeMap<String, ProbeSpec> {
    let mut specs = BTreeMap::new();
    specs.insert(
        "api".to_string(),
        ProbeSpec::new(Target::Systemd {
            unit: "api-service".into(),
        }),
    );
    specs.insert(
        "worker".to_string(),
        ProbeSpec::new(Target::Process {
            name: "api-worker".into(),
        }),
    );
    specs
}

/// One handler's interface over `machine`: its calls, probes and model
/// (whose tool calls are the warnings logged).
struct Fixture {
    calls: Calls,
    probes: Probes,
    model: Model,
    logged: ToolCalls,
}

impl Fixture {
    fn new(machine: Arc<Recording>) -> Self {
        let access = Access::new(&declared(), &probe_specs(), machine);
        Fixture::with(access)
    }

    fn with(access: Access) -> Self {
        let (tools, logged) = ToolTable::new(&[("juju-log", ToolOutput::ok(""))]);
        let model = Model::new(Arc::new(tools), Default::default(), Default::default());
        let mut calls = Calls::new(access, "install");
        calls.set_deadline(Instant::now() + Duration::from_secs(30));
        Fixture {
            calls,
            probes: Probes::new(Arc::new(probe_specs()), Prober::default()),
            model,
            logged,
        }
    }

    fn handle(&mut self) -> Handle<'_> {
        Handle {
            calls: &mut self.calls,
            probes: &mut self.probes,
            model: &mut self.model,
        }
    }

    /// The warnings logged so far.
    fn warnings(&self) -> Vec<String> {
        self.logged
            .lock()
            .unwrap()
            .iter()
            .filter(|(tool, args, _)| tool == "juju-log" && args[1] == "WARNING")
            .map(|(_, args, _)| args[3].clone())
            .collect()
    }
}

#[test]
fn undeclared_names_are_refused_before_the_machine_and_warned_once() {
    let machine = Arc::new(Recording::default());
    let mut f = Fixture::new(machine.clone());
    let e = f
        .handle()
        .service("sshd".into(), ServiceAction::Stop)
        .unwrap_err();
    assert_eq!(
        e,
        WorkloadError::Undeclared(
            "service `sshd` is not declared in wasm-charm.yaml workload.services".into()
        )
    );
    assert!(
        f.handle()
            .service("sshd".into(), ServiceAction::Stop)
            .is_err()
    );
    assert!(f.handle().service_state("api".into()).is_err());
    assert_eq!(
        f.handle().run_command("rm-rf".into(), vec![]).unwrap_err(),
        WorkloadError::Undeclared(
            "command `rm-rf` is not declared in wasm-charm.yaml workload.commands".into()
        )
    );
    assert_eq!(
        f.handle()
            .install_packages(vec!["libpq5".into(), "netcat".into()])
            .unwrap_err(),
        WorkloadError::Undeclared(
            "package `netcat` is not declared in wasm-charm.yaml workload.packages.apt".into()
        )
    );
    assert!(machine.calls().is_empty(), "{:?}", machine.calls());
    assert_eq!(
        f.warnings(),
        [
            "handler `install`: workload.service: service `sshd` is not declared in wasm-charm.yaml workload.services",
            "handler `install`: workload.service-state: service `api` is not declared in wasm-charm.yaml workload.services",
            "handler `install`: workload.run-command: command `rm-rf` is not declared in wasm-charm.yaml workload.commands",
            "handler `install`: workload.install-packages: package `netcat` is not declared in wasm-charm.yaml workload.packages.apt",
        ]
    );
}

#[test]
fn a_huge_name_makes_a_bounded_message_and_warnings_are_bounded() {
    let mut f = Fixture::new(Arc::default());
    let Err(WorkloadError::Undeclared(m)) = f
        .handle()
        .service("x".repeat(1 << 20), ServiceAction::Start)
    else {
        panic!()
    };
    assert!(m.len() < 300, "{}", m.len());
    for i in 0..100 {
        let _ = f.handle().service_state(format!("unit-{i}"));
    }
    assert_eq!(f.warnings().len(), MAX_WARNINGS);
}

#[test]
fn declared_calls_reach_the_machine() {
    let machine = Arc::new(Recording {
        installed: ["libpq5".to_string()].into(),
        ..Default::default()
    });
    let mut f = Fixture::new(machine.clone());
    let mut h = f.handle();
    h.service("api-service".into(), ServiceAction::Enable)
        .unwrap();
    assert_eq!(
        h.service_state("api-worker".into()).unwrap().active,
        "active"
    );
    h.run_command("db-sync".into(), vec![]).unwrap();
    h.run_command("migrate".into(), vec!["--to".into(), "42".into()])
        .unwrap();
    h.install_packages(vec!["libpq5".into(), "api-service".into(), "libpq5".into()])
        .unwrap();
    h.install_packages(vec!["libpq5".into()]).unwrap();
    h.install_packages(vec![]).unwrap();
    assert_eq!(
        machine.calls(),
        [
            "service enable api-service",
            "state api-worker",
            // The declared 5 s; the hour of `migrate` is cut to the handler's 30 s.
            "run db-sync: api-manage db sync (within 5s)",
            "run migrate: api-manage migrate --to 42 (within 30s)",
            "installed? api-service",
            "installed? libpq5",
            "install api-service",
            "installed? libpq5",
        ]
    );
    assert!(f.warnings().is_empty());
}

#[test]
fn arguments_are_refused_unless_declared() {
    let machine = Arc::new(Recording::default());
    let mut f = Fixture::new(machine.clone());
    let e = f
        .handle()
        .run_command("db-sync".into(), vec!["--force".into()])
        .unwrap_err();
    assert!(
        matches!(&e, WorkloadError::Undeclared(m) if m.contains("workload.commands.db-sync.args is false")),
        "{e:?}"
    );
    assert!(machine.calls().is_empty());
    assert_eq!(f.warnings().len(), 1);
}

#[test]
fn a_restart_restarts_the_grace_of_the_probes_watching_the_unit() {
    let mut f = Fixture::new(Arc::default());
    f.handle()
        .service("api-service".into(), ServiceAction::Start)
        .unwrap();
    f.handle()
        .service("api-worker".into(), ServiceAction::Reload)
        .unwrap();
    assert!(f.probes.take().0.restarts.is_empty());
    f.handle()
        .service("api-service".into(), ServiceAction::Restart)
        .unwrap();
    assert_eq!(f.probes.take().0.restarts, ["api".to_string()].into());
    f.handle()
        .service("api-worker".into(), ServiceAction::Restart)
        .unwrap();
    assert_eq!(f.probes.take().0.restarts, ["worker".to_string()].into());
}

#[test]
fn a_failed_restart_restarts_no_grace() {
    let failure = WorkloadError::Failed(ToolFailure {
        tool: "systemctl".into(),
        code: Some(5),
        message: "Failed to restart api-service.service: Unit api-service.service not found."
            .into(),
    });
    let machine = Arc::new(Recording {
        service_fails: Some(failure.clone()),
        ..Default::default()
    });
    let mut f = Fixture::new(machine);
    assert_eq!(
        f.handle()
            .service("api-service".into(), ServiceAction::Restart),
        Err(failure)
    );
    assert!(f.probes.take().0.restarts.is_empty());
    assert!(f.warnings().is_empty());
}

#[test]
fn refused_access_and_the_event_bound() {
    let mut f = Fixture::with(Access::refused("no workload call runs while declaring"));
    assert_eq!(
        f.handle().service_state("api-service".into()),
        // Nothing is declared without an event either.
        Err(undeclared("service", "api-service", "services"))
    );
    let mut f = Fixture::with(Access {
        declared: Arc::new(declared()),
        ..Access::refused("no workload call runs while declaring")
    });
    assert_eq!(
        f.handle().service_state("api-service".into()),
        Err(WorkloadError::Unavailable(
            "no workload call runs while declaring".into()
        ))
    );

    let machine = Arc::new(Recording::default());
    let access = Access::new(&declared(), &probe_specs(), machine.clone());
    // Two handlers of one event share the bound.
    let mut first = Fixture::with(access.clone());
    let mut second = Fixture::with(access);
    for _ in 0..MAX_CALLS_PER_EVENT / 2 {
        first.handle().service_state("api-service".into()).unwrap();
        second.handle().service_state("api-service".into()).unwrap();
    }
    let e = first
        .handle()
        .service_state("api-service".into())
        .unwrap_err();
    assert!(
        matches!(&e, WorkloadError::Unavailable(m) if m.contains("more than 1000 workload calls")),
        "{e:?}"
    );
    assert_eq!(machine.calls().len(), MAX_CALLS_PER_EVENT);
}

#[test]
fn tool_errors_carry_code_and_bounded_words() {
    let ran = |ended, stderr: &str| Ran {
        ended,
        stdout: b"out".to_vec(),
        stderr: stderr.into(),
        truncated: false,
    };
    assert_eq!(
        tool_error(
            "systemctl",
            &ran(Ended::Code(1), "Failed to start x.service: Access denied\n")
        ),
        WorkloadError::Failed(ToolFailure {
            tool: "systemctl".into(),
            code: Some(1),
            message: "Failed to start x.service: Access denied".into()
        })
    );
    let WorkloadError::Failed(f) = tool_error("apt-get", &ran(Ended::Signal(9), "")) else {
        panic!()
    };
    assert_eq!((f.code, f.message.as_str()), (None, "out"));
    let long = tool_error("apt-get", &ran(Ended::Code(100), &"é".repeat(10_000)));
    let WorkloadError::Failed(f) = long else {
        panic!()
    };
    assert!(f.message.len() <= MAX_MESSAGE);
}
