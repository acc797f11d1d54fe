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

/// [`write`], the directory made first if it is missing: for caches, whose
/// directory nothing else creates.
pub fn write_making_dir(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(parent(path))?;
    write(path, bytes)
}

/// [`write`], the content written by `fill` straight into the temporary
/// file (buffered): a large document is never held whole in memory.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut Filling<'_>) -> std::io::Result<()>,
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
        let mut filling = Filling(std::io::BufWriter::with_capacity(
            BUFFER,
            WritingBack::new(tmp.as_file_mut()),
        ));
        fill(&mut filling)?;
        filling.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_parent(path)
}

/// Where [`write_with`]'s content goes: the temporary file, buffered. A
/// type of its own rather than `dyn Write`, so that an encoder writing many
/// small pieces reaches the buffer without a call through a vtable each.
pub struct Filling<'a>(std::io::BufWriter<WritingBack<'a>>);

impl std::io::Write for Filling<'_> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The buffer's size.
const BUFFER: usize = 64 << 10;

/// How much is written before its writeback to disk is started.
const WRITEBACK_STEP: u64 = 2 << 20;

/// A file whose every [`WRITEBACK_STEP`] written is sent to disk at once
/// (`sync_file_range`, without waiting): a large document's writeback then
/// runs while the rest is encoded, and the `fsync` at the end waits for
/// its last piece only.
struct WritingBack<'a> {
    file: &'a mut std::fs::File,
    written: u64,
    started: u64,
}

impl<'a> WritingBack<'a> {
    fn new(file: &'a mut std::fs::File) -> Self {
        WritingBack {
            file,
            written: 0,
            started: 0,
        }
    }
}

impl std::io::Write for WritingBack<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_STEP {
            use std::os::fd::AsRawFd as _;
            // Only a hint: the fsync at the end is what makes it durable, so
            // a file system that cannot do this loses nothing.
            // SAFETY: the descriptor is the file's, open for this borrow;
            // the call reads its arguments only.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.started as _,
                    (self.written - self.started) as _,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Write `bytes` to `path` at offset `at`, cutting off whatever followed
/// `at` first (a line a crash tore), and make it durable: an append that a
/// crash leaves whole or torn at its end, never elsewhere. The file is
/// created if missing (then its directory is fsynced too, so the new name
/// survives a power loss).
pub fn append_at(path: &Path, at: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    let created = !path.exists();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    if file.metadata()?.len() != at {
        file.set_len(at)?;
    }
    file.write_all_at(bytes, at)?;
    // The length changed: fdatasync writes it with the data.
    file.sync_data()?;
    if created {
        sync_parent(path)?;
    }
    Ok(())
}

/// Remove `path` durably (the directory fsynced); a missing file is fine.
pub fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => sync_parent(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Make a change of `path`'s name durable: fsync the directory holding it.
fn sync_parent(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(parent(path))?.sync_all()
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
