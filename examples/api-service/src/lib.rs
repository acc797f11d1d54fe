//! An API service charm in the style of the OpenStack API charms (nova-api,
//! glance, …), on wasm-charm: it installs, configures, migrates, starts and
//! pauses its own workload, through the capabilities its manifest declares
//! (DESIGN §12), and leaves checking it to the host's readiness probes.
//!
//! The workload is the apt package `api-service`: three systemd units
//! (`api-service`, the API on config `port`; `api-worker`; `api-scheduler`,
//! run only by releases that have one), a configuration file
//! `/etc/api-service/api-service.conf` rendered from the charm config, and
//! a database migration `api-service-manage db sync` (the declared command
//! `db-sync`), run once per release.
//!
//! * `package` (install, upgrade-charm, and any later event until it
//!   succeeded): installs the package.
//! * `workload` (install, start, upgrade-charm, config-changed): writes the
//!   configuration file, runs the migration when the release has not been
//!   migrated yet, and, once Juju's start event came, starts and enables the
//!   services of the release, restarting them when the file's bytes
//!   changed. It chooses which probes gate readiness: those of the release
//!   (`RELEASES`, the per-release process map) in service, the `expect:
//!   down` probes while paused.
//! * `pause` and `resume` (actions) stop and disable, or enable and start,
//!   the services, and swap the gating probes.
//! * `stop` (the unit is going away) stops and disables the services.
//!
//! Those charms call `assess_status` at the end of every hook: it checks
//! that the services of the release run and their ports listen, or, once
//! paused, that they are stopped (charm-helpers' `check_actually_paused`).
//! Here the checks are the host's probes, declared in `wasm-charm.yaml` and
//! run at every event, update-status included, without a handler. Whether
//! the unit is paused is the gating itself, which the host keeps across
//! events: `is_paused` reads it back with [`probe::gates`]. What the charm
//! must remember itself (the package is installed, the release migrated,
//! the start event came) is in its stored data ([`stored`]).

use serde::Deserialize;
use wasm_charm::prelude::*;
use wasm_charm::workload::{self, CommandOutput, Exit};

fn charm() -> Charm {
    Charm::new()
        .observe(
            "package",
            On::install() | On::start() | On::upgrade_charm() | On::config_changed(),
            package,
        )
        .observe(
            "workload",
            On::install() | On::start() | On::upgrade_charm() | On::config_changed(),
            configure,
        )
        .observe("pause", On::action("pause"), pause)
        .observe("resume", On::action("resume"), resume)
        .observe("stop", On::stop(), stop)
}

wasm_charm::export_charm!(charm);

/// The apt package of the workload (declared in `wasm-charm.yaml`).
const PACKAGE: &str = "api-service";
/// The workload's configuration file, in the declared read-write directory
/// `/etc/api-service` (a WASI preopen at that path).
const CONFIG_FILE: &str = "/etc/api-service/api-service.conf";
/// The declared command that migrates the database to the release.
const DB_SYNC: &str = "db-sync";

/// Stored: the package is installed.
const INSTALLED: &str = "installed";
/// Stored: the release the database was last migrated to.
const MIGRATED: &str = "migrated-release";
/// Stored: Juju's start event came, so the services should run.
const STARTED: &str = "started";

/// One process of the workload: its systemd unit, which runs a process of
/// the same name, and the names of its two probes.
struct Process {
    /// The systemd unit (declared in `wasm-charm.yaml`), and the name of
    /// the process it runs.
    service: &'static str,
    /// The probe that it runs (gates in service).
    running: &'static str,
    /// The `expect: down` probe that it stopped (gates while paused).
    stopped: &'static str,
}

const API: Process = Process {
    service: "api-service",
    running: "api-service",
    stopped: "api-stopped",
};
const WORKER: Process = Process {
    service: "api-worker",
    running: "api-worker",
    stopped: "worker-stopped",
};
const SCHEDULER: Process = Process {
    service: "api-scheduler",
    running: "api-scheduler",
    stopped: "scheduler-stopped",
};

/// Every process some release runs: while paused with a release the charm
/// does not know, all of them must be down.
const PROCESSES: &[Process] = &[API, WORKER, SCHEDULER];

/// The API's port and health endpoint: checked in service whatever the
/// release. They watch what `api-service` serves, so their grace period
/// starts again whenever the charm starts or restarts it.
const SERVING: &[&str] = &["api-port", "api-health"];
/// The port, closed: checked while paused whatever the release.
const CLOSED: &[&str] = &["port-closed"];

/// A release and the processes it runs.
struct Release {
    /// The value of config option `release`.
    name: &'static str,
    processes: &'static [Process],
}

/// The per-release process map: what `release` may be, and what each runs.
const RELEASES: &[Release] = &[
    Release {
        name: "2024.1",
        processes: &[API, WORKER],
    },
    Release {
        name: "2024.2",
        processes: &[API, WORKER, SCHEDULER],
    },
];

impl Release {
    /// The release called `name`, if the charm knows it.
    fn find(name: &str) -> Option<&'static Release> {
        RELEASES.iter().find(|r| r.name == name)
    }

    /// The probes that gate while the unit is in service.
    fn in_service(&self) -> Vec<&'static str> {
        let processes = self.processes.iter().map(|p| p.running);
        SERVING.iter().copied().chain(processes).collect()
    }

    /// The probes that gate while the unit is paused.
    fn paused(&self) -> Vec<&'static str> {
        paused_probes(self.processes)
    }

    /// Whether the release runs `process`.
    fn runs(&self, process: &Process) -> bool {
        self.processes.iter().any(|p| p.service == process.service)
    }
}

/// The `expect: down` probes of `processes`, and of the port.
fn paused_probes(processes: &[Process]) -> Vec<&'static str> {
    let processes = processes.iter().map(|p| p.stopped);
    CLOSED.iter().copied().chain(processes).collect()
}

/// The scope that says the unit is paused. Active: when nothing is wrong the
/// host shows the best-ranked active scope's message instead of the ready
/// message, so `juju status` reads "Unit is paused; …" once the services
/// really stopped, and names what still runs until then.
const PAUSED_SCOPE: &str = "paused";
const PAUSED_MESSAGE: &str = "Unit is paused; run the resume action";

/// The options of config.yaml. Juju always sends config.yaml's defaults; a
/// tool that sends nothing gets the same message as an invalid value.
#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    release: String,
    #[serde(default)]
    port: i64,
    #[serde(default)]
    debug: bool,
}

/// What the charm config asks of the workload, checked.
struct Wanted {
    release: &'static Release,
    port: u16,
    debug: bool,
}

impl Wanted {
    /// The configuration file for it: INI, as the OpenStack services read
    /// theirs.
    fn render(&self) -> String {
        format!(
            "# api-service configuration, written by the api-service charm from its\n\
             # config: changes made here are overwritten.\n\
             [DEFAULT]\n\
             release = {}\n\
             debug = {}\n\
             \n\
             [api]\n\
             port = {}\n",
            self.release.name, self.debug, self.port
        )
    }
}

/// The checked config, or the blocked status saying what is wrong with it.
fn configured() -> Result<Result<Wanted, Status>, Error> {
    let config: Config = model::load_config()?;
    let known = RELEASES
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(", ");
    let release = match Release::find(&config.release) {
        Some(release) => release,
        None if config.release.is_empty() => {
            return Ok(Err(Status::blocked(format!(
                "Config item `release` must be set (one of {known})"
            ))));
        }
        None => {
            return Ok(Err(Status::blocked(format!(
                "Config item `release`: unknown release {:?} (known: {known})",
                config.release
            ))));
        }
    };
    let Some(port) = u16::try_from(config.port).ok().filter(|p| *p != 0) else {
        return Ok(Err(Status::blocked(format!(
            "Config item `port`: {} is not a port (1 to 65535)",
            config.port
        ))));
    };
    Ok(Ok(Wanted {
        release,
        port,
        debug: config.debug,
    }))
}

/// Whether the unit is paused: the pause action made the `expect: down`
/// probes gate, and only resume makes them stop. The host keeps that choice
/// across events, so it needs no state of the charm's own.
fn is_paused() -> bool {
    let stopped = paused_probes(PROCESSES);
    probe::gates()
        .iter()
        .any(|g| g.gate && stopped.contains(&g.name.as_str()))
}

/// Make exactly `probes` gate readiness, saying for what when it fails.
fn gate(probes: &[&str], what: &str) -> Result<(), Error> {
    probe::gate_only(probes)
        .map_err(|e| Error::from(e).context(format!("cannot gate the probes {what}")))
}

/// Start the grace period of `probes` again: what they watch was just
/// started or stopped, and takes a while to get there.
fn restart_grace(probes: &[&str]) -> Result<(), Error> {
    for name in probes {
        probe::restart_grace(name).map_err(|e| {
            Error::from(e).context(format!("cannot restart the grace period of {name}"))
        })?;
    }
    Ok(())
}

fn stored_flag(key: &str) -> Result<bool, Error> {
    Ok(stored::get::<bool>(key)?.unwrap_or(false))
}

// ---------------------------------------------------------------------------
// The handlers.

/// Install the package: at install and upgrade-charm (apt leaves a package
/// already installed alone), and at any later event until it succeeded.
fn package(event: &Event) -> Outcome {
    let again = matches!(event, Event::Install | Event::UpgradeCharm);
    if !again && stored_flag(INSTALLED)? {
        return Ok(None);
    }
    log::info(format!("installing {PACKAGE}"));
    if let Err(e) = workload::install(&[PACKAGE]) {
        // Not installed yet: the next event tries again.
        log::error(format!("installing {PACKAGE}: {e}"));
        return Ok(Some(Status::blocked(format!(
            "Cannot install {PACKAGE}: {e}"
        ))));
    }
    stored::set(INSTALLED, &true)?;
    Ok(None)
}

/// Install, start, upgrade-charm, config-changed: bring the workload to what
/// the config asks, and make the probes of the release gate.
///
/// Once the package is installed: write the configuration file; while not
/// paused, migrate the database if this release was not migrated yet, and
/// once Juju's start event came, start and enable the release's services
/// (restarting those that ran when the file changed) and stop and disable
/// those the release does not run. A paused unit gets its file, and the
/// rest waits for resume. Blocked while the config is not usable (then no
/// probe gates: which processes should run is unknown) or the migration
/// failed (with the command's last words).
fn configure(event: &Event) -> Outcome {
    if matches!(event, Event::Start) {
        // Juju says the workload should run from now on, after a reboot too.
        stored::set(STARTED, &true)?;
    }
    let wanted = match configured()? {
        Ok(wanted) => wanted,
        Err(blocked) => {
            if is_paused() {
                gate(&paused_probes(PROCESSES), "of a paused unit")?;
            } else {
                gate(&[], "of no release")?;
            }
            return Ok(Some(blocked));
        }
    };
    let release = wanted.release;
    // `juju status` shows it in the application's Version column.
    model::set_workload_version(release.name)?;
    if !stored_flag(INSTALLED)? {
        // The package handler says why (blocked), and tries again.
        gate(&[], "before the package is installed")?;
        return Ok(None);
    }
    let changed = write_config(&wanted)?;
    if is_paused() {
        gate(&release.paused(), "of a paused unit")?;
        return Ok(None);
    }
    if let Some(failed) = migrate(release)? {
        // Services of an unmigrated release would fail on the database:
        // nothing starts. What runs already is left as it is.
        gate(
            &[],
            &format!("of release {} before its migration", release.name),
        )?;
        return Ok(Some(failed));
    }
    if !stored_flag(STARTED)? {
        // Juju's start event starts the services (install, then
        // config-changed, come first).
        gate(&[], "before the start event")?;
        return Ok(Some(Status::waiting(format!(
            "{PACKAGE} {} installed; the services start at the start event",
            release.name
        ))));
    }
    let running = release.in_service();
    gate(&running, &format!("of release {}", release.name))?;
    run_services(release, changed)?;
    Ok(None)
}

/// The pause action: stop and disable every service (a reboot keeps them
/// stopped); from now on the unit is ready only while the services of its
/// release are stopped and the port is closed, and it says it is paused.
/// With a config the charm cannot use, every process must be stopped.
fn pause(_event: &Event) -> Outcome {
    let stopped = match configured()? {
        Ok(wanted) => wanted.release.paused(),
        Err(_) => paused_probes(PROCESSES),
    };
    for process in PROCESSES {
        stop_service(process.service)?;
    }
    gate(&stopped, "of a paused unit")?;
    // The services are stopping now: stopping takes a while.
    restart_grace(&stopped)?;
    status::set(Target::Unit, PAUSED_SCOPE, Status::active(PAUSED_MESSAGE))?;
    log::info(format!("paused: gating on {}", stopped.join(", ")));
    Ok(None)
}

/// The resume action: migrate if the release changed while paused, enable
/// and start the release's services, which must run and answer again within
/// their grace period from now; the unit no longer says it is paused. A
/// config the charm cannot use, or a failed migration, fails the action:
/// the unit stays paused.
fn resume(_event: &Event) -> Outcome {
    let wanted = match configured()? {
        Ok(wanted) => wanted,
        Err(blocked) => {
            return Err(Error::msg(format!("cannot resume: {}", blocked.message)));
        }
    };
    let release = wanted.release;
    if let Some(failed) = migrate(release)? {
        return Err(Error::msg(format!("cannot resume: {}", failed.message)));
    }
    status::clear(Target::Unit, PAUSED_SCOPE)?;
    let running = release.in_service();
    gate(&running, &format!("of release {}", release.name))?;
    stored::set(STARTED, &true)?;
    run_services(release, false)?;
    log::info(format!("resumed: gating on {}", running.join(", ")));
    Ok(None)
}

/// The unit is going away: its services stop and stay stopped, and no probe
/// gates any more.
fn stop(_event: &Event) -> Outcome {
    for process in PROCESSES {
        stop_service(process.service)?;
    }
    gate(&[], "of a stopping unit")?;
    stored::set(STARTED, &false)?;
    Ok(Some(Status::maintenance(format!(
        "{PACKAGE} stopped: the unit is being removed"
    ))))
}

// ---------------------------------------------------------------------------
// The workload.

/// Write the configuration file for `wanted`, unless it already holds
/// exactly that: whether it changed. Written beside and renamed over, so the
/// services never read half a file.
fn write_config(wanted: &Wanted) -> Result<bool, Error> {
    if !workload::write_if_changed(CONFIG_FILE, wanted.render())? {
        return Ok(false);
    }
    log::info(format!(
        "wrote {CONFIG_FILE} for release {}",
        wanted.release.name
    ));
    Ok(true)
}

/// Migrate the database to `release` unless it already was: `None` when it
/// is, or the blocked status of a failed migration, naming the release, how
/// the command ended and the last line it wrote on stderr (all of it goes to
/// the log). Tried again at the next event until it succeeds.
fn migrate(release: &Release) -> Result<Option<Status>, Error> {
    if stored::get::<String>(MIGRATED)?.as_deref() == Some(release.name) {
        return Ok(None);
    }
    log::info(format!("running {DB_SYNC} for release {}", release.name));
    let output = workload::run(DB_SYNC, &[])?;
    if output.success() {
        stored::set(MIGRATED, release.name)?;
        return Ok(None);
    }
    log::error(format!(
        "{DB_SYNC} for release {} {}; stderr:\n{}",
        release.name,
        ended(&output),
        output.stderr_text()
    ));
    Ok(Some(Status::blocked(format!(
        "{DB_SYNC} failed for release {} ({}): {}",
        release.name,
        ended(&output),
        last_words(&output)
    ))))
}

/// How a command that failed ended, briefly.
fn ended(output: &CommandOutput) -> String {
    match output.exit {
        Exit::Code(code) => format!("exit {code}"),
        Exit::Signal(signal) => format!("killed by signal {signal}"),
        Exit::TimedOut => "timed out".to_string(),
    }
}

/// The last non-empty line of a command's stderr, else of its stdout: where
/// a failing tool says why (a traceback ends with the exception).
fn last_words(output: &CommandOutput) -> String {
    [output.stderr_text(), output.stdout_text()]
        .iter()
        .find_map(|text| {
            text.lines()
                .map(str::trim)
                .rfind(|line| !line.is_empty())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "no output".to_string())
}

/// Start and enable the services `release` runs: each that does not run is
/// started, each that runs is restarted when the configuration `changed`,
/// and left alone otherwise. Stop and disable those it does not run. The
/// probes of what was (re)started get their grace period from now.
fn run_services(release: &Release, changed: bool) -> Result<(), Error> {
    let mut started = Vec::new();
    for process in PROCESSES {
        if !release.runs(process) {
            stop_service(process.service)?;
            continue;
        }
        let state = workload::service_status(process.service)?;
        if state.active != "active" {
            log::info(format!("starting {}", process.service));
            workload::start(process.service)?;
            started.push(process);
        } else if changed {
            log::info(format!(
                "restarting {}: {CONFIG_FILE} changed",
                process.service
            ));
            workload::restart(process.service)?;
            started.push(process);
        }
        if state.enabled != "enabled" {
            workload::enable(process.service)?;
        }
    }
    // A restart restarts the grace of the probes of the unit's name by
    // itself, a start may not; the port and health endpoint are the
    // charm's to restart.
    let mut probes: Vec<&str> = started.iter().map(|p| p.running).collect();
    if started.iter().any(|p| p.service == API.service) {
        probes.extend_from_slice(SERVING);
    }
    restart_grace(&probes)
}

/// Stop and disable service `name` if it runs or is enabled.
fn stop_service(name: &str) -> Result<(), Error> {
    let state = workload::service_status(name)?;
    if state.active == "active" || state.active == "activating" {
        log::info(format!("stopping {name}"));
        workload::stop(name)?;
    }
    if state.enabled == "enabled" {
        workload::disable(name)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(exit: Exit, stdout: &str, stderr: &str) -> CommandOutput {
        CommandOutput {
            exit,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            truncated: false,
        }
    }

    #[test]
    fn each_release_gates_its_own_processes() {
        let first = Release::find("2024.1").expect("2024.1 is known");
        assert_eq!(
            first.in_service(),
            ["api-port", "api-health", "api-service", "api-worker"]
        );
        assert_eq!(
            first.paused(),
            ["port-closed", "api-stopped", "worker-stopped"]
        );
        assert!(!first.runs(&SCHEDULER));
        let second = Release::find("2024.2").expect("2024.2 is known");
        assert!(second.in_service().contains(&"api-scheduler"));
        assert!(second.paused().contains(&"scheduler-stopped"));
        assert!(Release::find("2023.2").is_none());
    }

    #[test]
    fn the_configuration_file_holds_every_option() {
        let wanted = Wanted {
            release: &RELEASES[1],
            port: 9000,
            debug: true,
        };
        let text = wanted.render();
        for line in [
            "release = 2024.2\n",
            "debug = true\n",
            "[api]\nport = 9000\n",
        ] {
            assert!(text.contains(line), "{line:?} in\n{text}");
        }
    }

    #[test]
    fn a_failed_command_is_told_by_its_last_words() {
        let traceback = "Traceback (most recent call last):\n  File \"x\"\nDBError: gone\n\n";
        let failed = output(Exit::Code(1), "migrating\n", traceback);
        assert_eq!(ended(&failed), "exit 1");
        assert_eq!(last_words(&failed), "DBError: gone");
        let quiet = output(Exit::Signal(9), "step 3 of 7\n", "  \n");
        assert_eq!(ended(&quiet), "killed by signal 9");
        assert_eq!(last_words(&quiet), "step 3 of 7");
        let silent = output(Exit::TimedOut, "", "");
        assert_eq!(ended(&silent), "timed out");
        assert_eq!(last_words(&silent), "no output");
    }
}
