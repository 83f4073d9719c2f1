//! The stateless revision's two hot requests, `tools/list` and `tools/call`, answered over
//! HTTP without rmcp's per-request machinery, byte for byte as rmcp answers them.
//!
//! rmcp serves each `2026-07-28` request by making a new [`Connection`](super::Connection)
//! (with its session), spawning a task that runs it over a one-message transport and
//! streaming the answer back through channels as a chunked SSE body. A replica behind a load
//! balancer answers little else, so these two are served here instead:
//!
//! - `tools/list`: the list is the dispatcher's, the same for every request, so its `result`
//!   is serialized once per server and each answer copies it around the request's `id`;
//! - `tools/call`: the call runs as rmcp's path runs it (the handle opened, the session
//!   resumed, the result sealed into a new handle when the state changed), and its result is
//!   written straight into the SSE frame, the tool's value serialized once for both its text
//!   and its structured content.
//!
//! Only requests whose every detail is the plain case come here: a single JSON-RPC request
//! carrying the `2026-07-28` version in its `_meta` (with the keys that revision requires),
//! the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers present once each and
//! agreeing with the body, no `Mcp-Param-*`, `Origin`, session or resumption header, an
//! `Accept` of both media types, a JSON `Content-Type` and a `Host` rmcp allows. Anything
//! else, and every other method, goes to rmcp, which refuses or serves it. The tests compare
//! both paths' bytes request by request (`tests/mcp_http.rs`).
//!
//! A server that passes remote toolsets through does not take this path: a call of a remote
//! tool relays what its server sends (progress, log messages, requests for input answered
//! with `input_required` results, [`super::waiting`]) through rmcp's request context.

use std::borrow::Cow;
use std::convert::Infallible;

use std::sync::OnceLock;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue, ORIGIN};
use hyper::{Response, StatusCode};
use rmcp::model::{
    ClientCapabilities, JsonObject, JsonRpcError, ListToolsResult, ProtocolVersion, RequestId, ServerResult,
};
use serde::Deserialize;
use serde_json::Value;

use super::messages;
use super::methods::{Answer, call_stateless, stateless_tools, tool_result, write_tool_result};
use super::rpc::RpcError as ErrorData;
use super::shared::Shared;
use crate::ToolOutput;

type Body = BoxBody<Bytes, Infallible>;

/// What the direct path keeps for one HTTP server: the `Host` names rmcp allows, and the
/// `tools/list` result once serialized.
pub(super) struct Direct {
    hosts: Vec<String>,
    tools: OnceLock<Option<Vec<u8>>>,
}

impl Direct {
    pub(super) fn new(hosts: Vec<String>) -> Direct {
        Direct {
            hosts,
            tools: OnceLock::new(),
        }
    }

    /// The answer to `body`, or `None` when the request is not one served here.
    pub(super) async fn serve(&self, shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Option<Response<Body>> {
        let headers = self.plain_headers(headers)?;
        let request = serde_json::from_slice::<Request<'_>>(body).ok()?;
        let Params {
            meta,
            name,
            arguments,
            cursor,
        } = request.params;
        // A cursor is refused, by rmcp's path (this server gives none).
        if cursor.is_some()
            || request.jsonrpc != "2.0"
            || request.method != headers.method
            || meta.version != ProtocolVersion::V_2026_07_28.as_str()
            || name.as_deref() != headers.name
        {
            return None;
        }
        let mut frame = Vec::with_capacity(256);
        match (&*request.method, name) {
            ("tools/list", None) if arguments.is_none() => {
                let tools = self.tools.get_or_init(|| list_result(shared)).as_deref()?;
                open_response(&mut frame, &request.id);
                frame.extend_from_slice(tools);
            }
            ("tools/call", Some(name)) => {
                let call_id = request.id.to_string();
                // Never cancelled but by dropping this future (the client went away).
                let answer = call_stateless(shared, None, &name, arguments, &call_id, std::future::pending()).await;
                let written = answer.and_then(|answer| {
                    open_response(&mut frame, &request.id);
                    match answer {
                        Answer::Complete(output) => write_call_result(&mut frame, &output),
                        // Not on this path (a server that passes remote toolsets through does
                        // not take it), but written as rmcp would.
                        Answer::InputRequired(result) => serde_json::to_writer(&mut frame, &result)
                            .map_err(|e| messages::unencodable("the result", e)),
                    }
                });
                if let Err(error) = written {
                    // The call ran: answer its failure here, as rmcp answers a handler's.
                    frame.clear();
                    frame.extend_from_slice(b"data: ");
                    let message = JsonRpcError::new(Some(request.id), error.into());
                    serde_json::to_writer(&mut frame, &message).expect("an error message serializes");
                    frame.extend_from_slice(b"\n\n");
                    return Some(sse(frame));
                }
            }
            _ => return None,
        }
        frame.extend_from_slice(b"}\n\n");
        Some(sse(frame))
    }

    /// The request's `Mcp-Method` and `Mcp-Name`, when its headers are the plain case.
    fn plain_headers<'a>(&self, headers: &'a HeaderMap) -> Option<Plain<'a>> {
        let one = |name: &str| {
            let mut values = headers.get_all(name).iter();
            let first = values.next()?;
            values.next().is_none().then(|| first.to_str().ok()).flatten()
        };
        if one("mcp-protocol-version")? != ProtocolVersion::V_2026_07_28.as_str()
            || headers.contains_key(ORIGIN)
            || headers.contains_key("mcp-session-id")
            || headers.contains_key("last-event-id")
            || headers.keys().any(|name| name.as_str().starts_with("mcp-param-"))
            || !accepts_both(headers)
            || !is_json(headers)
            || !self.host_allowed(one(HOST.as_str())?)
        {
            return None;
        }
        let name = if headers.contains_key("mcp-name") {
            Some(one("mcp-name")?)
        } else {
            None
        };
        Some(Plain {
            method: one("mcp-method")?,
            name,
        })
    }

    /// Whether rmcp surely allows `host` (`name` or `name:port`, IPv6 in brackets): one of
    /// its names, without a port in the list.
    fn host_allowed(&self, host: &str) -> bool {
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split_once(']').map_or("", |(name, _)| name),
            None => host.split_once(':').map_or(host, |(name, _)| name),
        };
        !name.is_empty() && self.hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
    }
}

/// The headers the direct path reads.
struct Plain<'a> {
    method: &'a str,
    name: Option<&'a str>,
}

/// A `tools/list` or `tools/call` request of the stateless revision, read as rmcp reads it:
/// its fields and nothing else (an unknown field, `params` of another shape or a `_meta`
/// without the revision's keys sends the request to rmcp).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(rename = "_meta", borrow)]
    meta: Meta<'a>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    arguments: Option<JsonObject>,
    /// `tools/list`'s page: the list is whole, and a request naming a page is rmcp's path's
    /// to refuse.
    #[serde(default, borrow)]
    cursor: Option<Cow<'a, str>>,
}

/// The keys of `_meta` the revision requires (`missing_required_keys`); others are ignored.
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    version: Cow<'a, str>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    _capabilities: ClientCapabilities,
}

/// Whether `Accept` names both `application/json` and `text/event-stream`, as rmcp requires.
/// Media types with parameters (a weight, quoted text) are left to rmcp's reading.
fn accepts_both(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else { return false };
        if value.contains([';', '"']) {
            return false;
        }
        for media in value.split(',') {
            let essence = media.trim();
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// The `tools/list` result as rmcp serializes it for a `2026-07-28` peer (with the caching
/// hints that revision requires); `None` when the list cannot be encoded (rmcp's path then
/// answers with the error).
fn list_result(shared: &Shared) -> Option<Vec<u8>> {
    let tools = stateless_tools(shared, &shared.session()).ok()?;
    let tools = serde_json::from_value(Value::Array(tools)).ok()?;
    let mut result = ServerResult::ListToolsResult(ListToolsResult::with_all_items(tools));
    result.fill_missing_cache_hints();
    serde_json::to_vec(&result).ok()
}

/// `data: {"jsonrpc":"2.0","id":ID,"result":`: what every answer starts with.
fn open_response(frame: &mut Vec<u8>, id: &RequestId) {
    frame.extend_from_slice(br#"data: {"jsonrpc":"2.0","id":"#);
    // A number or a string: neither can fail to serialize.
    let _ = serde_json::to_writer(&mut *frame, id);
    frame.extend_from_slice(br#","result":"#);
}

/// `output` as rmcp writes the [`CallToolResult`](rmcp::model::CallToolResult) of
/// [`tool_result`]: a remote tool's own content blocks through that type, a carnet result
/// written directly, its value serialized once for its text and its structured content.
fn write_call_result(frame: &mut Vec<u8>, output: &ToolOutput) -> Result<(), ErrorData> {
    if output.content.is_some() {
        let result: rmcp::model::CallToolResult =
            serde_json::from_value(tool_result(output.clone())).map_err(|e| messages::unencodable("the result", e))?;
        return serde_json::to_writer(frame, &result).map_err(|e| messages::unencodable("the result", e));
    }
    write_tool_result(frame, output, true)
}

/// A whole SSE answer of one event, with rmcp's headers.
fn sse(frame: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(frame)).boxed());
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    response
}
