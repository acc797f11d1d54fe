//! The embedded simulated Juju: the hook tools the host calls, answered from a
//! [`SimState`] with Juju's syntax, JSON shapes and exit codes (reference
//! juju-protocol.md §2). Writes change the in-memory state at once, except
//! the secret tools', held in [`SimState::pending_secrets`]; what the state
//! file keeps of them is the offline runner's decision: a failed hook keeps
//! only what acts at once in Juju (see `commit` in the parent module). The
//! tools are split by what they answer: `network` (network-get), `deployment`
//! (goal-state, credential-get, resource-get), `secrets` (secret-*),
//! `charm_state` (state-get, state-set, state-delete).

use super::deployment::SimCloudSpec;
use super::network::SimNetwork;
use super::secrets::{PendingSecrets, SimSecret};
use crate::hook_tools::{HookTools, ToolOutput};
use crate::status::merge::{Kind, Written};
use crate::status::store::ScopeStore;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub(super) type Bag = BTreeMap<String, String>;

/// One relation of the simulated unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimRelation {
    /// The remote application.
    pub app: String,
    #[serde(default)]
    pub units: Vec<String>,
    #[serde(default)]
    pub app_data: Bag,
    #[serde(default)]
    pub unit_data: BTreeMap<String, Bag>,
    #[serde(default)]
    pub local_unit_data: Bag,
    #[serde(default)]
    pub local_app_data: Bag,
}

/// A probe outcome the operator scripts in the state file: `wasm-charm run`
/// answers the probe with it instead of running the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScriptedProbe {
    pub healthy: bool,
    /// What the check saw, as a status message says it; when absent, a
    /// message naming the probe and saying it is scripted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimStatuses {
    pub unit: Option<Written>,
    pub app: Option<Written>,
}

/// Everything the simulated Juju knows: the state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimState {
    /// This unit; `<charm name>/0` when absent.
    #[serde(default)]
    pub unit: Option<String>,
    /// A lone unit leads its application, so this defaults to true.
    #[serde(default = "yes")]
    pub leader: bool,
    /// Config values set by the operator (config.yaml defaults fill the rest).
    #[serde(default)]
    pub config: BTreeMap<String, serde_json::Value>,
    /// Relations by id (`db:1`).
    #[serde(default)]
    pub relations: BTreeMap<String, SimRelation>,
    /// Probe outcomes by name, used instead of running those probes (the
    /// operator's scenario: kept from run to run until edited). Probes not
    /// named here run for real.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub probes: BTreeMap<String, ScriptedProbe>,
    /// What `status-set` last wrote.
    #[serde(default)]
    pub status: SimStatuses,
    #[serde(default)]
    pub application_version: Option<String>,
    /// The unit log of the last event.
    #[serde(default)]
    pub log: Vec<String>,
    /// The hook-tool calls of the last event, one line each.
    #[serde(default)]
    pub calls: Vec<String>,
    /// The parameters of the last event's action, as `action-get` answers
    /// them: `wasm-charm run`'s `--param` flags, checked against the
    /// action's schema, with its defaults filled in, as Juju does.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub action_params: serde_json::Map<String, serde_json::Value>,
    /// What `action-set` stored during the last event (an action), by dotted key.
    #[serde(default)]
    pub action_results: BTreeMap<String, String>,
    /// The message `action-fail` left during the last event (an action):
    /// the action failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_failed: Option<String>,
    /// The scope store, kept here rather than in the charm directory.
    #[serde(default)]
    pub scopes: Option<ScopeStore>,
    /// Juju's server-side charm state (`state-get` / `state-set`), where a
    /// charm with `store: juju` keeps its scope store.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub charm_state: BTreeMap<String, String>,
    /// Open ports (`80/tcp`, `8000-8100/udp`, `icmp`) and the endpoints
    /// they are open for (`*`: every endpoint).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub opened_ports: BTreeMap<String, Vec<String>>,
    /// Storage instances attached to the unit, by id (`data/0`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub storage: BTreeMap<String, SimStorage>,
    /// What `network-get` answers for a binding (an endpoint or extra
    /// binding of metadata.yaml), each field defaulted; a binding not named
    /// here is bound to the default address.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub networks: BTreeMap<String, SimNetwork>,
    /// Whether the operator ran `juju trust`: `credential-get` answers only
    /// then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trusted: bool,
    /// The cloud spec `credential-get` answers; when absent, a local LXD
    /// cloud's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<SimCloudSpec>,
    /// The file of each resource the operator provided, by name: a path
    /// relative to the state file's directory, or absolute.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, PathBuf>,
    /// Secrets by id (`secret:<20 characters>`): the charm's own and those
    /// other applications shared with this unit.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub secrets: BTreeMap<String, SimSecret>,
    /// Each workload container's simulated Pebble (`offline::pebble`): its
    /// layers, services, checks, files and scripted exec outcomes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub containers: BTreeMap<String, super::pebble::state::SimContainer>,
    /// This hook's secret changes, held until it ends as Juju holds them:
    /// `offline::commit` applies them when it succeeded.
    #[serde(skip)]
    pub pending_secrets: PendingSecrets,
}

/// One storage instance of the simulated unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SimStorage {
    /// `filesystem` or `block`.
    pub kind: String,
    /// Mount point or device.
    pub location: String,
}

fn yes() -> bool {
    true
}

impl Default for SimState {
    fn default() -> Self {
        SimState {
            unit: None,
            leader: true,
            config: BTreeMap::new(),
            relations: BTreeMap::new(),
            probes: BTreeMap::new(),
            status: SimStatuses::default(),
            application_version: None,
            log: Vec::new(),
            calls: Vec::new(),
            action_params: serde_json::Map::new(),
            action_results: BTreeMap::new(),
            action_failed: None,
            scopes: None,
            charm_state: BTreeMap::new(),
            opened_ports: BTreeMap::new(),
            storage: BTreeMap::new(),
            networks: BTreeMap::new(),
            trusted: false,
            credential: None,
            resources: BTreeMap::new(),
            secrets: BTreeMap::new(),
            containers: BTreeMap::new(),
            pending_secrets: PendingSecrets::default(),
        }
    }
}

/// The hook tools of the simulated Juju.
pub struct SimTools {
    pub state: Arc<Mutex<SimState>>,
    /// config.yaml defaults, under the operator's values.
    pub defaults: BTreeMap<String, serde_json::Value>,
    pub unit: String,
    /// The action that runs (`JUJU_ACTION_NAME`); `None` in a hook, where the
    /// action tools answer `not running an action`.
    pub action: Option<String>,
    /// During relation-departed: the relation (`db:1`) and the unit leaving
    /// it. Juju removes the unit from `relation-list` before the hook runs,
    /// while its data stays readable until the hook ends.
    pub departing: Option<(String, String)>,
    /// The relation of a relation hook (`JUJU_RELATION_ID`): the default of
    /// the secret tools' `-r`, as in Juju.
    pub relation: Option<String>,
    /// metadata.yaml's relation endpoints and extra bindings: the bindings
    /// `network-get` knows.
    pub bindings: BTreeSet<String>,
    /// The state file's directory, where relative resource paths start.
    pub state_dir: PathBuf,
    /// Seconds since the Unix epoch when the event started: the clock of
    /// secret expiry and new secret ids.
    pub now: u64,
}

/// Parsed arguments: flags (with their value, `true` for bare bool flags) and
/// positionals, in Juju's interspersed style; `--` ends the flags.
pub(super) struct Args<'a> {
    pub(super) flags: BTreeMap<&'a str, &'a str>,
    pub(super) positional: Vec<&'a str>,
}

pub(super) fn parse<'a>(
    args: &[&'a str],
    valued: &[&str],
    bools: &[&str],
) -> Result<Args<'a>, ToolOutput> {
    let mut out = Args {
        flags: BTreeMap::new(),
        positional: Vec::new(),
    };
    let mut it = args.iter().copied();
    while let Some(a) = it.next() {
        if a == "--" {
            out.positional.extend(it.by_ref());
            break;
        }
        if a.starts_with('-') && a.len() > 1 {
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (a, None),
            };
            if valued.contains(&name) {
                let v = match inline {
                    Some(v) => v,
                    None => it.next().ok_or_else(|| {
                        ToolOutput::error(2, format!("option needs an argument: {name}"))
                    })?,
                };
                out.flags.insert(name, v);
            } else if bools.contains(&name) {
                out.flags.insert(name, inline.unwrap_or("true"));
            } else {
                return Err(ToolOutput::error(
                    2,
                    format!("option provided but not defined: {name}"),
                ));
            }
        } else {
            out.positional.push(a);
        }
    }
    Ok(out)
}

impl<'a> Args<'a> {
    pub(super) fn flag(&self, names: &[&str]) -> Option<&'a str> {
        names.iter().find_map(|n| self.flags.get(n).copied())
    }
    pub(super) fn bool(&self, names: &[&str]) -> bool {
        self.flag(names)
            .is_some_and(|v| matches!(v, "true" | "True" | "1"))
    }
}

pub(super) fn json(v: &impl Serialize) -> ToolOutput {
    let mut s = serde_json::to_vec(v).unwrap_or_default();
    s.push(b'\n');
    ToolOutput::ok(s)
}

/// A tool's `--format`: the formats it offers (the first is its default).
/// Another value is a flag error, as juju/cmd's.
pub(super) fn format<'a>(a: &Args<'a>, offered: &[&'a str]) -> Result<&'a str, ToolOutput> {
    match a.flag(&["--format"]) {
        None => Ok(offered.first().copied().unwrap_or("smart")),
        Some(f) if offered.contains(&f) => Ok(f),
        Some(f) => Err(ToolOutput::error(
            2,
            format!("invalid value \"{f}\" for option --format: unknown format \"{f}\""),
        )),
    }
}

/// `v` written as juju/cmd writes it in `format` (reference §2.0): `json`
/// compact; `smart` a string raw, a list of strings one per line, a bool
/// `True`/`False`, nothing for null; YAML otherwise.
pub(super) fn output(format: &str, v: &serde_json::Value) -> ToolOutput {
    use serde_json::Value as J;
    let text = match (format, v) {
        ("json", v) => return json(v),
        (_, J::Null) => String::new(),
        ("smart", J::String(s)) if s.is_empty() => String::new(),
        ("smart", J::String(s)) => format!("{s}\n"),
        ("smart", J::Bool(b)) => format!("{}\n", if *b { "True" } else { "False" }),
        ("smart", J::Array(items)) if items.iter().all(J::is_string) => items
            .iter()
            .filter_map(J::as_str)
            .map(|s| format!("{s}\n"))
            .collect(),
        (_, v) => serde_saphyr::to_string(v).unwrap_or_default(),
    };
    ToolOutput::ok(text)
}

/// `-r` takes `5` or `db:5`; Juju uses only the number.
pub(super) fn relation<'s>(
    state: &'s mut SimState,
    raw: Option<&str>,
) -> Result<(String, &'s mut SimRelation), ToolOutput> {
    let raw = raw.ok_or_else(|| ToolOutput::error(2, "no relation id specified"))?;
    let id = raw.rsplit(':').next().unwrap_or(raw);
    let not_found = || {
        ToolOutput::error(
            2,
            format!("invalid value \"{raw}\" for option -r: relation not found"),
        )
    };
    let key = state
        .relations
        .keys()
        .find(|k| k.rsplit(':').next() == Some(id))
        .cloned()
        .ok_or_else(not_found)?;
    let rel = state.relations.get_mut(&key).ok_or_else(not_found)?;
    Ok((key, rel))
}

/// A tool's answer: `Err` is an answer too (an exit code and message), so
/// `?` ends the tool as Juju would.
pub(super) type Answer = Result<ToolOutput, ToolOutput>;

impl SimTools {
    fn answer(&self, tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Answer {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        match tool {
            "config-get" => self.config_get(state, args),
            "is-leader" => self.is_leader(state, args),
            "relation-ids" => self.relation_ids(state, args),
            "relation-list" => self.relation_list(state, args),
            "relation-get" => self.relation_get(state, args),
            "relation-set" => self.relation_set(state, args, stdin),
            "juju-log" => self.juju_log(state, args),
            "status-set" => self.status_set(state, args),
            "status-get" => self.status_get(state, args),
            "application-version-set" => self.application_version_set(state, args),
            "action-get" => self.action_get(state, args),
            "action-set" => self.action_set(state, args),
            "action-log" => self.action_log(state, args),
            "action-fail" => self.action_fail(state, args),
            "open-port" => self.port(state, args, true),
            "close-port" => self.port(state, args, false),
            "opened-ports" => self.opened_ports(state, args),
            "storage-list" => self.storage_list(state, args),
            "storage-get" => self.storage_get(state, args),
            "network-get" => self.network_get(state, args),
            "goal-state" => self.goal_state(state, args),
            "credential-get" => self.credential_get(state, args),
            "resource-get" => self.resource_get(state, args),
            "secret-add" => self.secret_add(state, args),
            "secret-set" => self.secret_set(state, args),
            "secret-get" => self.secret_get(state, args),
            "secret-info-get" => self.secret_info_get(state, args),
            "secret-ids" => self.secret_ids(state, args),
            "secret-grant" => self.secret_grant(state, args),
            "secret-revoke" => self.secret_revoke(state, args),
            "secret-remove" => self.secret_remove(state, args),
            "state-get" => self.state_get(state, args),
            "state-set" => self.state_set(state, args, stdin),
            "state-delete" => self.state_delete(state, args),
            other => Err(ToolOutput::error(
                1,
                format!("the simulated Juju does not implement {other}"),
            )),
        }
    }

    /// `config-get` (reference §2).
    fn config_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["-a", "--all"])?;
        let mut all = self.defaults.clone();
        all.extend(state.config.clone());
        all.retain(|_, v| !v.is_null());
        match a.positional.as_slice() {
            [] => Ok(json(&all)),
            [key] => Ok(json(all.get(*key).unwrap_or(&serde_json::Value::Null))),
            _ => Err(ToolOutput::error(2, "too many arguments")),
        }
    }

    /// `is-leader` (reference §2).
    fn is_leader(&self, state: &mut SimState, args: &[&str]) -> Answer {
        parse(args, &["--format"], &[])?;
        Ok(json(&state.leader))
    }

    /// `relation-ids` (reference §2).
    fn relation_ids(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let [endpoint] = a.positional.as_slice() else {
            return Err(ToolOutput::error(2, "no endpoint name specified"));
        };
        let mut ids: Vec<&String> = state
            .relations
            .keys()
            .filter(|k| k.rsplit_once(':').is_some_and(|(e, _)| e == *endpoint))
            .collect();
        ids.sort_by_key(|k| {
            k.rsplit(':')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        });
        Ok(json(&ids))
    }

    /// `relation-list` (reference §2).
    fn relation_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let want_app = a.bool(&["--app"]);
        let (key, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
        if want_app {
            Ok(json(&rel.app))
        } else {
            let mut units = rel.units.clone();
            if let Some((id, unit)) = &self.departing
                && *id == key
            {
                units.retain(|u| u != unit);
            }
            units.sort();
            Ok(json(&units))
        }
    }

    /// `relation-get` (reference §2).
    fn relation_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let want_app = a.bool(&["--app"]);
        let unit = self.unit.clone();
        let (_, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
        let (key, owner) = match a.positional.as_slice() {
            [key, owner] => (*key, *owner),
            _ => return Err(ToolOutput::error(2, "no unit or application specified")),
        };
        let bag = if want_app {
            let owner_app = owner.split('/').next().unwrap_or(owner);
            if Some(owner_app) == self.unit.split('/').next() {
                rel.local_app_data.clone()
            } else {
                rel.app_data.clone()
            }
        } else if !owner.contains('/') {
            return Err(ToolOutput::error(
                2,
                format!("expected unit name, got application name \"{owner}\""),
            ));
        } else if owner == unit {
            rel.local_unit_data.clone()
        } else {
            rel.unit_data.get(owner).cloned().unwrap_or_default()
        };
        if key == "-" {
            Ok(json(&bag))
        } else {
            Ok(json(&bag.get(key)))
        }
    }

    /// `relation-set` (reference §2).
    fn relation_set(&self, state: &mut SimState, args: &[&str], stdin: Option<&[u8]>) -> Answer {
        let a = parse(
            args,
            &["--format", "-r", "--relation", "--file"],
            &["--app"],
        )?;
        let want_app = a.bool(&["--app"]);
        let leader = state.leader;
        let mut changes: Bag = match a.flag(&["--file"]) {
            Some("-") => serde_json::from_slice(stdin.unwrap_or_default()).map_err(|e| {
                ToolOutput::error(1, format!("cannot parse settings from stdin: {e}"))
            })?,
            Some(f) => {
                return Err(ToolOutput::error(
                    1,
                    format!("the simulated Juju reads --file only from stdin, not {f}"),
                ));
            }
            None => Bag::new(),
        };
        for kv in &a.positional {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(2, format!("expected \"key=value\", got \"{kv}\""))
            })?;
            changes.insert(k.to_string(), v.to_string());
        }
        if want_app && !leader {
            return Err(ToolOutput::error(1, "cannot write relation settings"));
        }
        let (_, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
        let bag = if want_app {
            &mut rel.local_app_data
        } else {
            &mut rel.local_unit_data
        };
        for (k, v) in changes {
            if v.is_empty() {
                bag.remove(&k);
            } else {
                bag.insert(k, v);
            }
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `juju-log` (reference §2).
    fn juju_log(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["-l", "--log-level", "--format"], &["--debug"])?;
        if a.positional.is_empty() {
            return Err(ToolOutput::error(2, "no message specified"));
        }
        let level = if a.bool(&["--debug"]) {
            "DEBUG".to_string()
        } else {
            a.flag(&["-l", "--log-level"])
                .unwrap_or("INFO")
                .to_uppercase()
        };
        state
            .log
            .push(format!("{level} {}", a.positional.join(" ")));
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `status-set` (reference §2).
    fn status_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &["--application"])?;
        let (kind, message) = match a.positional.as_slice() {
            [k] => (*k, ""),
            [k, m] => (*k, *m),
            _ => return Err(ToolOutput::error(2, "too many arguments")),
        };
        let status = match kind {
            "maintenance" => Kind::Maintenance,
            "blocked" => Kind::Blocked,
            "waiting" => Kind::Waiting,
            "active" => Kind::Active,
            other => {
                return Err(ToolOutput::error(
                    2,
                    format!(
                        "invalid status \"{other}\", expected one of [maintenance blocked waiting active]"
                    ),
                ));
            }
        };
        let written = Some(Written {
            status,
            message: message.to_string(),
        });
        if a.bool(&["--application"]) {
            if !state.leader {
                return Err(ToolOutput::error(1, "this unit is not the leader"));
            }
            state.status.app = written;
        } else {
            state.status.unit = written;
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `status-get [--include-data] [--application] [--format=…]`
    /// (reference §2.2): what `status-set` last wrote, `unknown` before it
    /// did. Without `--include-data` only the status word; the
    /// application's only for the leader, nested under
    /// `application-status` with its units (this simulated application has
    /// this one unit).
    fn status_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--application", "--include-data"])?;
        let format = format(&a, &["smart", "json", "yaml"])?;
        if let Some(extra) = a.positional.first() {
            return Err(ToolOutput::error(
                2,
                format!("unrecognized args: [\"{extra}\"]"),
            ));
        }
        let data = a.bool(&["--include-data"]);
        let details = |w: &Option<Written>| {
            let (status, message) = match w {
                Some(w) => (w.status.as_str(), w.message.as_str()),
                None => ("unknown", ""),
            };
            if data {
                serde_json::json!({"status": status, "message": message, "status-data": {}})
            } else {
                serde_json::json!({"status": status})
            }
        };
        let word_only = !data && format == "smart";
        let doc = if a.bool(&["--application"]) {
            if !state.leader {
                return Err(ToolOutput::error(
                    1,
                    "finding application status: this unit is not the leader",
                ));
            }
            let mut app = details(&state.status.app);
            if word_only {
                app["status"].clone()
            } else {
                app["units"] =
                    serde_json::json!({ self.unit.clone(): details(&state.status.unit) });
                serde_json::json!({ "application-status": app })
            }
        } else {
            let unit = details(&state.status.unit);
            if word_only {
                unit["status"].clone()
            } else {
                unit
            }
        };
        Ok(output(format, &doc))
    }

    /// `application-version-set` (reference §2).
    fn application_version_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let [v] = a.positional.as_slice() else {
            return Err(ToolOutput::error(2, "expected exactly one argument"));
        };
        state.application_version = Some(v.to_string());
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `action-get [--format=…] [<key>[.<key>…]]` (reference §2.12): every
    /// parameter, or one by dotted path (`null` when missing).
    fn action_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let path = match a.positional.as_slice() {
            [] => None,
            [path] => Some(*path),
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        let mut value = serde_json::Value::Object(state.action_params.clone());
        if let Some(path) = path {
            for key in path.split('.') {
                value = value.get(key).cloned().unwrap_or(serde_json::Value::Null);
            }
        }
        Ok(json(&value))
    }

    /// `action-log <message…>` (reference §2.12): the words joined with
    /// spaces, a progress message kept in the log as `ACTION <message>`.
    fn action_log(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        if a.positional.is_empty() {
            return Err(ToolOutput::error(2, "no message specified"));
        }
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        state.log.push(format!("ACTION {}", a.positional.join(" ")));
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `action-set` (reference §2).
    fn action_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let mut results = Vec::with_capacity(a.positional.len());
        for kv in &a.positional {
            let (key, value) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(
                    2,
                    format!("argument \"{kv}\" must be of the form key...=value"),
                )
            })?;
            check_result_key(key)?;
            results.push((key, value));
        }
        // Juju finds that no action runs only when it stores a result.
        if !results.is_empty() && self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        for (key, value) in results {
            set_result(&mut state.action_results, key, value);
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `action-fail` (reference §2.12): at most one argument, the message,
    /// checked before the run-time check that an action runs. A later call
    /// replaces the message.
    fn action_fail(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let message = match a.positional.as_slice() {
            [] => DEFAULT_ACTION_FAIL,
            [message] => message,
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        if self.action.is_none() {
            return Err(ToolOutput::error(1, "not running an action"));
        }
        state.action_failed = Some(message.to_string());
        Ok(ToolOutput::ok(Vec::new()))
    }
}

/// juju/cmd's CheckEmpty for arguments past the last one a tool takes,
/// which prints them with Go's %q: exit 2.
pub(super) fn unrecognized(extra: &[&str]) -> ToolOutput {
    let quoted: Vec<String> = extra
        .iter()
        .map(|e| serde_json::Value::from(*e).to_string())
        .collect();
    ToolOutput::error(2, format!("unrecognized args: [{}]", quoted.join(" ")))
}

/// The message of an `action-fail` given none (reference §2.12).
pub const DEFAULT_ACTION_FAIL: &str = "action failed without reason given, check action for errors";

impl HookTools for SimTools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        _deadline: std::time::Instant,
    ) -> std::io::Result<ToolOutput> {
        let out = self.answer(tool, args, stdin).unwrap_or_else(|e| e);
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = tool.to_string();
        for a in args {
            line.push(' ');
            line.push_str(&shell_quote(a));
        }
        if out.code != 0 {
            line.push_str(&format!("  → exit {}", out.code));
        }
        state.calls.push(line);
        Ok(out)
    }
}

/// Segments of an action result key that Juju keeps for the action's output.
const RESERVED_RESULT_KEYS: &[&str] = &["stdout", "stdout-encoding", "stderr", "stderr-encoding"];

/// An `action-set` key (reference §2.12): dot-separated segments, each
/// matching `^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$` and none reserved. Juju
/// checks both before running the tool, so both are argument errors (exit 2).
/// The model's ports and storage (reference §2.14, §2.19). The sim applies
/// a port request at once; `offline::commit` drops it when the hook fails,
/// as Juju does.
impl SimTools {
    fn port(&self, state: &mut SimState, args: &[&str], open: bool) -> Answer {
        let a = parse(args, &["--endpoints", "--format"], &[])?;
        let [spec] = a.positional[..] else {
            return Err(ToolOutput::error(2, "no port or range specified"));
        };
        let spec = canonical_port(spec)
            .ok_or_else(|| ToolOutput::error(2, format!("invalid port range {spec:?}")))?;
        let endpoints: Vec<String> = match a.flag(&["--endpoints"]) {
            Some(e) => e.split(',').map(|e| e.trim().to_string()).collect(),
            None => vec!["*".into()],
        };
        let all = endpoints.iter().any(|e| e == "*");
        let have = state.opened_ports.remove(&spec).unwrap_or_default();
        let now: Vec<String> = if open {
            if all || have.iter().any(|e| e == "*") {
                vec!["*".into()]
            } else {
                let set: std::collections::BTreeSet<String> =
                    have.into_iter().chain(endpoints).collect();
                set.into_iter().collect()
            }
        } else if all {
            Vec::new()
        } else {
            have.into_iter()
                .filter(|e| !endpoints.contains(e))
                .collect()
        };
        if !now.is_empty() {
            state.opened_ports.insert(spec, now);
        }
        Ok(ToolOutput::ok(""))
    }

    fn opened_ports(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--endpoints"])?;
        let lines: Vec<String> = state
            .opened_ports
            .iter()
            .map(|(spec, endpoints)| {
                if a.bool(&["--endpoints"]) {
                    format!("{spec} ({})", endpoints.join(", "))
                } else {
                    spec.clone()
                }
            })
            .collect();
        Ok(json(&lines))
    }

    fn storage_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let name = a.positional.first().copied();
        let ids: Vec<&String> = state
            .storage
            .keys()
            .filter(|id| name.is_none_or(|n| id.split('/').next() == Some(n)))
            .collect();
        Ok(json(&ids))
    }

    fn storage_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-s"], &[])?;
        let Some(id) = a.flag(&["-s"]) else {
            return Err(ToolOutput::error(2, "no storage instance specified"));
        };
        let s = state.storage.get(id).ok_or_else(|| {
            ToolOutput::error(
                2,
                format!("invalid value {id:?} for option -s: storage instance {id:?} not found"),
            )
        })?;
        Ok(json(
            &serde_json::json!({"kind": s.kind, "location": s.location}),
        ))
    }
}

/// `80/tcp`, `8000-8100/udp` or `icmp` for what `open-port` accepts.
fn canonical_port(spec: &str) -> Option<String> {
    let spec = spec.to_lowercase();
    if spec == "icmp" {
        return Some(spec);
    }
    let (ports, proto) = spec.split_once('/').unwrap_or((&spec, "tcp"));
    if !matches!(proto, "tcp" | "udp") {
        return None;
    }
    let (lo, hi): (u16, u16) = match ports.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let p = ports.parse().ok()?;
            (p, p)
        }
    };
    if lo == 0 || hi < lo {
        return None;
    }
    Some(if lo == hi {
        format!("{lo}/{proto}")
    } else {
        format!("{lo}-{hi}/{proto}")
    })
}

fn check_result_key(key: &str) -> Result<(), ToolOutput> {
    for segment in key.split('.') {
        if !crate::action::results::is_key_segment(segment) {
            return Err(ToolOutput::error(
                2,
                format!(
                    "key \"{segment}\" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric, hyphens and periods"
                ),
            ));
        }
        if RESERVED_RESULT_KEYS.contains(&segment) {
            return Err(ToolOutput::error(
                2,
                format!("cannot set reserved action key \"{segment}\""),
            ));
        }
    }
    Ok(())
}

/// Store one result by its dotted key. Juju keeps results as nested maps, so
/// a value replaces whatever was nested under its key, and a nested key
/// replaces a value at any of its parents.
fn set_result(results: &mut BTreeMap<String, String>, key: &str, value: &str) {
    let nested = format!("{key}.");
    results.retain(|k, _| {
        !k.starts_with(&nested)
            && !key
                .strip_prefix(k.as_str())
                .is_some_and(|r| r.starts_with('.'))
    });
    results.insert(key.to_string(), value.to_string());
}

/// Quote an argument for display when it needs it.
fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=/:.,@".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::offline) fn tools(state: SimState) -> SimTools {
        SimTools {
            state: Arc::new(Mutex::new(state)),
            defaults: [("kind".to_string(), serde_json::json!(""))].into(),
            unit: "gw/0".into(),
            action: None,
            departing: None,
            relation: None,
            bindings: ["db".to_string(), "peer".into(), "admin".into()].into(),
            state_dir: "/nonexistent".into(),
            // 2026-11-29T16:22:16Z
            now: 1_795_969_336,
        }
    }

    pub(in crate::offline) fn far() -> std::time::Instant {
        std::time::Instant::now() + std::time::Duration::from_secs(3600)
    }

    pub(in crate::offline) fn call(t: &mut SimTools, tool: &str, args: &[&str]) -> ToolOutput {
        t.call(tool, args, None, far()).unwrap()
    }

    #[test]
    fn ports_and_storage_answer_like_juju() {
        let mut state = SimState::default();
        state.storage.insert(
            "data/0".into(),
            SimStorage {
                kind: "filesystem".into(),
                location: "/srv/data".into(),
            },
        );
        let mut t = tools(state);
        assert_eq!(call(&mut t, "open-port", &["80"]).code, 0);
        assert_eq!(
            call(&mut t, "open-port", &["--endpoints", "db", "8000-8100/UDP"]).code,
            0
        );
        assert_eq!(call(&mut t, "open-port", &["0"]).code, 2);
        assert_eq!(
            call(&mut t, "opened-ports", &["--format=json", "--endpoints"]).stdout,
            b"[\"80/tcp (*)\",\"8000-8100/udp (db)\"]\n"
        );
        assert_eq!(call(&mut t, "close-port", &["80/tcp"]).code, 0);
        assert_eq!(
            call(&mut t, "opened-ports", &["--format=json"]).stdout,
            b"[\"8000-8100/udp\"]\n"
        );
        assert_eq!(
            call(&mut t, "storage-list", &["--format=json", "--", "data"]).stdout,
            b"[\"data/0\"]\n"
        );
        assert_eq!(
            call(&mut t, "storage-get", &["--format=json", "-s", "data/0"]).stdout,
            b"{\"kind\":\"filesystem\",\"location\":\"/srv/data\"}\n"
        );
        let missing = call(&mut t, "storage-get", &["--format=json", "-s", "data/9"]);
        assert_eq!(missing.code, 2);
        assert!(missing.stderr.contains("not found"), "{}", missing.stderr);
    }

    #[test]
    fn answers_like_juju() {
        let mut state = SimState::default();
        state.relations.insert(
            "db:3".into(),
            SimRelation {
                app: "pg".into(),
                units: vec!["pg/1".into(), "pg/0".into()],
                app_data: [("k".to_string(), "v".to_string())].into(),
                ..SimRelation::default()
            },
        );
        let mut t = tools(state);
        assert_eq!(
            call(&mut t, "config-get", &["--format=json"]).stdout,
            b"{\"kind\":\"\"}\n"
        );
        assert_eq!(
            call(&mut t, "is-leader", &["--format=json"]).stdout,
            b"true\n"
        );
        assert_eq!(
            call(&mut t, "relation-ids", &["--format=json", "db"]).stdout,
            b"[\"db:3\"]\n"
        );
        assert_eq!(
            call(&mut t, "relation-list", &["--format=json", "-r", "db:3"]).stdout,
            b"[\"pg/0\",\"pg/1\"]\n"
        );
        assert_eq!(
            call(
                &mut t,
                "relation-get",
                &["--format=json", "-r", "3", "--app", "-", "pg"]
            )
            .stdout,
            b"{\"k\":\"v\"}\n"
        );
        let bad = call(&mut t, "relation-list", &["--format=json", "-r", "db:9"]);
        assert_eq!(bad.code, 2);
        assert_eq!(
            bad.stderr,
            "ERROR invalid value \"db:9\" for option -r: relation not found\n"
        );
        let bad = call(&mut t, "status-set", &["error", "--", "x"]);
        assert_eq!(bad.code, 2);
        assert_eq!(call(&mut t, "status-set", &["blocked", "--", "-x"]).code, 0);
        assert_eq!(
            t.state.lock().unwrap().status.unit,
            Some(Written {
                status: Kind::Blocked,
                message: "-x".into()
            })
        );
        assert_eq!(call(&mut t, "status-get", &["--bogus"]).code, 2);
        assert_eq!(call(&mut t, "is-leader", &["--bogus"]).code, 2);
    }

    #[test]
    fn status_get_reads_back_what_status_set_wrote_as_juju_shows_it() {
        let mut t = tools(SimState::default());
        let text = |o: &ToolOutput| String::from_utf8_lossy(&o.stdout).into_owned();
        let full = ["--include-data", "--format=json"];
        let got = call(&mut t, "status-get", &full);
        assert_eq!(
            text(&got),
            "{\"message\":\"\",\"status\":\"unknown\",\"status-data\":{}}\n"
        );
        assert_eq!(call(&mut t, "status-set", &["waiting", "--", "db"]).code, 0);
        assert_eq!(text(&call(&mut t, "status-get", &[])), "waiting\n");
        assert_eq!(
            text(&call(&mut t, "status-get", &["--format=json"])),
            "{\"status\":\"waiting\"}\n"
        );
        t.state.lock().unwrap().leader = true;
        let app = call(
            &mut t,
            "status-get",
            &["--application", "--include-data", "--format=json"],
        );
        let doc: serde_json::Value = serde_json::from_slice(&app.stdout).unwrap();
        assert_eq!(doc["application-status"]["status"], "unknown");
        assert_eq!(
            doc["application-status"]["units"][t.unit.as_str()]["message"],
            "db"
        );
        t.state.lock().unwrap().leader = false;
        let refused = call(&mut t, "status-get", &["--application"]);
        assert_eq!(refused.code, 1);
        assert!(text(&refused).is_empty());
    }

    #[test]
    fn action_set_checks_keys_like_juju_and_stores_results() {
        let mut t = tools(SimState::default());
        let results = |t: &SimTools| t.state.lock().unwrap().action_results.clone();
        // In a hook: a run-time error, after the arguments were checked.
        let out = call(&mut t, "action-set", &["a=1"]);
        assert_eq!(out.code, 1);
        assert_eq!(out.stderr, "ERROR not running an action\n");
        assert_eq!(call(&mut t, "action-set", &["A=1"]).code, 2);

        t.action = Some("show-status".into());
        let bad_key = |k: &str| {
            format!(
                "key \"{k}\" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric, hyphens and periods"
            )
        };
        for (arg, error) in [
            (
                "noequals",
                "argument \"noequals\" must be of the form key...=value".to_string(),
            ),
            (
                "-foo=1",
                "option provided but not defined: -foo".to_string(),
            ),
            ("foo-=1", bad_key("foo-")),
            ("-=1", "option provided but not defined: -".to_string()),
            ("Foo=1", bad_key("Foo")),
            ("foo!bar=1", bad_key("foo!bar")),
            ("foo..bar=1", bad_key("")),
            (".foo=1", bad_key("")),
            ("foo.=1", bad_key("")),
            ("=1", bad_key("")),
            (
                "stdout=1",
                "cannot set reserved action key \"stdout\"".to_string(),
            ),
            (
                "a.stderr=1",
                "cannot set reserved action key \"stderr\"".to_string(),
            ),
            (
                "stdout-encoding=1",
                "cannot set reserved action key \"stdout-encoding\"".to_string(),
            ),
            (
                "stderr-encoding.x=1",
                "cannot set reserved action key \"stderr-encoding\"".to_string(),
            ),
        ] {
            let out = call(&mut t, "action-set", &["ok=1", arg]);
            assert_eq!(out.code, 2, "{arg}");
            assert_eq!(out.stderr, format!("ERROR {error}\n"), "{arg}");
            assert!(
                results(&t).is_empty(),
                "{arg}: nothing is set when any argument is bad"
            );
        }

        // Values are everything after the first `=`, multi-line and empty included.
        let out = call(
            &mut t,
            "action-set",
            &[
                "a=b=c",
                "x-y.z0=hello world",
                "e=",
                "500=1",
                "5-o-0=two\nlines",
            ],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        // Results accumulate across calls; a key set again takes the new value.
        assert_eq!(call(&mut t, "action-set", &["a=again"]).code, 0);
        assert_eq!(call(&mut t, "action-set", &[]).code, 0);
        let want = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            results(&t),
            want(&[
                ("5-o-0", "two\nlines"),
                ("500", "1"),
                ("a", "again"),
                ("e", ""),
                ("x-y.z0", "hello world"),
            ])
        );
        // Juju nests dotted keys: a value replaces what was under it, and a
        // nested key replaces a value at its parent.
        assert_eq!(call(&mut t, "action-set", &["x-y=flat", "a.b=1"]).code, 0);
        assert_eq!(results(&t)["x-y"], "flat");
        assert!(!results(&t).contains_key("x-y.z0"));
        assert_eq!(results(&t)["a.b"], "1");
        assert!(!results(&t).contains_key("a"));
    }

    #[test]
    fn action_fail_takes_at_most_one_message_and_needs_an_action_like_juju() {
        let mut t = tools(SimState::default());
        let failed = |t: &SimTools| t.state.lock().unwrap().action_failed.clone();
        // Arguments are checked first (exit 2), then that an action runs
        // (exit 1).
        let out = call(&mut t, "action-fail", &["--", "a", "b", "c d"]);
        assert_eq!(out.code, 2);
        assert_eq!(out.stderr, "ERROR unrecognized args: [\"b\" \"c d\"]\n");
        let out = call(&mut t, "action-fail", &["--bogus"]);
        assert_eq!(out.code, 2);
        assert_eq!(
            out.stderr,
            "ERROR option provided but not defined: --bogus\n"
        );
        let out = call(&mut t, "action-fail", &["--", "why"]);
        assert_eq!(out.code, 1);
        assert_eq!(out.stderr, "ERROR not running an action\n");
        assert_eq!(failed(&t), None);

        t.action = Some("self-check".into());
        let out = call(&mut t, "action-fail", &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout, b"");
        assert_eq!(failed(&t).as_deref(), Some(DEFAULT_ACTION_FAIL));
        assert_eq!(
            DEFAULT_ACTION_FAIL,
            "action failed without reason given, check action for errors"
        );
        // A later call replaces the message; `--` lets it start with `-`.
        assert_eq!(
            call(&mut t, "action-fail", &["--", "-1 of 2 unhealthy"]).code,
            0
        );
        assert_eq!(failed(&t).as_deref(), Some("-1 of 2 unhealthy"));
        assert_eq!(call(&mut t, "action-fail", &["plain"]).code, 0);
        assert_eq!(failed(&t).as_deref(), Some("plain"));
        // Results and the failure are kept apart, as Juju keeps them.
        assert!(t.state.lock().unwrap().action_results.is_empty());
        assert_eq!(
            t.state.lock().unwrap().calls,
            [
                "action-fail -- a b 'c d'  → exit 2",
                "action-fail --bogus  → exit 2",
                "action-fail -- why  → exit 1",
                "action-fail",
                "action-fail -- '-1 of 2 unhealthy'",
                "action-fail plain",
            ]
        );
    }

    #[test]
    fn scripted_probes_are_read_and_written_back() {
        let text = "probes:\n  api-port: {healthy: false, detail: \"port 127.0.0.1:8774 not listening\"}\n  \
                    web: {healthy: true}\n";
        let state: SimState = serde_saphyr::from_str(text).unwrap();
        assert_eq!(
            state.probes,
            [
                (
                    "api-port".to_string(),
                    ScriptedProbe {
                        healthy: false,
                        detail: Some("port 127.0.0.1:8774 not listening".into())
                    }
                ),
                (
                    "web".to_string(),
                    ScriptedProbe {
                        healthy: true,
                        detail: None
                    }
                ),
            ]
            .into()
        );
        let again: SimState =
            serde_saphyr::from_str(&serde_saphyr::to_string(&state).unwrap()).unwrap();
        assert_eq!(again, state);
        // A typo in a scripted outcome is refused, not ignored.
        let e = serde_saphyr::from_str::<SimState>("probes:\n  web: {healty: true}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("healty"), "{e}");
        // Neither section is written when empty.
        let empty = serde_saphyr::to_string(&SimState::default()).unwrap();
        assert!(!empty.contains("probes"), "{empty}");
        assert!(!empty.contains("action-failed"), "{empty}");
    }

    #[test]
    fn departing_unit_is_not_listed_but_its_data_is_readable() {
        let mut state = SimState::default();
        state.relations.insert(
            "db:1".into(),
            SimRelation {
                app: "pg".into(),
                units: vec!["pg/0".into(), "pg/1".into()],
                unit_data: [(
                    "pg/1".to_string(),
                    [("k".to_string(), "v".to_string())].into(),
                )]
                .into(),
                ..SimRelation::default()
            },
        );
        let mut t = tools(state);
        t.departing = Some(("db:1".into(), "pg/1".into()));
        assert_eq!(
            call(&mut t, "relation-list", &["--format=json", "-r", "1"]).stdout,
            b"[\"pg/0\"]\n"
        );
        assert_eq!(
            call(
                &mut t,
                "relation-get",
                &["--format=json", "-r", "1", "-", "pg/1"]
            )
            .stdout,
            b"{\"k\":\"v\"}\n"
        );
    }

    #[test]
    fn relation_set_reads_stdin_and_deletes_empty() {
        let mut state = SimState::default();
        state
            .relations
            .insert("db:1".into(), SimRelation::default());
        state
            .relations
            .get_mut("db:1")
            .unwrap()
            .local_unit_data
            .insert("old".into(), "1".into());
        let t = tools(state);
        let out = t
            .call(
                "relation-set",
                &["-r", "db:1", "--file", "-"],
                Some(br#"{"old":"","new":"2"}"#),
                far(),
            )
            .unwrap();
        assert_eq!(out.code, 0);
        let s = t.state.lock().unwrap();
        assert_eq!(
            s.relations["db:1"].local_unit_data,
            [("new".to_string(), "2".to_string())].into()
        );
    }

    #[test]
    fn action_get_answers_the_params_whole_or_by_dotted_path() {
        let params = serde_json::json!({"target": "/srv", "opts": {"level": 3}});
        let state = SimState {
            action_params: params.as_object().cloned().unwrap_or_default(),
            ..SimState::default()
        };
        let mut t = tools(state);
        let out = call(&mut t, "action-get", &["--format=json"]);
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (1, "ERROR not running an action\n")
        );
        assert_eq!(call(&mut t, "action-get", &["a", "b"]).code, 2);

        t.action = Some("backup".into());
        let get = |t: &mut SimTools, args: &[&str]| {
            let out = call(t, "action-get", args);
            assert_eq!(out.code, 0, "{}", out.stderr);
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(
            get(&mut t, &["--format=json"]),
            "{\"opts\":{\"level\":3},\"target\":\"/srv\"}\n"
        );
        assert_eq!(get(&mut t, &["--format=json", "opts.level"]), "3\n");
        assert_eq!(get(&mut t, &["--format=json", "opts.nope"]), "null\n");
        let out = call(&mut t, "action-get", &["--format=json", "a", "b"]);
        assert_eq!(out.stderr, "ERROR unrecognized args: [\"b\"]\n");
    }

    #[test]
    fn action_log_keeps_each_progress_message_at_once() {
        let mut t = tools(SimState::default());
        assert_eq!(call(&mut t, "action-log", &["--", "x"]).code, 1);
        t.action = Some("backup".into());
        let out = call(&mut t, "action-log", &[]);
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (2, "ERROR no message specified\n")
        );
        assert_eq!(call(&mut t, "action-log", &["--", "-1 of", "2"]).code, 0);
        assert_eq!(t.state.lock().unwrap().log, ["ACTION -1 of 2"]);
    }
}

#[cfg(test)]
mod state_file_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn stored_text_yaml_reads_otherwise_survives_the_state_file() {
        let tricky = [
            "",
            " ",
            "\0",
            "\u{feff}x",
            "- a",
            "k: v",
            "\r\n",
            "\u{85}",
            "\u{2028}",
            "~",
            "null",
            "'",
            "\"",
            "#",
            "0x1",
            "true",
            "1e3",
            "|",
            ">",
            "\t\tx\n",
        ];
        let store = ScopeStore {
            data: tricky
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("k{i}"), v.to_string()))
                .collect(),
            ..ScopeStore::default()
        };
        let state = SimState {
            scopes: Some(store),
            ..SimState::default()
        };
        let text = serde_saphyr::to_string(&state).unwrap();
        let back: SimState = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(back, state, "{text}");
    }

    proptest! {
        /// The charm's own data is kept in the state file's `scopes`: any
        /// text survives its YAML.
        #[test]
        fn stored_data_survives_the_state_file(
            data in prop::collection::btree_map("[a-zA-Z0-9._:/-]{1,12}", any::<String>(), 0..6),
        ) {
            let store = ScopeStore { data: data.into_iter().collect(), ..ScopeStore::default() };
            let state = SimState { scopes: Some(store), ..SimState::default() };
            let text = serde_saphyr::to_string(&state).unwrap();
            let back: SimState = serde_saphyr::from_str(&text).unwrap();
            prop_assert_eq!(back, state);
        }
    }
}
