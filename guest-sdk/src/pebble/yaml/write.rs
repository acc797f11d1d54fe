//! Writing block YAML.

use std::collections::BTreeMap;
use std::fmt;

/// Block YAML, written entry by entry: mappings one entry a line, two
/// spaces deeper at each level; strings plain when YAML reads them back as
/// the same text, else double-quoted with JSON's escapes (which YAML's
/// double-quoted style reads). Empty text, lists and maps are left out.
pub(crate) struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    pub(crate) fn new() -> Self {
        Writer {
            out: String::new(),
            indent: 0,
        }
    }

    /// The YAML written; `{}` for nothing.
    pub(crate) fn finish(self) -> String {
        if self.out.is_empty() {
            "{}\n".to_string()
        } else {
            self.out
        }
    }

    fn key(&mut self, key: &str) {
        self.out.extend(std::iter::repeat_n(' ', self.indent));
        self.out.push_str(&scalar(key));
        self.out.push(':');
    }

    /// `key: text`, unless `text` is empty.
    pub(crate) fn text(&mut self, key: &str, text: &str) {
        if !text.is_empty() {
            self.key(key);
            self.out.push(' ');
            self.out.push_str(&scalar(text));
            self.out.push('\n');
        }
    }

    /// `key: value` for a number or a name that needs no quotes, unless
    /// `None`.
    pub(crate) fn plain(&mut self, key: &str, value: Option<impl fmt::Display>) {
        if let Some(value) = value {
            self.key(key);
            self.out.push(' ');
            self.out.push_str(&value.to_string());
            self.out.push('\n');
        }
    }

    /// `key:` and the items, one a line, unless there are none.
    pub(crate) fn list(&mut self, key: &str, items: &[String]) {
        if items.is_empty() {
            return;
        }
        self.key(key);
        self.out.push('\n');
        for item in items {
            self.out.extend(std::iter::repeat_n(' ', self.indent + 2));
            self.out.push_str("- ");
            self.out.push_str(&scalar(item));
            self.out.push('\n');
        }
    }

    /// `key:` and a mapping of text, unless it is empty.
    pub(crate) fn map<V: AsRef<str>>(&mut self, key: &str, entries: &BTreeMap<String, V>) {
        self.entries(key, entries, |w, name, value| w.text(name, value.as_ref()));
    }

    /// `key:` and one entry a line, each written by `write`, unless there
    /// are none.
    pub(crate) fn entries<V>(
        &mut self,
        key: &str,
        entries: &BTreeMap<String, V>,
        mut write: impl FnMut(&mut Writer, &str, &V),
    ) {
        if entries.is_empty() {
            return;
        }
        self.section(key, |w| {
            for (name, value) in entries {
                write(w, name, value);
            }
        });
    }

    /// `key:` and the mapping `write` writes one level deeper (`{}` when
    /// it writes nothing).
    pub(crate) fn section(&mut self, key: &str, write: impl FnOnce(&mut Writer)) {
        self.key(key);
        let start = self.out.len();
        self.out.push('\n');
        self.indent += 2;
        write(self);
        self.indent -= 2;
        if self.out.len() == start + 1 {
            self.out.truncate(start);
            self.out.push_str(" {}\n");
        }
    }
}

/// `text` as a scalar that YAML reads back as that text.
fn scalar(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_string()
    } else {
        quoted(text)
    }
}

/// `text` double-quoted, escaped as JSON escapes (YAML reads JSON's
/// escapes in its double-quoted style).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `text`, written plain, is read back as the same text (and not as
/// a number, a boolean, null, a comment, a key or a collection), by YAML 1.1
/// and 1.2 readers alike.
fn is_plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let reserved = [
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
    ];
    !(first.is_ascii_digit()
        || "-?:,[]{}#&*!|>'\"%@`+.=<".contains(first)
        || text.starts_with(char::is_whitespace)
        || text.ends_with(char::is_whitespace)
        || text.ends_with(':')
        || text.contains(": ")
        || text.contains(" #")
        || text.chars().any(|c| c.is_control())
        || reserved.iter().any(|r| r.eq_ignore_ascii_case(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The node as JSON, plain scalars resolved: what a reader of
    /// `serde_json::Value` gets.
    fn read(text: &str) -> Value {
        super::super::from_str(text).unwrap_or_else(|e| panic!("{e} in\n{text}"))
    }

    #[test]
    fn written_yaml_reads_back_the_same() {
        let mut w = Writer::new();
        w.text("summary", "a: b # not a comment");
        w.text("empty", "");
        w.section("services", |w| {
            w.section("web", |w| {
                w.text("command", "/usr/bin/web --port 8080");
                w.list(
                    "after",
                    &["db".to_string(), "-dash".to_string(), "123".to_string()],
                );
                let env: BTreeMap<String, &str> = [
                    ("NUM", "8080"),
                    ("YES", "yes"),
                    ("TAB", "a\tb \u{1}"),
                    ("QUOTE", "say \"hi\" \\o/"),
                    ("UNICODE", "é ü"),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
                w.map("environment", &env);
                w.plain("threshold", Some(3));
                w.plain("factor", Some(1.5));
                w.plain("absent", None::<u8>);
                w.text("description", "two\nlines");
                w.list("none", &[]);
            });
            w.section("needs quoting: yes", |_| {});
        });
        let text = w.finish();
        assert_eq!(
            read(&text),
            json!({
                "summary": "a: b # not a comment",
                "services": {
                    "web": {
                        "command": "/usr/bin/web --port 8080",
                        "after": ["db", "-dash", "123"],
                        "environment": {
                            "NUM": "8080",
                            "YES": "yes",
                            "TAB": "a\tb \u{1}",
                            "QUOTE": "say \"hi\" \\o/",
                            "UNICODE": "é ü",
                        },
                        "threshold": 3,
                        "factor": 1.5,
                        "description": "two\nlines",
                    },
                    "needs quoting: yes": {},
                },
            }),
            "{text}"
        );
        assert!(
            text.contains("\n    command: /usr/bin/web --port 8080\n"),
            "{text}"
        );
        assert!(text.contains("\n      - db\n"), "{text}");
        assert!(text.contains("\"123\""), "{text}");
        assert_eq!(Writer::new().finish(), "{}\n");
    }
}
