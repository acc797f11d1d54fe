//! An API service charm in the style of the OpenStack API charms (nova-api,
//! glance, …), on wasm-charm.
//!
//! Those charms call `assess_status` at the end of every hook: it checks that
//! the services of the release run and their ports listen, or, once paused,
//! that they are stopped (charm-helpers' `check_actually_paused`). Here the
//! checks are the host's readiness probes, declared in `wasm-charm.yaml` and
//! run at every event, update-status included, without a handler. What the
//! charm decides is only *which* probes gate readiness:
//!
//! * in service, the probes of the configured release (`RELEASES`, the
//!   per-release process map): its port, its health endpoint and every
//!   process the release runs;
//! * paused, the `expect: down` probes of those processes and of the port,
//!   and a scope `paused` that says so while everything is down.
//!
//! The choice is kept by the host across events, so it is also the charm's
//! memory of being paused: `is_paused` reads it back with
//! [`probe::gates`].
//!
//! The services are started and stopped by the operator (or a test) in this
//! version; the charm only checks them.

use serde::Deserialize;
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "release",
            On::install() | On::start() | On::upgrade_charm() | On::config_changed(),
            release,
        )
        .observe("pause", On::action("pause"), pause)
        .observe("resume", On::action("resume"), resume)
}

wasm_charm::export_charm!(charm);

/// One process of the workload, by the names of its two probes.
struct Process {
    /// The probe that it runs (gates in service).
    running: &'static str,
    /// The `expect: down` probe that it stopped (gates while paused).
    stopped: &'static str,
}

const API: Process = Process {
    running: "api-service",
    stopped: "api-stopped",
};
const WORKER: Process = Process {
    running: "api-worker",
    stopped: "worker-stopped",
};
const SCHEDULER: Process = Process {
    running: "api-scheduler",
    stopped: "scheduler-stopped",
};

/// Every process some release runs: while paused with a release the charm
/// does not know, all of them must be down.
const PROCESSES: &[Process] = &[API, WORKER, SCHEDULER];

/// The API's port and health endpoint: checked in service whatever the
/// release.
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

/// The options of config.yaml.
#[derive(Deserialize)]
struct Config {
    /// Juju always sends config.yaml's default; a tool that sends nothing
    /// gets the same message as an empty value.
    #[serde(default)]
    release: String,
}

/// The configured release, or the blocked status saying what is wrong.
fn configured() -> Result<Result<&'static Release, Status>, Error> {
    let config: Config = model::config()?;
    let known = RELEASES
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(", ");
    Ok(match Release::find(&config.release) {
        Some(release) => Ok(release),
        None if config.release.is_empty() => Err(Status::blocked(format!(
            "Config item `release` must be set (one of {known})"
        ))),
        None => Err(Status::blocked(format!(
            "Config item `release`: unknown release {:?} (known: {known})",
            config.release
        ))),
    })
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

/// Install, start, upgrade-charm, config-changed: make the probes of the
/// configured release gate (the scheduler's only from 2024.2). A paused unit
/// stays paused: only the stopped-probes gate, for the new release's
/// processes. Blocked while the release is not one the charm knows; then no
/// probe gates, since which processes should run is unknown.
fn release(event: &Event) -> Outcome {
    let release = configured()?;
    let known = release.as_ref().ok().copied();
    if is_paused() {
        let stopped = known.map_or_else(|| paused_probes(PROCESSES), Release::paused);
        gate(&stopped, "of a paused unit")?;
    } else if let Some(release) = known {
        let running = release.in_service();
        gate(&running, &format!("of release {}", release.name))?;
        if matches!(event, Event::Start) {
            // The services start with the unit (after a reboot too): give
            // them their grace period from now, not from install.
            restart_grace(&running)?;
        }
    } else {
        gate(&[], "of no release")?;
    }
    match release {
        Ok(release) => {
            // `juju status` shows it in the application's Version column.
            model::application_version_set(release.name)?;
            Ok(None)
        }
        Err(blocked) => Ok(Some(blocked)),
    }
}

/// The pause action: from now on the unit is ready only while the services
/// of its release are stopped and the port is closed; it says it is paused.
/// With a release the charm does not know, every process must be stopped.
fn pause(_event: &Event) -> Outcome {
    let stopped = match configured()? {
        Ok(release) => release.paused(),
        Err(_) => paused_probes(PROCESSES),
    };
    gate(&stopped, "of a paused unit")?;
    // The services are being stopped now: stopping takes a while.
    restart_grace(&stopped)?;
    status::set(Target::Unit, PAUSED_SCOPE, Status::active(PAUSED_MESSAGE))?;
    log::info(format!("paused: gating on {}", stopped.join(", ")));
    Ok(None)
}

/// The resume action: the services of the release must run and answer
/// again, within their grace period from now; the unit no longer says it is
/// paused. With a release the charm does not know, nothing gates: the
/// `release` handler's blocked status says what to fix.
fn resume(_event: &Event) -> Outcome {
    status::clear(Target::Unit, PAUSED_SCOPE)?;
    match configured()? {
        Ok(release) => {
            let running = release.in_service();
            gate(&running, &format!("of release {}", release.name))?;
            // The services are being started now.
            restart_grace(&running)?;
            log::info(format!("resumed: gating on {}", running.join(", ")));
        }
        Err(_) => gate(&[], "of no release")?,
    }
    Ok(None)
}
