//! How a typed databag's fields go into and come out of Juju's string
//! map: raw text, or JSON text, by the interface's description.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A relation databag as Juju keeps it.
pub type Bag = BTreeMap<String, String>;

/// Which side of an interface a bag belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The side whose endpoint is under `provides`.
    Provider,
    /// The side whose endpoint is under `requires`.
    Requirer,
}

/// An application's bag, or a unit's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BagKind {
    /// Written by the leader, read by every unit on the other side.
    App,
    /// Written by each unit for itself.
    Unit,
}

/// A field that did not decode: its key, and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The bag's key.
    pub field: String,
    /// What was wrong with its value.
    pub problem: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.field, self.problem)
    }
}

/// One side's bag of one interface version, as a Rust value: generated
/// from the interface's description (`guest-sdk/interfaces/`).
pub trait TypedBag: Sized {
    /// The interface's name in metadata.yaml.
    const INTERFACE: &'static str;
    /// Its version.
    const VERSION: u32;
    /// The side that writes this bag.
    const ROLE: Role;
    /// The bag it is.
    const BAG: BagKind;
    /// The value a bag holds; `Err` names the first field that does not
    /// decode, or a required one missing.
    fn from_bag(bag: &Bag) -> Result<Self, FieldError>;
    /// The bag's changes that make it hold this value: each field
    /// encoded, each absent one deleted (an empty value). The same value
    /// gives the same text, so writing it again changes nothing.
    fn to_bag(&self) -> Vec<(String, String)>;
}

fn present<'b>(bag: &'b Bag, key: &str) -> Option<&'b str> {
    bag.get(key).map(String::as_str).filter(|v| !v.is_empty())
}

/// A raw field: the text itself, parsed (`String`, `i64`, `bool`).
pub fn raw<T: FromStr>(bag: &Bag, key: &str) -> Result<Option<T>, FieldError>
where
    T::Err: fmt::Display,
{
    present(bag, key)
        .map(|text| {
            text.parse().map_err(|e: T::Err| FieldError {
                field: key.into(),
                problem: format!("{e}: {text:?}"),
            })
        })
        .transpose()
}

/// A JSON field: its text decoded.
pub fn json<T: DeserializeOwned>(bag: &Bag, key: &str) -> Result<Option<T>, FieldError> {
    present(bag, key)
        .map(|text| {
            serde_json::from_str(text).map_err(|e| FieldError {
                field: key.into(),
                problem: format!("{e}"),
            })
        })
        .transpose()
}

/// A required field's value, or `missing`.
pub fn required<T>(value: Option<T>, key: &str) -> Result<T, FieldError> {
    value.ok_or_else(|| FieldError {
        field: key.into(),
        problem: "missing".into(),
    })
}

/// A raw field's change.
pub fn put_raw<T: fmt::Display>(out: &mut Vec<(String, String)>, key: &str, value: Option<&T>) {
    out.push((
        key.into(),
        value.map(ToString::to_string).unwrap_or_default(),
    ));
}

/// A JSON field's change.
pub fn put_json<T: Serialize>(out: &mut Vec<(String, String)>, key: &str, value: Option<&T>) {
    // A value made of strings, numbers, lists and maps always serializes.
    let text = value
        .and_then(|v| serde_json::to_string(v).ok())
        .unwrap_or_default();
    out.push((key.into(), text));
}
