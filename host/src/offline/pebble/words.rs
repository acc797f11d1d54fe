//! A command line split into words as a POSIX shell splits it, without
//! running one: blanks separate words, single quotes keep everything,
//! double quotes keep all but `\"`, `\\`, `\$` and `` \` ``, a backslash
//! outside quotes keeps the next character. No expansion of any kind.

/// Why a command line cannot be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    OpenQuote(&'static str, String),
    EndingBackslash(String),
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::OpenQuote(which, text) => {
                write!(f, "an unclosed {which} quote in `{text}`")
            }
            SplitError::EndingBackslash(text) => write!(f, "a backslash ends `{text}`"),
        }
    }
}

impl SplitError {
    /// The words of Pebble's command splitter for the same fault.
    pub fn go_words(&self) -> &'static str {
        match self {
            SplitError::OpenQuote(..) => "EOF found when expecting closing quote",
            SplitError::EndingBackslash(_) => "EOF found after escape character",
        }
    }
}

/// The words of `text`, or why it cannot be split (an open quote).
pub fn split(text: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::OpenQuote("single", text.into())),
                    }
                }
            }
            '"' => {
                in_word = true;
                double_quoted(&mut chars, &mut word)
                    .ok_or_else(|| SplitError::OpenQuote("double", text.into()))?;
            }
            '\\' => match chars.next() {
                // A line continuation.
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => return Err(SplitError::EndingBackslash(text.into())),
            },
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The rest of a double-quoted string; `None` when it is not closed.
fn double_quoted(chars: &mut std::str::Chars<'_>, word: &mut String) -> Option<()> {
    loop {
        match chars.next()? {
            '"' => return Some(()),
            '\\' => match chars.next()? {
                c @ ('"' | '\\' | '$' | '`') => word.push(c),
                '\n' => {}
                c => {
                    word.push('\\');
                    word.push(c);
                }
            },
            c => word.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn words_split_as_a_shell_splits_them() {
        assert_eq!(split("sleep  300").unwrap(), ["sleep", "300"]);
        assert_eq!(
            split(r#"sh -c 'echo "a b"; exit 3' "x\"y" a\ b ''"#).unwrap(),
            ["sh", "-c", "echo \"a b\"; exit 3", "x\"y", "a b", ""]
        );
        assert_eq!(split(r#""a\nb""#).unwrap(), ["a\\nb"]);
        assert!(split("").unwrap().is_empty());
        assert!(split("'open").is_err());
        assert!(split("\"open").is_err());
        assert!(split("end\\").is_err());
    }
}
