//! The entry points of the fuzz targets (`fuzz/`): one function per parser
//! family, taking raw bytes as the file, variable or answer arrives. Each
//! must never panic on any input; where it is cheap it also checks a
//! round trip, and panics when that breaks. They live here rather than in
//! the fuzz crate so that the ordinary test suite (`tests/fuzz_regressions.rs`,
//! stable) runs every seed and every crash found through the very same code.

use crate::bindings::model::Host as _;
use crate::bindings::network::Host as _;
use crate::bindings::ports::Host as _;
use crate::bindings::relations::{Databag, Host as _};
use crate::bindings::secrets::{Host as _, SecretRead};
use crate::bindings::storage::Host as _;
use crate::bindings::{RelationRef, parse_relation_id};
use crate::charm_dir::{Actions, ConfigSchema, Manifest, Metadata, deadlines, probes};
use crate::event::{self, Resolved};
use crate::hook_tools::{HookTools, ToolOutput};
use crate::juju_env::JujuEnv;
use crate::model::{EventFacts, Identity, Model};
use crate::pebble::{client, exec, files, notices, websocket};
use crate::status::store::ScopeStore;
use crate::status::store_chunks;
use crate::status::store_juju::{self, JujuStore};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// A fuzz target: its name and its entry point.
pub type Target = (&'static str, fn(&[u8]));

/// The target names, as `fuzz/fuzz_targets/<name>.rs` and the corpus
/// folders spell them, with their entry point.
pub fn targets() -> Vec<Target> {
    let all: Vec<Target> = vec![
        ("juju_env", juju_env),
        ("charm_yaml", charm_yaml),
        ("manifest", manifest),
        ("scope_store", scope_store),
        ("juju_store", juju_store),
        ("hook_tools", hook_tools),
        ("pebble_http", pebble_http),
        ("pebble_websocket", pebble_websocket),
    ];
    // The simulator's parsers are the CLI's.
    #[cfg(feature = "cli")]
    let all = {
        let mut all = all;
        all.extend([
            ("state_file", cli::state_file as fn(&[u8])),
            ("scenario", cli::scenario),
            ("recording", cli::recording),
        ]);
        all
    };
    all
}

/// A charm with one of everything an event can name: the environment's
/// events are resolved against it.
const METADATA: &str = "name: fuzz
requires:
  db: {interface: pgsql}
provides:
  website: {interface: http}
peers:
  cluster: {interface: fuzz-peers}
storage:
  data: {type: filesystem}
  raw: {type: block}
containers:
  web: {resource: web-image}
resources:
  web-image: {type: oci-image}
extra-bindings:
  admin: null
";

const ACTIONS: &str = "backup:
  params:
    target: {type: string}
    compress: {type: boolean}
    level: {type: integer}
    ratio: {type: number}
    tags: {type: array}
    extra: {type: object}
  required: [target]
  additionalProperties: false
ping: {}
";

const CONFIG: &str = "options:
  port: {type: int, default: 80}
  name: {type: string}
  ratio: {type: float}
  debug: {type: boolean, default: false}
  password: {type: secret}
";

fn charm() -> &'static (Metadata, Actions, ConfigSchema) {
    static CHARM: OnceLock<(Metadata, Actions, ConfigSchema)> = OnceLock::new();
    CHARM.get_or_init(|| {
        let at = Path::new("fuzz");
        // Constants of this file: a failure is a bug here, found at once.
        (
            Metadata::parse(METADATA, at).expect("the fuzz metadata parses"),
            Actions::parse(ACTIONS, at).expect("the fuzz actions parse"),
            ConfigSchema::parse(CONFIG, at).expect("the fuzz config parses"),
        )
    })
}

/// Juju's environment (`KEY=value` lines) and the dispatch path in it,
/// resolved into an event.
pub fn juju_env(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let env = JujuEnv::from_vars(text.lines().filter_map(|l| l.split_once('=')));
    let _ = env.juju_context();
    let _ = (env.unit_name(), env.app_name(), env.on_kubernetes());
    for line in text.lines() {
        let _ = event::parse_dispatch_path(line);
        let _ = parse_relation_id(line);
    }
    let (metadata, actions, _) = charm();
    if let Ok(Resolved::Event(e)) = event::resolve(&env, metadata, actions) {
        let _ = (
            event::describe(&e),
            event::kind_of(&e),
            event::entity_of(&e),
        );
    }
}

/// metadata.yaml, config.yaml and actions.yaml: each parser reads the text.
pub fn charm_yaml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let at = Path::new("fuzz.yaml");
    let actions = Actions::parse(text, at).unwrap_or_default();
    for name in &actions.names {
        let schema = actions.schema(name);
        let _ = schema.check(json!({}));
        let _ = schema.check(json!({"target": "x", "level": 1, "ratio": 0.5}));
    }
    if let Ok(metadata) = Metadata::parse(text, at) {
        let _ = event::event_names(&metadata, &actions);
    }
    let _ = ConfigSchema::parse(text, at);
}

/// wasm-charm.yaml, and its checks against metadata.yaml's containers.
pub fn manifest(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(manifest) = Manifest::parse(text, Path::new("wasm-charm.yaml")) else {
        return;
    };
    let containers = ["web".to_string()];
    let _ = probes::check_containers(&manifest.probes, &containers);
    let _ = manifest.workload.check_containers(&containers);
    let handlers = ["install", "config-changed", "backup"];
    let _ = deadlines::warnings(&manifest, &handlers);
    let _ = manifest.longest_deadline(handlers);
}

/// The scope store document (the local file; the Juju backend's joined
/// chunks are the same document): decoding, and encoding back to the same.
pub fn scope_store(data: &[u8]) {
    let Ok(store) = ScopeStore::decode(data) else {
        return;
    };
    let again = ScopeStore::decode(&store.encode()).expect("an encoded store decodes");
    assert_eq!(again, store, "the local encoding round-trips");
    let compact = store_juju::encode(&store);
    let again = ScopeStore::decode(compact.as_bytes()).expect("a compact store decodes");
    assert_eq!(again, store, "the charm-state encoding round-trips");
    assert!(!store.worth_saving_over(&store));
}

/// Hook tools answering every call with the same output: `data` as stdout
/// (exit 0), or, when it starts with `!`, the rest as stderr of exit 1.
struct Answering(Vec<u8>);

impl HookTools for Answering {
    fn call(
        &self,
        _tool: &str,
        _args: &[&str],
        _stdin: Option<&[u8]>,
        _deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        Ok(match self.0.strip_prefix(b"!") {
            Some(stderr) => ToolOutput::error(1, String::from_utf8_lossy(stderr)),
            None => ToolOutput::ok(self.0.clone()),
        })
    }
}

/// The Juju backend's store: `state-get`'s answer, its chunks joined and the
/// document decoded; and any text split into chunks joins back to itself.
pub fn juju_store(data: &[u8]) {
    let mut backend = JujuStore::new(Arc::new(Answering(data.to_vec())));
    if let Ok(store) = backend.load() {
        let doc = store_juju::encode(&store);
        let joined = store_chunks::join(&store_chunks::split(&doc));
        assert_eq!(joined, Ok(Some(doc)), "a saved store joins back");
    }
    let text = String::from_utf8_lossy(data);
    let parts = store_chunks::split(&text);
    let joined = store_chunks::join(&parts);
    assert_eq!(joined, Ok(Some(text.to_string())), "split text joins back");
    let _ = store_chunks::plan(&BTreeMap::new(), &text);
    if let Ok(state) = serde_json::from_slice::<BTreeMap<String, String>>(data) {
        let _ = store_juju::decode_state(&state);
        let _ = store_chunks::plan(&state, "{}");
    }
}

/// Every model call that reads a hook tool's answer, each given `data`
/// as that answer; and `action-get`'s answer checked against a schema.
pub fn hook_tools(data: &[u8]) {
    let (_, actions, schema) = charm();
    let identity = Identity {
        unit: "fuzz/0".into(),
        app: "fuzz".into(),
        model: "m".into(),
        juju: None,
        kubernetes: false,
    };
    let mut facts = EventFacts::new(schema.clone(), identity);
    facts.set_endpoints(["db", "website", "cluster"].map(String::from).into());
    facts.set_storage(["data"].map(String::from).into());
    facts.set_extra_bindings(["admin"].map(String::from).into());
    let tools: Arc<dyn HookTools> = Arc::new(Answering(data.to_vec()));
    let mut m = Model::for_event(tools, Arc::new(facts));
    let rel = RelationRef {
        endpoint: "db".into(),
        id: 1,
    };
    let _ = m.config();
    let _ = m.is_leader();
    let _ = m.goal_state();
    let _ = m.credential_get();
    let _ = m.resource_get("web-image".into());
    let _ = m.relation_ids("db".into());
    let _ = m.relation_units(rel.clone());
    let _ = m.relation_app(rel.clone());
    let _ = m.relation_model_get(rel.clone());
    for bag in [
        Databag::LocalUnit,
        Databag::LocalApp,
        Databag::RemoteApp,
        Databag::RemoteUnit("pg/0".into()),
    ] {
        let _ = m.relation_get(rel.clone(), bag);
    }
    let _ = m.network_get("db".into(), None);
    let _ = m.network_get("admin".into(), Some(rel));
    let _ = m.storage_list(None);
    let _ = m.storage_get("data/0".into());
    let _ = m.opened_ports();
    let _ = m.secret_ids();
    let _ = m.secret_info_get(Some("secret:fuzz".into()), None);
    for read in [SecretRead::Current, SecretRead::Peek, SecretRead::Refresh] {
        let _ = m.secret_get(None, Some("label".into()), read);
    }
    let mut store = JujuStore::new(Arc::new(Answering(data.to_vec())));
    let _ = store.load();
    if let Ok(given) = serde_json::from_slice::<Value>(data) {
        let _ = actions.schema("backup").check(given.clone());
        let _ = actions.schema("ping").check(given);
    }
}

/// Pebble's JSON answers: two bytes of HTTP status, then the body. The
/// envelope, the result of each call, an exec's start and exit; and a
/// multipart answer (its first line the content type, the rest the body).
pub fn pebble_http(data: &[u8]) {
    let Some((status, body)) = data.split_first_chunk::<2>() else {
        return;
    };
    let status = u16::from_be_bytes(*status);
    let _ = exec::parse_started(status, body);
    if let Ok(envelope) = client::parse_envelope(status, body) {
        let value = match envelope {
            client::Envelope::Sync(v) => v,
            async_ => {
                let _ = client::sync_result(async_);
                return;
            }
        };
        let _ = client::change_failure(&value);
        let _ = exec::parse_exit(&value);
        let _ = files::parse_files(&value);
        let _ = files::file_result_error(&value);
        let _ = crate::pebble::parse_services(&value);
        let _ = crate::pebble::parse_checks(&value);
        let _ = crate::pebble::parse_changed(&value);
        let _ = notices::parse_notice(&value);
        if let Some(list) = value.as_array() {
            list.iter().for_each(|n| {
                let _ = notices::parse_notice(n);
            });
        }
    }
    let text = String::from_utf8_lossy(body);
    let _ = notices::go_duration_ms(&text);
    let (head, rest) = body
        .iter()
        .position(|b| *b == b'\n')
        .map_or((body, &[][..]), |i| (&body[..i], &body[i + 1..]));
    if let Some(boundary) = client::boundary_of(&String::from_utf8_lossy(head)) {
        let _ = client::parse_multipart(rest, &boundary);
    }
}

/// Websocket frames as Pebble sends them: decoded one after another and
/// assembled into messages; each frame encodes back to one that decodes
/// the same.
pub fn pebble_websocket(data: &[u8]) {
    let mut assembler = websocket::Assembler::default();
    let mut rest = data;
    while let Ok(Some((frame, used))) = websocket::decode(rest) {
        assert!(used > 0 && used <= rest.len(), "a frame takes its bytes");
        for mask in [None, Some([1, 2, 3, 4])] {
            let bytes = websocket::encode(&frame, mask);
            let back = websocket::decode(&bytes).expect("an encoded frame decodes");
            assert_eq!(
                back,
                Some((frame.clone(), bytes.len())),
                "frames round-trip"
            );
        }
        if assembler.push(frame).is_err() {
            break;
        }
        rest = &rest[used..];
    }
}

/// The parsers of what the simulator, scenarios and replay read.
#[cfg(feature = "cli")]
pub mod cli {
    use crate::hook_tools::HookTools;
    use crate::juju_env::JujuEnv;
    use crate::offline::state_file;
    use crate::record::format;
    use crate::replay;
    use std::path::Path;
    use std::time::Instant;

    /// `wasm-charm run`'s state file; what parses saves and parses again
    /// to the same state.
    pub fn state_file(data: &[u8]) {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let Ok(state) = state_file::parse_state(text) else {
            return;
        };
        let saved = serde_saphyr::to_string(&state).expect("a parsed state saves");
        let again = state_file::parse_state(&saved).expect("a saved state parses");
        assert_eq!(again, state, "the state file round-trips");
    }

    /// A scenario file.
    pub fn scenario(data: &[u8]) {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let _ = crate::scenario::format::parse_text(Path::new("fuzz.yaml"), text);
    }

    /// A recording (`recording.jsonl`): its events, the store each loaded,
    /// and the recorded answers given back as replay gives them. Each event
    /// written again reads back the same.
    pub fn recording(data: &[u8]) {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let Ok(events) = format::parse(text) else {
            return;
        };
        for rec in events {
            let line = serde_json::to_string(&rec).expect("an event serialises");
            let back = format::parse(&line).expect("a written event parses");
            assert_eq!(back, vec![rec.clone()], "an event round-trips");
            let _ = replay::loaded_store(&rec);
            let _ = JujuEnv::from_vars(rec.env.clone()).juju_context();
            let tools = replay::answers::Tools::new(rec.calls.clone());
            for call in &rec.calls {
                let _ = call.answer.result();
                let Some((tool, args)) = call.argv.split_first() else {
                    continue;
                };
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let stdin = call.stdin.as_ref().map(String::as_bytes);
                let _ = tools.call(tool, &args, stdin, Instant::now());
            }
            for probe in &rec.probes {
                let _ = probe.outcome();
            }
            for call in &rec.workload {
                let _ = call.answer.unit();
                let _ = call.answer.state();
                let _ = call.answer.installed();
                let _ = call.answer.output();
            }
            let _ = rec.outcome.clone().relocated("/from", "/to");
        }
    }
}
