//! Typing [`Node`]s with serde: plain scalars resolved as the type read
//! into asks.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{Node, YamlError};

impl Node {
    /// Whether the node is null: no value, or a plain `null` or `~`.
    fn is_null(&self) -> bool {
        match self {
            Node::Null => true,
            Node::Scalar { text, plain: true } => {
                matches!(text.as_str(), "null" | "Null" | "NULL" | "~")
            }
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            Node::Null => "nothing".to_string(),
            Node::Scalar { text, .. } => format!("`{text}`"),
            Node::Seq(_) => "a sequence".to_string(),
            Node::Map(_) => "a mapping".to_string(),
        }
    }

    fn text(self, expected: &str) -> Result<String, YamlError> {
        match self {
            Node::Scalar { text, .. } => Ok(text),
            other => Err(de::Error::custom(format!(
                "expected {expected}, found {}",
                other.describe()
            ))),
        }
    }

    fn integer<T: std::str::FromStr>(self, expected: &str) -> Result<T, YamlError> {
        let text = self.text(expected)?;
        let digits = text.strip_prefix('+').unwrap_or(&text).replace('_', "");
        digits
            .parse()
            .map_err(|_| de::Error::custom(format!("expected {expected}, found `{text}`")))
    }

    fn float(self) -> Result<f64, YamlError> {
        let text = self.text("a number")?;
        match text.as_str() {
            ".inf" | ".Inf" | ".INF" | "+.inf" => return Ok(f64::INFINITY),
            "-.inf" | "-.Inf" | "-.INF" => return Ok(f64::NEG_INFINITY),
            ".nan" | ".NaN" | ".NAN" => return Ok(f64::NAN),
            _ => {}
        }
        text.parse()
            .map_err(|_| de::Error::custom(format!("expected a number, found `{text}`")))
    }
}

/// A plain scalar's value in YAML 1.2's core schema.
fn resolve_plain<'de, V: Visitor<'de>>(text: String, visitor: V) -> Result<V::Value, YamlError> {
    match text.as_str() {
        "null" | "Null" | "NULL" | "~" => return visitor.visit_unit(),
        "true" | "True" | "TRUE" => return visitor.visit_bool(true),
        "false" | "False" | "FALSE" => return visitor.visit_bool(false),
        _ => {}
    }
    let numeric = text
        .strip_prefix(['-', '+'])
        .unwrap_or(&text)
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if numeric {
        if let Ok(n) = text.parse::<u64>() {
            return visitor.visit_u64(n);
        }
        if let Ok(n) = text.parse::<i64>() {
            return visitor.visit_i64(n);
        }
        if let Some(hex) = text.strip_prefix("0x")
            && let Ok(n) = u64::from_str_radix(hex, 16)
        {
            return visitor.visit_u64(n);
        }
        if let Some(octal) = text.strip_prefix("0o")
            && let Ok(n) = u64::from_str_radix(octal, 8)
        {
            return visitor.visit_u64(n);
        }
        let looks_float = text.chars().any(|c| c.is_ascii_digit())
            && text
                .chars()
                .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
        if looks_float && let Ok(x) = text.parse::<f64>() {
            return visitor.visit_f64(x);
        }
    }
    match text.as_str() {
        ".inf" | ".Inf" | ".INF" | "+.inf" => visitor.visit_f64(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => visitor.visit_f64(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => visitor.visit_f64(f64::NAN),
        _ => visitor.visit_string(text),
    }
}

struct Items(std::vec::IntoIter<Node>);

impl<'de> de::SeqAccess<'de> for Items {
    type Error = YamlError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, YamlError> {
        self.0.next().map(|node| seed.deserialize(node)).transpose()
    }
}

struct Entries {
    entries: std::vec::IntoIter<(Node, Node)>,
    /// The value of the key just read, and the key's text.
    value: Option<(String, Node)>,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = YamlError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, YamlError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let name = match &key {
            Node::Scalar { text, .. } => text.clone(),
            other => other.describe(),
        };
        self.value = Some((name, value));
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, YamlError> {
        let (key, value) = self.value.take().unwrap_or_default();
        seed.deserialize(value)
            .map_err(|e| de::Error::custom(format!("{key}: {e}")))
    }
}

impl<'de> de::Deserializer<'de> for Node {
    type Error = YamlError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match self {
            Node::Null => visitor.visit_unit(),
            Node::Scalar { text, plain: true } => resolve_plain(text, visitor),
            Node::Scalar { text, plain: false } => visitor.visit_string(text),
            Node::Seq(items) => visitor.visit_seq(Items(items.into_iter())),
            Node::Map(entries) => visitor.visit_map(Entries {
                entries: entries.into_iter(),
                value: None,
            }),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match &self {
            Node::Scalar { text, .. } => match text.as_str() {
                "true" | "True" | "TRUE" => visitor.visit_bool(true),
                "false" | "False" | "FALSE" => visitor.visit_bool(false),
                _ => Err(de::Error::custom(format!(
                    "expected true or false, found `{text}`"
                ))),
            },
            other => Err(de::Error::custom(format!(
                "expected true or false, found {}",
                other.describe()
            ))),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_i8(self.integer("an integer")?)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_i16(self.integer("an integer")?)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_i32(self.integer("an integer")?)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_i64(self.integer("an integer")?)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_u8(self.integer("a non-negative integer")?)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_u16(self.integer("a non-negative integer")?)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_u32(self.integer("a non-negative integer")?)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_u64(self.integer("a non-negative integer")?)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_f32(self.float()? as f32)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_f64(self.float()?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match self {
            // `summary:` with nothing: no text.
            Node::Null => visitor.visit_str(""),
            other => visitor.visit_string(other.text("text")?),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_byte_buf(self.text("text")?.into_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        if self.is_null() {
            visitor.visit_unit()
        } else {
            Err(de::Error::custom(format!(
                "expected nothing, found {}",
                self.describe()
            )))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match self {
            Node::Seq(items) => visitor.visit_seq(Items(items.into_iter())),
            other if other.is_null() => visitor.visit_seq(Items(Vec::new().into_iter())),
            other => Err(de::Error::custom(format!(
                "expected a sequence, found {}",
                other.describe()
            ))),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        match self {
            Node::Map(entries) => visitor.visit_map(Entries {
                entries: entries.into_iter(),
                value: None,
            }),
            other if other.is_null() => visitor.visit_map(Entries {
                entries: Vec::new().into_iter(),
                value: None,
            }),
            other => Err(de::Error::custom(format!(
                "expected a mapping, found {}",
                other.describe()
            ))),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, YamlError> {
        let text = self.text("a name")?;
        visitor.visit_enum(text.into_deserializer())
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, YamlError> {
        visitor.visit_unit()
    }
}

#[cfg(test)]
mod tests {
    use super::super::from_str;

    #[test]
    fn plain_scalars_are_typed_by_what_reads_them() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Typed {
            text: String,
            number: u32,
            flag: bool,
            ratio: f64,
            missing: Option<String>,
            null: Option<u8>,
        }
        let typed: Typed = from_str("text: 2024\nnumber: '7'\nflag: true\nratio: 2\nnull: ~\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            typed,
            Typed {
                text: "2024".into(),
                number: 7,
                flag: true,
                ratio: 2.0,
                missing: None,
                null: None
            }
        );
        let e = from_str::<Typed>("text: a\nnumber: many\nflag: true\nratio: 1\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("expected a non-negative integer, found `many`"),
            "{e}"
        );
    }
}
