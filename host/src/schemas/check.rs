//! A bag checked against its side of a description: each value decoded by
//! its field's encoding and matched against its shape. Keys the
//! description does not name pass, as the schemas' pydantic models let
//! them, unless the key is one of the side's other bag (written to the
//! wrong bag) or a near miss of one of this bag's (a typo, which would
//! otherwise leave the other side waiting forever).

use super::{Bag, Description, Encoding, Field, Role, Shape};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The most violations one bag reports: past it, the rest are counted.
const MAX_REPORTED: usize = 20;

/// One field that does not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The key, and the path into its value (`certificates[0].ca`).
    pub field: String,
    pub problem: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

const BUILTIN: &[&str] = &[
    "string",
    "int",
    "bool",
    "secret-uri",
    "url",
    "host-ports",
    "any-object",
    "any",
];

/// `Err(name)`: a named shape that is neither built in nor in `types`.
pub fn known_shape(
    shape: &Shape,
    types: &BTreeMap<String, BTreeMap<String, Field>>,
) -> Result<(), String> {
    match shape {
        Shape::Named(n) if BUILTIN.contains(&n.as_str()) || types.contains_key(n) => Ok(()),
        Shape::Named(n) => Err(n.clone()),
        Shape::List { list: s } | Shape::Set { set: s } => known_shape(s, types),
        Shape::OneOf { .. } | Shape::Int { .. } => Ok(()),
    }
}

/// What in `data` (the `bag` of the `role` side) does not fit `d`; with
/// `complete`, a required field missing too (a bag being filled over
/// several hooks is not complete until its writer says so).
pub fn check_bag(
    d: &Description,
    role: Role,
    bag: Bag,
    data: &BTreeMap<String, String>,
    complete: bool,
) -> Vec<Violation> {
    let side = d.side(role);
    let fields = side.bag(bag);
    let other = match bag {
        Bag::App => Bag::Unit,
        Bag::Unit => Bag::App,
    };
    let mut out = Checker {
        d,
        found: Vec::new(),
        more: 0,
    };
    for (key, text) in data {
        match fields.get(key) {
            Some(field) => out.value(key, field, text),
            None if side.bag(other).contains_key(key) => out.push(
                key,
                format!(
                    "belongs in the {} of the {}, not its {}",
                    other.name(),
                    role.name(),
                    bag.name()
                ),
            ),
            None => {
                if let Some(near) = near_miss(key, fields.keys()) {
                    out.push(
                        key,
                        format!(
                            "not a field of the {}'s {} in {}; did you mean `{near}`?",
                            role.name(),
                            bag.name(),
                            d.title()
                        ),
                    );
                }
            }
        }
    }
    if complete {
        for (key, field) in fields {
            if field.required && !data.contains_key(key) {
                out.push(key, "missing".into());
            }
        }
    }
    out.finish()
}

/// A known key that `key` is a slip of: the same but for `-`/`_` or case,
/// or one or two edits away from a name of four letters or more.
fn near_miss<'a>(key: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let distance = if norm(k) == norm(key) {
            0
        } else {
            crate::text::edit_distance(k, key)
        };
        if distance <= 2 && k.len() >= 4 && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, k));
        }
    }
    best.map(|(_, k)| k)
}

struct Checker<'d> {
    d: &'d Description,
    found: Vec<Violation>,
    more: usize,
}

impl Checker<'_> {
    fn push(&mut self, field: &str, problem: String) {
        if self.found.len() < MAX_REPORTED {
            self.found.push(Violation {
                field: field.to_string(),
                problem,
            });
        } else {
            self.more += 1;
        }
    }

    fn finish(mut self) -> Vec<Violation> {
        if self.more > 0 {
            self.found.push(Violation {
                field: "…".into(),
                problem: format!("and {} more", self.more),
            });
        }
        self.found
    }

    fn value(&mut self, key: &str, field: &Field, text: &str) {
        match self.d.encoding_of(field) {
            Encoding::Json => match serde_json::from_str::<Value>(text) {
                Ok(v) => self.json(key, &field.shape, &v),
                Err(e) => self.push(key, format!("is not JSON text ({e}): {}", shown_text(text))),
            },
            Encoding::Raw => self.raw(key, &field.shape, text),
        }
    }

    /// A raw value: the text is the string, or an int's or a bool's digits.
    fn raw(&mut self, key: &str, shape: &Shape, text: &str) {
        match shape {
            Shape::Named(n) if n == "int" => {
                if text.parse::<i64>().is_err() {
                    self.push(key, format!("is {}, not an integer", shown_text(text)));
                }
            }
            Shape::Int { .. } => match text.parse::<i64>() {
                Ok(n) => self.json(key, shape, &Value::from(n)),
                Err(_) => self.push(key, format!("is {}, not an integer", shown_text(text))),
            },
            Shape::Named(n) if n == "bool" => {
                if !matches!(text, "true" | "false") {
                    self.push(key, format!("is {}, not true or false", shown_text(text)));
                }
            }
            _ => self.json(key, shape, &Value::String(text.to_string())),
        }
    }

    fn json(&mut self, path: &str, shape: &Shape, v: &Value) {
        match shape {
            Shape::Named(n) => self.named(path, n, v),
            Shape::List { list } => self.items(path, list, v, false),
            Shape::Set { set } => self.items(path, set, v, true),
            Shape::OneOf { values } => match v.as_str() {
                Some(s) if values.iter().any(|x| x == s) => {}
                Some(s) => self.push(
                    path,
                    format!("is {:?}, not one of {}", s, values.join(", ")),
                ),
                None => self.push(path, format!("is {}, not a string", kind(v))),
            },
            Shape::Int { int } => match v.as_i64() {
                Some(n) if int.min.is_some_and(|m| n < m) || int.max.is_some_and(|m| n > m) => {
                    self.push(path, format!("is {n}, outside {}", range_text(int)))
                }
                Some(_) => {}
                None => self.push(path, format!("is {}, not an integer", kind(v))),
            },
        }
    }

    fn items(&mut self, path: &str, item: &Shape, v: &Value, set: bool) {
        let Some(items) = v.as_array() else {
            return self.push(path, format!("is {}, not a list", kind(v)));
        };
        let mut seen = BTreeSet::new();
        for (i, x) in items.iter().enumerate() {
            let at = format!("{path}[{i}]");
            if set && !seen.insert(x.to_string()) {
                self.push(&at, "is there twice, in a set".into());
            }
            self.json(&at, item, x);
        }
    }

    fn named(&mut self, path: &str, name: &str, v: &Value) {
        let fits = match name {
            "string" => v.is_string(),
            "int" => v.is_i64() || v.is_u64(),
            "bool" => v.is_boolean(),
            "any" => true,
            "any-object" => v.is_object(),
            "secret-uri" | "url" | "host-ports" => {
                let Some(s) = v.as_str() else {
                    return self.push(path, format!("is {}, not a string", kind(v)));
                };
                if let Err(why) = text_form(name, s) {
                    self.push(path, why);
                }
                true
            }
            _ => return self.object(path, name, v),
        };
        if !fits {
            self.push(path, format!("is {}, not {}", kind(v), article(name)));
        }
    }

    fn object(&mut self, path: &str, name: &str, v: &Value) {
        let Some(fields) = self.d.types.get(name) else {
            return;
        };
        let Some(map) = v.as_object() else {
            return self.push(path, format!("is {}, not an object ({name})", kind(v)));
        };
        for (key, field) in fields {
            let at = format!("{path}.{key}");
            match map.get(key) {
                // The libraries write an unset optional field as null.
                Some(Value::Null) if !field.required => {}
                Some(x) => self.json(&at, &field.shape, x),
                None if field.required => self.push(&at, "missing".into()),
                None => {}
            }
        }
    }
}

/// The forms of the text shapes: a secret's URI, an http(s) URL, a
/// comma-separated `host:port` list.
fn text_form(name: &str, s: &str) -> Result<(), String> {
    let ok = match name {
        "secret-uri" => s
            .strip_prefix("secret:")
            .is_some_and(|id| !id.is_empty() && !id.contains(char::is_whitespace)),
        "url" => ["http://", "https://"]
            .iter()
            .any(|p| s.strip_prefix(p).is_some_and(|rest| !rest.is_empty())),
        _ => s.split(',').all(|hp| {
            hp.rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok())
        }),
    };
    let wanted = match name {
        "secret-uri" => "a secret URI (`secret:<id>`)",
        "url" => "an http or https URL",
        _ => "a comma-separated list of `host:port`",
    };
    if ok {
        Ok(())
    } else {
        Err(format!("is {}, not {wanted}", shown_text(s)))
    }
}

fn article(name: &str) -> String {
    match name {
        "int" => "an integer".into(),
        "any-object" => "an object".into(),
        "bool" => "true or false".into(),
        n => format!("a {n}"),
    }
}

fn range_text(r: &super::Range) -> String {
    match (r.min, r.max) {
        (Some(a), Some(b)) if a == b => format!("the one value {a}"),
        (Some(a), Some(b)) => format!("{a}..={b}"),
        (Some(a), None) => format!("{a} and up"),
        (None, Some(b)) => format!("up to {b}"),
        (None, None) => "any".into(),
    }
}

/// A JSON value's kind, with a short look at it.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the bool {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", shown_text(s)),
        Value::Array(a) => format!("a list of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// Text as a message shows it: quoted, and cut when long.
fn shown_text(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        format!("{s:?}")
    } else {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut:?}…")
    }
}
