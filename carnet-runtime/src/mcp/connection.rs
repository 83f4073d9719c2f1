//! One MCP connection through rmcp (feature `mcp-http`): an [`rmcp::ServerHandler`] over its
//! own carnet [`Session`], answering with [`super::methods`] as the byte-stream server does.

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577); the 2025 revisions, which
// carnet serves and relays, still have them.
#![expect(deprecated, reason = "logging and sampling of the 2025 revisions")]

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::completion::{self, CompleteParams};
use super::host::{LogLevel, RmcpHost};
use super::listener::SessionListener;
use super::messages;
use super::methods::{self, CallParams, PromptParams, UriParams};
use super::passthrough;
use super::rpc::RpcError;
use super::shared::{Shared, passes_through};
use crate::relay::Listener;
use crate::{Session, SessionState, relay};

/// One MCP connection: the [`rmcp::ServerHandler`] that serves a [`Server`](super::Server)'s
/// agent through its own [`Session`]. Made by [`Server::connection`](super::Server::connection),
/// for serving over a transport of rmcp's; [`Server::serve`](super::Server::serve) serves a
/// byte stream without rmcp.
pub struct Connection {
    shared: Arc<Shared>,
    session: Mutex<Session>,
    /// The level of the log messages relayed to this client (`logging/setLevel`).
    log_level: LogLevel,
    /// This client's session as remote toolsets' servers see it, where they are passed
    /// through.
    listener: Option<Arc<SessionListener>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("agent", &self.shared.agent)
            .finish_non_exhaustive()
    }
}

impl Connection {
    pub(super) fn new(shared: Arc<Shared>) -> Connection {
        let session = shared.session();
        let listener =
            passes_through(shared.carnet.manifest()).then(|| SessionListener::rmcp(&shared, &session.state()));
        Connection {
            shared,
            session: Mutex::new(session),
            log_level: LogLevel::default(),
            listener,
        }
    }

    /// The host session a request of `context` is passed through for: none at the stateless
    /// revision.
    fn host_session(&self, context: &RequestContext<RoleServer>) -> Option<Arc<dyn Listener>> {
        let listener = self.listener.as_ref().filter(|_| !is_stateless(context))?;
        listener.attach(&context.peer, &self.shared);
        Some(Arc::clone(listener) as Arc<dyn Listener>)
    }

    /// `tools/call`, inside the relay to this client.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        call_id: String,
    ) -> Result<CallToolResponse, ErrorData> {
        let output = if is_stateless(&context) {
            let cancelled = context.ct.cancelled();
            let answer = match request.request_state.as_deref() {
                Some(state) => {
                    let responses = request
                        .input_responses
                        .map(|responses| Value::Object(responses.into_iter().collect()));
                    let name = &request.name;
                    methods::call_resumed(&self.shared, None, name, state, responses.as_ref(), cancelled).await?
                }
                None => {
                    let (name, arguments) = (&request.name, request.arguments);
                    methods::call_stateless(&self.shared, None, name, arguments, &call_id, cancelled).await?
                }
            };
            match answer {
                methods::Answer::Complete(output) => output,
                methods::Answer::InputRequired(result) => {
                    return typed::<rmcp::model::InputRequiredResult>(result).map(Into::into);
                }
            }
        } else {
            let request = CallParams {
                name: request.name.into_owned(),
                arguments: request.arguments,
                input_responses: None,
                request_state: None,
            };
            let session = self.session.lock().await;
            let cancelled = context.ct.cancelled();
            let listener = self.listener.as_ref();
            if let Some(listener) = listener {
                listener.attach(&context.peer, &self.shared);
            }
            let (output, changed) =
                methods::call_in_session(&self.shared, session, request, &call_id, cancelled, listener).await?;
            // Sent before the result, so a client has them when the call returns. A client
            // gone away is not this call's error.
            if changed.tools {
                let _ = context.peer.notify_tool_list_changed().await;
            }
            if let Some(listener) = listener.filter(|_| changed.lists) {
                listener.lists_changed().await;
            }
            output
        };
        typed::<rmcp::model::CallToolResult>(methods::tool_result(output)).map(Into::into)
    }

    /// The state a request of `context` reads: the connection's session, or at the stateless
    /// revision (no session) the agent's initial one.
    async fn state_of(&self, context: &RequestContext<RoleServer>) -> SessionState {
        if is_stateless(context) {
            self.shared.session().state()
        } else {
            self.session.lock().await.state()
        }
    }

    /// `resources/subscribe` (`subscribe`) or `resources/unsubscribe` of `uri`.
    async fn subscription(
        &self,
        subscribe: bool,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let state = self.state_of(context).await;
        let host = self.host_session(context);
        let params = json!({ "uri": uri });
        passthrough::subscription(&self.shared, &state, host.as_ref(), subscribe, &params).await?;
        Ok(())
    }

    /// What this connection's session has loaded, to save or inspect
    /// ([`Carnet::resume`](crate::Carnet::resume) continues it).
    pub async fn state(&self) -> SessionState {
        self.session.lock().await.state()
    }
}

/// `value` as the rmcp type `T`, saying it is complete (`resultType`, which the stateless
/// revision requires on every result and rmcp strips for older peers).
fn typed<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<T, ErrorData> {
    if let Value::Object(fields) = &mut value {
        fields
            .entry("resultType")
            .or_insert_with(|| Value::String("complete".to_owned()));
    }
    serde_json::from_value(value).map_err(|e| messages::unencodable("the result", e).into())
}

/// A list request's page: refused, as this server gives no cursor.
fn first_page(method: &str, request: Option<&PaginatedRequestParams>) -> Result<(), ErrorData> {
    methods::check_cursor(method, request.and_then(|r| r.cursor.as_deref())).map_err(Into::into)
}

/// `value` (an object) as rmcp params, which carnet reads as its own `T`.
fn ours<T: serde::de::DeserializeOwned>(method: &str, params: impl serde::Serialize) -> Result<T, ErrorData> {
    let value = serde_json::to_value(params).map_err(|e| ErrorData::from(messages::invalid_params(method, e)))?;
    methods::params(method, Some(value)).map_err(Into::into)
}

/// Whether `context` is a request of the stateless revision (`2026-07-28` or later).
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| methods::is_stateless(v.as_str()))
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
        Err(match methods::params_problem(&method, params) {
            Some(problem) => messages::invalid_params(&method, problem),
            None => messages::unknown_method(&method),
        }
        .into())
    }

    fn get_info(&self) -> ServerConfig {
        let shared = &self.shared;
        let info = shared.rmcp_info.get_or_init(|| {
            serde_json::from_value(shared.info.initialize_result(methods::LATEST_WITH_INITIALIZE))
                .expect("the server's information is an rmcp `ServerConfig`")
        });
        info.clone()
    }

    /// `server/discover`: what the byte-stream server answers (no subscriptions and no list
    /// changes of resources and prompts, which the stateless revision cannot receive).
    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        let supported = methods::supported_versions(self.shared.carnet.mode());
        typed(self.shared.info.discover_result(supported))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        const SUPPORTED: &[ProtocolVersion] = &[
            ProtocolVersion::V_2024_11_05,
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2026_07_28,
        ];
        let served = methods::supported_versions(self.shared.carnet.mode()).len();
        Cow::Borrowed(&SUPPORTED[..served])
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        first_page("tools/list", request.as_ref())?;
        let session = self.session.lock().await;
        let tools = if is_stateless(&context) {
            methods::stateless_tools(&self.shared, &session)?
        } else {
            methods::list_tools(&self.shared, &session)?
        };
        Ok(ListToolsResult::with_all_items(typed(Value::Array(tools))?))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The JSON-RPC request's id is the call's id (`Context::call_id`).
        let call_id = context.id.to_string();
        // A remote tool's server sends its progress, logs and requests for the call to this
        // client (`crate::relay`).
        let host = RmcpHost::of(&context, &self.log_level, is_stateless(&context));
        relay::HOST.scope(host, self.call(request, context, call_id)).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.shared.info.capabilities.get("logging").is_none() {
            return Err(RpcError::not_served("logging/setLevel").into());
        }
        let level = serde_json::to_value(request.level).unwrap_or(Value::Null);
        match level.as_str() {
            Some(level) if self.log_level.set(level) => Ok(()),
            _ => Err(messages::invalid_params("logging/setLevel", format!("{level} is not a log level")).into()),
        }
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        first_page("prompts/list", request.as_ref())?;
        let state = self.state_of(&context).await;
        typed(
            passthrough::list(
                &self.shared,
                &state,
                self.host_session(&context).as_ref(),
                "prompts/list",
                methods::list_prompts(&self.shared),
            )
            .await,
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let params = serde_json::to_value(&request).ok();
        let request: PromptParams = ours("prompts/get", request)?;
        let theirs = request.name != self.shared.agent;
        let own = methods::get_prompt(&self.shared, &*self.session.lock().await, request);
        let state = self.state_of(&context).await;
        let host = self.host_session(&context);
        let method = "prompts/get";
        // What the prompt's server sends while it answers goes to this client.
        let asking = RmcpHost::of(&context, &self.log_level, is_stateless(&context));
        let forwarded = passthrough::or_forward(
            &self.shared,
            &state,
            host.as_ref(),
            method,
            params.as_ref(),
            theirs,
            own,
        );
        let result = relay::HOST.scope(asking, forwarded).await?;
        typed::<rmcp::model::GetPromptResult>(result).map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        first_page("resources/list", request.as_ref())?;
        let state = self.state_of(&context).await;
        typed(
            passthrough::list(
                &self.shared,
                &state,
                self.host_session(&context).as_ref(),
                "resources/list",
                methods::list_resources(&self.shared),
            )
            .await,
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let params = json!({ "uri": request.uri });
        let request = UriParams { uri: request.uri };
        let own = methods::read_resource(&self.shared, &request);
        let state = self.state_of(&context).await;
        let host = self.host_session(&context);
        let method = "resources/read";
        // What the resource's server sends while it answers goes to this client.
        let asking = RmcpHost::of(&context, &self.log_level, is_stateless(&context));
        let forwarded = passthrough::or_forward(&self.shared, &state, host.as_ref(), method, Some(&params), true, own);
        let result = relay::HOST.scope(asking, forwarded).await?;
        typed::<rmcp::model::ReadResourceResult>(result).map(Into::into)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        first_page("resources/templates/list", request.as_ref())?;
        let state = self.state_of(&context).await;
        let own = serde_json::json!({ "resourceTemplates": [] });
        let host = self.host_session(&context);
        typed(passthrough::list(&self.shared, &state, host.as_ref(), "resources/templates/list", own).await)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let params = serde_json::to_value(&request).ok();
        let request: CompleteParams = ours("completion/complete", request)?;
        let theirs = !request.is_for(&self.shared.agent);
        let own = completion::complete(&self.shared, &request);
        let state = self.state_of(&context).await;
        let method = "completion/complete";
        let host = self.host_session(&context);
        typed(
            passthrough::or_forward(
                &self.shared,
                &state,
                host.as_ref(),
                method,
                params.as_ref(),
                theirs,
                own,
            )
            .await?,
        )
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscription(true, &request.uri, &context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscription(false, &request.uri, &context).await
    }

    /// The session is open: the servers of the remote toolsets in reach learn of it.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(listener) = &self.listener {
            listener.attach(&context.peer, &self.shared);
        }
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        first_page("skills/list", request.as_ref())?;
        typed(methods::list_skills(&self.shared))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let request = UriParams { uri: request.uri };
        typed(methods::get_skill(&self.shared, &request)?)
    }
}
