//! `wasm-charm verify`: proof, before a charm is deployed, that what it
//! runs is what `wasm-charm inspect` shows (docs/trust.md). `inspect` reads
//! `charm.wasm`; a unit runs the precompiled artifacts beside it with the
//! charm's `dispatch`. Both are the author's files, so this checks each:
//!
//! * every artifact under `.wasm-charm/cache/` is, byte for byte, what this
//!   wasm-charm compiles from `charm.wasm` for its target (compiled again
//!   here; compilation is reproducible), seal included;
//! * `.wasm-charm/` holds nothing else (a unit trusts what it finds there);
//! * `dispatch` is the runtime of this wasm-charm's release: the static
//!   executable [`crate::pack::static_dispatch`] builds from this source
//!   tree (cargo rebuilds nothing when it is built), or the one given with
//!   `--dispatch`, compared by SHA-256.
//!
//! Nothing of the charm runs, and nothing is written to it.

use crate::charm_dir::CharmDir;
use crate::pack::elf;
use crate::runtime::engine::{self, ARTIFACT_VERSION, Target};
use crate::runtime::{cache, seal};
use crate::status::store_file::STATE_DIR;
use crate::text::hex;
use anyhow::{Context as _, bail};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};

/// One file's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file, relative to the charm's root.
    pub file: String,
    /// What it was found to be, or why it is refused.
    pub verdict: Result<String, String>,
}

/// Everything `verify` found.
#[derive(Debug)]
pub struct Verification {
    /// What was read: `.charm <path>` or `charm directory <path>`.
    pub source: String,
    /// The SHA-256 of the charm's component.
    pub component: String,
    pub findings: Vec<Finding>,
}

impl Verification {
    /// Whether every file was found to be what it should.
    pub fn verified(&self) -> bool {
        self.findings.iter().all(|f| f.verdict.is_ok())
    }

    /// The files refused.
    pub fn refused(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.verdict.is_err())
    }

    pub fn render(&self) -> String {
        let mut out = format!("verify {}\n", self.source);
        for f in &self.findings {
            match &f.verdict {
                Ok(what) => out.push_str(&format!("  ok       {}: {what}\n", f.file)),
                Err(why) => out.push_str(&format!("  REFUSED  {}: {why}\n", f.file)),
            }
        }
        if self.verified() {
            out.push_str(
                "verified: this charm runs the code `wasm-charm inspect` shows, with the \
                 runtime of this release\n",
            );
        } else {
            out.push_str(&format!(
                "not verified: {} of {} files refused; do not deploy this charm\n",
                self.refused().count(),
                self.findings.len()
            ));
        }
        out
    }
}

/// `wasm-charm verify <path> [--dispatch REFERENCE]`: print the findings;
/// an error (exit 1) naming the refused files when any is.
pub fn main(path: &Path, reference: Option<&Path>) -> anyhow::Result<()> {
    let verification = verify(path, reference)?;
    print!("{}", verification.render());
    if !verification.verified() {
        let files: Vec<&str> = verification.refused().map(|f| f.file.as_str()).collect();
        bail!("{}: not verified: {}", path.display(), files.join(", "));
    }
    Ok(())
}

/// Verify the `.charm` or charm directory at `path`, the `dispatch` against
/// `reference` (default: the static dispatch of this source tree).
pub fn verify(path: &Path, reference: Option<&Path>) -> anyhow::Result<Verification> {
    let opened = crate::pack::archive::Opened::charm(path)?;
    let dir = opened.dir();
    let charm = CharmDir::load(dir)?;
    let component_path = charm.component_path();
    let wasm = std::fs::read(&component_path).with_context(|| {
        format!(
            "{}: cannot read the charm's component",
            charm.manifest.component.display()
        )
    })?;
    crate::runtime::check_component_header(&component_path, &wasm)?;
    let component = hex(&Sha256::digest(&wasm));
    let dispatch_bytes = std::fs::read(dir.join("dispatch")).ok();
    let exe = dispatch_bytes.as_deref().and_then(|b| elf::read(b).ok());
    let mut findings = vec![Finding {
        file: charm.manifest.component.display().to_string(),
        verdict: Ok(format!("the component `inspect` reads, sha256 {component}")),
    }];
    findings.extend(state_dir(dir, &wasm, &component, exe.as_ref()));
    findings.push(Finding {
        file: "dispatch".into(),
        verdict: match &dispatch_bytes {
            None => Err("missing: a charm without it never runs".into()),
            Some(bytes) => dispatch(bytes, reference),
        },
    });
    Ok(Verification {
        source: opened.source(),
        component,
        findings,
    })
}

/// The verdict on every file under `.wasm-charm/`: only artifacts of the
/// component, each its compilation.
fn state_dir(
    dir: &Path,
    wasm: &[u8],
    component: &str,
    exe: Option<&elf::Executable>,
) -> Vec<Finding> {
    let state = dir.join(STATE_DIR);
    let mut files = Vec::new();
    walk(&state, &mut files);
    files.sort();
    let mut findings: Vec<Finding> = files
        .iter()
        .map(|path| {
            let file = path.strip_prefix(dir).unwrap_or(path).display().to_string();
            let verdict = state_file(path, wasm, component, exe);
            Finding { file, verdict }
        })
        .collect();
    if !findings.iter().any(|f| f.file.ends_with(".cwasm")) {
        findings.push(Finding {
            file: format!("{STATE_DIR}/{}", cache::CACHE_DIR),
            verdict: Ok(
                "no precompiled artifact: the unit's dispatch, which cannot \
                         compile, will refuse to run it (nothing runs that was not checked)"
                    .into(),
            ),
        });
    }
    findings
}

/// Every file below `dir` (a link counts as a file: never followed).
fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, into),
            _ => into.push(path),
        }
    }
}

fn state_file(
    path: &Path,
    wasm: &[u8],
    component: &str,
    exe: Option<&elf::Executable>,
) -> Result<String, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let in_cache = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == cache::CACHE_DIR);
    let kind = name
        .strip_suffix(".cwasm")
        .and_then(|n| n.split_once('.'))
        .filter(|_| in_cache);
    let Some((sha, kind)) = kind else {
        return Err(
            "not a file `pack` ships: a unit would take it as its own state (a store, a cache \
             entry); remove it or pack the charm again"
                .into(),
        );
    };
    if !path.is_file() || path.is_symlink() {
        return Err("not a regular file".into());
    }
    if sha != component {
        return Err(format!(
            "named for another component (sha256 {sha}); this charm's is {component}"
        ));
    }
    let target = match kind {
        "native" => Target::Native,
        "portable" => Target::Portable {
            big_endian: exe.is_some_and(|e| e.arch == elf::Arch::S390x),
        },
        other => return Err(format!("an artifact of an unknown kind `{other}`")),
    };
    if target == Target::Native
        && let Some(exe) = exe
        && exe.arch.machine_name() != std::env::consts::ARCH
    {
        return Err(format!(
            "native code for {}: this machine ({}) cannot compile it to compare; verify on {}",
            exe.arch.juju_name(),
            std::env::consts::ARCH,
            exe.arch.juju_name()
        ));
    }
    let shipped = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let expected = compile(target, wasm, component)?;
    if shipped == expected {
        return Ok(format!(
            "the compilation of the component for {} by wasmtime {}, byte for byte",
            target.triple(),
            engine::WASMTIME_VERSION
        ));
    }
    Err(differs(&shipped, component))
}

/// What this wasm-charm makes of `wasm` for `target`, sealed.
fn compile(target: Target, wasm: &[u8], component: &str) -> Result<Vec<u8>, String> {
    let engine = engine::engine(target).map_err(|e| format!("cannot make an engine: {e:#}"))?;
    let artifact =
        cache::precompile(&engine, wasm).map_err(|e| format!("cannot compile it here: {e:#}"))?;
    Ok(seal::append(artifact, component))
}

/// Why an artifact that is not the compilation differs, as far as can be told.
fn differs(shipped: &[u8], component: &str) -> String {
    let not = "not the compilation of the component";
    if let Some(version) = wasmtime_of(shipped)
        && version != ARTIFACT_VERSION
    {
        return format!(
            "{not}: made by another wasmtime (`{version}`; this wasm-charm's is `{ARTIFACT_VERSION}`): \
             pack the charm again with this release"
        );
    }
    match seal::check(shipped, component) {
        Err(broken) => format!("{not}: {broken}"),
        Ok(_) => format!(
            "{not}: its seal claims it is, but its code is not what this wasm-charm compiles: \
             forged, or compiled with other settings"
        ),
    }
}

/// The artifact version an artifact records (wasmtime's `.wasmtime.engine`
/// section holds it as text), when it holds one of wasm-charm's.
fn wasmtime_of(bytes: &[u8]) -> Option<String> {
    let needle = b"wasm-charm artifact of wasmtime ";
    let at = bytes.windows(needle.len()).position(|w| w == needle)?;
    let rest = &bytes[at..];
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_graphic() || *b == b' '))
        .unwrap_or(rest.len());
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// The verdict on the charm's `dispatch`.
fn dispatch(bytes: &[u8], reference: Option<&Path>) -> Result<String, String> {
    let release = env!("CARGO_PKG_VERSION");
    let (reference, what) = match reference {
        Some(path) => (
            path.to_path_buf(),
            format!("the reference {}", path.display()),
        ),
        None => {
            let built = crate::pack::static_dispatch::build()
                .map_err(|e| format!("cannot build the release's runtime to compare: {e:#}"))?;
            (built, "built from this source tree".to_string())
        }
    };
    let expected = std::fs::read(&reference).map_err(|e| {
        format!(
            "cannot read the release's runtime {}: {e}",
            reference.display()
        )
    })?;
    let (ours, theirs) = (hex(&Sha256::digest(&expected)), hex(&Sha256::digest(bytes)));
    if ours == theirs {
        return Ok(format!(
            "the runtime of wasm-charm {release} (sha256 {ours}, {what})"
        ));
    }
    let hint = if crate::inspect::holds_compiler(bytes) {
        "; it holds a compiler, so it is no runtime `pack` ships (a development build?)"
    } else {
        ""
    };
    Err(format!(
        "not the runtime of wasm-charm {release}: sha256 {theirs}, the release's is {ours} \
         ({what}){hint}"
    ))
}
