//! A compiled description (`compiled.rs`) read from its JSON by hand,
//! through the `serde_json::Value` the dispatch already parses hook tools'
//! output with: serde's derived readers for these types, monomorphized for
//! one more input, cost the static dispatch more than its size bound
//! allows. The YAML, read with the derived readers in tests, stays the
//! strict source; a test checks this reader gives the same descriptions.

use super::{Description, Encoding, Field, Range, Shape, Side, Source};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The description `text` holds, or what in it is not one.
pub fn description(text: &str) -> Result<Description, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let top = object(&v, "the description")?;
    let source = object(get(top, "source")?, "source")?;
    let disagreements = match top.get("disagreements") {
        None => Vec::new(),
        Some(v) => strings(v, "disagreements")?,
    };
    let mut types = BTreeMap::new();
    if let Some(t) = top.get("types") {
        for (name, fields) in object(t, "types")? {
            types.insert(name.clone(), fields_of(fields, name)?);
        }
    }
    Ok(Description {
        interface: string(get(top, "interface")?, "interface")?,
        version: get(top, "version")?
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("version: not a whole number")?,
        encoding: encoding(get(top, "encoding")?)?,
        source: Source {
            repository: string(get(source, "repository")?, "source.repository")?,
            commit: string(get(source, "commit")?, "source.commit")?,
            path: string(get(source, "path")?, "source.path")?,
            library: string(get(source, "library")?, "source.library")?,
        },
        disagreements,
        provider: side(top.get("provider"), "provider")?,
        requirer: side(top.get("requirer"), "requirer")?,
        types,
    })
}

fn side(v: Option<&Value>, what: &str) -> Result<Side, String> {
    let Some(v) = v else {
        return Ok(Side::default());
    };
    let o = object(v, what)?;
    let bag = |name: &str| match o.get(name) {
        None => Ok(BTreeMap::new()),
        Some(b) => fields_of(b, &format!("{what}.{name}")),
    };
    Ok(Side {
        app: bag("app")?,
        unit: bag("unit")?,
    })
}

fn fields_of(v: &Value, what: &str) -> Result<BTreeMap<String, Field>, String> {
    let mut out = BTreeMap::new();
    for (name, f) in object(v, what)? {
        let at = format!("{what}.{name}");
        let o = object(f, &at)?;
        out.insert(
            name.clone(),
            Field {
                shape: shape(get(o, "type")?, &at)?,
                required: o.get("required").and_then(Value::as_bool).unwrap_or(false),
                encoding: o.get("encoding").map(encoding).transpose()?,
                doc: o
                    .get("doc")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            },
        );
    }
    Ok(out)
}

fn shape(v: &Value, at: &str) -> Result<Shape, String> {
    if let Some(name) = v.as_str() {
        return Ok(Shape::Named(name.to_string()));
    }
    let o = object(v, at)?;
    let mut keys = o.iter();
    let (Some((key, inner)), None) = (keys.next(), keys.next()) else {
        return Err(format!("{at}: a type is a name or a map of one key"));
    };
    Ok(match key.as_str() {
        "list" => Shape::List {
            list: Box::new(shape(inner, at)?),
        },
        "set" => Shape::Set {
            set: Box::new(shape(inner, at)?),
        },
        "enum" => Shape::OneOf {
            values: strings(inner, at)?,
        },
        "int" => {
            let r = object(inner, at)?;
            Shape::Int {
                int: Range {
                    min: r.get("min").and_then(Value::as_i64),
                    max: r.get("max").and_then(Value::as_i64),
                },
            }
        }
        other => return Err(format!("{at}: `{other}` is not list, set, enum or int")),
    })
}

fn encoding(v: &Value) -> Result<Encoding, String> {
    match v.as_str() {
        Some("raw") => Ok(Encoding::Raw),
        Some("json") => Ok(Encoding::Json),
        _ => Err(format!("encoding: {v} is not raw or json")),
    }
}

fn get<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("no `{key}`"))
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| format!("{what}: not a map"))
}

fn string(v: &Value, what: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what}: not a string"))
}

fn strings(v: &Value, what: &str) -> Result<Vec<String>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: not a list"))?
        .iter()
        .map(|s| string(s, what))
        .collect()
}
