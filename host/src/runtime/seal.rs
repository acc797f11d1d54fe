//! The seal of a precompiled artifact: the SHA-256 of the component it was
//! compiled from and of the compiled bytes, appended to the artifact by
//! the host that compiled it (`pack`, the CLI), so that a host loading it
//! can tell an artifact of another component, or one edited since, from
//! the compilation of the `charm.wasm` beside it without compiling.
//!
//! A seal is no signature: whoever can write an artifact can write a seal
//! that matches it. It catches what was not made to deceive (an artifact
//! copied from another charm, a damaged or hand-edited one, one left from
//! an older component), and the host checks it at every load that cannot
//! reuse an earlier check. Against an author who forges both, only
//! `wasm-charm verify`, which compiles the component again and compares
//! every byte, is proof (docs/trust.md).
//!
//! The seal follows wasmtime's ELF image, which wasmtime maps whole and
//! reads by its section table, so bytes past the last section are never
//! looked at: `<artifact> <text> <u32 LE: text's length> "wcseal01"`, the
//! text `wasm-charm seal 1\ncomponent <hex>\nartifact <hex>\n`.
//!
//! Pure: bytes in, verdict out; the I/O and the memo of checks that passed
//! are [`super::cache`]'s.

use crate::text::hex;
use sha2::{Digest as _, Sha256};

/// The last bytes of a sealed artifact.
pub const MAGIC: &[u8; 8] = b"wcseal01";
const HEADER: &str = "wasm-charm seal 1";
/// The longest seal text accepted: the text is a few lines of hex.
const MAX_TEXT: usize = 1024;

/// What a seal records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    /// The SHA-256 of the component, lower-case hex.
    pub component: String,
    /// The SHA-256 of the artifact's bytes before the seal.
    pub artifact: String,
}

/// Why an artifact is not the sealed compilation of a component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// It carries no seal (compiled by a wasm-charm before seals, or not
    /// by wasm-charm at all).
    Unsealed,
    /// Its seal cannot be read.
    Malformed(String),
    /// Its seal names another component.
    OtherComponent { sealed: String, expected: String },
    /// Its bytes are not those the seal records: edited or damaged.
    Edited { recorded: String, actual: String },
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::Unsealed => f.write_str(
                "it carries no seal: not compiled by this wasm-charm's `pack` (or by one before 0.2)",
            ),
            Broken::Malformed(why) => write!(f, "its seal cannot be read: {why}"),
            Broken::OtherComponent { sealed, expected } => write!(
                f,
                "it is the compilation of another component (sha256 {sealed}), not of this \
                 charm's (sha256 {expected})"
            ),
            Broken::Edited { recorded, actual } => write!(
                f,
                "its bytes were changed after it was compiled (sha256 {actual}, its seal \
                 records {recorded})"
            ),
        }
    }
}

/// `artifact` with its seal for the component whose SHA-256 is `component`.
pub fn append(mut artifact: Vec<u8>, component: &str) -> Vec<u8> {
    let text = format!(
        "{HEADER}\ncomponent {component}\nartifact {}\n",
        hex(&Sha256::digest(&artifact))
    );
    let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
    artifact.extend_from_slice(text.as_bytes());
    artifact.extend_from_slice(&len.to_le_bytes());
    artifact.extend_from_slice(MAGIC);
    artifact
}

/// The artifact's bytes before its seal, and the seal.
pub fn split(bytes: &[u8]) -> Result<(&[u8], Seal), Broken> {
    let Some(rest) = bytes.strip_suffix(MAGIC.as_slice()) else {
        return Err(Broken::Unsealed);
    };
    let Some((rest, len)) = rest.split_last_chunk::<4>() else {
        return Err(Broken::Malformed("too short".into()));
    };
    let len = u32::from_le_bytes(*len) as usize;
    if len > MAX_TEXT || len > rest.len() {
        return Err(Broken::Malformed(format!(
            "a seal of {len} bytes in an artifact of {}",
            bytes.len()
        )));
    }
    let (artifact, text) = rest.split_at(rest.len() - len);
    let text = std::str::from_utf8(text).map_err(|_| Broken::Malformed("not UTF-8".into()))?;
    Ok((artifact, parse(text)?))
}

fn parse(text: &str) -> Result<Seal, Broken> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(Broken::Malformed(format!(
            "it does not start with `{HEADER}`"
        )));
    }
    let mut field = |name: &str| -> Result<String, Broken> {
        let value = lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .ok_or_else(|| Broken::Malformed(format!("no `{name}` line")))?;
        // Lower-case only: one spelling of each seal, so that any byte
        // changed in it breaks it.
        let hex_digit = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if value.len() != 64 || !value.bytes().all(hex_digit) {
            return Err(Broken::Malformed(format!(
                "`{name}` is not a SHA-256 in lower-case hex"
            )));
        }
        Ok(value.to_string())
    };
    let seal = Seal {
        component: field("component")?,
        artifact: field("artifact")?,
    };
    if lines.next().is_some() {
        return Err(Broken::Malformed("more lines than it has fields".into()));
    }
    Ok(seal)
}

/// Check that `bytes` are an artifact sealed for the component whose
/// SHA-256 is `component`, and unchanged since: its bytes before the seal
/// on success, for wasmtime.
pub fn check<'a>(bytes: &'a [u8], component: &str) -> Result<&'a [u8], Broken> {
    let (artifact, seal) = split(bytes)?;
    if seal.component != component {
        return Err(Broken::OtherComponent {
            sealed: seal.component,
            expected: component.to_string(),
        });
    }
    let actual = hex(&Sha256::digest(artifact));
    if actual != seal.artifact {
        return Err(Broken::Edited {
            recorded: seal.artifact,
            actual,
        });
    }
    Ok(artifact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sha(bytes: &[u8]) -> String {
        hex(&Sha256::digest(bytes))
    }

    #[test]
    fn each_kind_of_break_is_told_apart() {
        let component = sha(b"component");
        let sealed = append(b"\x7fELF artifact".to_vec(), &component);
        assert_eq!(check(&sealed, &component), Ok(&b"\x7fELF artifact"[..]));
        assert_eq!(
            check(b"\x7fELF artifact", &component),
            Err(Broken::Unsealed)
        );
        let other = sha(b"other");
        assert!(matches!(
            check(&sealed, &other),
            Err(Broken::OtherComponent { sealed, expected }) if sealed == component && expected == other
        ));
        let mut edited = sealed.clone();
        edited[1] = b'e';
        assert!(matches!(
            check(&edited, &component),
            Err(Broken::Edited { .. })
        ));
        let mut huge = b"x".to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        huge.extend_from_slice(MAGIC);
        assert!(matches!(
            check(&huge, &component),
            Err(Broken::Malformed(_))
        ));
    }

    #[test]
    fn a_seal_in_upper_case_hex_is_refused() {
        let component = sha(b"c");
        let artifact = b"artifact".to_vec();
        let text = format!(
            "{HEADER}\ncomponent {}\nartifact {}\n",
            component.to_uppercase(),
            sha(&artifact)
        );
        let mut bytes = artifact.clone();
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(MAGIC);
        assert!(matches!(
            check(&bytes, &component),
            Err(Broken::Malformed(_))
        ));
    }

    proptest! {
        /// Sealing then checking gives back the artifact; any one byte
        /// changed anywhere (artifact or seal) breaks the check.
        #[test]
        fn a_seal_holds_its_artifact_and_no_other(
            artifact in proptest::collection::vec(any::<u8>(), 0..512),
            component in proptest::collection::vec(any::<u8>(), 0..64),
            flip in any::<prop::sample::Index>(),
            bit in 0u8..8,
        ) {
            let component = sha(&component);
            let sealed = append(artifact.clone(), &component);
            prop_assert_eq!(check(&sealed, &component), Ok(&artifact[..]));
            let mut changed = sealed.clone();
            let at = flip.index(changed.len());
            changed[at] ^= 1 << bit;
            prop_assert!(check(&changed, &component).is_err(), "flipped byte {}", at);
        }

        /// Whatever the bytes, reading a seal never panics.
        #[test]
        fn any_bytes_are_judged_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = check(&bytes, &sha(b"c"));
        }
    }
}
