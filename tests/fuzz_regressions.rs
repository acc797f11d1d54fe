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

/// Mutants of the seeds that one target runs in the suite, unless
/// `WASM_CHARM_FUZZ_MUTANTS` says otherwise.
const MUTANTS: usize = 10_000;

/// A small deterministic generator (xorshift64*): the same mutants on
/// every run, so a failure here is reproduced by running the test again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// What the parsers' grammars are made of (JSON, YAML, `KEY=value`,
/// HTTP), and values at their edges: spliced in whole, they reach
/// deeper than single bytes do.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\n",
    b"- ",
    b": ",
    b"=",
    b"'",
    b"\\",
    b"null",
    b"true",
    b"-1",
    b"0",
    b"1e999",
    b"18446744073709551616",
    b"NaN",
    b"\\u0000",
    b"\\ud800",
    b"\xc3\xa9",
    b"\xff",
    b"&a",
    b"*a",
    b"!!binary",
    b"---",
    b"...",
    b"~",
    b"\r\n",
    b"\t",
    b"#",
    b"%",
    b"..",
    b"/",
    b"\0",
    b"{}",
    b"[]",
    b"\"\":",
];

/// One mutant of `seeds`: a seed (or two spliced), then one to eight
/// edits of the kinds libFuzzer makes (flip, set, insert, erase, copy,
/// token, cut).
fn mutant(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    if rng.below(8) == 0 {
        let other = &seeds[rng.below(seeds.len())];
        let at = rng.below(data.len() + 1);
        let from = rng.below(other.len() + 1);
        data.truncate(at);
        data.extend_from_slice(&other[from..]);
    }
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        let at = rng.below(len + 1);
        match rng.below(7) {
            0 if len > 0 => data[at.min(len - 1)] ^= 1 << rng.below(8),
            1 if len > 0 => data[at.min(len - 1)] = rng.next() as u8,
            2 => data.insert(at, rng.next() as u8),
            3 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                data.drain(at.min(len - 1)..end);
            }
            4 if len > 0 => {
                let from = rng.below(len);
                let end = (from + 1 + rng.below(64)).min(len);
                let piece = data[from..end].to_vec();
                data.splice(at..at, piece);
            }
            5 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, token.iter().copied());
            }
            _ => data.truncate(at),
        }
    }
    data
}

/// A short fuzzing run of every target on stable, in the suite: mutants of
/// its seeds (`fuzz/corpus/<target>/`), made as libFuzzer makes them but
/// without its coverage feedback, through the same entry points. The long,
/// coverage-guided campaigns are `scripts/fuzz` (nightly); this run
/// catches a parser change that panics on an input near a known one. A
/// panic names the target and keeps the input, to copy into
/// `fuzz/regressions/<target>/`.
#[test]
fn mutants_of_every_seed_parse_without_a_panic() {
    let mutants = std::env::var("WASM_CHARM_FUZZ_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(MUTANTS);
    let kept = std::env::temp_dir().join(format!("wasm-charm-fuzz-{}", std::process::id()));
    let mut ran = 0;
    let mut distinct = std::collections::HashSet::new();
    for (name, entry) in wasm_charm_host::fuzzing::targets() {
        let dir = fuzz_dir().join("corpus").join(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|f| f.unwrap().path())
            .collect();
        files.sort();
        let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        assert!(!seeds.is_empty(), "{}: no seeds", dir.display());
        // One stream per target: adding a target changes no other's mutants.
        let mut rng = Rng(name.bytes().fold(0x9e37_79b9_7f4a_7c15, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }));
        for n in 0..mutants {
            let data = mutant(&mut rng, &seeds);
            distinct.insert((name, data.clone()));
            if std::panic::catch_unwind(|| entry(&data)).is_err() {
                std::fs::create_dir_all(&kept).unwrap();
                let file = kept.join(format!("{name}-{n}"));
                std::fs::write(&file, &data).unwrap();
                panic!(
                    "fuzz target `{name}` panicked on mutant {n}, kept in {}: fix the \
                     parser, then copy the input to fuzz/regressions/{name}/",
                    file.display()
                );
            }
            ran += 1;
        }
    }
    assert_eq!(ran, mutants * wasm_charm_host::fuzzing::targets().len());
    // Not the seeds over and over: most mutants are new inputs.
    assert!(
        distinct.len() * 10 >= ran * 9,
        "only {} of {ran} mutants differ",
        distinct.len()
    );
}
