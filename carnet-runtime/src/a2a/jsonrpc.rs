//! The JSON-RPC 2.0 binding: one request per POST, answered with one response, or with an
//! SSE stream of responses for `SendStreamingMessage` and `SubscribeToTask`.

use std::sync::Arc;

use a2a_types::{A2AError, JsonRpcId, JsonRpcResponse, StreamResponse};
use serde_json::Value;

use super::methods::{self, Events, Reply};
use super::shared::Shared;

/// What the HTTP layer sends back.
pub(super) enum Answer {
    /// A JSON-RPC response.
    Json(Vec<u8>),
    /// SSE events, each a JSON-RPC response with the request's id.
    Stream(JsonRpcId, Box<Events>),
}

/// Answers one request body; `version` is the `A2A-Version` header.
pub(super) async fn handle(shared: &Arc<Shared>, version: Option<&str>, body: &[u8]) -> Answer {
    let request = match serde_json::from_slice::<Value>(body) {
        Ok(request) => request,
        Err(e) => {
            return Answer::Json(error(
                JsonRpcId::Null,
                &A2AError::parse_error(format!("the body is not JSON: {e}")),
            ));
        }
    };
    let (id, method, params) = match envelope(request) {
        Ok(parts) => parts,
        Err((id, e)) => return Answer::Json(error(id, &e)),
    };
    if let Err(e) = methods::check_version(version) {
        return Answer::Json(error(id, &e));
    }
    let reply = match method.as_str() {
        "SendMessage" => methods::send(shared, params, false).await,
        "SendStreamingMessage" => methods::send(shared, params, true).await,
        "GetTask" => methods::get(shared, params).await,
        "ListTasks" => methods::list(shared, params).await,
        "CancelTask" => methods::cancel(shared, params).await,
        "SubscribeToTask" => methods::subscribe(shared, params).await,
        other => Err(methods::unsupported(other).unwrap_or_else(|| A2AError::method_not_found(other))),
    };
    match reply {
        Ok(Reply::Value(value)) => Answer::Json(response(&JsonRpcResponse::success(id, value))),
        Ok(Reply::Stream(events)) => Answer::Stream(id, events),
        Err(e) => Answer::Json(error(id, &e)),
    }
}

/// The id, method and params of a JSON-RPC request, or the error to answer (with the id
/// when it could be read).
fn envelope(request: Value) -> Result<(JsonRpcId, String, Value), (JsonRpcId, A2AError)> {
    let Value::Object(mut request) = request else {
        let what = if request.is_array() {
            "a batch: A2A sends one request per call"
        } else {
            "not a JSON-RPC request object"
        };
        return Err((
            JsonRpcId::Null,
            A2AError::invalid_request(format!("the body is {what}")),
        ));
    };
    let id = match request.remove("id") {
        Some(Value::String(s)) => JsonRpcId::String(s),
        Some(Value::Number(n)) if n.is_i64() => JsonRpcId::Number(n.as_i64().unwrap_or_default()),
        _ => {
            return Err((
                JsonRpcId::Null,
                A2AError::invalid_request("`id` must be a string or an integer: every A2A method has an answer"),
            ));
        }
    };
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((id, A2AError::invalid_request("`jsonrpc` must be \"2.0\"")));
    }
    let Some(Value::String(method)) = request.remove("method") else {
        return Err((id, A2AError::invalid_request("`method` must be a string")));
    };
    let params = match request.remove("params") {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(params @ Value::Object(_)) => params,
        Some(_) => return Err((id, A2AError::invalid_params("`params` must be an object"))),
    };
    Ok((id, method, params))
}

/// One event of a stream, as a JSON-RPC response.
pub(super) fn event(id: &JsonRpcId, event: &StreamResponse) -> Vec<u8> {
    let value = serde_json::to_value(event).unwrap_or(Value::Null);
    response(&JsonRpcResponse::success(id.clone(), value))
}

/// A JSON-RPC error response.
pub(super) fn error(id: JsonRpcId, error: &A2AError) -> Vec<u8> {
    response(&JsonRpcResponse::error(id, error.to_jsonrpc_error()))
}

fn response(response: &JsonRpcResponse) -> Vec<u8> {
    serde_json::to_vec(response).unwrap_or_default()
}
