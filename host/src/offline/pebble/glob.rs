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

/// One piece of a checked pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Star,
    Any,
    /// The class opening at this index of the pattern.
    Class(usize),
    Char(char),
}

fn tokens(p: &[char]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let (token, next) = match p[i] {
            '*' => (Token::Star, i + 1),
            '?' => (Token::Any, i + 1),
            '[' => (
                Token::Class(i),
                class(p, i, '\0').map_or(p.len(), |(_, end)| end),
            ),
            '\\' => (Token::Char(p.get(i + 1).copied().unwrap_or('\\')), i + 2),
            c => (Token::Char(c), i + 1),
        };
        out.push(token);
        i = next;
    }
    out
}

/// Whether `token` (not a star) matches the one character `c`.
fn one(p: &[char], token: Token, c: char) -> bool {
    match token {
        Token::Star => false,
        Token::Any => c != '/',
        Token::Class(at) => c != '/' && class(p, at, c).is_ok_and(|(found, _)| found),
        Token::Char(x) => x == c,
    }
}

/// A checked pattern against a name: each star takes characters but `/`,
/// retried from the last star only, so time stays the product of the
/// lengths whatever the pattern.
fn match_from(p: &[char], n: &[char]) -> bool {
    let toks = tokens(p);
    let (mut ti, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match toks.get(ti) {
            Some(Token::Star) => {
                star = Some((ti, ni));
                ti += 1;
            }
            Some(t) if one(p, *t, n[ni]) => {
                ti += 1;
                ni += 1;
            }
            _ => match star {
                Some((st, sn)) if n[sn] != '/' => {
                    star = Some((st, sn + 1));
                    ti = st + 1;
                    ni = sn + 1;
                }
                _ => return false,
            },
        }
    }
    toks[ti.min(toks.len())..].iter().all(|t| *t == Token::Star)
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
        yes("*a*", "bab");
        no("*a*b", "aaa");
        // Many stars against a long name: answered at once.
        let stars = "*a".repeat(100) + "b";
        no(&stars, &"a".repeat(250));
    }

    #[test]
    fn malformed_patterns_are_refused() {
        for p in ["[", "[a", "a\\", "[]", "[-a]", "[a-", "[a-]", "x[a"] {
            assert_eq!(matches(p, "x"), Err(BadPattern), "{p}");
        }
    }
}
