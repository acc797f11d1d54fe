//! A test charm that tries every way through the walls of its declared
//! directories (wasm-charm.yaml `workload.files`), with the ordinary
//! `std::fs` API a charm author would use, and stores each attempt's
//! outcome under `wall/<attempt>`: `ok: <what it saw>` or
//! `refused: <the error>`. `tests/file_walls.rs` plants the directories,
//! files and symlinks under a workload root and checks both the outcomes
//! and that nothing outside the declared directories changed.
//!
//! Declared: `/etc/walls/rw` read-write, `/etc/walls/ro` read-only,
//! `/srv/walls/created` read-write, `/opt/walls/absent` read-only (which
//! the tests never create). Config option `outside` names a host directory
//! beside the root, tried by its absolute path.

// A test guest: each long handler is one list of attempts, read top to bottom.
#![allow(clippy::too_many_lines)]

use std::fs;
use std::io::Write as _;

use wasm_charm::model::ConfigValue;
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe("walls", On::install(), walls)
        .observe("created", On::start(), created)
}

wasm_charm::export_charm!(charm);

const RW: &str = "/etc/walls/rw";
const RO: &str = "/etc/walls/ro";

/// Every attempt of the walls test, in order; each names what it tries.
fn walls(_event: &Event) -> Outcome {
    let outside = match model::config()?.remove("outside") {
        Some(ConfigValue::String(dir)) if !dir.is_empty() => dir,
        _ => return Err(Error::msg("config `outside` is not set")),
    };
    let attempts: Vec<(&str, Attempt<'_>)> = vec![
        // Inside the read-write directory: everything works.
        ("rw-read", Box::new(|| read(&format!("{RW}/config")))),
        (
            "rw-write",
            Box::new(|| {
                fs::write(format!("{RW}/new"), "written")?;
                read(&format!("{RW}/new"))
            }),
        ),
        (
            "rw-mkdir-remove",
            Box::new(|| {
                fs::create_dir(format!("{RW}/sub"))?;
                fs::write(format!("{RW}/sub/f"), "x")?;
                fs::remove_file(format!("{RW}/sub/f"))?;
                fs::remove_dir(format!("{RW}/sub"))?;
                Ok("made, filled, emptied and removed sub".to_string())
            }),
        ),
        (
            "rw-rename-inside",
            Box::new(|| {
                fs::rename(format!("{RW}/new"), format!("{RW}/renamed"))?;
                read(&format!("{RW}/renamed"))
            }),
        ),
        ("rw-list", Box::new(|| list(RW))),
        // Beside the declared directories.
        ("undeclared-read", Box::new(|| read("/etc/walls/secret"))),
        ("undeclared-write", Box::new(|| write("/etc/walls/planted"))),
        ("undeclared-list", Box::new(|| list("/etc/walls"))),
        // `..` out of a declared directory.
        ("dotdot-read", Box::new(|| read(&format!("{RW}/../secret")))),
        (
            "dotdot-write",
            Box::new(|| write(&format!("{RW}/../planted"))),
        ),
        (
            "dotdot-deep",
            Box::new(|| read(&format!("{RW}/../../../../../../etc/passwd"))),
        ),
        ("dotdot-list", Box::new(|| list(&format!("{RW}/..")))),
        // Absolute paths elsewhere.
        ("absolute-etc", Box::new(|| read("/etc/passwd"))),
        ("absolute-root-list", Box::new(|| list("/"))),
        ("absolute-tmp-write", Box::new(|| write("/tmp/planted"))),
        (
            "absolute-host-read",
            Box::new(|| read(&format!("{outside}/outside-file"))),
        ),
        (
            "absolute-host-write",
            Box::new(|| write(&format!("{outside}/planted"))),
        ),
        // Symlinks the test planted inside the read-write directory.
        (
            "symlink-file-read",
            Box::new(|| read(&format!("{RW}/link-file"))),
        ),
        (
            "symlink-file-write",
            Box::new(|| write(&format!("{RW}/link-file"))),
        ),
        (
            "symlink-file-append",
            Box::new(|| {
                fs::OpenOptions::new()
                    .append(true)
                    .open(format!("{RW}/link-file"))?
                    .write_all(b"appended")?;
                Ok("appended".to_string())
            }),
        ),
        (
            "symlink-dir-list",
            Box::new(|| list(&format!("{RW}/link-dir"))),
        ),
        (
            "symlink-dir-read",
            Box::new(|| read(&format!("{RW}/link-dir/inner"))),
        ),
        (
            "symlink-dir-write",
            Box::new(|| write(&format!("{RW}/link-dir/planted"))),
        ),
        (
            "symlink-up-read",
            Box::new(|| read(&format!("{RW}/link-up"))),
        ),
        (
            "symlink-absolute-read",
            Box::new(|| read(&format!("{RW}/link-absolute"))),
        ),
        // The read-only directory: reads work, no change does.
        ("ro-read", Box::new(|| read(&format!("{RO}/file")))),
        ("ro-list", Box::new(|| list(RO))),
        ("ro-write", Box::new(|| write(&format!("{RO}/file")))),
        (
            "ro-append",
            Box::new(|| {
                fs::OpenOptions::new()
                    .append(true)
                    .open(format!("{RO}/file"))?
                    .write_all(b"appended")?;
                Ok("appended".to_string())
            }),
        ),
        ("ro-create", Box::new(|| write(&format!("{RO}/new")))),
        (
            "ro-mkdir",
            Box::new(|| {
                fs::create_dir(format!("{RO}/sub"))?;
                Ok("made sub".to_string())
            }),
        ),
        (
            "ro-remove",
            Box::new(|| {
                fs::remove_file(format!("{RO}/file"))?;
                Ok("removed".to_string())
            }),
        ),
        (
            "ro-rename",
            Box::new(|| rename(&format!("{RO}/file"), &format!("{RO}/moved"))),
        ),
        (
            "ro-set-len",
            Box::new(|| {
                fs::File::open(format!("{RO}/file"))?.set_len(0)?;
                Ok("truncated".to_string())
            }),
        ),
        // Out of a declared directory by rename or link.
        (
            "rename-out-undeclared",
            Box::new(|| rename(&format!("{RW}/config"), "/etc/walls/moved")),
        ),
        (
            "rename-out-dotdot",
            Box::new(|| rename(&format!("{RW}/config"), &format!("{RW}/../moved"))),
        ),
        (
            "rename-out-to-ro",
            Box::new(|| rename(&format!("{RW}/config"), &format!("{RO}/moved"))),
        ),
        (
            "rename-out-host",
            Box::new(|| rename(&format!("{RW}/config"), &format!("{outside}/moved"))),
        ),
        (
            "rename-in-from-ro",
            Box::new(|| rename(&format!("{RO}/file"), &format!("{RW}/stolen"))),
        ),
        (
            "hardlink-ro-into-rw",
            Box::new(|| link(&format!("{RO}/file"), &format!("{RW}/linked"))),
        ),
        (
            "hardlink-out",
            Box::new(|| link(&format!("{RW}/config"), "/etc/walls/linked")),
        ),
        // A declared read-only directory the machine lacks.
        ("absent-list", Box::new(|| list("/opt/walls/absent"))),
    ];
    let count = attempts.len();
    for (name, attempt) in attempts {
        report(name, attempt());
    }
    Ok(Some(Status::active(format!("{count} attempts"))))
}

/// The read-write directory the host created, and the absent read-only one.
fn created(_event: &Event) -> Outcome {
    report(
        "created-write",
        fs::write("/srv/walls/created/hello", "made").map(|()| "wrote hello".to_string()),
    );
    report("absent-list", list("/opt/walls/absent"));
    Ok(None)
}

type Attempt<'a> = Box<dyn FnOnce() -> std::io::Result<String> + 'a>;

/// Store `wall/<name>`: `ok: <what>` or `refused: <error>`.
fn report(name: &str, outcome: std::io::Result<String>) {
    let text = match outcome {
        Ok(what) => format!("ok: {what}"),
        Err(error) => format!("refused: {error}"),
    };
    // The test reads the stored data; a failure to store is its failure too.
    if let Err(e) = stored::set_raw(&format!("wall/{name}"), &text) {
        eprintln!("cannot store wall/{name}: {e}");
    }
}

fn read(path: &str) -> std::io::Result<String> {
    Ok(format!("read {:?}", fs::read_to_string(path)?))
}

fn write(path: &str) -> std::io::Result<String> {
    fs::write(path, "planted by the guest")?;
    Ok(format!("wrote {path}"))
}

fn list(path: &str) -> std::io::Result<String> {
    let mut names = fs::read_dir(path)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<Vec<_>>>()?;
    names.sort();
    Ok(format!("listed [{}]", names.join(", ")))
}

fn rename(from: &str, to: &str) -> std::io::Result<String> {
    fs::rename(from, to)?;
    Ok(format!("renamed to {to}"))
}

fn link(from: &str, to: &str) -> std::io::Result<String> {
    fs::hard_link(from, to)?;
    Ok(format!("linked to {to}"))
}
