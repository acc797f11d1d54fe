//! The `.charm` file: a zip of the charm directory, as `juju deploy` takes
//! it. Each entry carries its Unix mode in the external attributes (made by
//! "Unix"), which Juju applies when it unpacks the charm on the unit: that
//! is how `dispatch` stays executable.

use anyhow::{Context as _, bail};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// One file of the archive.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its path in the archive, `/`-separated, relative (`charm.wasm`,
    /// `.wasm-charm/cache/<key>.cwasm`).
    pub name: String,
    /// Where its bytes are read from.
    pub source: PathBuf,
    /// Its permission bits (`0o755` for `dispatch`).
    pub mode: u32,
}

/// Bounds on what `extract` unpacks: a `.charm` is a few files of a few
/// megabytes; a zip that inflates past this is refused, not unpacked.
const MAX_ENTRIES: usize = 10_000;
const MAX_TOTAL_BYTES: u64 = 2 << 30;

/// Write `entries`, in order, to the zip `archive`, replacing it atomically
/// (a reader never sees half an archive). Parent directories of nested
/// entries get entries of their own (mode 0755), before their files.
pub fn write(archive: &Path, entries: &[Entry]) -> anyhow::Result<()> {
    let dir = crate::atomic_file::parent(archive);
    let tmp = tempfile::Builder::new()
        .prefix(".wasm-charm-archive-")
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    // Deflating is most of writing a `.charm` (a Python charm's artifacts
    // are some 90 MB): each entry is deflated on its own, one per core at a
    // time, into an archive of its own in memory, then copied raw, in order.
    let deflated = deflate_all(archive, entries)?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(tmp.as_file()));
    let mut directories = std::collections::BTreeSet::new();
    for (entry, one) in entries.iter().zip(deflated) {
        let mut parent = String::new();
        for part in entry
            .name
            .split('/')
            .rev()
            .skip(1)
            .collect::<Vec<_>>()
            .iter()
            .rev()
        {
            parent.push_str(part);
            parent.push('/');
            if directories.insert(parent.clone()) {
                zip.add_directory(&parent, options(0o755))
                    .with_context(|| format!("{}: cannot add {parent}", archive.display()))?;
            }
        }
        zip.merge_archive(one)
            .with_context(|| format!("{}: cannot add {}", archive.display(), entry.name))?;
    }
    let mut out = zip
        .finish()
        .with_context(|| format!("{}: cannot finish the archive", archive.display()))?;
    out.flush()?;
    drop(out);
    // Readable by all, as a file written by `zip` would be (the temporary
    // file was created private).
    tmp.as_file()
        .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    tmp.as_file().sync_all()?;
    tmp.persist(archive)
        .with_context(|| format!("{}: cannot write", archive.display()))?;
    Ok(())
}

/// One deflated archive per entry, in the entries' order, made by as many
/// threads as there are cores (or entries), each taking the next entry
/// not yet taken.
fn deflate_all(
    archive: &Path,
    entries: &[Entry],
) -> anyhow::Result<Vec<zip::ZipArchive<std::io::Cursor<Vec<u8>>>>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(entries.len());
    let next = AtomicUsize::new(0);
    let mut deflated = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(entry) = entries.get(i) else { break };
                        mine.push((i, deflate(archive, entry)));
                    }
                    mine
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join())
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(|_| anyhow::anyhow!("{}: a deflating thread panicked", archive.display()))?
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();
    deflated.sort_by_key(|(i, _)| *i);
    deflated
        .into_iter()
        .map(|(i, bytes)| {
            let name = &entries[i].name;
            zip::ZipArchive::new(std::io::Cursor::new(bytes?))
                .with_context(|| format!("{}: cannot read back {name} deflated", archive.display()))
        })
        .collect()
}

/// `entry` deflated, as the one file of a zip archive in memory.
fn deflate(archive: &Path, entry: &Entry) -> anyhow::Result<Vec<u8>> {
    let mut source = std::fs::File::open(&entry.source)
        .with_context(|| format!("{}: cannot read", entry.source.display()))?;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(&entry.name, options(entry.mode))
        .with_context(|| format!("{}: cannot add {}", archive.display(), entry.name))?;
    std::io::copy(&mut source, &mut zip).with_context(|| {
        format!(
            "{}: cannot add {} from {}",
            archive.display(),
            entry.name,
            entry.source.display()
        )
    })?;
    let out = zip
        .finish()
        .with_context(|| format!("{}: cannot deflate {}", archive.display(), entry.name))?;
    Ok(out.into_inner())
}

/// Deflated at level 1, made by Unix with `mode` as a regular file's (or a
/// directory's, for a name ending in `/`) permission bits. `dispatch` is
/// most of the archive: level 6 makes it about 12% smaller (8 MiB instead of
/// 9 for the static host) and takes three times as long.
fn options(mode: u32) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .unix_permissions(mode)
}

/// A charm to read: a directory as it is, or a `.charm` unpacked into a
/// temporary directory that goes with this value.
pub struct Opened {
    dir: PathBuf,
    source: String,
    _unpacked: Option<tempfile::TempDir>,
}

impl Opened {
    /// The charm directory or `.charm` (zip) at `path`.
    pub fn charm(path: &Path) -> anyhow::Result<Opened> {
        if path.is_dir() {
            return Ok(Opened {
                dir: path.to_path_buf(),
                source: format!("charm directory {}", path.display()),
                _unpacked: None,
            });
        }
        let unpacked = tempfile::Builder::new()
            .prefix("wasm-charm-unpacked-")
            .tempdir()
            .context("cannot create a temporary directory to unpack the charm in")?;
        extract(path, unpacked.path()).with_context(|| {
            format!("{}: neither a charm directory nor a .charm", path.display())
        })?;
        Ok(Opened {
            dir: unpacked.path().to_path_buf(),
            source: format!(".charm {}", path.display()),
            _unpacked: Some(unpacked),
        })
    }

    /// Where its files are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What was opened, for people: `charm directory <path>`, `.charm <path>`.
    pub fn source(&self) -> String {
        self.source.clone()
    }
}

/// Unpack the zip `archive` into the directory `into`, as Juju does on the
/// unit: every entry at its enclosed path, with its permission bits (at most
/// 0755; no set-id bits). An entry whose name leaves the directory, a
/// symbolic link, or an archive past the size bounds is an error naming it.
pub fn extract(archive: &Path, into: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let file = std::fs::File::open(archive)
        .with_context(|| format!("{}: cannot read", archive.display()))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .with_context(|| format!("{}: not a zip archive", archive.display()))?;
    if zip.len() > MAX_ENTRIES {
        bail!(
            "{}: {} entries; a charm has far fewer",
            archive.display(),
            zip.len()
        );
    }
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .with_context(|| format!("{}: entry {i} is unreadable", archive.display()))?;
        let name = entry.name().map(|n| n.into_owned()).unwrap_or_default();
        let Some(relative) = entry.enclosed_name() else {
            bail!(
                "{}: entry `{name}` would be unpacked outside the charm directory",
                archive.display()
            );
        };
        if entry.is_symlink() {
            bail!("{}: entry `{name}` is a symbolic link", archive.display());
        }
        let path = into.join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&path)
                .with_context(|| format!("{}: cannot create", path.display()))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create", parent.display()))?;
        }
        let mut out = std::fs::File::create(&path)
            .with_context(|| format!("{}: cannot create", path.display()))?;
        let budget = MAX_TOTAL_BYTES - total;
        let copied = std::io::copy(&mut (&mut entry).take(budget + 1), &mut out)
            .with_context(|| format!("{}: cannot unpack `{name}`", archive.display()))?;
        total += copied;
        if copied > budget {
            bail!(
                "{}: unpacks to more than {} MiB; a charm is far smaller",
                archive.display(),
                MAX_TOTAL_BYTES >> 20
            );
        }
        let mode = entry.unix_mode().unwrap_or(0o644) & 0o755;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("{}: cannot set its mode", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn entries_keep_their_modes_and_nesting() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "#!/bin/sh\n").unwrap();
        std::fs::write(&b, "x".repeat(10_000)).unwrap();
        let archive = dir.path().join("x.charm");
        write(
            &archive,
            &[
                Entry {
                    name: "dispatch".into(),
                    source: a.clone(),
                    mode: 0o755,
                },
                Entry {
                    name: "deep/er/file".into(),
                    source: b.clone(),
                    mode: 0o644,
                },
            ],
        )
        .unwrap();

        let mut zip = zip::ZipArchive::new(std::fs::File::open(&archive).unwrap()).unwrap();
        let listing: Vec<(String, Option<u32>)> = (0..zip.len())
            .map(|i| {
                let e = zip.by_index(i).unwrap();
                (e.name().unwrap().into_owned(), e.unix_mode())
            })
            .collect();
        assert_eq!(
            listing,
            [
                ("dispatch".to_string(), Some(0o100755)),
                ("deep/".to_string(), Some(0o040755)),
                ("deep/er/".to_string(), Some(0o040755)),
                ("deep/er/file".to_string(), Some(0o100644)),
            ]
        );
        // Deflated: the repeated bytes shrink.
        assert!(std::fs::metadata(&archive).unwrap().len() < 2_000);

        let out = dir.path().join("out");
        extract(&archive, &out).unwrap();
        let mode = |p: &str| std::fs::metadata(out.join(p)).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode("dispatch"), 0o755);
        assert_eq!(mode("deep/er/file"), 0o644);
        assert_eq!(
            std::fs::read(out.join("deep/er/file")).unwrap(),
            std::fs::read(&b).unwrap()
        );
    }

    /// The entries are deflated at once but written in order, to the same
    /// bytes every time; an entry that cannot be read fails the archive,
    /// naming it, and leaves no archive behind.
    #[test]
    fn entries_deflated_at_once_are_written_in_order_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<Entry> = (0..7)
            .map(|i| {
                let source = dir.path().join(format!("src-{i}"));
                std::fs::write(&source, format!("{i}").repeat(1 + i * 50_000)).unwrap();
                Entry {
                    name: format!("d{}/f{i}", i % 2),
                    source,
                    mode: 0o644,
                }
            })
            .collect();
        let (one, two) = (dir.path().join("one.charm"), dir.path().join("two.charm"));
        write(&one, &entries).unwrap();
        write(&two, &entries).unwrap();
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&one).unwrap()).unwrap();
        let names: Vec<String> = (0..zip.len())
            .map(|i| zip.by_index(i).unwrap().name().unwrap().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "d0/", "d0/f0", "d1/", "d1/f1", "d0/f2", "d1/f3", "d0/f4", "d1/f5", "d0/f6"
            ]
        );
        let out = dir.path().join("out");
        extract(&one, &out).unwrap();
        for entry in &entries {
            assert_eq!(
                std::fs::read(out.join(&entry.name)).unwrap(),
                std::fs::read(&entry.source).unwrap()
            );
        }
        write(&dir.path().join("empty.charm"), &[]).unwrap();

        let mut broken = entries.clone();
        broken[4].source = dir.path().join("missing");
        let three = dir.path().join("three.charm");
        let e = write(&three, &broken).unwrap_err();
        assert!(
            format!("{e:#}").contains(&format!("{}: cannot read", broken[4].source.display())),
            "{e:#}"
        );
        assert!(!three.exists());
    }

    #[test]
    fn extraction_stays_inside_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("evil.zip");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
        zip.start_file("../escape", SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"x").unwrap();
        zip.finish().unwrap();
        let e = extract(&archive, &dir.path().join("out")).unwrap_err();
        assert!(e.to_string().contains("`../escape`"), "{e}");
        assert!(!dir.path().join("escape").exists());

        std::fs::write(&archive, b"not a zip").unwrap();
        let e = extract(&archive, &dir.path().join("out")).unwrap_err();
        assert!(e.to_string().contains("evil.zip: not a zip archive"), "{e}");
    }
}
