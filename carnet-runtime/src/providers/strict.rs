//! `OpenAI` strict mode: the schema rewrite, and its inverse on the arguments the model sends.

use serde_json::{Map, Value, json};

use super::schema::{self, accepts_null, push};

/// Keywords strict mode accepts and that are kept as they are.
const KEPT: [&str; 13] = [
    "type",
    "description",
    "title",
    "enum",
    "const",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The `format`s strict mode knows; it rejects the others (`uri`, `int64`, ...). `format` is
/// an annotation in draft 2020-12, so dropping the others changes nothing a validator checks.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Assertions strict mode does not support: a schema using one cannot be sent strict without
/// accepting values it rejects.
const UNSUPPORTED: [&str; 22] = [
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "$dynamicRef",
];

/// Annotations that may sit next to a `$ref`: strict mode rejects any sibling of `$ref`, so
/// such a reference is inlined with them.
const REF_ANNOTATIONS: [&str; 2] = ["description", "title"];

/// Keywords beside a `$ref` that constrain values (with [`KEPT`] and [`UNSUPPORTED`]): the
/// schema is the intersection, which strict mode cannot express.
const REF_ASSERTIONS: [&str; 8] = [
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "additionalProperties",
    "required",
    "$defs",
    "definitions",
];

/// Why a schema cannot be sent in `OpenAI`'s strict mode without changing what it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictError {
    /// Where in the schema, as a JSON pointer fragment (`#/properties/tags`).
    pub path: String,
    /// What strict mode cannot express.
    pub reason: String,
}

impl std::fmt::Display for StrictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self { path, reason } = self;
        write!(f, "at `{path}`, {reason}")
    }
}

impl std::error::Error for StrictError {}

/// Rewrites a JSON Schema for `OpenAI`'s strict mode (Structured Outputs), accepting the
/// same arguments.
///
/// - Every object gets `additionalProperties: false` and lists all its properties in
///   `required`; a property that was optional becomes nullable instead, unless it already
///   accepts `null`: `"null"` is added to its `type` (and to its `enum`), or, when it has no
///   simple type (a `$ref`, a `const`, an `anyOf`), it is wrapped as
///   `{"anyOf": [schema, {"type": "null"}]}` with its `description` moved outside. The model
///   then sends `null` for "absent"; [`drop_strict_nulls`] turns those back into absent
///   properties.
/// - The rewrite recurses into `properties`, `items`, `anyOf`, `$defs` and `definitions`;
///   `oneOf` becomes `anyOf` (strict mode has no `oneOf`; the tool's deserializer still
///   rejects a value matching two branches), and an `allOf` of one schema is merged into
///   its parent.
/// - A `$ref` is kept, except one with a `description` or `title` beside it, which strict
///   mode rejects: the target is inlined there, with those annotations.
/// - Annotations strict mode rejects are dropped (`$schema`, `$id`, `default`, `examples`,
///   ...), and so is a `format` it does not know.
///
/// # Errors
///
/// When the schema uses what strict mode cannot express: free-form objects (no `properties`,
/// or `additionalProperties` other than `false`), schemas without a type, an `allOf` of
/// several schemas, a `$ref` beside assertions, keywords such as `not`, `if`,
/// `patternProperties`, `uniqueItems`, `minLength`/`maxLength`, tuples, or a root that is
/// not an object schema.
///
/// # Examples
///
/// ```
/// use carnet_runtime::providers::openai::strict_schema;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": { "path": { "type": "string" }, "limit": { "type": "integer" } },
///     "required": ["path"],
/// });
/// assert_eq!(strict_schema(&schema)?, json!({
///     "type": "object",
///     "properties": { "path": { "type": "string" }, "limit": { "type": ["integer", "null"] } },
///     "required": ["limit", "path"],
///     "additionalProperties": false,
/// }));
///
/// let map = json!({ "type": "object", "additionalProperties": { "type": "string" } });
/// assert!(strict_schema(&map).is_err());
/// # Ok::<(), carnet_runtime::providers::openai::StrictError>(())
/// ```
pub fn strict_schema(schema: &Value) -> Result<Value, StrictError> {
    let mut rewrite = Rewrite {
        root: schema,
        inlining: Vec::new(),
    };
    let strict = rewrite.node(schema, "#")?;
    if strict.get("type").and_then(Value::as_str) != Some("object") {
        return Err(error("#", "the root is not an object schema"));
    }
    Ok(strict)
}

fn error(path: &str, reason: impl Into<String>) -> StrictError {
    StrictError {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

struct Rewrite<'a> {
    root: &'a Value,
    /// `$ref`s being inlined, to refuse a cycle of them.
    inlining: Vec<String>,
}

impl Rewrite<'_> {
    fn node(&mut self, schema: &Value, path: &str) -> Result<Value, StrictError> {
        let Value::Object(map) = schema else {
            return Err(error(path, "a boolean schema has no type"));
        };
        if let Some(all_of) = map.get("allOf") {
            return self.node(&merge_all_of(map, all_of, path)?, path);
        }
        if let Some(reference) = map.get("$ref") {
            return self.reference(map, reference, path);
        }

        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                key if KEPT.contains(&key) => {
                    out.insert(key.to_owned(), value.clone());
                }
                "format" if value.as_str().is_some_and(|format| FORMATS.contains(&format)) => {
                    out.insert(key.clone(), value.clone());
                }
                "items" => {
                    if value.is_array() {
                        return Err(error(path, "tuple `items` are not supported in strict mode"));
                    }
                    out.insert(key.clone(), self.node(value, &push(path, key))?);
                }
                "anyOf" | "oneOf" => {
                    if out.contains_key("anyOf") {
                        return Err(error(
                            path,
                            "`anyOf` and `oneOf` together are not supported in strict mode",
                        ));
                    }
                    let Value::Array(branches) = value else {
                        return Err(error(path, format!("`{key}` is not an array")));
                    };
                    let branches = branches
                        .iter()
                        .enumerate()
                        .map(|(index, branch)| self.node(branch, &push(&push(path, key), &index.to_string())))
                        .collect::<Result<_, _>>()?;
                    out.insert("anyOf".to_owned(), Value::Array(branches));
                }
                "$defs" | "definitions" => {
                    let Value::Object(definitions) = value else {
                        return Err(error(path, format!("`{key}` is not an object")));
                    };
                    let mut strict = Map::new();
                    for (name, definition) in definitions {
                        strict.insert(name.clone(), self.node(definition, &push(&push(path, key), name))?);
                    }
                    out.insert(key.clone(), Value::Object(strict));
                }
                key if UNSUPPORTED.contains(&key) => {
                    return Err(error(path, format!("`{key}` is not supported in strict mode")));
                }
                // `properties`, `required` and `additionalProperties` are rewritten below;
                // everything else is an annotation or unknown, which validators ignore.
                _ => {}
            }
        }

        let is_object = match map.get("type") {
            Some(Value::String(name)) => name == "object",
            Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
            _ => map.contains_key("properties"),
        };
        if is_object {
            self.object(map, &mut out, path)?;
        }
        if !["type", "enum", "const", "anyOf"]
            .iter()
            .any(|key| out.contains_key(*key))
        {
            return Err(error(
                path,
                "a schema without a type accepts any value, which strict mode cannot express",
            ));
        }
        Ok(Value::Object(out))
    }

    /// `properties`, `required` and `additionalProperties` of an object schema.
    fn object(
        &mut self,
        map: &Map<String, Value>,
        out: &mut Map<String, Value>,
        path: &str,
    ) -> Result<(), StrictError> {
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None if map.contains_key("properties") => {}
            None => {
                return Err(error(
                    path,
                    "an object without `properties` takes any property, which strict mode cannot express",
                ));
            }
            Some(_) => {
                return Err(error(
                    path,
                    "`additionalProperties` other than `false` is not supported in strict mode",
                ));
            }
        }
        let empty = Map::new();
        let properties = match map.get("properties") {
            None => &empty,
            Some(Value::Object(properties)) => properties,
            Some(_) => return Err(error(path, "`properties` is not an object")),
        };
        let required: Vec<&str> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            Some(_) => return Err(error(path, "`required` is not an array")),
        };
        if let Some(name) = required.iter().find(|name| !properties.contains_key(**name)) {
            return Err(error(
                path,
                format!("`required` lists `{name}`, which is not in `properties`"),
            ));
        }

        let mut strict = Map::new();
        for (name, property) in properties {
            let mut rewritten = self.node(property, &push(&push(path, "properties"), name))?;
            if !required.contains(&name.as_str()) && !accepts_null(self.root, property) {
                rewritten = nullable(rewritten);
            }
            strict.insert(name.clone(), rewritten);
        }
        let all: Vec<Value> = strict.keys().cloned().map(Value::String).collect();
        out.entry("type").or_insert_with(|| json!("object"));
        out.insert("properties".to_owned(), Value::Object(strict));
        out.insert("required".to_owned(), Value::Array(all));
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
        Ok(())
    }

    fn reference(&mut self, map: &Map<String, Value>, reference: &Value, path: &str) -> Result<Value, StrictError> {
        let Some(reference) = reference.as_str() else {
            return Err(error(path, "`$ref` is not a string"));
        };
        let Some(target) = schema::resolve_ref(self.root, reference) else {
            return Err(error(
                path,
                format!("`$ref` `{reference}` does not resolve in this schema"),
            ));
        };
        let mut annotations = Map::new();
        for (key, value) in map {
            if REF_ANNOTATIONS.contains(&key.as_str()) {
                annotations.insert(key.clone(), value.clone());
            } else if KEPT.contains(&key.as_str())
                || UNSUPPORTED.contains(&key.as_str())
                || REF_ASSERTIONS.contains(&key.as_str())
            {
                return Err(error(
                    path,
                    format!("`$ref` next to `{key}` is not supported in strict mode"),
                ));
            }
        }
        if annotations.is_empty() {
            return Ok(json!({ "$ref": reference }));
        }
        if self.inlining.iter().any(|seen| seen == reference) {
            return Err(error(
                path,
                format!("`$ref` `{reference}` is recursive and has a description beside it"),
            ));
        }
        self.inlining.push(reference.to_owned());
        // Errors inside the target point at the target, where they are fixed.
        let inlined = self.node(target, reference);
        self.inlining.pop();
        let Value::Object(mut inlined) = inlined? else {
            unreachable!("the rewrite returns objects")
        };
        inlined.extend(annotations);
        Ok(Value::Object(inlined))
    }
}

/// The schema with its single `allOf` branch merged in.
fn merge_all_of(map: &Map<String, Value>, all_of: &Value, path: &str) -> Result<Value, StrictError> {
    let Some([Value::Object(branch)]) = all_of.as_array().map(Vec::as_slice) else {
        return Err(error(
            path,
            "`allOf` of several schemas is not supported in strict mode",
        ));
    };
    let mut merged = map.clone();
    merged.remove("allOf");
    for (key, value) in branch {
        match merged.get(key) {
            Some(existing) if existing != value => {
                return Err(error(path, format!("`allOf` and its parent disagree on `{key}`")));
            }
            Some(_) => {}
            None => {
                merged.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(Value::Object(merged))
}

/// A strict schema that also accepts `null`.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else { return schema };
    let has = |key: &str| map.contains_key(key);
    if !has("const") && !has("anyOf") && (has("type") || has("enum")) {
        match map.get_mut("type") {
            Some(Value::String(name)) => {
                let name = std::mem::take(name);
                map.insert("type".to_owned(), json!([name, "null"]));
            }
            Some(Value::Array(names)) => names.push(json!("null")),
            _ => {}
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
        return Value::Object(map);
    }
    if has("anyOf") && !has("type") && !has("const") && !has("enum") {
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            branches.push(json!({ "type": "null" }));
        }
        return Value::Object(map);
    }
    // A `$ref`, a `const`, or a mix: wrap it, annotations outside.
    let mut outer = Map::new();
    for key in REF_ANNOTATIONS {
        if let Some(value) = map.remove(key) {
            outer.insert(key.to_owned(), value);
        }
    }
    outer.insert("anyOf".to_owned(), json!([map, { "type": "null" }]));
    Value::Object(outer)
}

/// Removes the `null`s strict mode makes the model send for optional properties, so the
/// tool sees those properties absent, as it would have without strict mode.
///
/// `schema` is the tool's own input schema (not the strict rewrite). A property is removed
/// when its value is `null`, it is not `required` and its schema does not accept `null`;
/// the walk follows `properties`, `items`, `$ref`s, `allOf`, and the one branch of an
/// `anyOf`/`oneOf` that can hold the value's type. Without it, a tool whose optional
/// parameter is, say, `#[serde(default)] limit: u32` would fail to deserialize `null`.
///
/// # Examples
///
/// ```
/// use carnet_runtime::providers::openai::drop_strict_nulls;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": { "path": { "type": "string" }, "limit": { "type": "integer" } },
///     "required": ["path"],
/// });
/// let mut arguments = json!({ "path": "notes.md", "limit": null });
/// drop_strict_nulls(&schema, &mut arguments);
/// assert_eq!(arguments, json!({ "path": "notes.md" }));
/// ```
pub fn drop_strict_nulls(schema: &Value, arguments: &mut Value) {
    drop_nulls(schema, schema, arguments, 0);
}

fn drop_nulls(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    // Deeper than any schema a model fills in; only a cyclic `$ref` would get here.
    if depth > 64 {
        return;
    }
    let schema = schema::deref(root, schema);
    let Some(map) = schema.as_object() else { return };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = schema::resolve_ref(root, reference)
    {
        drop_nulls(root, target, value, depth + 1);
    }
    if let Some(Value::Array(branches)) = map.get("allOf") {
        for branch in branches {
            drop_nulls(root, branch, value, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let mut candidates = branches
                .iter()
                .filter(|branch| schema::may_accept_type(root, branch, value));
            if let (Some(branch), None) = (candidates.next(), candidates.next()) {
                drop_nulls(root, branch, value, depth + 1);
            }
        }
    }
    match value {
        Value::Object(object) => {
            let Some(properties) = map.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |names| names.iter().filter_map(Value::as_str).collect());
            object.retain(|name, value| {
                !(value.is_null()
                    && !required.contains(&name.as_str())
                    && properties
                        .get(name)
                        .is_some_and(|property| !accepts_null(root, property)))
            });
            for (name, value) in object.iter_mut() {
                if let Some(property) = properties.get(name) {
                    drop_nulls(root, property, value, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = map.get("items").filter(|item| item.is_object()) {
                for value in items {
                    drop_nulls(root, item, value, depth + 1);
                }
            }
        }
        _ => {}
    }
}
