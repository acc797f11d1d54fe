//! The scope store at a size no unit reaches (the host bounds current
//! scopes far lower): 100,000 scopes merged, encoded and saved, in process,
//! as the last steps of an event do.

use crate::measure::median;
use std::path::Path;
use std::time::Instant;
use wasm_charm_host::status::merge::{Band, Kind, merge};
use wasm_charm_host::status::store::{ScopeStore, Target, Write};
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

/// Merge, encode and save the store `runs` times in a charm directory of
/// `dir`; print the median of each step and of the whole.
pub fn store_row(dir: &Path, runs: usize) {
    let store = big_store();
    let charm = dir.join("big-store-charm");
    std::fs::create_dir_all(&charm).unwrap();
    let file = StoreFile::lock(&charm).unwrap_or_else(|e| panic!("{}: {e}", charm.display()));
    let (mut merged, mut saved, mut whole) = (Vec::new(), Vec::new(), Vec::new());
    let mut bytes = 0;
    for _ in 0..runs.clamp(3, 20) {
        let start = Instant::now();
        let m = merge(store.views(Target::Unit), "ready");
        let mid = Instant::now();
        file.save(&store).unwrap_or_else(|e| panic!("save: {e}"));
        let end = Instant::now();
        assert_eq!(m.others, SCOPES / 10 - 1, "every problem counted");
        merged.push((mid - start).as_secs_f64() * 1e3);
        saved.push((end - mid).as_secs_f64() * 1e3);
        whole.push((end - start).as_secs_f64() * 1e3);
        bytes = std::fs::metadata(file.path()).map(|m| m.len()).unwrap_or(0);
    }
    println!();
    println!("scope store of {SCOPES} scopes, in process (merge, then encode and save atomically)");
    println!(
        "  merge {:.2} ms, encode and save {:.2} ms, whole {:.2} ms (medians); {bytes} bytes",
        median(merged),
        median(saved),
        median(whole)
    );
}
