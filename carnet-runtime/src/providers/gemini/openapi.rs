//! JSON Schema (draft 2020-12) rewritten as the `OpenAPI` 3.0 subset Gemini's `parameters`
//! take: `$ref`s inlined (cycles refused), `anyOf` with `null` as `nullable`, unknown
//! keywords dropped, what cannot be expressed refused with its path.

use carnet_manifest::order;
use serde_json::{Map, Value, json};

use super::super::common::ProviderError;
use super::super::schema::{self, push};

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
pub(super) struct Convert<'a> {
    pub(super) tool: &'a str,
    pub(super) root: &'a Value,
    /// `$ref`s being inlined, to refuse a cycle.
    pub(super) inlining: Vec<String>,
}

impl Convert<'_> {
    pub(super) fn error(&self, path: &str, reason: impl Into<String>) -> ProviderError {
        ProviderError::Schema {
            tool: self.tool.to_owned(),
            provider: "Gemini",
            path: path.to_owned(),
            reason: reason.into(),
        }
    }

    pub(super) fn node(&mut self, schema: &Value, path: &str) -> Result<Map<String, Value>, ProviderError> {
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
                    .map(|name| order::object([("type".to_owned(), json!(name))])),
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
            let merged = order::object([
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
