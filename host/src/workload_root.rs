//! Where the machine's declared directories are (DESIGN §12): `/` on a unit,
//! or the directory `WASM_CHARM_ROOT` names, under which every declared
//! absolute path is looked up instead (tests, and `wasm-charm run`, which
//! never touches the machine's own `/etc`). The guest still sees the
//! declared path; only the host side moves.
//!
//! Read once from the environment by the caller of the pipeline and handed
//! down as a value: nothing below reads the environment.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

/// The environment variable that moves `/` for declared paths.
pub const ROOT_VAR: &str = "WASM_CHARM_ROOT";

/// The directory declared absolute paths are looked up under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadRoot(PathBuf);

/// `WASM_CHARM_ROOT` (or the flag standing for it) names no usable directory.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{name}=`{}`: {why}", value.display())]
pub struct RootError {
    /// The variable or flag, as the operator wrote it.
    pub name: &'static str,
    pub value: PathBuf,
    pub why: String,
}

impl Default for WorkloadRoot {
    fn default() -> Self {
        WorkloadRoot::machine()
    }
}

impl WorkloadRoot {
    /// The machine itself: declared paths are what they say.
    pub fn machine() -> WorkloadRoot {
        WorkloadRoot(PathBuf::from("/"))
    }

    /// `root` as given, which must be absolute: it is not checked to exist
    /// (see [`WorkloadRoot::existing`]).
    pub fn new(root: PathBuf) -> Result<WorkloadRoot, String> {
        if root.is_absolute() {
            Ok(WorkloadRoot(root))
        } else {
            Err("not an absolute path".to_string())
        }
    }

    /// The root `name` (a variable or flag) gives: absolute, and an existing
    /// directory, so that a typo fails the event instead of quietly granting
    /// nothing.
    pub fn existing(name: &'static str, value: &OsStr) -> Result<WorkloadRoot, RootError> {
        let error = |why: String| RootError {
            name,
            value: PathBuf::from(value),
            why,
        };
        let root = WorkloadRoot::new(PathBuf::from(value)).map_err(|why| {
            error(format!(
                "{why}; name the directory under which declared workload paths are \
                 looked up{}",
                if name == ROOT_VAR {
                    ", or unset it to use `/`"
                } else {
                    ""
                }
            ))
        })?;
        match std::fs::metadata(&root.0) {
            Ok(m) if m.is_dir() => Ok(root),
            Ok(_) => Err(error("not a directory".to_string())),
            Err(e) => Err(error(format!("cannot use it as the workload root: {e}"))),
        }
    }

    /// The root the process environment gives: `WASM_CHARM_ROOT` when set
    /// (an empty value is a relative path, refused), else the machine.
    pub fn from_var(value: Option<&OsStr>) -> Result<WorkloadRoot, RootError> {
        match value {
            None => Ok(WorkloadRoot::machine()),
            Some(v) => WorkloadRoot::existing(ROOT_VAR, v),
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Whether declared paths are the machine's own.
    pub fn is_machine(&self) -> bool {
        self.0 == Path::new("/")
    }

    /// Where the declared absolute `path` is on the host: the root joined
    /// with its components, so never outside the root. `None` for a path
    /// that is not absolute or holds `.`, `..`, `//` or a trailing `/` (the
    /// manifest refuses those; this does not rely on it). Read from the
    /// bytes, since `Path::components` would drop an inner `.` silently.
    pub fn host_path(&self, declared: &Path) -> Option<PathBuf> {
        let bytes = declared.as_os_str().as_bytes();
        let mut segments = bytes.split(|b| *b == b'/');
        if segments.next() != Some(b"".as_slice()) {
            return None;
        }
        let mut host = self.0.clone();
        for segment in segments {
            if matches!(segment, b"" | b"." | b"..") {
                return None;
            }
            host.push(OsStr::from_bytes(segment));
        }
        (host != self.0).then_some(host)
    }
}

/// The root of `wasm-charm run`: `--root` (`flag`), else `WASM_CHARM_ROOT`
/// (`var`), else `<state file without its extension>.root` beside the state
/// file, created when the charm declares directories (`needed`): an offline
/// run never reaches the machine's own `/etc` unless told to.
pub fn offline_root(
    flag: Option<&Path>,
    var: Option<&OsStr>,
    state_file: &Path,
    needed: bool,
) -> Result<WorkloadRoot, String> {
    if let Some(flag) = flag {
        let absolute =
            std::path::absolute(flag).map_err(|e| format!("--root `{}`: {e}", flag.display()))?;
        return WorkloadRoot::existing("--root", absolute.as_os_str()).map_err(|e| e.to_string());
    }
    if let Some(var) = var {
        return WorkloadRoot::from_var(Some(var)).map_err(|e| e.to_string());
    }
    let root = std::path::absolute(default_offline_root(state_file))
        .map_err(|e| format!("{}: {e}", state_file.display()))?;
    if needed {
        std::fs::create_dir_all(&root).map_err(|e| {
            format!(
                "{}: cannot create the offline workload root: {e}",
                root.display()
            )
        })?;
    }
    WorkloadRoot::new(root.clone()).map_err(|e| format!("{}: {e}", root.display()))
}

/// `gateway.offline-state.yaml` → `gateway.offline-state.root`, beside it.
pub fn default_offline_root(state_file: &Path) -> PathBuf {
    state_file.with_extension("root")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn root(p: &str) -> WorkloadRoot {
        WorkloadRoot::new(PathBuf::from(p)).unwrap()
    }

    #[test]
    fn declared_paths_move_under_the_root() {
        let r = root("/tmp/r");
        assert_eq!(
            r.host_path(Path::new("/etc/api-service")),
            Some(PathBuf::from("/tmp/r/etc/api-service"))
        );
        assert_eq!(
            WorkloadRoot::machine().host_path(Path::new("/etc/api-service")),
            Some(PathBuf::from("/etc/api-service"))
        );
        assert!(WorkloadRoot::machine().is_machine() && !r.is_machine());
        for bad in ["etc/x", "/etc/../x", "/etc/./x", "..", ""] {
            assert_eq!(r.host_path(Path::new(bad)), None, "{bad}");
        }
    }

    #[test]
    fn a_relative_empty_or_missing_root_names_the_variable() {
        for value in ["", "relative/dir"] {
            let e = WorkloadRoot::from_var(Some(OsStr::new(value))).unwrap_err();
            assert_eq!(e.name, ROOT_VAR);
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("WASM_CHARM_ROOT=`{value}`: not an absolute path")),
                "{text}"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let e = WorkloadRoot::from_var(Some(missing.as_os_str())).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "WASM_CHARM_ROOT=`{}`: cannot use",
                missing.display()
            )),
            "{e}"
        );
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let e = WorkloadRoot::from_var(Some(file.as_os_str())).unwrap_err();
        assert!(e.to_string().ends_with(": not a directory"), "{e}");
        assert_eq!(
            WorkloadRoot::from_var(Some(dir.path().as_os_str()))
                .unwrap()
                .path(),
            dir.path()
        );
        assert_eq!(
            WorkloadRoot::from_var(None).unwrap(),
            WorkloadRoot::machine()
        );
    }

    #[test]
    fn offline_runs_default_beside_their_state_and_create_it_only_when_needed() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("gw.offline-state.yaml");
        let expected = dir.path().join("gw.offline-state.root");
        let r = offline_root(None, None, &state, false).unwrap();
        assert_eq!(r.path(), expected);
        assert!(!expected.exists(), "created although nothing is declared");
        let r = offline_root(None, None, &state, true).unwrap();
        assert!(r.path().is_dir());
        // The variable overrides the default, the flag both.
        let other = tempfile::tempdir().unwrap();
        let r = offline_root(None, Some(other.path().as_os_str()), &state, true).unwrap();
        assert_eq!(r.path(), other.path());
        let r = offline_root(
            Some(dir.path()),
            Some(other.path().as_os_str()),
            &state,
            true,
        );
        assert_eq!(r.unwrap().path(), dir.path());
        let e = offline_root(Some(&dir.path().join("nope")), None, &state, true).unwrap_err();
        assert!(e.starts_with("--root=`"), "{e}");
    }

    /// A path component: a name, `.` or `..`.
    fn component() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[a-zA-Z0-9_. -]{1,8}".prop_filter("not . or ..", |s| s != "." && s != ".."),
            1 => Just(".".to_string()),
            1 => Just("..".to_string()),
        ]
    }

    proptest! {
        /// For any declared path and root, the host path is the root joined
        /// with the declared path's components, and never outside the root;
        /// a path that is not absolute, is `/` or holds `.` or `..` maps
        /// nowhere.
        #[test]
        fn the_host_path_is_the_root_joined_with_the_components(
            root_parts in prop::collection::vec("[a-z0-9_-]{1,8}", 0..4),
            parts in prop::collection::vec(component(), 0..6),
            absolute in any::<bool>(),
        ) {
            let root_path = PathBuf::from(format!("/{}", root_parts.join("/")));
            let r = WorkloadRoot::new(root_path.clone()).unwrap();
            let text = format!("{}{}", if absolute { "/" } else { "" }, parts.join("/"));
            let clean = absolute && !parts.is_empty() && parts.iter().all(|p| p != "." && p != "..");
            match r.host_path(Path::new(&text)) {
                Some(host) => {
                    prop_assert!(clean, "{} mapped to {}", text, host.display());
                    prop_assert!(host.starts_with(&root_path));
                    let mut expected = root_path.clone();
                    expected.extend(&parts);
                    prop_assert_eq!(&host, &expected);
                    let rest = host.strip_prefix(&root_path).unwrap();
                    let names: Vec<_> = rest.components().collect();
                    prop_assert_eq!(names.len(), parts.len());
                    prop_assert!(names.iter().all(|c| matches!(c, std::path::Component::Normal(_))));
                }
                None => prop_assert!(!clean, "{} refused", text),
            }
        }
    }
}
