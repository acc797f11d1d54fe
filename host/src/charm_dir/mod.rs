//! The charm directory Juju runs `dispatch` in (DESIGN §8): metadata.yaml,
//! config.yaml, actions.yaml and the runtime manifest wasm-charm.yaml, each
//! parsed and validated once into typed values.

mod actions;
pub mod deadlines;
mod manifest;
mod metadata;
mod parsed_cache;
pub mod probes;
pub mod recording;
mod workload;

pub use actions::{Actions, ParamSpec, ParamType, ParamsSchema};
pub use manifest::{FILE_NAME as MANIFEST_FILE, Limits, Manifest, OnError, StoreChoice};
pub use metadata::{ConfigSchema, ConfigType, Endpoint, Metadata, Role};
pub(crate) use workload::is_unit_name;
pub use workload::{
    Access, CommandSpec, ContainerGrant, FileGrant, JUJU_AGENTS_DIR, MAX_ARGS, MAX_ARGS_BYTES,
    OUTPUT_LIMIT, Workload, overlap,
};

use std::path::{Path, PathBuf};

/// Where `dispatch` keeps the parsed files, in the host's cache directory
/// ([`CharmDir::load_cached`]).
pub const PARSED_FILE: &str = "charm-files.json";

/// A file of the charm directory could not be read or is invalid. The message
/// names the file and, where there is one, the field.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", file.display())]
pub struct CharmFileError {
    pub file: PathBuf,
    pub message: String,
}

impl CharmFileError {
    pub fn new(file: &Path, message: impl Into<String>) -> Self {
        CharmFileError {
            file: file.to_path_buf(),
            message: message.into(),
        }
    }
}

/// Everything the host reads from the charm directory before running a handler.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CharmDir {
    /// Not in the parsed files' cache ([`parsed_cache`]), which keeps what
    /// the files say: where they are is the caller's.
    #[serde(skip)]
    pub path: PathBuf,
    pub metadata: Metadata,
    pub config: ConfigSchema,
    pub actions: Actions,
    pub manifest: Manifest,
}

impl CharmDir {
    /// Read and validate the charm directory at `path`. metadata.yaml is
    /// required (Juju refuses to run a charm without it); the other files are
    /// optional.
    pub fn load(path: &Path) -> Result<CharmDir, CharmFileError> {
        Files::read(path)?.parse(path)
    }

    /// [`load`](Self::load), the parsed files kept in `cache` (a file of the
    /// host's state directory) and reused while the files and the host are
    /// the same ([`parsed_cache`]): what `dispatch` does at every event.
    pub fn load_cached(path: &Path, cache: &Path) -> Result<CharmDir, CharmFileError> {
        let files = Files::read(path)?;
        let Some(host) = parsed_cache::host_identity() else {
            return files.parse(path);
        };
        let key = parsed_cache::key(&host, &files.texts());
        if let Some(parsed) = parsed_cache::read(cache, &key) {
            return Ok(CharmDir {
                path: path.to_path_buf(),
                ..parsed
            });
        }
        let charm = files.parse(path)?;
        parsed_cache::write(cache, &key, &charm);
        Ok(charm)
    }

    /// Where the component is, from the manifest (relative to the charm dir).
    pub fn component_path(&self) -> PathBuf {
        self.path.join(&self.manifest.component)
    }
}

/// The texts of the charm's files, as read.
struct Files {
    metadata: (PathBuf, String),
    config: Option<(PathBuf, String)>,
    actions: Option<(PathBuf, String)>,
    manifest: Option<(PathBuf, String)>,
}

impl Files {
    fn read(path: &Path) -> Result<Files, CharmFileError> {
        let metadata_file = path.join("metadata.yaml");
        let text = std::fs::read_to_string(&metadata_file).map_err(|e| {
            CharmFileError::new(
                &metadata_file,
                format!("cannot read the charm metadata: {e}"),
            )
        })?;
        Ok(Files {
            metadata: (metadata_file, text),
            config: read_optional(&path.join("config.yaml"))?,
            actions: read_optional(&path.join("actions.yaml"))?,
            manifest: read_optional(&path.join(manifest::FILE_NAME))?,
        })
    }

    fn texts(&self) -> [Option<&str>; 4] {
        fn text(f: &Option<(PathBuf, String)>) -> Option<&str> {
            f.as_ref().map(|(_, t)| t.as_str())
        }
        [
            Some(self.metadata.1.as_str()),
            text(&self.config),
            text(&self.actions),
            text(&self.manifest),
        ]
    }

    fn parse(&self, path: &Path) -> Result<CharmDir, CharmFileError> {
        let metadata = Metadata::parse(&self.metadata.1, &self.metadata.0)?;
        let config = match &self.config {
            Some((file, text)) => ConfigSchema::parse(text, file)?,
            None => ConfigSchema::default(),
        };
        let actions = match &self.actions {
            Some((file, text)) => Actions::parse(text, file)?,
            None => Actions::default(),
        };
        let manifest = match &self.manifest {
            Some((file, text)) => Manifest::parse(text, file)?,
            None => Manifest::default(),
        };
        probes::check_containers(&manifest.probes, &metadata.containers)
            .map_err(|e| CharmFileError::new(&path.join(manifest::FILE_NAME), e.to_string()))?;
        manifest
            .workload
            .check_containers(&metadata.containers)
            .map_err(|e| CharmFileError::new(&path.join(manifest::FILE_NAME), e))?;
        Ok(CharmDir {
            path: path.to_path_buf(),
            metadata,
            config,
            actions,
            manifest,
        })
    }
}

fn read_optional(file: &Path) -> Result<Option<(PathBuf, String)>, CharmFileError> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some((file.to_path_buf(), text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CharmFileError::new(file, format!("cannot read: {e}"))),
    }
}

/// Parse YAML into `T`, naming the file in the error. An empty file is an
/// empty document, which Juju's files allow.
pub(crate) fn parse_yaml<T: serde::de::DeserializeOwned + Default>(
    text: &str,
    file: &Path,
) -> Result<T, CharmFileError> {
    if text.trim().is_empty() {
        return Ok(T::default());
    }
    serde_saphyr::from_str(text).map_err(|e| CharmFileError::new(file, e.to_string()))
}
