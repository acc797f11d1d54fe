//! The simulated container's file system, as Pebble's `/v1/files` acts on
//! a real one: paths absolute and clean, a parent that must exist unless
//! asked to make it, errors with Pebble's kinds (`not-found`,
//! `generic-file-error`).

pub use super::state::Owner;
use super::state::{DIR_MODE, clean_path};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A per-path error of `/v1/files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub kind: &'static str,
    pub message: String,
}

pub fn not_found(path: &str) -> FileError {
    FileError {
        kind: "not-found",
        message: format!("stat {path}: no such file or directory"),
    }
}

pub fn generic(message: String) -> FileError {
    FileError {
        kind: "generic-file-error",
        message,
    }
}

/// A request item's `permissions` as Pebble reads them: three octal
/// digits (so no setuid, setgid or sticky bit), `default` when absent.
pub fn permissions_of(item: &Value, default: u32) -> Result<u32, FileError> {
    let text = match item.get("permissions") {
        None | Some(Value::Null) => return Ok(default),
        Some(Value::String(s)) if s.is_empty() => return Ok(default),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    match u32::from_str_radix(&text, 8) {
        Ok(mode) if text.len() == 3 => Ok(mode),
        _ => Err(generic(format!(
            "permissions must be a 3-digit octal string, got {text:?}"
        ))),
    }
}

/// Go's words for a name `os/user` does not find, which Pebble passes on.
pub fn unknown_account(name: &str, user: bool) -> String {
    if user {
        format!("user: unknown user {name}")
    } else {
        format!("group: unknown group {name}")
    }
}

/// Pebble's words for a push or make-dir whose owner it cannot find.
pub fn owner_not_found(name: &str, user: bool) -> FileError {
    generic(format!(
        "cannot look up user and group: {}",
        unknown_account(name, user)
    ))
}

/// Longest user or group name taken.
const MAX_NAME: usize = 256;

/// The owner an item of a files request names (`user`, `user-id`,
/// `group`, `group-id`), or Pebble's refusal.
pub fn owner_of(item: &Value) -> Result<Owner, FileError> {
    let id = |k: &str| -> Result<Option<u32>, FileError> {
        match item.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| generic(format!("invalid {k}"))),
        }
    };
    let name = |k: &str| -> Result<Option<String>, FileError> {
        match item.get(k).and_then(Value::as_str) {
            None | Some("") => Ok(None),
            Some(n) if n.len() > MAX_NAME => Err(generic(format!("{k} too long"))),
            Some(n) => Ok(Some(n.to_string())),
        }
    };
    let owner = Owner {
        user_id: id("user-id")?,
        user: name("user")?,
        group_id: id("group-id")?,
        group: name("group")?,
    };
    // As Pebble: a group needs a user.
    if owner.user_id.is_none()
        && owner.user.is_none()
        && (owner.group_id.is_some() || owner.group.is_some())
    {
        return Err(generic("cannot set group without user".into()));
    }
    Ok(owner)
}

impl Fs {
    /// The user or group name of `owner` the container does not have, if
    /// any: a simulated container knows the accounts its `/etc/passwd`
    /// and `/etc/group` list, and takes any name when the state gave it
    /// no such file (it cannot know the image's).
    pub fn unknown_name(&self, user: Option<&str>, group: Option<&str>) -> Option<(String, bool)> {
        let lacks = |file: &str, name: &str| {
            self.files.get(file).is_some_and(|(text, _)| {
                !String::from_utf8_lossy(text)
                    .lines()
                    .any(|l| l.split(':').next() == Some(name))
            })
        };
        if let Some(u) = user.filter(|u| lacks("/etc/passwd", u)) {
            return Some((u.to_string(), true));
        }
        group
            .filter(|g| lacks("/etc/group", g))
            .map(|g| (g.to_string(), false))
    }
}

/// One entry of a listing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub name: String,
    pub dir: bool,
    pub size: Option<u64>,
    pub mode: u32,
    /// A real file's time and owner; `None` in memory (the event's time,
    /// root's).
    pub stat: Option<Stat>,
}

/// When a real file was last modified, and whose it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stat {
    pub modified: String,
    pub user_id: u32,
    pub group_id: u32,
}

/// Files by path with their mode, and directories; every ancestor of an
/// entry is a directory too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fs {
    pub files: BTreeMap<String, (Vec<u8>, u32)>,
    pub dirs: BTreeSet<String>,
    /// The directories whose mode is not [`DIR_MODE`].
    pub dir_modes: BTreeMap<String, u32>,
}

/// Pebble's words when `path`'s directory is missing: a push writes a
/// temporary file beside it, a make-dir makes `<path>.mkdir-new` first.
fn missing_parent(path: &str, make_dir: bool) -> FileError {
    let message = if make_dir {
        format!("mkdir {path}.mkdir-new: no such file or directory")
    } else {
        format!(
            "createtemp {}/{}.*~: no such file or directory",
            parent(path).trim_end_matches('/'),
            name(path)
        )
    };
    FileError {
        kind: "not-found",
        message,
    }
}

pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

pub fn name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `path` is `dir` or below it.
fn under(path: &str, dir: &str) -> bool {
    dir == "/" || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// A path as Pebble takes it: absolute and clean.
pub fn checked(path: &str) -> Result<(), FileError> {
    if clean_path(path) {
        Ok(())
    } else {
        Err(generic(format!(
            "paths must be absolute and clean, got \"{path}\""
        )))
    }
}

impl Fs {
    /// The file system the state describes, every ancestor made explicit.
    pub fn new(
        files: BTreeMap<String, (Vec<u8>, u32)>,
        dirs: BTreeSet<String>,
        dir_modes: BTreeMap<String, u32>,
    ) -> Fs {
        let mut dirs = dirs;
        dirs.extend(dir_modes.keys().cloned());
        let mut fs = Fs {
            files,
            dirs,
            dir_modes: dir_modes
                .into_iter()
                .filter(|(_, m)| *m != DIR_MODE)
                .collect(),
        };
        let mut ancestors = BTreeSet::new();
        for path in fs.files.keys().chain(&fs.dirs) {
            let mut p = parent(path);
            while p != "/" {
                ancestors.insert(p.to_string());
                p = parent(p);
            }
        }
        fs.dirs.extend(ancestors);
        fs.dirs.remove("/");
        fs
    }

    pub fn is_dir(&self, path: &str) -> bool {
        path == "/" || self.dirs.contains(path)
    }

    /// Make `dir` and its missing ancestors, each with `mode`; a file in
    /// the way refuses.
    fn make_all(&mut self, dir: &str, mode: u32) -> Result<(), FileError> {
        let mut p = dir;
        let mut missing = Vec::new();
        while !self.is_dir(p) {
            if self.files.contains_key(p) {
                return Err(generic(format!("mkdir {dir}: {p} is not a directory")));
            }
            missing.push(p.to_string());
            p = parent(p);
        }
        for dir in missing {
            if mode != DIR_MODE {
                self.dir_modes.insert(dir.clone(), mode);
            }
            self.dirs.insert(dir);
        }
        Ok(())
    }

    /// A parent that exists, or is made (with `mode`) when `make` is
    /// given; `make_dir`: for a make-dir rather than a push.
    fn parent_ready(
        &mut self,
        path: &str,
        make: Option<u32>,
        make_dir: bool,
    ) -> Result<(), FileError> {
        let dir = parent(path);
        if self.is_dir(dir) {
            return Ok(());
        }
        if self.files.contains_key(dir) {
            return Err(generic(format!("{path}: {dir} is not a directory")));
        }
        match make {
            Some(mode) => self.make_all(dir, mode),
            None => Err(missing_parent(path, make_dir)),
        }
    }

    pub fn write(
        &mut self,
        path: &str,
        bytes: Vec<u8>,
        make_dirs: bool,
        mode: u32,
    ) -> Result<(), FileError> {
        checked(path)?;
        if self.is_dir(path) {
            return Err(generic(format!("open {path}: is a directory")));
        }
        self.parent_ready(path, make_dirs.then_some(DIR_MODE), false)?;
        self.files.insert(path.to_string(), (bytes, mode));
        Ok(())
    }

    pub fn read(&self, path: &str) -> Result<&[u8], FileError> {
        checked(path)?;
        match self.files.get(path) {
            Some((bytes, _)) => Ok(bytes),
            None if self.is_dir(path) => {
                Err(generic(format!("can only read a regular file: \"{path}\"")))
            }
            None => Err(not_found(path)),
        }
    }

    fn entry(&self, path: &str) -> Option<Entry> {
        if let Some((bytes, mode)) = self.files.get(path) {
            return Some(Entry {
                path: path.to_string(),
                name: name(path).to_string(),
                dir: false,
                size: Some(bytes.len() as u64),
                mode: *mode,
                stat: None,
            });
        }
        self.is_dir(path).then(|| Entry {
            path: path.to_string(),
            name: if path == "/" { "/" } else { name(path) }.to_string(),
            dir: true,
            size: None,
            mode: self.dir_modes.get(path).copied().unwrap_or(DIR_MODE),
            stat: None,
        })
    }

    /// A directory's entries (or the directory itself with `itself`), or
    /// the file itself.
    pub fn list(&self, path: &str, itself: bool) -> Result<Vec<Entry>, FileError> {
        checked(path)?;
        let entry = self.entry(path).ok_or_else(|| not_found(path))?;
        if !entry.dir || itself {
            return Ok(vec![entry]);
        }
        let children = self
            .files
            .keys()
            .chain(&self.dirs)
            .filter(|p| *p != path && parent(p) == path)
            .filter_map(|p| self.entry(p));
        let mut out: Vec<Entry> = children.collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Make `path` with `mode`, its missing parents too (each with `mode`,
    /// as Pebble makes them) with `make_parents`.
    pub fn make_dir(&mut self, path: &str, make_parents: bool, mode: u32) -> Result<(), FileError> {
        checked(path)?;
        if self.files.contains_key(path) {
            return Err(generic(format!("mkdir {path}: file exists")));
        }
        if self.is_dir(path) {
            return if make_parents {
                Ok(())
            } else {
                Err(generic(format!("mkdir {path}: file exists")))
            };
        }
        self.parent_ready(path, make_parents.then_some(mode), true)?;
        self.make_all(path, mode)
    }

    pub fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FileError> {
        checked(path)?;
        if path == "/" {
            return Err(generic("cannot remove /".into()));
        }
        if self.files.remove(path).is_some() {
            return Ok(());
        }
        // Pebble removes recursively with Go's RemoveAll, which finds
        // nothing to do in a path that is not there.
        if !self.is_dir(path) {
            return if recursive {
                Ok(())
            } else {
                Err(not_found(path))
            };
        }
        let below = |p: &String| p != path && under(p, path);
        let busy = self.files.keys().any(below) || self.dirs.iter().any(below);
        if busy && !recursive {
            return Err(generic(format!("remove {path}: directory not empty")));
        }
        self.files.retain(|p, _| !under(p, path));
        self.dirs.retain(|p| !under(p, path));
        self.dir_modes.retain(|p, _| !under(p, path));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_live_in_directories_that_exist() {
        let mut fs = Fs::new(
            BTreeMap::from([("/etc/web/a".to_string(), (b"a".to_vec(), 0o644))]),
            BTreeSet::new(),
            BTreeMap::new(),
        );
        assert!(fs.is_dir("/etc") && fs.is_dir("/etc/web"));
        assert_eq!(fs.read("/etc/web/a"), Ok(b"a".as_slice()));
        assert_eq!(fs.read("/etc/web/b").unwrap_err().kind, "not-found");
        assert_eq!(fs.read("/etc").unwrap_err().kind, "generic-file-error");
        let e = fs.write("/srv/x/y", vec![], false, 0o644).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                "not-found",
                "createtemp /srv/x/y.*~: no such file or directory"
            )
        );
        fs.write("/srv/x/y", b"yy".to_vec(), true, 0o600).unwrap();
        assert!(fs.is_dir("/srv/x"));
        assert!(fs.write("/etc/web/a/z", vec![], true, 0o644).is_err());
        assert!(fs.write("/etc", vec![], true, 0o644).is_err());
        assert!(fs.write("etc/b", vec![], true, 0o644).is_err());
        let listed = fs.list("/etc/web", false).unwrap();
        assert_eq!(
            listed,
            [Entry {
                path: "/etc/web/a".into(),
                name: "a".into(),
                dir: false,
                size: Some(1),
                mode: 0o644,
                stat: None,
            }]
        );
        let root: Vec<String> = fs
            .list("/", false)
            .unwrap()
            .into_iter()
            .map(|e| e.path)
            .collect();
        assert_eq!(root, ["/etc", "/srv"]);
        assert!(fs.list("/etc", true).unwrap()[0].dir);
        assert_eq!(fs.list("/nope", false).unwrap_err().kind, "not-found");
    }

    #[test]
    fn directories_are_made_and_removed_as_pebble_does() {
        let mut fs = Fs::default();
        assert_eq!(
            fs.make_dir("/a/b", false, 0o755).unwrap_err().kind,
            "not-found"
        );
        fs.make_dir("/a/b", true, 0o755).unwrap();
        fs.make_dir("/a/b", true, 0o755).unwrap();
        assert!(fs.make_dir("/a/b", false, 0o755).is_err());
        fs.write("/a/b/f", b"f".to_vec(), false, 0o644).unwrap();
        let e = fs.remove("/a", false).unwrap_err();
        assert!(e.message.contains("not empty"), "{e:?}");
        fs.remove("/a/b/f", false).unwrap();
        assert!(fs.is_dir("/a/b"));
        fs.write("/a/b/f", b"f".to_vec(), false, 0o644).unwrap();
        fs.remove("/a", true).unwrap();
        assert_eq!(fs, Fs::default());
        // Gone already: the recursive remove has nothing to do, the plain
        // one names the path as not found, as Pebble's do.
        fs.remove("/a", true).unwrap();
        assert_eq!(fs.remove("/a", false).unwrap_err().kind, "not-found");
        assert!(fs.remove("/", true).is_err());
        // `/ab` is not under `/a`.
        fs.write("/ab", vec![], false, 0o644).unwrap();
        fs.make_dir("/a", false, 0o755).unwrap();
        fs.remove("/a", true).unwrap();
        assert!(fs.files.contains_key("/ab"));
    }

    #[test]
    fn modes_are_pebbles_three_octal_digits_and_made_parents_share_them() {
        let item = |p: &str| serde_json::json!({ "permissions": p });
        assert_eq!(permissions_of(&item("600"), 0o644), Ok(0o600));
        assert_eq!(permissions_of(&serde_json::json!({}), 0o644), Ok(0o644));
        assert_eq!(permissions_of(&item(""), 0o755), Ok(0o755));
        for bad in ["4755", "0755", "75", "78x"] {
            let e = permissions_of(&item(bad), 0o644).unwrap_err();
            assert_eq!(
                (e.kind, e.message),
                (
                    "generic-file-error",
                    format!("permissions must be a 3-digit octal string, got {bad:?}")
                )
            );
        }
        let mut fs = Fs::default();
        let e = fs.make_dir("/srv/data", false, 0o700).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                "not-found",
                "mkdir /srv/data.mkdir-new: no such file or directory"
            )
        );
        fs.make_dir("/srv/data/cache", true, 0o700).unwrap();
        fs.write("/var/a/f", vec![], true, 0o600).unwrap();
        let mode = |fs: &Fs, p: &str| fs.list(p, true).unwrap()[0].mode;
        assert_eq!(mode(&fs, "/srv"), 0o700);
        assert_eq!(mode(&fs, "/srv/data/cache"), 0o700);
        assert_eq!((mode(&fs, "/var/a"), mode(&fs, "/var/a/f")), (0o755, 0o600));
        fs.remove("/srv", true).unwrap();
        assert!(fs.dir_modes.is_empty());
    }
}
