//! Pebble probes (DESIGN §5): a service of a container's plan is up while
//! `current` is `active`; a health check while its status is `up`. Asked
//! through the Pebble client of the `pebble` interface. On Kubernetes the
//! container comes up after the charm and the charm adds the layer: while
//! Pebble does not answer, or the plan does not have the service or check
//! yet, the probe is waiting, not failing (no grace period runs).

use super::Seen;
use crate::pebble::client::{Body, Client, Error};
use crate::pebble::{client_for, parse_checks, parse_services};
use crate::workload_root::WorkloadRoot;
use serde_json::Value;
use std::time::Instant;

fn ask(
    root: &WorkloadRoot,
    container: &str,
    target: &str,
    deadline: Instant,
) -> Result<Value, Seen> {
    let client: Client = client_for(root, container, deadline)
        .ok_or_else(|| Seen::Unknown(format!("container {container}: no Pebble socket path")))?;
    client
        .sync("GET", target, Body::Empty)
        .map_err(|e| match e {
            Error::CannotConnect { .. } => {
                Seen::Waiting(format!("waiting for Pebble in {container}"))
            }
            Error::Timeout { .. } => Seen::Down(format!(
                "container {container}: Pebble did not answer in time"
            )),
            other => Seen::Unknown(format!("container {container}: {other}")),
        })
}

/// One attempt of a `pebble-service` probe.
pub(crate) fn service(
    root: &WorkloadRoot,
    container: &str,
    service: &str,
    deadline: Instant,
) -> Seen {
    let target = format!(
        "/v1/services?names={}",
        crate::pebble::client::query_value(service)
    );
    let result = match ask(root, container, &target, deadline) {
        Ok(r) => r,
        Err(seen) => return seen,
    };
    let name = format!("service {container}/{service}");
    match parse_services(&result)
        .as_deref()
        .and_then(|all| all.iter().find(|s| s.name == service))
    {
        None => Seen::Waiting(format!("waiting for {name} in the Pebble plan")),
        Some(s) if s.current == "active" => Seen::Up {
            detail: format!("{name} active"),
            still: format!("{name} still active"),
            pid: None,
        },
        Some(s) => Seen::Down(format!("{name} {}", s.current)),
    }
}

/// One attempt of a `pebble-check` probe.
pub(crate) fn check(root: &WorkloadRoot, container: &str, check: &str, deadline: Instant) -> Seen {
    let target = format!(
        "/v1/checks?names={}",
        crate::pebble::client::query_value(check)
    );
    let result = match ask(root, container, &target, deadline) {
        Ok(r) => r,
        Err(seen) => return seen,
    };
    let name = format!("check {container}/{check}");
    match parse_checks(&result)
        .as_deref()
        .and_then(|all| all.iter().find(|c| c.name == check))
    {
        None => Seen::Waiting(format!("waiting for {name} in the Pebble plan")),
        Some(c) if c.status == "up" => Seen::Up {
            detail: format!("{name} up"),
            still: format!("{name} still up"),
            pid: None,
        },
        Some(c) => Seen::Down(format!(
            "{name} {} ({} of {} failures)",
            c.status, c.failures, c.threshold
        )),
    }
}
