//! JSON-RPC 2.0 as MCP uses it: the error object, the codes, and the lines a byte stream
//! carries. Independent of rmcp, so that serving over stdio (feature `mcp`) needs none of it.

use std::fmt;

use serde_json::{Value, json};

/// A JSON-RPC error: what a request that cannot be served gets instead of a result.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RpcError {
    pub(super) code: i32,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

/// The codes this server answers with.
pub(super) mod code {
    pub(in crate::mcp) const PARSE_ERROR: i32 = -32700;
    pub(in crate::mcp) const INVALID_REQUEST: i32 = -32600;
    pub(in crate::mcp) const METHOD_NOT_FOUND: i32 = -32601;
    pub(in crate::mcp) const INVALID_PARAMS: i32 = -32602;
    pub(in crate::mcp) const INTERNAL_ERROR: i32 = -32603;
    /// MCP's resource-not-found (before `2026-07-28`, which answers invalid params instead).
    pub(in crate::mcp) const RESOURCE_NOT_FOUND: i32 = -32002;
    /// MCP's unsupported protocol version (`2026-07-28`).
    pub(in crate::mcp) const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

impl RpcError {
    pub(super) fn new(code: i32, message: impl Into<String>, data: Option<Value>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data,
        }
    }

    pub(super) fn invalid_request(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_REQUEST, message, None)
    }

    pub(super) fn invalid_params(message: impl Into<String>, data: Option<Value>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message, data)
    }

    pub(super) fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INTERNAL_ERROR, message, None)
    }

    /// A method this server knows and does not serve: named by its method, as rmcp names it.
    pub(super) fn not_served(method: &str) -> RpcError {
        RpcError::new(code::METHOD_NOT_FOUND, method, None)
    }

    /// The error object of a response.
    pub(super) fn to_value(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

#[cfg(feature = "mcp-http")]
impl From<RpcError> for rmcp::ErrorData {
    fn from(error: RpcError) -> rmcp::ErrorData {
        rmcp::ErrorData::new(rmcp::model::ErrorCode(error.code), error.message, error.data)
    }
}

/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}` as one line, newline included.
pub(super) fn result_line(id: &Value, result: &Value) -> Vec<u8> {
    let mut line = result_start(id);
    serde_json::to_writer(&mut line, result).expect("a JSON value serializes");
    result_end(&mut line);
    line
}

/// `{"jsonrpc":"2.0","id":ID,"result":`: a result line up to its result, which the caller
/// writes before [`result_end`].
pub(super) fn result_start(id: &Value) -> Vec<u8> {
    let mut line = Vec::with_capacity(256);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut line, id).expect("a JSON value serializes");
    line.extend_from_slice(br#","result":"#);
    line
}

/// Ends a line [`result_start`] began.
pub(super) fn result_end(line: &mut Vec<u8>) {
    line.extend_from_slice(b"}\n");
}

/// `{"jsonrpc":"2.0","id":ID,"error":ERROR}` as one line, newline included; `id` is `null`
/// when the request's cannot be read.
pub(super) fn error_line(id: &Value, error: &RpcError) -> Vec<u8> {
    let mut line = Vec::with_capacity(128);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut line, id).expect("a JSON value serializes");
    line.extend_from_slice(br#","error":"#);
    serde_json::to_writer(&mut line, &error.to_value()).expect("a JSON value serializes");
    line.extend_from_slice(b"}\n");
    line
}

/// A notification without params, as one line.
pub(super) fn notification_line(method: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(64);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
    serde_json::to_writer(&mut line, method).expect("a string serializes");
    line.extend_from_slice(b"}\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_json_rpc_messages() {
        let error = RpcError::new(code::INVALID_PARAMS, "bad", Some(json!({ "uri": "x" })));
        let line = error_line(&json!(7), &error);
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            value,
            json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32602, "message": "bad", "data": { "uri": "x" } } })
        );
        assert_eq!(line.last(), Some(&b'\n'));
        let line = result_line(&json!("a"), &json!({}));
        assert_eq!(line, b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n");
        let line = notification_line("notifications/tools/list_changed");
        assert_eq!(
            line,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n"
        );
    }
}
