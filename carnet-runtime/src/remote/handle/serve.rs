//! The server side of a [`Remote`](super::Remote) handle: its requests reach an MCP
//! toolset's [`Upstream`] through [`RemoteServer::forward`](crate::engine::carnet::RemoteServer)
//! under two methods of carnet's own, which no MCP server is sent and the gateway never
//! forwards. The answer is an envelope, `{"result": ...}` or `{"failed": {"code", "message",
//! "rpc"?}}`, so that a failure keeps its kind (`upstream_timeout`, ...) where a JSON-RPC
//! error would keep only a number.

use std::time::Duration;

use serde_json::{Value, json};

use super::super::upstream::{self, Unavailable, Upstream};

/// `{"name", "arguments"}`: a `tools/call` of a pinned tool, as the model's calls make it (the
/// drift policy, the restart after a crash or a hang).
pub(crate) const CALL: &str = "carnet/remote/call";
/// `{"method", "params"}`: any other MCP request, bounded by the call timeout.
pub(crate) const REQUEST: &str = "carnet/remote/request";

/// Whether `method` is one of the handle's own.
pub(crate) fn is_handle_method(method: &str) -> bool {
    method == CALL || method == REQUEST
}

/// A failure as the envelope carries it.
struct Failed {
    code: &'static str,
    message: String,
    rpc: Option<i32>,
}

impl From<Unavailable> for Failed {
    fn from(Unavailable { message, code }: Unavailable) -> Self {
        Failed {
            code,
            message,
            rpc: None,
        }
    }
}

/// Answers handle request `method` with `params` on `upstream`: the envelope.
pub(crate) async fn answer(upstream: &Upstream, call_timeout: Duration, method: &str, params: Value) -> Value {
    tracing::Span::current().record("carnet.mcp.server", upstream.server_name.as_str());
    if tokio::runtime::Handle::try_current().is_err() {
        return refused(Failed {
            code: "upstream_unavailable",
            message: format!(
                "the MCP server of toolset `{}` can only be reached inside a tokio runtime",
                upstream.toolset
            ),
            rpc: None,
        });
    }
    let answer = if method == CALL {
        call(upstream, params).await
    } else {
        request(upstream, call_timeout, params).await
    };
    match answer {
        Ok(result) => json!({ "result": result }),
        Err(failed) => refused(failed),
    }
}

/// A failure's envelope.
fn refused(Failed { code, message, rpc }: Failed) -> Value {
    json!({"failed": {"code": code, "message": message, "rpc": rpc}})
}

async fn call(upstream: &Upstream, params: Value) -> Result<Value, Failed> {
    let name = params["name"].as_str().unwrap_or_default();
    let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
    let result = upstream.call(name, arguments).await?;
    Ok(upstream::result_json(&result))
}

async fn request(upstream: &Upstream, call_timeout: Duration, params: Value) -> Result<Value, Failed> {
    let invalid = |message: String| Failed {
        code: "invalid_request",
        message,
        rpc: None,
    };
    let Value::Object(mut params) = params else {
        return Err(invalid("a request is an object".into()));
    };
    let method = params.remove("method").unwrap_or_default();
    match method.as_str() {
        Some("tools/call") => {
            return Err(invalid(
                "`tools/call` goes through `Remote::call_tool`, which checks the pin".into(),
            ));
        }
        Some("initialize") => return Err(invalid("the connection is initialised by carnet".into())),
        Some("resources/subscribe" | "resources/unsubscribe") => {
            return Err(invalid(
                "a handle receives no notifications: subscriptions are the MCP gateway's".into(),
            ));
        }
        Some(_) => {}
        None => return Err(invalid("a request names its method".into())),
    }
    let request = json!({"method": method, "params": params.remove("params").unwrap_or_else(|| json!({}))});
    let request = serde_json::from_value::<rmcp::model::ClientRequest>(request)
        .map_err(|e| invalid(format!("`{method}` is not an MCP request with these parameters: {e}")))?;
    let connection = upstream.connection().await?;
    let peer = connection.peer().clone();
    drop(connection);
    match tokio::time::timeout(call_timeout, peer.send_request(request)).await {
        Ok(Ok(result)) => serde_json::to_value(result).map_err(|e| Failed {
            code: "invalid_response",
            message: format!(
                "the answer of the MCP server of toolset `{}` does not serialise: {e}",
                upstream.toolset
            ),
            rpc: None,
        }),
        Ok(Err(rmcp::ServiceError::McpError(error))) => Err(Failed {
            code: "upstream_error",
            message: error.message.into_owned(),
            rpc: Some(error.code.0),
        }),
        Ok(Err(error)) => Err(Failed {
            code: "upstream_crashed",
            message: format!(
                "the connection to the MCP server of toolset `{}` failed during the request: {error}",
                upstream.toolset
            ),
            rpc: None,
        }),
        Err(_) => Err(Failed {
            code: "upstream_timeout",
            message: format!(
                "the MCP server of toolset `{}` did not answer within {} ms",
                upstream.toolset,
                call_timeout.as_millis()
            ),
            rpc: None,
        }),
    }
}
