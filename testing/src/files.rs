//! The workload root of a run: the charm's paths moved under it, and what
//! is there after the event.

use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Where the charm's absolute `path` is under `root`.
pub(crate) fn under(root: &Path, path: &Path) -> PathBuf {
    let mut parts = Vec::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => parts.push(p),
            // `..` never leaves the root, as it never leaves `/`.
            Component::ParentDir => {
                parts.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    parts.iter().fold(root.to_path_buf(), |at, p| at.join(p))
}

/// Every regular file under `root`, by the path the charm sees
/// (`/etc/app/app.conf`). Symbolic links are not followed.
pub(crate) fn collect(root: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, Error> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| Error::Io(format!("{}: cannot list: {e}", dir.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| Error::Io(format!("{}: cannot list: {e}", dir.display())))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path)
                    .map_err(|e| Error::Io(format!("{}: cannot read: {e}", path.display())))?;
                let seen = Path::new("/").join(path.strip_prefix(root).unwrap_or(&path));
                files.insert(seen, bytes);
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_move_under_the_root_and_stay_there() {
        let root = Path::new("/tmp/r");
        assert_eq!(
            under(root, Path::new("/etc/app/a.conf")),
            Path::new("/tmp/r/etc/app/a.conf")
        );
        assert_eq!(
            under(root, Path::new("/etc/../../x")),
            Path::new("/tmp/r/x")
        );
    }

    #[test]
    fn collected_files_are_named_as_the_charm_sees_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("etc/app/empty")).unwrap();
        std::fs::write(dir.path().join("etc/app/a.conf"), "a").unwrap();
        std::fs::write(dir.path().join("top"), "t").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("etc/link")).unwrap();
        let files = collect(dir.path()).unwrap();
        let names: Vec<&Path> = files.keys().map(PathBuf::as_path).collect();
        assert_eq!(names, [Path::new("/etc/app/a.conf"), Path::new("/top")]);
        assert_eq!(files[Path::new("/top")], b"t");
    }
}
