//! A Kubernetes sidecar charm for a web server, on wasm-charm: the charm runs
//! in its own container of the pod and drives the workload container `web`
//! through Pebble, as ops charms do.
//!
//! The workload is a `web-server` executable of the `web-image` resource: it
//! reads `/etc/web/web.conf` (the port and a greeting) and answers the
//! greeting on `/` and `ok` on `/healthz`.
//!
//! * `web` (install, start, upgrade-charm, config-changed, `web-pebble-ready`):
//!   renders the configuration file from the config, pushes it into the
//!   container when its bytes differ from what is there, adds the layer
//!   (service `web` running the server, check `alive` on `/healthz`) and
//!   replans; restarts the server when the file changed under a running
//!   server. While Pebble does not answer (the container is not up yet)
//!   there is nothing to do: the probes say the unit waits for it.
//! * `checks` (`web-pebble-check-failed`, `-recovered`): logs. Readiness is
//!   the host's probes' (`web-alive`, `web-service` in wasm-charm.yaml),
//!   which run at every event, these included: nothing to decide here.
//! * `website` (the `website` relation, config-changed): tells related
//!   units the server's port.
//! * `check-config` (action): asks the server, through Pebble's exec of the
//!   declared command, what it reads in its file.

use serde::Deserialize;
use wasm_charm::pebble::{
    AddLayerOptions, ApiErrorKind, Check, CheckLevel, HttpCheck, Layer, PebbleError, PushOptions,
    Service, ServiceAction, ServiceStartup,
};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "web",
            On::install()
                | On::start()
                | On::upgrade_charm()
                | On::config_changed()
                | On::pebble_ready(CONTAINER),
            configure,
        )
        .observe(
            "checks",
            On::pebble_check_failed(CONTAINER) | On::pebble_check_recovered(CONTAINER),
            checks,
        )
        .observe(
            "website",
            On::relation_joined(WEBSITE) | On::relation_changed(WEBSITE) | On::config_changed(),
            website,
        )
        .observe("check-config", On::action("check-config"), check_config)
}

wasm_charm::export_charm!(charm);

/// The workload container (metadata.yaml `containers:`).
const CONTAINER: &str = "web";
/// The Pebble service that runs the server, and the label of the charm's layer.
const SERVICE: &str = "web";
/// The Pebble check on the server's health endpoint.
const ALIVE: &str = "alive";
/// The server's configuration file, in the container.
const CONFIG_FILE: &str = "/etc/web/web.conf";
/// The relation on which the server is offered.
const WEBSITE: &str = "website";
/// The declared command (wasm-charm.yaml `workload.containers.web.commands`)
/// with which the server reads its file back.
const CHECK_CONFIG: &str = "check-config";

/// The options of config.yaml.
#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    port: i64,
    #[serde(default)]
    greeting: String,
}

/// What the config asks of the server, checked.
#[derive(Debug, PartialEq)]
struct Wanted {
    port: u16,
    greeting: String,
}

impl Wanted {
    /// The server's configuration file.
    fn render(&self) -> String {
        format!(
            "# web-server configuration, written by the web-k8s charm from its\n\
             # config: changes made here are overwritten.\n\
             port = {}\n\
             greeting = {}\n",
            self.port, self.greeting
        )
    }

    /// The charm's Pebble layer: the server as service `web`, started with
    /// the pod and restarted by Pebble when its check fails; check `alive`
    /// asks `/healthz` on the configured port.
    fn layer(&self) -> Layer {
        let server = Service {
            summary: "the web server".into(),
            command: format!("web-server --config {CONFIG_FILE}"),
            startup: Some(ServiceStartup::Enabled),
            on_check_failure: [(ALIVE.to_string(), ServiceAction::Restart)].into(),
            ..Default::default()
        };
        let alive = Check {
            level: Some(CheckLevel::Alive),
            http: Some(HttpCheck {
                url: format!("http://localhost:{}/healthz", self.port),
                ..Default::default()
            }),
            ..Default::default()
        };
        Layer {
            summary: "web-k8s layer".into(),
            services: [(SERVICE.to_string(), server)].into(),
            checks: [(ALIVE.to_string(), alive)].into(),
            ..Default::default()
        }
    }
}

/// Check the config: what it asks, or why it cannot be used.
fn check(config: Config) -> Result<Wanted, String> {
    let port = u16::try_from(config.port)
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| {
            format!(
                "Config item `port`: {} is not a port (1 to 65535)",
                config.port
            )
        })?;
    let greeting = config.greeting.trim().to_string();
    if greeting.is_empty() {
        return Err("Config item `greeting` must be set".to_string());
    }
    if greeting.chars().any(char::is_control) {
        return Err("Config item `greeting` must be one line of text".to_string());
    }
    Ok(Wanted { port, greeting })
}

/// The checked config, or the blocked status saying what is wrong with it.
fn configured() -> Result<Result<Wanted, Status>, Error> {
    let config: Config = model::load_config()?;
    Ok(check(config).map_err(Status::blocked))
}

fn pebble_error(e: PebbleError, what: &str) -> Error {
    Error::from(e).context(what.to_string())
}

// ---------------------------------------------------------------------------
// The handlers.

/// Bring the container to what the config asks: file, layer, running server.
fn configure(_event: &Event) -> Outcome {
    let wanted = match configured()? {
        Ok(wanted) => wanted,
        // What runs keeps running with the file it has.
        Err(blocked) => return Ok(Some(blocked)),
    };
    let web = pebble::get_container(CONTAINER);
    if !web.can_connect() {
        // `web-pebble-ready` comes; meanwhile the probes wait for Pebble.
        return Ok(None);
    }
    let changed = push_config(&web, &wanted)?;
    let was_running = web
        .get_services(&[SERVICE])
        .map_err(|e| pebble_error(e, "cannot read the services of web"))?
        .iter()
        .any(|s| s.is_running());
    web.add_layer(SERVICE, &wanted.layer(), AddLayerOptions { combine: true })
        .map_err(|e| pebble_error(e, "cannot add the web layer"))?;
    // Starts the server if it is not running; restarts it if its service's
    // definition changed (a new charm revision's layer).
    web.replan()
        .map_err(|e| pebble_error(e, "cannot replan web"))?;
    if changed && was_running {
        log::info(format!("restarting {SERVICE}: {CONFIG_FILE} changed"));
        web.restart(&[SERVICE])
            .map_err(|e| pebble_error(e, "cannot restart web"))?;
    }
    Ok(None)
}

/// Push the configuration file for `wanted` unless the container has exactly
/// it already: whether it changed.
fn push_config(web: &pebble::Container, wanted: &Wanted) -> Result<bool, Error> {
    let text = wanted.render();
    match web.pull(CONFIG_FILE) {
        Ok(old) if old == text.as_bytes() => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == Some(ApiErrorKind::NotFound) => {}
        Err(e) => return Err(pebble_error(e, &format!("cannot read {CONFIG_FILE}"))),
    }
    let options = PushOptions {
        make_dirs: true,
        permissions: Some(0o644),
        ..Default::default()
    };
    web.push(CONFIG_FILE, &text, options)
        .map_err(|e| pebble_error(e, &format!("cannot write {CONFIG_FILE}")))?;
    log::info(format!("pushed {CONFIG_FILE} (port {})", wanted.port));
    Ok(true)
}

/// A check of the container failed or recovered: the probes judge it at
/// this very event; the log says which.
fn checks(event: &Event) -> Outcome {
    match event {
        Event::PebbleCheckFailed(c) => {
            log::warning(format!("Pebble check {}/{} failed", c.container, c.check));
        }
        Event::PebbleCheckRecovered(c) => {
            log::info(format!(
                "Pebble check {}/{} recovered",
                c.container, c.check
            ));
        }
        _ => {}
    }
    Ok(None)
}

/// Tell every related unit on `website` the port the server listens on.
fn website(_event: &Event) -> Outcome {
    let Ok(wanted) = configured()? else {
        // The `web` handler says what is wrong with the config.
        return Ok(None);
    };
    let port = wanted.port.to_string();
    for relation in model::relations(WEBSITE)? {
        relation.set_local_unit_data(&[("port", port.as_str())])?;
    }
    Ok(None)
}

/// The `check-config` action: the server reads its file back.
fn check_config(_event: &Event) -> Outcome {
    let web = pebble::get_container(CONTAINER);
    let output = web
        .exec(CHECK_CONFIG, &[])
        .map_err(|e| pebble_error(e, &format!("cannot run {CHECK_CONFIG} in web")))?;
    action::set_results([("output", output.stdout_text())])?;
    if !output.success() {
        action::fail(format!(
            "web-server finds {CONFIG_FILE} unusable: {}",
            output.stderr_text().trim()
        ))?;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(port: i64, greeting: &str) -> Config {
        Config {
            port,
            greeting: greeting.to_string(),
        }
    }

    #[test]
    fn the_file_and_the_layer_follow_the_config() {
        let wanted = check(config(9000, " Hi there ")).expect("usable");
        assert_eq!(
            wanted,
            Wanted {
                port: 9000,
                greeting: "Hi there".into()
            }
        );
        let file = wanted.render();
        assert!(
            file.contains("\nport = 9000\ngreeting = Hi there\n"),
            "{file}"
        );
        let layer = wanted.layer().to_yaml();
        for line in [
            "    command: web-server --config /etc/web/web.conf\n",
            "    startup: enabled\n",
            "      alive: restart\n",
            "    level: alive\n",
            "      url: http://localhost:9000/healthz\n",
            "    override: replace\n",
        ] {
            assert!(layer.contains(line), "{line:?} in\n{layer}");
        }
    }

    #[test]
    fn an_unusable_config_is_named() {
        assert_eq!(
            check(config(0, "hi")),
            Err("Config item `port`: 0 is not a port (1 to 65535)".into())
        );
        assert_eq!(
            check(config(70000, "hi")),
            Err("Config item `port`: 70000 is not a port (1 to 65535)".into())
        );
        assert_eq!(
            check(config(80, "  ")),
            Err("Config item `greeting` must be set".into())
        );
        assert_eq!(
            check(config(80, "two\nlines")),
            Err("Config item `greeting` must be one line of text".into())
        );
    }
}
