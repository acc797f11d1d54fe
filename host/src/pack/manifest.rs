//! `manifest.yaml`, as `charmcraft pack` writes it into every `.charm`: the
//! bases (OS and release) and architectures the charm runs on, which Juju
//! reads when it loads the charm and matches against the machine it deploys
//! to. Pure: what `dispatch` needs in, the bases and the file's text out.
//!
//! wasm-charm names only what is true of the `dispatch` inside: its
//! architecture, from the ELF header, and the Ubuntu releases that can load
//! it. A static `dispatch` runs on every one; a glibc-linked one only where
//! the release's glibc is at least the newest version it asks for.

use super::elf::{Executable, GlibcVersion, Linking};

/// The Ubuntu releases Juju deploys machine charms to, with the glibc each
/// ships (20.04: 2.31, 22.04: 2.35, 24.04: 2.39).
pub const UBUNTU_BASES: &[(&str, GlibcVersion)] =
    &[("20.04", (2, 31)), ("22.04", (2, 35)), ("24.04", (2, 39))];

/// The Ubuntu channels (`20.04`, …) `dispatch` runs on, oldest first; an
/// error, saying why and what to do, when it runs on none.
pub fn channels(dispatch: &Executable) -> Result<Vec<&'static str>, String> {
    const STATIC_HINT: &str =
        "pack without --dispatch: it ships the static dispatch (scripts/build-dispatch builds it)";
    let all = || UBUNTU_BASES.iter().map(|(channel, _)| *channel);
    match &dispatch.linking {
        Linking::Static => Ok(all().collect()),
        Linking::Dynamic { interpreter, .. } if !interpreter.contains("/ld-linux") => Err(format!(
            "it is loaded by {interpreter}, which Ubuntu does not ship: {STATIC_HINT}"
        )),
        Linking::Dynamic { glibc: None, .. } => Ok(all().collect()),
        Linking::Dynamic {
            glibc: Some(needs), ..
        } => {
            let fits: Vec<_> = UBUNTU_BASES
                .iter()
                .filter(|(_, has)| has >= needs)
                .map(|(channel, _)| *channel)
                .collect();
            if fits.is_empty() {
                let (newest, (major, minor)) = UBUNTU_BASES[UBUNTU_BASES.len() - 1];
                return Err(format!(
                    "it needs glibc {}.{}, newer than any Ubuntu base Juju deploys to \
                     (ubuntu {newest} has {major}.{minor}): {STATIC_HINT}",
                    needs.0, needs.1
                ));
            }
            Ok(fits)
        }
    }
}

/// The text of `manifest.yaml`: charmcraft's fields, `started_at` an RFC 3339
/// UTC time, one base per channel, each with the one architecture inside.
pub fn text(version: &str, started_at: &str, channels: &[&str], arch: &str) -> String {
    let mut out = format!(
        "# Written by wasm-charm pack: the bases and architectures `dispatch` runs on.\n\
         charmcraft-version: wasm-charm-{version}\n\
         charmcraft-started-at: '{started_at}'\n\
         bases:\n"
    );
    for channel in channels {
        out.push_str(&format!(
            "- name: ubuntu\n  channel: '{channel}'\n  architectures:\n  - {arch}\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::elf::Arch;

    fn dynamic(interpreter: &str, glibc: Option<GlibcVersion>) -> Executable {
        Executable {
            arch: Arch::Amd64,
            linking: Linking::Dynamic {
                interpreter: interpreter.into(),
                needed: vec!["libc.so.6".into()],
                glibc,
            },
        }
    }

    #[test]
    fn a_static_dispatch_runs_on_every_base() {
        let exe = Executable {
            arch: Arch::Arm64,
            linking: Linking::Static,
        };
        assert_eq!(channels(&exe).unwrap(), ["20.04", "22.04", "24.04"]);
    }

    #[test]
    fn a_glibc_dispatch_runs_where_glibc_is_as_new() {
        let glibc = "/lib64/ld-linux-x86-64.so.2";
        assert_eq!(
            channels(&dynamic(glibc, Some((2, 34)))).unwrap(),
            ["22.04", "24.04"]
        );
        assert_eq!(
            channels(&dynamic(glibc, Some((2, 31)))).unwrap(),
            ["20.04", "22.04", "24.04"]
        );
        let e = channels(&dynamic(glibc, Some((2, 41)))).unwrap_err();
        assert!(e.contains("needs glibc 2.41"), "{e}");
        assert!(e.contains("--dispatch"), "{e}");
        let e = channels(&dynamic("/lib/ld-musl-x86_64.so.1", None)).unwrap_err();
        assert!(e.contains("ld-musl"), "{e}");
    }

    #[test]
    fn manifest_text_is_charmcraft_shaped_yaml() {
        let text = text(
            "0.1.0",
            "2026-11-30T12:00:00Z",
            &["20.04", "22.04"],
            "amd64",
        );
        let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({
                "charmcraft-version": "wasm-charm-0.1.0",
                "charmcraft-started-at": "2026-11-30T12:00:00Z",
                "bases": [
                    {"name": "ubuntu", "channel": "20.04", "architectures": ["amd64"]},
                    {"name": "ubuntu", "channel": "22.04", "architectures": ["amd64"]},
                ],
            })
        );
    }
}
