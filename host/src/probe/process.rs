//! Process probe: a live process whose `comm`, or the base name of whose
//! `argv[0]`, is the name. Reads `/proc`; needs no service manager.
//!
//! The process probes run together at an event share one scan of `/proc`
//! ([`SharedScan`]): each reads what the others have read already, and only
//! then reads on, so eight of them cost about one scan, not eight, and one
//! that finds its process early stops there.
//!
//! A probe that found its process at the last event looks at that pid
//! first (the store keeps it): a workload's process usually lives from one
//! event to the next, and one read of its `comm` is what a scan pays for
//! each process of the table. The hint is only where to look: what
//! lives at that pid is checked as a scan would check it, and anything
//! else (the process gone, its pid reused) falls back to the scan.

use super::Seen;
use std::fs::ReadDir;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The kernel cuts `comm` to this many bytes.
const COMM_LEN: usize = 15;

/// One process of the table, as a probe matches it: its `comm` read with
/// the table, the rest only when a probe needs it.
#[derive(Debug)]
struct Proc {
    pid: String,
    comm: String,
    /// `None`: not read yet. Then `None` for a zombie or a process gone,
    /// else the base name of its `argv[0]` (empty for a kernel thread).
    life: Option<Option<Vec<u8>>>,
}

impl Proc {
    /// Whether it is a live process `name` whose `comm` is `name` as the
    /// kernel cuts it: its `comm` is `name`, or it is cut and `argv[0]` is
    /// `name`. The cheap first look; a process that renamed itself is
    /// found by the pass over every command line.
    fn matches_cut(&mut self, proc: &Path, name: &str) -> bool {
        let cut = &name.as_bytes()[..name.len().min(COMM_LEN)];
        if self.comm.as_bytes() != cut {
            return false;
        }
        let by_comm = name.len() <= COMM_LEN;
        self.argv0(proc)
            .is_some_and(|argv0| by_comm || argv0 == name.as_bytes())
    }

    /// Whether it is a live process `name` by either look: its `comm` as
    /// [`Proc::matches_cut`] reads it, or [`Proc::argv0_is`].
    fn is(&mut self, proc: &Path, name: &str) -> bool {
        self.matches_cut(proc, name) || self.argv0_is(proc, name)
    }

    /// Whether it is a live process whose `argv[0]` has the base name
    /// `name` (the pass over every command line).
    fn argv0_is(&mut self, proc: &Path, name: &str) -> bool {
        self.argv0(proc)
            .is_some_and(|a| !a.is_empty() && a == name.as_bytes())
    }

    /// Whether it lives, reading its command line (and, without one, its
    /// state) the first time.
    fn argv0(&mut self, proc: &Path) -> Option<&[u8]> {
        let dir = proc.join(&self.pid);
        self.life.get_or_insert_with(|| read_life(&dir)).as_deref()
    }
}

/// Where a scan of one proc file system is.
#[derive(Debug, Default)]
struct Scan {
    proc: Option<PathBuf>,
    seen: Vec<Proc>,
    /// The pids of `seen` read ahead of the scan, at a probe's hint: the
    /// scan skips them when it reaches them.
    ahead: Vec<String>,
    rest: Option<ReadDir>,
    done: bool,
}

impl Scan {
    /// The process at `pid`, from `seen` or read now (then kept in `seen`
    /// and skipped by the scan); `None` when there is none.
    fn at(&mut self, proc: &Path, pid: u32) -> Option<&mut Proc> {
        let pid = pid.to_string();
        let i = match self.seen.iter().position(|p| p.pid == pid) {
            Some(i) => i,
            None => {
                let comm = read_comm(&proc.join(&pid).join("comm"))?;
                self.ahead.push(pid.clone());
                self.seen.push(Proc {
                    pid,
                    comm,
                    life: None,
                });
                self.seen.len() - 1
            }
        };
        self.seen.get_mut(i)
    }
}

/// A scan of the process table shared by the probes of one event: the
/// processes read so far, and where the scan goes on.
#[derive(Debug, Default)]
pub(crate) struct SharedScan(Mutex<Scan>);

impl SharedScan {
    /// Whether a process `name` lives in `proc` (the real one is `/proc`),
    /// by `deadline`. Zombies (state `Z`) and processes that vanish during
    /// the scan do not count.
    ///
    /// A `comm` is cheap for the kernel to give, a command line is not (it
    /// is read from the process's memory): the table is read by `comm`
    /// first (a longer name by its first 15 bytes, then the command lines
    /// of those processes), and every command line only when that found
    /// nothing. `hint`, the pid where the last event found it, is looked at
    /// first.
    pub(crate) fn find(
        &self,
        proc: &Path,
        name: &str,
        hint: Option<u32>,
        deadline: Instant,
    ) -> Seen {
        let mut scan = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if scan.proc.as_deref() != Some(proc) {
            // Another file system than the one read: start over.
            *scan = Scan {
                proc: Some(proc.to_path_buf()),
                ..Scan::default()
            };
        }
        if let Some(p) = hint.and_then(|pid| scan.at(proc, pid))
            && p.is(proc, name)
        {
            return up(name, &p.pid);
        }
        for p in &mut scan.seen {
            if p.matches_cut(proc, name) {
                return up(name, &p.pid);
            }
        }
        if !scan.done {
            if scan.rest.is_none() {
                match std::fs::read_dir(proc) {
                    Ok(entries) => scan.rest = Some(entries),
                    Err(e) => {
                        return Seen::Unknown(format!(
                            "process {name}: cannot read {}: {e}",
                            proc.display()
                        ));
                    }
                }
            }
            if let Some(seen) = read_on(&mut scan, proc, name, deadline) {
                return seen;
            }
        }
        for p in &mut scan.seen {
            if Instant::now() >= deadline {
                return late(name, proc);
            }
            if p.argv0_is(proc, name) {
                return up(name, &p.pid);
            }
        }
        Seen::Down(format!("process {name} not running"))
    }
}

/// Read on from where the scan is, by `comm`: `Some` once a live process
/// whose `comm` is `name` is found or the deadline passed, `None` at the
/// table's end.
fn read_on(scan: &mut Scan, proc: &Path, name: &str, deadline: Instant) -> Option<Seen> {
    while let Some(entry) = scan.rest.as_mut().and_then(Iterator::next) {
        if Instant::now() >= deadline {
            return Some(late(name, proc));
        }
        let Ok(entry) = entry else { continue };
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if scan.ahead.iter().any(|p| p == pid) {
            continue;
        }
        // Gone since the directory was read.
        let Some(comm) = read_comm(&entry.path().join("comm")) else {
            continue;
        };
        let mut p = Proc {
            pid: pid.to_string(),
            comm,
            life: None,
        };
        let found = p.matches_cut(proc, name);
        scan.seen.push(p);
        if found {
            return Some(up(name, pid));
        }
    }
    scan.done = true;
    None
}

/// A process's `comm`, without its newline; `None` when it is gone (or
/// the file is not text). The scan reads one per process on the machine,
/// so in one `read` into a buffer on the stack: the kernel gives the whole
/// file (at most 16 bytes) at once. A file that fills the buffer (not the
/// kernel's `comm`) is read whole, the slow way.
fn read_comm(path: &Path) -> Option<String> {
    use rustix::fs::{Mode, OFlags};
    let mut buf = [0u8; 64];
    let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let n = rustix::io::read(&fd, &mut buf[..]).ok()?;
    let mut text = if n < buf.len() {
        std::str::from_utf8(&buf[..n]).ok()?.to_string()
    } else {
        std::fs::read_to_string(path).ok()?
    };
    text.truncate(text.trim_end_matches('\n').len());
    Some(text)
}

fn up(name: &str, pid: &str) -> Seen {
    Seen::Up {
        detail: format!("process {name} running (pid {pid})"),
        still: format!("process {name} still running (pid {pid})"),
        pid: pid.parse().ok(),
    }
}

fn late(name: &str, proc: &Path) -> Seen {
    Seen::Unknown(format!(
        "process {name}: the scan of {} did not finish in time",
        proc.display()
    ))
}

/// Whether the process of `/proc/<pid>` lives, and the base name of its
/// `argv[0]`; `None` for a zombie or one gone. A process without a command
/// line is a zombie (its memory is gone) or a kernel thread, which `stat`'s
/// state, read only then, tells apart.
fn read_life(dir: &Path) -> Option<Vec<u8>> {
    let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
    if cmdline.is_empty() {
        // `stat` is `pid (comm) state …`; comm may itself hold `)`.
        let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
        let (_, tail) = stat.rsplit_once(')')?;
        return (!tail.trim_start().starts_with('Z')).then(Vec::new);
    }
    let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
    let base = argv0.rsplit(|b| *b == b'/').next().unwrap_or_default();
    Some(base.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A proc file system of `(pid, comm, state, argv0)`.
    fn fake_proc(procs: &[(&str, &str, char, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (pid, comm, state, argv0) in procs {
            add(dir.path(), pid, comm, *state, argv0);
        }
        std::fs::create_dir(dir.path().join("self")).unwrap();
        dir
    }

    fn add(proc: &Path, pid: &str, comm: &str, state: char, argv0: &str) {
        let d = proc.join(pid);
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("stat"), format!("{pid} ({comm}) {state} 1 1")).unwrap();
        std::fs::write(d.join("comm"), format!("{comm}\n")).unwrap();
        // As the kernel gives them: a zombie's memory, its command line
        // with it, is gone; a kernel thread never had one.
        let cmdline = if state == 'Z' || argv0.is_empty() {
            String::new()
        } else {
            format!("{argv0}\0--flag\0")
        };
        std::fs::write(d.join("cmdline"), cmdline).unwrap();
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    fn running(seen: &Seen) -> bool {
        matches!(seen, Seen::Up { .. })
    }

    #[test]
    fn probes_sharing_a_scan_read_each_process_once() {
        let proc = fake_proc(&[
            ("1", "init", 'S', "/sbin/init"),
            (
                "7",
                "a-very-long-ser",
                'S',
                "/usr/bin/a-very-long-server-name",
            ),
            ("9", "dead", 'Z', "/bin/dead"),
            ("12", "web", 'R', "/usr/bin/web"),
        ]);
        let scan = SharedScan::default();
        assert!(running(&scan.find(proc.path(), "web", None, soon())));
        // Found by its comm: no other process's command line was read.
        for p in &scan.0.lock().unwrap().seen {
            assert_eq!(p.life.is_some(), p.comm == "web", "{p:?}");
        }
        // Another probe of the event whose process was read already: the
        // table answers it, nothing more is read (the order is the file
        // system's).
        let read: Vec<String> = scan
            .0
            .lock()
            .unwrap()
            .seen
            .iter()
            .map(|p| p.comm.clone())
            .filter(|comm| comm != "dead")
            .collect();
        for comm in &read {
            assert!(
                running(&scan.find(proc.path(), comm, None, soon())),
                "{comm}"
            );
        }
        let seen = scan.0.lock().unwrap().seen.len();
        assert!(seen == read.len() || seen == read.len() + 1, "{seen}");
        // By argv[0] when comm is cut.
        assert!(running(&scan.find(
            proc.path(),
            "a-very-long-server-name",
            None,
            soon()
        )));
        // Zombies do not count; the scan reads on to the end, once.
        assert_eq!(
            scan.find(proc.path(), "dead", None, soon()),
            Seen::Down("process dead not running".into())
        );
        assert!(scan.0.lock().unwrap().done);
        assert_eq!(scan.0.lock().unwrap().seen.len(), 4);
        // A process started since is not in this event's table; a scan of
        // its own (a retry) sees it.
        add(proc.path(), "20", "late", 'S', "/bin/late");
        assert!(!running(&scan.find(proc.path(), "late", None, soon())));
        assert!(running(&SharedScan::default().find(
            proc.path(),
            "late",
            None,
            soon()
        )));
    }

    #[test]
    fn a_match_stops_the_scan_and_names_the_pid() {
        let proc = fake_proc(&[("1", "init", 'S', "/sbin/init"), ("2", "b", 'S', "/b")]);
        let scan = SharedScan::default();
        let seen = scan.find(proc.path(), "b", None, soon());
        let Seen::Up { detail, .. } = seen else {
            panic!("{seen:?}")
        };
        assert_eq!(detail, "process b running (pid 2)");
        let missing = SharedScan::default().find(&proc.path().join("nope"), "b", None, soon());
        assert!(
            matches!(&missing, Seen::Unknown(m) if m.contains("cannot read")),
            "{missing:?}"
        );
        let late = SharedScan::default().find(proc.path(), "zz", None, Instant::now());
        assert!(
            matches!(&late, Seen::Unknown(m) if m.contains("did not finish in time")),
            "{late:?}"
        );
    }

    #[test]
    fn a_hint_is_read_first_and_trusted_only_for_what_lives_there() {
        let proc = fake_proc(&[
            ("3", "web", 'S', "/usr/bin/web"),
            ("7", "web", 'S', "/usr/bin/web"),
            ("9", "python3", 'S', "/opt/bin/worker"),
            ("11", "gone", 'Z', "/bin/gone"),
        ]);
        let pid_of = |seen: Seen| match seen {
            Seen::Up { pid, .. } => pid,
            other => panic!("{other:?}"),
        };
        // The hinted pid alone is read: no scan.
        let scan = SharedScan::default();
        assert_eq!(
            pid_of(scan.find(proc.path(), "web", Some(7), soon())),
            Some(7)
        );
        {
            let s = scan.0.lock().unwrap();
            assert!(s.rest.is_none(), "the scan started");
            assert_eq!(s.seen.iter().map(|p| &p.pid).collect::<Vec<_>>(), ["7"]);
        }
        // Another probe scans on past the process read ahead, reading it
        // once: the table holds each process once.
        assert_eq!(
            scan.find(proc.path(), "absent", None, soon()),
            Seen::Down("process absent not running".into())
        );
        let mut pids: Vec<String> = scan
            .0
            .lock()
            .unwrap()
            .seen
            .iter()
            .map(|p| p.pid.clone())
            .collect();
        pids.sort();
        assert_eq!(pids, ["11", "3", "7", "9"]);
        // A renamed process is found at its hint by its command line.
        let fresh = SharedScan::default();
        assert_eq!(
            pid_of(fresh.find(proc.path(), "worker", Some(9), soon())),
            Some(9)
        );
        assert!(fresh.0.lock().unwrap().rest.is_none());
        // A hint that is another process, a zombie or no process: the scan.
        for hint in [9, 11, 99] {
            let found = pid_of(SharedScan::default().find(proc.path(), "web", Some(hint), soon()));
            assert!(matches!(found, Some(3 | 7)), "hint {hint}: {found:?}");
        }
        assert_eq!(
            SharedScan::default().find(proc.path(), "gone", Some(11), soon()),
            Seen::Down("process gone not running".into())
        );
    }

    #[test]
    fn a_process_without_a_command_line_is_told_by_its_stat() {
        let proc = fake_proc(&[
            ("2", "kthreadd", 'S', ""),
            ("5", "gone", 'Z', "/bin/gone"),
            ("8", "web", 'S', "/usr/bin/web"),
        ]);
        let scan = SharedScan::default();
        assert!(running(&scan.find(proc.path(), "kthreadd", None, soon())));
        assert_eq!(
            scan.find(proc.path(), "gone", None, soon()),
            Seen::Down("process gone not running".into())
        );
        // The live one with a command line is read by `comm`, not `stat`.
        std::fs::remove_file(proc.path().join("8/stat")).unwrap();
        assert!(running(&SharedScan::default().find(
            proc.path(),
            "web",
            None,
            soon()
        )));
    }

    #[test]
    fn a_comm_is_read_without_its_newline_whatever_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(100);
        for (file, text, read) in [
            ("short", "web\n", Some("web")),
            ("empty", "", Some("")),
            ("long", &format!("{long}\n") as &str, Some(long.as_str())),
            (
                "exact",
                &"y".repeat(64) as &str,
                Some(&"y".repeat(64) as &str),
            ),
        ] {
            std::fs::write(dir.path().join(file), text).unwrap();
            assert_eq!(read_comm(&dir.path().join(file)).as_deref(), read, "{file}");
        }
        std::fs::write(dir.path().join("binary"), b"\xff\xfe\n").unwrap();
        assert_eq!(read_comm(&dir.path().join("binary")), None);
        assert_eq!(read_comm(&dir.path().join("gone")), None);
        // The real one: this process's.
        let own = read_comm(Path::new("/proc/self/comm")).unwrap();
        assert!(!own.is_empty() && own.len() <= COMM_LEN, "{own:?}");
    }
}
