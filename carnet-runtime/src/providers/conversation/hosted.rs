//! The provider's own items of a response (its hosted tool search's blocks and items) as
//! they go back in a request: the fields a request takes, without the `null`s a response
//! writes for what is absent.

use carnet_manifest::order;
use serde_json::Value;

/// A server block as sent back: its `null` fields left out, as the response models write
/// absent optional fields as `null` and the request types take them absent.
pub(in crate::providers) fn without_nulls(block: &Value) -> Value {
    match block {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        other => other.clone(),
    }
}

/// A hosted tool search item of a response as an input item: the fields the input item
/// has (an output item also says who created it, which an input item may not), and in the
/// tool definitions it loaded no `null` (the output's way to say absent, which the input's
/// tool types refuse). The search's `arguments` stay as they are.
pub(in crate::providers) fn responses_input_item(item: &Value) -> Value {
    const FIELDS: [&str; 7] = ["type", "id", "call_id", "execution", "status", "arguments", "tools"];
    match item {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(k, v)| FIELDS.contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if k == "tools" {
                            deep_without_nulls(v, 0)
                        } else {
                            v.clone()
                        },
                    )
                }),
        )),
        other => other.clone(),
    }
}

/// `value` without `null` object fields at any depth, down to a bound (a hostile response
/// may nest deeply; below it the value is kept as it is).
fn deep_without_nulls(value: &Value, depth: usize) -> Value {
    if depth > 64 {
        return value.clone();
    }
    match value {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), deep_without_nulls(v, depth + 1))),
        )),
        Value::Array(items) => Value::Array(items.iter().map(|v| deep_without_nulls(v, depth + 1)).collect()),
        other => other.clone(),
    }
}
