//! The container's file system as a real directory: container path `/etc/x`
//! is `<root>/etc/x`. Paths are checked as the in-memory file system checks
//! them (absolute, clean), so none leaves the root; errors carry Pebble's
//! kinds (`not-found`, `permission-denied`, `generic-file-error`) and Go's
//! words for the system's errors.

use super::super::files::{
    Entry, FileError, Owner, Stat, checked, generic, name, owner_not_found, parent,
};
use super::super::state::DIR_MODE;
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// A directory standing for the container's root.
#[derive(Debug, Clone)]
pub struct DirFs {
    pub root: PathBuf,
}

/// The id of user (`user`) or group `name` on this system.
pub fn account_id(name: &str, user: bool) -> Option<u32> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: `name` is NUL-terminated and outlives the call; the entry
    // returned is read at once, before any other lookup can reuse it.
    unsafe {
        if user {
            let entry = libc::getpwnam(name.as_ptr());
            (!entry.is_null()).then(|| (*entry).pw_uid)
        } else {
            let entry = libc::getgrnam(name.as_ptr());
            (!entry.is_null()).then(|| (*entry).gr_gid)
        }
    }
}

/// `op path: reason`, as Go's os errors read, with Pebble's kind.
fn io_error(op: &str, path: &str, e: &std::io::Error) -> FileError {
    let (kind, reason) = match e.kind() {
        ErrorKind::NotFound => ("not-found", "no such file or directory".to_string()),
        ErrorKind::PermissionDenied => ("permission-denied", "permission denied".to_string()),
        ErrorKind::AlreadyExists => ("generic-file-error", "file exists".to_string()),
        ErrorKind::DirectoryNotEmpty => ("generic-file-error", "directory not empty".to_string()),
        ErrorKind::NotADirectory => ("generic-file-error", "not a directory".to_string()),
        ErrorKind::IsADirectory => ("generic-file-error", "is a directory".to_string()),
        _ => ("generic-file-error", e.to_string()),
    };
    FileError {
        kind,
        message: format!("{op} {path}: {reason}"),
    }
}

impl DirFs {
    /// Where container path `path` is, once checked.
    fn host(&self, path: &str) -> Result<PathBuf, FileError> {
        checked(path)?;
        Ok(self.root.join(path.trim_start_matches('/')))
    }

    /// Give `path` to `owner` when running as root; as anyone else the
    /// owner is accepted and ignored (only root may give a file away, and
    /// `sim pebble` serves tests as their own user).
    pub fn chown(&self, path: &str, owner: &Owner) -> Result<(), FileError> {
        // SAFETY: geteuid(2) reads the process's own id; it cannot fail.
        if !owner.is_set() || unsafe { libc::geteuid() } != 0 {
            return Ok(());
        }
        let host = self.host(path)?;
        let uid = match (owner.user_id, &owner.user) {
            (Some(id), _) => Some(id),
            (None, Some(name)) => {
                Some(account_id(name, true).ok_or_else(|| owner_not_found(name, true))?)
            }
            (None, None) => None,
        };
        let gid = match (owner.group_id, &owner.group) {
            (Some(id), _) => Some(id),
            (None, Some(name)) => {
                Some(account_id(name, false).ok_or_else(|| owner_not_found(name, false))?)
            }
            (None, None) => None,
        };
        std::os::unix::fs::chown(&host, uid, gid).map_err(|e| io_error("chown", path, &e))
    }

    pub fn write(
        &self,
        path: &str,
        bytes: &[u8],
        make_dirs: bool,
        mode: u32,
    ) -> Result<(), FileError> {
        let host = self.host(path)?;
        let dir = parent(path);
        if make_dirs {
            self.make_all(dir, DIR_MODE)?;
        } else if !self.host(dir)?.exists() {
            // Pebble's words: it writes a temporary file beside the target.
            return Err(FileError {
                kind: "not-found",
                message: format!(
                    "createtemp {}/{}.*~: no such file or directory",
                    dir.trim_end_matches('/'),
                    name(path)
                ),
            });
        }
        let write = || -> std::io::Result<()> {
            use std::io::Write as _;
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(mode)
                .open(&host)?;
            file.write_all(bytes)?;
            // An existing file keeps its mode through open(2): set it.
            file.set_permissions(std::fs::Permissions::from_mode(mode))
        };
        write().map_err(|e| io_error("open", path, &e))
    }

    pub fn read(&self, path: &str) -> Result<Vec<u8>, FileError> {
        let host = self.host(path)?;
        match std::fs::metadata(&host) {
            Ok(m) if m.is_dir() => Err(FileError {
                kind: "generic-file-error",
                message: format!("can only read a regular file: \"{path}\""),
            }),
            Ok(_) => std::fs::read(&host).map_err(|e| io_error("open", path, &e)),
            Err(e) => Err(io_error("stat", path, &e)),
        }
    }

    fn entry(path: &str, host: &Path) -> Result<Entry, FileError> {
        let meta = std::fs::symlink_metadata(host).map_err(|e| io_error("stat", path, &e))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        Ok(Entry {
            path: path.to_string(),
            name: if path == "/" { "/" } else { name(path) }.to_string(),
            dir: meta.is_dir(),
            size: meta.is_file().then_some(meta.len()),
            mode: meta.mode() & 0o7777,
            stat: Some(Stat {
                modified: crate::show::utc(modified),
                user_id: meta.uid(),
                group_id: meta.gid(),
            }),
        })
    }

    /// A directory's entries (or the directory itself with `itself`), or
    /// the file itself.
    pub fn list(&self, path: &str, itself: bool) -> Result<Vec<Entry>, FileError> {
        let host = self.host(path)?;
        let entry = Self::entry(path, &host)?;
        if !entry.dir || itself {
            return Ok(vec![entry]);
        }
        let names = std::fs::read_dir(&host).map_err(|e| io_error("open", path, &e))?;
        let mut names: Vec<String> = names
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let base = if path == "/" { "" } else { path };
        names
            .iter()
            .map(|n| Self::entry(&format!("{base}/{n}"), &host.join(n)))
            .collect()
    }

    /// Make `path` with `mode` exactly (whatever the umask), and with
    /// `make_parents` its missing parents with the same mode, as Pebble
    /// makes them; an existing directory is left as it is.
    pub fn make_dir(&self, path: &str, make_parents: bool, mode: u32) -> Result<(), FileError> {
        let host = self.host(path)?;
        if make_parents {
            return self.make_all(path, mode);
        }
        if !host.exists() && !self.host(parent(path))?.is_dir() {
            return Err(FileError {
                kind: "not-found",
                message: format!("mkdir {path}.mkdir-new: no such file or directory"),
            });
        }
        Self::make_one(path, &host, mode)
    }

    fn make_one(path: &str, host: &Path, mode: u32) -> Result<(), FileError> {
        std::fs::create_dir(host).map_err(|e| io_error("mkdir", path, &e))?;
        std::fs::set_permissions(host, std::fs::Permissions::from_mode(mode))
            .map_err(|e| io_error("chmod", path, &e))
    }

    /// `dir` and its missing ancestors, each made with `mode`.
    fn make_all(&self, dir: &str, mode: u32) -> Result<(), FileError> {
        let host = self.host(dir)?;
        match std::fs::metadata(&host) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(generic(format!("mkdir {dir}: not a directory")));
            }
            Err(_) => {}
        }
        if dir != "/" {
            self.make_all(parent(dir), mode)?;
        }
        Self::make_one(dir, &host, mode)
    }

    pub fn remove(&self, path: &str, recursive: bool) -> Result<(), FileError> {
        let host = self.host(path)?;
        if path == "/" {
            return Err(FileError {
                kind: "generic-file-error",
                message: "cannot remove /".into(),
            });
        }
        let meta = std::fs::symlink_metadata(&host).map_err(|e| io_error("remove", path, &e))?;
        let removed = match (meta.is_dir(), recursive) {
            (true, true) => std::fs::remove_dir_all(&host),
            (true, false) => std::fs::remove_dir(&host),
            (false, _) => std::fs::remove_file(&host),
        };
        removed.map_err(|e| io_error("remove", path, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_is_the_containers_root() {
        let dir = tempfile::tempdir().unwrap();
        let fs = DirFs {
            root: dir.path().to_path_buf(),
        };
        let e = fs.write("/etc/web/a", b"a", false, 0o600).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                "not-found",
                "createtemp /etc/web/a.*~: no such file or directory"
            )
        );
        let e = fs.make_dir("/srv/x", false, 0o755).unwrap_err();
        assert_eq!(
            e.message,
            "mkdir /srv/x.mkdir-new: no such file or directory"
        );
        fs.write("/etc/web/a", b"a", true, 0o600).unwrap();
        assert_eq!(std::fs::read(dir.path().join("etc/web/a")).unwrap(), b"a");
        assert_eq!(fs.read("/etc/web/a").unwrap(), b"a");
        assert_eq!(fs.read("/etc").unwrap_err().kind, "generic-file-error");
        let listed = fs.list("/etc/web", false).unwrap();
        assert_eq!(
            (listed[0].path.as_str(), listed[0].mode, listed[0].size),
            ("/etc/web/a", 0o600, Some(1))
        );
        let root: Vec<String> = fs
            .list("/", false)
            .unwrap()
            .into_iter()
            .map(|e| e.path)
            .collect();
        assert_eq!(root, ["/etc"]);
        let e = fs.list("/nowhere", false).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            ("not-found", "stat /nowhere: no such file or directory")
        );
        assert!(fs.read("/../x").is_err(), "no path leaves the root");
        fs.make_dir("/var/x/y", true, 0o700).unwrap();
        let var = fs.list("/var", true).unwrap();
        assert_eq!(var[0].mode, 0o700, "parents made with the mode asked");
        assert_eq!(
            fs.make_dir("/var/x/y", false, 0o755).unwrap_err().kind,
            "generic-file-error"
        );
        assert!(fs.remove("/etc", false).is_err());
        fs.remove("/etc", true).unwrap();
        assert!(!dir.path().join("etc").exists());
        assert!(fs.remove("/", true).is_err());
    }
}
