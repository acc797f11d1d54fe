//! The simulated machine's tools as state transitions, with a fake of the
//! processes; the in-process machine through the host's readers.

use super::*;
use crate::bindings::workload::{Exit, ServiceAction, ToolFailure, WorkloadError};
use crate::workload::{Machine, OUTPUT_LIMIT};
use proptest::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Processes that are only numbers: started ones run until killed or
/// `died`.
#[derive(Default)]
struct FakeProcesses {
    files: BTreeMap<String, UnitDefinition>,
    running: RefCell<BTreeSet<u32>>,
    next: RefCell<u32>,
    started: RefCell<Vec<String>>,
    payload_fails: bool,
    installed: RefCell<Vec<String>>,
}

impl FakeProcesses {
    fn died(&self, pid: u32) {
        self.running.borrow_mut().remove(&pid);
    }
}

impl Processes for FakeProcesses {
    fn unit_file(&self, name: &str) -> Option<UnitDefinition> {
        self.files.get(name).cloned()
    }
    fn any_unit_file(&self) -> bool {
        !self.files.is_empty()
    }
    fn alive(&self, pid: u32) -> bool {
        self.running.borrow().contains(&pid)
    }
    fn start(&self, _: &str, command: &str) -> Result<u32, String> {
        let mut next = self.next.borrow_mut();
        *next += 1;
        self.running.borrow_mut().insert(*next + 1000);
        self.started.borrow_mut().push(command.to_string());
        Ok(*next + 1000)
    }
    fn kill(&self, pid: u32) {
        self.died(pid);
    }
    fn install(&self, name: &str, _: &Path) -> bool {
        self.installed.borrow_mut().push(name.to_string());
        !self.payload_fails
    }
}

fn call(state: &mut MachineState, p: &FakeProcesses, tool: &str, args: &[&str]) -> ToolOutput {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    answer(tool, &args, state, p)
}

fn text(out: &ToolOutput) -> (i32, String, String) {
    (
        out.code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.stderr.clone(),
    )
}

fn defined() -> FakeProcesses {
    let mut p = FakeProcesses::default();
    p.files.insert(
        "api".into(),
        UnitDefinition {
            exec_start: Some("sleep 300".into()),
        },
    );
    p
}

#[test]
fn a_unit_with_a_command_runs_it_until_stopped_and_fails_when_it_dies() {
    let p = defined();
    let mut s = MachineState::default();
    let is_active =
        |s: &mut MachineState| text(&call(s, &p, "systemctl", &["is-active", "--", "api"]));
    assert_eq!(is_active(&mut s), (3, "inactive\n".into(), String::new()));
    assert_eq!(
        call(&mut s, &p, "systemctl", &["start", "--", "api"]).code,
        0
    );
    let pid = s.services["api"].pid.expect("a pid");
    assert!(p.alive(pid));
    assert_eq!(is_active(&mut s).1, "active\n");
    // A second start leaves the running process alone.
    call(&mut s, &p, "systemctl", &["start", "--", "api"]);
    assert_eq!(p.started.borrow().len(), 1);
    p.died(pid);
    assert_eq!(is_active(&mut s), (3, "failed\n".into(), String::new()));
    let reload = call(&mut s, &p, "systemctl", &["reload", "--", "api"]);
    assert_eq!(
        text(&reload),
        (
            1,
            String::new(),
            "api.service is not active, cannot reload.\n".into()
        )
    );
    call(&mut s, &p, "systemctl", &["restart", "--", "api"]);
    let again = s.services["api"].pid.expect("a pid");
    assert!(again != pid && p.alive(again));
    call(&mut s, &p, "systemctl", &["stop", "--", "api"]);
    assert!(!p.alive(again));
    assert_eq!(s.services["api"].pid, None);
    assert_eq!(is_active(&mut s).1, "inactive\n");
    assert_eq!(s.calls[0], "systemctl is-active -- api");
}

#[test]
fn once_a_unit_is_defined_the_others_are_not_found() {
    let p = defined();
    let mut s = MachineState::default();
    let words = |s: &mut MachineState, args: &[&str]| text(&call(s, &p, "systemctl", args));
    assert_eq!(
        words(&mut s, &["start", "--", "nope"]),
        (
            5,
            String::new(),
            "Failed to start nope.service: Unit nope.service not found.\n".into()
        )
    );
    assert_eq!(
        words(&mut s, &["enable", "--", "nope.service"]).2,
        "Failed to enable unit: Unit file nope.service does not exist.\n"
    );
    assert_eq!(
        words(&mut s, &["is-enabled", "--", "nope"]),
        (
            1,
            String::new(),
            "Failed to get unit file state for nope.service: No such file or directory\n".into()
        )
    );
    assert_eq!(words(&mut s, &["is-active", "--", "nope"]).0, 3);
    // An entry of `units` defines one, state only.
    s.units.insert("worker".into(), UnitDefinition::default());
    assert_eq!(words(&mut s, &["enable", "--", "worker"]).0, 0);
    assert_eq!(
        words(&mut s, &["is-enabled", "--", "worker"]),
        (0, "enabled\n".into(), String::new())
    );
    assert!(p.started.borrow().is_empty());
}

#[test]
fn a_scripted_failure_answers_its_verb_only() {
    let p = FakeProcesses::default();
    let mut s = MachineState::default();
    s.services
        .entry("w".into())
        .or_default()
        .fail
        .insert("start".into(), "Job failed.".into());
    assert_eq!(
        text(&call(&mut s, &p, "systemctl", &["start", "--", "w"])),
        (1, String::new(), "Job failed.\n".into())
    );
    assert_eq!(s.services["w"].active, "inactive");
    assert_eq!(
        call(&mut s, &p, "systemctl", &["enable", "--", "w"]).code,
        0
    );
}

#[test]
fn apt_finds_the_repository_waits_for_its_lock_and_runs_payloads() {
    let p = FakeProcesses::default();
    let mut s = MachineState::default();
    let install = [
        "install",
        "-y",
        "-q",
        "-o",
        "Dpkg::Options::=--force-confold",
    ];
    let with = |pkgs: &[&'static str]| [&install[..], pkgs].concat();
    // No repository: anything installs.
    assert_eq!(call(&mut s, &p, "apt-get", &with(&["libpq5"])).code, 0);
    s.apt.lock_held = 1;
    let locked = call(&mut s, &p, "apt-get", &with(&["x"]));
    assert_eq!(locked.code, 100);
    assert!(locked.stderr.contains("Could not get lock"), "{locked:?}");
    assert_eq!(s.apt.lock_held, 0);
    let mut repository = BTreeMap::new();
    repository.insert(
        "api".to_string(),
        AptPackage {
            payload: Some("/install".into()),
        },
    );
    s.apt.repository = Some(repository);
    let unknown = call(&mut s, &p, "apt-get", &with(&["api", "nope"]));
    assert_eq!(
        (unknown.code, unknown.stderr.as_str()),
        (100, "E: Unable to locate package nope\n")
    );
    assert!(!s.packages.contains("api"));
    assert_eq!(call(&mut s, &p, "apt-get", &with(&["api"])).code, 0);
    assert_eq!(*p.installed.borrow(), ["api"]);
    let query = |s: &mut MachineState, pkg| {
        text(&call(
            s,
            &p,
            "dpkg-query",
            &["-W", "-f=${Status}", "--", pkg],
        ))
    };
    assert_eq!(
        query(&mut s, "api"),
        (0, "install ok installed".into(), String::new())
    );
    assert_eq!(
        query(&mut s, "nope"),
        (
            1,
            String::new(),
            "dpkg-query: no packages found matching nope\n".into()
        )
    );
    assert_eq!(
        text(&call(
            &mut s,
            &p,
            "dpkg-query",
            &["-W", "-f", "${Package} ${Version}\\n", "libpq5"]
        ))
        .1,
        "libpq5 1.0\n"
    );
    let failing = FakeProcesses {
        payload_fails: true,
        ..FakeProcesses::default()
    };
    s.packages.clear();
    let failed = call(&mut s, &failing, "apt-get", &with(&["api"]));
    assert_eq!(failed.code, 100);
    assert!(s.packages.is_empty());
}

#[derive(Debug, Clone)]
enum Op {
    Verb(&'static str, usize),
    Die(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let verbs = prop::sample::select(vec![
        "start",
        "stop",
        "restart",
        "reload",
        "enable",
        "disable",
        "is-active",
        "is-enabled",
    ]);
    prop_oneof![
        4 => (verbs, 0..3usize).prop_map(|(v, u)| Op::Verb(v, u)),
        1 => (0..3usize).prop_map(Op::Die),
    ]
}

const UNITS: [&str; 3] = ["api", "worker", "nope"];

proptest! {
    /// Whatever the calls: a unit not defined is never in the state, at
    /// most one process per unit runs and it is the recorded one, an
    /// `active` unit's words are `active` exactly while its process (if it
    /// has a command) runs, and every call is logged.
    #[test]
    fn units_stay_consistent(ops in prop::collection::vec(op(), 0..40)) {
        let mut p = defined();
        p.files.insert("worker".into(), UnitDefinition::default());
        let mut s = MachineState::default();
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Verb(verb, u) => {
                    let out = call(&mut s, &p, "systemctl", &[verb, "--", UNITS[*u]]);
                    if UNITS[*u] == "nope" && !verb.starts_with("is-") {
                        prop_assert!(out.code != 0);
                    }
                }
                Op::Die(u) => {
                    if let Some(pid) = s.services.get(UNITS[*u]).and_then(|x| x.pid) {
                        p.died(pid);
                    }
                }
            }
            prop_assert!(!s.services.contains_key("nope"));
            // A unit without a command never has a process.
            prop_assert!(s.services.get("worker").is_none_or(|w| w.pid.is_none()));
            let running = p.running.borrow().clone();
            let recorded: BTreeSet<u32> = s.services.values().filter_map(|x| x.pid).collect();
            prop_assert!(running.is_subset(&recorded));
            let logged = ops[..=i].iter().filter(|o| matches!(o, Op::Verb(..))).count();
            prop_assert_eq!(s.calls.len(), logged);
            if let Some(api) = s.services.get("api").cloned() {
                let word = text(&call(&mut s, &p, "systemctl", &["is-active", "api"])).1;
                s.calls.pop();
                let up = api.pid.is_some_and(|pid| p.alive(pid));
                prop_assert_eq!(word == "active\n", api.active == "active" && up);
            }
        }
    }
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[test]
fn in_process_services_move_as_systemctl_would_move_them() {
    let m = SimMachine::new(MachineState::default(), Place::default());
    let state = |m: &SimMachine| {
        let s = m.service_state("api", soon()).unwrap();
        (s.active, s.enabled)
    };
    assert_eq!(state(&m), ("inactive".into(), "disabled".into()));
    let e = m.service("api", ServiceAction::Reload, soon()).unwrap_err();
    assert!(
        matches!(&e, WorkloadError::Failed(ToolFailure { code: Some(1), message, .. })
            if message == "api.service is not active, cannot reload."),
        "{e:?}"
    );
    m.service("api", ServiceAction::Start, soon()).unwrap();
    m.service("api", ServiceAction::Enable, soon()).unwrap();
    m.service("api", ServiceAction::Reload, soon()).unwrap();
    assert_eq!(state(&m), ("active".into(), "enabled".into()));
    m.service("api", ServiceAction::Stop, soon()).unwrap();
    m.service("api", ServiceAction::Disable, soon()).unwrap();
    assert_eq!(state(&m), ("inactive".into(), "disabled".into()));
    let calls = m.state().calls;
    assert_eq!(calls[0], "systemctl is-active -- api");
    assert_eq!(calls[2], "systemctl reload -- api");
    assert_eq!(calls[3], "systemctl start -- api");
}

#[test]
fn in_process_packages_and_commands() {
    let mut state = MachineState::default();
    state.packages.insert("libpq5".into());
    state.commands.insert(
        "db-sync".into(),
        ScriptedCommand {
            exit: ScriptedExit::Code(2),
            stdout: "x".repeat(OUTPUT_LIMIT + 1),
            stderr: "locked".into(),
        },
    );
    state.calls.push("from the last event".into());
    let m = SimMachine::new(state, Place::default());
    assert!(m.package_installed("libpq5", soon()).unwrap());
    assert!(!m.package_installed("nginx", soon()).unwrap());
    m.install_packages(&["nginx".into()], soon()).unwrap();
    assert!(m.package_installed("nginx", soon()).unwrap());
    let out = m
        .run_command("db-sync", &["manage".into(), "db sync".into()], soon())
        .unwrap();
    assert_eq!(out.exit, Exit::Code(2));
    assert_eq!((out.stdout.len(), out.truncated), (OUTPUT_LIMIT, true));
    assert_eq!(out.stderr, b"locked");
    let out = m.run_command("other", &["true".into()], soon()).unwrap();
    assert_eq!(
        (out.exit, out.stdout.len(), out.truncated),
        (Exit::Code(0), 0, false)
    );
    assert_eq!(
        m.state().calls,
        [
            "dpkg-query -W -f=${Status} -- libpq5",
            "dpkg-query -W -f=${Status} -- nginx",
            "apt-get install -y -q -o Dpkg::Options::=--force-confold nginx",
            "dpkg-query -W -f=${Status} -- nginx",
            "manage 'db sync'",
            "true",
        ]
    );
}

#[test]
fn in_process_units_run_the_unit_files_of_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let units = root.join("etc/systemd/system");
    std::fs::create_dir_all(&units).unwrap();
    std::fs::write(
        units.join("api.service"),
        "[Service]\nExecStart=exec sleep 300\n",
    )
    .unwrap();
    let place = Place::new(Some(root), dir.path());
    let m = SimMachine::new(MachineState::default(), place.clone());
    m.service("api", ServiceAction::Start, soon()).unwrap();
    let pid = m.state().services["api"].pid.expect("a pid");
    // Killed when the test ends, passed or not.
    struct Group(u32, Place);
    impl Drop for Group {
        fn drop(&mut self) {
            self.1.kill(self.0);
        }
    }
    let _group = Group(pid, place.clone());
    assert!(place.alive(pid));
    let e = m
        .service("other", ServiceAction::Start, soon())
        .unwrap_err();
    assert!(
        matches!(&e, WorkloadError::Failed(ToolFailure { code: Some(5), .. })),
        "{e:?}"
    );
    m.service("api", ServiceAction::Stop, soon()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while place.alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the unit's process outlived its stop"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(dir.path().join("machine/api.out").exists());
}

#[test]
fn scripted_commands_must_be_declared() {
    let mut state = MachineState::default();
    state
        .commands
        .insert("db-sync".into(), ScriptedCommand::default());
    let mut declared = crate::charm_dir::Workload::default();
    let e = state.check(&declared).unwrap_err();
    assert!(
        e.contains("`machine.commands.db-sync`") && e.contains("(declared: none)"),
        "{e}"
    );
    declared.commands.insert(
        "db-sync".into(),
        crate::charm_dir::CommandSpec {
            argv: vec!["true".into()],
            args: false,
            timeout: Duration::from_secs(1),
        },
    );
    assert_eq!(state.check(&declared), Ok(()));
}
