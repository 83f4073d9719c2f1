//! [`Server`]: one agent of a [`Carnet`] served over MCP, on a byte stream or (feature
//! `mcp-http`) streamable HTTP.

use std::io;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(feature = "mcp-http")]
use super::connection::Connection;
use super::handle::SessionKeys;
use super::hints::Hints;
#[cfg(feature = "mcp-http")]
use super::http::HttpServer;
#[cfg(feature = "mcp-http")]
use super::limits::HttpLimits;
use super::shared::{DEFAULT_MAX_MESSAGE_BYTES, Info, Shared};
use super::waiting::{InputWait, Waiting};
use super::{resources, stdio};
use crate::engine::{Carnet, ExposureMode};
use crate::session::SessionError;

/// Serves one agent of a [`Carnet`] over MCP; see the [module docs](crate::mcp).
///
/// Cheap to clone: every clone serves the same engine.
#[derive(Clone)]
pub struct Server {
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("agent", &self.shared.agent)
            .field("mode", &self.shared.carnet.mode())
            .field("name", &self.shared.info.name)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server for `agent`, reporting itself (`serverInfo`) by the agent's name and version:
    /// the `version` of its `AGENT.md` frontmatter, else the fingerprint of the content (16
    /// hex digits). [`Server::named`] sets another.
    ///
    /// The skill files are indexed here, once: each file's `sha256` digest is the manifest's
    /// (computed at build time by `carnet_codegen`; computed here for manifests without
    /// them), and each `SKILL.md` is rendered and hashed here.
    ///
    /// # Errors
    ///
    /// When the manifest has no agent named `agent`.
    pub fn new(carnet: &Carnet, agent: impl AsRef<str>) -> Result<Self, SessionError> {
        Self::for_agent(carnet, agent.as_ref())
    }

    /// [`Server::new`]'s body, compiled once here rather than in each program.
    fn for_agent(carnet: &Carnet, agent: &str) -> Result<Self, SessionError> {
        // Remote MCP toolsets' servers are the hosts' to answer (`crate::relay`), from the
        // first connection on (the session below may start them: its initial skills).
        for toolset in carnet.manifest().toolsets.iter().filter(|t| t.mcp.is_some()) {
            if let Some(server) = carnet.remote_server(&toolset.name) {
                server.serve_hosts();
            }
        }
        let session = carnet.session(agent)?;
        let resources = resources::Index::new(carnet.manifest(), agent);
        let info = Info::new(
            carnet.manifest(),
            agent,
            carnet.mode(),
            session.system_prompt().to_owned(),
        );
        Ok(Server {
            shared: Arc::new(Shared {
                carnet: carnet.clone(),
                agent: agent.to_owned(),
                info,
                stateless_list: Arc::default(),
                #[cfg(feature = "mcp-http")]
                rmcp_info: std::sync::OnceLock::new(),
                resources,
                hints: Hints::new(carnet.manifest(), agent),
                max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
                keys: Arc::new(SessionKeys::random()),
                waiting: Arc::new(Waiting::new(InputWait::default())),
                #[cfg(feature = "mcp-http")]
                limits: HttpLimits::default(),
                // A call through a remote toolset's server may need the relay, which the
                // direct path has not.
                #[cfg(feature = "mcp-http")]
                direct_http: !super::shared::passes_through(carnet.manifest()),
            }),
        })
    }

    /// Sets the name and version the server reports in `initialize` (`serverInfo`).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let shared = Arc::make_mut(&mut self.shared);
        shared.info.name = name.into();
        shared.info.version = version.into();
        #[cfg(feature = "mcp-http")]
        {
            shared.rmcp_info = std::sync::OnceLock::new();
        }
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
    /// ([`SessionKeys::from_env`] reads [`SESSION_KEY_ENV`](super::SESSION_KEY_ENV)).
    #[must_use]
    pub fn session_keys(mut self, keys: SessionKeys) -> Self {
        Arc::make_mut(&mut self.shared).keys = Arc::new(keys);
        self
    }

    /// Sets how many calls of the stateless revision (`2026-07-28`) may wait for their
    /// client's input at once, and for how long ([`InputWait`]): a remote tool's server asking
    /// for input in the middle of a call (elicitation, sampling) has the client asked with an
    /// `input_required` result, and the call waits for the client's retry with the answers.
    #[must_use]
    pub fn input_wait(mut self, wait: InputWait) -> Self {
        Arc::make_mut(&mut self.shared).waiting = Arc::new(Waiting::new(wait));
        self
    }

    /// Sets the limits of the HTTP server of [`Server::bind_http`].
    #[cfg(feature = "mcp-http")]
    #[must_use]
    pub fn http_limits(mut self, limits: HttpLimits) -> Self {
        Arc::make_mut(&mut self.shared).limits = limits;
        self
    }

    /// Leaves every HTTP request to rmcp, the stateless revision's `tools/list` and
    /// `tools/call` included (which [`Server::bind_http`] otherwise answers itself, with the
    /// same bytes): for the tests and benchmarks comparing both paths.
    #[cfg(feature = "mcp-http")]
    #[doc(hidden)]
    #[must_use]
    pub fn through_rmcp_only(mut self) -> Self {
        Arc::make_mut(&mut self.shared).direct_http = false;
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
    /// a transport of rmcp's with [`rmcp::ServiceExt::serve`] (feature `mcp-http`, which
    /// brings rmcp; [`Server::serve`] needs none of it).
    #[cfg(feature = "mcp-http")]
    #[must_use]
    pub fn connection(&self) -> Connection {
        Connection::new(self.shared.clone())
    }

    /// Serves one connection over a byte stream of newline-delimited JSON-RPC (the stdio
    /// transport's framing) until the peer closes it, and every request read is answered
    /// (for at most a minute after the end of the input).
    ///
    /// # Errors
    ///
    /// `ConnectionAborted` when the input ends before the protocol's lifecycle started (no
    /// `initialize`, and no request of the stateless revision); an error writing the output.
    pub async fn serve<R, W>(&self, read: R, write: W) -> io::Result<()>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        stdio::serve(self.shared.clone(), read, write).await
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
    pub(super) fn endpoint<M: rmcp::transport::streamable_http_server::SessionManager>(
        &self,
        config: rmcp::transport::StreamableHttpServerConfig,
        sessions: Arc<M>,
    ) -> rmcp::transport::StreamableHttpService<Connection, M> {
        let server = self.clone();
        rmcp::transport::StreamableHttpService::new(move || Ok(server.connection()), sessions, config)
    }
}
