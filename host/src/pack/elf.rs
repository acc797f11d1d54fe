//! What a `dispatch` executable needs from the machine it runs on, read from
//! its ELF headers: the architecture it is built for, and whether it is
//! static or which interpreter, libraries and glibc version it loads. Pure:
//! bytes in, facts out, every offset checked against the file.
//!
//! Only the program headers and the dynamic segment are read (what the
//! kernel and the dynamic loader read), so a stripped binary, which has no
//! section headers worth the name, is read the same.

/// Juju's name of the architecture an executable is built for, from the
/// ELF `e_machine`: the names `manifest.yaml` and `juju deploy` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Amd64,
    Arm64,
    Ppc64el,
    S390x,
    Riscv64,
}

impl Arch {
    pub fn juju_name(self) -> &'static str {
        match self {
            Arch::Amd64 => "amd64",
            Arch::Arm64 => "arm64",
            Arch::Ppc64el => "ppc64el",
            Arch::S390x => "s390x",
            Arch::Riscv64 => "riscv64",
        }
    }

    /// The name the kernel and the Rust target use (`uname -m`).
    pub fn machine_name(self) -> &'static str {
        match self {
            Arch::Amd64 => "x86_64",
            Arch::Arm64 => "aarch64",
            Arch::Ppc64el => "ppc64le",
            Arch::S390x => "s390x",
            Arch::Riscv64 => "riscv64",
        }
    }
}

/// A glibc version, `(2, 34)` for `GLIBC_2.34`.
pub type GlibcVersion = (u32, u32);

/// How the executable gets its libraries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Linking {
    /// No interpreter and no shared library: runs on any Linux kernel of its
    /// architecture (a static or static-pie executable).
    Static,
    /// Loaded by `interpreter`, with the shared libraries `needed`; `glibc`
    /// is the newest `GLIBC_x.y` symbol version it asks for, if any.
    Dynamic {
        interpreter: String,
        needed: Vec<String>,
        glibc: Option<GlibcVersion>,
    },
}

/// What an executable needs to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    pub arch: Arch,
    pub linking: Linking,
}

impl std::fmt::Display for Executable {
    /// `x86_64 (amd64), statically linked`, or with its interpreter and glibc.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}), ",
            self.arch.machine_name(),
            self.arch.juju_name()
        )?;
        match &self.linking {
            Linking::Static => f.write_str("statically linked"),
            Linking::Dynamic {
                interpreter, glibc, ..
            } => {
                write!(f, "dynamically linked (interpreter {interpreter}")?;
                if let Some((major, minor)) = glibc {
                    write!(f, ", needs glibc {major}.{minor}")?;
                }
                f.write_str(")")
            }
        }
    }
}

const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const PT_LOAD: u32 = 1;
const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;
const DT_STRTAB: u64 = 5;
const DT_VERNEED: u64 = 0x6fff_fffe;
const DT_VERNEEDNUM: u64 = 0x6fff_ffff;
/// Bounds on what a well-formed executable has, so a forged file cannot make
/// the reader loop for long.
const MAX_PROGRAM_HEADERS: usize = 4096;
const MAX_DYNAMIC_ENTRIES: usize = 4096;
const MAX_VERSIONS: usize = 4096;

/// Bounds-checked reads of a 64-bit ELF file of either byte order.
struct Reader<'a> {
    bytes: &'a [u8],
    little: bool,
}

impl Reader<'_> {
    fn take<const N: usize>(&self, at: u64) -> Result<[u8; N], String> {
        usize::try_from(at)
            .ok()
            .and_then(|at| self.bytes.get(at..at.checked_add(N)?))
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("truncated ELF: {N} bytes at offset {at} are past its end"))
    }
    fn u16(&self, at: u64) -> Result<u16, String> {
        let b = self.take::<2>(at)?;
        Ok(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }
    fn u32(&self, at: u64) -> Result<u32, String> {
        let b = self.take::<4>(at)?;
        Ok(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }
    fn u64(&self, at: u64) -> Result<u64, String> {
        let b = self.take::<8>(at)?;
        Ok(if self.little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }
    /// The NUL-terminated string at `at`.
    fn str(&self, at: u64) -> Result<String, String> {
        let start = usize::try_from(at)
            .ok()
            .filter(|&s| s < self.bytes.len())
            .ok_or_else(|| format!("truncated ELF: a string at offset {at} is past its end"))?;
        let tail = &self.bytes[start..];
        let end = tail
            .iter()
            .position(|&b| b == 0)
            .ok_or("truncated ELF: a string has no end")?;
        Ok(String::from_utf8_lossy(&tail[..end]).into_owned())
    }
}

struct Segment {
    kind: u32,
    offset: u64,
    vaddr: u64,
    filesz: u64,
}

/// Read what `bytes`, an executable, needs to run. The error says what is
/// wrong with the file, for a message that names it.
pub fn read(bytes: &[u8]) -> Result<Executable, String> {
    if bytes.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err("not an ELF executable".to_string());
    }
    if bytes.get(4) != Some(&2) {
        return Err("a 32-bit ELF executable; Juju's architectures are all 64-bit".to_string());
    }
    let little = match bytes.get(5) {
        Some(1) => true,
        Some(2) => false,
        _ => return Err("an ELF file of unknown byte order".to_string()),
    };
    let r = Reader { bytes, little };
    let machine = r.u16(18)?;
    let arch = match (machine, little) {
        (62, true) => Arch::Amd64,
        (183, true) => Arch::Arm64,
        (21, true) => Arch::Ppc64el,
        (22, false) => Arch::S390x,
        (243, true) => Arch::Riscv64,
        _ => {
            return Err(format!(
                "built for ELF machine {machine} ({} endian), which is no architecture Juju deploys to",
                if little { "little" } else { "big" }
            ));
        }
    };
    let segments = segments(&r)?;
    let interpreter = match segments.iter().find(|s| s.kind == PT_INTERP) {
        Some(s) => Some(r.str(s.offset)?),
        None => None,
    };
    let (needed, glibc) = match segments.iter().find(|s| s.kind == PT_DYNAMIC) {
        Some(dynamic) => dynamic_needs(&r, dynamic, &segments)?,
        None => (Vec::new(), None),
    };
    let linking = match interpreter {
        None if needed.is_empty() => Linking::Static,
        None => {
            return Err(format!(
                "needs the shared libraries {} but names no interpreter to load them",
                needed.join(", ")
            ));
        }
        Some(interpreter) => Linking::Dynamic {
            interpreter,
            needed,
            glibc,
        },
    };
    Ok(Executable { arch, linking })
}

fn segments(r: &Reader<'_>) -> Result<Vec<Segment>, String> {
    let phoff = r.u64(32)?;
    let entsize = u64::from(r.u16(54)?);
    let count = usize::from(r.u16(56)?);
    if count > MAX_PROGRAM_HEADERS {
        return Err(format!(
            "{count} program headers; no executable has so many"
        ));
    }
    if count > 0 && entsize < 56 {
        return Err(format!(
            "program headers of {entsize} bytes; ELF64 ones are 56"
        ));
    }
    (0..count as u64)
        .map(|i| {
            let at = phoff
                .checked_add(i * entsize)
                .ok_or("truncated ELF: a program header is past its end")?;
            Ok(Segment {
                kind: r.u32(at)?,
                offset: r.u64(at + 8)?,
                vaddr: r.u64(at + 16)?,
                filesz: r.u64(at + 32)?,
            })
        })
        .collect()
}

/// The file offset of virtual address `addr`, through the loaded segments.
fn file_offset(segments: &[Segment], addr: u64) -> Result<u64, String> {
    segments
        .iter()
        .filter(|s| s.kind == PT_LOAD)
        .find(|s| addr >= s.vaddr && addr - s.vaddr < s.filesz)
        .map(|s| addr - s.vaddr + s.offset)
        .ok_or_else(|| format!("address {addr:#x} of the dynamic segment is in no loaded segment"))
}

/// The shared libraries the dynamic segment names, and the newest
/// `GLIBC_x.y` version among the symbol versions it needs.
fn dynamic_needs(
    r: &Reader<'_>,
    dynamic: &Segment,
    segments: &[Segment],
) -> Result<(Vec<String>, Option<GlibcVersion>), String> {
    let mut needed_offsets = Vec::new();
    let (mut strtab, mut verneed, mut verneednum) = (None, None, 0);
    for i in 0..(dynamic.filesz / 16).min(MAX_DYNAMIC_ENTRIES as u64) {
        let at = dynamic.offset + i * 16;
        let (tag, value) = (r.u64(at)?, r.u64(at + 8)?);
        match tag {
            DT_NULL => break,
            DT_NEEDED => needed_offsets.push(value),
            DT_STRTAB => strtab = Some(value),
            DT_VERNEED => verneed = Some(value),
            DT_VERNEEDNUM => verneednum = value,
            _ => {}
        }
    }
    if needed_offsets.is_empty() && verneed.is_none() {
        return Ok((Vec::new(), None));
    }
    let strtab = file_offset(
        segments,
        strtab.ok_or("the dynamic segment has no string table")?,
    )?;
    let name = |offset: u64| {
        strtab
            .checked_add(offset)
            .ok_or_else(|| "truncated ELF: a name is past its end".to_string())
            .and_then(|at| r.str(at))
    };
    let needed = needed_offsets
        .into_iter()
        .map(name)
        .collect::<Result<Vec<_>, _>>()?;
    let mut glibc = None;
    if let Some(verneed) = verneed {
        // Elf64_Verneed: version u16, count u16, file u32, aux u32, next u32;
        // each aux (Elf64_Vernaux): hash u32, flags u16, other u16, name u32,
        // next u32. Offsets are relative to the entry they are read from.
        let mut entry = file_offset(segments, verneed)?;
        let mut seen = 0;
        for _ in 0..verneednum.min(MAX_VERSIONS as u64) {
            let count = r.u16(entry + 2)?;
            let mut aux = entry + u64::from(r.u32(entry + 8)?);
            for _ in 0..count {
                seen += 1;
                if seen > MAX_VERSIONS {
                    return Err("more symbol versions than any executable needs".to_string());
                }
                if let Some(version) = glibc_version(&name(u64::from(r.u32(aux + 8)?))?) {
                    glibc = glibc.max(Some(version));
                }
                match r.u32(aux + 12)? {
                    0 => break,
                    next => aux += u64::from(next),
                }
            }
            match r.u32(entry + 12)? {
                0 => break,
                next => entry += u64::from(next),
            }
        }
    }
    Ok((needed, glibc))
}

/// `GLIBC_2.34` → `(2, 34)`; `GLIBC_PRIVATE` and other names → `None`.
fn glibc_version(name: &str) -> Option<GlibcVersion> {
    let v = name.strip_prefix("GLIBC_")?;
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_binary_is_read() {
        // The tests run as a glibc build on x86_64 here; wherever they run,
        // the reader must at least agree with the target it was built for.
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let exe = read(&me).unwrap();
        let expected = match std::env::consts::ARCH {
            "x86_64" => Arch::Amd64,
            "aarch64" => Arch::Arm64,
            other => panic!("no expectation for {other}"),
        };
        assert_eq!(exe.arch, expected);
        if cfg!(all(target_env = "gnu", not(target_feature = "crt-static"))) {
            let Linking::Dynamic {
                interpreter,
                needed,
                glibc,
            } = &exe.linking
            else {
                panic!("a glibc test binary is dynamic: {exe}");
            };
            assert!(interpreter.contains("ld-linux"), "{interpreter}");
            assert!(
                needed.iter().any(|n| n.starts_with("libc.so")),
                "{needed:?}"
            );
            assert!(glibc.is_some_and(|v| v >= (2, 17)), "{glibc:?}");
        }
    }

    /// A minimal ELF64 header and program headers, little endian.
    fn elf(machine: u16, phdrs: &[(u32, u64, u64, u64)], tail: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[16..18].copy_from_slice(&3u16.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[32..40].copy_from_slice(&64u64.to_le_bytes());
        b[54..56].copy_from_slice(&56u16.to_le_bytes());
        b[56..58].copy_from_slice(&(phdrs.len() as u16).to_le_bytes());
        for &(kind, offset, vaddr, filesz) in phdrs {
            let mut p = vec![0u8; 56];
            p[..4].copy_from_slice(&kind.to_le_bytes());
            p[8..16].copy_from_slice(&offset.to_le_bytes());
            p[16..24].copy_from_slice(&vaddr.to_le_bytes());
            p[32..40].copy_from_slice(&filesz.to_le_bytes());
            b.extend(p);
        }
        b.extend_from_slice(tail);
        b
    }

    #[test]
    fn static_executables_and_architectures() {
        let arm = read(&elf(183, &[(PT_LOAD, 0, 0, 120)], &[])).unwrap();
        assert_eq!(arm.arch, Arch::Arm64);
        assert_eq!(arm.linking, Linking::Static);
        assert_eq!(arm.to_string(), "aarch64 (arm64), statically linked");
        let e = read(&elf(40, &[], &[])).unwrap_err();
        assert!(e.contains("ELF machine 40"), "{e}");
    }

    #[test]
    fn dynamic_executables_name_their_interpreter_libraries_and_glibc() {
        // Layout after the headers (64 + 3 * 56 = 232): the interpreter at
        // 232, the string table at 260, verneed at 300, dynamic at 352.
        let base = 64 + 3 * 56;
        let mut tail = vec![0u8; 200];
        let put = |t: &mut Vec<u8>, at: usize, bytes: &[u8]| {
            t[at - base..at - base + bytes.len()].copy_from_slice(bytes)
        };
        put(&mut tail, 232, b"/lib64/ld-linux-x86-64.so.2\0");
        // strtab: "\0libc.so.6\0GLIBC_2.34\0GLIBC_2.17\0"
        put(&mut tail, 260, b"\0libc.so.6\0GLIBC_2.34\0GLIBC_2.17\0");
        // verneed: one file (libc.so.6, name 1) with two aux entries.
        let mut vn = Vec::new();
        vn.extend(1u16.to_le_bytes());
        vn.extend(2u16.to_le_bytes());
        vn.extend(1u32.to_le_bytes());
        vn.extend(16u32.to_le_bytes());
        vn.extend(0u32.to_le_bytes());
        for (name, next) in [(22u32, 16u32), (11, 0)] {
            vn.extend(0u32.to_le_bytes());
            vn.extend(0u16.to_le_bytes());
            vn.extend(0u16.to_le_bytes());
            vn.extend(name.to_le_bytes());
            vn.extend(next.to_le_bytes());
        }
        put(&mut tail, 300, &vn);
        let mut dynamic = Vec::new();
        for (tag, value) in [
            (DT_NEEDED, 1u64),
            (DT_STRTAB, 260),
            (DT_VERNEED, 300),
            (DT_VERNEEDNUM, 1),
            (DT_NULL, 0),
        ] {
            dynamic.extend(tag.to_le_bytes());
            dynamic.extend(value.to_le_bytes());
        }
        put(&mut tail, 352, &dynamic);
        let bytes = elf(
            62,
            &[
                (PT_LOAD, 0, 0, 432),
                (PT_INTERP, 232, 232, 28),
                (PT_DYNAMIC, 352, 352, 80),
            ],
            &tail,
        );
        let exe = read(&bytes).unwrap();
        assert_eq!(
            exe.linking,
            Linking::Dynamic {
                interpreter: "/lib64/ld-linux-x86-64.so.2".into(),
                needed: vec!["libc.so.6".into()],
                glibc: Some((2, 34)),
            }
        );
        assert_eq!(
            exe.to_string(),
            "x86_64 (amd64), dynamically linked (interpreter /lib64/ld-linux-x86-64.so.2, needs glibc 2.34)"
        );
        // Cut anywhere, it is an error, never a panic.
        for len in 0..bytes.len() {
            let _ = read(&bytes[..len]);
        }
    }

    #[test]
    fn not_executables() {
        assert_eq!(read(b"#!/bin/sh\n").unwrap_err(), "not an ELF executable");
        let mut b = elf(62, &[], &[]);
        b[4] = 1;
        assert!(read(&b).unwrap_err().contains("32-bit"));
        assert_eq!(glibc_version("GLIBC_PRIVATE"), None);
        assert_eq!(glibc_version("GLIBC_2.2.5"), Some((2, 2)));
    }
}
