//! Relation interfaces as data: one description per interface version
//! (`guest-sdk/interfaces/<name>-v<N>.yaml`), each field of each side's
//! application and unit bag with its shape and encoding, its source pinned
//! (the schema in `canonical/charmlibs` at a commit, and the library whose
//! wire it follows). The host checks relation data against them at the
//! call and the offline model checks every charm's writes (`check`).
//!
//! A leaf: plain data and pure functions, no I/O.

pub mod check;
mod compiled;
mod from_json;
#[cfg(test)]
pub mod page;
mod shape_serde;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub use check::{Violation, check_bag};

/// How a bag's values hold their field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// The text itself (data_interfaces' fields).
    Raw,
    /// JSON text: a string arrives quoted (`"\"my-model\""`).
    Json,
}

/// One interface version.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Description {
    pub interface: String,
    pub version: u32,
    /// The encoding of every field that does not name its own.
    pub encoding: Encoding,
    pub source: Source,
    /// Where the library's wire and its schema disagree, and what is
    /// done here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<String>,
    #[serde(default)]
    pub provider: Side,
    #[serde(default)]
    pub requirer: Side,
    /// Named object shapes that fields use.
    #[serde(default)]
    pub types: BTreeMap<String, BTreeMap<String, Field>>,
}

/// Where a description comes from.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub repository: String,
    pub commit: String,
    pub path: String,
    /// The library whose wire behaviour is followed where it and the
    /// schema disagree.
    pub library: String,
}

/// One side's bags.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    #[serde(default)]
    pub app: BTreeMap<String, Field>,
    #[serde(default)]
    pub unit: BTreeMap<String, Field>,
}

/// A field: its shape, whether a complete bag has it, its encoding when
/// not the interface's.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    #[serde(rename = "type")]
    pub shape: Shape,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
}

/// What a value may be: `string`, `int`, `bool`, `secret-uri`, `url`,
/// `host-ports`, `any-object`, `any`, a named type; a list or a set of a
/// shape (`{list: …}`, `{set: …}`); one of some strings (`{enum: […]}`); an
/// int in a range (`{int: {min, max}}`). Read and written by hand
/// (`shape_serde`): serde's untagged enums cost the dispatch binary more
/// than every other part of the descriptions.
#[derive(Debug, Clone)]
pub enum Shape {
    Named(String),
    List { list: Box<Shape> },
    Set { set: Box<Shape> },
    OneOf { values: Vec<String> },
    Int { int: Range },
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// Which side of a relation a charm is, from its endpoint's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Provider,
    Requirer,
}

/// Which of a unit's two bags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bag {
    App,
    Unit,
}

impl Bag {
    pub fn name(self) -> &'static str {
        match self {
            Bag::App => "application bag",
            Bag::Unit => "unit bag",
        }
    }
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Provider => "provider",
            Role::Requirer => "requirer",
        }
    }
}

impl Description {
    pub fn side(&self, role: Role) -> &Side {
        match role {
            Role::Provider => &self.provider,
            Role::Requirer => &self.requirer,
        }
    }

    /// How `field`'s values are held: its own encoding, else the
    /// interface's.
    pub fn encoding_of(&self, field: &Field) -> Encoding {
        field.encoding.unwrap_or(self.encoding)
    }

    /// `postgresql_client v0`.
    pub fn title(&self) -> String {
        format!("{} v{}", self.interface, self.version)
    }
}

impl Side {
    pub fn bag(&self, bag: Bag) -> &BTreeMap<String, Field> {
        match bag {
            Bag::App => &self.app,
            Bag::Unit => &self.unit,
        }
    }
}

/// The descriptions as written in the repository: the source of
/// `compiled.rs`, which a test keeps written from them.
#[cfg(test)]
const SOURCES: &[(&str, &str)] = &[
    (
        "postgresql_client-v0.yaml",
        include_str!("../../../guest-sdk/interfaces/postgresql_client-v0.yaml"),
    ),
    (
        "tls-certificates-v1.yaml",
        include_str!("../../../guest-sdk/interfaces/tls-certificates-v1.yaml"),
    ),
    (
        "ingress-v2.yaml",
        include_str!("../../../guest-sdk/interfaces/ingress-v2.yaml"),
    ),
    (
        "tracing-v2.yaml",
        include_str!("../../../guest-sdk/interfaces/tracing-v2.yaml"),
    ),
    (
        "certificate_transfer-v1.yaml",
        include_str!("../../../guest-sdk/interfaces/certificate_transfer-v1.yaml"),
    ),
];

/// `compiled.rs` as the descriptions make it: each as compact JSON, which
/// a dispatch reads in microseconds where the YAML took milliseconds.
#[cfg(test)]
fn compiled_module() -> String {
    let mut out = String::from(
        "//! The interface descriptions (`guest-sdk/interfaces/`) as JSON, by\n\
         //! interface: written by `WASM_CHARM_REGENERATE=1 cargo test -p wasm-charm\n\
         //! --lib schemas`; do not edit.\n\n\
         pub const DESCRIPTIONS: &[(&str, &str)] = &[\n",
    );
    for mut d in yaml_catalog() {
        // What a dispatch needs: the fields, not their words.
        d.disagreements.clear();
        for side in [&mut d.provider, &mut d.requirer] {
            for f in side.app.values_mut().chain(side.unit.values_mut()) {
                f.doc.clear();
            }
        }
        for f in d.types.values_mut().flat_map(|t| t.values_mut()) {
            f.doc.clear();
        }
        let json = serde_json::to_string(&d).unwrap_or_default();
        out.push_str(&format!(
            "    (\n        {:?},\n        r###\"{json}\"###,\n    ),\n",
            d.interface
        ));
    }
    out.push_str("];\n");
    out
}

/// Every description as written, docs and all (the generators' source).
#[cfg(test)]
pub fn yaml_catalog() -> Vec<Description> {
    SOURCES
        .iter()
        .map(|(file, text)| parse(text).unwrap_or_else(|e| panic!("{file}: {e}")))
        .collect()
}

/// Every description, parsed once; one that does not parse is left out
/// (the tests parse each).
pub fn catalog() -> &'static [Description] {
    static CATALOG: OnceLock<Vec<Description>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        compiled::DESCRIPTIONS
            .iter()
            .filter_map(|(_, json)| from_json::description(json).ok())
            .collect()
    })
}

/// A description's text, checked: its YAML, and every named type it uses
/// defined.
pub fn parse(text: &str) -> Result<Description, String> {
    let d: Description = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let mut fields: Vec<(&String, &Field)> = Vec::new();
    for side in [&d.provider, &d.requirer] {
        fields.extend(side.app.iter().chain(&side.unit));
    }
    fields.extend(d.types.values().flatten());
    for (name, field) in fields {
        check::known_shape(&field.shape, &d.types)
            .map_err(|t| format!("field `{name}`: unknown type `{t}`"))?;
    }
    Ok(d)
}

/// Every description as the Python SDK's `wasm_charm/_interfaces.py`
/// holds it (a JSON text it loads): written from the descriptions, and
/// checked against them by a test, so a field is still named once.
#[cfg(test)]
pub fn python_module() -> String {
    let all = yaml_catalog();
    // Descriptions are strings, numbers, lists and maps: they serialize.
    let json = serde_json::to_string_pretty(&all).unwrap_or_default();
    format!(
        "\"\"\"The interface descriptions (`guest-sdk/interfaces/`), written by\n\
         `WASM_CHARM_REGENERATE=1 cargo test -p wasm-charm --lib schemas`: do not edit.\"\"\"\n\n\
         import json\n\nDESCRIPTIONS = json.loads(\n    r'''\n{json}\n'''\n)\n"
    )
}

/// Whether there is a description of `interface`, without reading it.
pub fn knows(interface: &str) -> bool {
    compiled::DESCRIPTIONS
        .iter()
        .any(|(name, _)| *name == interface)
}

/// The description of the interface that metadata.yaml names `interface`:
/// only that one read, once per process, since a dispatch needs only its
/// charm's.
pub fn for_interface(interface: &str) -> Option<&'static Description> {
    const N: usize = compiled::DESCRIPTIONS.len();
    static READ: [OnceLock<Option<Description>>; N] = [const { OnceLock::new() }; N];
    let i = compiled::DESCRIPTIONS
        .iter()
        .position(|(name, _)| *name == interface)?;
    READ[i]
        .get_or_init(|| from_json::description(compiled::DESCRIPTIONS[i].1).ok())
        .as_ref()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
