//! The run-time check that an artifact is the sealed compilation of the
//! component beside it (`runtime::cache::check_seal`), in process, on the
//! native artifacts this run packed: the first load after unpacking hashes
//! the artifact; later loads find the memo of that check and only stat it.

use crate::measure::median;
use std::path::Path;
use std::time::Instant;
use wasm_charm_host::runtime::cache;
use wasm_charm_host::runtime::engine::Target;

/// One row per packed charm in `charms` whose cache holds a native artifact.
pub fn seal_rows(charms: &[(&str, &Path)], runs: usize) {
    for (name, charm) in charms {
        let cache_dir = charm.join(".wasm-charm").join(cache::CACHE_DIR);
        let Some((artifact, sha)) = native_artifact(&cache_dir) else {
            println!("seal check, {name}: no native artifact (run its section first)");
            continue;
        };
        let memo = {
            let mut n = artifact.file_name().unwrap_or_default().to_os_string();
            n.push(".checked");
            artifact.with_file_name(n)
        };
        let time = |forget: bool| -> f64 {
            let mut each = Vec::with_capacity(runs);
            for _ in 0..runs.max(3) {
                if forget {
                    let _ = std::fs::remove_file(&memo);
                }
                let start = Instant::now();
                cache::check_seal(&artifact, &sha).expect("the packed artifact is sealed");
                each.push(start.elapsed().as_secs_f64() * 1e3);
            }
            median(each)
        };
        let first = time(true);
        let later = time(false);
        let bytes = std::fs::metadata(&artifact).map_or(0, |m| m.len());
        println!(
            "seal check, {name}: native artifact {:.2} MB: first load after unpacking {first:.2} ms \
             (hashed), every later load {:.1} µs (its memo)",
            bytes as f64 / 1e6,
            later * 1e3
        );
    }
}

fn native_artifact(cache_dir: &Path) -> Option<(std::path::PathBuf, String)> {
    let suffix = format!(".{}.cwasm", Target::Native.kind());
    std::fs::read_dir(cache_dir).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let sha = name.strip_suffix(&suffix)?.to_string();
        Some((e.path(), sha))
    })
}
