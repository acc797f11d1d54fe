//! The typed databags of [`wasm_charm::interfaces`], generated from the
//! interface descriptions in `interfaces/` (the same files the host checks
//! relation data against), so that no field name is written twice.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Deserialize)]
struct Description {
    interface: String,
    version: u32,
    encoding: String,
    source: Source,
    #[serde(default)]
    provider: Side,
    #[serde(default)]
    requirer: Side,
    #[serde(default)]
    types: BTreeMap<String, BTreeMap<String, Field>>,
}

#[derive(Deserialize)]
struct Source {
    repository: String,
    commit: String,
    path: String,
    library: String,
}

#[derive(Deserialize, Default)]
struct Side {
    #[serde(default)]
    app: BTreeMap<String, Field>,
    #[serde(default)]
    unit: BTreeMap<String, Field>,
}

#[derive(Deserialize)]
struct Field {
    #[serde(rename = "type")]
    shape: Shape,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    doc: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Shape {
    Named(String),
    List {
        list: Box<Shape>,
    },
    Set {
        set: Box<Shape>,
    },
    #[allow(dead_code)]
    OneOf {
        #[serde(rename = "enum")]
        values: Vec<String>,
    },
    #[allow(dead_code)]
    Int {
        int: serde::de::IgnoredAny,
    },
}

fn main() {
    let dir = Path::new("interfaces");
    println!("cargo:rerun-if-changed=interfaces");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("guest-sdk/interfaces")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut out = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a description");
        let d: Description =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        module(&mut out, &d);
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("interfaces.rs");
    std::fs::write(target, out).expect("write the generated interfaces");
}

fn module(out: &mut String, d: &Description) {
    let name = format!("{}_v{}", ident(&d.interface), d.version);
    let _ = writeln!(
        out,
        "/// `{}` v{}, as `{}` speaks it (schema: `{}` at `{}`, `{}`).\npub mod {name} {{\n    #[allow(unused_imports)]\n    use super::codec::{{self, Bag, BagKind, Role, TypedBag}};\n    #[allow(unused_imports)]\n    use std::collections::BTreeSet;",
        d.interface,
        d.version,
        d.source.library,
        d.source.repository,
        &d.source.commit[..7.min(d.source.commit.len())],
        d.source.path
    );
    for (role, side) in [("Provider", &d.provider), ("Requirer", &d.requirer)] {
        for (bag, fields) in [("App", &side.app), ("Unit", &side.unit)] {
            if !fields.is_empty() {
                bag_struct(out, d, role, bag, fields);
            }
        }
    }
    for (t, fields) in &d.types {
        object_struct(out, t, fields);
    }
    out.push_str("}\n\n");
}

fn bag_struct(
    out: &mut String,
    d: &Description,
    role: &str,
    bag: &str,
    fields: &BTreeMap<String, Field>,
) {
    let which = if bag == "App" { "application" } else { "unit" };
    let name = format!("{role}{bag}");
    let derive_default = !fields.values().any(|f| f.required);
    let _ = writeln!(
        out,
        "    /// The {}'s {which} bag.\n    #[derive(Debug, Clone, PartialEq{})]\n    pub struct {name} {{",
        role.to_lowercase(),
        if derive_default { ", Default" } else { "" }
    );
    for (key, f) in fields {
        doc(out, &f.doc, key);
        let ty = rust_type(&f.shape);
        let ty = if f.required {
            ty
        } else {
            format!("Option<{ty}>")
        };
        let _ = writeln!(out, "        pub {}: {ty},", ident(key));
    }
    out.push_str("    }\n");
    constructor(out, &name, fields);
    let _ = writeln!(
        out,
        "    impl TypedBag for {name} {{\n        const INTERFACE: &'static str = {:?};\n        const VERSION: u32 = {};\n        const ROLE: Role = Role::{role};\n        const BAG: BagKind = BagKind::{bag};\n        fn from_bag(bag: &Bag) -> Result<Self, codec::FieldError> {{\n            Ok(Self {{",
        d.interface, d.version
    );
    for (key, f) in fields {
        let enc = encoding(d, f);
        let get = if f.required {
            format!("codec::required(codec::{enc}(bag, {key:?})?, {key:?})?")
        } else {
            format!("codec::{enc}(bag, {key:?})?")
        };
        let _ = writeln!(out, "                {}: {get},", ident(key));
    }
    out.push_str("            })\n        }\n        fn to_bag(&self) -> Vec<(String, String)> {\n            let mut out = Vec::new();\n");
    for (key, f) in fields {
        let enc = encoding(d, f);
        let value = if f.required {
            format!("Some(&self.{})", ident(key))
        } else {
            format!("self.{}.as_ref()", ident(key))
        };
        let _ = writeln!(
            out,
            "            codec::put_{enc}(&mut out, {key:?}, {value});"
        );
    }
    out.push_str("            out\n        }\n    }\n");
}

/// `new(required…)`: the value with every optional field left out.
fn constructor(out: &mut String, name: &str, fields: &BTreeMap<String, Field>) {
    let required: Vec<(&String, &Field)> = fields.iter().filter(|(_, f)| f.required).collect();
    let params: Vec<String> = required
        .iter()
        .map(|(k, f)| format!("{}: {}", ident(k), rust_type(&f.shape)))
        .collect();
    let _ = writeln!(
        out,
        "    impl {name} {{\n        /// The bag with its required fields, every other left out.\n        #[allow(clippy::new_without_default)]\n        pub fn new({}) -> Self {{\n            Self {{",
        params.join(", ")
    );
    for (key, f) in fields {
        if f.required {
            let _ = writeln!(out, "                {},", ident(key));
        } else {
            let _ = writeln!(out, "                {}: None,", ident(key));
        }
    }
    out.push_str("            }\n        }\n    }\n");
}

fn object_struct(out: &mut String, t: &str, fields: &BTreeMap<String, Field>) {
    object_fields(out, t, fields);
    constructor(out, &camel(t), fields);
}

fn object_fields(out: &mut String, t: &str, fields: &BTreeMap<String, Field>) {
    let _ = writeln!(
        out,
        "    /// A `{t}`, inside a JSON value.\n    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]\n    pub struct {} {{",
        camel(t)
    );
    for (key, f) in fields {
        doc(out, &f.doc, key);
        let ty = rust_type(&f.shape);
        if f.required {
            let _ = writeln!(
                out,
                "        #[serde(rename = {key:?})]\n        pub {}: {ty},",
                ident(key)
            );
        } else {
            let _ = writeln!(
                out,
                "        #[serde(rename = {key:?}, default, skip_serializing_if = \"Option::is_none\")]\n        pub {}: Option<{ty}>,",
                ident(key)
            );
        }
    }
    out.push_str("    }\n");
}

fn doc(out: &mut String, doc: &str, key: &str) {
    if doc.is_empty() {
        let _ = writeln!(out, "        /// `{key}`.");
    } else {
        let _ = writeln!(out, "        /// `{key}`: {doc}.");
    }
}

fn encoding(d: &Description, f: &Field) -> &'static str {
    match f.encoding.as_deref().unwrap_or(&d.encoding) {
        "raw" => "raw",
        _ => "json",
    }
}

fn rust_type(shape: &Shape) -> String {
    match shape {
        Shape::Named(n) => match n.as_str() {
            "string" | "secret-uri" | "url" | "host-ports" => "String".into(),
            "int" => "i64".into(),
            "bool" => "bool".into(),
            "any-object" => "serde_json::Map<String, serde_json::Value>".into(),
            "any" => "serde_json::Value".into(),
            t => camel(t),
        },
        Shape::List { list } => format!("Vec<{}>", rust_type(list)),
        Shape::Set { set } => format!("BTreeSet<{}>", rust_type(set)),
        Shape::OneOf { .. } => "String".into(),
        Shape::Int { .. } => "i64".into(),
    }
}

/// A field's name as a Rust identifier: `-` to `_`, a keyword raw.
fn ident(name: &str) -> String {
    let s = name.replace('-', "_");
    match s.as_str() {
        "type" | "ref" | "match" | "mod" | "move" | "use" | "in" | "fn" => format!("r#{s}"),
        _ => s,
    }
}

fn camel(name: &str) -> String {
    name.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
