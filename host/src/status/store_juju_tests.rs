use super::*;
use crate::hook_tools::ToolOutput;
use crate::status::merge::{Band, Kind};
use crate::status::store::{Target, Write};
use crate::status::store_chunks::{HEADER_KEY, MAX_UNIT_STATE, chunk_key};
use std::sync::Mutex;

/// Juju's charm-state tools over a map, recording each call (tool and
/// argv, and stdin for `state-set`). Writes apply at once: what Juju holds
/// until the hook ends is the integration tests' business.
#[derive(Default)]
struct StateTools {
    state: Mutex<BTreeMap<String, String>>,
    calls: Mutex<Vec<Vec<String>>>,
    /// Answer every call with this failure instead.
    broken: Option<ToolOutput>,
}

impl StateTools {
    fn holding(state: BTreeMap<String, String>) -> Arc<StateTools> {
        Arc::new(StateTools {
            state: Mutex::new(state),
            ..StateTools::default()
        })
    }
    fn state(&self) -> BTreeMap<String, String> {
        self.state.lock().unwrap().clone()
    }
    fn calls(&self) -> Vec<Vec<String>> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
    fn tools(self: &Arc<Self>) -> Arc<dyn HookTools> {
        self.clone()
    }
}

impl HookTools for StateTools {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        _deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let mut call: Vec<String> = std::iter::once(tool)
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        if let Some(input) = stdin {
            call.push(String::from_utf8_lossy(input).into_owned());
        }
        self.calls.lock().unwrap().push(call);
        if let Some(failure) = &self.broken {
            return Ok(failure.clone());
        }
        let mut state = self.state.lock().unwrap();
        Ok(match (tool, args) {
            ("state-get", ["--format=json"]) if state.is_empty() => ToolOutput::ok("null\n"),
            ("state-get", ["--format=json"]) => {
                ToolOutput::ok(serde_json::to_vec(&*state).unwrap())
            }
            ("state-set", ["--file", "-"]) => {
                let set: BTreeMap<String, String> =
                    serde_json::from_slice(stdin.unwrap_or_default()).unwrap();
                state.extend(set);
                ToolOutput::ok("")
            }
            ("state-delete", [key]) => {
                state.remove(*key);
                ToolOutput::ok("")
            }
            _ => ToolOutput::error(2, format!("unexpected call {tool} {args:?}")),
        })
    }
}

fn blocked(store: &mut ScopeStore, scope: &str, message: &str) {
    store.apply(
        Write::Set {
            target: Target::Unit,
            scope: scope.into(),
            status: Kind::Blocked,
            message: message.into(),
            priority: Band::Normal,
        },
        "install",
        1,
    );
}

fn tool_names(calls: &[Vec<String>]) -> Vec<&str> {
    calls.iter().map(|c| c[0].as_str()).collect()
}

#[test]
fn an_empty_state_is_an_empty_store_read_with_one_call() {
    let juju = StateTools::holding(BTreeMap::new());
    let mut backend = JujuStore::new(juju.tools());
    assert_eq!(backend.load().unwrap(), ScopeStore::default());
    // The check and the save of the same event read nothing again.
    let mut store = ScopeStore::default();
    blocked(&mut store, "tls", "no certificate");
    backend.check(&store).unwrap();
    backend.save(&store).unwrap();
    let calls = juju.calls();
    assert_eq!(tool_names(&calls), ["state-get", "state-set"]);
    assert_eq!(calls[0], ["state-get", "--format=json"]);
    assert_eq!(&calls[1][..3], ["state-set", "--file", "-"]);
    // What was sent is JSON of the header and one chunk: the compact document.
    let sent: BTreeMap<String, String> = serde_json::from_str(&calls[1][3]).unwrap();
    assert_eq!(
        sent.keys().collect::<Vec<_>>(),
        [HEADER_KEY, "wasm-charm.store.0"]
    );
    assert_eq!(sent["wasm-charm.store.0"], encode(&store));
    assert!(!encode(&store).contains('\n'));

    // The next event (a new process, a new pod) reads it back whole.
    let mut next = JujuStore::new(juju.tools());
    assert_eq!(next.load().unwrap(), store);
}

#[test]
fn a_save_writes_only_what_changed_and_deletes_what_is_no_longer_used() {
    let juju = StateTools::holding([("#notices#".to_string(), "[]".to_string())].into());
    let mut store = ScopeStore::default();
    // Three chunks' worth of scopes' history (each message 4 KiB).
    for i in 0..40 {
        blocked(
            &mut store,
            &format!("s{i:02}"),
            &format!("{i:02}{}", "m".repeat(4000)),
        );
    }
    let mut backend = JujuStore::new(juju.tools());
    backend.load().unwrap();
    backend.save(&store).unwrap();
    let big = juju.state();
    assert!(big.contains_key(&chunk_key(2)), "{:?}", big.keys());
    juju.calls();

    // Saving the same document again writes nothing.
    let mut same = JujuStore::new(juju.tools());
    assert_eq!(same.load().unwrap(), store);
    same.save(&store).unwrap();
    assert_eq!(tool_names(&juju.calls()), ["state-get"]);

    // A much smaller one: the chunks past it are deleted, other keys stay.
    let mut small = ScopeStore::default();
    blocked(&mut small, "tls", "no certificate");
    let mut backend = JujuStore::new(juju.tools());
    backend.load().unwrap();
    backend.save(&small).unwrap();
    let calls = juju.calls();
    let deletes: Vec<&Vec<String>> = calls.iter().filter(|c| c[0] == "state-delete").collect();
    let stale = big
        .keys()
        .filter(|k| k.starts_with("wasm-charm.store.") && *k != "wasm-charm.store.0")
        .count();
    assert_eq!(deletes.len(), stale, "{calls:?}");
    let after = juju.state();
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        ["#notices#", HEADER_KEY, "wasm-charm.store.0"]
    );
    assert_eq!(JujuStore::new(juju.tools()).load().unwrap(), small);
}

#[test]
fn a_state_that_cannot_be_read_is_an_error_and_is_left_alone() {
    let mut store = ScopeStore::default();
    blocked(&mut store, "tls", "no certificate");
    let whole = store_chunks::split(&encode(&store));

    let mut torn = whole.clone();
    torn.remove(&chunk_key(0));
    let juju = StateTools::holding(torn.clone());
    let e = JujuStore::new(juju.tools()).load().unwrap_err().to_string();
    assert_eq!(
        e,
        "Juju's charm state (state-get): key `wasm-charm.store.0` is missing: the header `wasm-charm.store` names 1 chunks (a torn write); it is left as it is"
    );
    assert_eq!(tool_names(&juju.calls()), ["state-get"]);
    assert_eq!(juju.state(), torn);

    // A document of a newer host: named, not replaced.
    let release = crate::status::store_release::RELEASE;
    let newer = encode(&store)
        .replace("\"format\":2", "\"format\":9")
        .replace(
            &format!("\"release\":\"{release}\""),
            "\"release\":\"9.1.0\"",
        );
    let juju = StateTools::holding(store_chunks::split(&newer));
    let e = JujuStore::new(juju.tools()).load().unwrap_err().to_string();
    assert!(
        e.starts_with("Juju's charm state (keys `wasm-charm.store`…): the scope store was written by wasm-charm 9.1.0 (format 9;"),
        "{e}"
    );

    // An answer that is not a map of strings.
    let juju = StateTools::holding(BTreeMap::new());
    let mut backend = JujuStore::new(Arc::new(Answering(ToolOutput::ok("[1]"))));
    let e = backend.load().unwrap_err().to_string();
    assert!(
        e.starts_with("state-get failed: its answer is not a map of strings"),
        "{e}"
    );
    assert!(juju.calls().is_empty());
}

/// Answers every call with the same output.
struct Answering(ToolOutput);

impl HookTools for Answering {
    fn call(
        &self,
        _: &str,
        _: &[&str],
        _: Option<&[u8]>,
        _: Instant,
    ) -> std::io::Result<ToolOutput> {
        Ok(self.0.clone())
    }
}

#[test]
fn a_failing_tool_is_named_with_its_words() {
    let juju = Arc::new(StateTools {
        broken: Some(ToolOutput::error(1, "connection is shut down")),
        ..StateTools::default()
    });
    let e = JujuStore::new(juju.tools()).load().unwrap_err().to_string();
    assert_eq!(
        e,
        "state-get failed: exit code 1: ERROR connection is shut down"
    );
}

#[test]
fn a_store_past_the_quota_is_refused_before_anything_is_written() {
    let juju = StateTools::holding([("#notices#".to_string(), "x".repeat(1 << 20))].into());
    let store = ScopeStore {
        data: (0..17)
            .map(|i| (format!("k{i:02}"), "v".repeat(64 << 10)))
            .collect(),
        ..ScopeStore::default()
    };
    let mut backend = JujuStore::new(juju.tools());
    backend.load().unwrap();
    let e = backend.check(&store).unwrap_err();
    let JujuStoreError::TooLarge(too_large) = &e else {
        panic!("{e}")
    };
    assert!(too_large.size > MAX_UNIT_STATE, "{too_large:?}");
    assert!(
        e.to_string()
            .contains(", and 1 other keys take 1048592 bytes."),
        "{e}"
    );
    assert!(backend.save(&store).is_err());
    assert_eq!(tool_names(&juju.calls()), ["state-get"]);
    assert_eq!(juju.state().len(), 1);
}
