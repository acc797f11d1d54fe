//! The simulated Juju's server-side charm state (reference juju-protocol.md
//! §2.7): `state-get`, `state-set` and `state-delete` with Juju's syntax,
//! output and limits, over the state file's `charm-state`. Writes change it
//! at once; `offline::commit` puts it back when the hook fails, and fails a
//! hook that exited 0 with the state past the unit's quota, as Juju's
//! commit does.

use super::args::{Answer, format, output, parse, settings_file, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};
use crate::status::store_chunks::{MAX_UNIT_STATE, MAX_VALUE, juju_size};
use std::collections::BTreeMap;

/// Juju's bound on a key of charm state (`core/quota` `MaxCharmStateKeySize`).
const MAX_KEY: usize = 256;

impl SimTools {
    /// `state-get [--format=…] [--strict] [<key>|-]`: every pair (`null` in
    /// JSON when there are none: Juju's nil map), or one value (empty when
    /// missing; with `--strict` an error, exit 1).
    pub(super) fn state_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--strict"])?;
        let format = format(&a, &["smart", "json", "yaml"])?;
        let key = match a.positional.as_slice() {
            [] | ["-"] => None,
            [key] => Some(*key),
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        let value = match key {
            None if state.model.charm_state.is_empty() => serde_json::Value::Null,
            None => serde_json::json!(state.model.charm_state),
            Some(key) => match state.model.charm_state.get(key) {
                Some(value) => value.clone().into(),
                None if a.bool(&["--strict"]) => {
                    return Err(ToolOutput::error(1, format!("{key:?} not found")));
                }
                None => "".into(),
            },
        };
        Ok(output(format, &value))
    }

    /// `state-set [--file <path>|-] key=value…`: the file is a YAML map of
    /// strings (JSON is YAML), the pairs on the command line override it,
    /// and every pair is checked against Juju's key and value bounds before
    /// any is kept (exit 1 with Juju's quota words).
    pub(super) fn state_set(
        &self,
        state: &mut SimState,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Answer {
        let a = parse(args, &["--file"], &[])?;
        let mut pairs: BTreeMap<String, String> = settings_file(a.flag(&["--file"]), stdin)?;
        for kv in &a.positional {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(2, format!("expected \"key=value\", got \"{kv}\""))
            })?;
            pairs.insert(k.to_string(), v.to_string());
        }
        for (k, v) in &pairs {
            if k.len() > MAX_KEY {
                return Err(ToolOutput::error(
                    1,
                    format!("max allowed key length ({MAX_KEY}) exceeded"),
                ));
            }
            if v.len() > MAX_VALUE {
                return Err(ToolOutput::error(
                    1,
                    format!("max allowed value length ({MAX_VALUE}) exceeded"),
                ));
            }
        }
        state.model.charm_state.extend(pairs);
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `state-delete <key>`: a missing key is no error.
    pub(super) fn state_delete(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        match a.positional.as_slice() {
            [] => {}
            [key] => {
                state.model.charm_state.remove(*key);
            }
            [_, extra @ ..] => return Err(unrecognized(extra)),
        }
        Ok(ToolOutput::ok(Vec::new()))
    }
}

/// Why Juju would refuse to commit `charm_state`: past the unit's quota,
/// in Juju's words; `None` when it fits.
pub fn refused_at_commit(
    charm_state: &BTreeMap<String, String>,
    limit: Option<usize>,
) -> Option<String> {
    // The controller's `max-charm-state-size`, Juju's default unless the
    // state sets it; 0: no limit.
    let limit = limit.unwrap_or(MAX_UNIT_STATE);
    (limit > 0 && juju_size(charm_state) > limit).then(|| {
        format!(
            "committing requested changes failed: max allowed charm state size ({limit}) exceeded"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook_tools::HookTools as _;
    use crate::offline::tools::tests::{call, far, tools};
    use crate::status::store_juju::JujuStore;
    use std::sync::Arc;

    fn stdout(out: &ToolOutput) -> &str {
        std::str::from_utf8(&out.stdout).unwrap()
    }

    #[test]
    fn state_tools_answer_like_juju() {
        let mut t = tools(SimState::default());
        // An empty state is Juju's nil map; a missing key is empty.
        assert_eq!(
            stdout(&call(&mut t, "state-get", &["--format=json"])),
            "null\n"
        );
        assert_eq!(
            stdout(&call(&mut t, "state-get", &["--format=json", "k"])),
            "\"\"\n"
        );
        let strict = call(&mut t, "state-get", &["--strict", "k"]);
        assert_eq!(
            (strict.code, strict.stderr.as_str()),
            (1, "ERROR \"k\" not found\n")
        );

        // The file's pairs, overridden by the command line's.
        let out = t
            .call(
                "state-set",
                &["--file", "-", "b=argv"],
                Some(br#"{"a":"1","b":"file"}"#),
                far(),
            )
            .unwrap();
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            stdout(&call(&mut t, "state-get", &["--format=json"])),
            "{\"a\":\"1\",\"b\":\"argv\"}\n"
        );
        assert_eq!(stdout(&call(&mut t, "state-get", &["a"])), "1\n");
        assert_eq!(call(&mut t, "state-delete", &["a"]).code, 0);
        assert_eq!(call(&mut t, "state-delete", &["never-set"]).code, 0);
        assert_eq!(
            stdout(&call(&mut t, "state-get", &["--format=json"])),
            "{\"b\":\"argv\"}\n"
        );

        // Juju's bounds, checked for every pair before any is kept.
        let big = format!("v={}", "x".repeat(MAX_VALUE + 1));
        let out = call(&mut t, "state-set", &["ok=1", &big]);
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (1, "ERROR max allowed value length (65536) exceeded\n")
        );
        let long_key = format!("{}=1", "k".repeat(MAX_KEY + 1));
        let out = call(&mut t, "state-set", &[&long_key]);
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (1, "ERROR max allowed key length (256) exceeded\n")
        );
        assert!(!t.state.lock().unwrap().model.charm_state.contains_key("ok"));
        let exact = format!("v={}", "x".repeat(MAX_VALUE));
        assert_eq!(call(&mut t, "state-set", &[&exact]).code, 0);
        assert_eq!(call(&mut t, "state-set", &["novalue"]).code, 2);
    }

    #[test]
    fn the_juju_backend_keeps_its_store_in_the_simulated_state() {
        use crate::status::merge::{Band, Kind};
        use crate::status::store::{ScopeStore, Target, Write};
        let t = tools(SimState::default());
        let shared = t.state.clone();
        let t: Arc<dyn crate::hook_tools::HookTools> = Arc::new(t);
        let mut store = ScopeStore::default();
        store.apply(
            Write::Set {
                target: Target::Unit,
                scope: "tls".into(),
                status: Kind::Blocked,
                message: "no certificate \u{85}\u{2028} é".into(),
                priority: Band::Normal,
            },
            "install",
            1,
        );
        let mut backend = JujuStore::new(t.clone());
        assert_eq!(backend.load().unwrap(), ScopeStore::default());
        backend.save(&store).unwrap();
        let state = shared.lock().unwrap().model.charm_state.clone();
        assert_eq!(
            state.keys().collect::<Vec<_>>(),
            ["wasm-charm.store", "wasm-charm.store.0"]
        );
        assert_eq!(refused_at_commit(&state, None), None);
        assert_eq!(JujuStore::new(t).load().unwrap(), store);
    }

    #[test]
    fn a_state_past_the_quota_is_refused_at_commit_in_jujus_words() {
        let mut state: BTreeMap<String, String> = (0..31)
            .map(|i| (format!("k{i:02}"), "x".repeat(MAX_VALUE)))
            .collect();
        assert_eq!(refused_at_commit(&state, None), None);
        state.insert("k31".into(), "x".repeat(MAX_VALUE));
        assert_eq!(
            refused_at_commit(&state, None).as_deref(),
            Some(
                "committing requested changes failed: max allowed charm state size (2097152) exceeded"
            )
        );
    }
}
