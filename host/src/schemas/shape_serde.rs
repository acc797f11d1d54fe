//! A [`Shape`] read and written by hand: a name (`string`, `receiver`), or
//! a map of one key (`list`, `set`, `enum`, `int`).

use super::Shape;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a type's name, or {list|set|enum|int: …}")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shape, E> {
        Ok(Shape::Named(v.to_string()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Err(de::Error::custom("an empty map is no type"));
        };
        let shape = match key.as_str() {
            "list" => Shape::List {
                list: Box::new(map.next_value()?),
            },
            "set" => Shape::Set {
                set: Box::new(map.next_value()?),
            },
            "enum" => Shape::OneOf {
                values: map.next_value()?,
            },
            "int" => Shape::Int {
                int: map.next_value()?,
            },
            other => {
                return Err(de::Error::custom(format!(
                    "`{other}` is not list, set, enum or int"
                )));
            }
        };
        if let Some(extra) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!(
                "a type is one key, not `{key}` and `{extra}`"
            )));
        }
        Ok(shape)
    }
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Shape::Named(n) = self {
            return s.serialize_str(n);
        }
        let mut m = s.serialize_map(Some(1))?;
        match self {
            Shape::List { list } => m.serialize_entry("list", list)?,
            Shape::Set { set } => m.serialize_entry("set", set)?,
            Shape::OneOf { values } => m.serialize_entry("enum", values)?,
            Shape::Int { int } => m.serialize_entry("int", int)?,
            Shape::Named(_) => {}
        }
        m.end()
    }
}
