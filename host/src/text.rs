//! Text as Juju and the OS can carry it (DESIGN §7): a value a handler hands
//! the host may end up in an argv element or in a YAML document Juju parses,
//! and one that cannot be carried must be fixed or refused at the call, not
//! stored to fail every later hook. Pure: no I/O.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Longest message kept in a scope (the merged one is cut to 120 characters;
/// the whole message stays available in `wasm-charm status`). Here, with the
/// text rules, so that [`status_message`] and the `status` interface's check
/// read one bound.
pub const MAX_MESSAGE: usize = 4096;

/// `s` as one argv element: NUL, the one character `execve` cannot pass (it
/// ends a C string), replaced by U+FFFD; nothing else changed.
pub fn argv_text(s: &str) -> Cow<'_, str> {
    if s.contains('\0') {
        Cow::Owned(s.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// A status message as `status-set` can take it: [`argv_text`], then cut to
/// [`MAX_MESSAGE`] bytes on a character boundary. For
/// messages that cannot be refused (a handler's return value) or were stored
/// by an older host that did not check them.
pub fn status_message(s: &str) -> String {
    let mut message = argv_text(s).into_owned();
    message.truncate(message.floor_char_boundary(MAX_MESSAGE));
    message
}

/// The JSON document for `relation-set --file -` (and `state-set --file -`).
/// Juju reads it as YAML (go-yaml v2), which refuses a document holding a raw
/// character outside YAML's printable set, so those are escaped as `\uXXXX`
/// (JSON escapes, which YAML's double-quoted scalars read the same way).
pub fn juju_json(map: &BTreeMap<String, String>) -> Vec<u8> {
    // A map of strings always serialises.
    let raw = serde_json::to_string(map).unwrap_or_default();
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        // Every character that needs it lies inside a string (JSON's own
        // syntax is printable ASCII) and in the BMP, so one `\uXXXX` is a
        // valid escape there.
        if needs_escape(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out.into_bytes()
}

/// Characters escaped by [`juju_json`]: those outside YAML 1.1's printable
/// set (C0 controls but tab/LF/CR, which serde_json escapes anyway; DEL; the
/// C1 block, NEL included; U+FFFE, U+FFFF), and the line and paragraph
/// separators, which go-yaml reads as line breaks and folds inside a quoted
/// scalar, changing the value.
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\0'..='\u{8}'
            | '\u{b}'
            | '\u{c}'
            | '\u{e}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{fffe}'
            | '\u{ffff}'
    )
}

/// Lower-case hexadecimal: how hashes are named in file names and keys.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The name nearest to `wanted` by edit distance; the first on a tie.
pub fn closest<'a>(wanted: &str, names: &'a [String]) -> Option<&'a str> {
    names
        .iter()
        .min_by_key(|n| edit_distance(wanted, n))
        .map(String::as_str)
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let replace = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = replace.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// YAML 1.1's printable set (`c-printable`).
    fn yaml_printable(c: char) -> bool {
        matches!(c,
            '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
            | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
    }

    #[test]
    fn argv_text_replaces_only_nul() {
        assert!(matches!(argv_text("plain é"), Cow::Borrowed("plain é")));
        assert_eq!(argv_text("a\0b\0"), "a\u{FFFD}b\u{FFFD}");
        assert_eq!(argv_text("\t\n\u{7f}"), "\t\n\u{7f}");
    }

    #[test]
    fn status_message_is_carried_and_bounded() {
        assert_eq!(status_message("bad\0message"), "bad\u{FFFD}message");
        let max = MAX_MESSAGE;
        let long = "é".repeat(max);
        let cut = status_message(&long);
        assert_eq!(cut.len(), max);
        // NUL grows to three bytes: the bound holds after the replacement.
        let nuls = "\0".repeat(max);
        let cut = status_message(&nuls);
        assert!(cut.len() <= max && cut.len() > max - 3);
        assert!(cut.chars().all(|c| c == '\u{FFFD}'));
    }

    #[test]
    fn juju_json_escapes_what_yaml_refuses() {
        let map: BTreeMap<String, String> = [
            (
                "k\u{7f}".to_string(),
                "\0\u{85}\u{9f}\u{fffe}\u{ffff}".to_string(),
            ),
            ("plain".to_string(), "é 😀 \u{fffd}".to_string()),
        ]
        .into();
        let doc = String::from_utf8(juju_json(&map)).unwrap();
        assert_eq!(
            doc,
            r#"{"k\u007f":"\u0000\u0085\u009f\ufffe\uffff","plain":"é 😀 �"}"#
        );
    }

    proptest! {
        #[test]
        fn argv_text_has_no_nul_and_changes_nothing_else(s in any::<String>()) {
            let t = argv_text(&s);
            prop_assert!(!t.contains('\0'));
            prop_assert_eq!(t.replace('\u{FFFD}', "\0"), s.replace('\u{FFFD}', "\0"));
            prop_assert_eq!(t.chars().count(), s.chars().count());
        }

        #[test]
        fn status_message_is_a_bounded_prefix(s in any::<String>(), n in 0usize..3) {
            let s = s.repeat(n * 2000 + 1);
            let m = status_message(&s);
            prop_assert!(m.len() <= MAX_MESSAGE);
            prop_assert!(!m.contains('\0'));
            prop_assert!(argv_text(&s).starts_with(&m));
        }

        #[test]
        fn juju_json_round_trips_and_is_yaml_printable(
            map in prop::collection::btree_map(any::<String>(), any::<String>(), 0..8)
        ) {
            let doc = juju_json(&map);
            let text = std::str::from_utf8(&doc).unwrap();
            prop_assert!(text.chars().all(yaml_printable), "{text:?}");
            let back: BTreeMap<String, String> = serde_json::from_slice(&doc).unwrap();
            prop_assert_eq!(back, map);
        }

        #[test]
        fn juju_json_escapes_every_awkward_character(c in any::<char>()) {
            let map: BTreeMap<String, String> = [(String::new(), c.to_string())].into();
            let text = String::from_utf8(juju_json(&map)).unwrap();
            prop_assert!(text.chars().all(yaml_printable), "{text:?}");
            let breaks = ['\u{2028}', '\u{2029}', '\u{85}'];
            prop_assert!(!text.contains(breaks), "{:?}", text);
        }
    }
}
