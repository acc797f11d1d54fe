//! Every seed of the fuzz corpora (`fuzz/corpus/<target>/`) and every input
//! a fuzz campaign crashed on (`fuzz/regressions/<target>/`), run through
//! the same entry points the fuzz targets call (`wasm_charm_host::fuzzing`),
//! on stable: a parser that panics again, or a round trip that breaks,
//! fails here without nightly or cargo-fuzz.

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Run every file of `<fuzz>/<kind>/<target>/` through its target; the
/// number of files run.
fn run_all(kind: &str) -> usize {
    let targets = wasm_charm_host::fuzzing::targets();
    let root = fuzz_dir().join(kind);
    let mut ran = 0;
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return 0;
    };
    for dir in dirs {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        // A folder no target reads is a renamed or removed target's.
        let (_, entry) = targets
            .iter()
            .find(|(t, _)| *t == name)
            .unwrap_or_else(|| panic!("{}: no fuzz target `{name}`", dir.display()));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|f| f.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| entry(&data));
            assert!(outcome.is_ok(), "{}: the parser panicked", file.display());
            ran += 1;
        }
    }
    ran
}

#[test]
fn every_seed_and_every_kept_crash_parses_without_a_panic() {
    let targets = wasm_charm_host::fuzzing::targets();
    for (name, _) in &targets {
        let seeds = fuzz_dir().join("corpus").join(name);
        assert!(
            seeds.is_dir(),
            "{}: target `{name}` has no seeds",
            seeds.display()
        );
    }
    let ran = run_all("corpus");
    assert!(ran >= targets.len(), "only {ran} seeds ran");
    // `regressions/` holds an input only once a campaign crashed on it.
    run_all("regressions");
}
