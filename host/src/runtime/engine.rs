//! The engine's configuration: one definition for the engine that compiles
//! (the CLI, `pack`) and the one that loads (`dispatch`, which has no
//! compiler), since an artifact only loads into an engine configured like
//! the one that made it (reference wasmtime-embedding.md §1.4, pitfall 3).
//!
//! Two targets, each an artifact of its own in the charm:
//!
//! * [`Target::Native`]: machine code for this architecture's *baseline*
//!   CPU. Naming the target explicitly stops cranelift from using the
//!   packing machine's own CPU features, so the artifact loads on any CPU
//!   of the architecture (wasmtime checks only that the features it used
//!   are present).
//! * [`Target::Portable`]: Pulley bytecode, which wasmtime's interpreter
//!   runs on any 64-bit CPU of the same byte order: the fallback where the
//!   native artifact does not fit (another architecture, a CPU it refuses).
//!   Slower to run, never compiled on the unit.

use wasmtime::{Config, Engine, ModuleVersionStrategy};

/// The wasmtime these artifacts come from: Cargo.toml pins it exactly, and
/// a test checks Cargo.lock agrees.
pub const WASMTIME_VERSION: &str = "48.0.8";

/// The version every artifact carries and every engine demands. wasmtime
/// itself would record only its major version (pitfall 1: patch releases
/// fix miscompilations), so the full one is written instead; an artifact
/// of another wasmtime is refused at load as stale. `pack` also looks for
/// this text in the `dispatch` it ships, which must be of the same wasmtime.
pub const ARTIFACT_VERSION: &str = "wasm-charm artifact of wasmtime 48.0.8";

/// What an artifact is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// This architecture's baseline CPU.
    Native,
    /// Pulley bytecode for a 64-bit CPU, big-endian when `big_endian`.
    Portable { big_endian: bool },
}

impl Target {
    /// The portable target for the CPU this process runs on.
    pub const HERE_PORTABLE: Target = Target::Portable {
        big_endian: cfg!(target_endian = "big"),
    };

    /// The target triple wasmtime compiles for. The native one is this
    /// binary's own triple (wasmtime compares it with its own when it
    /// compiles), named so that no CPU feature is inferred.
    pub fn triple(self) -> String {
        match self {
            Target::Native => {
                let env = if cfg!(target_env = "musl") {
                    "musl"
                } else {
                    "gnu"
                };
                format!("{}-unknown-linux-{env}", std::env::consts::ARCH)
            }
            Target::Portable { big_endian: false } => "pulley64".to_string(),
            Target::Portable { big_endian: true } => "pulley64be".to_string(),
        }
    }

    /// The artifact file's middle name: `<sha256>.<kind>.cwasm`.
    pub fn kind(self) -> &'static str {
        match self {
            Target::Native => "native",
            Target::Portable { .. } => "portable",
        }
    }
}

/// The engine configuration for `target`, the same for compiling and for
/// loading.
pub fn config(target: Target) -> wasmtime::Result<Config> {
    let mut config = Config::new();
    // Pin what `Config::new` would read from WASMTIME_BACKTRACE_DETAILS: an
    // environment variable must not make artifacts unloadable.
    config.wasm_backtrace_details(wasmtime::WasmBacktraceDetails::Disable);
    // Deadlines by epoch: cheaper than fuel, and wall-clock is what Juju sees.
    config.epoch_interruption(true);
    config.max_wasm_stack(512 << 10);
    // No `.eh_frame` in the artifact: wasmtime walks wasm frames by frame
    // pointer for traps and backtraces, and a host panic never unwinds
    // through them (it is caught at the host call and `dispatch` aborts on
    // panic anyway). With it, every load registered each function's entry
    // with the system unwinder: in the static musl `dispatch` (LLVM's
    // libunwind, one call per function) some 23,000 calls for a
    // componentize-py component at every event.
    config.native_unwind_info(false);
    #[cfg(feature = "compile")]
    config.cranelift_opt_level(wasmtime::OptLevel::Speed);
    config.target(&target.triple())?;
    #[cfg(feature = "compile")]
    if let Some(cache) = function_cache(target) {
        config.enable_incremental_compilation(cache)?;
    }
    config.module_version(ModuleVersionStrategy::Custom(ARTIFACT_VERSION.to_string()))?;
    Ok(config)
}

/// Where `pack` keeps the functions it compiled, per target, once it
/// asked ([`keep_compiled_functions_in`]); every engine this process makes
/// for a target then compiles through that target's cache.
#[cfg(feature = "compile")]
static FUNCTION_CACHES: std::sync::Mutex<Option<FunctionCaches>> = std::sync::Mutex::new(None);

#[cfg(feature = "compile")]
struct FunctionCaches {
    dir: std::path::PathBuf,
    by_triple: Vec<(
        String,
        std::sync::Arc<super::compiled_functions::FunctionCache>,
    )>,
}

/// From now on, compile through the functions kept in `dir` by the last
/// pack (`runtime::compiled_functions`), and keep this process's there
/// with [`save_compiled_functions`].
#[cfg(feature = "compile")]
pub fn keep_compiled_functions_in(dir: &std::path::Path) {
    *FUNCTION_CACHES.lock().unwrap_or_else(|p| p.into_inner()) = Some(FunctionCaches {
        dir: dir.to_path_buf(),
        by_triple: Vec::new(),
    });
}

#[cfg(feature = "compile")]
fn function_cache(
    target: Target,
) -> Option<std::sync::Arc<super::compiled_functions::FunctionCache>> {
    let mut caches = FUNCTION_CACHES.lock().unwrap_or_else(|p| p.into_inner());
    let caches = caches.as_mut()?;
    let triple = target.triple();
    if let Some((_, cache)) = caches.by_triple.iter().find(|(t, _)| *t == triple) {
        return Some(cache.clone());
    }
    let file = super::compiled_functions::file_in(&caches.dir, &triple);
    let cache = std::sync::Arc::new(super::compiled_functions::FunctionCache::at(file));
    caches.by_triple.push((triple, cache.clone()));
    Some(cache)
}

/// Write the functions this process compiled, per target, where
/// [`keep_compiled_functions_in`] said (and stop keeping them); how each
/// target's compile used the last pack's.
#[cfg(feature = "compile")]
pub fn save_compiled_functions() -> Vec<(String, super::compiled_functions::Use)> {
    let caches = FUNCTION_CACHES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    let Some(caches) = caches else {
        return Vec::new();
    };
    caches
        .by_triple
        .into_iter()
        .filter(|(_, cache)| cache.used().asked > 0)
        .map(|(triple, cache)| {
            // Best effort: without it, the next pack compiles every function.
            let _ = cache.save();
            (triple, cache.used())
        })
        .collect()
}

/// An engine for `target`.
pub fn engine(target: Target) -> wasmtime::Result<Engine> {
    Engine::new(&config(target)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned wasmtime is the one Cargo.lock resolved: otherwise
    /// artifacts would name a version that did not compile them.
    #[test]
    fn the_artifact_version_is_the_locked_wasmtime() {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
            .expect("read Cargo.lock");
        let locked = lock
            .split("[[package]]")
            .find(|p| p.contains("\nname = \"wasmtime\"\n"))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
            .expect("wasmtime in Cargo.lock");
        assert_eq!(locked.trim_matches('"'), WASMTIME_VERSION);
        assert!(ARTIFACT_VERSION.ends_with(WASMTIME_VERSION));
    }

    #[test]
    fn artifacts_carry_no_native_unwind_information() {
        // A component of one function: no `.eh_frame` section (its name is
        // in an ELF artifact's section names whenever there is one).
        let mut module = wasm_encoder::Module::new();
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function([], []);
        module.section(&types);
        let mut functions = wasm_encoder::FunctionSection::new();
        functions.function(0);
        module.section(&functions);
        let mut code = wasm_encoder::CodeSection::new();
        let mut f = wasm_encoder::Function::new([]);
        f.instructions().end();
        code.function(&f);
        module.section(&code);
        let mut component = wasm_encoder::Component::new();
        component.section(&wasm_encoder::ModuleSection(&module));
        let wasm = component.finish();
        let artifact = engine(Target::Native)
            .unwrap()
            .precompile_component(&wasm)
            .unwrap();
        let has = |name: &[u8]| artifact.windows(name.len()).any(|w| w == name);
        assert!(has(b".text"), "an ELF artifact names its sections");
        assert!(!has(b".eh_frame"));
    }

    #[test]
    fn both_targets_make_an_engine() {
        engine(Target::Native).unwrap();
        engine(Target::HERE_PORTABLE).unwrap();
    }
}
