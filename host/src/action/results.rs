//! Action results as Juju takes them (reference juju-protocol.md §2.12):
//! keys checked as `action-set` checks them, each `key=value` within one argv
//! element, and the argv of one call bounded. Pure: no I/O.

use std::collections::BTreeSet;

/// Longest argv element: Linux's `MAX_ARG_STRLEN` is 128 KiB with the
/// terminating NUL (ops splits its log lines at the same 131071 bytes).
pub const MAX_ARG_ELEMENT: usize = 128 * 1024 - 1;

/// Argv bytes one `action-set` call carries at most: Linux caps argv and
/// the environment together (`ARG_MAX`, 2 MiB with the default 8 MiB stack);
/// results past this go in further calls, which Juju merges.
pub const MAX_ARGV_PER_CALL: usize = 512 * 1024;

/// Segments Juju keeps for the action's own output: `action-set` refuses
/// them.
pub const RESERVED: &[&str] = &["stdout", "stdout-encoding", "stderr", "stderr-encoding"];

/// Check one result key as `action-set` does: dot-separated segments, each
/// `^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`, none of them reserved. `Err` names
/// the key and the segment.
pub fn check_key(key: &str) -> Result<(), String> {
    for segment in key.split('.') {
        if !is_key_segment(segment) {
            return Err(format!(
                "result key `{}`: segment `{}` must be lowercase letters, digits and inner dashes \
                 (each dot-separated segment matches ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$)",
                key.escape_debug(),
                segment.escape_debug()
            ));
        }
        if RESERVED.contains(&segment) {
            return Err(format!(
                "result key `{key}`: `{segment}` is reserved by Juju for the action's own output \
                 (stdout, stdout-encoding, stderr, stderr-encoding)"
            ));
        }
    }
    Ok(())
}

/// One dot-separated segment of a result key as Juju takes it:
/// `^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`. Shared with the simulated Juju.
pub fn is_key_segment(segment: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    edge(segment.chars().next())
        && edge(segment.chars().last())
        && segment
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Check the results of one call: every key, every value (no NUL, each
/// `key=value` within [`MAX_ARG_ELEMENT`]), no key twice and none under
/// another key of the same call (`a` and `a.b`: a result is a value or a
/// map, and which one Juju keeps would depend on the order). `Err` names
/// the key.
pub fn check(results: &[(String, String)]) -> Result<(), String> {
    let mut keys = BTreeSet::new();
    for (key, value) in results {
        check_key(key)?;
        if value.contains('\0') {
            return Err(format!(
                "result `{key}`: the value contains a NUL character, which argv cannot carry; remove it"
            ));
        }
        let element = key.len() + 1 + value.len();
        if element > MAX_ARG_ELEMENT {
            return Err(format!(
                "result `{key}`: `{key}=<value>` is {element} bytes, over the {MAX_ARG_ELEMENT} \
                 bytes of one argv element (Linux's 128 KiB); split the value over several keys \
                 (`{key}.part-1`, …) or shorten it"
            ));
        }
        if !keys.insert(key.as_str()) {
            return Err(format!("result `{key}` is given twice in one call"));
        }
    }
    for key in &keys {
        let mut parent = *key;
        while let Some((up, _)) = parent.rsplit_once('.') {
            if keys.contains(up) {
                return Err(format!(
                    "result `{key}` is under result `{up}` of the same call: a result is a value or a map of results, not both"
                ));
            }
            parent = up;
        }
    }
    Ok(())
}

/// The `key=value` arguments of the `action-set` calls that send `results`,
/// each call's within [`MAX_ARGV_PER_CALL`] bytes (an element counts its
/// terminating NUL); every checked element fits in a call of its own.
pub fn calls(results: &[(String, String)]) -> Vec<Vec<String>> {
    let mut calls: Vec<Vec<String>> = Vec::new();
    let mut size = 0;
    for (key, value) in results {
        let element = format!("{key}={value}");
        let cost = element.len() + 1;
        match calls.last_mut() {
            Some(call) if size + cost <= MAX_ARGV_PER_CALL => call.push(element),
            _ => {
                calls.push(vec![element]);
                size = 0;
            }
        }
        size += cost;
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn keys_follow_jujus_rule() {
        for ok in ["a", "a1", "backup.size", "0", "x-y.z-9", "a.b.c"] {
            assert_eq!(check_key(ok), Ok(()), "{ok}");
        }
        for (bad, segment) in [
            ("", ""),
            ("A", "A"),
            ("a_b", "a_b"),
            ("-a", "-a"),
            ("a-", "a-"),
            ("a..b", ""),
            ("a.", ""),
            (".a", ""),
            ("a b", "a b"),
            ("é", "é"),
        ] {
            let e = check_key(bad).unwrap_err();
            assert!(e.contains(&format!("segment `{segment}`")), "{bad:?}: {e}");
        }
        for reserved in ["stdout", "a.stderr", "stdout-encoding.x", "stderr-encoding"] {
            let e = check_key(reserved).unwrap_err();
            assert!(e.contains("reserved by Juju"), "{reserved}: {e}");
        }
        // Only whole segments are reserved.
        assert_eq!(check_key("stdout2.stderrs"), Ok(()));
    }

    #[test]
    fn a_call_is_checked_whole() {
        assert_eq!(
            check(&pairs(&[("a.b", "1"), ("a.c", ""), ("ab", "x")])),
            Ok(())
        );
        let e = check(&pairs(&[("a", "1"), ("a", "2")])).unwrap_err();
        assert_eq!(e, "result `a` is given twice in one call");
        let e = check(&pairs(&[("a.b.c", "1"), ("a", "2")])).unwrap_err();
        assert!(e.starts_with("result `a.b.c` is under result `a`"), "{e}");
        let e = check(&pairs(&[("ok", "a\0b")])).unwrap_err();
        assert!(e.contains("result `ok`") && e.contains("NUL"), "{e}");
        let e = check(&pairs(&[("Bad", "x")])).unwrap_err();
        assert!(e.starts_with("result key `Bad`"), "{e}");
    }

    #[test]
    fn one_element_fits_in_one_argv_element() {
        let fits = "v".repeat(MAX_ARG_ELEMENT - "key=".len());
        assert_eq!(check(&[("key".into(), fits.clone())]), Ok(()));
        let e = check(&[("key".into(), fits + "v")]).unwrap_err();
        assert_eq!(
            e,
            "result `key`: `key=<value>` is 131072 bytes, over the 131071 bytes of one argv \
             element (Linux's 128 KiB); split the value over several keys (`key.part-1`, …) or \
             shorten it"
        );
    }

    #[test]
    fn calls_are_split_within_the_argv_bound() {
        assert!(calls(&[]).is_empty());
        assert_eq!(
            calls(&pairs(&[("a", "1"), ("b.c", "")])),
            vec![vec!["a=1".to_string(), "b.c=".to_string()]]
        );
        // Elements of the largest size: four of them, NULs counted, fill a
        // call exactly.
        let big = "v".repeat(MAX_ARG_ELEMENT - "k0=".len());
        let many: Vec<(String, String)> = (0..9).map(|i| (format!("k{i}"), big.clone())).collect();
        assert_eq!(check(&many), Ok(()));
        let split = calls(&many);
        assert_eq!(
            split.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 1]
        );
        for call in &split {
            let size: usize = call.iter().map(|e| e.len() + 1).sum();
            assert!(size <= MAX_ARGV_PER_CALL, "{size}");
        }
        let flat: Vec<String> = split.into_iter().flatten().collect();
        assert_eq!(flat.len(), 9);
        assert!(flat[8].starts_with("k8="));
    }
}
