//! Files that a process of another user runs or reads: a pod's image
//! binaries, which the simulated Pebble runs as the user a layer or an exec
//! names when the tests run as root. Such a file is copied into the test's
//! own temporary directory, never run from the checkout: a clone under a
//! directory other users cannot enter (`/root`, a `mktemp -d`) would deny
//! that user its path, though the file itself is world-readable.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// The first of `path` and its ancestors that other users cannot enter
/// (no `o+x` on a directory), if any.
pub fn closed_ancestor(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .filter(|p| p.is_dir())
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 == 0))
        .map(Path::to_path_buf)
}

/// Copy `from` into `dir` (created, mode 0755) under `name`, executable and
/// readable by every user; the copy's path. Panics, naming the directory,
/// when `dir` lies under one that other users cannot enter: the staged file
/// would be as unreachable as the original (say, `TMPDIR` under `/root`).
pub fn stage(from: &Path, dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("open {} to every user: {e}", dir.display()));
    if let Some(closed) = closed_ancestor(dir) {
        panic!(
            "{} is staged for another user under {}, which other users cannot enter: \
             give TMPDIR a directory every user may enter",
            from.display(),
            closed.display()
        );
    }
    let to = dir.join(name);
    std::fs::copy(from, &to)
        .unwrap_or_else(|e| panic!("copy {} to {}: {e}", from.display(), to.display()));
    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", to.display()));
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_directory_is_found_among_the_ancestors_and_refused_for_staging() {
        let private = tempfile::tempdir().expect("temp dir");
        std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod 0700");
        let inside = private.path().join("a/b");
        std::fs::create_dir_all(&inside).expect("mkdir");
        assert_eq!(closed_ancestor(&inside).as_deref(), Some(private.path()));
        let file = private.path().join("tool");
        std::fs::write(&file, "#!/bin/sh\n").expect("write");
        let refused = std::panic::catch_unwind(|| stage(&file, &inside, "tool"))
            .expect_err("staged under a private directory");
        let message = refused
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains("cannot enter"), "{message}");
        assert!(
            message.contains(&private.path().display().to_string()),
            "{message}"
        );
    }
}
