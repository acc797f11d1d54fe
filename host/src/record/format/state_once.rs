//! A `juju` store in a recording once (issue 20), as `store_once` keeps a
//! local one: a unit whose charm state is near Juju's 2 MiB still records
//! its events within the recording's bounds.
//!
//! The store's keys of Juju's charm state (its header and chunks,
//! `store_chunks`) are the store the event loaded (`store`, kept once by
//! `store_once`) and the one it left, cut into values. So the recording
//! leaves them out of the `state-get` answer and the `state-set` input it
//! keeps, and says so on the call (`store-keys-omitted`). They are left out
//! only when cutting that store again gives exactly what the call held, byte
//! for byte; reading the file back ([`restore`]) cuts them again. Any other
//! key, and any call that does not match, is kept as it was. Pure.

use super::{Backend, Recorded, ToolAnswer};
use crate::status::store::ScopeStore;
use crate::status::{store_chunks, store_juju};
use std::collections::BTreeMap;

type State = BTreeMap<String, String>;

const GET: [&str; 2] = ["state-get", "--format=json"];
const SET: [&str; 3] = ["state-set", "--file", "-"];
const DELETE: &str = "state-delete";

fn is(argv: &[String], words: &[&str]) -> bool {
    argv.len() == words.len() && argv.iter().zip(words).all(|(a, w)| a == w)
}

fn store_of(value: Option<&serde_json::Value>) -> Option<ScopeStore> {
    serde_json::from_value(value?.clone()).ok()
}

/// The state as `state-get --format=json` or `state-set --file -` carries
/// it: Juju's JSON, and whether a newline ends it.
fn text(state: &State, newline: bool) -> String {
    let mut text = String::from_utf8_lossy(&crate::text::juju_json(state)).into_owned();
    if newline {
        text.push('\n');
    }
    text
}

/// `text`'s state and its ending; `None` when it is not a map of strings.
fn parse(text: &str) -> Option<(State, bool)> {
    let state = serde_json::from_str(text).ok()?;
    Some((state, text.ends_with('\n')))
}

/// `state` without the store's keys, and those keys.
fn split_off(state: State) -> (State, State) {
    state
        .into_iter()
        .partition(|(k, _)| !store_chunks::is_store_key(k))
}

/// The store's keys `state-set` writes when the event leaves `left` over
/// `state`: the store's own save plans the same.
fn planned(state: &State, left: &ScopeStore) -> Option<State> {
    store_chunks::plan(state, &store_juju::encode(left))
        .ok()
        .map(|p| p.set)
}

/// The charm state once the call `argv` is applied: the keys `set` sets,
/// or those a `state-delete` removes (the event's own view of it).
fn apply(state: &mut State, argv: &[String], set: Option<&State>) {
    if let Some(set) = set {
        state.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if argv.first().is_some_and(|t| t == DELETE) {
        for key in &argv[1..] {
            state.remove(key);
        }
    }
}

/// Walk `rec`'s charm-state calls with the state as the event saw it.
/// For each `state-get` that exited 0 and each `state-set` with an input,
/// `each` gets its text (answer or input), its `store_keys_omitted`, and
/// the store's keys it carries when it is the cut of the event's stores
/// (`cut`: of the store loaded, for `state-get`; the save's plan over the
/// state so far, for `state-set`); it gives back the call's whole map.
fn walk(
    rec: &mut Recorded,
    loaded: &ScopeStore,
    mut each: impl FnMut(&mut String, &mut bool, Option<State>) -> Option<State>,
) {
    let cut = store_chunks::split(&store_juju::encode(loaded));
    let left = store_of(rec.outcome.store.as_ref());
    let mut state: Option<State> = None;
    for call in &mut rec.calls {
        let get = is(&call.argv, &GET);
        let (text, keys) = if get {
            match &mut call.answer {
                ToolAnswer::Exited {
                    code: 0, stdout, ..
                } => (Some(stdout), Some(cut.clone())),
                _ => (None, None),
            }
        } else if is(&call.argv, &SET) {
            let keys = match (&state, &left) {
                (Some(now), Some(left)) => planned(now, left),
                _ => None,
            };
            (call.stdin.as_mut(), keys)
        } else {
            (None, None)
        };
        let whole = text.and_then(|t| each(t, &mut call.store_keys_omitted, keys));
        if get {
            if whole.is_some() {
                state = whole;
            }
        } else if let Some(now) = &mut state {
            apply(now, &call.argv, whole.as_ref());
        }
    }
}

/// Leave the store's keys out of `rec`'s charm-state calls, where they can
/// be made again from its stores. Before `store_once::compact` (which
/// needs the store the event left whole).
pub fn omit(rec: &mut Recorded) {
    if rec.backend != Backend::Juju {
        return;
    }
    let Some(loaded) = store_of(rec.store.as_ref()) else {
        return;
    };
    walk(rec, &loaded, |held, omitted, cut| {
        let (whole, newline) = parse(held)?;
        let (rest, keys) = split_off(whole.clone());
        if !keys.is_empty() && cut.as_ref() == Some(&keys) && *held == text(&whole, newline) {
            *held = text(&rest, newline);
            *omitted = true;
        }
        Some(whole)
    });
}

/// Put the store's keys back into every call of `rec` that left them out,
/// from its whole stores (after `store_once::resolve`). `Err` says why they
/// cannot be made.
pub fn restore(rec: &mut Recorded) -> Result<(), String> {
    if !rec.calls.iter().any(|c| c.store_keys_omitted) {
        return Ok(());
    }
    let loaded = store_of(rec.store.as_ref())
        .ok_or("field `store`: missing or not a store, and a call's store keys are omitted")?;
    walk(rec, &loaded, |held, omitted, cut| {
        let (mut whole, newline) = parse(held)?;
        if *omitted && let Some(keys) = cut {
            whole.extend(keys);
            *held = text(&whole, newline);
            *omitted = false;
        }
        Some(whole)
    });
    match rec.calls.iter().any(|c| c.store_keys_omitted) {
        true => Err(
            "a call omits the store's keys, and neither a `state-get` before it \
                     nor the store the event left makes them"
                .into(),
        ),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FORMAT, Outcome, ToolCall, append_event, parse as parse_file};
    use super::*;
    use crate::record::Bounds;
    use serde_json::{Value, json};

    fn store(clock: u64, message: &str) -> Value {
        let scope = json!({"current": {"status": "active", "message": message, "since": 1}});
        let value = serde_json::to_value(
            serde_json::from_value::<ScopeStore>(json!({
                "format": 2, "clock": clock,
                "unit": {"web": scope},
                "data": {"big": "d".repeat(150_000)},
            }))
            .expect("a store"),
        );
        value.expect("encodes")
    }

    fn chunks(doc: &Value) -> State {
        let store: ScopeStore = serde_json::from_value(doc.clone()).expect("a store");
        store_chunks::split(&store_juju::encode(&store))
    }

    fn exited(stdout: String) -> ToolAnswer {
        ToolAnswer::Exited {
            code: 0,
            stdout,
            stderr: String::new(),
        }
    }

    /// An event of a juju store: `state-get` answers the store `loaded`
    /// cut into keys (and a key of someone else's), then the store's save
    /// writes what changed on its way to `left`.
    fn juju_event(loaded: &Value, left: &Value) -> Recorded {
        let mut state = chunks(loaded);
        state.insert("other".into(), "kept <as> it was".into());
        let set = planned(&state, &serde_json::from_value(left.clone()).unwrap()).unwrap();
        let mut rec = Recorded::empty();
        rec.backend = Backend::Juju;
        rec.store = Some(loaded.clone());
        rec.calls = vec![
            ToolCall::new(
                "state-get",
                &["--format=json"],
                None,
                exited(text(&state, true)),
            ),
            ToolCall::new(
                "is-leader",
                &["--format=json"],
                None,
                exited("true\n".into()),
            ),
            ToolCall::new(
                "state-set",
                &["--file", "-"],
                Some(&crate::text::juju_json(&set)),
                exited(String::new()),
            ),
        ];
        rec.outcome = Outcome {
            store: Some(left.clone()),
            ..Outcome::default()
        };
        rec
    }

    #[test]
    fn the_store_keys_leave_the_calls_and_come_back_the_same() {
        let (a, b) = (store(1, "one"), store(2, "two, a longer message"));
        let original = juju_event(&a, &b);
        let mut rec = original.clone();
        omit(&mut rec);
        let ToolAnswer::Exited { stdout, .. } = &rec.calls[0].answer else {
            panic!("{:?}", rec.calls[0]);
        };
        // Someone else's key stays as it was.
        assert_eq!(stdout, "{\"other\":\"kept <as> it was\"}\n");
        assert!(rec.calls[0].store_keys_omitted && rec.calls[2].store_keys_omitted);
        assert!(!rec.calls[1].store_keys_omitted);
        assert_eq!(rec.calls[2].stdin.as_deref(), Some("{}"));
        restore(&mut rec).unwrap();
        assert_eq!(rec, original);
    }

    #[test]
    fn a_large_juju_store_is_in_the_file_once_and_reads_back_whole() {
        let bounds = Bounds {
            events: 20,
            bytes: 400_000,
        };
        let stores: Vec<Value> = (0..6).map(|n| store(n, &"m".repeat(n as usize))).collect();
        let mut text = String::new();
        let mut originals = Vec::new();
        for pair in stores.windows(2) {
            let rec = juju_event(&pair[0], &pair[1]);
            originals.push(rec.clone());
            text = append_event(&text, rec, bounds).expect("recorded");
        }
        // Each store is over 150 kB; the five events hold one.
        assert!(text.len() < 250_000, "{} bytes", text.len());
        let read = parse_file(&text).expect("reads back");
        assert_eq!(read.len(), 5);
        for (read, original) in read.iter().zip(&originals) {
            assert_eq!(read.calls, original.calls);
            assert_eq!(read.store, original.store);
            assert_eq!(read.outcome.store, original.outcome.store);
            assert_eq!(read.format, FORMAT);
        }
    }

    #[test]
    fn a_call_that_is_not_the_stores_cut_is_kept_whole() {
        let (a, b) = (store(1, "one"), store(2, "two"));
        let mut rec = juju_event(&a, &b);
        // The state holds a store other than the one the event loaded (a
        // torn write, say), and a save that is not the store's plan.
        rec.store = Some(store(7, "another"));
        rec.calls[2].stdin = Some("{\"wasm-charm.store.0\":\"x\"}".into());
        let original = rec.clone();
        omit(&mut rec);
        assert_eq!(rec, original);
        assert!(rec.calls.iter().all(|c| !c.store_keys_omitted));
    }

    #[test]
    fn a_call_omitting_keys_with_no_store_to_make_them_is_an_error() {
        let (a, b) = (store(1, "one"), store(2, "two"));
        let mut rec = juju_event(&a, &b);
        omit(&mut rec);
        rec.store = None;
        let e = restore(&mut rec).unwrap_err();
        assert!(e.contains("field `store`"), "{e}");
    }
}
