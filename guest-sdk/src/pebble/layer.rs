//! Pebble's layers and plans as types, with the fields Pebble's layer
//! specification gives them and ops' names: [`Layer`], [`Plan`],
//! [`Service`], [`Check`] (with [`HttpCheck`], [`TcpCheck`],
//! [`ExecCheck`]) and [`LogTarget`].
//!
//! Field names are Pebble's, dashes as underscores (`on-check-failure` is
//! `on_check_failure`); `override` and `type` are Rust keywords, so they
//! are `r#override` and `r#type`. Text fields left empty, empty lists and
//! maps, and `None`s are left out of the YAML, as Pebble leaves them out of
//! its own. Durations are Pebble's text (`10s`, `1m30s`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::CheckLevel;
use super::yaml::{self, Writer, YamlError};

/// How an entry of a layer combines with the same entry of earlier layers
/// (`override:`, which Pebble requires of every service, check and log
/// target of a layer). [`Replace`](Override::Replace) unless said
/// otherwise.
///
/// ```
/// use wasm_charm::pebble::{Override, Service};
///
/// assert_eq!(Service::default().r#override, Override::Replace);
/// let tweak = Service { r#override: Override::Merge, ..Default::default() };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Override {
    /// Field by field: maps merged, lists appended, other values replaced.
    Merge,
    /// The whole entry replaces the earlier one.
    #[default]
    Replace,
}

/// Whether Pebble starts a service at boot and on `replan` (`startup:`).
///
/// ```
/// use wasm_charm::pebble::{Service, ServiceStartup};
///
/// let web = Service { startup: Some(ServiceStartup::Enabled), ..Default::default() };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServiceStartup {
    /// Started by Pebble.
    Enabled,
    /// Started only when asked (Pebble's default).
    Disabled,
}

/// What Pebble does when a service exits or one of its checks fails
/// (`on-success:`, `on-failure:`, `on-check-failure:`).
///
/// ```
/// use wasm_charm::pebble::{Service, ServiceAction};
///
/// let web = Service {
///     on_check_failure: [("alive".to_string(), ServiceAction::Restart)].into(),
///     ..Default::default()
/// };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceAction {
    /// Restart the service, with back-off (Pebble's default).
    Restart,
    /// Shut Pebble down.
    Shutdown,
    /// Leave the service stopped.
    Ignore,
    /// Shut Pebble down, with a success exit code (`on-success` only).
    SuccessShutdown,
    /// Shut Pebble down, with a failure exit code (`on-failure` only).
    FailureShutdown,
}

/// Whether Pebble runs a check from the start (`startup:` of a check).
///
/// ```
/// use wasm_charm::pebble::{Check, CheckStartup};
///
/// let manual = Check { startup: Some(CheckStartup::Disabled), ..Default::default() };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStartup {
    /// Run from the start (Pebble's default).
    Enabled,
    /// Run only when started.
    Disabled,
}

/// Where a log target sends the services' logs (`type:`).
///
/// ```
/// use wasm_charm::pebble::{LogTarget, LogTargetType};
///
/// let loki = LogTarget { r#type: Some(LogTargetType::Loki), ..Default::default() };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogTargetType {
    /// Grafana Loki's push API.
    Loki,
    /// OpenTelemetry's OTLP/HTTP logs API.
    #[serde(rename = "opentelemetry")]
    OpenTelemetry,
    /// Syslog.
    Syslog,
}

fn is_zero(n: &u16) -> bool {
    *n == 0
}

/// A service of a layer (Pebble's `services.<name>`; ops'
/// `pebble.Service`).
///
/// ```
/// use wasm_charm::pebble::{Service, ServiceStartup};
///
/// let web = Service {
///     summary: "the web server".into(),
///     command: "/usr/bin/web --port 8080".into(),
///     startup: Some(ServiceStartup::Enabled),
///     environment: [("LANG".to_string(), "C.UTF-8".to_string())].into(),
///     ..Default::default()
/// };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Service {
    /// A short description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// A longer description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// How it combines with the same service of earlier layers.
    pub r#override: Override,
    /// The command line (Pebble splits it as a shell would; `[ … ]` holds
    /// default arguments that `pebble run --args` may replace).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Whether Pebble starts it at boot and on replan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<ServiceStartup>,
    /// Services it starts after.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
    /// Services it starts before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    /// Services started with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// Its environment variables.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub environment: BTreeMap<String, String>,
    /// The user it runs as, by name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// The user it runs as, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<u32>,
    /// The group it runs as, by name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// The group it runs as, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_id: Option<u32>,
    /// Its working directory.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub working_dir: String,
    /// What Pebble does when it exits with code 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_success: Option<ServiceAction>,
    /// What Pebble does when it exits otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<ServiceAction>,
    /// What Pebble does when a check fails, by check name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub on_check_failure: BTreeMap<String, ServiceAction>,
    /// The first back-off delay (`500ms`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub backoff_delay: String,
    /// What each back-off delay is multiplied by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backoff_factor: Option<f64>,
    /// The longest back-off delay (`30s`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub backoff_limit: String,
    /// How long Pebble waits after SIGTERM before SIGKILL (`5s`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kill_delay: String,
}

/// An HTTP check: up while `url` answers 2xx.
///
/// ```
/// use wasm_charm::pebble::HttpCheck;
///
/// let http = HttpCheck { url: "http://localhost:8080/healthz".into(), ..Default::default() };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct HttpCheck {
    /// The URL asked.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// Headers sent with the request.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// A TCP check: up while a connection to `host:port` opens.
///
/// ```
/// use wasm_charm::pebble::TcpCheck;
///
/// let tcp = TcpCheck { port: 5432, ..Default::default() };
/// assert_eq!(tcp.host, ""); // Pebble's default: localhost
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct TcpCheck {
    /// The port.
    #[serde(skip_serializing_if = "is_zero")]
    pub port: u16,
    /// The host; Pebble's default is `localhost`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host: String,
}

/// An exec check: up while `command` exits with code 0.
///
/// ```
/// use wasm_charm::pebble::ExecCheck;
///
/// let exec = ExecCheck {
///     command: "pg_isready".into(),
///     service_context: "postgresql".into(),
///     ..Default::default()
/// };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct ExecCheck {
    /// The command line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// A service whose environment, user, group and working directory the
    /// command inherits.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub service_context: String,
    /// Its environment variables.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub environment: BTreeMap<String, String>,
    /// The user it runs as, by name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// The user it runs as, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<u32>,
    /// The group it runs as, by name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// The group it runs as, by id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_id: Option<u32>,
    /// Its working directory.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub working_dir: String,
}

/// A health check of a layer (Pebble's `checks.<name>`; ops'
/// `pebble.Check`): one of `http`, `tcp` or `exec`.
///
/// ```
/// use wasm_charm::pebble::{Check, CheckLevel, HttpCheck};
///
/// let alive = Check {
///     level: Some(CheckLevel::Alive),
///     period: "10s".into(),
///     threshold: Some(3),
///     http: Some(HttpCheck { url: "http://localhost:8080/healthz".into(), ..Default::default() }),
///     ..Default::default()
/// };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Check {
    /// How it combines with the same check of earlier layers.
    pub r#override: Override,
    /// `alive` or `ready`, for Pebble's health endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<CheckLevel>,
    /// Whether it runs from the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<CheckStartup>,
    /// How often it runs (`10s`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub period: String,
    /// How long one run may take (`3s`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub timeout: String,
    /// Failures in a row after which it is down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    /// An HTTP check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpCheck>,
    /// A TCP check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpCheck>,
    /// An exec check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecCheck>,
}

/// Where Pebble forwards services' logs (Pebble's `log-targets.<name>`;
/// ops' `pebble.LogTarget`).
///
/// ```
/// use wasm_charm::pebble::{LogTarget, LogTargetType};
///
/// let loki = LogTarget {
///     r#type: Some(LogTargetType::Loki),
///     location: "http://loki:3100/loki/api/v1/push".into(),
///     services: vec!["all".into()],
///     labels: [("product".to_string(), "web".to_string())].into(),
///     ..Default::default()
/// };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct LogTarget {
    /// How it combines with the same target of earlier layers.
    pub r#override: Override,
    /// The protocol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#type: Option<LogTargetType>,
    /// The server's address.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub location: String,
    /// The services whose logs go there (`all`, or names; `-name` removes
    /// one a lower layer added).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
    /// Labels sent with every log line.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

/// A Pebble layer (ops' `pebble.Layer`): what
/// [`Container::add_layer`](super::Container::add_layer) adds.
///
/// ```
/// use wasm_charm::pebble::{Layer, Service, ServiceStartup};
///
/// let layer = Layer {
///     summary: "web layer".into(),
///     services: [(
///         "web".to_string(),
///         Service {
///             command: "/usr/bin/web".into(),
///             startup: Some(ServiceStartup::Enabled),
///             ..Default::default()
///         },
///     )]
///     .into(),
///     ..Default::default()
/// };
/// assert!(layer.to_yaml().contains("    command: /usr/bin/web\n"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Layer {
    /// A short description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// A longer description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Its services, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, Service>,
    /// Its checks, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, Check>,
    /// Its log targets, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub log_targets: BTreeMap<String, LogTarget>,
}

/// The plan: every layer combined (ops' `pebble.Plan`), as
/// [`Container::get_plan`](super::Container::get_plan) reads it.
///
/// ```
/// use wasm_charm::pebble::Plan;
///
/// let plan = Plan::from_yaml("services:\n    web:\n        override: replace\n        command: web\n")?;
/// assert_eq!(plan.services["web"].command, "web");
/// # Ok::<(), wasm_charm::pebble::YamlError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", default)]
pub struct Plan {
    /// The services, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, Service>,
    /// The checks, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, Check>,
    /// The log targets, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub log_targets: BTreeMap<String, LogTarget>,
}

impl Override {
    fn name(self) -> &'static str {
        match self {
            Override::Merge => "merge",
            Override::Replace => "replace",
        }
    }
}

impl ServiceStartup {
    fn name(self) -> &'static str {
        match self {
            ServiceStartup::Enabled => "enabled",
            ServiceStartup::Disabled => "disabled",
        }
    }
}

impl CheckStartup {
    fn name(self) -> &'static str {
        match self {
            CheckStartup::Enabled => "enabled",
            CheckStartup::Disabled => "disabled",
        }
    }
}

impl ServiceAction {
    fn name(self) -> &'static str {
        match self {
            ServiceAction::Restart => "restart",
            ServiceAction::Shutdown => "shutdown",
            ServiceAction::Ignore => "ignore",
            ServiceAction::SuccessShutdown => "success-shutdown",
            ServiceAction::FailureShutdown => "failure-shutdown",
        }
    }
}

impl LogTargetType {
    fn name(self) -> &'static str {
        match self {
            LogTargetType::Loki => "loki",
            LogTargetType::OpenTelemetry => "opentelemetry",
            LogTargetType::Syslog => "syslog",
        }
    }
}

fn level_name(level: CheckLevel) -> &'static str {
    match level {
        CheckLevel::Alive => "alive",
        CheckLevel::Ready => "ready",
    }
}

// The YAML is written field by field, in Pebble's order, rather than
// through `Serialize`: a charm that writes a layer then carries no
// serializer. The names and the fields left out are those of the serde
// attributes above; the tests read the YAML back through `Deserialize`.

impl Service {
    fn write(&self, w: &mut Writer) {
        w.text("summary", &self.summary);
        w.text("description", &self.description);
        w.plain("override", Some(self.r#override.name()));
        w.text("command", &self.command);
        w.plain("startup", self.startup.map(ServiceStartup::name));
        w.list("after", &self.after);
        w.list("before", &self.before);
        w.list("requires", &self.requires);
        w.map("environment", &self.environment);
        w.text("user", &self.user);
        w.plain("user-id", self.user_id);
        w.text("group", &self.group);
        w.plain("group-id", self.group_id);
        w.text("working-dir", &self.working_dir);
        w.plain("on-success", self.on_success.map(ServiceAction::name));
        w.plain("on-failure", self.on_failure.map(ServiceAction::name));
        w.entries(
            "on-check-failure",
            &self.on_check_failure,
            |w, check, action| w.plain(check, Some(action.name())),
        );
        w.text("backoff-delay", &self.backoff_delay);
        w.plain("backoff-factor", self.backoff_factor.map(Float));
        w.text("backoff-limit", &self.backoff_limit);
        w.text("kill-delay", &self.kill_delay);
    }
}

/// A float as YAML reads one back as a float (`2.0`, not `2`).
struct Float(f64);

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Check {
    fn write(&self, w: &mut Writer) {
        w.plain("override", Some(self.r#override.name()));
        w.plain("level", self.level.map(level_name));
        w.plain("startup", self.startup.map(CheckStartup::name));
        w.text("period", &self.period);
        w.text("timeout", &self.timeout);
        w.plain("threshold", self.threshold);
        if let Some(http) = &self.http {
            w.section("http", |w| {
                w.text("url", &http.url);
                w.map("headers", &http.headers);
            });
        }
        if let Some(tcp) = &self.tcp {
            w.section("tcp", |w| {
                w.plain("port", (tcp.port != 0).then_some(tcp.port));
                w.text("host", &tcp.host);
            });
        }
        if let Some(exec) = &self.exec {
            w.section("exec", |w| {
                w.text("command", &exec.command);
                w.text("service-context", &exec.service_context);
                w.map("environment", &exec.environment);
                w.text("user", &exec.user);
                w.plain("user-id", exec.user_id);
                w.text("group", &exec.group);
                w.plain("group-id", exec.group_id);
                w.text("working-dir", &exec.working_dir);
            });
        }
    }
}

impl LogTarget {
    fn write(&self, w: &mut Writer) {
        w.plain("override", Some(self.r#override.name()));
        w.plain("type", self.r#type.map(LogTargetType::name));
        w.text("location", &self.location);
        w.list("services", &self.services);
        w.map("labels", &self.labels);
    }
}

/// The services, checks and log targets of a layer or a plan.
fn write_entries(
    w: &mut Writer,
    services: &BTreeMap<String, Service>,
    checks: &BTreeMap<String, Check>,
    log_targets: &BTreeMap<String, LogTarget>,
) {
    w.entries("services", services, |w, name, service| {
        w.section(name, |w| service.write(w))
    });
    w.entries("checks", checks, |w, name, check| {
        w.section(name, |w| check.write(w))
    });
    w.entries("log-targets", log_targets, |w, name, target| {
        w.section(name, |w| target.write(w))
    });
}

impl Layer {
    /// The layer as YAML, as Pebble reads it (ops' `Layer.to_yaml`).
    ///
    /// ```
    /// use wasm_charm::pebble::{Check, Layer, TcpCheck};
    ///
    /// let layer = Layer {
    ///     checks: [("db".to_string(), Check { tcp: Some(TcpCheck { port: 5432, ..Default::default() }), ..Default::default() })].into(),
    ///     ..Default::default()
    /// };
    /// assert_eq!(layer.to_yaml(), "checks:\n  db:\n    override: replace\n    tcp:\n      port: 5432\n");
    /// ```
    pub fn to_yaml(&self) -> String {
        let mut w = Writer::new();
        w.text("summary", &self.summary);
        w.text("description", &self.description);
        write_entries(&mut w, &self.services, &self.checks, &self.log_targets);
        w.finish()
    }

    /// A layer written in YAML (ops' `Layer(yaml_text)`).
    ///
    /// ```
    /// use wasm_charm::pebble::{Layer, ServiceStartup};
    ///
    /// let layer = Layer::from_yaml("
    /// services:
    ///   web:
    ///     override: replace
    ///     command: /usr/bin/web
    ///     startup: enabled
    /// ")?;
    /// assert_eq!(layer.services["web"].startup, Some(ServiceStartup::Enabled));
    /// # Ok::<(), wasm_charm::pebble::YamlError>(())
    /// ```
    pub fn from_yaml(text: &str) -> Result<Layer, YamlError> {
        yaml::from_str(text)
    }
}

/// The layer's YAML.
///
/// ```
/// let layer = wasm_charm::pebble::Layer { summary: "empty".into(), ..Default::default() };
/// assert_eq!(layer.to_string(), "summary: empty\n");
/// ```
impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml())
    }
}

impl Plan {
    /// The plan as YAML (ops' `Plan.to_yaml`).
    ///
    /// ```
    /// use wasm_charm::pebble::{Plan, Service};
    ///
    /// let mut plan = Plan::default();
    /// plan.services.insert("web".into(), Service { command: "web".into(), ..Default::default() });
    /// assert_eq!(plan.to_yaml(), "services:\n  web:\n    override: replace\n    command: web\n");
    /// ```
    pub fn to_yaml(&self) -> String {
        let mut w = Writer::new();
        write_entries(&mut w, &self.services, &self.checks, &self.log_targets);
        w.finish()
    }

    /// A plan written in YAML, as Pebble's `GET /v1/plan?format=yaml`
    /// gives it.
    ///
    /// ```
    /// let plan = wasm_charm::pebble::Plan::from_yaml("checks:\n  up:\n    override: replace\n    threshold: 1\n")?;
    /// assert_eq!(plan.checks["up"].threshold, Some(1));
    /// # Ok::<(), wasm_charm::pebble::YamlError>(())
    /// ```
    pub fn from_yaml(text: &str) -> Result<Plan, YamlError> {
        yaml::from_str(text)
    }
}

/// The plan's YAML.
///
/// ```
/// assert_eq!(wasm_charm::pebble::Plan::default().to_string(), "{}\n");
/// ```
impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml())
    }
}

#[cfg(test)]
#[path = "layer_tests.rs"]
mod tests;
