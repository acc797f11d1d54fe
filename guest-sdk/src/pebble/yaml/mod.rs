//! The YAML of Pebble's layers and plans, without a YAML library in the
//! guest: a writer of block mappings and sequences with plain or
//! double-quoted (JSON-escaped) scalars, and a reader of the YAML Pebble,
//! the simulated Pebble and charm authors write: block mappings and
//! sequences, plain, single- and double-quoted scalars (multi-line ones
//! too), literal and folded block scalars, flow collections and comments.
//! Anchors, aliases, tags and several documents are refused.
//!
//! The reader keeps plain scalars as text and types them as the type read
//! into asks (`threshold: 3` is a number for a `u32`, `summary: 2024` text
//! for a `String`), as a YAML library resolves a schema.

use std::fmt;

use serde::de;

mod deserializer;
mod read;
mod write;

pub(crate) use write::Writer;

/// Why YAML text could not be read as a layer or a plan: where, and what
/// was wrong.
///
/// ```
/// use wasm_charm::pebble::Layer;
///
/// let e = Layer::from_yaml("services:\n  web: [unclosed\n").unwrap_err();
/// assert!(e.to_string().starts_with("line 2: "), "{e}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    message: String,
}

impl YamlError {
    pub(crate) fn at(line: usize, message: impl fmt::Display) -> Self {
        YamlError {
            message: format!("line {}: {message}", line + 1),
        }
    }
}

/// Where, and what was wrong.
///
/// ```
/// use wasm_charm::pebble::Plan;
///
/// let e = Plan::from_yaml("checks:\n  up:\n    threshold: many\n").unwrap_err();
/// assert!(e.to_string().contains("many"), "{e}");
/// ```
impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for YamlError {}

impl de::Error for YamlError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        YamlError {
            message: message.to_string(),
        }
    }
}

/// A YAML node. Scalars keep their text and whether it was plain, so that
/// they are typed by what reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Node {
    /// No value (`key:` with nothing after it).
    #[default]
    Null,
    Scalar {
        text: String,
        plain: bool,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// Read `text` as a `T`.
pub(crate) fn from_str<T: de::DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    T::deserialize(read::parse(text)?)
}
