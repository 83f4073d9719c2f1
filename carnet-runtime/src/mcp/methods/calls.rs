//! `tools/call`: the session a call runs in (a sealed handle at the stateless revision, the
//! connection's otherwise), the call itself, and its result as MCP has it.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, MutexGuard};

use super::super::handle::HandleError;
use super::super::listener::SessionListener;
use super::super::messages;
use super::super::rpc::RpcError;
use super::super::shared::{Shared, passes_through};
use super::super::waiting::{Round, Running};
use super::{CallParams, SESSION_ARGUMENT, finish};
use crate::providers::{Aliases, json_text};
use crate::{ExposureMode, Session, SessionState, ToolOutput};

/// The session a stateless request names with its `session` argument (removed from
/// `arguments`), or, without one, the connection's (`held`, byte streams) or a new one (HTTP);
/// and the state it started from. A refused handle is the result the model reads.
pub(in crate::mcp) async fn session_of(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    arguments: &mut Map<String, Value>,
) -> Result<(Session, SessionState), ToolOutput> {
    let handle = match arguments.remove(SESSION_ARGUMENT) {
        None | Some(Value::Null) => None,
        Some(Value::String(handle)) => Some(handle),
        Some(_) => return Err(handle_refused(HandleError::Malformed)),
    };
    let Some(handle) = handle else {
        let session = match held {
            Some(held) => {
                let state = held.lock().await.state();
                shared
                    .carnet
                    .resume(&state)
                    .expect("the connection's own state resumes")
            }
            None => shared.session(),
        };
        let state = session.state();
        return Ok((session, state));
    };
    let carnet = &shared.carnet;
    let fingerprint = format!("{:016x}", carnet.manifest().fingerprint);
    let state = shared
        .keys
        .open(&handle, &shared.agent, &fingerprint, std::time::SystemTime::now())
        .map_err(handle_refused)?;
    let session = carnet.resume(&state).map_err(|e| {
        ToolOutput::error(
            format!("the session handle cannot be resumed: {e}"),
            json!({ "code": "session_invalid" }),
        )
    })?;
    Ok((session, state))
}

/// The name a client called mapped back to the canonical tool name: an alias of the
/// session's tools, then of any domain tool (so an unexposed tool is reported by its
/// real name), else the name as written.
fn canonical(shared: &Shared, session: &Session, wire_name: &str) -> String {
    // A tool's own name is its alias or no tool's (aliases never collide with names).
    if session.tools().iter().any(|tool| tool.name == wire_name) {
        return wire_name.to_owned();
    }
    if let Ok(aliases) = Aliases::new(session.tools())
        && let Some(name) = aliases.resolve(wire_name)
    {
        return name.to_owned();
    }
    shared
        .carnet
        .domain_tools_named(wire_name)
        .next()
        .map_or_else(|| wire_name.to_owned(), |spec| spec.name.clone())
}

/// How a `tools/call` of the stateless revision is answered.
#[derive(Debug)]
pub(in crate::mcp) enum Answer {
    /// The call's result.
    Complete(ToolOutput),
    /// The call waits for the client's input: the `input_required` result asking for it
    /// ([`super::super::waiting`]).
    InputRequired(Value),
}

/// `tools/call` in the stateless revision: the conversation's state comes in as the
/// `session` argument and, when the call changed it, goes back out as the result's `session`
/// field. `held` is the connection's session on a byte stream (a call without a handle
/// continues it, and a call that changes it updates it); `cancelled` completes when the
/// client cancels the request.
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) async fn call_stateless(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    name: &str,
    arguments: Option<Map<String, Value>>,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<Answer, RpcError> {
    let mut arguments = arguments.unwrap_or_default();
    let opened = session_of(shared, held, &mut arguments).await;
    call_opened(shared, held, opened, name, arguments, call_id, cancelled).await
}

/// The rest of [`call_stateless`], once the session is open (or refused). Where the server
/// passes remote toolsets through, the call runs on a task of its own, which may wait for the
/// client's input ([`super::super::waiting`]).
pub(in crate::mcp) async fn call_opened(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    opened: Result<(Session, SessionState), ToolOutput>,
    name: &str,
    arguments: Map<String, Value>,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<Answer, RpcError> {
    let (mut session, before) = match opened {
        Ok(found) => found,
        Err(refused) => return Ok(Answer::Complete(refused)),
    };
    let arguments = Value::Object(arguments);
    let called = name;
    let name = canonical(shared, &session, name);
    if passes_through(shared.carnet.manifest()) {
        let call_id = call_id.to_owned();
        let tool = name.clone();
        let call = async move {
            // The JSON-RPC request's id is the call's id (`Context::call_id`).
            let output = match session.call_detached_with_id(&tool, &arguments, Some(&call_id)) {
                Some(call) => call.await,
                None => session.call_with_id(tool.as_str(), arguments, Some(&call_id)).await,
            };
            (session, before, output)
        };
        // Named as the client called it: its retries call that name again.
        let running = Running::start(called.to_owned(), call);
        return answer(shared, held, running, cancelled).await;
    }
    let mut cancelled = std::pin::pin!(cancelled);
    let refuse = || messages::cancelled(&name);
    let output = if let Some(call) = session.call_detached_with_id(&name, &arguments, Some(call_id)) {
        crate::cancel::unless(cancelled.as_mut(), call)
            .await
            .ok_or_else(refuse)?
    } else {
        crate::cancel::unless(
            cancelled.as_mut(),
            session.call_with_id(name.as_str(), arguments, Some(call_id)),
        )
        .await
        .ok_or_else(refuse)?
    };
    Ok(Answer::Complete(ended(shared, held, session, &before, output).await))
}

/// A retry of tool `name`'s call waiting for the client's input: `state` its
/// `requestState`, `responses` its `inputResponses`.
pub(in crate::mcp) async fn call_resumed(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    name: &str,
    state: &str,
    responses: Option<&Value>,
    cancelled: impl Future<Output = ()>,
) -> Result<Answer, RpcError> {
    let running = shared.waiting.resume(&shared.keys, state, name, responses)?;
    answer(shared, held, running, cancelled).await
}

/// One round of `running`: its result, or the input it waits for.
async fn answer(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    running: Running,
    cancelled: impl Future<Output = ()>,
) -> Result<Answer, RpcError> {
    Ok(match shared.waiting.round(&shared.keys, running, cancelled).await? {
        Round::InputRequired(result) => Answer::InputRequired(result),
        Round::Ended((session, before, output)) => {
            Answer::Complete(ended(shared, held, session, &before, output).await)
        }
    })
}

/// `output` of a call that changed `session`'s state from `before`: with the new state sealed
/// into its `session` field (and kept as the connection's, `held`) when it changed.
async fn ended(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    session: Session,
    before: &SessionState,
    mut output: ToolOutput,
) -> ToolOutput {
    let after = session.state();
    if *before != after {
        if let Value::Object(fields) = &mut output.value {
            let handle = shared.keys.seal(&after, std::time::SystemTime::now());
            fields.insert(SESSION_ARGUMENT.to_owned(), Value::String(handle));
        }
        if let Some(held) = held {
            *held.lock().await = session;
        }
    }
    output
}

/// `tools/call` in a revision with sessions, on the connection's `session` (its turn taken).
/// Domain tools run without the session, so one connection's calls run side by side (hosts
/// issue a model's parallel tool calls at once); the meta-tools that load things run under
/// it. A client that cancels the request stops the call; the session keeps what the call had
/// done by then, as after a panic. Also says what changed that the host is told of before the
/// result ([`Changed`]); `listener` is the connection's host session, which learns the remote
/// toolsets now in reach.
pub(in crate::mcp) async fn call_in_session(
    shared: &Shared,
    mut session: MutexGuard<'_, Session>,
    request: CallParams,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
    listener: Option<&Arc<SessionListener>>,
) -> Result<(ToolOutput, Changed), RpcError> {
    let arguments = Value::Object(request.arguments.unwrap_or_default());
    let name = canonical(shared, &session, &request.name);
    let refuse = || messages::cancelled(&name);
    // The JSON-RPC request's id is the call's id (`Context::call_id`).
    if let Some(call) = session.call_detached_with_id(&name, &arguments, Some(call_id)) {
        drop(session);
        let output = crate::cancel::unless(std::pin::pin!(cancelled), call)
            .await
            .ok_or_else(refuse)?;
        return Ok((output, Changed::default()));
    }
    let before: Vec<String> = session.tools().iter().map(|t| t.name.clone()).collect();
    let output = crate::cancel::unless(
        std::pin::pin!(cancelled),
        session.call_with_id(name.as_str(), arguments, Some(call_id)),
    )
    .await
    .ok_or_else(refuse)?;
    let tools = session.tools().iter().map(|t| &t.name).ne(before.iter());
    let lists = listener.is_some_and(|listener| listener.update(shared, &session.state()));
    let changed = Changed {
        tools: tools && shared.carnet.mode() == ExposureMode::Dynamic,
        lists,
    };
    Ok((output, changed))
}

/// What a call in a session changed that the host is told of before its result.
#[derive(Debug, Default, Clone, Copy)]
pub(in crate::mcp) struct Changed {
    /// The tool list (dynamic mode only): `notifications/tools/list_changed`.
    pub(in crate::mcp) tools: bool,
    /// The remote MCP toolsets in reach, and with them the resource and prompt lists:
    /// `notifications/resources/list_changed` and `notifications/prompts/list_changed`.
    pub(in crate::mcp) lists: bool,
}

/// A refused session handle as the result the model reads.
fn handle_refused(error: HandleError) -> ToolOutput {
    ToolOutput::error(error.to_string(), json!({ "code": error.code() }))
}

/// A carnet result as MCP's: its text, and the value itself as structured content when it
/// is an object.
///
/// A remote toolset's result keeps its server's content blocks as they came, and its
/// structured content when it had one.
pub(in crate::mcp) fn tool_result(output: ToolOutput) -> Value {
    let passthrough = output.content.is_some();
    let content = match output.content {
        Some(content) => Value::Array(content.into_vec()),
        None => json!([{ "type": "text", "text": output.to_text() }]),
    };
    let mut result = json!({
        "content": content,
        "isError": output.is_error,
        "resultType": "complete",
    });
    if output.value.is_object() && !(passthrough && output.is_error) {
        result["structuredContent"] = output.value;
    }
    result
}

/// Writes [`tool_result`]'s JSON for `output` without building it: the value serialized once,
/// for its text and its structured content; `resultType` only at the stateless revision (as
/// [`finish`] leaves it). A result with content blocks of its own (a remote toolset's) is
/// written from [`tool_result`].
pub(in crate::mcp) fn write_tool_result(
    out: &mut Vec<u8>,
    output: &ToolOutput,
    stateless: bool,
) -> Result<(), RpcError> {
    let unencodable = |e: std::io::Error| messages::unencodable("the result", e);
    if output.content.is_some() {
        let result = finish("tools/call", tool_result(output.clone()), stateless);
        return serde_json::to_writer(out, &result).map_err(|e| messages::unencodable("the result", e));
    }
    if stateless {
        out.extend_from_slice(br#"{"resultType":"complete","content":[{"type":"text","text":"#);
    } else {
        out.extend_from_slice(br#"{"content":[{"type":"text","text":"#);
    }
    let structured = match &output.value {
        Value::String(text) => {
            json_text::write_str(out, text).map_err(unencodable)?;
            None
        }
        value => {
            let text = serde_json::to_vec(value).map_err(|e| messages::unencodable("the result", e))?;
            out.push(b'"');
            json_text::write_inner(out, &text).map_err(unencodable)?;
            out.push(b'"');
            value.is_object().then_some(text)
        }
    };
    out.extend_from_slice(b"}]");
    if let Some(structured) = structured {
        out.extend_from_slice(br#","structuredContent":"#);
        out.extend_from_slice(&structured);
    }
    out.extend_from_slice(if output.is_error {
        br#","isError":true}"#.as_slice()
    } else {
        br#","isError":false}"#.as_slice()
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_written_are_the_json_of_their_values() {
        let outputs = [
            ToolOutput::ok(json!({ "mean": 2.5, "note": "line\nbreak \u{1F600} \"quoted\"" })),
            ToolOutput::ok(json!("plain text\twith a tab")),
            ToolOutput::ok(json!([1, "two", null])),
            ToolOutput::ok(Value::Null),
            ToolOutput::error("the disk is full", json!({ "code": "disk_full" })),
            ToolOutput::ok(json!({ "ok": true })).with_content(vec![json!({ "type": "text", "text": "theirs" })]),
        ];
        for output in outputs {
            for stateless in [false, true] {
                let mut written = Vec::new();
                write_tool_result(&mut written, &output, stateless).unwrap();
                let written: Value = serde_json::from_slice(&written).unwrap();
                let built = finish("tools/call", tool_result(output.clone()), stateless);
                assert_eq!(written, built, "{output:?}, stateless: {stateless}");
            }
        }
    }
}
