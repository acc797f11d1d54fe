//! [`Container`]'s calls on the container's files (Pebble's `/v1/files`),
//! and their options.

use super::{ApiErrorKind, Container, FileInfo, PebbleError, wit};

/// How [`Container::push`] writes a file (ops' keyword arguments). The
/// owner and group may be given by name, by id or both; Pebble's own user
/// when none.
///
/// ```
/// use wasm_charm::pebble::PushOptions;
///
/// let options = PushOptions { make_dirs: true, permissions: Some(0o600), user: Some("web".into()), ..Default::default() };
/// assert_eq!(PushOptions::default().permissions, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushOptions {
    /// Create the missing parent directories.
    pub make_dirs: bool,
    /// The file's mode; Pebble's default 0o644 when `None`.
    pub permissions: Option<u32>,
    /// The owner's name.
    pub user: Option<String>,
    /// The owner's id.
    pub user_id: Option<u32>,
    /// The group's name.
    pub group: Option<String>,
    /// The group's id.
    pub group_id: Option<u32>,
}

/// How [`Container::make_dir`] creates a directory (ops' keyword
/// arguments).
///
/// ```
/// use wasm_charm::pebble::MakeDirOptions;
///
/// let options = MakeDirOptions { make_parents: true, user_id: Some(1000), ..Default::default() };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MakeDirOptions {
    /// Create the missing parents too, and accept a directory that exists.
    pub make_parents: bool,
    /// The directory's mode; Pebble's default 0o755 when `None`.
    pub permissions: Option<u32>,
    /// The owner's name.
    pub user: Option<String>,
    /// The owner's id.
    pub user_id: Option<u32>,
    /// The group's name.
    pub group: Option<String>,
    /// The group's id.
    pub group_id: Option<u32>,
}

/// How [`Container::remove_path`] removes (ops' keyword argument).
///
/// ```
/// use wasm_charm::pebble::RemovePathOptions;
///
/// let options = RemovePathOptions { recursive: true };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemovePathOptions {
    /// Remove a directory with everything in it, and accept a path that is
    /// not there (`rm -rf`).
    pub recursive: bool,
}

/// How [`Container::list_files_with`] lists (ops' keyword arguments).
///
/// ```
/// use wasm_charm::pebble::ListFilesOptions;
///
/// let conf = ListFilesOptions { pattern: Some("*.conf".into()), ..Default::default() };
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListFilesOptions {
    /// Only the entries whose base name matches this glob (`*.conf`).
    pub pattern: Option<String>,
    /// The directory at the path itself, not its entries.
    pub itself: bool,
}

/// A file of any size read from a container a piece at a time (ops'
/// `Container.pull`, which answers a file object): [`std::io::Read`], each
/// read asking Pebble for at most 1 MiB. An error Pebble reports after the
/// content (it could not read all of it) comes as the last read's error.
///
/// ```no_run
/// use std::io::Read;
///
/// let mut dump = wasm_charm::pebble::get_container("db").pull_stream("/var/backups/db.sql")?;
/// let mut piece = vec![0; 64 << 10];
/// let mut total = 0;
/// loop {
///     let n = dump.read(&mut piece)?;
///     if n == 0 { break; }
///     total += n;
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PullStream {
    reader: wit::FileReader,
    ended: bool,
}

/// Reads the file's next piece.
///
/// ```no_run
/// use std::io::Read;
///
/// let mut text = String::new();
/// wasm_charm::pebble::get_container("web").pull_stream("/var/log/web.log")?.read_to_string(&mut text)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl std::io::Read for PullStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        // The host hands out at most 1 MiB a read.
        let max = u32::try_from(buf.len()).unwrap_or(u32::MAX).min(1 << 20);
        let piece = self.reader.read(max).map_err(std::io::Error::other)?;
        if piece.is_empty() {
            self.ended = true;
        }
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        Ok(n)
    }
}

fn ownership(
    user: &Option<String>,
    user_id: Option<u32>,
    group: &Option<String>,
    group_id: Option<u32>,
) -> wit::Ownership {
    wit::Ownership {
        user: user.clone(),
        user_id,
        group: group.clone(),
        group_id,
    }
}

impl Container {
    /// Write `data` (text or bytes) to the absolute `path` in the container
    /// (ops' `Container.push`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, PushOptions};
    ///
    /// let options = PushOptions { make_dirs: true, permissions: Some(0o600), ..Default::default() };
    /// pebble::get_container("web").push("/etc/web/web.conf", "port = 80\n", options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "files")]
    pub fn push(
        &self,
        path: &str,
        data: impl AsRef<[u8]>,
        options: PushOptions,
    ) -> Result<(), PebbleError> {
        let wit_options = wit::PushOptions {
            make_dirs: options.make_dirs,
            permissions: options.permissions,
            owner: ownership(
                &options.user,
                options.user_id,
                &options.group,
                options.group_id,
            ),
        };
        wit::push(&self.name, path, data.as_ref(), &wit_options)
    }

    /// The content of the file at the absolute `path` (at most 8 MiB; ops'
    /// `Container.pull`, as bytes).
    ///
    /// ```no_run
    /// let conf = wasm_charm::pebble::get_container("web").pull("/etc/web/web.conf")?;
    /// let text = String::from_utf8_lossy(&conf);
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn pull(&self, path: &str) -> Result<Vec<u8>, PebbleError> {
        wit::pull(&self.name, path)
    }

    /// The file at the absolute `path`, of any size, to read a piece at a
    /// time (ops' `Container.pull`, as a file object; at most 4 open at
    /// once in a handler).
    ///
    /// ```no_run
    /// use std::io::Read;
    ///
    /// let mut log = wasm_charm::pebble::get_container("web").pull_stream("/var/log/web.log")?;
    /// let mut start = [0; 4096];
    /// let n = log.read(&mut start)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "pull")]
    pub fn pull_stream(&self, path: &str) -> Result<PullStream, PebbleError> {
        Ok(PullStream {
            reader: wit::pull_stream(&self.name, path)?,
            ended: false,
        })
    }

    /// The entries of the directory at `path`, or the file itself (ops'
    /// `Container.list_files`).
    ///
    /// ```no_run
    /// for f in wasm_charm::pebble::get_container("web").list_files("/etc/web")? {
    ///     wasm_charm::log::info(format!("{} {:o}", f.path, f.permissions));
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn list_files(&self, path: &str) -> Result<Vec<FileInfo>, PebbleError> {
        self.list_files_with(path, &ListFilesOptions::default())
    }

    /// [`list_files`](Container::list_files) with ops' `pattern` and
    /// `itself`.
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, ListFilesOptions};
    ///
    /// let options = ListFilesOptions { pattern: Some("*.conf".into()), ..Default::default() };
    /// let confs = pebble::get_container("web").list_files_with("/etc/web", &options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "pattern")]
    pub fn list_files_with(
        &self,
        path: &str,
        options: &ListFilesOptions,
    ) -> Result<Vec<FileInfo>, PebbleError> {
        wit::list_files(&self.name, path, options.pattern.as_deref(), options.itself)
    }

    /// The path itself, or `None` when nothing is there (Pebble's 404).
    fn stat(&self, path: &str) -> Result<Option<FileInfo>, PebbleError> {
        let itself = ListFilesOptions {
            pattern: None,
            itself: true,
        };
        match self.list_files_with(path, &itself) {
            Ok(files) => Ok(files.into_iter().next()),
            Err(PebbleError::Api(e)) if e.status_code == 404 => Ok(None),
            Err(e) if e.kind() == Some(ApiErrorKind::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether anything is at `path` (ops' `Container.exists`).
    ///
    /// ```no_run
    /// if !wasm_charm::pebble::get_container("web").exists("/etc/web/web.conf")? {
    ///     // not written yet
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn exists(&self, path: &str) -> Result<bool, PebbleError> {
        Ok(self.stat(path)?.is_some())
    }

    /// Whether a directory is at `path` (ops' `Container.isdir`).
    ///
    /// ```no_run
    /// let ready = wasm_charm::pebble::get_container("web").isdir("/var/lib/web")?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn isdir(&self, path: &str) -> Result<bool, PebbleError> {
        Ok(self.stat(path)?.is_some_and(|f| f.kind == "directory"))
    }

    /// Create a directory (ops' `Container.make_dir`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, MakeDirOptions};
    ///
    /// let options = MakeDirOptions { make_parents: true, user: Some("web".into()), ..Default::default() };
    /// pebble::get_container("web").make_dir("/var/lib/web/cache", options)?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn make_dir(&self, path: &str, options: MakeDirOptions) -> Result<(), PebbleError> {
        let wit_options = wit::MakeDirOptions {
            make_parents: options.make_parents,
            permissions: options.permissions,
            owner: ownership(
                &options.user,
                options.user_id,
                &options.group,
                options.group_id,
            ),
        };
        wit::make_dir(&self.name, path, &wit_options)
    }

    /// Remove a file or an empty directory, or with
    /// [`recursive`](RemovePathOptions::recursive) a directory and all in it
    /// (ops' `Container.remove_path`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, RemovePathOptions};
    ///
    /// pebble::get_container("web").remove_path("/var/lib/web/cache", RemovePathOptions { recursive: true })?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn remove_path(&self, path: &str, options: RemovePathOptions) -> Result<(), PebbleError> {
        wit::remove_path(&self.name, path, options.recursive)
    }
}
