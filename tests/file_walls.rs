//! The walls of the declared directories (DESIGN §12): the packed
//! `tests/guests/file-walls` charm run as Juju runs it, its declared
//! directories under a workload root of the test's own (`WASM_CHARM_ROOT`),
//! never the machine's `/etc`. Handler `walls` reads and writes inside the
//! read-write directory and tries every way out — an undeclared path, `..`,
//! absolute paths elsewhere, symlinks planted here pointing out, changes in
//! the read-only directory, renames and links out — storing each outcome;
//! the test checks each one, and that nothing outside the declared
//! directories changed: file lists, contents, modes and mtimes of the whole
//! root and of a sibling directory, before and after.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use crate::support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt as _, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;
use support::{Unit, assert_failure, assert_success, offline_run, packed};

const FILE_WALLS: &str = "tests/guests/file-walls";

/// A workload root and a directory beside it, in a temporary directory of
/// the test's own.
struct Machine {
    tmp: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            tmp: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// `WASM_CHARM_ROOT`.
    fn root(&self) -> PathBuf {
        self.tmp.path().join("root")
    }

    /// A directory beside the root, which no declared path names.
    fn outside(&self) -> PathBuf {
        self.tmp.path().join("outside")
    }

    /// The declared directories and what lies around them: the read-write
    /// one with a file and four symlinks pointing out (to a file and a
    /// directory beside the root, to a file of the root beside the grant,
    /// by absolute and relative targets), the read-only one with a file, an
    /// undeclared file beside them, and the sibling directory's files.
    fn plant(&self) {
        let (root, outside) = (self.root(), self.outside());
        let rw = root.join("etc/walls/rw");
        for dir in [
            rw.clone(),
            root.join("etc/walls/ro"),
            root.join("srv/walls/created"),
            outside.join("outside-dir"),
        ] {
            fs::create_dir_all(&dir).expect("create a directory");
        }
        for (file, text) in [
            (rw.join("config"), "original"),
            (root.join("etc/walls/ro/file"), "read-only"),
            (root.join("etc/walls/secret"), "secret"),
            (root.join("etc/passwd"), "root:x:0:0::/root:/bin/sh"),
            (outside.join("outside-file"), "outside"),
            (outside.join("outside-dir/inner"), "inner"),
        ] {
            fs::write(&file, text).expect("write a file");
        }
        for (link, target) in [
            ("link-file", outside.join("outside-file")),
            ("link-dir", PathBuf::from("../../../../outside/outside-dir")),
            ("link-up", PathBuf::from("../secret")),
            ("link-absolute", root.join("etc/walls/secret")),
        ] {
            symlink(&target, rw.join(link)).expect("plant a symlink");
        }
        // The relative links resolve where they are meant to, on the host.
        assert_eq!(
            fs::read_to_string(rw.join("link-dir/inner")).unwrap(),
            "inner"
        );
        assert_eq!(fs::read_to_string(rw.join("link-up")).unwrap(), "secret");
    }

    /// Everything under the temporary directory, the root and the sibling
    /// alike, by path relative to it.
    fn snapshot(&self) -> BTreeMap<PathBuf, Entry> {
        let mut entries = BTreeMap::new();
        walk(self.tmp.path(), self.tmp.path(), &mut entries);
        entries
    }
}

/// What a file-system entry is, as far as a change would show.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    kind: &'static str,
    mode: u32,
    mtime_ns: (i64, i64),
    /// A file's bytes, a symlink's target; nothing for a directory.
    content: Vec<u8>,
}

fn walk(base: &Path, dir: &Path, entries: &mut BTreeMap<PathBuf, Entry>) {
    for entry in fs::read_dir(dir).expect("read a directory") {
        let path = entry.expect("a directory entry").path();
        let meta = fs::symlink_metadata(&path).expect("stat");
        let (kind, content) = if meta.file_type().is_symlink() {
            let target = fs::read_link(&path).expect("read a link");
            ("symlink", target.into_os_string().into_encoded_bytes())
        } else if meta.is_dir() {
            ("dir", Vec::new())
        } else {
            ("file", fs::read(&path).expect("read a file"))
        };
        let relative = path.strip_prefix(base).expect("under base").to_path_buf();
        entries.insert(
            relative,
            Entry {
                kind,
                mode: meta.mode(),
                mtime_ns: (meta.mtime(), meta.mtime_nsec()),
                content,
            },
        );
        if kind == "dir" {
            walk(base, &path, entries);
        }
    }
}

/// A unit of the packed file-walls charm, config `outside` naming the
/// sibling directory.
fn unit(machine: &Machine) -> Unit {
    let unit = Unit::on_simulator(&packed(FILE_WALLS), "file-walls/0");
    let outside = machine.outside().display().to_string();
    unit.update_state(|s| s["config"] = json!({"outside": outside}));
    unit
}

/// Runs `hook` with the machine's root as `WASM_CHARM_ROOT`.
fn dispatch(unit: &Unit, machine: &Machine, hook: &str) -> Output {
    let root = machine.root().display().to_string();
    unit.dispatch_with(&format!("hooks/{hook}"), &[("WASM_CHARM_ROOT", &root)])
}

/// The stored outcomes, `wall/<attempt>` → `ok: …` or `refused: …`.
fn outcomes(unit: &Unit) -> BTreeMap<String, String> {
    let path = unit.charm_dir().join(".wasm-charm/scopes.json");
    let text = fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let store: Value = serde_json::from_slice(&text).expect("the store is JSON");
    store["data"]
        .as_object()
        .map(|data| {
            data.iter()
                .filter_map(|(k, v)| {
                    Some((
                        k.strip_prefix("wall/")?.to_string(),
                        v.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What the guest's `std::fs` says when WASI refuses. A path in no
/// declared directory does not exist for it (wasi-libc finds no preopen to
/// resolve it in: `ENOENT`), though the file is there under the root and on
/// the machine; a path that leaves the declared directory it starts in
/// (`..`, a symlink), and a change the directory's access forbids, are
/// refused by the host (`EPERM`).
const NOT_IN_ANY: &str = "refused: No such file or directory (os error 44)";
const NOT_PERMITTED: &str = "refused: Operation not permitted (os error 63)";

#[test]
fn every_way_out_of_the_declared_directories_is_refused_and_nothing_outside_changes() {
    let machine = Machine::new();
    machine.plant();
    let unit = unit(&machine);
    let before = machine.snapshot();

    let out = dispatch(&unit, &machine, "install");
    assert_success(&out);
    let outcomes = outcomes(&unit);

    let ok = [
        ("rw-read", "ok: read \"original\""),
        ("rw-write", "ok: read \"written\""),
        (
            "rw-mkdir-remove",
            "ok: made, filled, emptied and removed sub",
        ),
        ("rw-rename-inside", "ok: read \"written\""),
        (
            "rw-list",
            "ok: listed [config, link-absolute, link-dir, link-file, link-up, renamed]",
        ),
        ("ro-read", "ok: read \"read-only\""),
        ("ro-list", "ok: listed [file]"),
    ];
    let refused = [
        ("undeclared-read", NOT_IN_ANY),
        ("undeclared-write", NOT_IN_ANY),
        ("undeclared-list", NOT_IN_ANY),
        ("dotdot-read", NOT_PERMITTED),
        ("dotdot-write", NOT_PERMITTED),
        ("dotdot-deep", NOT_PERMITTED),
        ("dotdot-list", NOT_PERMITTED),
        ("absolute-etc", NOT_IN_ANY),
        ("absolute-root-list", NOT_IN_ANY),
        ("absolute-tmp-write", NOT_IN_ANY),
        ("absolute-host-read", NOT_IN_ANY),
        ("absolute-host-write", NOT_IN_ANY),
        ("symlink-file-read", NOT_PERMITTED),
        ("symlink-file-write", NOT_PERMITTED),
        ("symlink-file-append", NOT_PERMITTED),
        ("symlink-dir-list", NOT_PERMITTED),
        ("symlink-dir-read", NOT_PERMITTED),
        ("symlink-dir-write", NOT_PERMITTED),
        ("symlink-up-read", NOT_PERMITTED),
        ("symlink-absolute-read", NOT_PERMITTED),
        ("ro-write", NOT_PERMITTED),
        ("ro-append", NOT_PERMITTED),
        ("ro-create", NOT_PERMITTED),
        ("ro-mkdir", NOT_PERMITTED),
        ("ro-remove", NOT_PERMITTED),
        ("ro-rename", NOT_PERMITTED),
        ("ro-set-len", NOT_PERMITTED),
        ("rename-out-undeclared", NOT_IN_ANY),
        ("rename-out-dotdot", NOT_PERMITTED),
        ("rename-out-to-ro", NOT_PERMITTED),
        ("rename-out-host", NOT_IN_ANY),
        ("rename-in-from-ro", NOT_PERMITTED),
        ("hardlink-ro-into-rw", NOT_PERMITTED),
        ("hardlink-out", NOT_IN_ANY),
        ("absent-list", NOT_IN_ANY),
    ];
    let expected: BTreeMap<String, String> = ok
        .iter()
        .chain(&refused)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(outcomes, expected, "the attempts' outcomes");
    assert_eq!(
        unit.calls_of("status-set"),
        vec![vec![
            "status-set".to_string(),
            "active".into(),
            "--".into(),
            format!("{} attempts", ok.len() + refused.len()),
        ]]
    );

    // Nothing changed outside the read-write directory; inside it, only
    // what the allowed attempts did: `new` renamed `renamed`, the directory's
    // mtime. Every file's content, mode and mtime is as it was.
    let after = machine.snapshot();
    let rw = Path::new("root/etc/walls/rw");
    let outside_rw = |m: &BTreeMap<PathBuf, Entry>| -> BTreeMap<PathBuf, Entry> {
        m.iter()
            .filter(|(p, _)| !p.starts_with(rw))
            .map(|(p, e)| (p.clone(), e.clone()))
            .collect()
    };
    assert_eq!(outside_rw(&after), outside_rw(&before), "outside the grant");
    let inside = |m: &BTreeMap<PathBuf, Entry>| -> Vec<PathBuf> {
        m.keys().filter(|p| p.starts_with(rw)).cloned().collect()
    };
    let mut expected_inside = inside(&before);
    expected_inside.push(rw.join("renamed"));
    expected_inside.sort();
    assert_eq!(inside(&after), expected_inside);
    for (path, entry) in &before {
        if path.starts_with(rw) && path != rw {
            assert_eq!(after.get(path), Some(entry), "{} changed", path.display());
        }
    }
    assert_eq!(after[&rw.join("renamed")].content, b"written");

    // The read-only directory the machine lacks: skipped, said once.
    let warnings: Vec<String> = unit
        .debug_log()
        .lines()
        .filter(|l| l.starts_with("WARNING workload.files: `/opt/walls/absent`"))
        .map(str::to_string)
        .collect();
    assert_eq!(warnings.len(), 1, "debug log:\n{}", unit.debug_log());
    assert!(
        warnings[0].contains("(read) is not on this machine"),
        "{warnings:?}"
    );
}

#[test]
fn a_missing_read_write_directory_is_created_and_a_missing_read_only_one_skipped() {
    let machine = Machine::new();
    fs::create_dir_all(machine.root()).unwrap();
    fs::create_dir_all(machine.outside()).unwrap();
    fs::write(machine.outside().join("outside-file"), "outside").unwrap();
    let unit = unit(&machine);
    let outside_before = machine.snapshot();

    assert_success(&dispatch(&unit, &machine, "start"));
    let root = machine.root();
    assert_eq!(
        fs::read_to_string(root.join("srv/walls/created/hello")).unwrap(),
        "made"
    );
    // Every read-write grant is created, parents included; no read-only one.
    assert!(root.join("etc/walls/rw").is_dir());
    assert!(!root.join("etc/walls/ro").exists());
    assert!(!root.join("opt").exists());
    let outcomes = outcomes(&unit);
    assert_eq!(outcomes["created-write"], "ok: wrote hello");
    assert_eq!(outcomes["absent-list"], NOT_IN_ANY);
    let log = unit.debug_log();
    for line in [
        format!(
            "INFO workload.files: created `/srv/walls/created` (read-write, was missing) at {}",
            root.join("srv/walls/created").display()
        ),
        format!(
            "WARNING workload.files: `/opt/walls/absent` (read) is not on this machine ({} is \
             missing); the handlers of this event do not get it",
            root.join("opt/walls/absent").display()
        ),
    ] {
        assert!(log.lines().any(|l| l == line), "no {line:?} in:\n{log}");
    }
    // The sibling directory is as it was.
    let after = machine.snapshot();
    let sibling = |m: &BTreeMap<PathBuf, Entry>| -> Vec<(PathBuf, Entry)> {
        m.iter()
            .filter(|(p, _)| p.starts_with("outside"))
            .map(|(p, e)| (p.clone(), e.clone()))
            .collect()
    };
    assert_eq!(sibling(&after), sibling(&outside_before));
}

#[test]
fn a_file_where_a_directory_is_declared_fails_the_hook_naming_it() {
    let machine = Machine::new();
    machine.plant();
    let ro = machine.root().join("etc/walls/ro");
    fs::remove_dir_all(&ro).unwrap();
    fs::write(&ro, "not a directory").unwrap();
    let unit = unit(&machine);

    let out = dispatch(&unit, &machine, "install");
    assert_failure(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "handler `walls` could not be given its declared directory `/etc/walls/ro` (read, \
         workload.files in wasm-charm.yaml): cannot open {}: ",
        ro.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(unit.calls_of("status-set").is_empty());
}

/// The machine planted and the unit installed on it: the unit, its store
/// after install and how many `status-set` calls it made, for a test that
/// a later failing event keeps both.
fn installed(machine: &Machine) -> (Unit, Vec<u8>, usize) {
    machine.plant();
    let unit = unit(machine);
    assert_success(&dispatch(&unit, machine, "install"));
    let store = unit.charm_dir().join(".wasm-charm/scopes.json");
    let stored = fs::read(&store).expect("the store after install");
    let statuses = unit.calls_of("status-set").len();
    (unit, stored, statuses)
}

/// A workload root that puts a grant inside the charm directory (here the
/// charm directory itself): the event fails before any handler runs,
/// naming the grant and the directory, and what is stored is kept.
#[test]
fn a_grant_inside_the_charm_directory_fails_the_hook_and_keeps_the_store() {
    let machine = Machine::new();
    let (unit, stored, statuses) = installed(&machine);
    let store = unit.charm_dir().join(".wasm-charm/scopes.json");

    let charm_dir = unit.charm_dir();
    let root = charm_dir.display().to_string();
    let out = unit.dispatch_with("hooks/config-changed", &[("WASM_CHARM_ROOT", &root)]);
    assert_failure(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "workload.files: `/etc/walls/rw` (read-write, at {root}/etc/walls/rw) lies inside the \
         charm directory {root}, which only Juju and wasm-charm change"
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(fs::read(&store).expect("the store"), stored);
    assert_eq!(unit.calls_of("status-set").len(), statuses);
    assert!(!charm_dir.join("etc").exists());
}

/// The same through a symbolic link: a declared directory that resolves
/// into the charm directory (a link a package or a declared command could
/// make) fails the handler when its instance would be given it.
#[test]
fn a_grant_linked_into_the_charm_directory_fails_the_hook_and_keeps_the_store() {
    let machine = Machine::new();
    let (unit, stored, statuses) = installed(&machine);
    let state = unit.charm_dir().join(".wasm-charm");

    let rw = machine.root().join("etc/walls/rw");
    fs::remove_dir_all(&rw).unwrap();
    symlink(&state, &rw).expect("plant a symlink");
    let out = dispatch(&unit, &machine, "start");
    assert_failure(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let real_state = fs::canonicalize(&state).unwrap();
    let real_charm = fs::canonicalize(unit.charm_dir()).unwrap();
    let expected = format!(
        "handler `created` could not be given its declared directory `/etc/walls/rw` (read-write, \
         workload.files in wasm-charm.yaml): {} resolves to {}, which lies inside the charm \
         directory {}",
        rw.display(),
        real_state.display(),
        real_charm.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(
        fs::read(state.join("scopes.json")).expect("the store"),
        stored
    );
    assert_eq!(unit.calls_of("status-set").len(), statuses);
}

#[test]
fn a_relative_or_missing_root_fails_the_hook_naming_the_variable() {
    let machine = Machine::new();
    let unit = unit(&machine);
    let missing = machine.tmp.path().join("missing");
    for (value, why) in [
        ("relative/root", "not an absolute path".to_string()),
        ("", "not an absolute path".to_string()),
        (
            missing.to_str().unwrap(),
            "cannot use it as the workload root".to_string(),
        ),
    ] {
        let out = unit.dispatch_with("hooks/install", &[("WASM_CHARM_ROOT", value)]);
        assert_failure(&out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("wasm-charm: WASM_CHARM_ROOT=`{value}`: {why}")),
            "{value:?}: {stderr}"
        );
    }
    assert!(unit.calls_of("status-set").is_empty());
    assert!(!missing.exists());
}

#[test]
fn offline_runs_keep_the_declared_directories_beside_their_state() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("walls.offline-state.yaml");
    let charm = packed(FILE_WALLS);

    let out = offline_run(&charm, &state, &["--event", "start"]);
    assert_success(&out);
    let root = tmp.path().join("walls.offline-state.root");
    assert_eq!(
        fs::read_to_string(root.join("srv/walls/created/hello")).unwrap(),
        "made"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("workload root: {}\n", root.display())),
        "{stdout}"
    );

    // --root names another; it must exist.
    let other = tmp.path().join("other");
    let out = offline_run(
        &charm,
        &state,
        &["--event", "start", "--root", other.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("--root=`{}`", other.display())),
        "{out:?}"
    );
    fs::create_dir(&other).unwrap();
    let out = offline_run(
        &charm,
        &state,
        &["--event", "start", "--root", other.to_str().unwrap()],
    );
    assert_success(&out);
    assert!(other.join("srv/walls/created/hello").is_file());
}
