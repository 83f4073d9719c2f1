//! What a tool's input schema says of its parameters, for the index.

/// The `inputSchema` of a remote tool's pin (`Tool::remote`).
pub(super) fn input_schema(remote: &str) -> Option<serde_json::Value> {
    let mut remote: serde_json::Value = serde_json::from_str(remote).ok()?;
    Some(remote.get_mut("inputSchema")?.take())
}

/// How deep [`for_each_parameter`] reads nested schemas (an object's properties, an array's
/// items): deep enough for a list of records, bounded for schemas from strangers.
pub(super) const PARAMETER_DEPTH: usize = 4;

/// Calls `f` with what an input schema says of each parameter: its name, its description and
/// the string values of its `enum` (`"driving"`, `"walking"`), and the same for the
/// properties of nested objects and of arrays' items (`entities: [{name, observations}]`),
/// down to a few levels.
pub fn for_each_parameter(schema: &serde_json::Value, mut f: impl FnMut(&str)) {
    parameters(schema, PARAMETER_DEPTH, &mut f);
}

fn parameters(schema: &serde_json::Value, depth: usize, f: &mut impl FnMut(&str)) {
    use serde_json::Value;
    if depth == 0 {
        return;
    }
    if let Some(items) = schema.get("items") {
        parameters(items, depth - 1, f);
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        f(name);
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            f(description);
        }
        for value in property.get("enum").and_then(Value::as_array).into_iter().flatten() {
            if let Some(value) = value.as_str() {
                f(value);
            }
        }
        parameters(property, depth - 1, f);
    }
}
