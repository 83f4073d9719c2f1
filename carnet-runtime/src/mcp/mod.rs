//! A carnet agent as a [Model Context Protocol](https://modelcontextprotocol.io) server
//! (feature `mcp` for stdio and any byte stream, `mcp-http` for streamable HTTP besides;
//! built on [`rmcp`] 3.9; to name the rmcp types this API takes or gives,
//! [`Connection`]'s `ServerHandler` and [`Server::http_service`]'s config, depend on
//! `rmcp = "3.9"` too).
//!
//! [`Server`] serves one agent of a [`Carnet`]; every MCP connection gets its own
//! [`Session`], so what one client loads is invisible to the others.
//!
//! | MCP | carnet |
//! | --- | --- |
//! | `tools/list` | the session's tools ([`Session::tools`]), names as [`providers::mcp`] writes them |
//! | `tools/call` | [`Session::call`]: bad arguments, unknown or unexposed tools and tool failures are results with `isError: true` the model can read; domain calls run side by side ([`Session::call_detached`]) |
//! | `notifications/tools/list_changed` | sent after a call changed the tool list ([`ExposureMode::Dynamic`] only) |
//! | `prompts/list`, `prompts/get` | the agent's system prompt, as it stands for this connection; the manifest's variables are the prompt's optional arguments |
//! | `resources/list`, `resources/read` | every skill the agent can reach: its `SKILL.md` and its files (`skill://<skill>/<path>`), binary files as blobs |
//! | `skills/list`, `skills/get` | the same skills through the Skills extension (SEP-2640), each file with its size and `sha256` digest |
//! | `initialize` | the agent's initial system prompt as the server's `instructions` |
//! | `GET /.well-known/agent-card.json` | the agent as an A2A 1.0 `AgentCard` ([`agent_card`]) |
//!
//! Over stdio, stdout is the protocol's channel: tools must not print to it (write logs to
//! stderr), or the client reads a line that is no message.
//!
//! # Which exposure mode for which host
//!
//! - [`ExposureMode::Dynamic`] (the default): loading a skill adds its tools to `tools/list`
//!   and the server sends `notifications/tools/list_changed`. Use it with hosts that refetch
//!   the list on that notification (Claude Code, Claude Desktop, VS Code, the official SDKs'
//!   clients): the model then calls domain tools directly, with their real schemas.
//! - [`ExposureMode::Dispatcher`]: `tools/list` never changes — the meta-tools and `callTool
//!   {name, arguments}` — and loaded tools' schemas arrive in `loadSkill` / `loadToolset`
//!   results. Use it with hosts that read the list once and cache it, with hosts that ignore
//!   `list_changed`, or wherever a fixed list keeps a provider's prompt cache warm.
//!
//! # Protocol versions
//!
//! The revisions with an `initialize` handshake and sessions (`2024-11-05`, `2025-06-18`,
//! `2025-11-25`) are served in every mode: a carnet session lives as long as the MCP session
//! (the process over stdio; the `Mcp-Session-Id` over HTTP, in one process).
//!
//! The stateless revision, `2026-07-28`, removed sessions and says `tools/list` "MUST NOT vary
//! ... as a side effect of other requests", so it is offered in [`ExposureMode::Dispatcher`]
//! only (dynamic tool lists change as a side effect of calls), over stdio and HTTP alike:
//!
//! - `tools/list` is the same for every request: the meta-tools and `callTool`, each taking an
//!   optional `session` argument;
//! - the conversation's [`SessionState`](crate::SessionState) travels as a **sealed handle**:
//!   every call that changes it returns the new handle as `"session"` in its result (text and
//!   `structuredContent`), and the client passes it back as the `session` argument of the next
//!   call. The handle is authenticated with HMAC-SHA-256 under [`SessionKeys`] (format in
//!   [`SessionKeys`]' module: agent, manifest fingerprint, expiry and key id are bound); one
//!   that is forged, expired, or made for another agent or manifest is refused with an error
//!   result whose `code` says which (`session_forged`, `session_expired`, ...);
//! - without a handle, a call starts from the agent's initial skills over HTTP (so a domain
//!   tool of a skill not loaded is refused like any other), and continues the connection's
//!   session over a byte stream, where the process is the conversation.
//!
//! Replicas that share the key ([`SessionKeys::from_env`], `CARNET_SESSION_KEY`) serve each
//! other's conversations with no shared store; a restart loses nothing. Sessions of the 2025
//! revisions stay in the process that opened them: route them by `Mcp-Session-Id` (sticky
//! sessions).
//!
//! # HTTP limits
//!
//! With the feature `mcp-http`, [`Server::bind_http`] cuts off a client that sends its
//! headers too slowly ([`HttpLimits::header_timeout`]) and answers 408 to one whose body is too slow
//! ([`HttpLimits::body_timeout`]); holds at most [`HttpLimits::max_sessions`] 2025 sessions
//! (503 beyond) and ends those idle for [`HttpLimits::session_idle`], freeing their memory;
//! refuses (403) requests whose `Origin` is not in [`HttpLimits::allowed_origins`] (loopback
//! by default, as the transport spec asks against DNS rebinding), with CORS for browser
//! clients opt-in ([`HttpLimits::cors`]); answers `DELETE` of an unknown session with 404; and
//! serves the agent's A2A 1.0 card ([`agent_card`]) at [`AGENT_CARD_PATH`].
//!
//! # Notifications over HTTP
//!
//! On stdio, `notifications/tools/list_changed` is written before the `tools/call` result that
//! caused it. Over streamable HTTP, rmcp sends notifications that answer no request on the
//! session's standalone GET stream, as the transport allows: clients that open it (the
//! official SDKs do, right after `initialize`) receive it there, and it is kept until they do.
//!
//! # Malformed input
//!
//! Over stdio ([`Server::serve_stdio`], [`Server::serve`]) a line that is not JSON gets a
//! JSON-RPC parse error (`-32700`, `"id": null`), JSON that is not a JSON-RPC message an
//! invalid request (`-32600`, with its id when it has one), and a line longer than
//! [`Server::max_message_bytes`] an invalid request naming the limit; notifications and
//! responses that cannot be read are ignored, as JSON-RPC asks. Over HTTP
//! ([`Server::bind_http`]) those three come back as the response body, with status 400 or
//! 413, and paths other than `/mcp` are 404. On both, a method this server serves with params
//! it cannot read is an invalid-params error (`-32602`) saying what is wrong, and an unknown
//! method `-32601`. In every case the connection keeps being served.
//!
//! # Examples
//!
//! ```no_run
//! # async fn serve(manifest: &carnet_runtime::Manifest) -> std::io::Result<()> {
//! use carnet_runtime::{Carnet, mcp::Server};
//!
//! let carnet = Carnet::builder(manifest).allow_unimplemented().build().expect("valid content");
//! let server = Server::new(&carnet, "researcher").expect("the agent exists");
//! // stdio, for hosts that start the server as a child process:
//! server.serve_stdio().await?;
//! // or, with the feature `mcp-http`, streamable HTTP on a loopback address, one session
//! // per client:
//! # #[cfg(feature = "mcp-http")] {
//! let http = server.bind_http("127.0.0.1:8080").await?;
//! println!("MCP endpoint: {}", http.url());
//! http.run().await?;
//! # }
//! # Ok(())
//! # }
//! ```

mod card;
mod connection;
mod handle;
#[cfg(feature = "mcp-http")]
mod http;
mod messages;
mod resources;
mod stdio;

use std::io;
use std::sync::Arc;

use rmcp::model::{Implementation, ProtocolVersion, ServerCapabilities, ServerConfig};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::{Carnet, ExposureMode, Session, SessionError, providers};

pub use card::{A2A_PROTOCOL_VERSION, agent_card};
pub use connection::Connection;
pub use handle::{DEFAULT_HANDLE_TTL, KeyError, MIN_KEY_BYTES, PREVIOUS_SESSION_KEY_ENV, SESSION_KEY_ENV, SessionKeys};
#[cfg(feature = "mcp-http")]
pub use http::{AGENT_CARD_PATH, HttpLimits, HttpServer};
pub use resources::SKILL_URI_SCHEME;

/// Messages larger than this (16 MiB) are refused by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Serves one agent of a [`Carnet`] over MCP; see the [module docs](self).
///
/// Cheap to clone: every clone serves the same engine.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

/// What every connection of a server shares.
#[derive(Clone)]
struct Shared {
    carnet: Carnet,
    agent: String,
    /// What `initialize` answers (and `server/discover` reports), built once.
    config: ServerConfig,
    resources: resources::Index,
    max_message_bytes: usize,
    /// The keys sealing the session handles of the stateless revision.
    keys: Arc<SessionKeys>,
    /// Limits of [`Server::bind_http`].
    #[cfg(feature = "mcp-http")]
    limits: HttpLimits,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("agent", &self.shared.agent)
            .field("mode", &self.shared.carnet.mode())
            .field("name", &self.shared.config.server_info.name)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server for `agent`, reporting itself as `carnet` with this crate's version (see
    /// [`Server::named`]).
    ///
    /// The skill files are indexed here, once: each file's `sha256` digest is the manifest's
    /// (computed at build time by `carnet_codegen`; computed here for manifests without
    /// them), and each `SKILL.md` is rendered and hashed here.
    ///
    /// # Errors
    ///
    /// When the manifest has no agent named `agent`.
    pub fn new(carnet: &Carnet, agent: impl AsRef<str>) -> Result<Self, SessionError> {
        let agent = agent.as_ref();
        let session = carnet.session(agent)?;
        let resources = resources::Index::new(carnet.manifest(), agent);
        let capabilities = capabilities(carnet.mode());
        let config = ServerConfig::new(capabilities)
            .with_server_info(server_info("carnet", env!("CARGO_PKG_VERSION"), agent))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_instructions(session.system_prompt());
        Ok(Server {
            shared: Arc::new(Shared {
                carnet: carnet.clone(),
                agent: agent.to_owned(),
                config,
                resources,
                max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
                keys: Arc::new(SessionKeys::random()),
                #[cfg(feature = "mcp-http")]
                limits: HttpLimits::default(),
            }),
        })
    }

    /// Sets the name and version the server reports in `initialize` (`serverInfo`).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let shared = Arc::make_mut(&mut self.shared);
        shared.config.server_info = server_info(name, version, &shared.agent);
        self
    }

    /// Sets the largest message accepted, in bytes (default [`DEFAULT_MAX_MESSAGE_BYTES`]):
    /// a longer stdio line or HTTP body gets an error response instead of being read.
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.shared).max_message_bytes = bytes;
        self
    }

    /// Sets the keys that seal session handles (the stateless revision, `2026-07-28`).
    /// Without this call the server seals with a random key of its own, so its handles open
    /// only in this process: replicas behind a load balancer need one shared key
    /// ([`SessionKeys::from_env`] reads [`SESSION_KEY_ENV`]).
    #[must_use]
    pub fn session_keys(mut self, keys: SessionKeys) -> Self {
        Arc::make_mut(&mut self.shared).keys = Arc::new(keys);
        self
    }

    /// Sets the limits of the HTTP server of [`Server::bind_http`].
    #[cfg(feature = "mcp-http")]
    #[must_use]
    pub fn http_limits(mut self, limits: HttpLimits) -> Self {
        Arc::make_mut(&mut self.shared).limits = limits;
        self
    }

    /// The engine served.
    #[must_use]
    pub fn carnet(&self) -> &Carnet {
        &self.shared.carnet
    }

    /// The agent served.
    #[must_use]
    pub fn agent(&self) -> &str {
        &self.shared.agent
    }

    /// The exposure mode (the engine's).
    #[must_use]
    pub fn mode(&self) -> ExposureMode {
        self.shared.carnet.mode()
    }

    /// A new connection: an [`rmcp::ServerHandler`] with a fresh session, for serving over
    /// a transport of your own with [`rmcp::ServiceExt::serve`].
    #[must_use]
    pub fn connection(&self) -> Connection {
        Connection::new(self.shared.clone(), false)
    }

    /// Serves one connection over a byte stream of newline-delimited JSON-RPC (the stdio
    /// transport's framing) until the peer closes it.
    ///
    /// # Errors
    ///
    /// `ConnectionAborted` when the connection closes or fails before the protocol's
    /// lifecycle starts (no `initialize` or `server/discover`); an error of the task running
    /// the connection.
    pub async fn serve<R, W>(&self, read: R, write: W) -> io::Result<()>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let transport = stdio::LineTransport::new(read, write, self.shared.max_message_bytes);
        let running = rmcp::serve_server(Connection::new(self.shared.clone(), true), transport)
            .await
            .map_err(|e| io::Error::new(io::ErrorKind::ConnectionAborted, e.to_string()))?;
        running.waiting().await.map_err(io::Error::other)?;
        Ok(())
    }

    /// Serves one connection over this process's stdin and stdout until stdin closes.
    ///
    /// # Errors
    ///
    /// As [`Server::serve`].
    pub async fn serve_stdio(&self) -> io::Result<()> {
        self.serve(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Binds streamable HTTP at `addr` (path `/mcp`); [`HttpServer::run`] serves it.
    ///
    /// Only loopback addresses are accepted: the endpoint has no authentication. To serve
    /// remote clients, mount [`Server::http_service`] in your own HTTP stack behind your
    /// authentication.
    ///
    /// # Errors
    ///
    /// When `addr` does not resolve, is not a loopback address, or cannot be bound.
    #[cfg(feature = "mcp-http")]
    pub async fn bind_http(&self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<HttpServer> {
        HttpServer::bind(self.clone(), addr).await
    }

    /// The streamable HTTP endpoint as a tower service, one session per MCP session id, for
    /// mounting in your own HTTP stack. `config` is rmcp's, used as given (its defaults accept
    /// `Host: localhost | 127.0.0.1 | ::1` only and bodies up to rmcp's limit); the JSON-RPC
    /// error bodies of [`Server::bind_http`] are not part of it.
    #[cfg(feature = "mcp-http")]
    #[must_use]
    pub fn http_service(
        &self,
        config: rmcp::transport::StreamableHttpServerConfig,
    ) -> rmcp::transport::StreamableHttpService<
        Connection,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    > {
        self.endpoint(config, Arc::default())
    }

    #[cfg(feature = "mcp-http")]
    fn endpoint<M: rmcp::transport::streamable_http_server::SessionManager>(
        &self,
        config: rmcp::transport::StreamableHttpServerConfig,
        sessions: Arc<M>,
    ) -> rmcp::transport::StreamableHttpService<Connection, M> {
        let server = self.clone();
        rmcp::transport::StreamableHttpService::new(move || Ok(server.connection()), sessions, config)
    }
}

impl Shared {
    fn session(&self) -> Session {
        self.carnet
            .session(&self.agent)
            .expect("the agent was checked by `Server::new`")
    }
}

/// What the server offers: tools (`listChanged` in dynamic mode), prompts, resources and the
/// Skills extension.
fn capabilities(mode: ExposureMode) -> ServerCapabilities {
    serde_json::from_value(serde_json::json!({
        "tools": { "listChanged": mode == ExposureMode::Dynamic },
        "prompts": { "listChanged": false },
        "resources": { "listChanged": false, "subscribe": false },
        "extensions": { rmcp::model::SKILLS_EXTENSION_ID: {} },
    }))
    .expect("the capabilities are well formed")
}

/// `serverInfo`: the name and version given, titled after the agent.
fn server_info(name: impl Into<String>, version: impl Into<String>, agent: &str) -> Implementation {
    Implementation::new(name, version).with_title(format!("carnet agent `{agent}`"))
}

/// The address `bind_http` printed in its URL.
#[cfg(feature = "mcp-http")]
fn endpoint_url(addr: std::net::SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

/// The tools of a session as `tools/list` items.
fn list_tools(session: &Session) -> Result<Vec<rmcp::model::Tool>, rmcp::ErrorData> {
    let value = providers::mcp::tools(session.tools()).map_err(|e| messages::unencodable("the tool list", e))?;
    let tools = value.get("tools").cloned().unwrap_or_default();
    serde_json::from_value(tools).map_err(|e| messages::unencodable("the tool list", e))
}
