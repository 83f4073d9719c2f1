//! JSON Schema lookups shared by the dialect rewrites: `$ref` resolution, null acceptance,
//! and JSON pointers for error paths.

use serde_json::Value;

/// How many `$ref`s a lookup follows before giving up: only cyclic references get there.
const MAX_REF_DEPTH: usize = 32;

/// The schema a local `$ref` (`#/$defs/Record`, `#/definitions/Record`, `#`) points to.
/// References to other documents are not resolved.
pub(super) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if !fragment.contains('%') {
        return root.pointer(fragment);
    }
    // A `$ref` is a URI: its fragment may percent-encode characters of a definition name.
    let mut bytes = Vec::with_capacity(fragment.len());
    let mut rest = fragment.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' && tail.len() >= 2 {
            let hex = std::str::from_utf8(&tail[..2]).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    root.pointer(&String::from_utf8(bytes).ok()?)
}

/// Follows `$ref` chains to the schema that holds the keywords (a `$ref` with siblings is
/// returned as it is: its siblings apply too).
pub(super) fn deref<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REF_DEPTH {
        match schema.as_object() {
            Some(map) if map.len() == 1 => match map.get("$ref").and_then(Value::as_str) {
                Some(reference) => match resolve_ref(root, reference) {
                    Some(target) => schema = target,
                    None => return schema,
                },
                None => return schema,
            },
            _ => return schema,
        }
    }
    schema
}

/// Whether `schema` accepts `null`: a `null` type, enum value or const, a branch of
/// `anyOf`/`oneOf` that does, or no type constraint at all.
pub(super) fn accepts_null(root: &Value, schema: &Value) -> bool {
    accepts_null_at(root, schema, 0)
}

fn accepts_null_at(root: &Value, schema: &Value, depth: usize) -> bool {
    let map = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(map) => map,
        _ => return false,
    };
    if depth > MAX_REF_DEPTH {
        return false;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve_ref(root, reference)
        && !accepts_null_at(root, target, depth + 1)
    {
        return false;
    }
    if let Some(Value::Array(branches)) = map.get("allOf")
        && !branches.iter().all(|branch| accepts_null_at(root, branch, depth + 1))
    {
        return false;
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array)
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if map.get("const").is_some_and(|value| !value.is_null()) {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && !branches.iter().any(|branch| accepts_null_at(root, branch, depth + 1))
        {
            return false;
        }
    }
    match map.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => names.iter().any(|name| name == "null"),
        _ => true,
    }
}

/// Whether a schema (after `$ref`s) may accept a value of `value`'s JSON type: used to pick
/// the branch of a union a value belongs to.
pub(super) fn may_accept_type(root: &Value, schema: &Value, value: &Value) -> bool {
    let Some(map) = deref(root, schema).as_object() else {
        return true;
    };
    let matches = |name: &str| match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(number)) => number.is_i64() || number.is_u64(),
        _ => false,
    };
    match map.get("type") {
        Some(Value::String(name)) => matches(name),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).any(matches),
        _ if map.contains_key("properties") => value.is_object(),
        _ if map.contains_key("items") => value.is_array(),
        _ => true,
    }
}

/// `path` extended by one JSON pointer token.
pub(super) fn push(path: &str, token: &str) -> String {
    format!("{path}/{}", token.replace('~', "~0").replace('/', "~1"))
}
