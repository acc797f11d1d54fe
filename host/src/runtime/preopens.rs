//! The declared directories (`workload.files`, DESIGN §12) as WASI preopens
//! of a handler's instance: each at its declared path for the guest, opened
//! from the same path under the [`WorkloadRoot`], read-only or read-write as
//! declared. WASI resolves every guest path inside one of them, so `..`, an
//! absolute path elsewhere and a symlink pointing out are refused by
//! construction; a read-only one refuses every change (create, write,
//! truncate, rename, link, remove, metadata).
//!
//! A declared directory missing on the machine: a read-write one is created
//! (with its missing parents), since the grant already lets the charm
//! create anything inside it and its own data directory would otherwise
//! need a grant of the parent; a read-only one is skipped with a warning in
//! the unit log, since a package may create it later (the next handler's
//! instance gets it). Anything else that keeps a directory from opening (a
//! file at its path, no permission) fails the handler: the machine is not
//! what the charm declares.
//!
//! Only handler instances get these; `declare`'s instance and `inspect`'s
//! get none. Nothing is opened before an instance is built, so an event no
//! handler observes (the warm update-status) pays nothing for them.

use crate::bindings::model::LogLevel;
use crate::charm_dir::{Access, FileGrant, overlap};
use crate::model::Model;
use crate::workload_root::WorkloadRoot;
use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// One event's declared directories, resolved against the root.
#[derive(Debug, Default)]
pub struct Preopens {
    dirs: Vec<Preopen>,
    /// The charm directory no grant may reach, as given (absolute).
    charm_dir: PathBuf,
    /// Missing read-only directories already reported this event: one
    /// warning per event, not one per handler.
    reported: Mutex<BTreeSet<PathBuf>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Preopen {
    /// What the guest names it: the declared path.
    guest: String,
    /// Where it is on the host: the declared path under the root.
    host: PathBuf,
    access: Access,
}

/// What granting the directories to one instance told the operator.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// Directories created (read-write, missing): for `juju-log` at INFO.
    pub created: Vec<String>,
    /// Directories skipped (read-only, missing): for `juju-log` at WARNING.
    pub skipped: Vec<String>,
}

impl Notes {
    /// Tell the unit log.
    pub fn log(self, model: &mut Model) {
        for line in self.created {
            model.log(LogLevel::Info, &line);
        }
        for line in self.skipped {
            model.log(LogLevel::Warning, &line);
        }
    }
}

impl Preopens {
    /// The grants of `workload.files`, under `root`, for the charm in
    /// `charm_dir` (absolute). Pure: no I/O.
    ///
    /// A grant that would hold the charm directory, or lie inside it, is
    /// refused: the directory is Juju's and the host's (the component, the
    /// artifacts, every handler's stored data), and no handler may change
    /// it behind the host. The manifest's own check refuses Juju's agents'
    /// directory wherever a unit's charm is; this one is for a charm
    /// directory elsewhere, or a workload root that puts a grant over it.
    pub fn new(
        grants: &[FileGrant],
        root: &WorkloadRoot,
        charm_dir: &Path,
    ) -> Result<Preopens, String> {
        let dirs = grants
            .iter()
            .map(|g| {
                let guest = g.path.to_str().ok_or_else(|| {
                    format!(
                        "workload.files: `{}` is not UTF-8, which a WASI guest cannot name",
                        g.path.display()
                    )
                })?;
                let host = root.host_path(&g.path).ok_or_else(|| {
                    format!(
                        "workload.files: `{}` is not an absolute, normal path",
                        g.path.display()
                    )
                })?;
                if let Some(relation) = overlap(&host, charm_dir) {
                    return Err(format!(
                        "workload.files: `{guest}` ({}, at {}) {relation} the charm directory \
                         {}, which only Juju and wasm-charm change (the handlers' stored data \
                         is there); declare the directories the workload uses",
                        g.access.as_str(),
                        host.display(),
                        charm_dir.display()
                    ));
                }
                Ok(Preopen {
                    guest: guest.to_string(),
                    host,
                    access: g.access,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Preopens {
            dirs,
            charm_dir: charm_dir.to_path_buf(),
            reported: Mutex::default(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// Preopen every declared directory in `wasi`, creating a missing
    /// read-write one and skipping a missing read-only one. `Err`: a
    /// directory that exists, or was to be created, could not be opened;
    /// the message names it, for the handler's failure.
    pub fn grant(&self, wasi: &mut WasiCtxBuilder) -> Result<Notes, String> {
        let mut notes = Notes::default();
        if self.dirs.is_empty() {
            return Ok(notes);
        }
        // Blocking WASI calls run on the handler's own thread, which the
        // deadline already watches, rather than hopping to a thread pool.
        wasi.allow_blocking_current_thread(true);
        let charm = resolve(&self.charm_dir).unwrap_or_else(|| self.charm_dir.clone());
        for dir in &self.dirs {
            let perms = match dir.access {
                Access::Read => FsPerms::ReadOnly,
                Access::ReadWrite => FsPerms::ReadWrite,
            };
            check_resolved(dir, &charm)?;
            let Err(error) = wasi.preopened_dir(&dir.host, &dir.guest, perms).map(|_| ()) else {
                continue;
            };
            let missing = error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == ErrorKind::NotFound);
            match (missing, dir.access) {
                (true, Access::Read) => {
                    let first = self
                        .reported
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(dir.host.clone());
                    if first {
                        notes.skipped.push(format!(
                            "workload.files: `{}` (read) is not on this machine ({} is \
                             missing); the handlers of this event do not get it",
                            dir.guest,
                            dir.host.display()
                        ));
                    }
                }
                (true, Access::ReadWrite) => {
                    std::fs::create_dir_all(&dir.host)
                        .map_err(|e| self.cannot(dir, "create", &e.to_string()))?;
                    wasi.preopened_dir(&dir.host, &dir.guest, perms)
                        .map_err(|e| self.cannot(dir, "open", &format!("{e:#}")))?;
                    notes.created.push(format!(
                        "workload.files: created `{}` (read-write, was missing) at {}",
                        dir.guest,
                        dir.host.display()
                    ));
                }
                (false, _) => return Err(self.cannot(dir, "open", &format!("{error:#}"))),
            }
        }
        Ok(notes)
    }

    fn cannot(&self, dir: &Preopen, what: &str, why: &str) -> String {
        format!(
            "could not be given its declared directory `{}` ({}, workload.files in \
             wasm-charm.yaml): cannot {what} {}: {why}",
            dir.guest,
            dir.access.as_str(),
            dir.host.display()
        )
    }
}

/// A declared directory reached through a symbolic link (one a package, an
/// operator or a declared command made) may be the charm directory after
/// all, which `Preopens::new` could only check by name: the path is
/// resolved as the preopen will open it, and refused against `charm` (the
/// charm directory, resolved) the same way, before anything is created: a
/// missing directory by its nearest existing parent.
fn check_resolved(dir: &Preopen, charm: &Path) -> Result<(), String> {
    let Some(real) = resolve(&dir.host) else {
        return Ok(());
    };
    let Some(relation) = overlap(&real, charm) else {
        return Ok(());
    };
    Err(format!(
        "could not be given its declared directory `{}` ({}, workload.files in \
         wasm-charm.yaml): {} resolves to {}, which {relation} the charm directory {}, \
         which only Juju and wasm-charm change",
        dir.guest,
        dir.access.as_str(),
        dir.host.display(),
        real.display(),
        charm.display()
    ))
}

/// `path` with every symbolic link resolved, as far as it exists, and the
/// rest of it appended as named; `None` when not even `/` resolves.
fn resolve(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(mut real) = std::fs::canonicalize(existing) {
            real.extend(rest.iter().rev());
            return Some(real);
        }
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A charm directory apart from every root of these tests.
    fn unit_charm() -> &'static Path {
        Path::new("/var/lib/juju/agents/unit-web-0/charm")
    }

    fn grant(path: &str, access: Access) -> FileGrant {
        FileGrant {
            path: path.into(),
            access,
        }
    }

    #[test]
    fn each_grant_maps_under_the_root_at_its_declared_path() {
        let root = WorkloadRoot::new("/tmp/r".into()).unwrap();
        let p = Preopens::new(
            &[
                grant("/etc/api", Access::ReadWrite),
                grant("/var/log/api", Access::Read),
            ],
            &root,
            unit_charm(),
        )
        .unwrap();
        assert_eq!(
            p.dirs,
            [
                Preopen {
                    guest: "/etc/api".into(),
                    host: "/tmp/r/etc/api".into(),
                    access: Access::ReadWrite
                },
                Preopen {
                    guest: "/var/log/api".into(),
                    host: "/tmp/r/var/log/api".into(),
                    access: Access::Read
                },
            ]
        );
        assert!(Preopens::new(&[], &root, unit_charm()).unwrap().is_empty());
        let e =
            Preopens::new(&[grant("/etc/../x", Access::Read)], &root, unit_charm()).unwrap_err();
        assert!(
            e.contains("`/etc/../x` is not an absolute, normal path"),
            "{e}"
        );
    }

    #[test]
    fn missing_directories_are_created_read_write_and_skipped_read_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
        std::fs::create_dir_all(dir.path().join("etc/present")).unwrap();
        let p = Preopens::new(
            &[
                grant("/etc/present", Access::Read),
                grant("/var/lib/charm/data", Access::ReadWrite),
                grant("/opt/absent", Access::Read),
            ],
            &root,
            unit_charm(),
        )
        .unwrap();
        let notes = p.grant(&mut WasiCtxBuilder::new()).unwrap();
        assert!(dir.path().join("var/lib/charm/data").is_dir());
        assert!(!dir.path().join("opt").exists());
        assert_eq!(notes.created.len(), 1, "{notes:?}");
        assert!(
            notes.created[0].contains("`/var/lib/charm/data`"),
            "{notes:?}"
        );
        assert_eq!(notes.skipped.len(), 1, "{notes:?}");
        assert!(
            notes.skipped[0]
                .starts_with("workload.files: `/opt/absent` (read) is not on this machine"),
            "{notes:?}"
        );
        // The next instance of the event: nothing new to say.
        assert_eq!(
            p.grant(&mut WasiCtxBuilder::new()).unwrap(),
            Notes::default()
        );
    }

    #[test]
    fn a_file_where_a_directory_is_declared_fails_the_handler() {
        let dir = tempfile::tempdir().unwrap();
        let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
        std::fs::create_dir(dir.path().join("etc")).unwrap();
        std::fs::write(dir.path().join("etc/conf"), "a file").unwrap();
        for access in [Access::Read, Access::ReadWrite] {
            let p = Preopens::new(&[grant("/etc/conf", access)], &root, unit_charm()).unwrap();
            let e = p.grant(&mut WasiCtxBuilder::new()).unwrap_err();
            let host = Path::new(dir.path()).join("etc/conf");
            assert!(
                e.starts_with(&format!(
                    "could not be given its declared directory `/etc/conf` ({}, workload.files in \
                     wasm-charm.yaml): cannot open {}: ",
                    access.as_str(),
                    host.display()
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn a_grant_over_the_charm_directory_is_refused() {
        let root = WorkloadRoot::new("/srv/units".into()).unwrap();
        let charm = Path::new("/srv/units/charms/web/0");
        for (path, relation) in [
            ("/charms", "holds"),
            ("/charms/web/0", "is"),
            ("/charms/web/0/.wasm-charm", "lies inside"),
        ] {
            for access in [Access::Read, Access::ReadWrite] {
                let e = Preopens::new(&[grant(path, access)], &root, charm).unwrap_err();
                assert_eq!(
                    e,
                    format!(
                        "workload.files: `{path}` ({}, at /srv/units{path}) {relation} the \
                         charm directory /srv/units/charms/web/0, which only Juju and \
                         wasm-charm change (the handlers' stored data is there); declare \
                         the directories the workload uses",
                        access.as_str()
                    )
                );
            }
        }
        // Beside it.
        for path in ["/charms/web/1", "/charms/web/0x", "/etc/web"] {
            let p = Preopens::new(&[grant(path, Access::ReadWrite)], &root, charm).unwrap();
            assert!(!p.is_empty());
        }
    }

    /// A declared directory that is a symbolic link into the charm
    /// directory (or to one of its parents) is refused when an instance is
    /// given it, and so is a missing one created through such a link; one
    /// that leads elsewhere is granted.
    #[test]
    fn a_grant_that_resolves_into_the_charm_directory_is_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let (root, charm) = (dir.path().join("root"), dir.path().join("unit/charm"));
        std::fs::create_dir_all(root.join("opt")).unwrap();
        std::fs::create_dir_all(charm.join(".wasm-charm")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        symlink(charm.join(".wasm-charm"), root.join("opt/state")).unwrap();
        symlink(dir.path().join("unit"), root.join("opt/up")).unwrap();
        symlink(&charm, root.join("opt/via")).unwrap();
        symlink(dir.path().join("elsewhere"), root.join("opt/fine")).unwrap();
        let root = WorkloadRoot::new(root).unwrap();
        for (path, relation) in [
            ("/opt/state", "lies inside"),
            ("/opt/up", "holds"),
            ("/opt/via/made", "lies inside"),
        ] {
            let p = Preopens::new(&[grant(path, Access::ReadWrite)], &root, &charm).unwrap();
            let e = p.grant(&mut WasiCtxBuilder::new()).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "could not be given its declared directory `{path}` (read-write, \
                     workload.files in wasm-charm.yaml): {}{path} resolves to ",
                    root.path().display()
                )) && e.contains(&format!(
                    "which {relation} the charm directory {}",
                    std::fs::canonicalize(&charm).unwrap().display()
                )),
                "{path}: {e}"
            );
        }
        // Refused before anything was made through the link.
        assert!(!charm.join("made").exists());
        let p = Preopens::new(&[grant("/opt/fine", Access::ReadWrite)], &root, &charm).unwrap();
        p.grant(&mut WasiCtxBuilder::new()).unwrap();
    }
}
