//! What each MCP method answers, whatever the transport: results as JSON values, failures as
//! JSON-RPC errors. The byte-stream server ([`super::stdio`]) and, with `mcp-http`, rmcp's
//! handler ([`super::connection`]) and the direct HTTP path call these; `tools/call` is
//! [`calls`]'s.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::messages;
use super::rpc::RpcError;
use super::shared::Shared;
use crate::providers;
use crate::{ExposureMode, Session, Variables};

mod calls;

pub(super) use calls::{Answer, call_in_session, call_opened, call_resumed, session_of, write_tool_result};
#[cfg(feature = "mcp-http")]
pub(super) use calls::{call_stateless, tool_result};

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
    /// The stateless revision's answers to a waiting call's requests ([`super::waiting`]).
    #[serde(default, rename = "inputResponses")]
    pub(super) input_responses: Option<Value>,
    /// The waiting call a retry answers.
    #[serde(default, rename = "requestState")]
    pub(super) request_state: Option<String>,
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
