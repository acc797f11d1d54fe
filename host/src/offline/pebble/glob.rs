//! `list-files`' `pattern`: a glob on an entry's base name, as Go's
//! `path.Match` reads it: `*` any run of characters but `/`, `?` one,
//! `[...]` a class (`^` negating, `a-z` ranges), `\` quoting the next.

/// Whether `name` matches `pattern`; `Err` when the pattern is malformed.
pub fn matches(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Malformed anywhere is an error even when an earlier part fails.
    check(&p)?;
    Ok(match_from(&p, &n))
}

/// A pattern `path.Match` refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPattern;

/// Every class closed, every escape followed by a character.
fn check(p: &[char]) -> Result<(), BadPattern> {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' if i + 1 == p.len() => return Err(BadPattern),
            '\\' => i += 2,
            '[' => i = class(p, i, '\0')?.1,
            _ => i += 1,
        }
    }
    Ok(())
}

/// One character of a class, unquoted, and where the next begins; an
/// unquoted `-` or `]` there is malformed, as Go has it.
fn class_char(p: &[char], i: usize) -> Result<(char, usize), BadPattern> {
    match p.get(i) {
        None | Some('-' | ']') => Err(BadPattern),
        Some('\\') => p.get(i + 1).map(|c| (*c, i + 2)).ok_or(BadPattern),
        Some(c) => Ok((*c, i + 1)),
    }
}

/// Whether `c` is in the class opening at `start`, and where it ends.
fn class(p: &[char], start: usize, c: char) -> Result<(bool, usize), BadPattern> {
    let mut i = start + 1;
    let negated = p.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut found = false;
    let mut ranges = 0;
    loop {
        if p.get(i) == Some(&']') && ranges > 0 {
            return Ok((found != negated, i + 1));
        }
        let (lo, next) = class_char(p, i)?;
        i = next;
        let mut hi = lo;
        if p.get(i) == Some(&'-') {
            (hi, i) = class_char(p, i + 1)?;
        }
        found |= lo <= c && c <= hi;
        ranges += 1;
    }
}

fn match_from(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len())
            .take_while(|k| n[..*k].iter().all(|c| *c != '/'))
            .any(|k| match_from(&p[1..], &n[k..])),
        Some(_) if n.is_empty() => false,
        Some('?') => n[0] != '/' && match_from(&p[1..], &n[1..]),
        Some('[') => {
            // Checked before: the class is well formed.
            let (ok, end) = class(p, 0, n[0]).unwrap_or((false, p.len()));
            ok && n[0] != '/' && match_from(&p[end..], &n[1..])
        }
        Some('\\') => p.get(1) == Some(&n[0]) && match_from(&p[2..], &n[1..]),
        Some(c) => *c == n[0] && match_from(&p[1..], &n[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_as_path_match_does() {
        let yes = |p: &str, n: &str| assert_eq!(matches(p, n), Ok(true), "{p} {n}");
        let no = |p: &str, n: &str| assert_eq!(matches(p, n), Ok(false), "{p} {n}");
        yes("*.conf", "web.conf");
        no("*.conf", "web.conf.bak");
        yes("*", "");
        no("*", "a/b");
        yes("w?b", "web");
        no("w?b", "weeb");
        yes("[a-c]x", "bx");
        no("[a-c]x", "dx");
        yes("[^a-c]x", "dx");
        yes("[!]x", "!x");
        yes("\\*", "*");
        no("\\*", "a");
        yes("a*b*c", "aXbYc");
        yes("[\\]]", "]");
    }

    #[test]
    fn malformed_patterns_are_refused() {
        for p in ["[", "[a", "a\\", "[]", "[-a]", "[a-", "[a-]", "x[a"] {
            assert_eq!(matches(p, "x"), Err(BadPattern), "{p}");
        }
    }
}
