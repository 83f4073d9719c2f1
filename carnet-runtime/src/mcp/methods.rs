//! What each MCP method answers, whatever the transport: results as JSON values, failures as
//! JSON-RPC errors. The byte-stream server ([`super::stdio`]) and, with `mcp-http`, rmcp's
//! handler ([`super::connection`]) and the direct HTTP path call these.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, MutexGuard};

use super::handle::HandleError;
use super::listener::SessionListener;
use super::messages;
use super::rpc::RpcError;
use super::shared::Shared;
use crate::providers::{self, Aliases, json_text};
use crate::{ExposureMode, Session, SessionState, ToolOutput, Variables};

/// The argument that carries a sealed session handle in the stateless revision.
pub(super) const SESSION_ARGUMENT: &str = "session";
/// The stateless revision: no `initialize`, every request carries its own `_meta`.
pub(super) const STATELESS_REVISION: &str = "2026-07-28";
/// The newest revision with an `initialize` handshake.
pub(super) const LATEST_WITH_INITIALIZE: &str = "2025-11-25";
/// The `_meta` keys of the stateless revision.
pub(super) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(super) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The revisions with sessions, and the stateless one where it applies (see the
/// [module docs](super#protocol-versions)). `2025-03-26` is left out: it asks servers to take
/// JSON-RPC batches, which this server answers as invalid requests.
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-06-18", LATEST_WITH_INITIALIZE, STATELESS_REVISION];

/// The revisions served in `mode`: the stateless one only where `tools/list` never changes.
pub(super) fn supported_versions(mode: ExposureMode) -> &'static [&'static str] {
    if mode == ExposureMode::Dispatcher {
        &VERSIONS
    } else {
        &VERSIONS[..3]
    }
}

/// The revisions served in `mode` that open a session with `initialize`.
pub(super) fn session_versions(mode: ExposureMode) -> &'static [&'static str] {
    let served = supported_versions(mode);
    &served[..served.len().min(3)]
}

/// Whether `version` is the stateless revision or later (dates compare as text).
pub(super) fn is_stateless(version: &str) -> bool {
    version >= STATELESS_REVISION
}

/// The revision `initialize` agrees to: the client's when it is served and has the
/// handshake, else the newest with one (which the client may accept or refuse).
pub(super) fn negotiate(requested: &str, mode: ExposureMode) -> &'static str {
    supported_versions(mode)
        .iter()
        .find(|v| **v == requested && !is_stateless(v))
        .copied()
        .unwrap_or(LATEST_WITH_INITIALIZE)
}

/// The methods whose results say they are complete (`resultType`) in the stateless revision.
const TYPED_RESULTS: [&str; 10] = [
    "completion/complete",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "tools/list",
    "tools/call",
    "skills/list",
    "skills/get",
];

/// The methods whose results carry caching hints in the stateless revision.
const CACHEABLE_RESULTS: [&str; 7] = [
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "tools/list",
    "skills/list",
    "skills/get",
];

/// `result` of `method` as a peer on `stateless` terms reads it: the stateless revision
/// wants `resultType` and the caching hints (the most conservative ones unless set: stale at
/// once, private), older revisions know neither.
pub(super) fn finish(method: &str, mut result: Value, stateless: bool) -> Value {
    let Value::Object(fields) = &mut result else {
        return result;
    };
    if stateless {
        if TYPED_RESULTS.contains(&method) {
            fields.entry("resultType").or_insert_with(|| json!("complete"));
        }
        if CACHEABLE_RESULTS.contains(&method) && fields.get("resultType").is_none_or(|t| t == "complete") {
            fields.entry("ttlMs").or_insert_with(|| json!(0));
            fields.entry("cacheScope").or_insert_with(|| json!("private"));
        }
    } else if fields.get("resultType").is_some_and(|t| t == "complete") {
        fields.remove("resultType");
    }
    result
}

/// `tools/call`'s params.
#[derive(Debug, Deserialize)]
pub(super) struct CallParams {
    pub(super) name: String,
    #[serde(default)]
    pub(super) arguments: Option<Map<String, Value>>,
}

/// `prompts/get`'s params.
#[derive(Debug, Deserialize)]
pub(super) struct PromptParams {
    pub(super) name: String,
    #[serde(default)]
    pub(super) arguments: Option<Map<String, Value>>,
}

/// The params of `resources/read` and `skills/get`.
#[derive(Debug, Deserialize)]
pub(super) struct UriParams {
    pub(super) uri: String,
}

/// `initialize`'s params, as far as this server reads them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeParams {
    pub(super) protocol_version: String,
    #[serde(rename = "capabilities")]
    _capabilities: Map<String, Value>,
    #[serde(rename = "clientInfo")]
    _client_info: ClientInfo,
}

#[derive(Debug, Deserialize)]
struct ClientInfo {
    #[serde(rename = "name")]
    _name: String,
    #[serde(rename = "version")]
    _version: String,
}

/// `params` read as `method`'s, or the invalid-params error saying what is wrong.
pub(super) fn params<T: serde::de::DeserializeOwned>(method: &str, params: Option<Value>) -> Result<T, RpcError> {
    match params {
        None => Err(messages::invalid_params(method, "the request has no `params`")),
        Some(params) => serde_json::from_value(params).map_err(|e| messages::invalid_params(method, e)),
    }
}

/// `prompts/list`'s one prompt: the agent's system prompt, the manifest's variables its
/// optional arguments.
pub(super) fn prompt(shared: &Shared) -> Value {
    let manifest = shared.carnet.manifest();
    let agent = manifest.agent(&shared.agent);
    let mut prompt = json!({
        "name": shared.agent,
        "description": format!(
            "System prompt of the agent `{}`, with the skills this connection has loaded{}",
            shared.agent,
            agent.map_or_else(String::new, |a| format!(": {}", a.description))
        ),
    });
    let arguments: Vec<Value> = manifest
        .variables
        .iter()
        .map(|(name, default)| {
            json!({
                "name": name,
                "description": format!("Variable `{{{{ {name} }}}}` (default `{default}`)"),
                "required": false,
            })
        })
        .collect();
    if !arguments.is_empty() {
        prompt["arguments"] = Value::Array(arguments);
    }
    prompt
}

/// `prompts/list`'s result.
pub(super) fn list_prompts(shared: &Shared) -> Value {
    json!({ "prompts": [prompt(shared)] })
}

/// `prompts/get`: the system prompt as `session` stands, with the variables given.
pub(super) fn get_prompt(shared: &Shared, session: &Session, request: PromptParams) -> Result<Value, RpcError> {
    if request.name != shared.agent {
        return Err(messages::unknown_prompt(&request.name, &shared.agent));
    }
    let mut variables = Variables::new();
    for (name, value) in request.arguments.unwrap_or_default() {
        let value = match value {
            Value::String(text) => text,
            other => other.to_string(),
        };
        variables.set(name, value).map_err(messages::invalid_prompt_argument)?;
    }
    let text = session.system_prompt_with(&variables);
    Ok(json!({
        "description": format!("System prompt of the agent `{}`", shared.agent),
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}

/// `resources/list`'s result.
pub(super) fn list_resources(shared: &Shared) -> Value {
    json!({ "resources": shared.resources.list(shared.carnet.manifest()) })
}

/// `resources/read`'s result.
pub(super) fn read_resource(shared: &Shared, request: &UriParams) -> Result<Value, RpcError> {
    match shared.resources.read(shared.carnet.manifest(), &request.uri) {
        Some(contents) => Ok(json!({ "contents": [contents] })),
        None => Err(messages::unknown_resource(&request.uri)),
    }
}

/// `skills/list`'s result.
pub(super) fn list_skills(shared: &Shared) -> Value {
    json!({ "skills": shared.resources.skills(shared.carnet.manifest()) })
}

/// `skills/get`'s result.
pub(super) fn get_skill(shared: &Shared, request: &UriParams) -> Result<Value, RpcError> {
    if super::resources::skill_name_from_uri(&request.uri).is_none() {
        return Err(messages::not_a_skill_md(&request.uri));
    }
    match shared.resources.skill_at(shared.carnet.manifest(), &request.uri) {
        Some(skill) => Ok(json!({ "skill": skill })),
        None => Err(messages::unknown_skill(&request.uri)),
    }
}

/// The tools of a session as `tools/list` items, with their [hints for hosts](super::hints).
pub(super) fn list_tools(shared: &Shared, session: &Session) -> Result<Vec<Value>, RpcError> {
    let specs = session.tools();
    let value = providers::mcp::tools(specs).map_err(|e| messages::unencodable("the tool list", e))?;
    let mut tools = match value {
        Value::Object(mut fields) => match fields.remove("tools") {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    // In the order of the specs (`providers::mcp::tools` keeps it).
    for (spec, tool) in specs.iter().zip(&mut tools) {
        shared.hints.apply(spec, tool);
    }
    Ok(tools)
}

/// A list request's `cursor`: this server gives none (every list is one page), so any cursor
/// a client sends is not one of its own, which MCP answers as invalid params.
pub(super) fn check_cursor(method: &str, cursor: Option<&str>) -> Result<(), RpcError> {
    match cursor {
        None => Ok(()),
        Some(_) => Err(messages::invalid_cursor(method)),
    }
}

/// The `tools/list` of the stateless revision: `session`'s tools (the dispatcher's, the same
/// for every request), each taking the handle.
pub(super) fn stateless_tools(shared: &Shared, session: &Session) -> Result<Vec<Value>, RpcError> {
    let mut tools = list_tools(shared, session)?;
    for tool in &mut tools {
        add_session_argument(tool);
    }
    Ok(tools)
}

/// `tool` taking an optional `session` argument.
fn add_session_argument(tool: &mut Value) {
    let Some(Value::Object(schema)) = tool.get_mut("inputSchema") else {
        return;
    };
    let properties = schema.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        properties.insert(
            SESSION_ARGUMENT.to_owned(),
            json!({
                "type": "string",
                "description": "The conversation's sealed session handle: the `session` string of the \
                                last result that returned one; omit it to start a new conversation",
            }),
        );
    }
}

/// The session a stateless request names with its `session` argument (removed from
/// `arguments`), or, without one, the connection's (`held`, byte streams) or a new one (HTTP);
/// and the state it started from. A refused handle is the result the model reads.
pub(super) async fn session_of(
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

/// `tools/call` in the stateless revision: the conversation's state comes in as the
/// `session` argument and, when the call changed it, goes back out as the result's `session`
/// field. `held` is the connection's session on a byte stream (a call without a handle
/// continues it, and a call that changes it updates it); `cancelled` completes when the
/// client cancels the request.
#[cfg(feature = "mcp-http")]
pub(super) async fn call_stateless(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    name: &str,
    arguments: Option<Map<String, Value>>,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<ToolOutput, RpcError> {
    let mut arguments = arguments.unwrap_or_default();
    let opened = session_of(shared, held, &mut arguments).await;
    call_opened(shared, held, opened, name, arguments, call_id, cancelled).await
}

/// The rest of [`call_stateless`], once the session is open (or refused).
pub(super) async fn call_opened(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    opened: Result<(Session, SessionState), ToolOutput>,
    name: &str,
    arguments: Map<String, Value>,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<ToolOutput, RpcError> {
    let mut cancelled = std::pin::pin!(cancelled);
    let (mut session, before) = match opened {
        Ok(found) => found,
        Err(refused) => return Ok(refused),
    };
    let arguments = Value::Object(arguments);
    let name = canonical(shared, &session, name);
    let refuse = || messages::cancelled(&name);
    // The JSON-RPC request's id is the call's id (`Context::call_id`).
    let mut output = if let Some(call) = session.call_detached_with_id(&name, &arguments, Some(call_id)) {
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
    let after = session.state();
    if before != after {
        if let Value::Object(fields) = &mut output.value {
            let handle = shared.keys.seal(&after, std::time::SystemTime::now());
            fields.insert(SESSION_ARGUMENT.to_owned(), Value::String(handle));
        }
        if let Some(held) = held {
            *held.lock().await = session;
        }
    }
    Ok(output)
}

/// `tools/call` in a revision with sessions, on the connection's `session` (its turn taken).
/// Domain tools run without the session, so one connection's calls run side by side (hosts
/// issue a model's parallel tool calls at once); the meta-tools that load things run under
/// it. A client that cancels the request stops the call; the session keeps what the call had
/// done by then, as after a panic. Also says what changed that the host is told of before the
/// result ([`Changed`]); `listener` is the connection's host session, which learns the remote
/// toolsets now in reach.
pub(super) async fn call_in_session(
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
pub(super) struct Changed {
    /// The tool list (dynamic mode only): `notifications/tools/list_changed`.
    pub(super) tools: bool,
    /// The remote MCP toolsets in reach, and with them the resource and prompt lists:
    /// `notifications/resources/list_changed` and `notifications/prompts/list_changed`.
    pub(super) lists: bool,
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
pub(super) fn tool_result(output: ToolOutput) -> Value {
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
pub(super) fn write_tool_result(out: &mut Vec<u8>, output: &ToolOutput, stateless: bool) -> Result<(), RpcError> {
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

/// Why `params` are not the params of `method`, for the methods this server serves whose
/// params cannot be read (`None`: no method this server serves). For rmcp, which hands those
/// over as custom requests.
#[cfg(feature = "mcp-http")]
pub(super) fn params_problem(method: &str, params: Option<Value>) -> Option<String> {
    fn problem<T: serde::de::DeserializeOwned>(params: Option<Value>) -> Option<String> {
        match params {
            None => Some("the request has no `params`".to_owned()),
            Some(params) => serde_json::from_value::<T>(params).err().map(|e| e.to_string()),
        }
    }
    match method {
        "initialize" => problem::<InitializeParams>(params),
        "tools/call" => problem::<CallParams>(params),
        "prompts/get" => problem::<PromptParams>(params),
        "resources/read" | "skills/get" => problem::<UriParams>(params),
        "completion/complete" => problem::<super::completion::CompleteParams>(params),
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "skills/list" | "ping" => {
            Some("expected an object or nothing".to_owned())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_take_the_shape_of_the_revision() {
        let listed = finish("tools/list", json!({ "tools": [] }), true);
        assert_eq!(
            listed,
            json!({ "tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private" })
        );
        let called = finish("tools/call", json!({ "content": [], "resultType": "complete" }), false);
        assert_eq!(called, json!({ "content": [] }));
        let called = finish("tools/call", json!({ "content": [] }), true);
        assert_eq!(called, json!({ "content": [], "resultType": "complete" }));
        assert_eq!(finish("ping", json!({}), true), json!({}));
    }

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

    #[test]
    fn initialize_agrees_to_a_revision_with_sessions() {
        assert_eq!(negotiate("2025-06-18", ExposureMode::Dynamic), "2025-06-18");
        assert_eq!(negotiate("2024-11-05", ExposureMode::Dispatcher), "2024-11-05");
        for asked in ["2026-07-28", "2025-03-26", "1999-01-01", ""] {
            assert_eq!(
                negotiate(asked, ExposureMode::Dispatcher),
                LATEST_WITH_INITIALIZE,
                "{asked}"
            );
        }
        assert!(!supported_versions(ExposureMode::Dynamic).contains(&STATELESS_REVISION));
        assert!(supported_versions(ExposureMode::Dispatcher).contains(&STATELESS_REVISION));
    }
}
