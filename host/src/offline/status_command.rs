//! `wasm-charm status`: the scopes of an offline state or of the charm's
//! store, read without creating anything.

use super::run_args::UsageError;
use super::state_file::{default_state_path, load_state};
use crate::charm_dir::{CharmDir, CharmFileError, StoreChoice};
use crate::status::store::{ScopeStore, check_format};
use crate::status::store_juju;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// Where `wasm-charm status` reads without `--state`: the offline state
/// `run` writes by default when there is one, else the charm's own store.
pub enum StatusSource {
    OfflineState(PathBuf),
    CharmStore(PathBuf),
}

/// `wasm-charm status`: the scopes of an offline state or of the charm's
/// store, read under a shared lock without creating anything. The first line
/// on stderr says which was read. A charm with `store: juju` keeps its store
/// in Juju's charm state, which only a hook can read: offline it is the
/// state file's `charm-state`, on a unit the `show-status` action shows it.
pub fn status(charm: &Path, state: Option<&Path>, json: bool) -> anyhow::Result<()> {
    // A charm directory that cannot be read still shows the store.
    let charm_dir = CharmDir::load(charm);
    let choice = charm_dir
        .as_ref()
        .map(|c| c.manifest.store)
        .unwrap_or_default();
    let source = status_source(charm, state)?;
    let store = match &source {
        StatusSource::OfflineState(path) => read_offline_state(path, choice)?,
        StatusSource::CharmStore(_) if choice == StoreChoice::Juju => {
            anyhow::bail!(
                "{}: the charm keeps its scope store in Juju's charm state (`store: juju` in \
                 wasm-charm.yaml), which only a hook can read: run the show-status action \
                 (`juju run <unit> show-status`), or read an offline state with --state",
                charm.display()
            );
        }
        StatusSource::CharmStore(path) => read_charm_store(charm, path, choice)?,
    };
    print_store(&store, charm_dir.as_ref(), json);
    Ok(())
}

/// `--state`, else the offline state `run` writes by default when there is
/// one, else the charm's own store.
fn status_source(charm: &Path, state: Option<&Path>) -> anyhow::Result<StatusSource> {
    Ok(match state {
        Some(path) => StatusSource::OfflineState(path.to_path_buf()),
        None => {
            let offline = default_state_path(charm)?;
            if offline.is_file() {
                StatusSource::OfflineState(offline)
            } else {
                StatusSource::CharmStore(crate::status::store_file::store_path(charm))
            }
        }
    })
}

/// The store an offline state keeps: its `scopes`, or for a `store: juju`
/// charm its `charm-state`.
fn read_offline_state(path: &Path, choice: StoreChoice) -> anyhow::Result<ScopeStore> {
    eprintln!("reading the offline state {}", path.display());
    if !path.is_file() {
        return Err(UsageError(format!(
            "{}: no such state file (`wasm-charm run` creates it)",
            path.display()
        ))
        .into());
    }
    let state = load_state(path)?.sim;
    if choice == StoreChoice::Juju {
        eprintln!("(the charm's `store: juju`: its store is the state's `charm-state`)");
        store_juju::decode_state(&state.model.charm_state)
            .with_context(|| format!("{}: `charm-state`", path.display()))
    } else {
        let store = state.store.scopes.unwrap_or_default();
        check_format(store.format).with_context(|| format!("{}: `scopes`", path.display()))?;
        Ok(store)
    }
}

/// The charm's own store file, under a shared lock; empty when there is
/// none yet.
fn read_charm_store(charm: &Path, path: &Path, choice: StoreChoice) -> anyhow::Result<ScopeStore> {
    eprintln!("reading the charm's store {}", path.display());
    Ok(
        match crate::status::store_file::StoreFile::lock_shared(charm)? {
            Some(mut file) => file.load()?,
            None => {
                if choice == StoreChoice::Auto {
                    eprintln!(
                        "no store there yet; on Kubernetes (`store: auto`) a unit keeps it in \
                         Juju's charm state, which only a hook can read: run the show-status \
                         action (`juju run <unit> show-status`)"
                    );
                }
                ScopeStore::default()
            }
        },
    )
}

/// The store as JSON, or as the status report.
fn print_store(store: &ScopeStore, charm_dir: Result<&CharmDir, &CharmFileError>, json: bool) {
    if json {
        print!("{}", store.show());
    } else {
        // Whether each probe gates is the manifest's until a handler
        // chooses; a charm directory that cannot be read still shows the
        // store.
        let gates = match charm_dir {
            Ok(c) => Some(crate::probe::gates(&c.manifest.probes, &store.probes)),
            Err(e) => {
                eprintln!("not reading the probes' gating from the manifest: {e}");
                None
            }
        };
        print!(
            "{}",
            crate::show::status_report(store, true, gates.as_ref())
        );
    }
}
