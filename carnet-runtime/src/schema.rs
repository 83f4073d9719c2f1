//! Checking tool arguments against the tool's input schema before the tool runs, so the
//! model learns which field is wrong (`/filters/0/date: expected a string, found 42`).
//!
//! The subset of JSON Schema checked is what tool schemas use: `type` (one or several),
//! `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`,
//! `oneOf`, `allOf` and local `$ref`s (`#/$defs/...`, `#/definitions/...`). Keywords outside
//! it (formats, bounds) are left to the tool's own deserialization.

use serde_json::{Map, Value};

/// An argument that does not match the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer to the offending field (`""` for the arguments themselves); for a
    /// missing or unknown field, the pointer to that field.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The message names the field itself (missing or unknown field): no path prefix.
    names_field: bool,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() || self.names_field {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.path, self.message)
        }
    }
}

const MAX_DEPTH: usize = 64;

/// Checks `value` against `schema`.
///
/// # Errors
///
/// The first mismatch, with its JSON pointer.
///
/// # Examples
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"limit": {"type": "integer"}}, "required": ["limit"]});
/// let err = carnet_runtime::schema::validate(&json!({"limit": "ten"}), &schema).unwrap_err();
/// assert_eq!(err.path, "/limit");
/// assert_eq!(err.message, "expected an integer, found a string");
/// ```
pub fn validate(value: &Value, schema: &Value) -> Result<(), SchemaError> {
    check(value, schema, schema, &mut String::new(), 0)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn type_matches(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => {
            value.as_i64().is_some() || value.as_u64().is_some() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn article(ty: &str) -> String {
    match ty {
        "integer" | "array" | "object" => format!("an {ty}"),
        "null" => "null".to_owned(),
        _ => format!("a {ty}"),
    }
}

fn err(path: &str, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.to_owned(),
        message: message.into(),
        names_field: false,
    }
}

fn field_err(path: &str, field: &str, message: String) -> SchemaError {
    let pointer = format!("{path}/{}", field.replace('~', "~0").replace('/', "~1"));
    SchemaError {
        path: pointer,
        message,
        names_field: true,
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn check(value: &Value, schema: &Value, root: &Value, path: &mut String, depth: usize) -> Result<(), SchemaError> {
    if depth > MAX_DEPTH {
        return Ok(()); // a recursive schema deeper than any real argument: stop checking
    }
    let Some(schema) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => Err(err(path, "no value is allowed here")),
            _ => Ok(()),
        };
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve(root, reference)
    {
        check(value, target, root, path, depth + 1)?;
    }
    if let Some(ty) = schema.get("type") {
        let types: Vec<&str> = match ty {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| type_matches(value, t)) {
            let expected: Vec<String> = types.iter().map(|t| article(t)).collect();
            return Err(err(
                path,
                format!("expected {}, found {}", expected.join(" or "), kind(value)),
            ));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err(err(path, format!("expected one of {}, found {value}", list.join(", "))));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Err(err(path, format!("expected {constant}, found {value}")));
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            check(value, sub, root, path, depth + 1)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut first_error = None;
            let matched = branches
                .iter()
                .any(|sub| match check(value, sub, root, path, depth + 1) {
                    Ok(()) => true,
                    Err(e) => {
                        first_error.get_or_insert(e);
                        false
                    }
                });
            if !matched {
                return Err(first_error.unwrap_or_else(|| err(path, "matches none of the allowed forms")));
            }
        }
    }
    match value {
        Value::Object(object) => check_object(object, schema, root, path, depth),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    check(item, item_schema, root, path, depth + 1)?;
                    path.truncate(len);
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_object(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    root: &Value,
    path: &mut String,
    depth: usize,
) -> Result<(), SchemaError> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                return Err(field_err(path, name, format!("missing required field `{name}`")));
            }
        }
    }
    for (key, value) in object {
        let len = path.len();
        path.push('/');
        path.push_str(&key.replace('~', "~0").replace('/', "~1"));
        match properties.and_then(|p| p.get(key)) {
            Some(property) => check(value, property, root, path, depth + 1)?,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    path.truncate(len);
                    let known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let hint = if known.is_empty() {
                        "this tool takes no arguments".to_owned()
                    } else {
                        format!("expected one of `{}`", known.join("`, `"))
                    };
                    return Err(field_err(path, key, format!("unknown field `{key}`, {hint}")));
                }
                Some(extra @ Value::Object(_)) => check(value, extra, root, path, depth + 1)?,
                _ => {}
            },
        }
        path.truncate(len);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_name_the_field() {
        let schema = json!({
            "type": "object",
            "properties": {
                "filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
                "mode": {"enum": ["fast", "exact"]},
                "limit": {"type": ["integer", "null"]}
            },
            "required": ["filters"],
            "additionalProperties": false,
            "$defs": {"Filter": {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]}}
        });
        assert!(validate(&json!({"filters": [{"date": "2024"}], "limit": null}), &schema).is_ok());
        let e = validate(&json!({"filters": [{"date": 42}]}), &schema).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("/filters/0/date", "expected a string, found an integer")
        );
        let e = validate(&json!({}), &schema).unwrap_err();
        assert_eq!(e.to_string(), "missing required field `filters`");
        let e = validate(&json!({"filters": [], "mode": "slow"}), &schema).unwrap_err();
        assert_eq!(e.message, r#"expected one of "fast", "exact", found "slow""#);
        let e = validate(&json!({"filters": [], "colour": 1}), &schema).unwrap_err();
        assert_eq!(
            e.message,
            "unknown field `colour`, expected one of `filters`, `limit`, `mode`"
        );
        let e = validate(&json!({"filters": [], "limit": 1.5}), &schema).unwrap_err();
        assert_eq!(e.message, "expected an integer or null, found a number");
        let e = validate(&json!([1]), &schema).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("", "expected an object, found an array")
        );
    }

    #[test]
    fn any_of_and_recursion() {
        let schema = json!({"$defs": {"Node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}}}, "$ref": "#/$defs/Node"});
        assert!(validate(&json!({"next": {"next": {"next": null}}}), &schema).is_ok());
        assert!(validate(&json!({"next": 3}), &schema).is_err());
    }
}
