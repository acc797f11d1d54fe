//! A Kubernetes sidecar charm for a web server, on wasm-charm: the charm runs
//! in its own container of the pod and drives the workload container `web`
//! through Pebble, as ops charms do.
//!
//! The workload is a `web-server` executable of the `web-image` resource: it
//! reads `/etc/web/web.conf` (the port and a greeting), answers the greeting
//! on `/` and `ok` on `/healthz`, and reads its file again on SIGHUP.
//!
//! * `web` (install, start, upgrade-charm, config-changed, `web-pebble-ready`,
//!   `web-pebble-custom-notice`): renders the configuration file from the
//!   config; when its bytes differ from what the container has, has the
//!   server check it first (the declared command `validate-config`, the
//!   text on its stdin, run as the server runs), then pushes it into a
//!   directory made for it, both owned by the server's user. Adds the layer
//!   (service `web` running the server, check `alive` on `/healthz`) and
//!   replans. Under a running server, a new port restarts it; a new greeting
//!   only needs a SIGHUP, as does the workload's notice
//!   `example.com/web-server/reload`. While Pebble does not answer (the
//!   container is not up yet) there is nothing to do: the probes say the
//!   unit waits for it.
//! * `checks` (`web-pebble-check-failed`, `-recovered`): logs. Readiness is
//!   the host's probes' (`web-alive`, `web-service` in wasm-charm.yaml),
//!   which run at every event, these included: nothing to decide here.
//! * `website` (the `website` relation, config-changed): tells related
//!   units the server's port.
//! * `check-config` (action): asks the server, through Pebble's exec of the
//!   declared command, what it reads in its file.

use serde::Deserialize;
use std::collections::BTreeMap;
use wasm_charm::pebble::{
    AddLayerOptions, ApiErrorKind, Check, CheckLevel, ExecOptions, HttpCheck, Layer,
    MakeDirOptions, PebbleError, PushOptions, Service, ServiceAction, ServiceStartup,
};
use wasm_charm::prelude::*;
use wasm_charm::workload::Exit;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "web",
            On::install()
                | On::start()
                | On::upgrade_charm()
                | On::config_changed()
                | On::pebble_ready(CONTAINER)
                | On::pebble_custom_notice(CONTAINER),
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
/// The server's configuration directory and file, in the container.
const CONFIG_DIR: &str = "/etc/web";
const CONFIG_FILE: &str = "/etc/web/web.conf";
/// The relation on which the server is offered.
const WEBSITE: &str = "website";
/// The declared commands (wasm-charm.yaml `workload.containers.web.commands`):
/// the server reads its file back, or checks a configuration given on stdin.
const CHECK_CONFIG: &str = "check-config";
const VALIDATE_CONFIG: &str = "validate-config";
/// The custom notice with which the workload asks for a reload (`pebble
/// notify example.com/web-server/reload reason=…` in the container, after
/// a job there renewed something the server reads).
const RELOAD_NOTICE: &str = "example.com/web-server/reload";
/// The signal on which the server reads its file again.
const RELOAD_SIGNAL: &str = "SIGHUP";
/// The user and group the server runs as: `_daemon_` (584792), the one
/// rocks run their services as. By id, as the image may not name it.
const SERVER_ID: u32 = 584_792;
/// The server's working directory: `/` (an exec would otherwise start in
/// the user's home directory, which `_daemon_` need not have).
const SERVER_DIR: &str = "/";

/// The server's environment, the same for the service and for the
/// commands that read its configuration: a UTF-8 locale, since a greeting
/// may be any line of text and the server reads its file in its locale's
/// encoding.
fn server_environment() -> BTreeMap<String, String> {
    [("LANG".to_string(), "C.UTF-8".to_string())].into()
}

/// Run a declared command as the server runs (its user, group, environment
/// and working directory), so that it reads what the server would read.
fn as_the_server(stdin: &str, combine_stderr: bool) -> ExecOptions {
    ExecOptions {
        environment: server_environment(),
        working_dir: Some(SERVER_DIR.to_string()),
        user_id: Some(SERVER_ID),
        group_id: Some(SERVER_ID),
        stdin: stdin.as_bytes().to_vec(),
        combine_stderr,
        ..Default::default()
    }
}

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

    /// The charm's Pebble layer: the server as service `web`, run as its
    /// user in its environment, started with the pod and restarted by
    /// Pebble when its check fails; check `alive` asks `/healthz` on the
    /// configured port.
    fn layer(&self) -> Layer {
        let server = Service {
            summary: "the web server".into(),
            command: format!("web-server --config {CONFIG_FILE}"),
            startup: Some(ServiceStartup::Enabled),
            environment: server_environment(),
            user_id: Some(SERVER_ID),
            group_id: Some(SERVER_ID),
            working_dir: SERVER_DIR.into(),
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

/// The port a configuration file the charm wrote names, if it names one.
fn port_of(file: &[u8]) -> Option<u16> {
    String::from_utf8_lossy(file).lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "port").then(|| value.trim().parse().ok())?
    })
}

/// The checked config, or the blocked status saying what is wrong with it.
fn configured() -> Result<Result<Wanted, Status>, Error> {
    let config: Config = model::load_config()?;
    Ok(check(config).map_err(Status::blocked))
}

fn pebble_error(e: PebbleError, what: &str) -> Error {
    Error::from(e).context(what.to_string())
}

/// What a running server needs once its file is what the config asks.
#[derive(Debug, PartialEq)]
enum Change {
    /// The file is as it was.
    None,
    /// Only what the server reads again on SIGHUP changed (the greeting).
    Reload,
    /// It must listen elsewhere, or its old file was not the charm's.
    Restart,
}

// ---------------------------------------------------------------------------
// The handlers.

/// Bring the container to what the config asks: file, layer, running server.
fn configure(event: &Event) -> Outcome {
    let reload_asked = reload_asked(event)?;
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
    let change = match push_config(&web, &wanted)? {
        Ok(change) => change,
        // The server keeps the file it has, and runs on with it.
        Err(refused) => return Ok(Some(refused)),
    };
    let was_running = web
        .get_services(&[SERVICE])
        .map_err(|e| pebble_error(e, "cannot read the services of web"))?
        .iter()
        .any(|s| s.is_running());
    web.add_layer(SERVICE, &wanted.layer(), AddLayerOptions { combine: true })
        .map_err(|e| pebble_error(e, "cannot add the web layer"))?;
    // Starts the server if it is not running (it reads the new file then);
    // restarts it if its service's definition changed (a new charm
    // revision's layer).
    web.replan()
        .map_err(|e| pebble_error(e, "cannot replan web"))?;
    if !was_running {
        return Ok(None);
    }
    match change {
        Change::Restart => {
            log::info(format!("restarting {SERVICE}: its port changed"));
            web.restart(&[SERVICE])
                .map_err(|e| pebble_error(e, "cannot restart web"))?;
        }
        Change::Reload => reload(&web, &format!("{CONFIG_FILE} changed"))?,
        Change::None if reload_asked => reload(&web, "the workload asked")?,
        Change::None => {}
    }
    Ok(None)
}

/// Whether `event` is the workload's notice asking for a reload; its
/// reason (the notice's data) is logged. Other notices are not the
/// charm's: the handler only makes sure the container is as the config
/// asks.
fn reload_asked(event: &Event) -> Result<bool, Error> {
    let Event::PebbleCustomNotice(n) = event else {
        return Ok(false);
    };
    if n.key != RELOAD_NOTICE {
        log::debug(format!(
            "notice {} of {}: not the charm's",
            n.key, n.container
        ));
        return Ok(false);
    }
    let notice = n
        .notice()
        .map_err(|e| pebble_error(e, &format!("cannot read notice {} of web", n.id)))?;
    let reason = notice.data("reason").unwrap_or("no reason given");
    log::info(format!(
        "the workload asks for a reload ({reason}; notice {}, {} times)",
        notice.id, notice.occurrences
    ));
    Ok(true)
}

/// Have the running server read its file again.
fn reload(web: &pebble::Container, why: &str) -> Result<(), Error> {
    log::info(format!("reloading {SERVICE} ({RELOAD_SIGNAL}): {why}"));
    web.send_signal(RELOAD_SIGNAL, &[SERVICE])
        .map_err(|e| pebble_error(e, &format!("cannot send {RELOAD_SIGNAL} to web")))
}

/// Push the configuration file for `wanted` unless the container has exactly
/// it already, once the server accepts it: what a running server needs, or
/// the blocked status saying why the server refuses it.
fn push_config(web: &pebble::Container, wanted: &Wanted) -> Result<Result<Change, Status>, Error> {
    let text = wanted.render();
    let change = match web.pull(CONFIG_FILE) {
        Ok(old) if old == text.as_bytes() => return Ok(Ok(Change::None)),
        Ok(old) if port_of(&old) == Some(wanted.port) => Change::Reload,
        Ok(_) => Change::Restart,
        Err(e) if e.kind() == Some(ApiErrorKind::NotFound) => Change::Restart,
        Err(e) => return Err(pebble_error(e, &format!("cannot read {CONFIG_FILE}"))),
    };
    if let Err(refused) = validate(web, &text)? {
        return Ok(Err(refused));
    }
    // The server's own directory and file: it may read them, others not.
    let dir = MakeDirOptions {
        make_parents: true,
        permissions: Some(0o750),
        user_id: Some(SERVER_ID),
        group_id: Some(SERVER_ID),
        ..Default::default()
    };
    web.make_dir(CONFIG_DIR, dir)
        .map_err(|e| pebble_error(e, &format!("cannot make {CONFIG_DIR}")))?;
    let file = PushOptions {
        permissions: Some(0o640),
        user_id: Some(SERVER_ID),
        group_id: Some(SERVER_ID),
        ..Default::default()
    };
    web.push(CONFIG_FILE, &text, file)
        .map_err(|e| pebble_error(e, &format!("cannot write {CONFIG_FILE}")))?;
    log::info(format!("pushed {CONFIG_FILE} (port {})", wanted.port));
    Ok(Ok(change))
}

/// Have the server check `text` before it replaces its file: the declared
/// command `validate-config` reads it on stdin, as the server would run,
/// with its complaints (stderr) in its output. Refused: blocked, with the
/// server's first words; the whole output in the log.
fn validate(web: &pebble::Container, text: &str) -> Result<Result<(), Status>, Error> {
    let output = web
        .exec_with(VALIDATE_CONFIG, &[], &as_the_server(text, true))
        .map_err(|e| pebble_error(e, &format!("cannot run {VALIDATE_CONFIG} in web")))?;
    if output.success() {
        return Ok(Ok(()));
    }
    let said = output.stdout_text();
    let said = said.trim();
    let how = match output.exit {
        Exit::Code(code) => format!("exit {code}"),
        Exit::Signal(signal) => format!("killed by signal {signal}"),
        Exit::TimedOut => "timed out".to_string(),
    };
    log::warning(format!(
        "web-server refuses the new {CONFIG_FILE} ({how}); the old one stays: {said}"
    ));
    let first = said.lines().next().unwrap_or("no reason given");
    Ok(Err(Status::blocked(format!(
        "web-server refuses the configuration: {first}"
    ))))
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

/// The `check-config` action: the server reads its file back, as it runs.
fn check_config(_event: &Event) -> Outcome {
    let web = pebble::get_container(CONTAINER);
    let output = web
        .exec_with(CHECK_CONFIG, &[], &as_the_server("", false))
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
            "    user-id: 584792\n",
            "    group-id: 584792\n",
            "      LANG: C.UTF-8\n",
            "    working-dir: /\n",
        ] {
            assert!(layer.contains(line), "{line:?} in\n{layer}");
        }
    }

    #[test]
    fn the_port_is_read_back_from_a_file_the_charm_wrote() {
        let wanted = check(config(9000, "Hi")).expect("usable");
        assert_eq!(port_of(wanted.render().as_bytes()), Some(9000));
        assert_eq!(port_of(b"greeting = port = 1\n"), None);
        assert_eq!(port_of(b"port = many\n"), None);
        assert_eq!(port_of(b""), None);
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
