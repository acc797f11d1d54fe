//! `wasm-charm pack`: build a charm project's component for wasm32-wasip2,
//! assemble the charm directory Juju runs (DESIGN §8), and zip it into the
//! `.charm` file `juju deploy` takes, with the `manifest.yaml` naming the
//! bases and architectures its `dispatch` really runs on.
//!
//! [`elf`] reads what `dispatch` needs from a machine, [`manifest`] turns
//! that into bases, [`archive`] writes and reads the zip.

pub mod archive;
pub mod elf;
pub mod manifest;
pub mod project;
pub mod python;
mod reuse;
pub mod static_dispatch;

use anyhow::{Context as _, bail};
use std::io::{BufRead as _, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::runtime::cache::CACHE_DIR;
use crate::runtime::engine::Target;

const TARGET: &str = "wasm32-wasip2";
/// Charm files copied from the project when present; metadata.yaml is required.
const CHARM_FILES: &[&str] = &[
    "metadata.yaml",
    "config.yaml",
    "actions.yaml",
    "wasm-charm.yaml",
];
/// charmcraft's name for the file of bases and architectures.
pub const MANIFEST_FILE: &str = "manifest.yaml";

/// Where `pack` takes `dispatch` from and where it writes the `.charm`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The host executable shipped as `dispatch`; `None`: the static
    /// runtime-only one ([`static_dispatch`]).
    pub dispatch: Option<PathBuf>,
    /// The `.charm` to write; `None`: `<charm name>.charm` beside the charm
    /// directory.
    pub archive: Option<PathBuf>,
}

/// What `pack` made.
#[derive(Debug)]
pub struct Packed {
    /// The charm directory.
    pub dir: PathBuf,
    /// The `.charm` zip of it.
    pub archive: PathBuf,
    /// What the `dispatch` inside needs to run.
    pub dispatch: elf::Executable,
    /// The Ubuntu releases `manifest.yaml` names.
    pub channels: Vec<&'static str>,
}

/// Pack the project at `project` into the charm directory `out` and its
/// `.charm` archive.
pub fn pack(project: &Path, out: &Path, options: &Options) -> anyhow::Result<Packed> {
    pack_in(project, out, options, None)
}

/// [`pack`], building the component in `target_dir` (cargo's
/// `CARGO_TARGET_DIR`) when given: a test that packs while `cargo test`
/// holds the workspace's own target directory builds in another one.
fn pack_in(
    project: &Path,
    out: &Path,
    options: &Options,
    target_dir: Option<&Path>,
) -> anyhow::Result<Packed> {
    let staged = check_project(project)?;
    // Validate the charm files and the dispatch before spending a build on
    // them: a charm whose dispatch runs on no base is not packed at all.
    let dispatch_source = match &options.dispatch {
        Some(path) => path.clone(),
        None => static_dispatch::build()?,
    };
    let (dispatch, channels) = check_dispatch(&dispatch_source)?;
    let Built { wasm, functions } = component(project, &staged, target_dir)?;
    // Compile and check the component (WIT version, imports) before anything
    // is assembled: a charm this host cannot run is not packed at all.
    let staging = precompiled(&wasm, &functions, out, Some(dispatch.arch))?;
    let mut files = assemble(project, out, &staged, &wasm, Some(&dispatch_source))?;
    let manifest_text = manifest::text(
        env!("CARGO_PKG_VERSION"),
        &crate::show::utc(started_at()),
        &channels,
        dispatch.arch.juju_name(),
    );
    std::fs::write(out.join(MANIFEST_FILE), manifest_text)
        .with_context(|| format!("{}: cannot write", out.join(MANIFEST_FILE).display()))?;
    files.push((MANIFEST_FILE.to_string(), 0o644));
    files.extend(fill_cache(out, &staging.path().join(CACHE_DIR))?);

    let dir = out.canonicalize()?;
    let archive = match &options.archive {
        Some(path) => path.clone(),
        None => crate::atomic_file::parent(&dir).join(format!("{}.charm", staged.metadata.name)),
    };
    let entries: Vec<archive::Entry> = files
        .into_iter()
        .map(|(name, mode)| archive::Entry {
            source: dir.join(&name),
            name,
            mode,
        })
        .collect();
    archive::write(&archive, &entries)?;
    Ok(Packed {
        dir,
        archive,
        dispatch,
        channels,
    })
}

/// The charm directory alone, for `run <project>` and the harness's
/// `serve`, which run its events in their own process
/// ([`project::packed`]): the charm files, the component `built` from the
/// checked project `staged`, and its artifacts precompiled by this
/// process's engine; no `dispatch`, no manifest.yaml, no `.charm`.
fn charm_dir_of(
    project: &Path,
    staged: &crate::charm_dir::CharmDir,
    built: &Built,
    out: &Path,
) -> anyhow::Result<PathBuf> {
    let staging = precompiled(&built.wasm, &built.functions, out, None)?;
    assemble(project, out, staged, &built.wasm, None)?;
    fill_cache(out, &staging.path().join(CACHE_DIR))?;
    Ok(out.canonicalize()?)
}

/// A project's component as built.
struct Built {
    wasm: PathBuf,
    /// Where the functions compiled for it are kept between packs
    /// (`runtime::compiled_functions`): the directory holding every
    /// component of its kind in its target directory, whose packs share
    /// them, since such components share most of their code (every Python
    /// charm the interpreter, every Rust one the standard library).
    functions: PathBuf,
}

/// Build the project's component: a Python project's with componentize-py
/// ([`python`]), else the Cargo package's.
fn component(
    project: &Path,
    charm: &crate::charm_dir::CharmDir,
    target_dir: Option<&Path>,
) -> anyhow::Result<Built> {
    let python = python::is_project(project);
    let wasm = if python {
        python::build(project, &charm.metadata.name, target_dir)?
    } else {
        build(&project.join("Cargo.toml"), target_dir)?
    };
    let functions = functions_dir(&wasm, python);
    Ok(Built { wasm, functions })
}

/// The directory holding every component of `wasm`'s kind in its target
/// directory: a Python charm's is `<target>/wasm-charm-python/<name>/charm.wasm`,
/// a Rust charm's `<target>/wasm32-wasip2/release/<crate>.wasm`.
fn functions_dir(wasm: &Path, python: bool) -> PathBuf {
    let own = crate::atomic_file::parent(wasm);
    let shared = if python {
        crate::atomic_file::parent(own)
    } else {
        own
    };
    shared.to_path_buf()
}

/// A charm project is a Cargo package, or a Python project
/// ([`python::MARKER`]), with Juju's metadata.yaml, whose charm files load.
fn check_project(project: &Path) -> anyhow::Result<crate::charm_dir::CharmDir> {
    let manifest = project.join("Cargo.toml");
    if !manifest.is_file() && !python::is_project(project) {
        bail!(
            "{}: not found; a charm project is a Cargo package, or a Python project ({} beside \
             metadata.yaml)",
            manifest.display(),
            python::MARKER
        );
    }
    if !project.join("metadata.yaml").is_file() {
        bail!(
            "{}: not found; Juju requires it",
            project.join("metadata.yaml").display()
        );
    }
    Ok(crate::charm_dir::CharmDir::load(project)?)
}

/// The component compiled (and so checked: WIT version, imports) by this
/// process's engine, in a staging directory beside `out`: for a `dispatch`
/// of architecture `arch`, the native artifact when `arch` is this
/// machine's (cranelift here builds for this architecture only) and the
/// portable one for its byte order; without a dispatch, the native one.
fn precompiled(
    wasm: &Path,
    functions: &Path,
    out: &Path,
    arch: Option<elf::Arch>,
) -> anyhow::Result<tempfile::TempDir> {
    let parent = crate::atomic_file::parent(out);
    std::fs::create_dir_all(parent)
        .with_context(|| format!("{}: cannot create", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".wasm-charm-pack-")
        .tempdir_in(parent)
        .with_context(|| format!("{}: cannot create a staging directory", parent.display()))?;
    // The two compiles at once: each is one thread of cranelift, and a
    // Python charm's interpreter takes seconds each. The portable one is
    // made in a directory of its own, since the native one, once stored,
    // clears the cache of what it takes for a crashed write's leftovers.
    let dir = staging.path();
    let side = tempfile::Builder::new()
        .prefix(".wasm-charm-pack-portable-")
        .tempdir_in(parent)
        .with_context(|| format!("{}: cannot create a staging directory", parent.display()))?;
    let side_dir = side.path();
    // What an earlier pack compiled for this very component is shipped
    // instead of compiled again (`reuse`): the native artifact found in the
    // cache loads as a hit, the portable one is taken as it is.
    // Identified here, the component is read and hashed once: the native
    // compile below finds its identity in the same cache.
    let kept = crate::runtime::identify(wasm, dir)
        .ok()
        .and_then(|id| reuse::Kept::beside(wasm, &id.sha256));
    let mut compiling = None;
    if let Some(kept) = &kept {
        let native_kept = kept.take(Target::Native, &dir.join(CACHE_DIR)).is_some();
        // What is still compiled goes through the functions the last pack
        // of a component of its kind compiled: only the changed ones are
        // compiled again (`runtime::compiled_functions`).
        crate::runtime::engine::keep_compiled_functions_in(functions);
        // Packs of that kind at once (a test run's Python charms) compile
        // one after the other: the second takes back what the first
        // compiled instead of compiling the same interpreter beside it.
        if !native_kept {
            compiling = reuse::lock_functions(functions);
        }
    }
    let (native, portable) = std::thread::scope(|scope| {
        let portable = arch.map(|arch| {
            let kept = kept.as_ref();
            scope.spawn(move || {
                let big_endian = arch == elf::Arch::S390x;
                let target = Target::Portable { big_endian };
                match kept.and_then(|k| k.take(target, &side_dir.join(CACHE_DIR))) {
                    Some(path) => Ok((path, true)),
                    None => crate::runtime::precompile_portable(wasm, side_dir, big_endian)
                        .map(|path| (path, false)),
                }
            })
        });
        let native = crate::runtime::precompile(wasm, dir);
        (native, portable.map(std::thread::ScopedJoinHandle::join))
    });
    for (triple, used) in crate::runtime::engine::save_compiled_functions() {
        eprintln!(
            "compiled for {triple}: {} of {} functions unchanged since the last pack, taken as \
             compiled then",
            used.found, used.asked
        );
    }
    drop(compiling);
    let mut reused = native? == crate::runtime::cache::Source::Hit;
    if let Some(portable) = portable {
        let (artifact, portable_reused) = portable.map_err(|_| {
            anyhow::anyhow!("the portable compile of {} panicked", wasm.display())
        })??;
        reused &= portable_reused;
        let into = dir
            .join(CACHE_DIR)
            .join(artifact.file_name().unwrap_or_default());
        std::fs::rename(&artifact, &into)
            .with_context(|| format!("cannot move {} to {}", artifact.display(), into.display()))?;
    }
    match &kept {
        Some(kept) if reused => eprintln!(
            "reusing the artifacts compiled earlier for this component ({})",
            kept.dir().display()
        ),
        Some(kept) => kept.keep(&dir.join(CACHE_DIR)),
        None => {}
    }
    if arch.is_some_and(|arch| arch.machine_name() != std::env::consts::ARCH) {
        let native = dir.join(CACHE_DIR);
        for entry in std::fs::read_dir(&native)? {
            let path = entry?.path();
            if path.to_string_lossy().ends_with(".native.cwasm") {
                std::fs::remove_file(&path)?;
            }
        }
    }
    Ok(staging)
}

/// Copy the charm files, the component and `dispatch` into `out`,
/// returning each file's archive name and mode.
fn assemble(
    project: &Path,
    out: &Path,
    staged: &crate::charm_dir::CharmDir,
    wasm: &Path,
    dispatch: Option<&Path>,
) -> anyhow::Result<Vec<(String, u32)>> {
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut files = Vec::new();
    for f in CHARM_FILES {
        let from = project.join(f);
        if from.is_file() {
            std::fs::copy(&from, out.join(f))
                .with_context(|| format!("{}: cannot copy", from.display()))?;
            files.push((f.to_string(), 0o644));
        }
    }
    let component = out.join(&staged.manifest.component);
    if let Some(parent) = component.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(wasm, &component)
        .with_context(|| format!("{}: cannot copy to {}", wasm.display(), component.display()))?;
    files.push((archive_name(&staged.manifest.component)?, 0o644));
    if let Some(dispatch) = dispatch {
        install_dispatch(dispatch, out)?;
        files.push(("dispatch".to_string(), 0o755));
    }
    Ok(files)
}

/// Replace the charm's artifact cache with the artifacts compiled in
/// `staging`, so that the first event on the unit loads the component
/// instead of needing a compiler; returns the artifacts' archive names and
/// modes.
fn fill_cache(out: &Path, staging: &Path) -> anyhow::Result<Vec<(String, u32)>> {
    let state_dir = crate::status::store_file::STATE_DIR;
    let cache = out.join(state_dir).join(CACHE_DIR);
    // A re-pack replaces the cache whole: artifacts, declarations and the
    // component's identity all belong to the previous component.
    match std::fs::remove_dir_all(&cache) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("{}: cannot replace", cache.display()));
        }
        _ => {}
    }
    std::fs::create_dir_all(&cache)
        .with_context(|| format!("{}: cannot create", cache.display()))?;
    let mut files = Vec::new();
    for entry in std::fs::read_dir(staging)? {
        let from = entry?.path();
        if from.extension().is_some_and(|e| e == "cwasm") {
            let name = from.file_name().unwrap_or_default().to_string_lossy();
            let to = cache.join(&*name);
            std::fs::rename(&from, &to)
                .with_context(|| format!("{}: cannot install", to.display()))?;
            files.push((format!("{state_dir}/{CACHE_DIR}/{name}"), 0o644));
        }
    }
    files.sort();
    Ok(files)
}

/// What the executable at `path` needs to run, and the Ubuntu releases it
/// runs on; an error naming the file when it is no Linux executable of an
/// architecture Juju deploys to, or runs on no base.
pub fn check_dispatch(path: &Path) -> anyhow::Result<(elf::Executable, Vec<&'static str>)> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("{}: cannot read the dispatch executable", path.display()))?;
    let exe = elf::read(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: cannot ship it as dispatch: {e}", path.display()))?;
    // This very binary is of this wasmtime: spare reading 100 MB of a debug
    // build byte by byte.
    let this_binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    if path.canonicalize().ok() != this_binary {
        static_dispatch::check_version(path, &bytes)?;
    }
    let channels = manifest::channels(&exe)
        .map_err(|e| anyhow::anyhow!("{}: cannot ship it as dispatch: {e}", path.display()))?;
    if let elf::Linking::Dynamic { .. } = exe.linking
        && channels.len() < manifest::UBUNTU_BASES.len()
    {
        eprintln!(
            "warning: {} is {exe}: the charm runs on ubuntu {} only; \
             without --dispatch, `wasm-charm pack` ships one that runs on every base",
            path.display(),
            channels.join(", ")
        );
    }
    Ok((exe, channels))
}

/// The component's path in the archive: relative, `/`-separated.
fn archive_name(component: &Path) -> anyhow::Result<String> {
    let parts: Option<Vec<&str>> = component
        .components()
        .map(|c| match c {
            std::path::Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    parts.map(|p| p.join("/")).with_context(|| {
        format!(
            "wasm-charm.yaml: field `component`: `{}` cannot be named in a zip archive",
            component.display()
        )
    })
}

/// Seconds since the epoch for `charmcraft-started-at`: now, or
/// `SOURCE_DATE_EPOCH` for a reproducible build.
fn started_at() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default()
        })
}

/// `dispatch` is a copy of `source`, mode 0755, replaced atomically.
fn install_dispatch(source: &Path, out: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let dispatch = out.join("dispatch");
    let tmp = out.join(".dispatch.tmp");
    std::fs::copy(source, &tmp)
        .with_context(|| format!("{}: cannot copy to {}", source.display(), tmp.display()))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    std::fs::rename(&tmp, &dispatch)
        .with_context(|| format!("{}: cannot install", dispatch.display()))?;
    Ok(())
}

/// `cargo build --release --target wasm32-wasip2`, returning the cdylib's path
/// as cargo reports it (so any target directory works). Cargo's progress
/// (`Compiling …`, warnings) goes to our stderr as it comes: a cold build
/// takes about a minute, which must not look like a hang.
fn build(manifest: &Path, target_dir: Option<&Path>) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building {} for {TARGET}", manifest.display());
    let mut command = Command::new(cargo);
    if let Some(dir) = target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    build_with(command, manifest, &mut std::io::stderr())
}

fn build_with(
    mut cargo: Command,
    manifest: &Path,
    progress: &mut (dyn Write + Send),
) -> anyhow::Result<PathBuf> {
    let mut child = cargo
        .args([
            "build",
            "--release",
            "--target",
            TARGET,
            "--message-format=json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(manifest)
        // Flags meant for the host build must not reach the guest's.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo")?;
    let stdout = child.stdout.take().context("cargo's stdout")?;
    let stderr = child.stderr.take().context("cargo's stderr")?;
    // stderr is relayed (and kept for the error message) while stdout's JSON
    // is read here; reading one pipe to its end first could block cargo on
    // the other.
    let (wasm, stderr) = std::thread::scope(|scope| {
        let relay = scope.spawn(move || relay(stderr, progress));
        let wasm = artifact_path(stdout, manifest);
        (wasm, relay.join())
    });
    let stderr = stderr.unwrap_or_default();
    let wasm = wasm?;
    let status = child.wait()?;
    if !status.success() {
        let hint = if stderr.contains("may not be installed")
            || stderr.contains("can't find crate for `core`")
            || stderr.contains("can't find crate for `std`")
        {
            format!("\nhint: install the target with `rustup target add {TARGET}`")
        } else {
            String::new()
        };
        bail!(
            "building {} for {TARGET} failed (cargo's output is above){hint}",
            manifest.display()
        );
    }
    wasm.with_context(|| {
        format!(
            "{}: cargo built no cdylib (set `crate-type = [\"cdylib\"]` in [lib])",
            manifest.display()
        )
    })
}

/// Copy cargo's stderr to `progress` line by line as it comes, returning all
/// of it. A sink that fails (a closed terminal) only stops the relay.
pub(crate) fn relay(stderr: impl std::io::Read, progress: &mut (dyn Write + Send)) -> String {
    let mut all = String::new();
    let mut relaying = true;
    for line in std::io::BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        if relaying {
            relaying = writeln!(progress, "{line}")
                .and_then(|()| progress.flush())
                .is_ok();
        }
        all.push_str(&line);
        all.push('\n');
    }
    all
}

/// The `.wasm` of the cdylib built from `manifest`, from cargo's JSON messages.
fn artifact_path(stdout: impl std::io::Read, manifest: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut wasm = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.context("reading cargo's output")?;
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let is_cdylib = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "cdylib"));
        let manifest_matches = msg["manifest_path"]
            .as_str()
            .is_some_and(|p| Path::new(p).canonicalize().ok() == manifest.canonicalize().ok());
        if is_cdylib && manifest_matches {
            wasm = msg["filenames"]
                .as_array()
                .and_then(|f| {
                    f.iter()
                        .filter_map(|f| f.as_str())
                        .find(|f| f.ends_with(".wasm"))
                })
                .map(PathBuf::from);
        }
    }
    Ok(wasm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    /// A stand-in for cargo: progress on stderr, then the artifact message.
    fn fake_cargo(dir: &Path, manifest: &Path, exit: i32) -> PathBuf {
        let script = dir.join("cargo");
        let message = serde_json::json!({
            "reason": "compiler-artifact",
            "manifest_path": manifest,
            "target": {"kind": ["cdylib"]},
            "filenames": ["/out/charm.wasm"],
        });
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho '   Compiling charm v0.1.0' >&2\necho '{message}'\n\
                 echo '    Finished release' >&2\nexit {exit}\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[test]
    fn the_compiled_functions_are_shared_by_the_components_of_a_kind() {
        // Every Python charm of a target directory shares one file (the
        // interpreter), every Rust charm another, never across the two.
        for (python, shared, of) in [
            (
                true,
                "/t/wasm-charm-python",
                "/t/wasm-charm-python/{}/charm.wasm",
            ),
            (
                false,
                "/t/wasm32-wasip2/release",
                "/t/wasm32-wasip2/release/{}.wasm",
            ),
        ] {
            let dir = |name: &str| functions_dir(Path::new(&of.replace("{}", name)), python);
            assert_eq!(dir("gateway"), PathBuf::from(shared));
            assert_eq!(dir("gateway"), dir("web-k8s"));
        }
    }

    #[test]
    fn cargo_progress_is_relayed_and_the_artifact_found() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(&manifest, "").unwrap();
        let cargo = fake_cargo(dir.path(), &manifest, 0);
        let mut progress = Vec::new();
        let wasm = build_with(Command::new(&cargo), &manifest, &mut progress).unwrap();
        assert_eq!(wasm, PathBuf::from("/out/charm.wasm"));
        assert_eq!(
            String::from_utf8(progress).unwrap(),
            "   Compiling charm v0.1.0\n    Finished release\n"
        );
    }

    #[test]
    fn a_failed_build_says_so_after_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(&manifest, "").unwrap();
        let cargo = fake_cargo(dir.path(), &manifest, 101);
        let mut progress = Vec::new();
        let err = build_with(Command::new(&cargo), &manifest, &mut progress).unwrap_err();
        assert!(err.to_string().contains("failed"), "{err}");
        assert!(!progress.is_empty());
    }
}
