//! wasm-charm.yaml, the runtime manifest: which component to run, what a
//! handler's `Err` means, the sandbox limits, the ready message and the
//! readiness probes, and the workload a handler may touch.

use super::probes::{ProbeSpec, Raw, parse_probes};
use super::recording::{Bounds, parse_bounds};
use super::workload::{RawWorkload, Workload, parse_workload};
use super::{CharmFileError, parse_yaml};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const FILE_NAME: &str = "wasm-charm.yaml";

/// What a handler returning `Err(msg)` does (DESIGN §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnError {
    /// The handler's scope becomes blocked(msg); the hook succeeds.
    #[default]
    Block,
    /// The hook fails (non-zero exit); Juju shows `error` and retries.
    Fail,
}

/// Where the scope store is kept (DESIGN §6; `status::store_choice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StoreChoice {
    /// `juju` on Kubernetes, `local` on machines.
    #[default]
    Auto,
    /// A file in the charm directory.
    Local,
    /// Juju's server-side charm state (`state-get` / `state-set`).
    Juju,
}

impl StoreChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            StoreChoice::Auto => "auto",
            StoreChoice::Local => "local",
            StoreChoice::Juju => "juju",
        }
    }
}

/// Sandbox bounds of every handler instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Linear memory of one instance, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock time of one handler, host calls included.
    pub handler_timeout: Duration,
    /// Whether `handler_timeout` is the handler's own deadline, for the
    /// message that names the field to raise.
    pub own_timeout: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 64 << 20,
            handler_timeout: Duration::from_secs(30),
            own_timeout: false,
        }
    }
}

/// The validated manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The component, relative to the charm directory.
    pub component: PathBuf,
    pub on_error: OnError,
    /// The unit's message while no scope is a problem.
    pub ready_message: String,
    pub limits: Limits,
    /// Handlers with a deadline of their own (`limits.handlers.<name>.
    /// timeout-ms`), by name: a migration or an action may need longer than
    /// every other handler.
    pub handler_timeouts: BTreeMap<String, Duration>,
    /// The readiness probes declared (DESIGN §5), by name.
    pub probes: BTreeMap<String, ProbeSpec>,
    /// What a handler may change on the machine (DESIGN §12).
    pub workload: Workload,
    /// Where the scope store is kept.
    pub store: StoreChoice,
    /// Whether events are recorded for `wasm-charm replay`, and how many.
    pub record: Option<Bounds>,
}

impl Manifest {
    /// The limits of handler `name`: the manifest's, with its own deadline
    /// when it has one.
    pub fn limits_of(&self, name: &str) -> Limits {
        let mut limits = self.limits;
        if let Some(t) = self.handler_timeouts.get(name) {
            limits.handler_timeout = *t;
            limits.own_timeout = true;
        }
        limits
    }

    /// The longest deadline any of `handlers` runs under.
    pub fn longest_deadline<'a>(&self, handlers: impl IntoIterator<Item = &'a str>) -> Duration {
        handlers
            .into_iter()
            .map(|h| self.limits_of(h).handler_timeout)
            .max()
            .unwrap_or(self.limits.handler_timeout)
    }
}

impl Default for Manifest {
    fn default() -> Self {
        Manifest {
            component: PathBuf::from("charm.wasm"),
            on_error: OnError::default(),
            ready_message: String::new(),
            limits: Limits::default(),
            handler_timeouts: BTreeMap::new(),
            probes: BTreeMap::new(),
            workload: Workload::default(),
            store: StoreChoice::default(),
            record: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawManifest {
    component: Option<PathBuf>,
    #[serde(default)]
    on_error: OnError,
    #[serde(default)]
    ready_message: String,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default)]
    probes: BTreeMap<String, Raw>,
    #[serde(default)]
    workload: RawWorkload,
    store: Option<String>,
    /// `true`, `false` or `{events, bytes}`: read by [`parse_bounds`].
    record: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawLimits {
    memory_mib: Option<u64>,
    handler_timeout_ms: Option<u64>,
    #[serde(default)]
    handlers: BTreeMap<String, RawHandlerLimits>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawHandlerLimits {
    timeout_ms: u64,
}

/// Bounds that keep a limit meaningful: a guest needs some memory to start,
/// and a handler that may run for hours blocks every other hook of the machine.
const MEMORY_MIB: std::ops::RangeInclusive<u64> = 1..=4096;
const TIMEOUT_MS: std::ops::RangeInclusive<u64> = 1..=3_600_000;

impl Manifest {
    pub fn parse(text: &str, file: &Path) -> Result<Manifest, CharmFileError> {
        let raw: RawManifest = parse_yaml(text, file)?;
        let mut manifest = Manifest::default();
        if let Some(component) = raw.component {
            if component.as_os_str().is_empty()
                || component.is_absolute()
                || component
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir))
            {
                return Err(CharmFileError::new(
                    file,
                    format!(
                        "field `component`: `{}` must be a relative path inside the charm directory",
                        component.display()
                    ),
                ));
            }
            manifest.component = component;
        }
        manifest.on_error = raw.on_error;
        manifest.ready_message = raw.ready_message;
        if let Some(mib) = raw.limits.memory_mib {
            if !MEMORY_MIB.contains(&mib) {
                return Err(CharmFileError::new(
                    file,
                    format!("field `limits.memory-mib`: {mib} is outside {MEMORY_MIB:?}"),
                ));
            }
            manifest.limits.memory_bytes = (mib as usize) << 20;
        }
        if let Some(ms) = raw.limits.handler_timeout_ms {
            if !TIMEOUT_MS.contains(&ms) {
                return Err(CharmFileError::new(
                    file,
                    format!("field `limits.handler-timeout-ms`: {ms} is outside {TIMEOUT_MS:?}"),
                ));
            }
            manifest.limits.handler_timeout = Duration::from_millis(ms);
        }
        for (name, own) in raw.limits.handlers {
            if !TIMEOUT_MS.contains(&own.timeout_ms) {
                return Err(CharmFileError::new(
                    file,
                    format!(
                        "field `limits.handlers.{name}.timeout-ms`: {} is outside {TIMEOUT_MS:?}",
                        own.timeout_ms
                    ),
                ));
            }
            manifest
                .handler_timeouts
                .insert(name, Duration::from_millis(own.timeout_ms));
        }
        manifest.probes =
            parse_probes(raw.probes).map_err(|e| CharmFileError::new(file, e.to_string()))?;
        manifest.workload =
            parse_workload(raw.workload).map_err(|e| CharmFileError::new(file, e))?;
        if let Some(store) = raw.store {
            manifest.store = match store.as_str() {
                "auto" => StoreChoice::Auto,
                "local" => StoreChoice::Local,
                "juju" => StoreChoice::Juju,
                other => {
                    return Err(CharmFileError::new(
                        file,
                        format!("field `store`: `{other}` is not one of auto, local, juju"),
                    ));
                }
            };
        }
        if let Some(record) = &raw.record {
            manifest.record = parse_bounds(record).map_err(|e| CharmFileError::new(file, e))?;
        }
        Ok(manifest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, CharmFileError> {
        Manifest::parse(text, Path::new("wasm-charm.yaml"))
    }

    #[test]
    fn defaults_and_fields() {
        assert_eq!(parse("").unwrap(), Manifest::default());
        let m = parse(
            "component: build/gw.wasm\non-error: fail\nready-message: Ready\nlimits:\n  memory-mib: 32\n  handler-timeout-ms: 1500\n",
        )
        .unwrap();
        assert_eq!(m.component, PathBuf::from("build/gw.wasm"));
        assert_eq!(m.on_error, OnError::Fail);
        assert_eq!(m.ready_message, "Ready");
        assert_eq!(m.limits.memory_bytes, 32 << 20);
        assert_eq!(m.limits.handler_timeout, Duration::from_millis(1500));
    }

    #[test]
    fn bad_input_names_file_and_field() {
        let e = parse("on-error: explode\n").unwrap_err().to_string();
        assert!(e.starts_with("wasm-charm.yaml: "), "{e}");
        assert!(e.contains("explode"), "{e}");
        let e = parse("limits: {memory-mib: 0}\n").unwrap_err().to_string();
        assert!(e.contains("limits.memory-mib"), "{e}");
        let e = parse("component: ../x.wasm\n").unwrap_err().to_string();
        assert!(e.contains("field `component`"), "{e}");
        let e = parse("componnet: x.wasm\n").unwrap_err().to_string();
        assert!(e.contains("componnet"), "{e}");
    }

    #[test]
    fn record_is_a_switch_or_bounds() {
        assert_eq!(parse("record: false\n").unwrap().record, None);
        assert_eq!(
            parse("record: true\n").unwrap().record,
            Some(Bounds::default())
        );
        assert_eq!(
            parse("record: {events: 3, bytes: 65536}\n").unwrap().record,
            Some(Bounds {
                events: 3,
                bytes: 65536
            })
        );
        let e = parse("record: {events: -1}\n").unwrap_err().to_string();
        assert!(
            e.starts_with("wasm-charm.yaml: field `record.events`: -1"),
            "{e}"
        );
    }

    #[test]
    fn store_is_auto_local_or_juju() {
        assert_eq!(parse("").unwrap().store, StoreChoice::Auto);
        for (text, store) in [
            ("store: auto\n", StoreChoice::Auto),
            ("store: local\n", StoreChoice::Local),
            ("store: juju\n", StoreChoice::Juju),
        ] {
            assert_eq!(parse(text).unwrap().store, store, "{text}");
            assert_eq!(format!("store: {}\n", store.as_str()), text);
        }
        for bad in ["store: Juju\n", "store: file\n", "store: ''\n"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("wasm-charm.yaml: field `store`: `")
                    && e.contains("auto, local, juju"),
                "{bad}: {e}"
            );
        }
    }
}
