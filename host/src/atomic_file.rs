//! Replacing a file so that a crash leaves the old or the new content, never
//! a torn one, and the new name survives a power loss.

use std::io::Write as _;
use std::path::Path;

/// Write `bytes` to `path` atomically: a temporary file in the same directory
/// (a rename is atomic only within one file system), written and fsynced,
/// renamed over `path`, then the directory fsynced so the rename itself is
/// durable. The directory must exist. `Err` names nothing; callers add the
/// path, which they know how to describe.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

/// [`write`], the content written by `fill` straight into the temporary
/// file (buffered): a large document is never held whole in memory.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = parent(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Named after the target, so a leftover from a crash says what it was.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}-"))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    {
        let mut buffered = std::io::BufWriter::with_capacity(64 << 10, tmp.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.yaml");
        write(&path, b"one").unwrap();
        write(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("state.yaml")]);
    }

    #[test]
    fn a_missing_directory_is_an_error_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/file");
        assert!(write(&path, b"x").is_err());
        assert!(!dir.path().join("no").exists());
    }
}
