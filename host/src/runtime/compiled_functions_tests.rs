use super::*;
use crate::runtime::engine::{self, Target};
use proptest::prelude::*;
use std::sync::Arc;

/// A component holding one core module whose functions return `bodies`'
/// numbers through a few instructions each: a body changed is one function
/// changed.
fn component(bodies: &[i32]) -> Vec<u8> {
    use wasm_encoder::{
        CodeSection, Function, FunctionSection, Module, ModuleSection, TypeSection, ValType,
    };
    let mut module = Module::new();
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32], [ValType::I32]);
    module.section(&types);
    let mut functions = FunctionSection::new();
    for _ in bodies {
        functions.function(0);
    }
    module.section(&functions);
    let mut code = CodeSection::new();
    for &n in bodies {
        let mut f = Function::new([]);
        f.instructions()
            .local_get(0)
            .i32_const(n)
            .i32_mul()
            .i32_const(n ^ 0x5a5a)
            .i32_add()
            .end();
        code.function(&f);
    }
    module.section(&code);
    let mut component = wasm_encoder::Component::new();
    component.section(&ModuleSection(&module));
    component.finish()
}

/// `wasm` compiled for `target`, through `cache` if any.
fn compile(target: Target, wasm: &[u8], cache: Option<Arc<FunctionCache>>) -> Vec<u8> {
    let mut config = engine::config(target).unwrap();
    if let Some(cache) = cache {
        config.enable_incremental_compilation(cache).unwrap();
    }
    wasmtime::Engine::new(&config)
        .unwrap()
        .precompile_component(wasm)
        .unwrap()
}

#[test]
fn a_second_compile_takes_back_every_unchanged_function_and_makes_the_same_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let first: Vec<i32> = (1..=40).collect();
    let mut second = first.clone();
    second[7] = 1000;
    for target in [Target::Native, Target::HERE_PORTABLE] {
        let file = file_in(dir.path(), &target.triple());
        let cache = Arc::new(FunctionCache::at(file.clone()));
        compile(target, &component(&first), Some(cache.clone()));
        let used = cache.used();
        assert!(used.asked >= 40 && used.found == 0, "{used:?}");
        cache.save().unwrap();

        let cache = Arc::new(FunctionCache::at(file.clone()));
        let cached = compile(target, &component(&second), Some(cache.clone()));
        let used = cache.used();
        assert_eq!(
            used.found,
            used.asked - 1,
            "{used:?}: all but the changed one"
        );
        assert_eq!(
            cached,
            compile(target, &component(&second), None),
            "the same artifact as compiled without the cache"
        );
        // The file now holds what that compile used: the changed function
        // in place of the old one, and no more.
        cache.save().unwrap();
        let kept = decode(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(kept.len(), used.asked);
    }
}

/// What `pack` does: asks for the kept functions, compiles with the
/// engines `runtime::engine` makes, saves. The kept functions are the
/// process's, as in `pack`'s own one-shot process: any engine another test
/// makes meanwhile compiles through them and is counted (seen: a pulley
/// compile of 42 functions beside this test's native one). So the test
/// runs in a process of its own, this test binary asked for it alone.
#[test]
fn engines_made_once_pack_asks_compile_through_the_kept_functions() {
    const ALONE: &str = "WASM_CHARM_TEST_ALONE";
    if std::env::var_os(ALONE).is_none() {
        let name = "engines_made_once_pack_asks_compile_through_the_kept_functions";
        // The test's path without the crate's name, as libtest filters it.
        let path = module_path!()
            .split_once("::")
            .map_or(module_path!(), |(_, path)| path);
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &format!("{path}::{name}"), "--test-threads=1"])
            .env(ALONE, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("test result: ok. 1 passed"),
            "{}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wasm = component(&[11, 12, 13]);
    let round = || {
        engine::keep_compiled_functions_in(dir.path());
        engine::engine(Target::Native)
            .unwrap()
            .precompile_component(&wasm)
            .unwrap();
        let used = engine::save_compiled_functions();
        assert_eq!(used.len(), 1, "{used:?}");
        assert_eq!(used[0].0, Target::Native.triple());
        used[0].1
    };
    let first = round();
    assert!(first.asked >= 3 && first.found == 0, "{first:?}");
    let file = file_in(dir.path(), &Target::Native.triple());
    assert!(decode(&std::fs::read(&file).unwrap()).is_some());
    let second = round();
    assert!(second.found >= 3, "{second:?}");
    // Saved and forgotten: nothing is kept until pack asks again.
    assert!(engine::save_compiled_functions().is_empty());
}

#[test]
fn a_file_that_is_not_a_cache_counts_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("functions.bin");
    std::fs::write(&file, b"something else").unwrap();
    let cache = Arc::new(FunctionCache::at(file.clone()));
    compile(Target::Native, &component(&[1, 2, 3]), Some(cache.clone()));
    assert_eq!(cache.used().found, 0);
    cache.save().unwrap();
    assert!(decode(&std::fs::read(&file).unwrap()).is_some());
    // Nothing compiled: nothing written over the last pack's entries.
    let untouched = FunctionCache::at(file.clone());
    let before = std::fs::read(&file).unwrap();
    untouched.save().unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

fn borrowed(
    entries: &std::collections::HashMap<Vec<u8>, Vec<u8>>,
) -> std::collections::BTreeMap<&[u8], &[u8]> {
    entries
        .iter()
        .map(|(k, v)| (k.as_slice(), v.as_slice()))
        .collect()
}

proptest! {
    #[test]
    fn entries_round_trip_and_a_cut_file_is_refused(
        entries in proptest::collection::hash_map(
            proptest::collection::vec(any::<u8>(), 0..40),
            proptest::collection::vec(any::<u8>(), 0..200),
            0..20,
        ),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = encode(&borrowed(&entries));
        prop_assert_eq!(decode(&bytes), Some(entries.clone()));
        prop_assert_eq!(&encode(&borrowed(&decode(&bytes).unwrap())), &bytes);
        if bytes.len() > MAGIC.len() {
            let at = MAGIC.len() + cut.index(bytes.len() - MAGIC.len());
            prop_assert_eq!(decode(&bytes[..at]), None);
        }
    }
}
