//! Probe declarations: the `probes:` section of wasm-charm.yaml (DESIGN §5),
//! validated once into typed values. Every error names the probe and the
//! field; the manifest's parser adds the file.
//!
//! The section is read as plain YAML values and checked here, key by key,
//! rather than through derived serde types: a derived error says "invalid
//! type: integer, expected a string" without saying which probe.

use crate::duration::{parse_duration, show_duration};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::net::Ipv6Addr;
use std::time::Duration;

/// At most this many probes: each gated one runs, on a thread of its own, at
/// every event.
pub const MAX_PROBES: usize = 64;
/// Longest probe name: a DNS label's bound, so `probe/<name>` stays short.
pub const MAX_NAME: usize = 63;
/// Per-attempt timeout bounds.
pub const TIMEOUT: (Duration, Duration) = (Duration::from_millis(1), Duration::from_secs(60));
/// At most this many extra attempts after a failed one.
pub const MAX_RETRIES: u32 = 10;
/// Longest wait before the first retry (later ones double it).
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Longest grace period.
pub const MAX_GRACE: Duration = Duration::from_secs(24 * 3600);
/// Longest string a target or a body match may be.
const MAX_TARGET: usize = 1024;

/// One declared probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeSpec {
    pub target: Target,
    pub expect: Expect,
    /// While a gated probe fails, the unit is not active. Only gated probes
    /// run at every event.
    pub gate: bool,
    /// Each attempt's own timeout.
    pub timeout: Duration,
    /// Extra attempts after a failed one.
    pub retries: u32,
    /// Wait before the first retry; doubled before each further one.
    pub backoff: Duration,
    /// How long a failing gated probe is maintenance before it is blocked.
    pub grace: Duration,
}

impl ProbeSpec {
    /// A probe of `target` with the defaults of DESIGN §5: expect up, gate,
    /// timeout 2s, retries 2, backoff 200ms, grace 60s.
    pub fn new(target: Target) -> Self {
        ProbeSpec {
            target,
            expect: Expect::Up,
            gate: true,
            timeout: Duration::from_secs(2),
            retries: 2,
            backoff: Duration::from_millis(200),
            grace: Duration::from_secs(60),
        }
    }
}

/// What a probe looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// `systemctl is-active <unit>`.
    Systemd { unit: String },
    /// A process whose `comm`, or base name of `argv[0]`, is `name`.
    Process { name: String },
    /// A TCP connect.
    Tcp(HostPort),
    /// An HTTP GET.
    Http(HttpTarget),
    /// A service of a container's Pebble plan (`GET /v1/services`): up
    /// while `current` is `active`.
    PebbleService { container: String, service: String },
    /// A health check of a container's Pebble (`GET /v1/checks`): up while
    /// its status is `up`.
    PebbleCheck { container: String, check: String },
}

impl fmt::Display for Target {
    /// What the probe watches, as its messages name it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Systemd { unit } => write!(f, "service {unit}"),
            Target::Process { name } => write!(f, "process {name}"),
            Target::Tcp(addr) => write!(f, "port {addr}"),
            Target::Http(http) => f.write_str(&http.url),
            Target::PebbleService { container, service } => {
                write!(f, "Pebble service {container}/{service}")
            }
            Target::PebbleCheck { container, check } => {
                write!(f, "Pebble check {container}/{check}")
            }
        }
    }
}

/// `host:port`; an IPv6 literal is kept without its brackets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostPort {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// An `http://` URL, split, and what its answer must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpTarget {
    /// The URL as declared.
    pub url: String,
    pub addr: HostPort,
    /// Path and query, `/` when the URL has none.
    pub path: String,
    /// The status that must answer; `None`: any 2xx.
    pub status: Option<u16>,
    /// A substring the body (its first 64 KiB) must contain.
    pub body: Option<String>,
}

/// Whether the target must be up, or down (a paused service really stopped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Expect {
    #[default]
    Up,
    Down,
}

/// A YAML value of the `probes:` section, as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Raw {
    Bool(bool),
    Int(i64),
    Str(String),
    Map(BTreeMap<String, Raw>),
    /// A list, a float, null: refused wherever it appears.
    Other(serde::de::IgnoredAny),
}

impl Raw {
    fn type_name(&self) -> &'static str {
        match self {
            Raw::Bool(_) => "a boolean",
            Raw::Int(_) => "an integer",
            Raw::Str(_) => "a string",
            Raw::Map(_) => "a mapping",
            Raw::Other(_) => "a list, a fraction or null",
        }
    }
}

/// What is wrong with one field of one probe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("probe `{probe}`{}: {message}", field.as_ref().map(|f| format!(", field `{f}`")).unwrap_or_default())]
pub struct SpecError {
    pub probe: String,
    pub field: Option<String>,
    pub message: String,
}

const TARGET_KEYS: [&str; 6] = [
    "systemd",
    "process",
    "tcp",
    "http",
    "pebble-service",
    "pebble-check",
];
const OTHER_KEYS: [&str; 6] = ["expect", "gate", "timeout", "retries", "backoff", "grace"];

/// Validate the `probes:` section (a map of name to declaration).
pub(crate) fn parse_probes(
    raw: BTreeMap<String, Raw>,
) -> Result<BTreeMap<String, ProbeSpec>, SpecError> {
    if raw.len() > MAX_PROBES {
        return Err(SpecError {
            probe: raw.keys().nth(MAX_PROBES).cloned().unwrap_or_default(),
            field: None,
            message: format!(
                "{} probes are declared; at most {MAX_PROBES} are allowed",
                raw.len()
            ),
        });
    }
    raw.into_iter()
        .map(|(name, value)| {
            let spec = parse_probe(&name, value)?;
            Ok((name, spec))
        })
        .collect()
}

fn parse_probe(name: &str, value: Raw) -> Result<ProbeSpec, SpecError> {
    let err = |field: Option<&str>, message: String| SpecError {
        probe: name.to_string(),
        field: field.map(str::to_string),
        message,
    };
    check_probe_name(name).map_err(|m| err(None, m))?;
    let Raw::Map(fields) = value else {
        return Err(err(
            None,
            format!(
                "expected a mapping with one target key ({}), found {}",
                TARGET_KEYS.join(", "),
                value.type_name()
            ),
        ));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !TARGET_KEYS.contains(&k.as_str()) && !OTHER_KEYS.contains(&k.as_str()))
    {
        return Err(err(
            Some(unknown),
            format!(
                "unknown field; a probe has one of {} and optionally {}",
                TARGET_KEYS.join(", "),
                OTHER_KEYS.join(", ")
            ),
        ));
    }
    let key = target_key(&fields).map_err(|m| err(None, m))?;
    let target = parse_target(key, &fields[key]).map_err(|m| err(Some(key), m))?;
    let mut spec = ProbeSpec::new(target);
    for (field, value) in &fields {
        apply_setting(&mut spec, field, value).map_err(|m| err(Some(field), m))?;
    }
    Ok(spec)
}

fn check_probe_name(name: &str) -> Result<(), String> {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if name.is_empty() || name.len() > MAX_NAME || !name.bytes().all(allowed) {
        return Err(format!(
            "a probe name is 1 to {MAX_NAME} of a-z, 0-9 and `-`"
        ));
    }
    Ok(())
}

/// The one target key a declaration has.
fn target_key(fields: &BTreeMap<String, Raw>) -> Result<&'static str, String> {
    let targets: Vec<&'static str> = TARGET_KEYS
        .iter()
        .copied()
        .filter(|k| fields.contains_key(*k))
        .collect();
    match targets.as_slice() {
        [key] => Ok(*key),
        [] => Err(format!("no target: give one of {}", TARGET_KEYS.join(", "))),
        several => Err(format!(
            "several targets ({}): a probe watches exactly one",
            several.join(", ")
        )),
    }
}

/// One of the settings beside the target (`OTHER_KEYS`); the target itself
/// is parsed on its own.
fn apply_setting(spec: &mut ProbeSpec, field: &str, value: &Raw) -> Result<(), String> {
    match field {
        "expect" => {
            spec.expect = match str_of(value)? {
                "up" => Expect::Up,
                "down" => Expect::Down,
                other => return Err(format!("`{other}` is neither `up` nor `down`")),
            }
        }
        "gate" => {
            spec.gate = match value {
                Raw::Bool(b) => *b,
                other => {
                    return Err(format!(
                        "expected true or false, found {}",
                        other.type_name()
                    ));
                }
            }
        }
        "timeout" => spec.timeout = duration_in(value, TIMEOUT.0, TIMEOUT.1)?,
        "backoff" => spec.backoff = duration_in(value, Duration::ZERO, MAX_BACKOFF)?,
        "grace" => spec.grace = duration_in(value, Duration::ZERO, MAX_GRACE)?,
        "retries" => {
            spec.retries = match value {
                Raw::Int(n) if (0..=i64::from(MAX_RETRIES)).contains(n) => *n as u32,
                Raw::Int(n) => return Err(format!("{n} is outside 0..={MAX_RETRIES}")),
                other => return Err(format!("expected a count, found {}", other.type_name())),
            }
        }
        _ => {} // the target, parsed on its own
    }
    Ok(())
}

fn str_of(value: &Raw) -> Result<&str, String> {
    match value {
        Raw::Str(s) => Ok(s),
        other => Err(format!("expected a string, found {}", other.type_name())),
    }
}

fn parse_target(key: &str, value: &Raw) -> Result<Target, String> {
    if key == "http" {
        return parse_http(value).map(Target::Http);
    }
    let text = str_of(value)?;
    match key {
        "systemd" => parse_unit(text).map(|unit| Target::Systemd { unit }),
        "process" => parse_process(text).map(|name| Target::Process { name }),
        "tcp" => parse_host_port(text).map(Target::Tcp),
        "pebble-service" => parse_pebble(text)
            .map(|(container, service)| Target::PebbleService { container, service }),
        _ => parse_pebble(text).map(|(container, check)| Target::PebbleCheck { container, check }),
    }
}

/// `<container>/<name>`: a container of metadata.yaml (checked with it, in
/// [`check_containers`]) and a service or check name of its plan.
fn parse_pebble(text: &str) -> Result<(String, String), String> {
    let (container, name) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not <container>/<name> (e.g. web/web-server)"))?;
    let fine = |s: &str| {
        !s.is_empty()
            && s.len() <= 255
            && !s
                .bytes()
                .any(|b| b == b'/' || b == b',' || b.is_ascii_whitespace() || b.is_ascii_control())
    };
    if !fine(container) || !fine(name) {
        return Err(format!(
            "`{text}` is not <container>/<name>: each part is a name without `/`, `,` or spaces"
        ));
    }
    Ok((container.to_string(), name.to_string()))
}

/// Every Pebble probe names a container that metadata.yaml declares.
pub fn check_containers(
    specs: &BTreeMap<String, ProbeSpec>,
    containers: &[String],
) -> Result<(), SpecError> {
    for (name, spec) in specs {
        let (field, container) = match &spec.target {
            Target::PebbleService { container, .. } => ("pebble-service", container),
            Target::PebbleCheck { container, .. } => ("pebble-check", container),
            _ => continue,
        };
        if !containers.contains(container) {
            return Err(SpecError {
                probe: name.clone(),
                field: Some(field.to_string()),
                message: format!(
                    "container `{container}` is not declared in metadata.yaml `containers:` ({})",
                    if containers.is_empty() {
                        "none is".to_string()
                    } else {
                        containers.join(", ")
                    }
                ),
            });
        }
    }
    Ok(())
}

/// A unit name as `systemctl` takes it: no option (`-…`), no glob, no space.
fn parse_unit(unit: &str) -> Result<String, String> {
    if super::is_unit_name(unit) {
        Ok(unit.to_string())
    } else {
        Err(format!(
            "`{unit}` is not a systemd unit name (letters, digits and :_.\\@-, not starting with `-`)"
        ))
    }
}

/// A process name: what `comm` or the base name of `argv[0]` may be.
fn parse_process(name: &str) -> Result<String, String> {
    if name.is_empty() || name.len() > 255 || name.contains('/') || name.contains('\0') {
        Err(format!(
            "`{name}` is not a process name (a base name, without `/`)"
        ))
    } else {
        Ok(name.to_string())
    }
}

/// `host:port`, `[v6]:port`.
pub(crate) fn parse_host_port(text: &str) -> Result<HostPort, String> {
    let bad =
        |why: &str| format!("`{text}` is not host:port ({why}); e.g. 127.0.0.1:8774 or [::1]:8774");
    if text.len() > MAX_TARGET {
        return Err(bad("too long"));
    }
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (v6, port) = rest
            .split_once("]:")
            .ok_or_else(|| bad("an IPv6 literal is `[address]:port`"))?;
        v6.parse::<Ipv6Addr>()
            .map_err(|_| bad(&format!("`{v6}` is not an IPv6 address")))?;
        (v6, port)
    } else {
        let (host, port) = text.rsplit_once(':').ok_or_else(|| bad("no port"))?;
        if host.contains(':') {
            return Err(bad("an IPv6 address goes in brackets"));
        }
        (host, port)
    };
    if host.is_empty()
        || host
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b"/@?#".contains(&b))
    {
        return Err(bad("no host"));
    }
    let port = match port.parse::<u16>() {
        Ok(p) if p != 0 => p,
        _ => return Err(bad(&format!("`{port}` is not a port 1..=65535"))),
    };
    Ok(HostPort {
        host: host.to_string(),
        port,
    })
}

fn parse_http(value: &Raw) -> Result<HttpTarget, String> {
    let (url, status, body) = match value {
        Raw::Str(url) => (url.as_str(), None, None),
        Raw::Map(m) => {
            if let Some(k) = m
                .keys()
                .find(|k| !["url", "status", "body"].contains(&k.as_str()))
            {
                return Err(format!("unknown key `{k}`; http takes url, status, body"));
            }
            let url = m
                .get("url")
                .ok_or("no `url`")
                .map_err(str::to_string)
                .and_then(|u| str_of(u).map_err(|e| format!("url: {e}")))?;
            let status = match m.get("status") {
                None => None,
                Some(Raw::Int(n)) if (100..=599).contains(n) => Some(*n as u16),
                Some(other) => {
                    return Err(format!(
                        "status: expected an HTTP status 100..=599, found {}",
                        match other {
                            Raw::Int(n) => n.to_string(),
                            other => other.type_name().to_string(),
                        }
                    ));
                }
            };
            let body = match m.get("body") {
                None => None,
                Some(b) => {
                    let b = str_of(b).map_err(|e| format!("body: {e}"))?;
                    if b.is_empty() || b.len() > MAX_TARGET {
                        return Err(format!(
                            "body: 1 to {MAX_TARGET} bytes to find in the answer"
                        ));
                    }
                    Some(b.to_string())
                }
            };
            (url, status, body)
        }
        other => {
            return Err(format!(
                "expected a URL or {{url, status, body}}, found {}",
                other.type_name()
            ));
        }
    };
    let (addr, path) = parse_url(url)?;
    Ok(HttpTarget {
        url: url.to_string(),
        addr,
        path,
        status,
        body,
    })
}

/// `http://host[:port][/path][?query]` into its address and request target.
fn parse_url(url: &str) -> Result<(HostPort, String), String> {
    if url.len() > MAX_TARGET {
        return Err(format!("the URL is longer than {MAX_TARGET} bytes"));
    }
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return Err(format!(
            "`{url}`: https is not supported (the host has no TLS client); only http:// URLs"
        ));
    }
    if !lower.starts_with("http://") {
        return Err(format!("`{url}`: only http:// URLs are supported"));
    }
    let rest = &url["http://".len()..];
    let rest = rest.split('#').next().unwrap_or_default();
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'?' => (&rest[..i], format!("/{}", &rest[i..])),
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    if authority.contains('@') {
        return Err(format!("`{url}`: credentials in the URL are not supported"));
    }
    if path
        .bytes()
        .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    {
        return Err(format!(
            "`{url}`: the path has spaces or control characters"
        ));
    }
    let has_port = match authority.strip_prefix('[') {
        Some(v6) => v6.contains("]:"),
        None => authority.contains(':'),
    };
    let with_port = if has_port {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let addr = parse_host_port(&with_port).map_err(|e| format!("`{url}`: {e}"))?;
    Ok((addr, path))
}

fn duration_in(value: &Raw, min: Duration, max: Duration) -> Result<Duration, String> {
    let d = parse_duration(str_of(value)?)?;
    if d < min || d > max {
        return Err(format!(
            "{} is outside {} to {}",
            show_duration(d),
            show_duration(min),
            show_duration(max)
        ));
    }
    Ok(d)
}

#[cfg(test)]
#[path = "probes_tests.rs"]
mod tests;
