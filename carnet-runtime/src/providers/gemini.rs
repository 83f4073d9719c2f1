//! Google Gemini API (`generateContent`, AI Studio and Vertex AI): function declarations and
//! `functionCall` parts.
//!
//! # Schemas
//!
//! A function declaration takes its parameters in one of two fields:
//!
//! - `parameters`, a subset of the `OpenAPI` 3.0 schema object, which every Gemini model and
//!   API version accepts. [`tools`] sends this, converted from JSON Schema by
//!   [`parameters`].
//! - `parametersJsonSchema`, JSON Schema as it is, accepted by recent API versions.
//!   [`tools_json_schema`] sends this: use it for schemas `parameters` cannot express
//!   (recursive types) when the model accepts it.
//!
//! The conversion keeps what `parameters` can say and drops the assertions it cannot (which
//! only widens what the schema accepts: the tool still checks its arguments). It fails only
//! where dropping would lose the shape itself.
//!
//! | JSON Schema | `parameters` |
//! | --- | --- |
//! | `$ref` to `$defs`/`definitions` (or any local pointer) | the target inlined, the `$ref`'s siblings applied over it |
//! | recursive `$ref` | error: use [`tools_json_schema`] |
//! | `type: [T, "null"]` (or `nullable: true`) | `type: T, nullable: true` |
//! | `type: [A, B]` | `anyOf: [{type: A}, {type: B}]` |
//! | `anyOf`/`oneOf` with a `null` branch | the other branches, `nullable: true`; one branch left is merged into its parent |
//! | `oneOf` | `anyOf` |
//! | `anyOf`/`oneOf` of string `enum`s or `const`s (a documented Rust enum) | one `enum`, the branches' descriptions listed in `description` |
//! | `allOf` of one schema | merged into its parent; of several: error |
//! | `const: v` | `enum: [v]` |
//! | `enum` of strings (with `null`) | `enum`, `type: string` (and `nullable: true`) |
//! | `enum` or `const` of other values | dropped, the values listed in `description` (`parameters` enums are strings only) |
//! | `format` | kept for `float`/`double` numbers, `int32`/`int64` integers, `enum`/`date-time` strings, else dropped |
//! | `properties`, `required` | kept on objects; `required` keeps only listed properties |
//! | `items` | kept on arrays (tuples are dropped) |
//! | `examples` | its first value as `example` |
//! | `description`, `title`, `default`, `pattern`, `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties`, `example` | kept |
//! | `$schema`, `$id`, `$defs`, `additionalProperties`, `exclusiveMinimum`, `uniqueItems`, `not`, ... | dropped |
//!
//! A tool without parameters (an object schema with no `properties`) gets no `parameters`
//! at all: Gemini rejects an object schema with empty `properties`. Types stay lowercase
//! (`"string"`), which the API accepts as well as `"STRING"`.

use serde_json::{Map, Value, json};

pub use super::conversation::gemini_tool_config as tool_config;

use super::schema::{self, push};
use super::{Aliases, ProviderError, aliased, array_field, call_location, object_arguments, string_field};
use crate::tool::{ToolCall, ToolSpec};

/// Keywords of JSON Schema that mean the same in `parameters` and are kept as they are.
const KEPT: [&str; 13] = [
    "description",
    "title",
    "default",
    "example",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// The `format`s `parameters` documents, by type.
const FORMATS: [(&str, &str); 6] = [
    ("number", "float"),
    ("number", "double"),
    ("integer", "int32"),
    ("integer", "int64"),
    ("string", "enum"),
    ("string", "date-time"),
];

/// The `tools` of a `generateContent` request, with `parameters`:
/// `[{"functionDeclarations": [{"name", "description", "parameters"}]}]`, one tool object
/// holding every declaration, `name` being the alias. An empty `specs` gives an empty
/// array (leave `tools` out of the request then).
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]), or a
/// schema cannot be converted (see [`parameters`]).
pub fn tools(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let mut declarations = Vec::with_capacity(specs.len());
    for (spec, alias) in aliased(specs)? {
        let mut declaration = Map::new();
        declaration.insert("name".to_owned(), Value::String(alias));
        declaration.insert("description".to_owned(), Value::String(spec.description.clone()));
        if let Some(parameters) = parameters(spec)? {
            declaration.insert("parameters".to_owned(), parameters);
        }
        declarations.push(Value::Object(declaration));
    }
    Ok(wrap(declarations))
}

/// The `tools` of a `generateContent` request, with each input schema unchanged as
/// `parametersJsonSchema`: `[{"functionDeclarations": [{"name", "description",
/// "parametersJsonSchema"}]}]`.
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]).
pub fn tools_json_schema(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let declarations = aliased(specs)?
        .map(|(spec, alias)| {
            json!({
                "name": alias,
                "description": spec.description,
                "parametersJsonSchema": Value::clone(&spec.input_schema),
            })
        })
        .collect();
    Ok(wrap(declarations))
}

fn wrap(declarations: Vec<Value>) -> Value {
    if declarations.is_empty() {
        return Value::Array(Vec::new());
    }
    let tool = Map::from_iter([("functionDeclarations".to_owned(), Value::Array(declarations))]);
    Value::Array(vec![Value::Object(tool)])
}

/// A tool's input schema as Gemini's `parameters` (see the [module docs](self) for the
/// conversion), or `None` for a tool without parameters.
///
/// # Errors
///
/// [`ProviderError::Schema`] when the schema holds a recursive `$ref`, a `$ref` that does
/// not resolve in the schema, an `allOf` of several schemas, `anyOf` beside `oneOf` or a
/// type list, or a `false` schema; or when its root is not an object schema.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use carnet_runtime::{ToolKind, ToolSpec};
/// use carnet_runtime::providers::gemini;
/// use serde_json::json;
///
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": { "limit": { "type": ["integer", "null"], "format": "uint32" } },
///     "additionalProperties": false,
/// });
/// let spec = ToolSpec { name: "notes.list".into(), description: String::new(),
///     input_schema: Arc::new(schema), kind: ToolKind::Domain, toolset: None, output_schema: None };
/// assert_eq!(gemini::parameters(&spec)?, Some(json!({
///     "type": "object",
///     "properties": { "limit": { "type": "integer", "nullable": true } },
/// })));
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn parameters(spec: &ToolSpec) -> Result<Option<Value>, ProviderError> {
    let mut convert = Convert {
        tool: &spec.name,
        root: &spec.input_schema,
        inlining: Vec::new(),
    };
    let mut root = convert.node(&spec.input_schema, "#")?;
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(convert.error("#", "the root is not an object schema"));
    }
    root.remove("nullable");
    if root
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
    {
        return Ok(None);
    }
    Ok(Some(Value::Object(root)))
}

struct Convert<'a> {
    tool: &'a str,
    root: &'a Value,
    /// `$ref`s being inlined, to refuse a cycle.
    inlining: Vec<String>,
}

impl Convert<'_> {
    fn error(&self, path: &str, reason: impl Into<String>) -> ProviderError {
        ProviderError::Schema {
            tool: self.tool.to_owned(),
            provider: "Gemini",
            path: path.to_owned(),
            reason: reason.into(),
        }
    }

    fn node(&mut self, schema: &Value, path: &str) -> Result<Map<String, Value>, ProviderError> {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => return Ok(Map::new()),
            _ => return Err(self.error(path, "a schema that accepts no value cannot be expressed")),
        };
        if let Some(all_of) = map.get("allOf") {
            let merged = self.merge_all_of(map, all_of, path)?;
            return self.node(&merged, path);
        }
        if let Some(reference) = map.get("$ref") {
            return self.reference(map, reference, path);
        }

        let mut out = Map::new();
        let mut nullable = false;
        let mut types: Vec<&str> = match map.get("type") {
            None => Vec::new(),
            Some(Value::String(name)) => vec![name],
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            Some(_) => return Err(self.error(path, "`type` is neither a string nor an array")),
        };
        // `nullable` is `OpenAPI`, but some JSON Schemas written for `OpenAPI` tools carry it.
        if types.contains(&"null") || map.get("nullable") == Some(&Value::Bool(true)) {
            nullable = true;
            types.retain(|name| *name != "null");
        }

        // Lines for `description`: what the conversion could not say otherwise.
        let mut notes = Vec::new();
        // `enum` and `const`: `parameters` enums hold strings only.
        let values = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (Some(_), _) => return Err(self.error(path, "`enum` is not an array")),
            (None, Some(value)) => Some(vec![value.clone()]),
            (None, None) => None,
        };
        if let Some(mut values) = values {
            if values.contains(&Value::Null) {
                nullable = true;
                values.retain(|value| !value.is_null());
            }
            if values.iter().all(Value::is_string) && matches!(types.as_slice(), [] | ["string"]) {
                if !values.is_empty() {
                    types = vec!["string"];
                    out.insert("enum".to_owned(), Value::Array(values));
                }
            } else {
                let listed: Vec<String> = values.iter().map(Value::to_string).collect();
                notes.push(format!("Allowed values: {}.", listed.join(", ")));
            }
        }

        let mut format = None;
        for (key, value) in map {
            match key.as_str() {
                key if KEPT.contains(&key) => {
                    out.insert(key.to_owned(), value.clone());
                }
                "format" => format = value.as_str(),
                "examples" => {
                    if let Some(first) = value.as_array().and_then(|examples| examples.first()) {
                        out.entry("example").or_insert_with(|| first.clone());
                    }
                }
                "properties" => {
                    let Value::Object(properties) = value else {
                        return Err(self.error(path, "`properties` is not an object"));
                    };
                    let mut converted = Map::new();
                    for (name, property) in properties {
                        let property = self.node(property, &push(&push(path, key), name))?;
                        converted.insert(name.clone(), Value::Object(property));
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                "items" if !value.is_array() => {
                    let items = self.node(value, &push(path, key))?;
                    out.insert(key.clone(), Value::Object(items));
                }
                "required" => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }

        match types.as_slice() {
            [] if map.contains_key("properties") => types.push("object"),
            [] if map.contains_key("items") => types.push("array"),
            _ => {}
        }
        let mut union = Vec::new();
        match types.as_slice() {
            [] => {}
            [name] => {
                out.insert("type".to_owned(), json!(name));
            }
            names => union.extend(
                names
                    .iter()
                    .map(|name| Map::from_iter([("type".to_owned(), json!(name))])),
            ),
        }
        let branches = match (map.get("anyOf"), map.get("oneOf")) {
            (Some(_), Some(_)) => return Err(self.error(path, "`anyOf` beside `oneOf` cannot be expressed")),
            (Some(branches), None) => Some(("anyOf", branches)),
            (None, Some(branches)) => Some(("oneOf", branches)),
            (None, None) => None,
        };
        if let Some((key, branches)) = branches {
            if !union.is_empty() {
                return Err(self.error(path, format!("a list of types beside `{key}` cannot be expressed")));
            }
            let Value::Array(branches) = branches else {
                return Err(self.error(path, format!("`{key}` is not an array")));
            };
            for (index, branch) in branches.iter().enumerate() {
                if is_null_only(self.root, branch) {
                    nullable = true;
                    continue;
                }
                let mut converted = self.node(branch, &push(&push(path, key), &index.to_string()))?;
                if converted.remove("nullable") == Some(Value::Bool(true)) {
                    nullable = true;
                }
                union.push(converted);
            }
        }
        if union.len() > 1 && union.iter().all(is_string_enum) {
            // `oneOf` of documented string constants (schemars' form of a documented Rust
            // enum): one `enum`, which every Gemini model takes, and the branches'
            // descriptions listed.
            let mut values = Vec::new();
            for branch in &union {
                let branch_values = branch
                    .get("enum")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                if let Some(description) = branch.get("description").and_then(Value::as_str) {
                    let names: Vec<&str> = branch_values.iter().filter_map(Value::as_str).collect();
                    notes.push(format!("{}: {description}", names.join(", ")));
                }
                values.extend(branch_values.iter().cloned());
            }
            let merged = Map::from_iter([
                ("type".to_owned(), json!("string")),
                ("enum".to_owned(), Value::Array(values)),
            ]);
            union = vec![merged];
        }
        if union.len() == 1 {
            for (key, value) in union.remove(0) {
                out.entry(key).or_insert(value);
            }
        } else if !union.is_empty() {
            out.insert(
                "anyOf".to_owned(),
                Value::Array(union.into_iter().map(Value::Object).collect()),
            );
        }

        if !notes.is_empty() {
            if let Some(description) = out
                .get("description")
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
            {
                notes.insert(0, description.to_owned());
            }
            out.insert("description".to_owned(), Value::String(notes.join("\n")));
        }
        let kind = out.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
        if let Some(format) = format
            && FORMATS.contains(&(kind.as_str(), format))
        {
            out.insert("format".to_owned(), json!(format));
        }
        if kind == "object" {
            let properties = out.get("properties").and_then(Value::as_object);
            let required: Vec<Value> = out
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|name| {
                    name.as_str()
                        .is_some_and(|name| properties.is_some_and(|p| p.contains_key(name)))
                })
                .cloned()
                .collect();
            if required.is_empty() {
                out.remove("required");
            } else {
                out.insert("required".to_owned(), Value::Array(required));
            }
        } else {
            out.remove("properties");
            out.remove("required");
        }
        if kind != "array" {
            out.remove("items");
        }
        if nullable {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        Ok(out)
    }

    /// A `$ref`, inlined, with its siblings applied over the target.
    fn reference(
        &mut self,
        map: &Map<String, Value>,
        reference: &Value,
        path: &str,
    ) -> Result<Map<String, Value>, ProviderError> {
        let Some(reference) = reference.as_str() else {
            return Err(self.error(path, "`$ref` is not a string"));
        };
        if self.inlining.iter().any(|seen| seen == reference) {
            return Err(self.error(
                path,
                format!(
                    "`$ref` `{reference}` is recursive, which `parameters` cannot express \
                     (`gemini::tools_json_schema` sends the schema as `parametersJsonSchema`)"
                ),
            ));
        }
        let Some(target) = schema::resolve_ref(self.root, reference) else {
            return Err(self.error(path, format!("`$ref` `{reference}` does not resolve in this schema")));
        };
        self.inlining.push(reference.to_owned());
        // Errors inside the target point at the target, where they are fixed.
        let inlined = self.node(target, reference);
        self.inlining.pop();
        let mut inlined = inlined?;
        let mut siblings = map.clone();
        siblings.remove("$ref");
        if !siblings.is_empty() {
            inlined.extend(self.node(&Value::Object(siblings), path)?);
        }
        Ok(inlined)
    }

    /// The schema with its single `allOf` branch merged in.
    fn merge_all_of(&self, map: &Map<String, Value>, all_of: &Value, path: &str) -> Result<Value, ProviderError> {
        let Some([Value::Object(branch)]) = all_of.as_array().map(Vec::as_slice) else {
            return Err(self.error(path, "`allOf` of several schemas cannot be expressed"));
        };
        let mut merged = map.clone();
        merged.remove("allOf");
        for (key, value) in branch {
            match merged.get(key) {
                Some(existing) if existing != value => {
                    return Err(self.error(path, format!("`allOf` and its parent disagree on `{key}`")));
                }
                Some(_) => {}
                None => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(Value::Object(merged))
    }
}

/// Whether a converted branch is a string enum with at most annotations beside it.
fn is_string_enum(branch: &Map<String, Value>) -> bool {
    branch.get("type").and_then(Value::as_str) == Some("string")
        && branch.contains_key("enum")
        && branch
            .keys()
            .all(|key| ["type", "enum", "description", "title"].contains(&key.as_str()))
}

/// Whether a union branch accepts `null` and nothing else.
fn is_null_only(root: &Value, branch: &Value) -> bool {
    let Some(map) = schema::deref(root, branch).as_object() else {
        return false;
    };
    match (map.get("type"), map.get("const"), map.get("enum")) {
        (Some(Value::String(name)), _, _) => name == "null",
        (Some(Value::Array(names)), _, _) => names.iter().all(|name| name == "null"),
        (None, Some(value), _) => value.is_null(),
        (None, None, Some(Value::Array(values))) => values.iter().all(Value::is_null),
        _ => false,
    }
}

/// The function calls of a `generateContent` response: the `functionCall` parts of its
/// first candidate, in order. `response` may be the whole response, a candidate, its
/// `content` (`{"role": "model", "parts": [...]}`) or the `parts` array.
///
/// Reads `name` (mapped back through `aliases`), `args` (absent means `{}`) and `id`, which
/// only some API surfaces (the Live API) set; the call id is `None` otherwise, and a
/// `functionResponse` answers by name. A response without candidates (a blocked prompt) has
/// no calls.
///
/// # Errors
///
/// When a `functionCall` lacks `name`, when `args` is not an object, or when a field has the
/// wrong JSON type.
pub fn parse_tool_calls(response: &Value, aliases: &Aliases) -> Result<Vec<ToolCall>, ProviderError> {
    let content = if let Some(candidates) = response.get("candidates") {
        &candidates[0]["content"]
    } else if let Some(content @ Value::Object(_)) = response.get("content") {
        content
    } else {
        response
    };
    let parts = match content {
        Value::Array(parts) => parts.as_slice(),
        _ => array_field(content, "parts", "parts", || "the content".to_owned())?,
    };
    let mut parsed = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else { continue };
        let id = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty());
        let at = || call_location("parts", index, id);
        if !call.is_object() {
            return Err(ProviderError::InvalidField {
                location: at(),
                field: "functionCall",
                expected: "an object",
            });
        }
        let name = aliases
            .canonical(string_field(call, "name", "functionCall.name", at)?)
            .to_owned();
        let arguments = match call.get("args") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(args) => object_arguments(args.clone(), id, &name)?,
        };
        parsed.push(ToolCall {
            id: id.map(str::to_owned),
            name,
            arguments,
        });
    }
    Ok(parsed)
}
