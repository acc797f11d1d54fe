//! The command line of `wasm-charm run` ([`RunArgs`]), and the error a
//! problem with it is ([`UsageError`]).

use std::path::PathBuf;

/// A problem with the command line: `main` exits 2 for it, as the README
/// promises, where a failed hook exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Arguments of `wasm-charm run`.
#[derive(Debug, Default, clap::Args)]
#[command(after_help = "\
Defaults (the state file records them; edit it to change them):
  state file   <charm dir>.offline-state.yaml beside the charm directory
               (`gateway` -> `gateway.offline-state.yaml`), never inside it,
               where it would ship with the charm
  unit         <charm name>/0 (the state's `unit`)
  leadership   true: a lone unit leads its application (the state's `leader`)
  relation     the endpoint's only relation; created/joined/changed events
               create a relation `<endpoint>:<n>` with n one more than the
               highest id in the state (0 for the first)
  remote unit  joined/changed: <remote app>/0 if the relation has no unit,
               else its first unit; departed: the relation's first unit
  storage      <storage>/0, filesystem, at /var/lib/juju/storage/<storage>/0
  root         the directories the charm declares (wasm-charm.yaml
               `workload.files`) are looked up under --root, else
               $WASM_CHARM_ROOT, else <state file>.root beside the state
               file (`gateway.offline-state.root`), created when the charm
               declares directories or containers (their Pebble sockets are
               there); a missing read-write one is created in
               it, a missing read one is skipped with a warning: put files
               there for the charm to read (not recorded in the state file).
               The machine's own /etc is never touched unless named
  notice type  custom
  store        as wasm-charm.yaml's `store` says: `local` and `auto` (the
               simulated unit is a machine's) keep the scope store in the
               state's `scopes`; `juju` in its `charm-state`, Juju's charm
               state, through state-get/state-set, with Juju's quotas
  probes       run for real, as on the unit; the state's `probes` scripts
               outcomes by name instead, kept from run to run until edited:
                 probes:
                   api-port: {healthy: false, detail: \"port 127.0.0.1:8774 not listening\"}
               (`detail` defaults to a message naming the probe); a name the
               charm's wasm-charm.yaml does not declare is refused (exit 2)
  networks     network-get: every relation endpoint and extra binding of
               metadata.yaml at 10.0.0.10 on 10.0.0.0/24 (eth0), ingress the
               same, egress 10.0.0.10/32; the state's `networks` changes any
               of these per binding (address, cidr, hostname, interface-name,
               mac-address, ingress-addresses, egress-subnets):
                 networks:
                   admin: {address: 192.168.1.5, cidr: 192.168.1.0/24}
  goal-state   this unit, its peers and each related application (`joined`,
               or `joining` while it has no units) and unit, from the state's
               relations
  trust        false: credential-get fails until the state says `trusted:
               true`; it then answers the state's `credential` (a cloud spec:
               type, name, region, endpoint, credential: {auth-type, attrs,
               redacted}, …), else a local LXD cloud's
  resources    none: resource-get fails until the state's `resources` names
               a file (relative to the state file's directory):
                 resources:
                   workload-image: image.json
  secrets      none; the state's `secrets` holds them by id, the charm's own
               (`owner: application` or `unit`) and those shared with it
               (`owner: <application>`, `tracking: <revision>` once read):
                 secrets:
                   secret:d1ulvkcavc0s73ak2mcg:
                     owner: vault
                     revisions: [{revision: 1, content: {token: s3cret}}]
                     label: vault-token
               secret-add makes `secret:<id>` ids; what a hook adds, sets,
               removes, grants or revokes is saved only when it succeeds
  machine      simulated, never touched: the state's `machine` keeps what the
               workload calls did (they act at once, kept by a failed hook too)
                 machine:
                   services: {api-service: {active: active, enabled: enabled}}
                   packages: [api-service]      # installed
                   commands:                    # scripted outcomes, by name
                     db-sync: {exit: 1, stderr: locked}
                   calls: [systemctl restart -- api-service]   # the last event's
               a unit not named is inactive and disabled; a command not
               scripted exits 0 and prints nothing (`exit` is a code or
               timed-out); a scripted name the manifest does not declare is
               refused (exit 2)
  containers   each container of metadata.yaml has a simulated Pebble while
               the event runs, on the socket the host's Pebble client uses
               (<root>/charm/containers/<name>/pebble.socket), answered from
               the state's `containers` (it acts at once: a failed hook keeps
               what it did):
                 containers:
                   web:
                     can-connect: true          # false: no socket
                     layers: [{label: web, services: {web: {override: replace,
                               command: web-server, startup: enabled}}}]
                     services: {web: active}    # active, inactive, backoff, error
                     checks: {alive: {status: down, failures: 3, threshold: 3}}
                     files: {/etc/web/web.conf: \"port = 8080\\n\"}
                     dirs: [/etc/web]
                     exec:                      # scripted outcomes, by name
                       check-config: {exit: 1, stderr: bad port}
                     calls: [push /etc/web/web.conf, replan]   # the last event's
               replan starts the enabled services and restarts the running
               ones whose definition changed; a check not named is up; a
               file is text, or {content or hex, permissions}; a declared
               command not scripted exits 0 and prints nothing; a container
               metadata.yaml lacks, or a scripted name the manifest does not
               declare for it, is refused (exit 2)

An action's parameters are the --param flags, checked against actions.yaml
with its defaults filled in, as Juju does (parameters that do not fit exit
2). Its progress messages are printed as `log: ACTION <message>`, its
results as `result <key>: <value>`, and a message it left with `action-fail`
as `action failed: <message>`; the run still exits 0, as the action's
process does in Juju, also when a handler's error or trap failed the action
(its scopes and relation data are then not saved).

Exit codes: 0 success, 1 the hook failed (relation data, ports, secret
changes, scopes and the charm's stored data are then not saved, as Juju
commits nothing of a failed hook), 2 bad arguments (and a state file naming
a binding, resource, container or secret id metadata.yaml or Juju would not
have).")]
pub struct RunArgs {
    /// The charm directory (as `wasm-charm pack` assembles it).
    pub charm: PathBuf,
    /// The event: a hook name (`config-changed`, `db-relation-joined`) or a
    /// dispatch path (`actions/backup`); it must be an event of this charm.
    #[arg(long)]
    pub event: String,
    /// The state file; created on first use.
    /// [default: <charm dir>.offline-state.yaml, beside the charm directory]
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// The directory the charm's declared directories (wasm-charm.yaml
    /// `workload.files`) are looked up under instead of `/`; it must exist.
    /// [default: $WASM_CHARM_ROOT, else <state file>.root beside the state
    /// file, created when the charm declares directories or containers]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Set a config option before the event (`kind=ingress`; `kind=` sets "").
    #[arg(long = "config", value_name = "KEY=VALUE", value_parser = config_flag)]
    pub config: Vec<KeyValue>,
    /// Make this unit the leader, or not. [default: as the state says; true at first]
    #[arg(long)]
    pub leader: Option<bool>,
    /// The relation of a relation event (`db:1`); created for created, joined
    /// and changed events when missing. [default: the endpoint's only relation]
    #[arg(long)]
    pub relation: Option<String>,
    /// The remote application of a relation the event creates.
    #[arg(long)]
    pub remote_app: Option<String>,
    /// The remote unit of a relation event (for departed: the unit leaving).
    #[arg(long)]
    pub remote_unit: Option<String>,
    /// Set a key of the remote application's databag (`key=` deletes it).
    #[arg(long = "remote-app-data", value_name = "KEY=VALUE", value_parser = remote_app_data_flag)]
    pub remote_app_data: Vec<KeyValue>,
    /// Set a key of the remote unit's databag (`key=` deletes it).
    #[arg(long = "remote-unit-data", value_name = "KEY=VALUE", value_parser = remote_unit_data_flag)]
    pub remote_unit_data: Vec<KeyValue>,
    /// The storage instance of a storage event (`data/1`). [default: <storage>/0]
    #[arg(long, value_name = "NAME/N")]
    pub storage: Option<String>,
    /// The container of a Pebble event; must match the hook's. [default: the hook's]
    #[arg(long)]
    pub container: Option<String>,
    /// The notice of a pebble-custom-notice event: its id (required).
    #[arg(long)]
    pub notice_id: Option<String>,
    /// The notice's type. [default: custom]
    #[arg(long)]
    pub notice_type: Option<String>,
    /// The notice's key (`example.com/a`; required).
    #[arg(long)]
    pub notice_key: Option<String>,
    /// The check of a pebble-check-failed or -recovered event (required).
    #[arg(long)]
    pub check: Option<String>,
    /// The secret of a secret event (`secret:…`; required).
    #[arg(long)]
    pub secret_id: Option<String>,
    /// The secret's label.
    #[arg(long)]
    pub secret_label: Option<String>,
    /// The revision of a secret-remove or secret-expired event (required).
    #[arg(long)]
    pub secret_revision: Option<String>,
    /// Give the action a parameter (`target=/srv/backups`); the value is
    /// YAML, as `juju run` reads it (`compress=false` is a boolean), and a
    /// dotted key nests (`opts.level=3`). Checked against actions.yaml, with
    /// its defaults filled in, as Juju does.
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = param_flag)]
    pub param: Vec<Param>,
    /// The time the event runs at, for the store's history, secrets and
    /// the probes' grace periods, instead of the system clock (a probe's
    /// back-off then moves this clock on instead of sleeping):
    /// `wasm-charm test`'s clock, which moves only when a step says so.
    #[arg(skip)]
    pub now: Option<std::time::SystemTime>,
}

/// A key and its value, as `--config`, `--remote-app-data` and
/// `--remote-unit-data` give them: typed here, so that what runs an event in
/// memory (the harness, scenario files) hands them over as they are and
/// only the command line parses `KEY=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub key: String,
    /// Empty: the option set to "" (`--config`), the key deleted (the data).
    pub value: String,
}

impl KeyValue {
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: value.into(),
        }
    }
}

/// An action parameter, as `--param` gives it: a key (dotted keys nest, as
/// `juju run` nests them) and a value of any JSON type.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub key: String,
    pub value: serde_json::Value,
}

impl Param {
    pub fn new(key: impl Into<String>, value: impl Into<serde_json::Value>) -> Param {
        Param {
            key: key.into(),
            value: value.into(),
        }
    }
}

fn key_value(flag: &str, kv: &str) -> Result<KeyValue, String> {
    match kv.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok(KeyValue::new(k, v)),
        _ => Err(format!("--{flag} takes KEY=VALUE, got `{kv}`")),
    }
}

fn config_flag(kv: &str) -> Result<KeyValue, String> {
    key_value("config", kv)
}

fn remote_app_data_flag(kv: &str) -> Result<KeyValue, String> {
    key_value("remote-app-data", kv)
}

fn remote_unit_data_flag(kv: &str) -> Result<KeyValue, String> {
    key_value("remote-unit-data", kv)
}

/// `--param KEY=VALUE`, the value read as YAML as `juju run` reads it
/// (`compress=false` is a boolean, `level=3` an integer; `key=` is "").
pub(crate) fn param_flag(kv: &str) -> Result<Param, String> {
    let KeyValue { key, value } = key_value("param", kv)?;
    let value = if value.is_empty() {
        serde_json::Value::String(String::new())
    } else {
        serde_saphyr::from_str::<serde_json::Value>(&value)
            .map_err(|e| format!("--param {key}: `{value}` is not a YAML value: {e}"))?
    };
    Ok(Param { key, value })
}
