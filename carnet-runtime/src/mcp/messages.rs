//! Every protocol error this server writes, in one place: the ones answering what cannot be
//! read (on stdio and HTTP) and the ones the methods return.

use std::fmt::Display;

use serde_json::{Value, json};

use super::rpc::{RpcError as ErrorData, code};

/// A JSON-RPC error response, as bytes (no newline); `id` is `null` when the request's cannot
/// be read.
#[cfg(feature = "mcp-http")]
pub(super) fn response(error: &ErrorData, id: &Value) -> Vec<u8> {
    let mut line = super::rpc::error_line(id, error);
    line.pop();
    line
}

pub(super) fn not_json(error: impl Display) -> ErrorData {
    ErrorData::new(
        code::PARSE_ERROR,
        format!("parse error: the message is not JSON ({error})"),
        None,
    )
}

pub(super) fn not_a_message(error: impl Display) -> ErrorData {
    ErrorData::invalid_request(format!("invalid request: not a JSON-RPC 2.0 message ({error})"))
}

pub(super) fn too_large(max: usize) -> ErrorData {
    ErrorData::invalid_request(format!("invalid request: the message exceeds the limit of {max} bytes"))
}

#[cfg(feature = "mcp-http")]
pub(super) fn unreadable_body(error: impl Display) -> ErrorData {
    ErrorData::new(
        code::PARSE_ERROR,
        format!("parse error: the request body could not be read ({error})"),
        None,
    )
}

#[cfg(feature = "mcp-http")]
pub(super) fn not_the_endpoint(path: &str) -> ErrorData {
    ErrorData::invalid_request(format!("no MCP endpoint at `{path}`; it is at `/mcp`"))
}

pub(super) fn invalid_params(method: &str, problem: impl Display) -> ErrorData {
    ErrorData::invalid_params(format!("invalid params for `{method}`: {problem}"), None)
}

pub(super) fn unknown_method(method: &str) -> ErrorData {
    ErrorData::new(code::METHOD_NOT_FOUND, format!("unknown method `{method}`"), None)
}

pub(super) fn unknown_prompt(name: &str, agent: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no prompt named `{name}`; this server has `{agent}`"), None)
}

pub(super) fn unknown_prompt_argument(prompt: &str, argument: &str, known: &[&str]) -> ErrorData {
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
    };
    ErrorData::invalid_params(
        format!("the prompt `{prompt}` has no argument `{argument}`; its arguments: {known}"),
        None,
    )
}

pub(super) fn invalid_cursor(method: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("invalid cursor for `{method}`: this server lists everything on one page and gives no cursor"),
        None,
    )
}

/// `initialize` at the stateless revision; `supported` are the revisions served, `sessions`
/// those of them with `initialize`.
pub(super) fn initialize_removed(supported: &[&str], sessions: &[&str]) -> ErrorData {
    ErrorData::new(
        code::METHOD_NOT_FOUND,
        format!(
            "`initialize` is not a method of the revision this request names (2026-07-28 has no handshake); \
             send requests with their `_meta`, or `initialize` without it at {}",
            sessions.join(", ")
        ),
        Some(json!({ "supported": supported })),
    )
}

pub(super) fn invalid_prompt_argument(error: impl Display) -> ErrorData {
    ErrorData::invalid_params(format!("invalid prompt argument: {error}"), None)
}

pub(super) fn unknown_resource(uri: &str) -> ErrorData {
    ErrorData::new(
        code::RESOURCE_NOT_FOUND,
        format!("no skill file at `{uri}`; `resources/list` names them all"),
        Some(json!({ "uri": uri })),
    )
}

pub(super) fn unknown_skill(uri: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("no skill at `{uri}`; `skills/list` names them all"),
        Some(json!({ "uri": uri })),
    )
}

pub(super) fn cancelled(tool: &str) -> ErrorData {
    ErrorData::internal(format!("the call of `{tool}` was cancelled by the client"))
}

pub(super) fn unencodable(what: &str, error: impl Display) -> ErrorData {
    ErrorData::internal(format!("{what} cannot be encoded: {error}"))
}

#[cfg(feature = "mcp-http")]
pub(super) fn origin_refused(origin: &str) -> ErrorData {
    ErrorData::invalid_request(format!(
        "the origin `{origin}` is not allowed to use this server; its allowed origins are configured with `HttpLimits::allowed_origins`"
    ))
}

#[cfg(feature = "mcp-http")]
pub(super) fn too_many_sessions(max: usize) -> ErrorData {
    ErrorData::internal(format!(
        "the server holds its limit of {max} sessions; try again later, or use the stateless revision (2026-07-28), which needs none"
    ))
}

#[cfg(feature = "mcp-http")]
pub(super) fn unknown_session() -> ErrorData {
    ErrorData::invalid_request("no session with this `Mcp-Session-Id`: it ended or never existed")
}

#[cfg(feature = "mcp-http")]
pub(super) fn body_timeout(limit: std::time::Duration) -> ErrorData {
    ErrorData::invalid_request(format!(
        "the request body did not arrive within {} ms",
        limit.as_millis()
    ))
}

#[cfg(feature = "mcp-http")]
pub(super) fn method_not_allowed(method: &hyper::Method, path: &str) -> ErrorData {
    ErrorData::invalid_request(format!("`{method}` is not served at `{path}`"))
}

pub(super) fn unsupported_version(requested: &str, supported: &[&str]) -> ErrorData {
    ErrorData::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(json!({ "requested": requested, "supported": supported })),
    )
}

pub(super) fn missing_metadata(missing: &[&str]) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "request _meta is missing or has malformed required fields: {}",
            missing.join(", ")
        ),
        None,
    )
}

pub(super) fn not_a_skill_md(uri: &str) -> ErrorData {
    ErrorData::invalid_params(format!("{uri} is not the uri of a SKILL.md"), None)
}

pub(super) fn id_in_use(id: &Value) -> ErrorData {
    ErrorData::invalid_request(format!(
        "invalid request: the id {id} is already the id of a request not yet answered"
    ))
}

pub(super) fn too_many_running(max: usize) -> ErrorData {
    ErrorData::internal(format!(
        "this connection has {max} requests running, the most it takes at once; send more once answers come back"
    ))
}

/// A call's task ended without its output (it panicked, or was stopped).
pub(super) fn call_stopped(tool: &str) -> ErrorData {
    ErrorData::internal(format!("the call of `{tool}` stopped before it gave a result"))
}

/// Why a server's request for input was refused: too many calls wait already.
pub(super) fn too_many_waiting(max: usize) -> String {
    format!("this server has {max} calls waiting for their client's input, the most it keeps; the request is refused")
}

/// Why a retry of a call waiting for input (`requestState`, `inputResponses`) is refused.
#[derive(Debug)]
pub(super) enum InputRefused<'a> {
    /// Altered, sealed with another key, or not a state at all.
    NotOurs,
    /// Sealed here, by another process (a replica, or this one before a restart).
    Elsewhere,
    /// The call stopped waiting after this long.
    GivenUp(std::time::Duration),
    /// The call waiting is not the tool's the retry calls.
    OtherTool { waiting: &'a str, called: &'a str },
    /// Answered already (or given up and forgotten).
    NotWaiting,
    /// `inputResponses` is not an object.
    Responses,
    /// An answer to a request asked is not an object.
    Response(&'a str),
}

pub(super) fn input_refused(why: &InputRefused<'_>) -> ErrorData {
    let problem = match why {
        InputRefused::NotOurs => "the `requestState` is not one this server gave (altered, or sealed with another key)".to_owned(),
        InputRefused::Elsewhere => "the call waiting for this input runs in another process (a replica of this server, or one since restarted): a call's retries must reach the replica that answered it".to_owned(),
        InputRefused::GivenUp(wait) => format!("the call waiting for this input was given up after {} s: call the tool again", wait.as_secs()),
        InputRefused::OtherTool { waiting, called } => format!("the `requestState` is of a call of `{waiting}`, not `{called}`"),
        InputRefused::NotWaiting => "no call waits for this input: it was answered already, or given up".to_owned(),
        InputRefused::Responses => "`inputResponses` must be an object".to_owned(),
        InputRefused::Response(key) => format!("`inputResponses.{key}` must be the client's result (an object)"),
    };
    invalid_params("tools/call", problem)
}
