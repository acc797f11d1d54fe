//! The compiled-artifact cache (reference wasmtime-embedding.md §1.3–§1.4, §5).
//!
//! Compiling a component costs 30–60 ms; loading a precompiled artifact by
//! mmap costs a fraction of a millisecond. Artifacts live in
//! `<charm>/.wasm-charm/cache/<sha256>.<native|portable>.cwasm`, named by the
//! component's SHA-256 and the target (`engine`); wasmtime checks at load that
//! an artifact's version (the *full* wasmtime version, `engine`) and compile
//! settings are the engine's. `pack` ships both; a host with a compiler
//! (the CLI) replaces an unusable native one, `dispatch` falls back to the
//! portable one and otherwise fails naming `wasm-charm pack`.
//!
//! Loading is `unsafe` because a forged artifact is arbitrary code. Every
//! artifact carries the seal of the host that compiled it ([`super::seal`]):
//! the component it was compiled from and the digest of its bytes. One whose
//! seal does not match the component beside it is never loaded; the check
//! hashes the artifact once, and a memo (`<artifact>.checked`, the file's
//! stamp) spares later events the hash while the file is unchanged. A seal
//! stops mix-ups and edits, not a forger: see docs/trust.md and
//! `wasm-charm verify`. Artifacts are written atomically and never rewritten
//! in place, since a loaded artifact stays mapped.
//!
//! Two smaller entries spare a warm event the rest of the work: the
//! component's hash, reused while the file's size, inode and change time are
//! the same and the change is older than the entry (no re-reading and
//! hashing of the component), and the handler
//! declarations of that hash (no instance just to ask the guest for them).

use super::declarations;
use super::engine::{self, Target};
use super::seal;
use crate::atomic_file::write_making_dir;
use crate::bindings::Handler;
use crate::text::hex;
use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

pub const CACHE_DIR: &str = "cache";
const ID_FILE: &str = "component.id";

/// A component file, identified by the SHA-256 of its bytes.
#[derive(Debug, Clone)]
pub struct ComponentId {
    pub path: PathBuf,
    pub sha256: String,
    /// The bytes, when they had to be read to hash them.
    pub bytes: Option<Vec<u8>>,
}

/// The stat fields that change whenever the file's content can have: any
/// write updates the change time, which no unprivileged tool can set back.
fn stamp(meta: &std::fs::Metadata) -> String {
    format!(
        "{} {} {} {} {}",
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.mtime_nsec() + meta.mtime() * 1_000_000_000,
        meta.ctime_nsec() + meta.ctime() * 1_000_000_000
    )
}

/// Whether the component may have changed since its stamp was saved
/// without the stamp showing it: its change time is not older than the id
/// file's own. File times move in ticks of the kernel's coarse clock (a few
/// milliseconds), so a rewrite of the same size in the tick the id was
/// saved in keeps every field of the stamp; such an entry is hashed again
/// (the rule of git's "racily clean" index entries). A component unchanged
/// since an earlier tick than the id's is trusted.
fn racy(component: &std::fs::Metadata, id_file: &std::fs::Metadata) -> bool {
    (component.ctime(), component.ctime_nsec()) >= (id_file.mtime(), id_file.mtime_nsec())
}

/// The id file's text and its metadata; `None` when it cannot be read.
fn read_id(id_file: &Path) -> Option<(String, std::fs::Metadata)> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(id_file).ok()?;
    let meta = file.metadata().ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    Some((text, meta))
}

/// Identify the component at `path`, hashing it only when it changed.
pub fn identify(path: &Path, state_dir: &Path) -> std::io::Result<ComponentId> {
    let meta = std::fs::metadata(path)?;
    let stamp = stamp(&meta);
    let id_file = state_dir.join(CACHE_DIR).join(ID_FILE);
    let (saved, id_meta) = read_id(&id_file).unzip();
    let saved = saved
        .as_deref()
        .unwrap_or_default()
        .trim_end()
        .rsplit_once(' ');
    if let Some((saved_stamp, sha)) = saved
        && saved_stamp == stamp
        && sha.len() == 64
        && id_meta.is_some_and(|id| !racy(&meta, &id))
    {
        return Ok(ComponentId {
            path: path.to_path_buf(),
            sha256: sha.to_string(),
            bytes: None,
        });
    }
    let bytes = std::fs::read(path)?;
    let sha256 = hex(&Sha256::digest(&bytes));
    // Another component than the one last identified (an upgrade-charm):
    // the old one's artifacts are never loaded again. Juju's deployer
    // removes those the old charm shipped, not those a host compiled.
    if saved.is_some_and(|(_, old)| old != sha256) {
        remove_stale(&state_dir.join(CACHE_DIR), &sha256);
    }
    // Best effort: a read-only charm directory only costs a hash per event.
    let _ = write_making_dir(&id_file, format!("{stamp} {sha256}\n").as_bytes());
    Ok(ComponentId {
        path: path.to_path_buf(),
        sha256,
        bytes: Some(bytes),
    })
}

impl ComponentId {
    /// The component's bytes, read now if identifying did not need them.
    pub fn bytes(&mut self) -> std::io::Result<&[u8]> {
        if self.bytes.is_none() {
            self.bytes = Some(std::fs::read(&self.path)?);
        }
        Ok(self.bytes.as_deref().unwrap_or_default())
    }
}

/// The artifact of the component whose SHA-256 is `sha256`, for `target`,
/// in the cache directory `dir`: `<sha256>.<native|portable>.cwasm`. The
/// version and settings of the engine that made it are inside it, checked
/// by wasmtime at load ([`engine::ARTIFACT_VERSION`]).
pub fn artifact_path(dir: &Path, sha256: &str, target: Target) -> PathBuf {
    dir.join(format!("{sha256}.{}.cwasm", target.kind()))
}

/// How the component was obtained, for `precompile`, logs and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Loaded from the native artifact.
    Hit,
    /// Loaded from the portable artifact: the native one is missing or does
    /// not fit this CPU, and this host cannot compile.
    Portable,
    /// Compiled now and cached.
    Compiled,
    /// A cached artifact was unusable; compiled again and replaced.
    Recompiled,
    /// Compiled now; the cache directory could not be written.
    Uncached,
}

/// What `load` needs from the caller on a miss: the component's bytes, after
/// the caller checked they are a component.
pub type Bytes<'a> = &'a mut dyn FnMut() -> wasmtime::Result<Vec<u8>>;

/// A component ready to link, and the engine it is loaded in.
pub struct Loaded {
    pub engine: Engine,
    pub component: Component,
    pub source: Source,
    /// Why the native artifact was passed over, when it was.
    pub passed_over: Option<String>,
}

/// Why `load` failed.
#[derive(Debug)]
pub enum Failure {
    /// No artifact this host can load, and no compiler to make one: why,
    /// for each artifact tried.
    NoArtifact(String),
    /// wasmtime failed to make an engine, or to compile.
    Wasmtime(wasmtime::Error),
}

/// Load the component whose SHA-256 is `sha256` from the cache under
/// `state_dir`: the native artifact when it loads on this CPU. Otherwise a
/// host with a compiler (the `compile` feature) compiles it again and
/// caches it, calling `bytes` for the component; one without loads the
/// portable artifact, or fails naming `wasm-charm pack`.
pub fn load(sha256: &str, state_dir: &Path, bytes: Bytes<'_>) -> Result<Loaded, Failure> {
    let dir = state_dir.join(CACHE_DIR);
    let engine = engine::engine(Target::Native).map_err(Failure::Wasmtime)?;
    let path = artifact_path(&dir, sha256, Target::Native);
    match deserialize(&engine, &path, sha256) {
        Ok(component) => Ok(Loaded {
            engine,
            component,
            source: Source::Hit,
            passed_over: None,
        }),
        Err(why) => not_native(engine, why, &dir, sha256, bytes),
    }
}

/// No native artifact loads: compile one.
#[cfg(feature = "compile")]
fn not_native(
    engine: Engine,
    why: Unusable,
    dir: &Path,
    sha256: &str,
    bytes: Bytes<'_>,
) -> Result<Loaded, Failure> {
    let path = artifact_path(dir, sha256, Target::Native);
    let (component, source) = compile_and_store(
        &engine,
        &bytes().map_err(Failure::Wasmtime)?,
        dir,
        &path,
        sha256,
    )
    .map_err(Failure::Wasmtime)?;
    if let Unusable::Sealed(path, broken) = &why
        && *broken != seal::Broken::Unsealed
    {
        // Not an old cache: someone changed or replaced the artifact.
        eprintln!(
            "wasm-charm: warning: refused {}: {broken}; compiled the component again",
            path.display()
        );
    }
    let source = match (source, why) {
        (Source::Compiled, Unusable::Refused(_) | Unusable::Sealed(..)) => Source::Recompiled,
        (s, _) => s,
    };
    Ok(Loaded {
        engine,
        component,
        source,
        passed_over: None,
    })
}

/// No native artifact loads, and nothing here compiles: the portable one.
#[cfg(not(feature = "compile"))]
fn not_native(
    _native: Engine,
    why: Unusable,
    dir: &Path,
    sha256: &str,
    _bytes: Bytes<'_>,
) -> Result<Loaded, Failure> {
    let engine = engine::engine(Target::HERE_PORTABLE).map_err(Failure::Wasmtime)?;
    let path = artifact_path(dir, sha256, Target::HERE_PORTABLE);
    match deserialize(&engine, &path, sha256) {
        Ok(component) => Ok(Loaded {
            engine,
            component,
            source: Source::Portable,
            passed_over: Some(why.to_string()),
        }),
        Err(portable) => Err(Failure::NoArtifact(format!("{why}; {portable}"))),
    }
}

/// Why an artifact could not be used.
#[derive(Debug)]
pub enum Unusable {
    /// There is none.
    Missing(PathBuf),
    /// wasmtime refused it: another version, settings or CPU; or damaged.
    Refused(String),
    /// It is not the sealed compilation of this component.
    Sealed(PathBuf, seal::Broken),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Missing(path) => write!(f, "{}: not found", path.display()),
            Unusable::Refused(why) => f.write_str(why),
            Unusable::Sealed(path, broken) => {
                write!(f, "{}: refused: {broken}", path.display())
            }
        }
    }
}

/// Whether the artifact at `path` is sealed for the component `sha256` and
/// loads in this host's engine for `target` (wasmtime's own check of its
/// version and settings). `pack` asks before it ships an artifact it
/// compiled for an earlier pack.
#[cfg(feature = "compile")]
pub fn loads(target: Target, path: &Path, sha256: &str) -> bool {
    engine::engine(target).is_ok_and(|engine| deserialize(&engine, path, sha256).is_ok())
}

/// The memo of the seal check that the artifact at `path` passed.
fn memo_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".checked");
    path.with_file_name(name)
}

/// Check that the artifact at `path` is sealed for the component `sha256`:
/// hashed only when no memo says this very file (its stamp) passed before.
pub fn check_seal(path: &Path, sha256: &str) -> Result<(), Unusable> {
    let meta = std::fs::metadata(path).map_err(|_| Unusable::Missing(path.to_path_buf()))?;
    if !meta.is_file() {
        return Err(Unusable::Missing(path.to_path_buf()));
    }
    let memo = memo_path(path);
    let line = format!("{} {sha256}\n", stamp(&meta));
    if let Some((text, memo_meta)) = read_id(&memo)
        && text == line
        && !racy(&meta, &memo_meta)
    {
        return Ok(());
    }
    let bytes =
        std::fs::read(path).map_err(|e| Unusable::Refused(format!("{}: {e}", path.display())))?;
    seal::check(&bytes, sha256).map_err(|broken| Unusable::Sealed(path.to_path_buf(), broken))?;
    // Best effort, like the component's id: a read-only cache costs a hash
    // per load.
    let _ = write_making_dir(&memo, line.as_bytes());
    Ok(())
}

/// Map the artifact at `path`, once its seal shows it is the compilation of
/// the component `sha256`, into `engine`.
fn deserialize(engine: &Engine, path: &Path, sha256: &str) -> Result<Component, Unusable> {
    check_seal(path, sha256)?;
    // SAFETY: wasmtime requires the file to hold an artifact of
    // `precompile_component` for a compatible engine (it checks the version,
    // target and settings recorded in it, not the code), and to stay
    // unchanged while the component lives (it is mapped); the seal after
    // its ELF image is never read by wasmtime. Artifacts are written only
    // by a host's own engine (`compile_and_store`, `pack`), by rename, never
    // in place, and the seal shows this one is the compilation of the
    // component beside it. A forged seal is not caught here: the charm's
    // files are the operator's to verify before deploying (`wasm-charm
    // verify`), and after that writable only by whoever may run code as
    // this unit (Juju's agent), which could run anything anyway.
    unsafe { Component::deserialize_file(engine, path) }
        .map_err(|e| Unusable::Refused(format!("{e:#}")))
}

/// Compile `wasm` for `target` into the cache directory `dir` (`pack`
/// ships the result), returning the artifact's path.
#[cfg(feature = "compile")]
pub fn compile_artifact(
    target: Target,
    wasm: &[u8],
    dir: &Path,
    sha256: &str,
) -> wasmtime::Result<PathBuf> {
    let engine = engine::engine(target)?;
    let path = artifact_path(dir, sha256, target);
    let artifact = precompile(&engine, wasm)?;
    write_making_dir(&path, &seal::append(artifact, sha256))?;
    Ok(path)
}

/// The artifact of `wasm`, compiled without its function names
/// (`super::names`), unsealed.
#[cfg(feature = "compile")]
pub fn precompile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Vec<u8>> {
    match super::names::without_function_names(wasm) {
        Some(stripped) => engine.precompile_component(&stripped),
        None => engine.precompile_component(wasm),
    }
}

#[cfg(feature = "compile")]
fn compile_and_store(
    engine: &Engine,
    wasm: &[u8],
    dir: &Path,
    path: &Path,
    sha256: &str,
) -> wasmtime::Result<(Component, Source)> {
    let artifact = precompile(engine, wasm)?;
    let sealed = seal::append(artifact, sha256);
    if write_making_dir(path, &sealed).is_err() {
        // SAFETY: the bytes were produced by this engine just now.
        let c = unsafe { Component::deserialize(engine, &sealed)? };
        return Ok((c, Source::Uncached));
    }
    remove_stale(dir, sha256);
    // Load the stored file so even the first event uses mmap and copy-on-write.
    // SAFETY: as in `deserialize`; written just now from this engine's
    // compilation (or replaced since, by rename, with an artifact of the
    // same component and version).
    let c = unsafe { Component::deserialize_file(engine, path)? };
    Ok((c, Source::Compiled))
}

/// The handler declarations cached for a component, if any and readable.
pub fn declarations(state_dir: &Path, id: &ComponentId) -> Option<Vec<Handler>> {
    let file = state_dir
        .join(CACHE_DIR)
        .join(format!("{}.handlers.json", id.sha256));
    declarations::decode(&std::fs::read(file).ok()?).ok()
}

/// Remember a component's declarations; best effort, like the artifacts.
pub fn store_declarations(state_dir: &Path, id: &ComponentId, handlers: &[Handler]) {
    let file = state_dir
        .join(CACHE_DIR)
        .join(format!("{}.handlers.json", id.sha256));
    let _ = write_making_dir(&file, &declarations::encode(handlers));
}

/// Entries of older components: the artifacts and declarations of the
/// component `sha256` stay, everything else can go; a leftover temporary
/// file is a crashed write. Also what `pack` keeps for a component
/// (`pack::reuse`) is pruned so.
pub(crate) fn remove_stale(dir: &Path, sha256: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let own = format!("{sha256}.");
    for entry in entries.flatten() {
        let p: PathBuf = entry.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let stale = ((name.ends_with(".cwasm")
            || name.ends_with(".cwasm.checked")
            || name.ends_with(".handlers.json"))
            && !name.starts_with(&own))
            || name.ends_with(".tmp");
        if stale {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// Give the cache under `state_dir` the artifacts that the cache under
/// `shipped` holds and it lacks: a hard link where one file system holds
/// both, else a copy. Only artifacts, which are checked against their
/// component when loaded: the identity, the declarations and the memos are
/// what each cache derives for itself. Best effort: an artifact left out
/// is compiled, or its absence said, when the component loads.
pub fn seed(shipped: &Path, state_dir: &Path) {
    let (from, to) = (shipped.join(CACHE_DIR), state_dir.join(CACHE_DIR));
    let Ok(entries) = std::fs::read_dir(&from) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let into = to.join(&name);
        let artifact = Path::new(&name).extension().is_some_and(|e| e == "cwasm");
        if !artifact || into.exists() {
            continue;
        }
        if std::fs::create_dir_all(&to).is_err() {
            return;
        }
        // Under a temporary name, renamed: a process of another run may be
        // mapping the name already.
        let tmp = to.join(format!(
            "{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&tmp);
        let made = std::fs::hard_link(entry.path(), &tmp)
            .or_else(|_| std::fs::copy(entry.path(), &tmp).map(drop));
        if made.is_err() || std::fs::rename(&tmp, &into).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn set_mtime(path: &Path, time: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }

    /// A passed seal check is remembered for the very file checked: the
    /// same name rewritten (same size, one byte changed) is hashed again
    /// and refused.
    /// A simulation's cache takes the charm's artifacts, linked, and
    /// nothing the charm's cache derived; what it has already stays.
    #[test]
    fn a_cache_is_seeded_with_the_shipped_artifacts_only() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().unwrap();
        let (shipped, own) = (dir.path().join("charm"), dir.path().join("own"));
        let from = shipped.join(CACHE_DIR);
        std::fs::create_dir_all(&from).unwrap();
        for (name, text) in [
            ("a.native.cwasm", "native"),
            ("a.portable.cwasm", "portable"),
            ("a.native.cwasm.checked", "memo"),
            ("a.handlers.json", "[]"),
            (ID_FILE, "id"),
        ] {
            std::fs::write(from.join(name), text).unwrap();
        }
        let to = own.join(CACHE_DIR);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(to.join("a.portable.cwasm"), "its own").unwrap();

        seed(&shipped, &own);
        let mut names: Vec<String> = std::fs::read_dir(&to)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.native.cwasm", "a.portable.cwasm"]);
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(
            ino(&to.join("a.native.cwasm")),
            ino(&from.join("a.native.cwasm"))
        );
        assert_eq!(
            std::fs::read_to_string(to.join("a.portable.cwasm")).unwrap(),
            "its own"
        );
        // Nothing to seed from: nothing happens.
        seed(&dir.path().join("absent"), &own);
    }

    #[test]
    fn a_seal_check_is_remembered_only_for_the_file_it_checked() {
        let dir = tempfile::tempdir().unwrap();
        let sha = hex(&Sha256::digest(b"component"));
        let path = artifact_path(dir.path(), &sha, Target::Native);
        let sealed = seal::append(b"\x7fELF compiled code".to_vec(), &sha);
        std::fs::write(&path, &sealed).unwrap();
        check_seal(&path, &sha).unwrap();
        let memo = std::fs::read_to_string(memo_path(&path)).unwrap();
        assert!(memo.ends_with(&format!(" {sha}\n")), "{memo}");
        check_seal(&path, &sha).unwrap();
        // Another component's name for the same file is no match.
        let other = hex(&Sha256::digest(b"other"));
        assert!(matches!(
            check_seal(&path, &other),
            Err(Unusable::Sealed(_, seal::Broken::OtherComponent { .. }))
        ));
        let mut edited = sealed.clone();
        edited[5] ^= 1;
        std::fs::write(&path, &edited).unwrap();
        assert!(matches!(
            check_seal(&path, &sha),
            Err(Unusable::Sealed(_, seal::Broken::Edited { .. }))
        ));
        assert!(matches!(
            check_seal(&dir.path().join("none.cwasm"), &sha),
            Err(Unusable::Missing(_))
        ));
    }

    /// An entry whose stamp matches is trusted only when it was written
    /// after the component last changed: one saved in the same tick as a
    /// same-size rewrite (here: a forged hash, its file's time set back to
    /// the component's) is hashed again, and the entry rewritten.
    #[test]
    fn a_stamp_saved_no_later_than_the_change_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let (wasm, state) = (dir.path().join("charm.wasm"), dir.path().join("state"));
        std::fs::write(&wasm, b"component one").unwrap();
        let first = identify(&wasm, &state).unwrap();
        assert!(first.bytes.is_some(), "hashed the first time");
        assert_eq!(first.sha256, hex(&Sha256::digest(b"component one")));

        let id_file = state.join(CACHE_DIR).join(ID_FILE);
        let changed = std::fs::metadata(&wasm).unwrap();
        let forged = "f".repeat(64);
        let stamp_line = format!("{} {forged}\n", stamp(&changed));
        // Written after the change: the entry is trusted, forged or not
        // (nothing but the stamp is checked, which is the point of it).
        std::fs::write(&id_file, &stamp_line).unwrap();
        let later = std::fs::metadata(&wasm).unwrap().modified().unwrap() + Duration::from_secs(5);
        set_mtime(&id_file, later);
        let trusted = identify(&wasm, &state).unwrap();
        assert_eq!(
            (trusted.sha256.as_str(), trusted.bytes.is_none()),
            (forged.as_str(), true)
        );

        // Saved in the tick of the change (its time is the change's): the
        // component is hashed again and the entry made right.
        let ctime = SystemTime::UNIX_EPOCH
            + Duration::new(changed.ctime() as u64, changed.ctime_nsec() as u32);
        set_mtime(&id_file, ctime);
        let rehashed = identify(&wasm, &state).unwrap();
        assert_eq!(rehashed.sha256, first.sha256);
        assert!(rehashed.bytes.is_some());
        let saved = std::fs::read_to_string(&id_file).unwrap();
        assert_eq!(saved, format!("{} {}\n", stamp(&changed), first.sha256));
    }
}
