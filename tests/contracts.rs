//! Contract tests: a wasm charm of the repository's own, speaking an
//! interface through the SDK's typed bags, related in the offline model to
//! a small ops charm of the tests' own that speaks it through the pinned
//! PyPI library (`tests/interface-libs/requirements.txt`); the exchange run
//! to settled, each side's view checked, and no write of either side
//! outside the interface's description.

use crate::support::{copy_charm, interface_libs_venv, packed, workspace_root};
use crate::world::Juju;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The ops charm `tests/<name>` in `dir`, the interface libraries' venv
/// linked in.
fn ops_charm(dir: &Path, name: &str) -> PathBuf {
    let venv = interface_libs_venv();
    let charm = dir.join(name);
    copy_charm(&workspace_root().join("tests").join(name), &charm).expect("copy the ops charm");
    std::os::unix::fs::symlink(&venv, charm.join("venv")).expect("link the venv");
    charm
}

fn message(juju: &Juju, unit: &str) -> String {
    let status = juju.status();
    let app = unit.split('/').next().unwrap_or_default();
    status["applications"][app]["units"][unit]["workload-status"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Every hook of the model wrote only what the interfaces describe.
fn no_violations(juju: &Juju) {
    let reported: Vec<Value> = juju
        .history("dev")
        .into_iter()
        .filter(|r| r.get("violations").is_some())
        .collect();
    assert!(reported.is_empty(), "{reported:#?}");
}

/// certificate_transfer v1, each side on each charm: the wasm charm sends
/// to the library's requirer and receives from the library's provider, a
/// change of what it sends reaches the library's side, and a removed
/// relation is the library's `certificates_removed`.
#[test]
fn certificate_transfer_v1_both_ways_with_the_pypi_library() {
    certificate_transfer_and_tracing("tests/guests/contracts");
}

/// The same exchanges with the Python SDK's typed bags
/// (`tests/guests/contracts-py`, the Rust guest's twin).
#[test]
fn certificate_transfer_v1_and_tracing_v2_in_python_with_the_pypi_libraries() {
    certificate_transfer_and_tracing("tests/guests/contracts-py");
}

fn certificate_transfer_and_tracing(guest: &str) {
    let juju = Juju::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ops = ops_charm(dir.path(), "ops-contracts");
    juju.ok(&["add-model", "dev"]);
    juju.ok(&["deploy", path_str(&packed(guest)), "wasm"]);
    juju.ok(&["deploy", path_str(&ops), "ops"]);
    assert_eq!(message(&juju, "ops/0"), "no certificates");

    // The wasm charm sends; the library's requirer emits certificate_set_updated.
    juju.ok(&["integrate", "wasm:send-ca", "ops:receive-ca"]);
    assert_eq!(message(&juju, "ops/0"), "received wasm-1 wasm-2");
    let model = juju.model("dev");
    let relation = model["relations"]
        .as_object()
        .and_then(|r| r.values().next())
        .expect("the relation");
    // The library's requirer said which version it speaks, as JSON.
    assert_eq!(relation["app-data"]["ops"]["version"], "1", "{relation}");

    // The library's provider sends; the wasm charm reads it.
    juju.ok(&["integrate", "ops:send-ca", "wasm:receive-ca"]);
    assert_eq!(message(&juju, "wasm/0"), "received 3 certificates");

    // A change on the wasm side reaches the library's side.
    juju.ok(&["config", "wasm", "count=3"]);
    assert_eq!(message(&juju, "ops/0"), "received wasm-1 wasm-2 wasm-3");

    // Broken: the library's certificates_removed.
    juju.ok(&["remove-relation", "wasm:send-ca", "ops:receive-ca"]);
    assert_eq!(message(&juju, "ops/0"), "no certificates");

    tracing_v2_the_wasm_requirer_and_the_librarys_provider(&juju);
    no_violations(&juju);
}

/// tracing v2: the wasm charm asks for its protocols, the library's
/// provider (as Tempo uses it) publishes its receivers for them, and the
/// wasm charm reads the OTLP/HTTP one; broken, it has none.
fn tracing_v2_the_wasm_requirer_and_the_librarys_provider(juju: &Juju) {
    juju.ok(&["integrate", "wasm:tracing", "ops:tracing"]);
    assert_eq!(
        scope(juju, "wasm/0", "handler/tracing"),
        "active: tracing to http://tempo.example:4318"
    );
    let model = juju.model("dev");
    let bag = app_bag_of(&model, "tracing", "wasm");
    // Written as the library reads it: a JSON list of protocol names.
    assert_eq!(bag["receivers"], r#"["otlp_grpc","otlp_http"]"#, "{bag}");
    let published = app_bag_of(&model, "tracing", "ops");
    assert!(
        published["receivers"]
            .as_str()
            .is_some_and(|r| r.contains("\"type\": \"grpc\"") || r.contains("\"type\":\"grpc\"")),
        "{published}"
    );
    juju.ok(&["remove-relation", "wasm:tracing", "ops:tracing"]);
    assert_eq!(scope(juju, "wasm/0", "handler/tracing"), "none");
}

/// One scope of a wasm charm's unit, `kind: message` (`none` when it has
/// no status), as its built-in `show-status` action reports it.
fn scope(juju: &Juju, unit: &str, name: &str) -> String {
    let out = juju.ok(&["run", unit, "show-status", "--format", "json"]);
    let v: Value = serde_json::from_str(&out).expect("run's JSON");
    let scopes: Value = v[unit]["results"]["scopes"]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| panic!("no scopes in {v}"));
    let current = &scopes["unit"][name]["current"];
    match current["status"].as_str() {
        Some(kind) => format!(
            "{kind}: {}",
            current["message"].as_str().unwrap_or_default()
        ),
        None => "none".into(),
    }
}

/// `app`'s application bag on the relation whose interface is `interface`.
fn app_bag_of(model: &Value, interface: &str, app: &str) -> Value {
    model["relations"]
        .as_object()
        .and_then(|r| r.values().find(|r| r["interface"] == interface))
        .map(|r| r["app-data"][app].clone())
        .unwrap_or(Value::Null)
}

/// postgresql_client v0: the db-client example (the wasm requirer, on the
/// SDK's typed bags) asks the library's provider, as a database charm uses
/// `dpcharmlibs-interfaces`, for its database; the library answers with
/// endpoints and a user secret granted to the relation, which the wasm
/// side reads.
#[test]
fn postgresql_client_v0_the_wasm_requirer_and_the_librarys_provider() {
    postgresql_client_v0_requirer("examples/db-client");
}

/// The same exchange with the Python SDK's requirer (`examples/db-client-py`).
#[test]
fn postgresql_client_v0_the_python_requirer_and_the_librarys_provider() {
    postgresql_client_v0_requirer("examples/db-client-py");
}

/// Join, the answer and its secret, a change of the provider's endpoints,
/// and the relation removed, seen by the requirer `project`.
fn postgresql_client_v0_requirer(project: &str) {
    let juju = Juju::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ops = ops_charm(dir.path(), "ops-contracts");
    juju.ok(&["add-model", "dev"]);
    juju.ok(&["deploy", path_str(&packed(project)), "app"]);
    juju.ok(&["deploy", path_str(&ops), "db"]);
    juju.ok(&["integrate", "app:database", "db:database"]);
    let model = juju.model("dev");
    let answer = app_bag_of(&model, "postgresql_client", "db");
    assert_eq!(answer["endpoints"], "10.9.0.1:5432", "{answer}");
    assert!(
        answer["secret-user"]
            .as_str()
            .is_some_and(|u| u.starts_with("secret:")),
        "{answer}"
    );
    assert_eq!(
        message(&juju, "app/0"),
        format!(
            "connected to 10.9.0.1:5432 as user-{}",
            relation_id(&model, "postgresql_client")
        )
    );
    let log = juju.ok(&["debug-log", "--replay", "--include", "app/0"]);
    assert!(log.contains("database created: credentials user-"), "{log}");
    // A change: the provider moves; the library's `endpoints_changed`.
    juju.ok(&["config", "db", "db-endpoints=10.9.0.2:5432"]);
    let moved = app_bag_of(&juju.model("dev"), "postgresql_client", "db");
    assert_eq!(moved["endpoints"], "10.9.0.2:5432", "{moved}");
    assert_eq!(moved["secret-user"], answer["secret-user"], "{moved}");
    assert!(
        message(&juju, "app/0").starts_with("connected to 10.9.0.2:5432 as user-"),
        "{}: {moved}",
        message(&juju, "app/0")
    );
    let log = juju.ok(&["debug-log", "--replay", "--include", "app/0"]);
    assert!(
        log.contains("endpoints changed: credentials user-"),
        "{log}"
    );
    // Broken: the requirer's scope says what it needs again.
    juju.ok(&["remove-relation", "app:database", "db:database"]);
    assert_eq!(message(&juju, "app/0"), "needs a database relation");
    no_violations(&juju);
}

fn relation_id(model: &Value, interface: &str) -> u64 {
    model["relations"]
        .as_object()
        .and_then(|r| r.values().find(|r| r["interface"] == interface))
        .and_then(|r| r["id"].as_u64())
        .expect("the relation")
}

/// postgresql_client through dpcharmlibs-interfaces 1.2.2's v1 requests:
/// the library's requirer asks in `requests`; the db-provider example (the
/// wasm provider, on the SDK's `DatabaseProvider`) answers each by its
/// `request-id` with endpoints and a user secret, which the library reads
/// to emit `resource_created`.
#[test]
fn postgresql_client_v1_the_librarys_requirer_and_the_wasm_provider() {
    postgresql_client_v1_provider("examples/db-provider");
}

/// The same exchange with the Python SDK's `DatabaseProvider`
/// (`examples/db-provider-py`).
#[test]
fn postgresql_client_v1_the_librarys_requirer_and_the_python_provider() {
    postgresql_client_v1_provider("examples/db-provider-py");
}

fn postgresql_client_v1_provider(project: &str) {
    let juju = Juju::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ops = ops_charm(dir.path(), "ops-contracts");
    juju.ok(&["add-model", "dev"]);
    juju.ok(&["deploy", path_str(&packed(project)), "db"]);
    juju.ok(&["deploy", path_str(&ops), "cli"]);
    juju.ok(&["integrate", "cli:database-client", "db:database"]);
    let model = juju.model("dev");
    let asked = app_bag_of(&model, "postgresql_client", "cli");
    assert_eq!(asked["version"], "v1", "{asked}");
    let id = relation_id(&model, "postgresql_client");
    assert_eq!(
        message(&juju, "cli/0"),
        format!("connected to 10.0.0.10:5432 as relation_{id}")
    );
    no_violations(&juju);
}

/// The relation between applications `a` and `b`.
fn relation_between(model: &Value, a: &str, b: &str) -> Value {
    let has = |r: &Value, app: &str| {
        r["ends"]
            .as_array()
            .is_some_and(|ends| ends.iter().any(|e| e["app"] == app))
    };
    model["relations"]
        .as_object()
        .and_then(|r| r.values().find(|r| has(r, a) && has(r, b)))
        .cloned()
        .unwrap_or_else(|| panic!("no relation between {a} and {b}: {model}"))
}

/// tls-certificates v1 with charmlibs-interfaces-tls-certificates 1.12.0,
/// each side on each charm: the library's requirer (an RSA key, its
/// default, and a P-256 one) gets a certificate from the tls-ca example
/// (the wasm provider) and emits `certificate_available`, the key it made
/// matching; the db-client example (the wasm requirer, its P-256 key made
/// in the sandbox) gets one from the library's provider signing with a CA
/// of its own; the wasm provider's refusal of a CA request is the
/// library's `certificate_denied`.
#[test]
fn tls_certificates_v1_both_ways_with_the_pypi_library() {
    let juju = Juju::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ops = ops_charm(dir.path(), "ops-contracts");
    juju.ok(&["add-model", "dev"]);
    juju.ok(&["deploy", path_str(&packed("examples/tls-ca")), "ca"]);
    juju.ok(&["deploy", path_str(&ops), "ops"]);
    juju.ok(&[
        "deploy",
        path_str(&ops),
        "ops-ec",
        "--config",
        "tls-key=ecdsa",
    ]);
    juju.ok(&[
        "deploy",
        path_str(&ops),
        "ops-ca",
        "--config",
        "tls-as-ca=true",
    ]);

    // The library's requirers and the wasm provider.
    juju.ok(&["integrate", "ops:tls-client", "ca:certificates"]);
    juju.ok(&["integrate", "ops-ec:tls-client", "ca:certificates"]);
    assert_eq!(
        message(&juju, "ops/0"),
        "certificate for ops.local from wasm-charm example CA (rsa)"
    );
    assert_eq!(
        message(&juju, "ops-ec/0"),
        "certificate for ops-ec.local from wasm-charm example CA (ecdsa)"
    );
    // A refusal in `request_errors`, read by the library as
    // `certificate_denied` (and the bag, refusal and all, still loads).
    juju.ok(&["integrate", "ops-ca:tls-client", "ca:certificates"]);
    assert_eq!(
        message(&juju, "ops-ca/0"),
        "refused: this CA signs no CA certificates"
    );
    assert_eq!(message(&juju, "ca/0"), "2 certificates on 3 relations");
    let model = juju.model("dev");
    let relation = relation_between(&model, "ops", "ca");
    let asked = &relation["unit-data"]["ops/0"];
    let asked: Value = asked["certificate_signing_requests"]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| panic!("the library's CSRs as JSON: {asked}"));
    let csr = asked[0]["certificate_signing_request"]
        .as_str()
        .unwrap_or_default();
    assert!(csr.contains("BEGIN CERTIFICATE REQUEST"), "{asked}");
    // The answer names the CSR as the library wrote it, with the CA and
    // the chain, all JSON-encoded as the library reads them.
    let answered = &relation["app-data"]["ca"];
    let list: Value = answered["certificates"]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| panic!("the CA's certificates as JSON: {answered}"));
    let ours = list
        .as_array()
        .and_then(|l| l.iter().find(|c| c["certificate_signing_request"] == csr))
        .unwrap_or_else(|| panic!("no answer to {csr} in {list}"));
    assert_eq!(ours["chain"].as_array().map(Vec::len), Some(2), "{ours}");
    assert_eq!(ours["chain"][1], ours["ca"], "{ours}");

    // The wasm requirer and the library's provider.
    juju.ok(&["deploy", path_str(&packed("examples/db-client")), "app"]);
    juju.ok(&["integrate", "app:certificates", "ops:certificates"]);
    let held = scope(&juju, "app/0", "handler/certificate");
    assert!(
        held.starts_with("active: TLS certificate valid until "),
        "{held}"
    );
    let log = juju.ok(&["debug-log", "--replay", "--include", "app/0"]);
    assert!(log.contains("certificate available"), "{log}");
    let signed = &relation_between(&juju.model("dev"), "app", "ops")["app-data"]["ops"];
    assert!(
        signed["certificates"]
            .as_str()
            .is_some_and(|c| c.contains("BEGIN CERTIFICATE")),
        "{signed}"
    );

    // Broken: the wasm requirer's scope says it needs the relation again
    // (none: the relation is optional), and the CA answers one fewer.
    juju.ok(&["remove-relation", "app:certificates", "ops:certificates"]);
    assert_eq!(scope(&juju, "app/0", "handler/certificate"), "none");
    juju.ok(&["remove-relation", "ops-ec:tls-client", "ca:certificates"]);
    assert_eq!(message(&juju, "ca/0"), "1 certificates on 2 relations");
    no_violations(&juju);
}
