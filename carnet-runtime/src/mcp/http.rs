//! Streamable HTTP on a loopback address: rmcp's service behind hyper, with JSON-RPC error
//! bodies for what cannot be read, time limits on reading requests, a cap on sessions, an
//! `Origin` allow-list with opt-in CORS, and the A2A agent card.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;
use tower_service::Service as _;

use super::connection::Connection;
use super::direct::Direct;
use super::limits::HttpLimits;
use super::messages;
use super::methods;
use super::server::Server;
use super::shared::Shared;

type Endpoint = rmcp::transport::StreamableHttpService<Connection, LocalSessionManager>;
type Body = BoxBody<Bytes, Infallible>;

/// The path of the A2A agent card.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
const SESSION_ID: &str = "mcp-session-id";

/// A bound streamable HTTP endpoint (`http://ADDR/mcp`); made by
/// [`Server::bind_http`](super::Server::bind_http).
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    server: Server,
    shutdown: CancellationToken,
    /// Where a proxy in front of the replicas is reached, for the agent card.
    public_url: Option<String>,
}

impl HttpServer {
    pub(super) async fn bind(server: Server, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        let mut last = None;
        for addr in tokio::net::lookup_host(addr).await? {
            if !addr.ip().is_loopback() {
                last = Some(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{addr} is not a loopback address: the MCP endpoint has no authentication; \
                         mount `Server::http_service` behind your own to serve remote clients"
                    ),
                ));
                continue;
            }
            match TcpListener::bind(addr).await {
                Ok(listener) => {
                    return Ok(HttpServer {
                        listener,
                        server,
                        shutdown: CancellationToken::new(),
                        public_url: None,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the address resolved to nothing")))
    }

    /// The address bound (useful after binding port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    #[must_use]
    pub fn url(&self) -> String {
        self.listener
            .local_addr()
            .map_or_else(|_| "http://localhost/mcp".to_owned(), endpoint_url)
    }

    /// Sets the endpoint URL the agent card names (default [`HttpServer::url`]): the
    /// address of the load balancer in front of replicas, say.
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Serves until the process ends.
    ///
    /// # Errors
    ///
    /// As [`HttpServer::run_until`].
    pub async fn run(self) -> io::Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then stops accepting connections and ends every MCP
    /// session (requests in flight finish on their own tasks).
    ///
    /// # Errors
    ///
    /// When the listener's address cannot be read.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> io::Result<()> {
        // Generic over `shutdown`, so compiled in the caller's crate: only the accept loop is
        // here; what serves a connection is in non-generic functions, compiled once in
        // carnet (otherwise hyper's and rmcp's server code is compiled in every program that
        // calls this, 10 s of an author's cold build).
        let (context, builder) = self.prepare()?;
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let Some(accepted) = crate::cancel::unless(shutdown.as_mut(), self.listener.accept()).await else {
                break;
            };
            match accepted {
                Ok((stream, _)) => serve_connection(&context, &builder, stream),
                // Out of file descriptors or a connection reset before accept: the listener
                // itself is fine, so wait a moment and go on.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
        self.shutdown.cancel();
        Ok(())
    }

    /// What every connection shares, and the HTTP/1 settings.
    fn prepare(&self) -> io::Result<(Arc<Context>, hyper::server::conn::http1::Builder)> {
        let shared = &self.server.shared;
        let limits = shared.limits.clone();
        // rmcp checks `Host` against loopback names; the address bound may be another one.
        let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
        let ip = self.listener.local_addr()?.ip().to_string();
        if !hosts.contains(&ip) {
            hosts.push(ip);
        }
        let direct = shared.direct_http.then(|| Direct::new(hosts.clone()));
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_cancellation_token(self.shutdown.child_token())
            .with_max_request_body_bytes(shared.max_message_bytes);
        let mut session_config = SessionConfig::default();
        session_config.keep_alive = Some(limits.session_idle);
        let mut sessions = LocalSessionManager::default();
        sessions.session_config = session_config;
        let sessions = Arc::new(sessions);
        let url = self.public_url.clone().unwrap_or_else(|| self.url());
        let card = super::card::agent_card(shared.carnet.manifest(), &shared.agent, &url, &shared.info.version)
            .and_then(|card| serde_json::to_vec_pretty(&card).ok())
            .map(Bytes::from);
        let context = Arc::new(Context {
            shared: shared.clone(),
            direct,
            endpoint: self.server.endpoint(config, sessions.clone()),
            sessions,
            max: shared.max_message_bytes,
            limits,
            card,
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(context.limits.header_timeout);
        Ok((context, builder))
    }
}

/// Serves one accepted connection on its own task.
fn serve_connection(
    context: &Arc<Context>,
    builder: &hyper::server::conn::http1::Builder,
    stream: tokio::net::TcpStream,
) {
    // Responses go out in pieces (headers, SSE events, the last chunk): without this,
    // Nagle's algorithm meets the client's delayed ACK and each costs 40 ms.
    let _ = stream.set_nodelay(true);
    let context = context.clone();
    let service = hyper::service::service_fn(move |request| handle(context.clone(), request));
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::spawn(async move {
        // A client hanging up mid-request is that connection's end, not the server's.
        let _ = connection.await;
    });
}

/// What every request of one [`HttpServer`] shares.
struct Context {
    shared: Arc<Shared>,
    /// The stateless revision's `tools/list` and `tools/call`, served without rmcp.
    direct: Option<Direct>,
    endpoint: Endpoint,
    sessions: Arc<LocalSessionManager>,
    max: usize,
    limits: HttpLimits,
    card: Option<Bytes>,
}

/// One HTTP request: the agent card; then, at `/mcp`, the `Origin` check and CORS, then
/// the request itself.
async fn handle(context: Arc<Context>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let path = request.uri().path().to_owned();
    if path == AGENT_CARD_PATH {
        return Ok(agent_card(&context, request.method()));
    }
    if path != "/mcp" {
        return Ok(error(StatusCode::NOT_FOUND, &messages::not_the_endpoint(&path)));
    }
    let origin = request
        .headers()
        .get(ORIGIN)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    if let Some(origin) = &origin
        && !context.limits.allows(origin)
    {
        return Ok(error(StatusCode::FORBIDDEN, &messages::origin_refused(origin)));
    }
    let cors = origin.filter(|_| context.limits.cors);
    if request.method() == Method::OPTIONS
        && let Some(origin) = &cors
    {
        let mut response = Response::new(Full::new(Bytes::new()).boxed());
        *response.status_mut() = StatusCode::NO_CONTENT;
        add_cors(&mut response, origin, true);
        return Ok(response);
    }
    let mut response = handle_mcp(&context, request).await?;
    if let Some(origin) = &cors {
        add_cors(&mut response, origin, false);
    }
    Ok(response)
}

/// `GET` of the A2A agent card, readable from any origin (it is public by nature).
fn agent_card(context: &Context, method: &Method) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            &messages::method_not_allowed(method, AGENT_CARD_PATH),
        );
    }
    let Some(card) = &context.card else {
        return error(StatusCode::NOT_FOUND, &messages::not_the_endpoint(AGENT_CARD_PATH));
    };
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        card.clone()
    };
    let mut response = Response::new(Full::new(body).boxed());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        HeaderName::from_static("access-control-allow-origin"),
        HeaderValue::from_static("*"),
    );
    response
}

fn add_cors(response: &mut Response<Body>, origin: &str, preflight: bool) {
    let Ok(origin) = HeaderValue::from_str(origin) else {
        return;
    };
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("access-control-allow-origin"), origin);
    headers.insert(HeaderName::from_static("vary"), HeaderValue::from_static("Origin"));
    headers.insert(
        HeaderName::from_static("access-control-expose-headers"),
        HeaderValue::from_static("mcp-session-id, mcp-protocol-version"),
    );
    if preflight {
        headers.insert(
            HeaderName::from_static("access-control-allow-methods"),
            HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
        );
        headers.insert(
            HeaderName::from_static("access-control-allow-headers"),
            HeaderValue::from_static(
                "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
            ),
        );
        headers.insert(
            HeaderName::from_static("access-control-max-age"),
            HeaderValue::from_static("600"),
        );
    }
}

/// A request at `/mcp`: POST bodies are read here (bounded in size and time) and checked to
/// be JSON, so that an oversized, slow or malformed message gets a JSON-RPC error body; an
/// `initialize` beyond the session cap gets 503 and a DELETE of an unknown session 404; the
/// stateless revision's `tools/list` and `tools/call` are answered [directly](super::direct);
/// rmcp serves the rest.
async fn handle_mcp(context: &Context, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let session_id = request
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if request.method() == Method::DELETE {
        if let Some(id) = &session_id
            && !context.sessions.sessions.read().await.contains_key(id.as_str())
        {
            return Ok(error(StatusCode::NOT_FOUND, &messages::unknown_session()));
        }
        // rmcp ends the session before answering 202; say so the way clients expect.
        let mut response = context.endpoint.clone().call(request).await?;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return Ok(response);
    }
    if request.method() != Method::POST {
        return context.endpoint.clone().call(request).await;
    }
    let (parts, body) = request.into_parts();
    let max = context.max;
    let bytes = match tokio::time::timeout(context.limits.body_timeout, read_body(body, max)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(response)) => return Ok(response),
        Err(_) => {
            let mut response = error(
                StatusCode::REQUEST_TIMEOUT,
                &messages::body_timeout(context.limits.body_timeout),
            );
            response
                .headers_mut()
                .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
            return Ok(response);
        }
    };
    // Before the JSON check: what it answers is JSON.
    if session_id.is_none()
        // An absolute-form target's authority is what rmcp checks, not `Host`.
        && parts.uri.authority().is_none()
        && let Some(direct) = &context.direct
        && let Some(response) = direct.serve(&context.shared, &parts.headers, &bytes).await
    {
        return Ok(response);
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        return Ok(error(StatusCode::BAD_REQUEST, &messages::not_json(e)));
    }
    if let Some(id) = modern_initialize(&bytes) {
        // The stateless revision has no `initialize`: a request carrying its `_meta` is of
        // that revision, so the method is unknown (404, as it answers unknown methods).
        let mode = context.shared.carnet.mode();
        let (supported, sessions) = (methods::supported_versions(mode), methods::session_versions(mode));
        let refused = messages::initialize_removed(supported, sessions);
        return Ok(error_for(StatusCode::NOT_FOUND, &refused, &id));
    }
    if session_id.is_none() && is_initialize(&bytes) {
        let max = context.limits.max_sessions;
        if context.sessions.sessions.read().await.len() >= max {
            return Ok(error(
                StatusCode::SERVICE_UNAVAILABLE,
                &messages::too_many_sessions(max),
            ));
        }
    }
    // The media type as rmcp compares it: before any parameter, ignoring case.
    let is_json = parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    let response = context
        .endpoint
        .clone()
        .call(Request::from_parts(parts, Full::new(Bytes::from(bytes))))
        .await?;
    if is_json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        // rmcp's answer to JSON that is not a JSON-RPC message.
        let reason = "its fields are not those of a request, notification or response";
        return Ok(error(StatusCode::BAD_REQUEST, &messages::not_a_message(reason)));
    }
    Ok(response)
}

/// The body, at most `max` bytes.
async fn read_body(mut body: Incoming, max: usize) -> Result<Vec<u8>, Response<Body>> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| error(StatusCode::BAD_REQUEST, &messages::unreadable_body(e)))?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > max {
                return Err(error(StatusCode::PAYLOAD_TOO_LARGE, &messages::too_large(max)));
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

/// Whether `body` is an `initialize` request (which opens a session).
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Peek<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Peek<'_>>(body).is_ok_and(|p| p.method.as_deref() == Some("initialize"))
}

/// The id of `body` when it is an `initialize` request carrying the stateless revision's
/// `_meta` (its protocol version `2026-07-28` or later).
fn modern_initialize(body: &[u8]) -> Option<serde_json::Value> {
    #[derive(serde::Deserialize)]
    struct Peek {
        id: Option<serde_json::Value>,
        method: Option<String>,
        params: Option<serde_json::Value>,
    }
    let peek = serde_json::from_slice::<Peek>(body).ok()?;
    let version = peek
        .params
        .as_ref()?
        .get("_meta")?
        .get(methods::META_PROTOCOL_VERSION)?
        .as_str()?;
    (peek.method.as_deref() == Some("initialize") && methods::is_stateless(version))
        .then(|| peek.id.unwrap_or(serde_json::Value::Null))
}

fn error(status: StatusCode, error: &super::rpc::RpcError) -> Response<Body> {
    error_for(status, error, &serde_json::Value::Null)
}

/// An error response to the request with this `id`.
fn error_for(status: StatusCode, error: &super::rpc::RpcError, id: &serde_json::Value) -> Response<Body> {
    let body = messages::response(error, id);
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The address `bind_http` printed in its URL.
fn endpoint_url(addr: std::net::SocketAddr) -> String {
    format!("http://{addr}/mcp")
}
