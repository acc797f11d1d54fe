//! The scope store at a size no unit reaches (the host bounds current
//! scopes far lower): 100,000 scopes merged, encoded and saved, in process,
//! as the last steps of an event do.

use crate::measure::median;
use std::path::Path;
use std::time::Instant;
use wasm_charm_host::status::merge::{Band, Kind, merge};
use wasm_charm_host::status::store::{ScopeStore, Target, Write};
use wasm_charm_host::status::store_edit::StoreEdit;
use wasm_charm_host::status::store_file::StoreFile;

const SCOPES: usize = 100_000;

/// A store of `SCOPES` unit scopes, a tenth of them with a problem.
fn big_store() -> ScopeStore {
    let mut store = ScopeStore::default();
    for i in 0..SCOPES {
        let status = if i % 10 == 0 {
            Kind::Blocked
        } else {
            Kind::Active
        };
        let write = Write::Set {
            target: Target::Unit,
            scope: format!("handler/h{i}"),
            status,
            message: format!("scope {i} says so"),
            priority: Band::Normal,
        };
        store.apply(write, "config-changed", i as u64);
    }
    store
}

/// A store of `SCOPES` in a charm directory of `dir`, then events as the
/// host runs them: load (document and journal), one scope changed, merge,
/// save (its change appended to the journal); and the same store written
/// whole, as every event wrote it before the journal and as the event that
/// rewrites the document does. Medians of each step.
pub fn store_row(dir: &Path, runs: usize) {
    let store = big_store();
    let charm = dir.join("big-store-charm");
    let _ = std::fs::remove_dir_all(&charm);
    std::fs::create_dir_all(&charm).unwrap();
    let lock = || StoreFile::lock(&charm).unwrap_or_else(|e| panic!("{}: {e}", charm.display()));
    // Written twice: the second time it is marked as journaled.
    for _ in 0..2 {
        let mut file = lock();
        let loaded = file.load().unwrap_or_else(|e| panic!("load: {e}"));
        file.save(&StoreEdit::between(&loaded, store.clone()))
            .unwrap_or_else(|e| panic!("save: {e}"));
    }
    let (mut loads, mut merged, mut saved, mut whole) = (vec![], vec![], vec![], vec![]);
    let (mut compared, mut copies) = (vec![], vec![]);
    let runs = runs.clamp(3, 20);
    for run in 0..runs {
        let mut file = lock();
        let start = Instant::now();
        let loaded = file.load().unwrap_or_else(|e| panic!("load: {e}"));
        let after_load = Instant::now();
        // The event's edit: what it changes, noted as it changes it, for the
        // save and for a failed event, which keeps nothing.
        let mut changed = StoreEdit::begin(loaded);
        let copied = Instant::now();
        changed.apply(
            Write::Set {
                target: Target::Unit,
                scope: format!("handler/h{}", run * 7 + 1),
                status: Kind::Blocked,
                message: format!("run {run} says so"),
                priority: Band::Normal,
            },
            "config-changed",
            (SCOPES + run) as u64,
        );
        let mid = Instant::now();
        let m = merge(changed.views(Target::Unit), "ready");
        let merge_end = Instant::now();
        // What the save begins with, alone: the walk that finds the change.
        std::hint::black_box(changed.entry());
        let save_start = Instant::now();
        // As dispatch persists: whether the store is worth a save, then the save.
        assert!(changed.worth_saving());
        file.save(&changed).unwrap_or_else(|e| panic!("save: {e}"));
        let end = Instant::now();
        assert!(m.others >= SCOPES / 10 - 1, "every problem counted");
        loads.push((after_load - start).as_secs_f64() * 1e3);
        copies.push((copied - after_load).as_secs_f64() * 1e3);
        merged.push((merge_end - mid).as_secs_f64() * 1e3);
        compared.push((save_start - merge_end).as_secs_f64() * 1e3);
        saved.push((end - save_start).as_secs_f64() * 1e3);
    }
    let journal =
        std::fs::metadata(charm.join(".wasm-charm/scopes.journal")).map_or(0, |m| m.len());
    assert!(journal > 0, "the changes went to the journal");
    // The whole document, as the event that rewrites it writes it.
    let whole_dir = dir.join("big-store-whole");
    let _ = std::fs::remove_dir_all(&whole_dir);
    std::fs::create_dir_all(&whole_dir).unwrap();
    let mut bytes = 0;
    for _ in 0..runs {
        let mut file = StoreFile::lock(&whole_dir)
            .unwrap_or_else(|e| panic!("{}: {e}", whole_dir.display()))
            .journal_from(u64::MAX);
        // Loaded first, as an event does: the save alone is timed.
        let loaded = file.load().unwrap_or_else(|e| panic!("load: {e}"));
        let edit = StoreEdit::between(&loaded, store.clone());
        let start = Instant::now();
        file.save(&edit).unwrap_or_else(|e| panic!("save: {e}"));
        whole.push(start.elapsed().as_secs_f64() * 1e3);
        bytes = std::fs::metadata(file.path()).map_or(0, |m| m.len());
    }
    let (copy_ms, merge_ms, save_ms) = (median(copies), median(merged), median(saved));
    println!();
    println!("scope store of {SCOPES} scopes, in process ({bytes} bytes written whole)");
    println!(
        "  an event changing one scope: merge {merge_ms:.2} ms, save {save_ms:.2} ms (whether to save, then its change appended to the journal; finding the change {:.2} ms of that), merge and save {:.2} ms; with the event's edit begun ({copy_ms:.2} ms) {:.2} ms; load {:.2} ms (document and journal of {runs} events, {journal} bytes)",
        median(compared),
        merge_ms + save_ms,
        copy_ms + merge_ms + save_ms,
        median(loads),
    );
    println!(
        "  the document written whole (atomically, fsync): {:.2} ms, once the journal reaches a quarter of it",
        median(whole)
    );
}
