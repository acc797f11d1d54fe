//! Differential test of the two simulated Jujus: one corpus of hook-tool
//! calls (argv, environment, stdin and the state before) run through the
//! Python fake (`tests/fake-juju/fake_juju.py`, committed after the call
//! with its `commit`) and through the Rust simulator served as the tool
//! (`wasm-charm` under the tool's name, over a session holding the same
//! state, ended by `end_hook`), comparing stdout, stderr, the exit code
//! and the state after.
//! Where they disagreed, the Rust simulator was made to answer as Juju
//! does (reference juju-protocol.md §2); every case must now agree.
//! `storage-add` is not in the corpus: the fake reads no metadata.yaml,
//! which gives the new instances their kind.

use crate::support;

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use support::fake_juju_script;
use wasm_charm_host::juju_env::JujuEnv;
use wasm_charm_host::offline::end_hook;
use wasm_charm_host::offline::sim::SimState;
use wasm_charm_host::offline::tool_session::Session;

/// One call of the corpus.
struct Case {
    name: &'static str,
    /// The state before, as both read it.
    state: Value,
    /// The hook's environment besides `JUJU_UNIT_NAME` and `JUJU_CONTEXT_ID`.
    env: &'static [(&'static str, &'static str)],
    tool: &'static str,
    args: &'static [&'static str],
    stdin: Option<&'static str>,
}

const UNIT: &str = "gw/0";

/// A leader `gw/0` with config, a relation `db:1` to `pg` and a peer
/// relation `peer:2`, each with data in every bag.
fn base() -> Value {
    json!({
        "leader": true,
        "config": {"kind": "ingress", "port": 8080},
        "relations": {
            "db:1": {
                "app": "pg", "units": ["pg/1", "pg/0"],
                "app-data": {"host": "h"},
                "unit-data": {"pg/0": {"addr": "a"}},
                "local-unit-data": {"mine": "x"},
                "local-app-data": {"shared": "s"},
            },
            "peer:2": {
                "app": "gw", "units": ["gw/1"],
                "app-data": {}, "unit-data": {"gw/1": {"n": "1"}},
                "local-unit-data": {}, "local-app-data": {"p": "q"},
            },
        },
        "status": {"unit": {"status": "waiting", "message": "w"}, "app": null},
        "charm-state": {"a": "1"},
        "opened-ports": {"80/tcp": ["*"]},
    })
}

fn with(mut state: Value, key: &str, value: Value) -> Value {
    state[key] = value;
    state
}

/// A key one byte past Juju's 256.
const LONG_KEY: &str = concat!(
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=v",
);

fn storage() -> Value {
    with(
        base(),
        "storage",
        json!({"data/0": {"kind": "filesystem", "location": "/srv/data"},
               "data/1": {"kind": "filesystem", "location": "/srv/data1"},
               "logs/0": {"kind": "block", "location": "/dev/vdb"}}),
    )
}

fn non_leader() -> Value {
    with(base(), "leader", json!(false))
}

const ACTION: &[(&str, &str)] = &[("JUJU_ACTION_NAME", "backup")];
const DB_HOOK: &[(&str, &str)] = &[
    ("JUJU_RELATION", "db"),
    ("JUJU_RELATION_ID", "db:1"),
    ("JUJU_REMOTE_UNIT", "pg/0"),
    ("JUJU_REMOTE_APP", "pg"),
];

#[allow(clippy::too_many_lines)] // the corpus reads as one table
fn corpus() -> Vec<Case> {
    let case = |name, state, env, tool, args, stdin| Case {
        name,
        state,
        env,
        tool,
        args,
        stdin,
    };
    let b = base;
    vec![
        case("is-leader smart", b(), &[], "is-leader", &[], None),
        case(
            "is-leader json",
            b(),
            &[],
            "is-leader",
            &["--format=json"],
            None,
        ),
        case(
            "is-leader non-leader",
            non_leader(),
            &[],
            "is-leader",
            &[],
            None,
        ),
        case(
            "is-leader unknown flag",
            b(),
            &[],
            "is-leader",
            &["--bogus"],
            None,
        ),
        case("is-leader extra arg", b(), &[], "is-leader", &["x"], None),
        case(
            "config-get all json",
            b(),
            &[],
            "config-get",
            &["--format=json"],
            None,
        ),
        case("config-get all smart", b(), &[], "config-get", &[], None),
        case(
            "config-get key smart",
            b(),
            &[],
            "config-get",
            &["kind"],
            None,
        ),
        case(
            "config-get key json",
            b(),
            &[],
            "config-get",
            &["--format=json", "port"],
            None,
        ),
        case(
            "config-get missing json",
            b(),
            &[],
            "config-get",
            &["--format", "json", "nope"],
            None,
        ),
        case(
            "relation-ids smart",
            b(),
            &[],
            "relation-ids",
            &["db"],
            None,
        ),
        case(
            "relation-ids json",
            b(),
            &[],
            "relation-ids",
            &["--format=json", "db"],
            None,
        ),
        case(
            "relation-ids none",
            b(),
            &[],
            "relation-ids",
            &["--format=json", "other"],
            None,
        ),
        case(
            "relation-ids no endpoint",
            b(),
            &[],
            "relation-ids",
            &[],
            None,
        ),
        case(
            "relation-ids from the hook",
            b(),
            DB_HOOK,
            "relation-ids",
            &["--format=json"],
            None,
        ),
        case(
            "relation-list json",
            b(),
            &[],
            "relation-list",
            &["--format=json", "-r", "db:1"],
            None,
        ),
        case(
            "relation-list smart by number",
            b(),
            &[],
            "relation-list",
            &["-r", "1"],
            None,
        ),
        case(
            "relation-list app",
            b(),
            &[],
            "relation-list",
            &["--format=json", "-r", "db:1", "--app"],
            None,
        ),
        case(
            "relation-list unknown relation",
            b(),
            &[],
            "relation-list",
            &["-r", "db:9"],
            None,
        ),
        case(
            "relation-list no relation",
            b(),
            &[],
            "relation-list",
            &[],
            None,
        ),
        case(
            "relation-list from the hook",
            b(),
            DB_HOOK,
            "relation-list",
            &["--format=json"],
            None,
        ),
        case(
            "relation-get remote unit",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "-", "pg/0"],
            None,
        ),
        case(
            "relation-get remote app",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "--app", "-", "pg"],
            None,
        ),
        case(
            "relation-get one key smart",
            b(),
            &[],
            "relation-get",
            &["-r", "db:1", "--app", "host", "pg"],
            None,
        ),
        case(
            "relation-get missing key json",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "--app", "nope", "pg"],
            None,
        ),
        case(
            "relation-get own unit",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "-", "gw/0"],
            None,
        ),
        case(
            "relation-get own app as leader",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "--app", "-", "gw"],
            None,
        ),
        case(
            "relation-get own app, non-leader, non-peer",
            non_leader(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "--app", "-", "gw"],
            None,
        ),
        case(
            "relation-get own app, non-leader, peer",
            non_leader(),
            &[],
            "relation-get",
            &["--format=json", "-r", "peer:2", "--app", "-", "gw"],
            None,
        ),
        case(
            "relation-get peer unit",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "peer:2", "-", "gw/1"],
            None,
        ),
        case(
            "relation-get app name without --app",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "-", "pg"],
            None,
        ),
        case(
            "relation-get nobody",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "-"],
            None,
        ),
        case(
            "relation-get the hook's remote unit",
            b(),
            DB_HOOK,
            "relation-get",
            &["--format=json"],
            None,
        ),
        case(
            "relation-get the hook's remote app",
            b(),
            DB_HOOK,
            "relation-get",
            &["--format=json", "--app"],
            None,
        ),
        case(
            "relation-get a stranger",
            b(),
            &[],
            "relation-get",
            &["--format=json", "-r", "db:1", "-", "other/0"],
            None,
        ),
        case(
            "relation-set unit",
            b(),
            &[],
            "relation-set",
            &["-r", "db:1", "k=v"],
            None,
        ),
        case(
            "relation-set deletes",
            b(),
            &[],
            "relation-set",
            &["-r", "db:1", "mine="],
            None,
        ),
        case(
            "relation-set app as leader",
            b(),
            &[],
            "relation-set",
            &["-r", "db:1", "--app", "k=v"],
            None,
        ),
        case(
            "relation-set app, non-leader",
            non_leader(),
            &[],
            "relation-set",
            &["-r", "db:1", "--app", "k=v"],
            None,
        ),
        case(
            "relation-set stdin",
            b(),
            &[],
            "relation-set",
            &["-r", "db:1", "--file", "-"],
            Some("{\"a\": \"b\", \"mine\": \"\"}"),
        ),
        case(
            "relation-set not key=value",
            b(),
            &[],
            "relation-set",
            &["-r", "db:1", "oops"],
            None,
        ),
        case(
            "relation-set from the hook",
            b(),
            DB_HOOK,
            "relation-set",
            &["k=v"],
            None,
        ),
        case(
            "status-set unit",
            b(),
            &[],
            "status-set",
            &["active", "ready"],
            None,
        ),
        case(
            "status-set app as leader",
            b(),
            &[],
            "status-set",
            &["--application", "blocked", "x"],
            None,
        ),
        case(
            "status-set app, non-leader",
            non_leader(),
            &[],
            "status-set",
            &["--application", "blocked", "x"],
            None,
        ),
        case(
            "status-set bad status",
            b(),
            &[],
            "status-set",
            &["bogus"],
            None,
        ),
        case("status-set nothing", b(), &[], "status-set", &[], None),
        case("status-get smart", b(), &[], "status-get", &[], None),
        case(
            "status-get json",
            b(),
            &[],
            "status-get",
            &["--format=json"],
            None,
        ),
        case(
            "status-get json with data",
            b(),
            &[],
            "status-get",
            &["--format=json", "--include-data"],
            None,
        ),
        case(
            "state-get all json",
            b(),
            &[],
            "state-get",
            &["--format=json"],
            None,
        ),
        case(
            "state-get empty json",
            with(b(), "charm-state", json!({})),
            &[],
            "state-get",
            &["--format=json"],
            None,
        ),
        case("state-get key", b(), &[], "state-get", &["a"], None),
        case(
            "state-get missing strict",
            b(),
            &[],
            "state-get",
            &["--strict", "nope"],
            None,
        ),
        case(
            "state-get missing json",
            b(),
            &[],
            "state-get",
            &["--format=json", "nope"],
            None,
        ),
        case("state-set", b(), &[], "state-set", &["b=2", "a=3"], None),
        case(
            "state-set stdin",
            b(),
            &[],
            "state-set",
            &["--file", "-"],
            Some("{\"c\": \"4\"}"),
        ),
        case("state-delete", b(), &[], "state-delete", &["a"], None),
        case(
            "state-delete missing",
            b(),
            &[],
            "state-delete",
            &["nope"],
            None,
        ),
        case(
            "application-version-set",
            b(),
            &[],
            "application-version-set",
            &["1.2.3"],
            None,
        ),
        case("open-port", b(), &[], "open-port", &["8080/tcp"], None),
        case("open-port bad", b(), &[], "open-port", &["http"], None),
        case("close-port", b(), &[], "close-port", &["80/tcp"], None),
        case("opened-ports smart", b(), &[], "opened-ports", &[], None),
        case(
            "opened-ports json",
            b(),
            &[],
            "opened-ports",
            &["--format=json"],
            None,
        ),
        case("juju-log", b(), &[], "juju-log", &["hello", "world"], None),
        case("juju-log nothing", b(), &[], "juju-log", &[], None),
        case(
            "action-get outside an action",
            b(),
            &[],
            "action-get",
            &[],
            None,
        ),
        case(
            "action-get json",
            with(
                b(),
                "action-params",
                json!({"target": "db", "opts": {"level": 3}}),
            ),
            ACTION,
            "action-get",
            &["--format=json"],
            None,
        ),
        case(
            "action-get dotted",
            with(
                b(),
                "action-params",
                json!({"target": "db", "opts": {"level": 3}}),
            ),
            ACTION,
            "action-get",
            &["--format=json", "opts.level"],
            None,
        ),
        case(
            "action-set",
            b(),
            ACTION,
            "action-set",
            &["out.file=x", "size=3"],
            None,
        ),
        case(
            "action-set bad key",
            b(),
            ACTION,
            "action-set",
            &["Bad=x"],
            None,
        ),
        case(
            "action-fail",
            b(),
            ACTION,
            "action-fail",
            &["it broke"],
            None,
        ),
        case(
            "action-fail outside an action",
            b(),
            &[],
            "action-fail",
            &["it broke"],
            None,
        ),
        case("action-log", b(), ACTION, "action-log", &["halfway"], None),
        case(
            "action-log outside an action",
            b(),
            &[],
            "action-log",
            &["halfway"],
            None,
        ),
        case(
            "status-get app as leader",
            b(),
            &[],
            "status-get",
            &["--format=json", "--application"],
            None,
        ),
        case(
            "status-get app, non-leader",
            non_leader(),
            &[],
            "status-get",
            &["--application"],
            None,
        ),
        case(
            "state-set a key too long",
            b(),
            &[],
            "state-set",
            &[LONG_KEY],
            None,
        ),
        case(
            "state-delete two keys",
            b(),
            &[],
            "state-delete",
            &["a", "b"],
            None,
        ),
        case(
            "storage-list",
            storage(),
            &[],
            "storage-list",
            &["--format=json"],
            None,
        ),
        case(
            "storage-list by name",
            storage(),
            &[],
            "storage-list",
            &["data"],
            None,
        ),
        case(
            "storage-get",
            storage(),
            &[],
            "storage-get",
            &["--format=json", "-s", "data/0"],
            None,
        ),
        case(
            "storage-get one key",
            storage(),
            &[],
            "storage-get",
            &["-s", "data/0", "location"],
            None,
        ),
        case(
            "storage-get from the hook",
            storage(),
            &[("JUJU_STORAGE_ID", "data/0")],
            "storage-get",
            &["--format=json"],
            None,
        ),
        case(
            "storage-get unknown",
            storage(),
            &[],
            "storage-get",
            &["-s", "data/9"],
            None,
        ),
        case(
            "credential-get untrusted",
            b(),
            &[],
            "credential-get",
            &["--format=json"],
            None,
        ),
        case(
            "resource-get unknown",
            b(),
            &[],
            "resource-get",
            &["image"],
            None,
        ),
        case(
            "an unknown flag",
            b(),
            &[],
            "relation-get",
            &["--bogus"],
            None,
        ),
    ]
}

/// `relation-model-get` and `juju-reboot`: the remote model of a relation
/// within the model and of a cross-model one, and a reboot after the hook
/// or now (which keeps nothing the hook held), each way Juju refuses them.
#[allow(clippy::too_many_lines)] // the corpus reads as one table
fn model_requests() -> Vec<Case> {
    let case = |name, state, env, tool, args| Case {
        name,
        state,
        env,
        tool,
        args,
        stdin: None,
    };
    let mut cross = base();
    cross["relations"]["db:1"]["model-uuid"] = json!("5c1e8d2a-3b4f-4e6a-9c7d-1a2b3c4d5e6f");
    let b = base;
    vec![
        case(
            "relation-model-get json",
            b(),
            &[],
            "relation-model-get",
            &["--format=json", "-r", "db:1"],
        ),
        case(
            "relation-model-get cross-model",
            cross.clone(),
            &[],
            "relation-model-get",
            &["-r", "1"],
        ),
        case(
            "relation-model-get yaml",
            cross,
            &[],
            "relation-model-get",
            &["--format=yaml", "-r", "db:1"],
        ),
        case(
            "relation-model-get in the hook's relation",
            b(),
            DB_HOOK,
            "relation-model-get",
            &[],
        ),
        case(
            "relation-model-get without a relation",
            b(),
            &[],
            "relation-model-get",
            &[],
        ),
        case(
            "relation-model-get unknown relation",
            b(),
            &[],
            "relation-model-get",
            &["-r", "db:9"],
        ),
        case(
            "relation-model-get extra argument",
            b(),
            &[],
            "relation-model-get",
            &["-r", "db:1", "x"],
        ),
        case("juju-reboot after the hook", b(), &[], "juju-reboot", &[]),
        case("juju-reboot now", b(), &[], "juju-reboot", &["--now"]),
        case(
            "juju-reboot extra argument",
            b(),
            &[],
            "juju-reboot",
            &["soon"],
        ),
        case(
            "juju-reboot unknown flag",
            b(),
            &[],
            "juju-reboot",
            &["--later"],
        ),
        case(
            "juju-reboot in an action",
            b(),
            ACTION,
            "juju-reboot",
            &["--now"],
        ),
    ]
}

/// What both keep of a state, missing keys as empty.
fn normal(state: &Value) -> Value {
    let bag = |v: &Value| if v.is_object() { v.clone() } else { json!({}) };
    let relations: serde_json::Map<String, Value> = state["relations"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(id, r)| {
                    let mut units: Vec<Value> = r["units"].as_array().cloned().unwrap_or_default();
                    units.sort_by_key(Value::to_string);
                    (
                        id.clone(),
                        json!({
                            "app": r["app"], "units": units,
                            "app-data": bag(&r["app-data"]), "unit-data": bag(&r["unit-data"]),
                            "local-unit-data": bag(&r["local-unit-data"]),
                            "local-app-data": bag(&r["local-app-data"]),
                        }),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "leader": state["leader"],
        "config": bag(&state["config"]),
        "relations": relations,
        "status": {"unit": state["status"]["unit"], "app": state["status"]["app"]},
        "charm-state": bag(&state["charm-state"]),
        "opened-ports": bag(&state["opened-ports"]),
        "application-version": state["application-version"],
        "action-results": bag(&state["action-results"]),
        "action-failed": state["action-failed"],
        "reboot": state["reboot"],
    })
}

/// What one side answered, and the state after the hook committed.
#[derive(Debug, PartialEq)]
struct Answer {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    state: Value,
}

fn run(tool: &Path, case: &Case, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(tool);
    cmd.args(case.args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("JUJU_UNIT_NAME", UNIT)
        .env("JUJU_CONTEXT_ID", "gw/0-test-1")
        .envs(case.env.iter().copied())
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run the tool");
    if let (Some(text), Some(mut pipe)) = (case.stdin, child.stdin.take()) {
        use std::io::Write as _;
        pipe.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("wait for the tool")
}

fn python(dir: &Path, case: &Case) -> Answer {
    let tool = dir.join("py").join(case.tool);
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(fake_juju_script(), &tool).unwrap();
    let state = dir.join("state.json");
    std::fs::write(&state, case.state.to_string()).unwrap();
    let path = state.display().to_string();
    let out = run(&tool, case, &[("FAKE_JUJU_STATE", &path)]);
    let commit = Command::new(fake_juju_script())
        .args(["commit", "gw/0-test-1"])
        .env("FAKE_JUJU_STATE", &state)
        .output()
        .expect("commit");
    assert!(commit.status.success(), "{commit:?}");
    let after: Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    answer(&out, normal(&after))
}

fn rust(dir: &Path, case: &Case) -> Answer {
    let tool = dir.join("rs").join(case.tool);
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_wasm-charm"), &tool).unwrap();
    let mut state = case.state.clone();
    state["unit"] = json!(UNIT);
    // No context: the tools read the hook's from its environment, as
    // Juju's do.
    let session = json!({ "state": state });
    let path = dir.join("session.json");
    std::fs::write(&path, session.to_string()).unwrap();
    let var = path.display().to_string();
    let out = run(&tool, case, &[("WASM_CHARM_SIM_SESSION", &var)]);
    // The hook ends through the simulator's one commit rule, as the
    // Python fake's ends through its `commit`.
    let before: SimState = serde_json::from_value(state).unwrap();
    let after = Session::read(&path).unwrap().state;
    let mut vars: Vec<(&str, &str)> = vec![("JUJU_UNIT_NAME", UNIT)];
    vars.extend(case.env.iter().copied());
    let env = JujuEnv::from_vars(vars);
    let ended = end_hook(&before, after, &env, true, 0);
    answer(&out, normal(&serde_json::to_value(&ended.state).unwrap()))
}

fn answer(out: &std::process::Output, state: Value) -> Answer {
    Answer {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        state,
    }
}

/// The fields where the two answers differ.
fn difference(case: &Case, py: &Answer, rs: &Answer) -> String {
    let mut out = format!("{}: {} {:?}", case.name, case.tool, case.args);
    let mut field = |name: &str, a: String, b: String| {
        if a != b {
            out.push_str(&format!(
                "\n  {name}: python {a}\n  {:w$}  rust   {b}",
                "",
                w = name.len()
            ));
        }
    };
    field("code", format!("{:?}", py.code), format!("{:?}", rs.code));
    field(
        "stdout",
        format!("{:?}", py.stdout),
        format!("{:?}", rs.stdout),
    );
    field(
        "stderr",
        format!("{:?}", py.stderr),
        format!("{:?}", rs.stderr),
    );
    field("state", py.state.to_string(), rs.state.to_string());
    out
}

#[test]
fn the_python_fake_and_the_rust_simulator_answer_every_call_alike() {
    let mut differ = Vec::new();
    let cases: Vec<Case> = corpus().into_iter().chain(model_requests()).collect();
    let total = cases.len();
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let py = python(dir.path(), &case);
        let rs = rust(dir.path(), &case);
        if py != rs {
            differ.push(difference(&case, &py, &rs));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} calls differ:\n{}",
        differ.len(),
        total,
        differ.join("\n")
    );
}
