//! `wasm-charm inspect`: what a charm is made of, for an operator to read
//! before deploying it (DESIGN §9): its handlers and the events each
//! observes, the WIT version and imports of its component, and what its
//! files declare: relations, config, actions, probes, what it may change on
//! the machine (directories, services, commands, packages), limits, and the
//! bases and architecture of its `dispatch`.
//!
//! Nothing is written: a `.charm` is unpacked into a temporary directory,
//! the component is compiled in a temporary cache, and the handlers come
//! from the component's `declare`, run in an instance of its own that can
//! reach nothing (every hook tool fails, no probe runs, no declared
//! directory is opened), as dispatch runs it. Everything shown is read from
//! the component, never from the charm's precompiled artifacts (the author
//! ships those): the native one is compared with the compilation made here,
//! and `wasm-charm verify` checks every artifact and `dispatch`
//! (docs/trust.md). Only `pack`, which has just compiled the artifacts
//! itself, inspects through them ([`inspect_packed`]).

pub mod workload;
pub mod world;

use crate::bindings::{Handler, Observation, Priority};
use crate::charm_dir::{CharmDir, ConfigType, Role};
use crate::interfaces::{Declaring, EventStates};
use crate::pack::{elf, manifest};
use crate::probe::{Check, Expect, Prober};
use crate::runtime::{self, Runtime};
use crate::status::store_file::STATE_DIR;
use anyhow::{Context as _, bail};
use sha2::Digest as _;
use std::path::{Path, PathBuf};
pub use world::World;

/// Everything `inspect` found.
#[derive(Debug)]
pub struct Inspection {
    /// What was read: `charm directory <path>`, `.charm <path>`, `component <path>`.
    pub source: String,
    /// The charm's files; `None` for a bare component.
    pub charm: Option<CharmDir>,
    /// The component, as the charm names it (or the path given).
    pub component: PathBuf,
    pub component_bytes: u64,
    pub world: World,
    /// The declarations, or why they could not be read.
    pub handlers: Result<Vec<Handler>, String>,
    /// What the charm's `dispatch` needs, and the bases it runs on.
    pub dispatch: Option<Result<(elf::Executable, Vec<&'static str>), String>>,
    /// The size of the charm's `dispatch` and whether it can compile (holds
    /// cranelift) or is the runtime alone `pack` ships.
    pub dispatch_build: Option<(u64, bool)>,
    /// The precompiled artifacts the charm carries (its cache), for this
    /// component or stale.
    pub artifacts: Vec<Artifact>,
    /// Whether the charm's native artifact is the compilation of its
    /// component made here; `None` when not compared (no such artifact, or
    /// inspected through `pack`'s own).
    pub native_verified: Option<bool>,
    /// The bases `manifest.yaml` names (`ubuntu 20.04 (amd64)`), if present.
    pub bases: Option<Result<Vec<String>, String>>,
}

/// `artifacts: native 1.20 MB, portable 1.51 MB`, or why there are none.
fn artifacts_line(artifacts: &[Artifact]) -> String {
    if artifacts.is_empty() {
        return "artifacts: none (a dispatch without a compiler cannot run this charm: \
                `wasm-charm pack` compiles them)"
            .to_string();
    }
    let each: Vec<String> = artifacts
        .iter()
        .map(|a| {
            let what = match a.kind.as_str() {
                "native" => "native (baseline CPU)",
                "portable" => "portable (Pulley, interpreted)",
                other => other,
            };
            let stale = if a.current {
                ""
            } else {
                ", stale: of another component"
            };
            format!("{what} {:.2} MB{stale}", a.bytes as f64 / 1e6)
        })
        .collect();
    format!("artifacts: {}", each.join(", "))
}

/// One precompiled artifact in the charm's cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// `native` (the architecture's baseline CPU) or `portable` (Pulley).
    pub kind: String,
    pub bytes: u64,
    /// Compiled from the charm's component as it is now.
    pub current: bool,
}

/// The artifacts in the cache of the charm directory `dir` whose component
/// has the SHA-256 `sha256`, native first.
fn artifacts(dir: &Path, sha256: &str) -> Vec<Artifact> {
    let cache = dir.join(STATE_DIR).join(runtime::cache::CACHE_DIR);
    let mut found: Vec<Artifact> = std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (sha, kind) = name.strip_suffix(".cwasm")?.split_once('.')?;
            Some(Artifact {
                kind: kind.to_string(),
                bytes: entry.metadata().ok()?.len(),
                current: sha == sha256,
            })
        })
        .collect();
    found.sort_by(|a, b| (b.current, &a.kind).cmp(&(a.current, &b.kind)));
    found
}

/// Whether an executable holds a compiler: cranelift's code leaves its
/// crate's source paths (panic locations) even in a stripped binary.
pub fn holds_compiler(bytes: &[u8]) -> bool {
    let needle = b"cranelift-codegen";
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// `wasm-charm inspect <path>`: print the inspection; an error (exit 1)
/// when the component's handlers could not be read, after printing what
/// could be.
pub fn main(path: &Path) -> anyhow::Result<()> {
    let inspection = inspect(path)?;
    if inspection.native_verified == Some(false) {
        print!("{}", inspection.render());
        bail!(
            "{}: its native artifact is not the compilation of its component; \
               `wasm-charm verify` names every file that differs",
            path.display()
        );
    }
    print!("{}", inspection.render());
    if let Err(why) = &inspection.handlers {
        bail!("{why}");
    }
    Ok(())
}

/// How the component is loaded to read its declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Through {
    /// Compiled here from the component, never from the charm's artifacts.
    Compiling,
    /// Through the artifacts `pack` has just compiled itself.
    OwnArtifacts,
}

/// Inspect a charm directory, a `.charm` (zip) or a component (`.wasm`).
pub fn inspect(path: &Path) -> anyhow::Result<Inspection> {
    inspect_through(path, Through::Compiling)
}

/// Inspect the charm directory `pack` has just written, through the
/// artifacts it compiled (no second compile of the component).
pub fn inspect_packed(dir: &Path) -> anyhow::Result<Inspection> {
    inspect_through(dir, Through::OwnArtifacts)
}

fn inspect_through(path: &Path, through: Through) -> anyhow::Result<Inspection> {
    if path.is_dir() {
        return inspect_charm(path, format!("charm directory {}", path.display()), through);
    }
    let mut magic = [0u8; 4];
    {
        use std::io::Read as _;
        let mut file = std::fs::File::open(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let _ = file.read(&mut magic);
    }
    match &magic {
        b"PK\x03\x04" => {
            let unpacked = tempfile::Builder::new()
                .prefix("wasm-charm-inspect-")
                .tempdir()
                .context("cannot create a temporary directory to unpack the charm in")?;
            crate::pack::archive::extract(path, unpacked.path())?;
            let mut inspection = inspect_charm(
                unpacked.path(),
                format!(".charm {}", path.display()),
                through,
            )
            .with_context(|| format!("{}: not a charm", path.display()))?;
            // Its files are gone with the temporary directory: name them in the archive.
            if let Some(charm) = &mut inspection.charm {
                charm.path = path.to_path_buf();
            }
            Ok(inspection)
        }
        b"\0asm" => {
            let wasm =
                std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
            let world =
                World::read(&wasm).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            Ok(Inspection {
                source: format!("component {}", path.display()),
                charm: None,
                component: path.to_path_buf(),
                component_bytes: wasm.len() as u64,
                handlers: declarations(path, None, through).0,
                world,
                dispatch: None,
                dispatch_build: None,
                artifacts: Vec::new(),
                native_verified: None,
                bases: None,
            })
        }
        _ => bail!(
            "{}: neither a charm directory, a .charm (zip) nor a WebAssembly component",
            path.display()
        ),
    }
}

fn inspect_charm(dir: &Path, source: String, through: Through) -> anyhow::Result<Inspection> {
    let charm = CharmDir::load(dir)?;
    let component = charm.component_path();
    let wasm = std::fs::read(&component)
        .with_context(|| format!("{}: cannot read the charm's component", component.display()))?;
    let world = World::read(&wasm)
        .map_err(|e| anyhow::anyhow!("{}: {e}", charm.manifest.component.display()))?;
    let dispatch_path = dir.join("dispatch");
    let mut dispatch_build = None;
    let dispatch = dispatch_path.is_file().then(|| {
        let bytes = std::fs::read(&dispatch_path).map_err(|e| format!("cannot read: {e}"))?;
        dispatch_build = Some((bytes.len() as u64, holds_compiler(&bytes)));
        let exe = elf::read(&bytes)?;
        let channels = manifest::channels(&exe)?;
        Ok((exe, channels))
    });
    let sha256 = crate::text::hex(&sha2::Sha256::digest(&wasm));
    let artifacts = artifacts(dir, &sha256);
    let manifest_path = dir.join(crate::pack::MANIFEST_FILE);
    let bases = manifest_path.is_file().then(|| read_bases(&manifest_path));
    let (handlers, compiled) = declarations(&component, Some(&charm), through);
    let shipped = runtime::cache::artifact_path(
        &dir.join(STATE_DIR).join(runtime::cache::CACHE_DIR),
        &sha256,
        runtime::engine::Target::Native,
    );
    let native_verified = match compiled {
        Some(compiled) if shipped.is_file() => Some(std::fs::read(&shipped).ok() == Some(compiled)),
        _ => None,
    };
    Ok(Inspection {
        source,
        component: charm.manifest.component.clone(),
        component_bytes: wasm.len() as u64,
        handlers,
        native_verified,
        world,
        dispatch,
        dispatch_build,
        artifacts,
        bases,
        charm: Some(charm),
    })
}

/// The bases of a `manifest.yaml`, `ubuntu 20.04 (amd64)` each.
fn read_bases(path: &Path) -> Result<Vec<String>, String> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        #[serde(default)]
        bases: Vec<Base>,
    }
    #[derive(serde::Deserialize)]
    struct Base {
        name: String,
        channel: String,
        #[serde(default)]
        architectures: Vec<String>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let manifest: Manifest =
        serde_saphyr::from_str(&text).map_err(|e| format!("field `bases`: {e}"))?;
    Ok(manifest
        .bases
        .iter()
        .map(|b| format!("{} {} ({})", b.name, b.channel, b.architectures.join(", ")))
        .collect())
}

/// The component's handler declarations, from `declare` run as dispatch
/// runs it on a cold cache: an instance that can reach nothing of a model.
/// Compiling, also the native artifact compiled here, to hold the charm's
/// against.
fn declarations(
    component: &Path,
    charm: Option<&CharmDir>,
    through: Through,
) -> (Result<Vec<Handler>, String>, Option<Vec<u8>>) {
    let state = match tempfile::Builder::new()
        .prefix("wasm-charm-inspect-")
        .tempdir()
    {
        Ok(state) => state,
        Err(e) => return (Err(format!("cannot create a temporary cache: {e}")), None),
    };
    if let Some(charm) = charm
        && through == Through::OwnArtifacts
    {
        runtime::cache::seed(
            &charm.path.join(crate::status::store_file::STATE_DIR),
            state.path(),
        );
    }
    let mut compiled = None;
    let loaded = runtime::identify(component, state.path()).and_then(|mut id| {
        let runtime = Runtime::load(&mut id, state.path())?;
        if through == Through::Compiling {
            let cache = state.path().join(runtime::cache::CACHE_DIR);
            compiled = std::fs::read(runtime::cache::artifact_path(
                &cache,
                &id.sha256,
                runtime::engine::Target::Native,
            ))
            .ok();
        }
        Ok(runtime)
    });
    let handlers = loaded
        .map_err(|e| e.to_string())
        .and_then(|runtime| run_declare(component, charm, &runtime));
    (handlers, compiled)
}

fn run_declare(
    component: &Path,
    charm: Option<&CharmDir>,
    runtime: &Runtime,
) -> Result<Vec<Handler>, String> {
    let limits = charm.map(|c| c.manifest.limits).unwrap_or_default();
    // No probe runs: a handler asking for one during `declare` is told it is unhealthy.
    let prober = Prober {
        scripted: charm
            .iter()
            .flat_map(|c| c.manifest.probes.keys())
            .map(|name| {
                (
                    name.clone(),
                    Check::unhealthy("not run by wasm-charm inspect"),
                )
            })
            .collect(),
        ..Prober::default()
    };
    // Every interface as dispatch builds it for `declare`, outside an event.
    let isolated = EventStates::declaring(&Declaring {
        charm,
        ctx: None,
        prober: &prober,
    });
    runtime
        .declare(isolated, &limits)
        .result
        .map_err(|trap| format!("{}: the component's `declare` {trap}", component.display()))
}

/// What a handler observes, for people: `install, config-changed`; the
/// observations of one entity grouped (`relation-created, relation-joined of
/// db`), groups split by `;`, an action named as Juju's CLI does (`action
/// pause`).
fn observations(observes: &[Observation]) -> String {
    if observes.is_empty() {
        return "no event".to_string();
    }
    let mut groups: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
    for o in observes {
        let kind = crate::event::kind_name(o.kind);
        match groups.last_mut() {
            Some((entity, kinds)) if *entity == o.entity.as_deref() => kinds.push(kind),
            _ => groups.push((o.entity.as_deref(), vec![kind])),
        }
    }
    groups
        .iter()
        .map(|(entity, kinds)| match entity {
            None => kinds.join(", "),
            Some(e) if kinds == &["action"] => format!("action {e}"),
            Some(e) => format!("{} of {e}", kinds.join(", ")),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn priority(p: Priority) -> &'static str {
    match p {
        Priority::Critical => "critical",
        Priority::Normal => "normal",
        Priority::Low => "low",
    }
}

fn config_type(t: ConfigType) -> &'static str {
    match t {
        ConfigType::String => "string",
        ConfigType::Int => "int",
        ConfigType::Float => "float",
        ConfigType::Boolean => "boolean",
        ConfigType::Secret => "secret",
    }
}

/// Whether the host answers `action` itself (`show-status`, `self-check`).
fn built_in(action: &str) -> bool {
    action == crate::actions::SHOW_STATUS || action == crate::actions::SELF_CHECK
}

impl Inspection {
    /// The report, one fact per line, sections indented under a heading.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |text: String| {
            out.push_str(&text);
            out.push('\n');
        };
        match &self.charm {
            Some(charm) => line(format!("charm: {} ({})", charm.metadata.name, self.source)),
            None => line(self.source.clone()),
        }
        line(format!(
            "component: {} ({} KiB)",
            self.component.display(),
            self.component_bytes.div_ceil(1024)
        ));
        line(self.wit_line());
        match &self.handlers {
            Ok(handlers) if handlers.is_empty() => line("handlers: none".to_string()),
            Ok(handlers) => {
                line(format!("handlers ({}):", handlers.len()));
                for h in handlers {
                    line(format!(
                        "  {} (priority {}): {}",
                        h.name,
                        priority(h.priority),
                        observations(&h.observes)
                    ));
                }
            }
            Err(why) => line(format!("handlers: not read: {why}")),
        }
        line(format!("imports ({}):", self.world.imports.len()));
        for name in &self.world.imports {
            line(format!("  {name}"));
        }
        line(format!("exports: {}", self.world.exports.join(", ")));
        if let Some(charm) = &self.charm {
            for text in charm_lines(charm) {
                line(text);
            }
        }
        let build = match self.dispatch_build {
            Some((bytes, compiles)) => format!(
                ", {:.2} MB, {}",
                bytes as f64 / 1e6,
                if compiles {
                    "with a compiler"
                } else {
                    "the runtime alone (no compiler)"
                }
            ),
            None => String::new(),
        };
        match &self.dispatch {
            Some(Ok((exe, channels))) => line(format!(
                "dispatch: {exe}{build}; runs on ubuntu {}",
                channels.join(", ")
            )),
            Some(Err(why)) => line(format!("dispatch: {why}")),
            None if self.charm.is_some() => line("dispatch: none (not packed)".to_string()),
            None => {}
        }
        if self.charm.is_some() {
            line(artifacts_line(&self.artifacts));
            line(self.verified_line());
        }
        match &self.bases {
            Some(Ok(bases)) => line(format!("bases (manifest.yaml): {}", bases.join(", "))),
            Some(Err(why)) => line(format!("bases (manifest.yaml): unreadable: {why}")),
            None => {}
        }
        for warning in self.warnings() {
            line(format!("warning: {warning}"));
        }
        out
    }

    /// Whether what this shows is what the unit would run.
    fn verified_line(&self) -> String {
        match self.native_verified {
            Some(true) => "verified: the native artifact is the compilation of the component \
               shown here, byte for byte; `wasm-charm verify` checks the other \
               artifacts and dispatch"
                .to_string(),
            Some(false) => "verified: NO: the native artifact is not the compilation of the \
               component shown here, so a unit would not run what this shows \
               (`wasm-charm verify` names every file that differs)"
                .to_string(),
            None => "verified: not checked (`wasm-charm verify` checks every artifact and \
               dispatch)"
                .to_string(),
        }
    }

    /// What the author should fix before a unit finds it: commands no
    /// handler's deadline lets finish, deadlines of undeclared handlers.
    pub fn warnings(&self) -> Vec<String> {
        match (&self.charm, &self.handlers) {
            (Some(charm), Ok(handlers)) => {
                let names: Vec<&str> = handlers.iter().map(|h| h.name.as_str()).collect();
                crate::charm_dir::deadlines::warnings(&charm.manifest, &names)
            }
            _ => Vec::new(),
        }
    }

    /// `WIT: wasm-charm:charm@0.2.0 (this host implements 0.2.0)`, or what
    /// is wrong with the version(s) the component targets.
    fn wit_line(&self) -> String {
        let host = format!("this host implements {}", crate::bindings::WIT_VERSION);
        let versions = self.world.charm_versions();
        if versions.is_empty() {
            return format!(
                "WIT: none of {}: not a charm component",
                crate::bindings::WIT_PACKAGE
            );
        }
        let parts: Vec<String> = versions
            .iter()
            .map(|(version, interfaces)| {
                let fits = match runtime::incompatibility(version) {
                    None => String::new(),
                    Some(advice) => format!(", incompatible: {advice}"),
                };
                format!(
                    "{}@{version} ({}{fits})",
                    crate::bindings::WIT_PACKAGE,
                    interfaces.join(", ")
                )
            })
            .collect();
        format!("WIT: {} ({host})", parts.join("; "))
    }
}

/// What the charm's files declare, a line or a section each.
fn charm_lines(charm: &CharmDir) -> Vec<String> {
    let mut lines = Vec::new();
    section(&mut lines, "relations", relation_items(charm));
    let storage_and_containers: Vec<String> = charm
        .metadata
        .storage
        .iter()
        .map(|s| format!("storage {s}"))
        .chain(
            charm
                .metadata
                .containers
                .iter()
                .map(|c| format!("container {c}")),
        )
        .collect();
    if !storage_and_containers.is_empty() {
        section(&mut lines, "storage and containers", storage_and_containers);
    }
    section(&mut lines, "config", config_items(charm));
    section(&mut lines, "actions", action_items(charm));
    section(&mut lines, "probes", probe_items(charm));
    lines.extend(workload::lines(&charm.manifest.workload));
    lines.extend(manifest_lines(charm));
    lines
}

/// A heading and its items indented under it, or `none`.
fn section(lines: &mut Vec<String>, heading: &str, items: Vec<String>) {
    if items.is_empty() {
        lines.push(format!("{heading}: none"));
    } else {
        lines.push(format!("{heading}:"));
        lines.extend(items.into_iter().map(|i| format!("  {i}")));
    }
}

/// Each relation endpoint: its role, interface and limit.
fn relation_items(charm: &CharmDir) -> Vec<String> {
    charm
        .metadata
        .endpoints
        .iter()
        .map(|(name, e)| {
            let role = match e.role {
                Role::Requires => "requires",
                Role::Provides => "provides",
                Role::Peers => "peers",
            };
            let limit = e.limit.map(|l| format!(", limit {l}")).unwrap_or_default();
            format!("{name}: {role} {}{limit}", e.interface)
        })
        .collect()
}

/// Each config option: its type and default.
fn config_items(charm: &CharmDir) -> Vec<String> {
    charm
        .config
        .options
        .iter()
        .map(|(name, t)| {
            let default = charm
                .config
                .defaults
                .get(name)
                .map(|d| format!(", default {d}"))
                .unwrap_or_default();
            format!("{name}: {}{default}", config_type(*t))
        })
        .collect()
}

/// Each action, those the host answers marked.
fn action_items(charm: &CharmDir) -> Vec<String> {
    charm
        .actions
        .names
        .iter()
        .map(|a| {
            if built_in(a) {
                format!("{a} (answered by the host)")
            } else {
                a.clone()
            }
        })
        .collect()
}

/// Each probe: its target, what it expects, whether it gates, its timing.
fn probe_items(charm: &CharmDir) -> Vec<String> {
    use crate::duration::show_duration as d;
    charm
        .manifest
        .probes
        .iter()
        .map(|(name, p)| {
            let expect = match p.expect {
                Expect::Up => "up",
                Expect::Down => "down",
            };
            format!(
                "{name}: {} expected {expect}, {}, timeout {}, retries {}, backoff {}, grace {}",
                p.target,
                if p.gate {
                    "gates"
                } else {
                    "gates only when a handler chooses"
                },
                d(p.timeout),
                p.retries,
                d(p.backoff),
                d(p.grace),
            )
        })
        .collect()
}

/// The manifest's limits, error policy, ready message, store and record.
fn manifest_lines(charm: &CharmDir) -> Vec<String> {
    let mut lines = Vec::new();
    let limits = &charm.manifest.limits;
    lines.push(format!(
        "limits: memory {} MiB per handler instance, handler timeout {} ms",
        limits.memory_bytes >> 20,
        limits.handler_timeout.as_millis()
    ));
    for (name, timeout) in &charm.manifest.handler_timeouts {
        lines.push(format!(
            "limits: handler {name}: timeout {} ms (its own)",
            timeout.as_millis()
        ));
    }
    lines.push(format!(
        "on-error: {}",
        match charm.manifest.on_error {
            crate::charm_dir::OnError::Block => "block (a handler's error blocks its scope)",
            crate::charm_dir::OnError::Fail => "fail (a handler's error fails the hook)",
        }
    ));
    if !charm.manifest.ready_message.is_empty() {
        lines.push(format!("ready-message: {}", charm.manifest.ready_message));
    }
    lines.push(format!(
        "store: {}",
        match charm.manifest.store {
            crate::charm_dir::StoreChoice::Auto =>
                "auto (Juju's charm state on Kubernetes, a file in the charm directory on machines)",
            crate::charm_dir::StoreChoice::Local => "local (a file in the charm directory)",
            crate::charm_dir::StoreChoice::Juju =>
                "juju (Juju's charm state: survives the pod being replaced)",
        }
    ));
    // An operator should see that hook answers, secret content included,
    // may be kept on the unit's disk.
    lines.push(match &charm.manifest.record {
        Some(b) => format!(
            "record: on, the last {} events within {} bytes in {}/{} (hook answers, secret \
             content included; mode 0600)",
            b.events,
            b.bytes,
            crate::status::store_file::STATE_DIR,
            crate::record::FILE_NAME
        ),
        None => format!(
            "record: off (unless the hook's environment sets {})",
            crate::record::RECORD_VAR
        ),
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::EventKind;

    fn o(kind: EventKind, entity: Option<&str>) -> Observation {
        Observation {
            kind,
            entity: entity.map(str::to_string),
        }
    }

    #[test]
    fn observations_group_by_entity() {
        assert_eq!(observations(&[]), "no event");
        assert_eq!(
            observations(&[
                o(EventKind::Install, None),
                o(EventKind::RelationJoined, Some("db")),
                o(EventKind::RelationBroken, Some("db")),
                o(EventKind::RelationChanged, None),
                o(EventKind::Action, Some("pause")),
            ]),
            "install; relation-joined, relation-broken of db; relation-changed; action pause"
        );
    }
}
