//! An interface's page of the docs (`docs/interfaces/<name>-v<N>.md`),
//! written from its description: what each side writes to which bag, how
//! each field is encoded, and where the library and the schema disagree.

use super::{Description, Encoding, Field, Shape};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The page's file name.
pub fn file_name(d: &Description) -> String {
    format!("{}-v{}.md", d.interface, d.version)
}

/// The page of `d`.
pub fn page(d: &Description) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# `{}` v{}\n\n<!-- Written from guest-sdk/interfaces/{} by \
         `WASM_CHARM_REGENERATE=1 cargo test -p wasm-charm --lib schemas`: edit the description. -->\n",
        d.interface,
        d.version,
        file_name(d).replace(".md", ".yaml")
    );
    let encoding = match d.encoding {
        Encoding::Raw => "raw text (the value itself), but for the fields marked JSON",
        Encoding::Json => "JSON text (a string arrives quoted)",
    };
    let _ = writeln!(
        out,
        "As `{}` speaks it. Schema: `{}` at `{}`, `{}`. Every value is {encoding}; \
         a field left out is absent from the bag. In Rust, \
         `wasm_charm::interfaces::{}`; in Python, `wasm_charm.interfaces.{}`.\n",
        d.source.library,
        d.source.repository,
        &d.source.commit[..d.source.commit.len().min(7)],
        d.source.path,
        module(d),
        module(d)
    );
    for (role, side) in [("provider", &d.provider), ("requirer", &d.requirer)] {
        for (bag, fields, ty) in [
            ("application bag (the leader writes it)", &side.app, "App"),
            ("unit bag (each unit writes its own)", &side.unit, "Unit"),
        ] {
            if fields.is_empty() {
                continue;
            }
            let _ = writeln!(out, "## The {role}'s {bag}: `{}{ty}`\n", capitalized(role));
            table(&mut out, d, fields, true);
        }
    }
    for (name, fields) in &d.types {
        let _ = writeln!(out, "## `{name}`, inside a JSON value\n");
        table(&mut out, d, fields, false);
    }
    if !d.disagreements.is_empty() {
        out.push_str("## Where the library and the schema disagree\n\n");
        for text in &d.disagreements {
            let _ = writeln!(out, "* {text}");
        }
        out.push('\n');
    }
    out.push_str("See [relation interfaces](../interfaces.md) for what is checked, and the contract tests.\n");
    out
}

fn table(out: &mut String, d: &Description, fields: &BTreeMap<String, Field>, top: bool) {
    if top {
        out.push_str(
            "| key | type | encoding | required | what it holds |\n|---|---|---|---|---|\n",
        );
    } else {
        out.push_str("| key | type | required | what it holds |\n|---|---|---|---|\n");
    }
    for (key, f) in fields {
        let required = if f.required { "yes" } else { "" };
        let doc = f.doc.replace('|', "\\|");
        if top {
            let encoding = match d.encoding_of(f) {
                Encoding::Raw => "raw",
                Encoding::Json => "JSON",
            };
            let _ = writeln!(
                out,
                "| `{key}` | {} | {encoding} | {required} | {doc} |",
                shape(&f.shape)
            );
        } else {
            let _ = writeln!(
                out,
                "| `{key}` | {} | {required} | {doc} |",
                shape(&f.shape)
            );
        }
    }
    out.push('\n');
}

fn shape(s: &Shape) -> String {
    match s {
        Shape::Named(n) => match n.as_str() {
            "string" | "int" | "bool" | "any" => n.clone(),
            "secret-uri" => "secret URI".into(),
            "url" => "http(s) URL".into(),
            "host-ports" => "`host:port` list".into(),
            "any-object" => "object".into(),
            t => format!("`{t}`"),
        },
        Shape::List { list } => format!("list of {}", shape(list)),
        Shape::Set { set } => format!("set of {}", shape(set)),
        Shape::OneOf { values } => values
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" or "),
        Shape::Int { int } => match (int.min, int.max) {
            (Some(a), Some(b)) if a == b => format!("int `{a}`"),
            (Some(a), Some(b)) => format!("int {a}..={b}"),
            _ => "int".into(),
        },
    }
}

fn module(d: &Description) -> String {
    format!("{}_v{}", d.interface.replace('-', "_"), d.version)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}
