//! A line diff of what a scenario expected against what happened: the
//! longest common subsequence of lines, the rest marked `-` (expected only)
//! and `+` (actual only). Scenario documents are a few lines long, so the
//! quadratic table costs nothing.

/// `expected` against `actual`, one line of output per line of either: `  `
/// for a line both have, `- ` for one only `expected` has, `+ ` for one only
/// `actual` has, in the order of the two texts.
pub fn line_diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = if a[i] == b[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j == b.len() || (i < a.len() && common[i + 1][j] >= common[i][j + 1]) {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line_diff;

    #[test]
    fn equal_texts_have_no_marked_line() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "  a\n  b\n");
    }

    #[test]
    fn a_changed_line_is_removed_then_added() {
        assert_eq!(
            line_diff(
                "kind: active\nmessage: ''\n",
                "kind: blocked\nmessage: ''\n"
            ),
            "- kind: active\n+ kind: blocked\n  message: ''\n"
        );
    }

    #[test]
    fn lines_only_one_side_has_keep_their_order() {
        assert_eq!(line_diff("a\nb\nc\n", "a\nc\nd\n"), "  a\n- b\n  c\n+ d\n");
        assert_eq!(line_diff("", "x\n"), "+ x\n");
        assert_eq!(line_diff("x\n", ""), "- x\n");
    }
}
