use super::*;
use serde_json::{Value, json};

/// The node as JSON, plain scalars resolved: what a reader of
/// `serde_json::Value` gets.
fn read(text: &str) -> Value {
    super::super::from_str(text).unwrap_or_else(|e| panic!("{e} in\n{text}"))
}

#[test]
fn block_mappings_and_sequences() {
    let text = "\
# a layer
summary: web layer
services:
    web:
        override: replace
        command: /usr/bin/web --port 8080   # the server
        after:
            - db
            - cache
        environment:
            A: '1'
            B: \"two\\tthree\"
        threshold: 3
        factor: 1.5
        on: true
        empty:
    list-at-key-indent:
    - a
    - b: 1
      c: 2
    -
      - nested
";
    assert_eq!(
        read(text),
        json!({
            "summary": "web layer",
            "services": {
                "web": {
                    "override": "replace",
                    "command": "/usr/bin/web --port 8080",
                    "after": ["db", "cache"],
                    "environment": {"A": "1", "B": "two\tthree"},
                    "threshold": 3,
                    "factor": 1.5,
                    "on": true,
                    "empty": null,
                },
                "list-at-key-indent": ["a", {"b": 1, "c": 2}, ["nested"]],
            },
        })
    );
}

#[test]
fn scalars_of_every_style() {
    let text = "\
literal: |
  line one
    indented
  line three
folded: >-
  one
  two

  three
keep: |+
  x

plain: a plain
  scalar over
  three lines
double: \"a \\\"quoted\\\" string
  folded\"
single: 'it''s'
url: http://localhost:8080/healthz
flow: [a, 'b c', {d: 1, e: [2, 3]}]
flow-map: {x: y, z: }
multi-line-flow: [
  one,
  two,
]
escaped: \"tab\\tnewline\\nunicode\\u00e9\"
colon-in-plain: a:b
dashes: --config
---key: value
";
    let value = read(text);
    assert_eq!(value["literal"], "line one\n  indented\nline three\n");
    assert_eq!(value["folded"], "one two\nthree");
    assert_eq!(value["keep"], "x\n\n");
    assert_eq!(value["plain"], "a plain scalar over three lines");
    assert_eq!(value["double"], "a \"quoted\" string folded");
    assert_eq!(value["single"], "it's");
    assert_eq!(value["url"], "http://localhost:8080/healthz");
    assert_eq!(value["flow"], json!(["a", "b c", {"d": 1, "e": [2, 3]}]));
    assert_eq!(value["flow-map"], json!({"x": "y", "z": null}));
    assert_eq!(value["multi-line-flow"], json!(["one", "two"]));
    assert_eq!(value["escaped"], "tab\tnewline\nunicode\u{e9}");
    assert_eq!(value["colon-in-plain"], "a:b");
    assert_eq!(value["dashes"], "--config");
    assert_eq!(value["---key"], "value");
}

#[test]
fn documents_markers_and_empty_text() {
    assert_eq!(read(""), Value::Null);
    assert_eq!(read("# nothing\n\n"), Value::Null);
    assert_eq!(read("---\na: 1\n...\nignored"), json!({"a": 1}));
    assert_eq!(read("--- {a: 1}\n"), json!({"a": 1}));
    assert_eq!(read("{}\n"), json!({}));
    assert!(parse("a: 1\n---\nb: 2\n").is_err());
}

#[test]
fn refusals_name_the_line() {
    let bad = |text: &str| parse(text).unwrap_err().to_string();
    assert!(
        bad("a: 1\n  b: 2\n").starts_with("line 2: "),
        "{}",
        bad("a: 1\n  b: 2\n")
    );
    assert!(bad("a: [1, 2\n").starts_with("line 1: "));
    assert!(bad("a: \"open\n").contains("does not end"));
    assert!(bad("a: &anchor 1\n").contains("anchors"));
    assert!(bad("a:\n\t- 1\n").contains("tab"));
    assert!(bad("a: 'x' y\n").contains("after a quoted scalar"));
}
