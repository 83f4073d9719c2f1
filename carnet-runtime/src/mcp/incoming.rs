//! What a line of a byte stream's input is: a request, a notification, a response (to a
//! request this server sent: a relayed sampling or elicitation), or no JSON-RPC message.

use serde_json::Value;

/// A JSON-RPC message, as read.
pub(super) enum Message {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A response to a request of this server's (a relayed sampling or elicitation).
    Response {
        id: Value,
        result: Option<Value>,
        error: Option<Value>,
    },
    /// No message: answered with an invalid-request error, with its id when it has one.
    Invalid {
        id: Value,
        reason: &'static str,
    },
}

pub(super) fn classify(value: Value) -> Message {
    let Value::Object(mut fields) = value else {
        return Message::Invalid {
            id: Value::Null,
            reason: "a message is a JSON object (batches were removed from MCP in 2025-06-18)",
        };
    };
    let id = match fields.remove("id") {
        Some(id) if id.is_string() || id.is_i64() || id.is_u64() => Some(id),
        Some(_) => {
            return Message::Invalid {
                id: Value::Null,
                reason: "the `id` is neither a string nor an integer",
            };
        }
        None => None,
    };
    let method = match fields.remove("method") {
        Some(Value::String(method)) => Some(method),
        None if fields.contains_key("result") || fields.contains_key("error") => {
            return Message::Response {
                id: id.unwrap_or(Value::Null),
                result: fields.remove("result"),
                error: fields.remove("error"),
            };
        }
        _ => None,
    };
    let invalid = |reason| Message::Invalid {
        id: id.clone().unwrap_or(Value::Null),
        reason,
    };
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return match (&method, &id) {
            // A notification gets no answer, even one that cannot be read.
            (Some(_), None) => Message::Notification {
                method: String::new(),
                params: None,
            },
            _ => invalid("`jsonrpc` is not \"2.0\""),
        };
    }
    let Some(method) = method else {
        return invalid("no `method` (a request) and no `result` or `error` (a response)");
    };
    let params = fields.remove("params").filter(|p| !p.is_null());
    match id {
        Some(id) => Message::Request { id, method, params },
        None => Message::Notification { method, params },
    }
}
