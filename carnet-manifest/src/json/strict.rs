//! Strictly typed JSON values for the wire structs of [`super::read`]: a value of the wrong
//! type is an error `expected <what>, found <kind>`, never a coercion, and `null` inside an
//! array or a map is a wrong type (a `null` field is an absent one: the wire structs wrap
//! these types in `Option`).
//!
//! serde's own messages (`invalid type: integer `1`, expected a string`) would change the
//! texts `ManifestError::Invalid` has always shown, so every type here rejects the other
//! kinds itself.

use std::fmt::{self, Write as _};
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_path_to_error::Segment;

use super::{ManifestError, child, invalid};

/// Reads `T` from `value`; a type error is [`ManifestError::Invalid`] at its JSON pointer.
pub(super) fn deserialize<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, ManifestError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let mut path = String::new();
        for segment in error.path() {
            match segment {
                Segment::Seq { index } => {
                    let _ = write!(path, "/{index}");
                }
                Segment::Map { key } | Segment::Enum { variant: key } => path = child(&path, key),
                Segment::Unknown => path.push_str("/?"),
            }
        }
        invalid(&path, error.into_inner().to_string())
    })
}

/// `expected <what the visitor expects>, found <kind>`.
fn wrong<E: de::Error>(expected: &dyn de::Expected, kind: &str) -> E {
    E::custom(format_args!("expected {expected}, found {kind}"))
}

/// Implements the `visit_*` methods of the JSON kinds a visitor does not accept.
macro_rules! reject {
    ($($kind:ident)*) => { $(reject!(@ $kind);)* };
    (@ null) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(wrong(&self, "null"))
        }
    };
    (@ boolean) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(wrong(&self, "a boolean"))
        }
    };
    (@ number) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(wrong(&self, "a number"))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(wrong(&self, "a number"))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(wrong(&self, "a number"))
        }
    };
    (@ string) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(wrong(&self, "a string"))
        }
    };
    (@ array) => {
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(wrong(&self, "an array"))
        }
    };
    (@ object) => {
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(wrong(&self, "an object"))
        }
    };
}

/// A JSON string.
#[derive(Clone)]
pub(super) struct Str(pub(super) String);

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str, E> {
                Ok(Str(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str, E> {
                Ok(Str(v))
            }
            reject!(null boolean number array object);
        }
        deserializer.deserialize_any(StrVisitor)
    }
}

/// A JSON boolean.
#[derive(Clone, Copy)]
pub(super) struct Bool(pub(super) bool);

impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BoolVisitor;
        impl<'de> Visitor<'de> for BoolVisitor {
            type Value = Bool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Bool, E> {
                Ok(Bool(v))
            }
            reject!(null number string array object);
        }
        deserializer.deserialize_any(BoolVisitor)
    }
}

/// A JSON array of `T`s.
pub(super) struct Seq<T>(pub(super) Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Seq<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
            type Value = Seq<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seq<T>, A::Error> {
                // The hint comes from the input: trust it only up to a bound.
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Seq(items))
            }
            reject!(null boolean number string object);
        }
        deserializer.deserialize_any(SeqVisitor(PhantomData))
    }
}

/// A JSON object read as the struct `T` (a derived `Deserialize`), so that a value of another
/// kind is `expected an object, found ...` rather than serde's message.
#[derive(Clone)]
pub(super) struct Obj<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Obj)
            }
            reject!(null boolean number string array);
        }
        deserializer.deserialize_any(ObjVisitor(PhantomData))
    }
}

/// A JSON object with arbitrary keys, as `(key, value)` pairs in the input's order.
pub(super) struct Map<T>(pub(super) Vec<(String, T)>);

/// A map of entities keyed by name (`agents`, `skills`, `toolsets`): like [`Map`], and an
/// empty key is refused (at the key's path) before its value is read.
pub(super) struct Named<T>(pub(super) Vec<(String, T)>);

struct MapVisitor<T> {
    refuse_empty_keys: bool,
    value: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for MapVisitor<T> {
    type Value = Vec<(String, T)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(Str(key)) = map.next_key()? {
            let value = if self.refuse_empty_keys && key.is_empty() {
                map.next_value_seed(Refuse("names must not be empty", PhantomData))?
            } else {
                map.next_value()?
            };
            entries.push((key, value));
        }
        Ok(entries)
    }
    reject!(null boolean number string array);
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Map<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(MapVisitor {
                refuse_empty_keys: false,
                value: PhantomData,
            })
            .map(Map)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(MapVisitor {
                refuse_empty_keys: true,
                value: PhantomData,
            })
            .map(Named)
    }
}

/// Fails with its message without reading the value, so the error's path is the value's.
struct Refuse<T>(&'static str, PhantomData<T>);

impl<'de, T> DeserializeSeed<'de> for Refuse<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<T, D::Error> {
        Err(de::Error::custom(self.0))
    }
}

/// An entry of a toolset's `tools`: a name (TS Carnet 0.3.0, described by the top-level
/// `tools` map) or a `{name, description}` object (TS Carnet's later form).
pub(super) enum ToolEntry<T> {
    Name(String),
    Inline(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ToolEntry<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for EntryVisitor<T> {
            type Value = ToolEntry<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool name or a `{name, description}` object")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ToolEntry::Name(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ToolEntry::Name(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(ToolEntry::Inline)
            }
            reject!(null boolean number array);
        }
        deserializer.deserialize_any(EntryVisitor(PhantomData))
    }
}
