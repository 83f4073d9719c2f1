//! One MCP connection: an [`rmcp::ServerHandler`] over its own carnet [`Session`].

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, ListPromptsResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Role, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::handle::HandleError;
use super::messages;
use super::order::Arrivals;
use super::shared::{Shared, list_tools};
use crate::providers::Aliases;
use crate::{ExposureMode, Session, SessionState, ToolOutput, Variables};

/// The argument that carries a sealed session handle in the stateless revision.
pub(super) const SESSION_ARGUMENT: &str = "session";

/// One MCP connection: the [`rmcp::ServerHandler`] that serves a [`Server`](super::Server)'s
/// agent through its own [`Session`]. Made by [`Server::connection`](super::Server::connection).
pub struct Connection {
    shared: Arc<Shared>,
    session: Mutex<Session>,
    /// Whether the transport is the conversation (a byte stream): there, a stateless request
    /// without a handle continues the connection's session; over HTTP it starts a new one.
    per_process: bool,
    /// On a byte stream, the requests in the order they were read (see [`super::order`]).
    arrivals: Option<Arc<Arrivals>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("agent", &self.shared.agent)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// A connection; `arrivals` (byte streams) makes the requests that touch the session
    /// take it in the order they were read, and the connection the conversation.
    pub(super) fn new(shared: Arc<Shared>, arrivals: Option<Arc<Arrivals>>) -> Connection {
        let session = Mutex::new(shared.session());
        Connection {
            shared,
            session,
            per_process: arrivals.is_some(),
            arrivals,
        }
    }

    /// This request's session, once every request read before it has had its own: the
    /// session's lock then serves them in that order.
    async fn session_in_turn(&self, context: &RequestContext<RoleServer>) -> tokio::sync::MutexGuard<'_, Session> {
        let turn = match &self.arrivals {
            Some(arrivals) => Some(arrivals.turn(&context.id).await),
            None => None,
        };
        let session = self.session.lock().await;
        drop(turn);
        session
    }

    /// Whether the stateless revision (`2026-07-28`) may be used: only where `tools/list`
    /// never changes (dispatcher mode).
    fn stateless(&self) -> bool {
        self.shared.carnet.mode() == ExposureMode::Dispatcher
    }

    /// What this connection's session has loaded, to save or inspect
    /// ([`Carnet::resume`](crate::Carnet::resume) continues it).
    pub async fn state(&self) -> SessionState {
        self.session.lock().await.state()
    }

    fn prompt(&self) -> Prompt {
        let manifest = self.shared.carnet.manifest();
        let agent = manifest.agent(&self.shared.agent);
        let mut prompt = Prompt::new(
            &*self.shared.agent,
            Some(format!(
                "System prompt of the agent `{}`, with the skills this connection has loaded{}",
                self.shared.agent,
                agent.map_or_else(String::new, |a| format!(": {}", a.description))
            )),
            None,
        );
        let arguments: Vec<PromptArgument> = manifest
            .variables
            .iter()
            .map(|(name, default)| {
                PromptArgument::new(&**name)
                    .with_description(format!("Variable `{{{{ {name} }}}}` (default `{default}`)"))
                    .with_required(false)
            })
            .collect();
        if !arguments.is_empty() {
            prompt.arguments = Some(arguments);
        }
        prompt
    }
}

/// Why `params` are not the params of `method`, for the methods this server serves whose
/// params rmcp could not read (it hands those over as custom requests).
fn params_problem(method: &str, params: Option<Value>) -> Option<String> {
    fn problem<T: serde::de::DeserializeOwned>(params: Option<Value>) -> Option<String> {
        match params {
            None => Some("the request has no `params`".to_owned()),
            Some(params) => serde_json::from_value::<T>(params).err().map(|e| e.to_string()),
        }
    }
    match method {
        "initialize" => problem::<rmcp::model::InitializeRequestParams>(params),
        "tools/call" => problem::<CallToolRequestParams>(params),
        "prompts/get" => problem::<GetPromptRequestParams>(params),
        "resources/read" => problem::<ReadResourceRequestParams>(params),
        "skills/get" => problem::<GetSkillRequestParams>(params),
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "skills/list" | "ping" => {
            Some("expected an object or nothing".to_owned())
        }
        _ => None,
    }
}

impl Connection {
    /// `tools/call` in the stateless revision (see [`call_stateless`]).
    async fn call_tool_stateless(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let held = self.per_process.then_some(&self.session);
        let call_id = context.id.to_string();
        let output = call_stateless(&self.shared, held, request, &call_id, context.ct.cancelled()).await?;
        tool_result(output).map(Into::into)
    }
}

/// The session a stateless request names with its `session` argument (removed from
/// `arguments`), or, without one, the connection's (`held`, byte streams) or a new one (HTTP).
async fn session_of(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    arguments: &mut serde_json::Map<String, Value>,
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
pub(super) async fn call_stateless(
    shared: &Shared,
    held: Option<&Mutex<Session>>,
    request: CallToolRequestParams,
    call_id: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<ToolOutput, ErrorData> {
    let mut cancelled = std::pin::pin!(cancelled);
    let mut arguments = request.arguments.unwrap_or_default();
    let (mut session, before) = match session_of(shared, held, &mut arguments).await {
        Ok(found) => found,
        Err(refused) => return Ok(refused),
    };
    let arguments = Value::Object(arguments);
    let name = canonical(shared, &session, &request.name);
    let refuse = || messages::cancelled(&name);
    // The JSON-RPC request's id is the call's id (`Context::call_id`).
    let mut output = if let Some(call) = session.call_detached_with_id(&name, &arguments, Some(call_id)) {
        until_cancelled(cancelled.as_mut(), call).await.ok_or_else(refuse)?
    } else {
        until_cancelled(
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

/// The `tools/list` of the stateless revision: `session`'s tools (the dispatcher's, the same
/// for every request), each taking the handle.
pub(super) fn stateless_tools(session: &Session) -> Result<Vec<rmcp::model::Tool>, ErrorData> {
    let mut tools = list_tools(session)?;
    for tool in &mut tools {
        add_session_argument(tool);
    }
    Ok(tools)
}

/// Whether `context` is a request of the stateless revision (`2026-07-28` or later).
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// `tool` taking an optional `session` argument.
fn add_session_argument(tool: &mut rmcp::model::Tool) {
    let schema = Arc::make_mut(&mut tool.input_schema);
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
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

/// A refused session handle as the result the model reads.
fn handle_refused(error: HandleError) -> ToolOutput {
    ToolOutput::error(error.to_string(), json!({ "code": error.code() }))
}

/// A carnet result as MCP's: its text, and the value itself as structured content when it
/// is an object.
///
/// A remote toolset's result keeps its server's content blocks as they came, and its
/// structured content when it had one.
pub(super) fn tool_result(output: ToolOutput) -> Result<CallToolResult, ErrorData> {
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
    serde_json::from_value(result).map_err(|e| messages::unencodable("the result", e))
}

/// `future`'s output, or `None` when `cancelled` completes first (the client cancelled).
async fn until_cancelled<T>(
    cancelled: std::pin::Pin<&mut impl Future<Output = ()>>,
    future: impl Future<Output = T>,
) -> Option<T> {
    tokio::select! {
        output = future => Some(output),
        () = cancelled => None,
    }
}

impl ServerHandler for Connection {
    /// Requests rmcp could not read: a method this server serves with malformed params is an
    /// invalid-params error (`-32602`) saying what is wrong, anything else an unknown method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        match params_problem(&method, params) {
            Some(problem) => Err(messages::invalid_params(&method, problem)),
            None => Err(messages::unknown_method(&method)),
        }
    }

    fn get_info(&self) -> ServerConfig {
        self.shared.config.clone()
    }

    /// The revisions with sessions, and the stateless one where it applies (see the
    /// [module docs](super#protocol-versions)). `2025-03-26` is left out: it asks servers to
    /// take JSON-RPC batches, which this server answers as invalid requests.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        const SUPPORTED: &[ProtocolVersion] = &[
            ProtocolVersion::V_2024_11_05,
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2026_07_28,
        ];
        Cow::Borrowed(if self.stateless() { SUPPORTED } else { &SUPPORTED[..3] })
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let session = self.session_in_turn(&context).await;
        let tools = if is_stateless(&context) {
            stateless_tools(&session)?
        } else {
            list_tools(&session)?
        };
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if is_stateless(&context) {
            return self.call_tool_stateless(request, &context).await;
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Domain tools run without the session, so one connection's calls run side by side
        // (hosts issue a model's parallel tool calls at once); the meta-tools that load things
        // run under it. A client that cancels the request (`notifications/cancelled`) stops
        // the call; the session keeps what the call had done by then, as after a panic.
        let mut session = self.session_in_turn(&context).await;
        let name = canonical(&self.shared, &session, &request.name);
        let cancelled = || messages::cancelled(&name);
        // The JSON-RPC request's id is the call's id (`Context::call_id`).
        let call_id = context.id.to_string();
        let (output, changed) = if let Some(call) = session.call_detached_with_id(&name, &arguments, Some(&call_id)) {
            drop(session);
            (
                until_cancelled(std::pin::pin!(context.ct.cancelled()), call)
                    .await
                    .ok_or_else(cancelled)?,
                false,
            )
        } else {
            let before: Vec<String> = session.tools().iter().map(|t| t.name.clone()).collect();
            let output = until_cancelled(
                std::pin::pin!(context.ct.cancelled()),
                session.call_with_id(name.as_str(), arguments, Some(&call_id)),
            )
            .await
            .ok_or_else(cancelled)?;
            let changed = session.tools().iter().map(|t| &t.name).ne(before.iter());
            (output, changed)
        };
        if changed && self.shared.carnet.mode() == ExposureMode::Dynamic {
            // Sent before the result, so a client has it when the call returns. A client gone
            // away is not this call's error.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        tool_result(output).map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![self.prompt()]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != self.shared.agent {
            return Err(messages::unknown_prompt(&request.name, &self.shared.agent));
        }
        let mut variables = Variables::new();
        for (name, value) in request.arguments.unwrap_or_default() {
            let value = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            variables.set(name, value).map_err(messages::invalid_prompt_argument)?;
        }
        let text = self.session_in_turn(&context).await.system_prompt_with(&variables);
        let result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(format!("System prompt of the agent `{}`", self.shared.agent));
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let manifest = self.shared.carnet.manifest();
        Ok(ListResourcesResult::with_all_items(
            self.shared.resources.list(manifest),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let manifest = self.shared.carnet.manifest();
        match self.shared.resources.read(manifest, &request.uri) {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => Err(messages::unknown_resource(&request.uri)),
        }
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let manifest = self.shared.carnet.manifest();
        Ok(ListSkillsResult::with_all_items(self.shared.resources.skills(manifest)))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let manifest = self.shared.carnet.manifest();
        match self.shared.resources.skill_at(manifest, &request.uri) {
            Some(skill) => Ok(GetSkillResult::new(skill)),
            None => Err(messages::unknown_skill(&request.uri)),
        }
    }
}
