//! The state file's `containers:` section: each workload container's
//! simulated Pebble as the last event left it, and what the operator
//! scripts for the next.
//!
//! ```yaml
//! containers:
//!   web:
//!     can-connect: true          # false: no socket, as before pebble-ready
//!     layers:                    # Pebble's layers, in order
//!       - label: web
//!         services:
//!           web: {override: replace, command: web-server, startup: enabled}
//!         checks:
//!           alive: {override: replace, level: alive, http: {url: "http://localhost:8080/"}}
//!     services: {web: active}    # current: active, inactive, backoff, error
//!     fail-start:                # starts that fail, as Pebble reports them:
//!       web: {exit: 1}           #   exits within the okay delay (then backoff)
//!       worker: not-found        #   or never runs: not-found, permission-denied
//!     checks:                    # status of the plan's checks: up when not named,
//!       alive: {status: down, failures: 3}   # inactive if `startup: disabled`;
//!                                # refused when Pebble cannot report it (down
//!                                # under the threshold, up at it, a check or a
//!                                # threshold not the plan's)
//!     files:                     # the container's files: text, or detailed
//!       /etc/web/web.conf: "port = 8080\n"
//!       /etc/web/key: {hex: 00ff, permissions: "600"}
//!     dirs: [/etc/web]           # directories (the files' parents are implied)
//!     dir-permissions:           # directories whose mode is not 755
//!       /var/lib/web: "700"
//!     exec:                      # scripted outcomes of declared commands
//!       check-config: {exit: 1, stderr: "bad port"}
//!       reload: {exit: not-found}  # or permission-denied: Pebble cannot find it
//!     notices:                   # notices Pebble recorded (id: position)
//!       - {key: example.com/a, last-data: {k: v}}
//!     calls: [add-layer web combine, replan]   # the last event's
//! ```

use super::plan::{self, SimLayer};
use crate::offline::machine::ScriptedCommand;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A service's `current` state, as Pebble reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Current {
    Active,
    #[default]
    Inactive,
    Backoff,
    Error,
}

impl Current {
    pub fn as_str(self) -> &'static str {
        match self {
            Current::Active => "active",
            Current::Inactive => "inactive",
            Current::Backoff => "backoff",
            Current::Error => "error",
        }
    }
}

/// How a scripted start fails: the program is not found or not
/// executable (it never runs), or it exits within Pebble's okay delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StartFailure {
    Word(StartWord),
    Exit { exit: i32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartWord {
    NotFound,
    PermissionDenied,
}

/// A health check's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    #[default]
    Up,
    Down,
    Inactive,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Up => "up",
            CheckStatus::Down => "down",
            CheckStatus::Inactive => "inactive",
        }
    }
}

/// How a check of the plan is doing; Pebble's own defaults fill the rest
/// (`failures`: 0, or the threshold when `down`; `threshold`: the plan's,
/// else 3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimCheck {
    #[serde(default)]
    pub status: CheckStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
}

/// A file: UTF-8 text as a plain string; other bytes, or permissions other
/// than 644, in the detailed form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SimFile {
    Text(String),
    Detailed(FileEntry),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FileEntry {
    /// The content as text…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// …or as hex digits, for bytes that are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// Octal, as Pebble writes them (`600`). [default: 644]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<String>,
    /// Whose it is, as a push named them. [default: root's]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
}

/// Who a pushed file or a made directory belongs to, as the request names
/// them (`user`, `user-id`, `group`, `group-id`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Owner {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl Owner {
    pub fn is_set(&self) -> bool {
        *self != Owner::default()
    }
}

/// Pebble's default mode of a pushed file and of a made directory.
pub const FILE_MODE: u32 = 0o644;
pub const DIR_MODE: u32 = 0o755;

impl SimFile {
    /// The bytes and the mode, or why the entry cannot be read.
    pub fn decode(&self) -> Result<(Vec<u8>, u32), String> {
        match self {
            SimFile::Text(t) => Ok((t.clone().into_bytes(), FILE_MODE)),
            SimFile::Detailed(e) => {
                let bytes = match (&e.content, &e.hex) {
                    (Some(_), Some(_)) => return Err("`content` and `hex` both given".into()),
                    (Some(t), None) => t.clone().into_bytes(),
                    (None, Some(h)) => from_hex(h).ok_or("`hex`: not hex digits in pairs")?,
                    (None, None) => Vec::new(),
                };
                let mode = match &e.permissions {
                    None => FILE_MODE,
                    Some(p) => parse_mode(p).ok_or_else(|| {
                        format!("`permissions`: `{p}` is not an octal mode (644)")
                    })?,
                };
                Ok((bytes, mode))
            }
        }
    }

    /// The owner a push named, if any.
    pub fn owner(&self) -> Option<&Owner> {
        match self {
            SimFile::Text(_) => None,
            SimFile::Detailed(e) => e.owner.as_ref().filter(|o| o.is_set()),
        }
    }

    /// The shortest entry for `bytes` with `mode`, and the owner a push
    /// named.
    pub fn encode(bytes: &[u8], mode: u32, owner: Option<&Owner>) -> SimFile {
        let text = std::str::from_utf8(bytes).ok().map(str::to_string);
        let owner = owner.filter(|o| o.is_set()).cloned();
        if mode == FILE_MODE
            && owner.is_none()
            && let Some(t) = &text
        {
            return SimFile::Text(t.clone());
        }
        SimFile::Detailed(FileEntry {
            hex: text.is_none().then(|| crate::text::hex(bytes)),
            content: text,
            permissions: (mode != FILE_MODE).then(|| format!("{mode:03o}")),
            owner,
        })
    }
}

/// An octal mode as Pebble takes it (`644`, `0755`), at most 0o7777.
pub fn parse_mode(text: &str) -> Option<u32> {
    u32::from_str_radix(text, 8).ok().filter(|m| *m <= 0o7777)
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// One container of the state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimContainer {
    /// Whether Pebble answers: false leaves no socket, as before the
    /// container is up.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub can_connect: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<SimLayer>,
    /// Each service's `current`; a service of the plan not named is inactive.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, Current>,
    /// Services whose every start (start, restart, replan, autostart)
    /// fails, and how; the change's error is Pebble's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fail_start: BTreeMap<String, StartFailure>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, SimCheck>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, SimFile>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub dirs: BTreeSet<String>,
    /// Directories whose mode is not 755, as octal text (`700`); each is
    /// a directory whether `dirs` names it or not.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dir_permissions: BTreeMap<String, String>,
    /// Scripted outcomes of the commands wasm-charm.yaml declares for this
    /// container, by name; one not named exits 0 and prints nothing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub exec: BTreeMap<String, ScriptedCommand>,
    /// Notices Pebble has recorded, as the operator scripts them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<SimNotice>,
    /// What the last event asked of this Pebble, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
}

/// A notice of the state file: its id is its position from 1 unless
/// given; its times are the event's unless given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimNotice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `custom` unless given.
    #[serde(default = "custom", rename = "type")]
    pub type_: String,
    pub key: String,
    /// [default: 1]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<u32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub last_data: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_occurred: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_occurred: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_repeated: Option<String>,
    /// Go duration text (`1h0m0s`), as Pebble gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expire_after: Option<String>,
}

fn custom() -> String {
    "custom".into()
}

impl Default for SimContainer {
    fn default() -> Self {
        SimContainer {
            can_connect: true,
            layers: Vec::new(),
            services: BTreeMap::new(),
            fail_start: BTreeMap::new(),
            checks: BTreeMap::new(),
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            dir_permissions: BTreeMap::new(),
            exec: BTreeMap::new(),
            notices: Vec::new(),
            calls: Vec::new(),
        }
    }
}

impl SimContainer {
    pub fn is_default(&self) -> bool {
        *self == SimContainer::default()
    }
}

/// The modes of `dir-permissions`, or why one cannot be read.
pub fn dir_modes(c: &SimContainer) -> Result<BTreeMap<String, u32>, String> {
    c.dir_permissions
        .iter()
        .map(|(path, text)| {
            if !clean_path(path) || path == "/" {
                return Err(format!(
                    "`{path}`: a container path is absolute, without `.`, `..`, `//` or a \
                     trailing `/`"
                ));
            }
            let mode = parse_mode(text)
                .ok_or_else(|| format!("`{path}`: `{text}` is not an octal mode (755)"))?;
            Ok((path.clone(), mode))
        })
        .collect()
}

/// Whether `path` is absolute and clean (no `.`, `..`, `//`, trailing `/`),
/// as a container path of the state file must be.
pub fn clean_path(path: &str) -> bool {
    path == "/"
        || (path.starts_with('/') && path[1..].split('/').all(|s| !matches!(s, "" | "." | "..")))
}

/// The state file's containers as the charm can have them: each declared in
/// metadata.yaml, its scripted commands declared in wasm-charm.yaml, its
/// layers, files and directories readable. The error names the field.
pub fn check(
    containers: &BTreeMap<String, SimContainer>,
    declared: &[String],
    grants: &BTreeMap<String, crate::charm_dir::ContainerGrant>,
) -> Result<(), String> {
    let listed = |names: Vec<&String>| {
        if names.is_empty() {
            "none".to_string()
        } else {
            names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    for (name, c) in containers {
        if !declared.contains(name) {
            return Err(format!(
                "`containers.{name}`: metadata.yaml declares no container `{name}` \
                 (containers: {})",
                listed(declared.iter().collect())
            ));
        }
        let commands = grants.get(name).map(|g| &g.commands);
        if let Some(cmd) = c
            .exec
            .keys()
            .find(|k| !commands.is_some_and(|m| m.contains_key(*k)))
        {
            return Err(format!(
                "`containers.{name}.exec.{cmd}`: the charm's wasm-charm.yaml declares no \
                 command `{cmd}` for container {name} (declared: {})",
                listed(commands.map(|m| m.keys().collect()).unwrap_or_default())
            ));
        }
        let mut labels = BTreeSet::new();
        for (i, layer) in c.layers.iter().enumerate() {
            let at = format!("`containers.{name}.layers[{i}]`");
            if layer.label.is_empty() || !labels.insert(layer.label.as_str()) {
                return Err(format!(
                    "{at}: each layer has a label of its own (`{}`)",
                    layer.label
                ));
            }
            plan::check_layer(layer)
                .and_then(|()| super::plan_rules::check_overrides(&layer.view()))
                .map_err(|e| format!("{at}: {e}"))?;
        }
        let plan =
            plan::combine(&c.layers).map_err(|e| format!("`containers.{name}.layers`: {e}"))?;
        check_checks(name, &c.checks, &plan)?;
        for (path, file) in &c.files {
            let at = format!("`containers.{name}.files.{path}`");
            if !clean_path(path) || path == "/" {
                return Err(format!(
                    "{at}: a container path is absolute, without `.`, `..`, `//` or a \
                     trailing `/`"
                ));
            }
            file.decode().map_err(|e| format!("{at}: {e}"))?;
        }
        check_notices(name, &c.notices)?;
        dir_modes(c).map_err(|e| format!("`containers.{name}.dir-permissions`: {e}"))?;
        if let Some(dir) = c.dirs.iter().find(|d| !clean_path(d)) {
            return Err(format!(
                "`containers.{name}.dirs`: `{dir}`: a container path is absolute, without \
                 `.`, `..`, `//` or a trailing `/`"
            ));
        }
    }
    Ok(())
}

/// Each scripted check one of the plan, in a state Pebble can be in: its
/// threshold the plan's, `down` at or over it, `up` under it (an
/// `inactive` check may have any failures: Pebble keeps them at a stop).
fn check_checks(
    container: &str,
    checks: &BTreeMap<String, SimCheck>,
    plan: &plan::Plan,
) -> Result<(), String> {
    for (name, check) in checks {
        let at = format!("`containers.{container}.checks.{name}`");
        let field = |f: &str| format!("`containers.{container}.checks.{name}.{f}`");
        if !plan.checks.contains_key(name) {
            let known: Vec<&str> = plan.checks.keys().map(String::as_str).collect();
            return Err(format!(
                "{at}: the plan has no check `{name}` (checks: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
        let threshold = plan.threshold(name);
        if let Some(t) = check.threshold
            && t != threshold
        {
            return Err(format!(
                "{}: {t}, but Pebble reports the plan's threshold, {threshold}",
                field("threshold")
            ));
        }
        let failures = check.failures;
        match (check.status, failures) {
            (CheckStatus::Down, Some(f)) if f < threshold => Err(format!(
                "{}: a check is down only at {threshold} failures in a row (its \
                 threshold), not {f}",
                field("failures")
            )),
            (CheckStatus::Up, Some(f)) if f >= threshold => Err(format!(
                "{}: {f} failures in a row reach the threshold ({threshold}): \
                 Pebble reports that check down, not up",
                field("failures")
            )),
            _ => Ok(()),
        }?;
    }
    Ok(())
}

/// Each notice with a key, an id of its own, and durations as Go writes
/// them, so the charm reads back what the operator meant.
fn check_notices(container: &str, notices: &[SimNotice]) -> Result<(), String> {
    let mut ids = BTreeSet::new();
    for (i, n) in notices.iter().enumerate() {
        let at = format!("`containers.{container}.notices[{i}]`");
        let id = n.id.clone().unwrap_or_else(|| (i + 1).to_string());
        if !ids.insert(id.clone()) {
            return Err(format!("{at}: id `{id}` is another notice's"));
        }
        if n.key.is_empty() || n.type_.is_empty() {
            return Err(format!("{at}: a notice has a `type` and a `key`"));
        }
        for (field, d) in [
            ("repeat-after", &n.repeat_after),
            ("expire-after", &n.expire_after),
        ] {
            if let Some(d) = d
                && crate::pebble::notices::go_duration_ms(d).is_none()
            {
                return Err(format!(
                    "{at}: `{field}`: `{d}` is not a Go duration (1h0m0s)"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_are_checked() {
        let notice = |id: Option<&str>, key: &str| SimNotice {
            id: id.map(str::to_string),
            type_: "custom".into(),
            key: key.into(),
            ..SimNotice::default()
        };
        assert!(check_notices("web", &[notice(None, "a"), notice(Some("3"), "b")]).is_ok());
        let twice = check_notices("web", &[notice(None, "a"), notice(Some("1"), "b")]);
        assert!(twice.unwrap_err().contains("notices[1]"));
        assert!(check_notices("web", &[notice(None, "")]).is_err());
        let mut late = notice(None, "a");
        late.expire_after = Some("soon".into());
        assert!(
            check_notices("web", &[late])
                .unwrap_err()
                .contains("expire-after")
        );
    }

    #[test]
    fn the_section_reads_and_writes_back() {
        let text = "web:\n  can-connect: false\n  services: {web: error}\n  \
                    checks: {alive: {status: down}}\n  files:\n    /etc/a: hi\n    \
                    /etc/b: {hex: 00ff, permissions: '600'}\n  \
                    exec: {check: {exit: timed-out}}\n";
        let c: BTreeMap<String, SimContainer> = serde_saphyr::from_str(text).unwrap();
        let web = &c["web"];
        assert!(!web.can_connect);
        assert_eq!(web.services["web"], Current::Error);
        assert_eq!(web.checks["alive"].status, CheckStatus::Down);
        assert_eq!(
            web.files["/etc/a"].decode(),
            Ok((b"hi".to_vec(), FILE_MODE))
        );
        assert_eq!(web.files["/etc/b"].decode(), Ok((vec![0, 255], 0o600)));
        let again: BTreeMap<String, SimContainer> =
            serde_saphyr::from_str(&serde_saphyr::to_string(&c).unwrap()).unwrap();
        assert_eq!(again, c);
        assert!(SimContainer::default().is_default());
        let e = serde_saphyr::from_str::<SimContainer>("services: {web: running}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("running"), "{e}");
        assert!(serde_saphyr::from_str::<SimContainer>("filez: {}\n").is_err());
    }

    #[test]
    fn files_encode_as_shortly_as_they_can() {
        assert_eq!(
            SimFile::encode(b"x", 0o644, None),
            SimFile::Text("x".into())
        );
        let bin = SimFile::encode(&[0xff, 1], 0o644, None);
        assert_eq!(bin.decode(), Ok((vec![0xff, 1], 0o644)));
        let private = SimFile::encode(b"k", 0o600, None);
        assert_eq!(private.decode(), Ok((b"k".to_vec(), 0o600)));
        let bad = SimFile::Detailed(FileEntry {
            hex: Some("0g".into()),
            ..FileEntry::default()
        });
        assert!(bad.decode().is_err());
        assert_eq!(parse_mode("0755"), Some(0o755));
        assert_eq!(parse_mode("9"), None);
        assert!(clean_path("/etc/a") && clean_path("/"));
        assert!(!clean_path("etc") && !clean_path("/etc/") && !clean_path("/a/../b"));
    }

    #[test]
    fn scripted_checks_are_states_pebble_can_report() {
        let layer = plan::parse_layer(
            "l",
            "checks:\n  alive: {override: replace, threshold: 2, tcp: {port: 80}}\n",
        )
        .unwrap();
        let plan = plan::combine(&[layer]).unwrap();
        let script =
            |text: &str| -> BTreeMap<String, SimCheck> { serde_saphyr::from_str(text).unwrap() };
        let ok = [
            "alive: {status: down}",
            "alive: {status: down, failures: 5}",
            "alive: {status: up, failures: 1}",
            "alive: {status: inactive, failures: 7}",
            "alive: {status: up, threshold: 2}",
        ];
        for text in ok {
            assert_eq!(check_checks("web", &script(text), &plan), Ok(()), "{text}");
        }
        let refused = [
            (
                "alive: {status: down, failures: 1}",
                "`containers.web.checks.alive.failures`: a check is down only at 2",
            ),
            (
                "alive: {status: up, failures: 2}",
                "`containers.web.checks.alive.failures`: 2 failures in a row reach",
            ),
            (
                "alive: {status: up, threshold: 3}",
                "`containers.web.checks.alive.threshold`: 3, but Pebble reports",
            ),
            (
                "ready: {status: up}",
                "`containers.web.checks.ready`: the plan has no check `ready` (checks: alive)",
            ),
        ];
        for (text, words) in refused {
            let e = check_checks("web", &script(text), &plan).unwrap_err();
            assert!(e.starts_with(words), "{e}");
        }
    }

    #[test]
    fn the_checks_name_the_field() {
        let declared = vec!["web".to_string()];
        let mut grants = BTreeMap::new();
        let mut c = BTreeMap::new();
        c.insert("db".to_string(), SimContainer::default());
        let e = check(&c, &declared, &grants).unwrap_err();
        assert!(
            e.contains("`containers.db`") && e.contains("(containers: web)"),
            "{e}"
        );
        let mut web = SimContainer::default();
        web.exec.insert("reload".into(), ScriptedCommand::default());
        let c = BTreeMap::from([("web".to_string(), web.clone())]);
        let e = check(&c, &declared, &grants).unwrap_err();
        assert!(
            e.contains("`containers.web.exec.reload`") && e.contains("(declared: none)"),
            "{e}"
        );
        let mut grant = crate::charm_dir::ContainerGrant::default();
        grant.commands.insert(
            "reload".into(),
            crate::charm_dir::CommandSpec {
                argv: vec!["true".into()],
                args: false,
                timeout: std::time::Duration::from_secs(1),
            },
        );
        grants.insert("web".to_string(), grant);
        assert_eq!(check(&c, &declared, &grants), Ok(()));
        web.files
            .insert("etc/x".into(), SimFile::Text(String::new()));
        let c = BTreeMap::from([("web".to_string(), web)]);
        let e = check(&c, &declared, &grants).unwrap_err();
        assert!(e.contains("`containers.web.files.etc/x`"), "{e}");
    }
}
