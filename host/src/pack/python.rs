//! Python charm projects: `src/charm.py` beside Juju's metadata.yaml (and
//! no Cargo.toml), built into a component with componentize-py.
//!
//! The bindings come from the WIT this host was built with and the SDK
//! (`guest-sdk-py/wasm_charm`) is the one of this host's release: both are
//! embedded in the binary, so a Python project needs only `wasm-charm` and
//! componentize-py. The charm's `src/` and, when present, `lib/` (its
//! pure-Python dependencies, charmcraft's place for charm libraries) go on
//! componentize-py's module path.
//!
//! componentize-py's output is not byte-reproducible, so the build is
//! skipped when its inputs (the tool's version, the SDK, the WIT, every file
//! under `src/` and `lib/`) hash as they did for the component already
//! built: that keeps an unchanged project from being packed again, as
//! cargo's incremental build does for a Rust one.

use anyhow::{Context as _, bail};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The file that makes a directory with metadata.yaml a Python charm project.
pub const MARKER: &str = "src/charm.py";
/// The componentize-py release the SDK and this host are tested with.
pub const COMPONENTIZE_PY: &str = "0.25.1";
/// The environment variable naming the componentize-py to run.
pub const TOOL_ENV: &str = "WASM_CHARM_COMPONENTIZE_PY";
/// The app module written beside the SDK: imports the charm's module and
/// exports the SDK's `Handlers` (componentize-py cannot import at run time,
/// so everything is imported here, at build time). It ends by freezing
/// every object the imports made, as a server does before it forks its
/// workers: componentize-py snapshots the heap after this module, and a
/// collection that an event's allocations trigger walks only the event's
/// objects. Unfrozen, a full collection would write to the header of every
/// object of the snapshot, copying each page of it the instance shares
/// with the artifact. (The gateway's events measured the same either way.)
const APP_MODULE: &str = "wasm_charm_app";
const APP_SOURCE: &str = "\"\"\"The component's app module, written by `wasm-charm pack`.\"\"\"\n\n\
import gc\n\n\
import charm  # noqa: F401  src/charm.py, which calls wasm_charm.export_charm\n\
from wasm_charm.charm import Handlers, exported  # noqa: F401\n\n\
exported()  # a charm that exported nothing fails its build here, saying what to call\n\n\
gc.collect()\n\
gc.freeze()\n";

macro_rules! embedded {
    ($dir:literal: $($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!("../../../", $dir, "/", $file)))),*]
    };
}

/// The SDK's modules, under `wasm_charm/`.
const SDK: &[(&str, &str)] = embedded!("guest-sdk-py/wasm_charm":
    "__init__.py", "_interfaces.py", "_wit.py", "_yaml.py", "action.py", "charm.py", "errors.py",
    "database.py", "event.py", "interfaces.py", "log.py", "model.py", "network.py", "pebble.py", "ports.py", "probe.py", "secrets.py",
    "status.py", "storage.py", "stored.py", "workload.py",
);
/// The WIT package; the world is `charm` in world.wit.
const WIT: &[(&str, &str)] = embedded!("wit":
    "action.wit", "model.wit", "network.wit", "pebble.wit", "ports.wit", "probe.wit",
    "relations.wit", "secrets.wit", "status.wit", "storage.wit", "stored.wit",
    "types.wit", "workload.wit", "world.wit",
);

/// Whether `dir` is a Python charm project. An ops charm has a
/// `src/charm.py` too: the runtime manifest tells a wasm-charm project, and
/// a `dispatch` a charm directory ready to run (packed, or any other).
pub fn is_project(dir: &Path) -> bool {
    dir.join("metadata.yaml").is_file()
        && dir.join(crate::charm_dir::MANIFEST_FILE).is_file()
        && !dir.join("Cargo.toml").is_file()
        && !dir.join("dispatch").exists()
        && dir.join(MARKER).is_file()
}

/// Build the component of the Python project at `project` (charm `name`)
/// unless its inputs are unchanged, returning the `.wasm`: in
/// `<target>/wasm-charm-python/<name>/`, `<target>` being `target_dir`,
/// else `$CARGO_TARGET_DIR`, else `<project>/target`.
pub fn build(project: &Path, name: &str, target_dir: Option<&Path>) -> anyhow::Result<PathBuf> {
    let target = target_dir
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from))
        .unwrap_or_else(|| project.join("target"));
    let dir = target.join("wasm-charm-python").join(name);
    std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    // componentize-py runs in `dir`: every path it gets is absolute.
    let dir = dir.canonicalize()?;
    let project = &project
        .canonicalize()
        .with_context(|| format!("{}: cannot read", project.display()))?;
    // Two packs of one project (a test process's threads, `run` beside the
    // harness) build once: the second waits and finds the stamp current.
    let lock = std::fs::File::create(dir.join(".lock"))
        .with_context(|| format!("{}: cannot create", dir.join(".lock").display()))?;
    lock.lock()
        .with_context(|| format!("{}: cannot lock", dir.join(".lock").display()))?;
    let tool = tool();
    let version = tool_version(&tool)?;
    let stamp = inputs_hash(project, &version)?;
    let wasm = dir.join("charm.wasm");
    let stamp_file = dir.join("charm.wasm.inputs");
    if wasm.is_file() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(wasm);
    }
    eprintln!("building {} with {version}", project.display());
    write_sources(&dir)?;
    componentize(&tool, project, &dir, &wasm)?;
    std::fs::write(&stamp_file, &stamp)
        .with_context(|| format!("{}: cannot write", stamp_file.display()))?;
    Ok(wasm)
}

/// The componentize-py to run: `$WASM_CHARM_COMPONENTIZE_PY`, else on PATH.
fn tool() -> PathBuf {
    std::env::var_os(TOOL_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("componentize-py"), PathBuf::from)
}

fn missing_tool(tool: &Path) -> String {
    format!(
        "{}: cannot run it; a Python charm is built with componentize-py {COMPONENTIZE_PY} \
         (`pip install componentize-py=={COMPONENTIZE_PY}`, or `scripts/setup-python` in the \
         wasm-charm repository): put it on PATH or name it in ${TOOL_ENV}",
        tool.display()
    )
}

/// `componentize-py --version`, checked to be the pinned release's.
fn tool_version(tool: &Path) -> anyhow::Result<String> {
    let out = Command::new(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| missing_tool(tool))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || version != format!("componentize-py {COMPONENTIZE_PY}") {
        bail!(
            "{}: is `{version}`, not componentize-py {COMPONENTIZE_PY}, the release this \
             wasm-charm's Python SDK is built with ({})",
            tool.display(),
            missing_tool(tool)
        );
    }
    Ok(version)
}

/// The module path of the charm: `src/`, and `lib/` when present.
fn module_dirs(project: &Path) -> Vec<PathBuf> {
    ["src", "lib"]
        .iter()
        .map(|d| project.join(d))
        .filter(|d| d.is_dir())
        .collect()
}

/// What the component is built from, hashed: the tool's version, the SDK,
/// the WIT, and every file of the module path (path and bytes).
fn inputs_hash(project: &Path, version: &str) -> anyhow::Result<String> {
    let mut hash = Sha256::new();
    let mut add = |name: &[u8], bytes: &[u8]| {
        for part in [name, bytes] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    };
    add(b"tool", version.as_bytes());
    add(b"app", APP_SOURCE.as_bytes());
    for (name, text) in SDK.iter().chain(WIT) {
        add(name.as_bytes(), text.as_bytes());
    }
    for dir in module_dirs(project) {
        let mut files = Vec::new();
        walk(&dir, &mut files)?;
        files.sort();
        for file in files {
            let bytes =
                std::fs::read(&file).with_context(|| format!("{}: cannot read", file.display()))?;
            let name = file.strip_prefix(project).unwrap_or(&file);
            add(name.to_string_lossy().as_bytes(), &bytes);
        }
    }
    Ok(format!("{:x}\n", hash.finalize()))
}

/// Every file under `dir`, but Python's byte-code caches and hidden files.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot read", dir.display()))?
    {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// The embedded WIT and SDK, and the app module, under `dir`.
fn write_sources(dir: &Path) -> anyhow::Result<()> {
    let write = |path: PathBuf, text: &str| -> anyhow::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))
    };
    for (name, text) in WIT {
        write(dir.join("wit").join(name), text)?;
    }
    for (name, text) in SDK {
        write(dir.join("sdk/wasm_charm").join(name), text)?;
    }
    write(dir.join("sdk").join(format!("{APP_MODULE}.py")), APP_SOURCE)
}

/// `componentize-py -d wit -w charm componentize -p src [-p lib] -p sdk
/// wasm_charm_app -o <wasm>`: its output goes to our stderr as it comes.
fn componentize(tool: &Path, project: &Path, dir: &Path, wasm: &Path) -> anyhow::Result<()> {
    let partial = dir.join("charm.wasm.partial");
    let mut command = Command::new(tool);
    command
        .arg("-d")
        .arg(dir.join("wit"))
        .args(["-w", "charm", "componentize"]);
    for path in module_dirs(project) {
        command.arg("-p").arg(path);
    }
    command
        .arg("-p")
        .arg(dir.join("sdk"))
        .arg(APP_MODULE)
        .arg("-o")
        .arg(&partial)
        .current_dir(dir)
        // Its own byte-code caches must not land in the charm's sources.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(Stdio::piped());
    let mut child = command.spawn().with_context(|| missing_tool(tool))?;
    let stderr = child.stderr.take().context("componentize-py's stderr")?;
    let output = super::relay(stderr, &mut std::io::stderr());
    let status = child.wait()?;
    if !status.success() {
        let hint = if output.contains("no charm exported") {
            "\nhint: src/charm.py must call wasm_charm.export_charm(charm) at its top level"
        } else {
            ""
        };
        bail!(
            "building {} with componentize-py failed ({status}; its output is above){hint}",
            project.display()
        );
    }
    std::fs::rename(&partial, wasm).with_context(|| format!("{}: cannot install", wasm.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_project_is_src_charm_py_beside_metadata_without_cargo() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("metadata.yaml"), "name: x\n").unwrap();
        assert!(!is_project(dir.path()));
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join(MARKER), "").unwrap();
        assert!(!is_project(dir.path()), "an ops charm: no wasm-charm.yaml");
        std::fs::write(
            dir.path().join("wasm-charm.yaml"),
            "component: charm.wasm\n",
        )
        .unwrap();
        assert!(is_project(dir.path()));
        std::fs::write(dir.path().join("dispatch"), "").unwrap();
        assert!(!is_project(dir.path()), "a charm directory ready to run");
        std::fs::remove_file(dir.path().join("dispatch")).unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        assert!(!is_project(dir.path()), "a Cargo package is a Rust project");
    }

    #[test]
    fn the_inputs_hash_follows_the_sources_but_not_their_caches() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/__pycache__")).unwrap();
        std::fs::write(dir.path().join(MARKER), "A = 1\n").unwrap();
        let first = inputs_hash(dir.path(), "componentize-py 0.25.1").unwrap();
        std::fs::write(dir.path().join("src/__pycache__/charm.pyc"), "x").unwrap();
        assert_eq!(
            inputs_hash(dir.path(), "componentize-py 0.25.1").unwrap(),
            first
        );
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/dep.py"), "").unwrap();
        let with_lib = inputs_hash(dir.path(), "componentize-py 0.25.1").unwrap();
        assert_ne!(with_lib, first);
        std::fs::write(dir.path().join(MARKER), "A = 2\n").unwrap();
        assert_ne!(
            inputs_hash(dir.path(), "componentize-py 0.25.1").unwrap(),
            with_lib
        );
    }

    #[test]
    fn a_missing_tool_says_how_to_get_it() {
        let e = tool_version(Path::new("/nonexistent/componentize-py")).unwrap_err();
        let e = format!("{e:#}");
        assert!(e.contains("componentize-py==0.25.1"), "{e}");
        assert!(e.contains(TOOL_ENV), "{e}");
    }
}
