//! One connection to a remote toolset's server, shared by every session of an engine:
//! started on the first load of a skill that needs it (or the first call), compared with
//! the pin on connect and on `notifications/tools/list_changed`, restarted with backoff
//! after a crash or a hang.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rmcp::Peer;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

use super::server::{Server, ServerError};
use crate::engine::options::{DriftPolicy, RemoteOptions};
use crate::relay;
pub(crate) use answers::Answers;
pub(crate) use connect::connect;
use connect::{Access, connect_with};
use relayed::Calls;
pub(crate) use relayed::Handler;

mod answers;
mod connect;
mod relayed;
mod subscriptions;

/// A server's child process: killed when dropped; `exited` once it is gone.
pub(crate) struct ChildGuard {
    exited: Arc<AtomicBool>,
    _kill: tokio::sync::oneshot::Sender<()>,
}

/// A live connection: the rmcp service (its child process dies with it) and what the
/// server's live list says of each pinned tool.
pub(crate) struct Connection {
    pub(crate) service: RunningService<RoleClient, Handler>,
    child: Option<ChildGuard>,
    /// Pinned tools the live list no longer matches, and why.
    drift: std::sync::Mutex<HashMap<String, String>>,
    generation: u64,
}

impl Connection {
    /// Whether the connection still works as far as can be told without a request.
    fn is_alive(&self) -> bool {
        !self.service.is_closed() && !self.child.as_ref().is_some_and(|c| c.exited.load(Ordering::Acquire))
    }

    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }
}

/// What a pinned tool must still be.
#[derive(Debug, Clone)]
pub(crate) struct PinnedTool {
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
}

#[derive(Default)]
struct State {
    connection: Option<Arc<Connection>>,
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
}

/// A remote toolset's server as the engine sees it.
pub(crate) struct Upstream {
    pub(crate) toolset: String,
    /// The server's name as its pin recorded it (for spans and errors).
    pub(crate) server_name: String,
    server: Server,
    pinned: HashMap<String, PinnedTool>,
    options: RemoteOptions,
    state: Mutex<State>,
    stale: Arc<AtomicBool>,
    /// The calls in flight, shared with every connection's [`Handler`].
    calls: Arc<Calls>,
    generations: AtomicU64,
    started: AtomicBool,
    /// Failures were counted since the last successful call.
    failing: AtomicBool,
    /// A host of an MCP server reached for the server (the gateway): connections made since
    /// declare sampling and elicitation, relayed to the hosts ([`Answers`]).
    relays: AtomicBool,
}

/// Why a call could not reach the server: the message the model reads.
#[derive(Debug)]
pub(crate) struct Unavailable {
    pub(crate) message: String,
    pub(crate) code: &'static str,
}

impl Upstream {
    pub(crate) fn new(
        toolset: String,
        server_name: String,
        server: Server,
        pinned: HashMap<String, PinnedTool>,
        options: RemoteOptions,
    ) -> Self {
        Upstream {
            toolset,
            server_name,
            server,
            pinned,
            options,
            state: Mutex::new(State::default()),
            stale: Arc::new(AtomicBool::new(false)),
            calls: Arc::default(),
            generations: AtomicU64::new(0),
            started: AtomicBool::new(false),
            failing: AtomicBool::new(false),
            relays: AtomicBool::new(false),
        }
    }

    /// Notes that the request being made is a gateway host's (inside its session's
    /// [`relay::LISTENER`], or its call's [`relay::HOST`]), before it may connect.
    fn note_host(&self) {
        let hosted = relay::listener().is_some() || relay::current().is_some_and(|host| host.relays());
        if hosted && !self.relays.load(Ordering::Relaxed) {
            self.relays.store(true, Ordering::Release);
        }
    }

    /// Connects (from the next connection on) as a gateway's client: see
    /// [`RemoteServer::serve_hosts`](crate::engine::carnet::RemoteServer::serve_hosts).
    pub(crate) fn serve_hosts(&self) {
        self.relays.store(true, Ordering::Release);
    }

    /// Whether the server was ever started (or a start was attempted).
    pub(crate) fn started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// Starts the server in the background if it is not running, when a tokio runtime is
    /// there to run it (a load of a skill that needs it); otherwise the first call does.
    /// Inside a host session's [`relay::LISTENER`] (the toolset came in reach of that
    /// session), the session is remembered, to be told of the server's list changes.
    pub(crate) fn warm(self: &Arc<Self>) {
        self.note_host();
        if let Some(listener) = relay::listener() {
            self.calls.watchers.watch(&listener, &self.toolset);
        }
        if self.started() {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let this = Arc::clone(self);
            handle.spawn(async move {
                let _ = this.connection().await;
            });
        }
    }

    /// The live connection, connecting first when there is none (and no backoff holds).
    pub(crate) async fn connection(&self) -> Result<Arc<Connection>, Unavailable> {
        let mut state = self.state.lock().await;
        if let Some(connection) = &state.connection {
            if connection.is_alive() {
                let connection = Arc::clone(connection);
                drop(state);
                if self.stale.swap(false, Ordering::AcqRel) {
                    self.relist(&connection).await;
                }
                return Ok(connection);
            }
            state.connection = None;
            state.last_error = Some("the server stopped".into());
        }
        if let Some(at) = state.retry_at
            && let Some(wait) = at.checked_duration_since(Instant::now())
        {
            return Err(Unavailable {
                message: format!(
                    "the MCP server of toolset `{}` is unavailable ({}); carnet tries again in {} ms",
                    self.toolset,
                    state.last_error.as_deref().unwrap_or("it failed"),
                    wait.as_millis().max(1)
                ),
                code: "upstream_unavailable",
            });
        }
        self.started.store(true, Ordering::Release);
        match tokio::time::timeout(self.options.connect_timeout, self.connect()).await {
            Ok(Ok(connection)) => {
                let connection = Arc::new(connection);
                state.connection = Some(Arc::clone(&connection));
                state.retry_at = None;
                state.last_error = None;
                Ok(connection)
            }
            Ok(Err(message)) => Err(self.failed(&mut state, message)),
            Err(_) => Err(self.failed(
                &mut state,
                format!(
                    "it did not finish starting within {} ms",
                    self.options.connect_timeout.as_millis()
                ),
            )),
        }
    }

    /// The wait before the next start after `failures` failures in a row.
    fn backoff(&self, failures: u32) -> std::time::Duration {
        self.options
            .restart_backoff
            .saturating_mul(1 << failures.saturating_sub(1).min(16))
            .min(self.options.max_restart_backoff)
    }

    fn failed(&self, state: &mut State, message: String) -> Unavailable {
        state.failures = state.failures.saturating_add(1);
        self.failing.store(true, Ordering::Release);
        state.retry_at = Some(Instant::now() + self.backoff(state.failures));
        tracing::warn!(target: "carnet::remote", toolset = %self.toolset, error = %message, "MCP server failed to start");
        let unavailable = Unavailable {
            message: format!(
                "the MCP server of toolset `{}` could not be started: {message}",
                self.toolset
            ),
            code: "upstream_unavailable",
        };
        state.last_error = Some(message);
        unavailable
    }

    /// Forgets connection `generation` after it crashed or hung (a newer connection is left
    /// alone): the next call starts a new one at once, and after failures in a row with no
    /// successful call between them, only once the backoff has passed.
    pub(crate) async fn discard(&self, generation: u64, why: &str) {
        let mut state = self.state.lock().await;
        if state.connection.as_ref().is_some_and(|c| c.generation == generation) {
            state.connection = None;
            state.last_error = Some(why.to_owned());
            state.failures = state.failures.saturating_add(1);
            self.failing.store(true, Ordering::Release);
            if state.failures > 1 {
                state.retry_at = Some(Instant::now() + self.backoff(state.failures - 1));
            }
            tracing::warn!(target: "carnet::remote", toolset = %self.toolset, error = %why, "MCP server connection dropped");
        }
    }

    async fn connect(&self) -> Result<Connection, String> {
        let server = self.server.resolve().map_err(|e| match e {
            ServerError::MissingVariable(_) | ServerError::Invalid(_) => e.to_string(),
        })?;
        let handler = Handler {
            stale: Arc::clone(&self.stale),
            calls: Arc::clone(&self.calls),
            answers: Answers::new(&self.options, self.relays.load(Ordering::Acquire)),
        };
        #[cfg(feature = "remote-oauth")]
        let access = Access {
            oauth: &self.options.oauth,
            toolset: &self.toolset,
        };
        #[cfg(not(feature = "remote-oauth"))]
        let access = Access::default();
        let (service, child) =
            connect_with(&server, &self.server, handler, self.options.max_message_bytes, access).await?;
        let generation = self.generations.fetch_add(1, Ordering::AcqRel);
        let connection = Connection {
            service,
            child,
            drift: std::sync::Mutex::new(HashMap::new()),
            generation,
        };
        self.stale.store(false, Ordering::Release);
        let tools = tokio::time::timeout(self.options.call_timeout, connection.peer().list_all_tools())
            .await
            .map_err(|_| "its tool list did not arrive in time".to_owned())?
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        *lock(&connection.drift) = self.compare(&tools);
        Ok(connection)
    }

    /// Lists the tools again after `list_changed` and compares them with the pin (a list
    /// that cannot be read leaves the last comparison standing and is tried again).
    async fn relist(&self, connection: &Connection) {
        match tokio::time::timeout(self.options.call_timeout, connection.peer().list_all_tools()).await {
            Ok(Ok(tools)) => *lock(&connection.drift) = self.compare(&tools),
            _ => self.stale.store(true, Ordering::Release),
        }
    }

    /// What the live list says of each pinned tool: vanished, or a schema that changed.
    fn compare(&self, live: &[rmcp::model::Tool]) -> HashMap<String, String> {
        let live: HashMap<&str, &rmcp::model::Tool> = live.iter().map(|t| (&*t.name, t)).collect();
        let mut drift = HashMap::new();
        for (name, pinned) in &self.pinned {
            let why = match live.get(name.as_str()) {
                None => Some("the server no longer has it".to_owned()),
                Some(tool) => {
                    let input = Value::Object((*tool.input_schema).clone());
                    let output = tool.output_schema.as_ref().map(|s| Value::Object((**s).clone()));
                    if input != pinned.input_schema {
                        Some("its input schema changed since it was pinned".to_owned())
                    } else if output != pinned.output_schema {
                        Some("its output schema changed since it was pinned".to_owned())
                    } else {
                        None
                    }
                }
            };
            if let Some(why) = why {
                tracing::warn!(
                    target: "carnet::remote",
                    toolset = %self.toolset,
                    tool = %name,
                    drift = %why,
                    policy = ?self.options.drift,
                    "MCP server drifted from its pin"
                );
                drift.insert(name.clone(), why);
            }
        }
        drift
    }

    /// Reads resource `uri` (a text or a base64 blob) from the server: its bytes.
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<Vec<u8>, Unavailable> {
        use base64::Engine as _;
        let connection = self.connection().await?;
        let peer = connection.peer().clone();
        drop(connection);
        let params = rmcp::model::ReadResourceRequestParams::new(uri.to_owned());
        let result = tokio::time::timeout(self.options.call_timeout, peer.read_resource(params))
            .await
            .map_err(|_| Unavailable {
                message: format!(
                    "the MCP server of toolset `{}` did not answer within {} ms",
                    self.toolset,
                    self.options.call_timeout.as_millis()
                ),
                code: "upstream_timeout",
            })?
            .map_err(|e| Unavailable {
                message: format!(
                    "reading `{uri}` from the MCP server of toolset `{}` failed: {e}",
                    self.toolset
                ),
                code: "upstream_error",
            })?;
        match result.contents.into_iter().next() {
            Some(rmcp::model::ResourceContents::TextResourceContents { text, .. }) => Ok(text.into_bytes()),
            Some(rmcp::model::ResourceContents::BlobResourceContents { blob, .. }) => {
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|_| Unavailable {
                        message: format!(
                            "the MCP server of toolset `{}` sent `{uri}` as a blob that is not base64",
                            self.toolset
                        ),
                        code: "upstream_error",
                    })
            }
            _ => Err(Unavailable {
                message: format!(
                    "the MCP server of toolset `{}` sent nothing readable for `{uri}`",
                    self.toolset
                ),
                code: "upstream_error",
            }),
        }
    }

    /// Sends request `method` with `params` to the server (its resources and prompts, which
    /// the MCP gateway passes through): its result, or the JSON-RPC error code and message
    /// (the server's own error, or `-32603` when it could not be reached or did not answer).
    ///
    /// Inside a host session's [`relay::LISTENER`], the session is remembered, to be told of
    /// the server's list changes, and `resources/subscribe` and `resources/unsubscribe` are
    /// the session's (see [`subscriptions`]): an unsubscribe of what it did not subscribe to
    /// does not reach (or start) the server.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "the MCP gateway calls it"))]
    pub(crate) async fn forward(&self, method: &'static str, params: Value) -> Result<Value, (i32, String)> {
        self.note_host();
        let listener = relay::listener();
        if let Some(listener) = &listener
            && method == "resources/unsubscribe"
        {
            return self.calls.watchers.unsubscribe(listener.id(), &params).await;
        }
        let connection = self.connection().await.map_err(|e| (-32603, e.message))?;
        let peer = connection.peer().clone();
        drop(connection);
        if let Some(listener) = &listener {
            self.calls.watchers.watch(listener, &self.toolset);
            if method == "resources/subscribe" {
                let timeout = self.options.call_timeout;
                return self.calls.watchers.subscribe(listener, &peer, &params, timeout).await;
            }
        }
        let request =
            serde_json::from_value::<rmcp::model::ClientRequest>(json!({ "method": method, "params": params }))
                .map_err(|e| (-32602, format!("invalid params for `{method}`: {e}")))?;
        // In flight as a call is: what the server sends while it answers (an elicitation during
        // `prompts/get`) goes to the host that asked, when one did, and to no other call's.
        let host = relay::current().unwrap_or_else(|| Arc::new(relay::Unhosted));
        let sent = relayed::send(&self.calls, &peer, request, host);
        match tokio::time::timeout(self.options.call_timeout, sent).await {
            Ok(Ok(result)) => serde_json::to_value(result).map_err(|e| (-32603, e.to_string())),
            Ok(Err(rmcp::ServiceError::McpError(error))) => Err((error.code.0, error.message.into_owned())),
            Ok(Err(error)) => Err((
                -32603,
                format!("the MCP server of toolset `{}` failed: {error}", self.toolset),
            )),
            Err(_) => Err((
                -32603,
                format!("the MCP server of toolset `{}` did not answer in time", self.toolset),
            )),
        }
    }

    /// Calls `tool` on the server: its result, or why the server could not answer.
    pub(crate) async fn call(&self, tool: &str, arguments: Value) -> Result<CallToolResult, Unavailable> {
        self.note_host();
        let connection = self.connection().await?;
        let drifted = lock(&connection.drift).get(tool).cloned();
        if let Some(why) = drifted
            && self.options.drift == DriftPolicy::Refuse
        {
            return Err(Unavailable {
                message: format!(
                    "tool `{tool}` of toolset `{}` is refused: {why} (run `carnet mcp pin {}` and rebuild to accept the server's new version)",
                    self.toolset, self.toolset
                ),
                code: "upstream_drift",
            });
        }
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = match arguments {
            Value::Object(map) => Some(map),
            _ => Some(Map::new()),
        };
        let generation = connection.generation;
        let peer = connection.peer().clone();
        drop(connection);
        // A call no host made is in flight all the same: what its server sends is nobody's.
        let host = relay::current().unwrap_or_else(|| Arc::new(relay::Unhosted));
        let call = relayed::call(&self.calls, &peer, params, host);
        match tokio::time::timeout(self.options.call_timeout, call).await {
            Ok(Ok(result)) => {
                if self.failing.swap(false, Ordering::AcqRel) {
                    self.state.lock().await.failures = 0;
                }
                Ok(result)
            }
            Ok(Err(rmcp::ServiceError::McpError(error))) => Err(Unavailable {
                message: format!(
                    "the MCP server of toolset `{}` refused the call: {}",
                    self.toolset, error.message
                ),
                code: "upstream_error",
            }),
            Ok(Err(error)) => {
                let why = format!("the call failed: {error}");
                self.discard(generation, &why).await;
                Err(Unavailable {
                    message: format!(
                        "the MCP server of toolset `{}` stopped during the call ({error}); it is restarted on the next call",
                        self.toolset
                    ),
                    code: "upstream_crashed",
                })
            }
            Err(_) => {
                let why = format!(
                    "a call got no answer within {} ms",
                    self.options.call_timeout.as_millis()
                );
                self.discard(generation, &why).await;
                Err(Unavailable {
                    message: format!(
                        "the MCP server of toolset `{}` did not answer within {} ms; it is restarted on the next call",
                        self.toolset,
                        self.options.call_timeout.as_millis()
                    ),
                    code: "upstream_timeout",
                })
            }
        }
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The result of a call as JSON (`content`, `structuredContent`, `isError`).
pub(crate) fn result_json(result: &CallToolResult) -> Value {
    serde_json::to_value(result).unwrap_or_else(|_| json!({"content": []}))
}
