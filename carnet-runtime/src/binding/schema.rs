//! The input and output schemas of generated tools: named parameters' object schema, a
//! whole-input struct's (closed, without its Rust-facing title and description, without
//! `null` for optional fields), the single-parameter rule, and the output schema probe.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

/// The output schema of a tool whose success type is `T`, where `T` implements
/// `JsonSchema`, by autoref specialisation: the generated code writes
/// `(&OutputSchema::<T>::new()).output_schema()` with [`HasSchema`] and [`NoSchema`] in
/// scope. Method lookup tries `OutputSchema<T>` (whose `HasSchema` impl needs
/// `T: JsonSchema`) before `&OutputSchema<T>` (whose `NoSchema` impl always applies), so a
/// type without a schema gets `None` instead of a compile error.
pub struct OutputSchema<T: ?Sized>(std::marker::PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> OutputSchema<T> {
    /// The probe.
    #[must_use]
    pub const fn new() -> Self {
        OutputSchema(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for OutputSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Chosen when the success type implements `JsonSchema`.
pub trait HasSchema {
    /// The schema.
    fn output_schema(&self) -> Option<Value>;
}

impl<T: JsonSchema + ?Sized> HasSchema for OutputSchema<T> {
    fn output_schema(&self) -> Option<Value> {
        let mut schema = SchemaSettings::draft2020_12()
            .with(|s| s.meta_schema = None)
            .for_serialize()
            .into_generator()
            .root_schema_for::<T>()
            .to_value();
        if let Some(object) = schema.as_object_mut() {
            object.remove("title");
        }
        Some(schema)
    }
}

/// Chosen otherwise.
pub trait NoSchema {
    /// No schema.
    fn output_schema(&self) -> Option<Value>;
}

impl<T: ?Sized> NoSchema for &OutputSchema<T> {
    fn output_schema(&self) -> Option<Value> {
        None
    }
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .for_deserialize()
        .into_generator()
}

/// Builds the object schema of a tool's named parameters.
pub struct Params {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            generator: generator(),
            properties: Map::new(),
            required: Vec::new(),
        }
    }
}

impl Params {
    /// No parameters yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds parameter `name` whose schema is `T`'s; `required` is false for `Option`
    /// parameters, for which the generated code passes the `T` of `Option<T>`: absence says
    /// the parameter is optional, and strict clients refuse `"type": [T, "null"]`
    /// (`Option<Option<T>>` passes `Option<T>`, whose schema accepts `null`). The
    /// parameter's doc comment, unless empty, is its `description`.
    pub fn param<T: JsonSchema>(&mut self, name: &str, required: bool, description: &str) {
        let schema = self.generator.subschema_for::<T>();
        self.insert(name, required, description, schema);
    }

    /// [`Params::param`] once the type's schema is made: not generic, so compiled once in
    /// carnet rather than for each parameter type in the author's crate.
    fn insert(&mut self, name: &str, required: bool, description: &str, mut schema: Schema) {
        if !description.is_empty() {
            schema.insert("description".to_owned(), Value::String(description.to_owned()));
        }
        self.properties.insert(name.to_owned(), schema.to_value());
        if required {
            self.required.push(Value::String(name.to_owned()));
        }
    }

    /// The object schema.
    #[must_use]
    pub fn finish(mut self) -> Value {
        let mut schema = json!({
            "type": "object",
            "properties": self.properties,
            "required": self.required,
            "additionalProperties": false,
        });
        let definitions = self.generator.take_definitions(true);
        if !definitions.is_empty() {
            schema["$defs"] = Value::Object(definitions);
        }
        schema
    }
}

/// The schema of a tool whose one parameter is the whole input, its top level closed
/// (`additionalProperties: false`) like a named-parameter input's, where the type's schema
/// is a plain object that does not say otherwise. The type's own `title` and
/// `description` (its doc comment, written for Rust readers) are left out: the tool's
/// description says what the input is. An optional field (one not `required`) is told by
/// its absence, so its schema loses the `null` that `Option` adds.
#[must_use]
pub fn struct_schema<T: JsonSchema>() -> Value {
    whole_input(generator().root_schema_for::<T>().to_value())
}

/// [`struct_schema`] of a type's root schema.
fn whole_input(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
        object.remove("description");
        close(object);
        let required: Vec<String> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if !required.contains(name) {
                    drop_null(property);
                }
            }
        }
    }
    schema
}

/// Whether a single parameter of type `T` is the tool's whole input: its schema is an
/// object with listed properties (a struct, or anything serializing as one), not a
/// string, a number, an array, an enum of values or a map.
#[must_use]
pub fn is_whole<T: JsonSchema>() -> bool {
    lists_properties(&generator().root_schema_for::<T>().to_value())
}

/// Whether a root schema is an object with listed properties.
fn lists_properties(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::String("object".to_owned()))
        && schema.get("properties").is_some_and(Value::is_object)
}

/// The input schema of a tool whose one parameter, `name`, is not an `Option`: the type's
/// own schema when it is the whole input ([`is_whole`]), else an object with the one field.
#[must_use]
pub fn single_schema<T: JsonSchema>(name: &str, description: &str) -> Value {
    let root = generator().root_schema_for::<T>().to_value();
    if lists_properties(&root) {
        whole_input(root)
    } else {
        let mut params = Params::new();
        params.param::<T>(name, true, description);
        params.finish()
    }
}

/// Removes the `null` alternative from a schema: `"type": ["integer", "null"]` becomes
/// `"type": "integer"`, `anyOf: [X, {"type": "null"}]` becomes `X`.
fn drop_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(any_of)) = object.get("anyOf")
        && any_of.len() == 2
        && let Some(null) = any_of.iter().position(|s| s == &json!({"type": "null"}))
    {
        let Value::Object(other) = any_of[1 - null].clone() else {
            return;
        };
        object.remove("anyOf");
        for (key, value) in other {
            object.entry(key).or_insert(value);
        }
    }
}

/// Keywords under which an object's fields are not all in its `properties`: a flattened
/// map (`additionalProperties`), a flattened enum (`oneOf`), ...; such a schema stays open.
const OPEN_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "if",
    "not",
];

/// Adds `additionalProperties: false` to a plain object schema.
fn close(object: &mut Map<String, Value>) {
    if object.get("type") == Some(&Value::String("object".to_owned()))
        && !OPEN_KEYWORDS.iter().any(|k| object.contains_key(*k))
    {
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}
