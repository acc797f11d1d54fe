//! The state file of `wasm-charm run`: the simulated Juju's state
//! ([`SimState`]) and, under its `machine:` key, the simulated machine's
//! ([`MachineState`]); where it is by default, and how it is read and
//! written.

use super::machine::MachineState;
use super::run_args::UsageError;
use super::sim::SimState;
use anyhow::Context as _;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::path::{Path, PathBuf};

/// The key of the machine's section in the state file.
const SECTION: &str = "machine";

/// The whole state file: the simulated Juju's state and the machine's.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StateFile {
    #[serde(flatten)]
    pub sim: SimState,
    #[serde(skip_serializing_if = "MachineState::is_empty")]
    pub machine: MachineState,
}

impl<'de> Deserialize<'de> for StateFile {
    /// The `machine` key is taken out; every other key goes to
    /// [`SimState`], which refuses those it does not know, as it would on
    /// its own.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(FileVisitor)
    }
}

struct FileVisitor;

impl<'de> Visitor<'de> for FileVisitor {
    type Value = StateFile;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a wasm-charm run state: a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StateFile, A::Error> {
        let mut machine = None;
        let sim = SimState::deserialize(de::value::MapAccessDeserializer::new(WithoutMachine {
            map,
            machine: &mut machine,
        }))?;
        Ok(StateFile {
            sim,
            machine: machine.unwrap_or_default(),
        })
    }
}

/// A map with its `machine` entry read aside.
struct WithoutMachine<'m, A> {
    map: A,
    machine: &'m mut Option<MachineState>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutMachine<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(key) = self.map.next_key::<String>()? {
            if key != SECTION {
                let key = de::value::StringDeserializer::<A::Error>::new(key);
                return seed.deserialize(key).map(Some);
            }
            if self.machine.is_some() {
                return Err(de::Error::duplicate_field(SECTION));
            }
            *self.machine = Some(self.map.next_value()?);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// The state file `run` uses without `--state`: beside the charm directory,
/// named after it. Inside it, the state would ship with the charm.
pub fn default_state_path(charm: &Path) -> anyhow::Result<PathBuf> {
    let full = charm
        .canonicalize()
        .with_context(|| format!("{}: cannot find the charm directory", charm.display()))?;
    match (full.parent(), full.file_name()) {
        (Some(parent), Some(name)) => {
            let mut file = name.to_os_string();
            file.push(".offline-state.yaml");
            Ok(parent.join(file))
        }
        _ => Err(UsageError(format!(
            "{}: has no parent directory for the state file; name one with --state",
            full.display()
        ))
        .into()),
    }
}

pub fn load_state(path: &Path) -> anyhow::Result<StateFile> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_state(&text)
            .with_context(|| format!("{}: not a valid state file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StateFile::default()),
        Err(e) => Err(e).with_context(|| format!("{}: cannot read", path.display())),
    }
}

/// A state file's text; blank text is the empty state (a new file).
pub fn parse_state(text: &str) -> Result<StateFile, serde_saphyr::Error> {
    if text.trim().is_empty() {
        return Ok(StateFile::default());
    }
    serde_saphyr::from_str(text)
}

pub(crate) fn save_state(
    path: &Path,
    state: &SimState,
    machine: &MachineState,
) -> anyhow::Result<()> {
    let file = StateFile {
        sim: state.clone(),
        machine: machine.clone(),
    };
    let text = serde_saphyr::to_string(&file)
        .with_context(|| format!("{}: cannot encode the state", path.display()))?;
    let dir = crate::atomic_file::parent(path);
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    crate::atomic_file::write(path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::machine::{ExitWord, ScriptedExit, SimService};
    use crate::status::store::ScopeStore;
    use proptest::prelude::*;

    #[test]
    fn the_machine_section_is_read_beside_the_sims_and_written_back() {
        let text = "leader: false\nmachine:\n  services:\n    api-service: {active: failed}\n  \
                    packages: [nginx]\n  commands:\n    db-sync: {exit: 3, stderr: locked}\n    \
                    slow: {exit: timed-out}\nconfig: {kind: ingress}\n";
        let file: StateFile = serde_saphyr::from_str(text).unwrap();
        assert!(!file.sim.model.leader);
        assert_eq!(file.sim.model.config["kind"], "ingress");
        assert_eq!(
            file.machine.services["api-service"],
            SimService {
                active: "failed".into(),
                enabled: "disabled".into(),
                ..SimService::default()
            }
        );
        assert!(file.machine.packages.contains("nginx"));
        assert_eq!(file.machine.commands["db-sync"].exit, ScriptedExit::Code(3));
        assert_eq!(
            file.machine.commands["slow"].exit,
            ScriptedExit::Word(ExitWord::TimedOut)
        );
        let written = serde_saphyr::to_string(&file).unwrap();
        let again: StateFile = serde_saphyr::from_str(&written).unwrap();
        assert_eq!(again, file, "{written}");
        // An empty machine writes no section.
        let plain = serde_saphyr::to_string(&StateFile::default()).unwrap();
        assert!(!plain.contains("machine"), "{plain}");
        let back: StateFile = serde_saphyr::from_str(&plain).unwrap();
        assert_eq!(back, StateFile::default());
    }

    #[test]
    fn typos_are_refused_in_both_parts() {
        let e = serde_saphyr::from_str::<StateFile>("leadr: true\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("leadr"), "{e}");
        let e = serde_saphyr::from_str::<StateFile>("machine:\n  service: {}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("service"), "{e}");
        let e = serde_saphyr::from_str::<StateFile>("machine:\n  commands:\n    x: {exit: done}\n")
            .unwrap_err()
            .to_string();
        assert!(!e.is_empty());
    }

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
        let mut state = SimState::default();
        state.store.scopes = Some(store);
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
            let mut state = SimState::default();
            state.store.scopes = Some(store);
            let text = serde_saphyr::to_string(&state).unwrap();
            let back: SimState = serde_saphyr::from_str(&text).unwrap();
            prop_assert_eq!(back, state);
        }
    }
}
