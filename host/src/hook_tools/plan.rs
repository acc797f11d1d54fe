//! Which hook-tool reads an event starts before a handler asks for them:
//! the reads the same hook made the last time it ran, kept per dispatch
//! path in the charm's cache directory. Pure: the file's bytes and the
//! hook's environment in, argv lists out; [`super::ahead`] runs them.
//!
//! Arguments that name the event's relation or remote unit are kept as
//! the variable that held them, so the plan of `db-relation-changed`
//! reads the data of whichever unit the next run is about.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The plans' file, in the charm's cache directory.
pub const PLANS_FILE: &str = "reads-ahead.json";

/// Plans larger than this are not read: the file is the host's own, and
/// one written by anything else is ignored rather than trusted.
pub const MAX_PLANS_BYTES: u64 = 256 << 10;

/// At most this many reads of one hook are started ahead.
pub const MAX_READS_AHEAD: usize = 8;

const VERSION: u32 = 1;

/// Tools whose answer within a hook nothing the charm does can change
/// before its first write: Juju answers them from the hook's context.
/// Only these are started ahead.
const READS: &[&str] = &[
    "action-get",
    "config-get",
    "goal-state",
    "is-leader",
    "network-get",
    "relation-get",
    "relation-ids",
    "relation-list",
];

/// Tools that change nothing a read in [`READS`] answers: a call of any
/// other tool ends the serving of reads started ahead, so an answer read
/// before a write is never given after it.
const CHANGES_NO_READ: &[&str] = &[
    "credential-get",
    "juju-log",
    "leader-get",
    "opened-ports",
    "relation-model-get",
    "secret-ids",
    "state-get",
    "status-get",
    "storage-get",
    "storage-list",
];

/// Variables whose value an argument stands for when it equals it, in the
/// order they are tried.
const EVENT_VARS: &[&str] = &["JUJU_RELATION_ID", "JUJU_REMOTE_UNIT", "JUJU_REMOTE_APP"];

/// Whether `tool` may be started ahead.
pub fn is_read(tool: &str) -> bool {
    READS.contains(&tool)
}

/// Whether a call of `tool` leaves every read's answer as it was.
pub fn changes_no_read(tool: &str) -> bool {
    is_read(tool) || CHANGES_NO_READ.contains(&tool)
}

/// One argument of a planned read: text, or the event variable it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
enum Arg {
    Text(String),
    Var { var: String },
}

/// Every hook's planned reads, by dispatch path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plans {
    version: u32,
    hooks: BTreeMap<String, Vec<Vec<Arg>>>,
}

impl Plans {
    /// The plans in `bytes`; anything that is not a plan file of this
    /// version reads as no plan at all, and a call of a tool that is not
    /// a read is dropped, whatever the file says.
    pub fn decode(bytes: &[u8]) -> Plans {
        let Ok(mut plans) = serde_json::from_slice::<Plans>(bytes) else {
            return Plans::default();
        };
        if plans.version != VERSION {
            return Plans::default();
        }
        for calls in plans.hooks.values_mut() {
            calls.retain(|argv| {
                matches!(argv.first(), Some(Arg::Text(tool)) if is_read(tool))
                    && argv[1..].iter().all(|a| match a {
                        Arg::Text(_) => true,
                        Arg::Var { var } => EVENT_VARS.contains(&var.as_str()),
                    })
            });
            calls.truncate(MAX_READS_AHEAD);
        }
        plans.hooks.retain(|_, calls| !calls.is_empty());
        plans
    }

    pub fn encode(&self) -> Vec<u8> {
        let plans = Plans {
            version: VERSION,
            hooks: self.hooks.clone(),
        };
        serde_json::to_vec(&plans).unwrap_or_default()
    }

    /// The reads to start for `hook`, their variables given the values
    /// `var` reads from the hook's environment; a read whose variable this
    /// run lacks is left out.
    pub fn reads<'e>(&self, hook: &str, var: impl Fn(&str) -> Option<&'e str>) -> Vec<Vec<String>> {
        let Some(calls) = self.hooks.get(hook) else {
            return Vec::new();
        };
        calls
            .iter()
            .filter_map(|argv| {
                argv.iter()
                    .map(|a| match a {
                        Arg::Text(t) => Some(t.clone()),
                        Arg::Var { var: name } => var(name).map(str::to_string),
                    })
                    .collect()
            })
            .collect()
    }

    /// Keep `made` (the reads the hook made before its first write, in
    /// order) as `hook`'s plan, `var` reading the hook's environment.
    /// `true` when the plan changed.
    pub fn learn<'e>(
        &mut self,
        hook: &str,
        made: &[Vec<String>],
        var: impl Fn(&str) -> Option<&'e str>,
    ) -> bool {
        let mut calls: Vec<Vec<Arg>> = Vec::new();
        for argv in made {
            let Some(tool) = argv.first().filter(|tool| is_read(tool)) else {
                continue;
            };
            // Only a relation's reads name the event's relation and unit.
            let about_the_event = matches!(tool.as_str(), "relation-get" | "relation-list");
            let planned: Vec<Arg> = argv
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let var = (about_the_event && i > 0)
                        .then(|| EVENT_VARS.iter().find(|v| var(v) == Some(a.as_str())))
                        .flatten();
                    match var {
                        Some(v) => Arg::Var { var: v.to_string() },
                        None => Arg::Text(a.clone()),
                    }
                })
                .collect();
            if !calls.contains(&planned) {
                calls.push(planned);
            }
            if calls.len() == MAX_READS_AHEAD {
                break;
            }
        }
        let before = self.hooks.get(hook);
        if before.map_or(calls.is_empty(), |b| *b == calls) {
            return false;
        }
        if calls.is_empty() {
            self.hooks.remove(hook);
        } else {
            self.hooks.insert(hook.to_string(), calls);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A hook's environment, as a lookup.
    struct Env(Vec<(&'static str, &'static str)>);

    impl Env {
        fn var(&self) -> impl Fn(&str) -> Option<&'static str> + '_ {
            |name| self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
        }
    }

    fn env(vars: &[(&'static str, &'static str)]) -> Env {
        Env(vars.to_vec())
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_relation_read_follows_the_unit_the_next_run_is_about() {
        let first = env(&[("JUJU_RELATION_ID", "db:3"), ("JUJU_REMOTE_UNIT", "pg/0")]);
        let read = argv(&[
            "relation-get",
            "--format=json",
            "-r",
            "db:3",
            "--",
            "-",
            "pg/0",
        ]);
        let mut plans = Plans::default();
        assert!(plans.learn("hooks/db-relation-changed", &[read], first.var()));
        let next = env(&[("JUJU_RELATION_ID", "db:7"), ("JUJU_REMOTE_UNIT", "pg/2")]);
        let again = Plans::decode(&plans.encode());
        assert_eq!(
            again.reads("hooks/db-relation-changed", next.var()),
            [argv(&[
                "relation-get",
                "--format=json",
                "-r",
                "db:7",
                "--",
                "-",
                "pg/2"
            ])]
        );
        // A run without the variable starts nothing for that read.
        assert!(
            again
                .reads("hooks/db-relation-changed", env(&[]).var())
                .is_empty()
        );
    }

    #[test]
    fn only_a_relation_read_stands_for_the_event_variables() {
        let first = env(&[("JUJU_REMOTE_APP", "pg")]);
        let read = argv(&["network-get", "pg"]);
        let mut plans = Plans::default();
        plans.learn(
            "hooks/db-relation-joined",
            std::slice::from_ref(&read),
            first.var(),
        );
        let next = env(&[("JUJU_REMOTE_APP", "mysql")]);
        assert_eq!(plans.reads("hooks/db-relation-joined", next.var()), [read]);
    }

    #[test]
    fn only_reads_are_planned_and_a_hook_that_read_nothing_loses_its_plan() {
        let e = env(&[]);
        let mut plans = Plans::default();
        let made = [
            argv(&["config-get", "--format=json"]),
            argv(&["status-get", "--format=json"]),
            argv(&["config-get", "--format=json"]),
            argv(&["is-leader", "--format=json"]),
        ];
        assert!(plans.learn("hooks/config-changed", &made, e.var()));
        assert_eq!(
            plans.reads("hooks/config-changed", e.var()),
            [
                argv(&["config-get", "--format=json"]),
                argv(&["is-leader", "--format=json"])
            ]
        );
        assert!(!plans.learn("hooks/config-changed", &made, e.var()));
        assert!(plans.learn("hooks/config-changed", &[], e.var()));
        assert_eq!(plans, Plans::default());
    }

    #[test]
    fn a_file_that_names_anything_but_a_read_is_not_trusted_with_it() {
        let written = br#"{"version":1,"hooks":{"hooks/install":[
            ["relation-set","--","a=b"],
            ["config-get","--format=json"],
            ["network-get",{"var":"HOME"}],
            [{"var":"JUJU_REMOTE_UNIT"}]
        ]}}"#;
        let plans = Plans::decode(written);
        assert_eq!(
            plans.reads("hooks/install", env(&[("JUJU_REMOTE_UNIT", "x/0")]).var()),
            [argv(&["config-get", "--format=json"])]
        );
        for bad in [&b"{"[..], b"[]", br#"{"version":2,"hooks":{}}"#, b"\xff"] {
            assert_eq!(Plans::decode(bad), Plans::default());
        }
    }

    #[test]
    fn a_plan_is_bounded() {
        let made: Vec<Vec<String>> = (0..20)
            .map(|i| argv(&["relation-list", "--format=json", "-r", &format!("db:{i}")]))
            .collect();
        let mut plans = Plans::default();
        plans.learn("hooks/update-status", &made, env(&[]).var());
        assert_eq!(
            plans.reads("hooks/update-status", env(&[]).var()).len(),
            MAX_READS_AHEAD
        );
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("db:1".to_string()),
            Just("pg/0".to_string()),
            Just("pg".to_string()),
            Just("--format=json".to_string()),
            "[ -~]{0,6}",
        ]
    }

    fn call() -> impl Strategy<Value = Vec<String>> {
        (
            prop::sample::select(vec![
                "config-get",
                "relation-get",
                "is-leader",
                "relation-set",
                "juju-log",
            ]),
            prop::collection::vec(word(), 0..5),
        )
            .prop_map(|(tool, args)| std::iter::once(tool.to_string()).chain(args).collect())
    }

    proptest! {
        /// What a run learned, written and read back, is what the next
        /// run of the same event starts: its reads, first of each, in
        /// order, bounded.
        #[test]
        fn the_next_run_starts_the_reads_this_one_made(
            made in prop::collection::vec(call(), 0..12),
        ) {
            let e = env(&[
                ("JUJU_RELATION_ID", "db:1"),
                ("JUJU_REMOTE_UNIT", "pg/0"),
                ("JUJU_REMOTE_APP", "pg"),
            ]);
            let mut plans = Plans::default();
            plans.learn("hooks/db-relation-changed", &made, e.var());
            let mut expected: Vec<Vec<String>> = Vec::new();
            for argv in made.iter().filter(|a| is_read(&a[0])) {
                if !expected.contains(argv) && expected.len() < MAX_READS_AHEAD {
                    expected.push(argv.clone());
                }
            }
            let again = Plans::decode(&plans.encode());
            prop_assert_eq!(again.reads("hooks/db-relation-changed", e.var()), expected);
        }

        #[test]
        fn any_bytes_decode_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let plans = Plans::decode(&bytes);
            prop_assert!(plans.hooks.values().all(|c| !c.is_empty() && c.len() <= MAX_READS_AHEAD));
        }
    }
}
