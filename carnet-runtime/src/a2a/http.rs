//! The A2A server over HTTP/1 on a loopback address: the agent card, the JSON-RPC binding
//! at `/`, the HTTP+JSON binding's routes, SSE streams; request bodies bounded in size and
//! time, an `Origin` allow-list.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use a2a_types::{A2AError, StreamResponse};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue, ORIGIN, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::mpsc;

use super::methods::Events;
use super::shared::Shared;
use super::{jsonrpc, rest, retry};

type Body = BoxBody<Bytes, Infallible>;

/// Where the agent card is served.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The header naming the protocol version a request speaks.
const VERSION_HEADER: &str = "a2a-version";
/// A stream with nothing to say sends an SSE comment this often, so that proxies and
/// clients do not take it for dead.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A bound A2A server (`http://ADDR`); made by [`Server::bind`](super::Server::bind).
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    shared: Arc<Shared>,
    public_url: Option<String>,
}

impl HttpServer {
    pub(super) async fn bind(shared: Arc<Shared>, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        let mut last = None;
        for addr in tokio::net::lookup_host(addr).await? {
            if !addr.ip().is_loopback() {
                last = Some(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{addr} is not a loopback address: the A2A server has no authentication; put it \
                         behind a proxy that authenticates to serve remote clients"
                    ),
                ));
                continue;
            }
            match TcpListener::bind(addr).await {
                Ok(listener) => {
                    return Ok(HttpServer {
                        listener,
                        shared,
                        public_url: None,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the address resolved to nothing")))
    }

    /// The address bound (useful after binding port 0).
    ///
    /// # Errors
    ///
    /// When the socket's address cannot be read.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The server's URL, `http://ADDR`: the JSON-RPC endpoint, and the base of the
    /// HTTP+JSON routes.
    #[must_use]
    pub fn url(&self) -> String {
        self.listener
            .local_addr()
            .map_or_else(|_| "http://localhost".to_owned(), |addr| format!("http://{addr}"))
    }

    /// Sets the URL the agent card names (default [`HttpServer::url`]): a proxy's, say.
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// The agent card this server serves.
    #[must_use]
    pub fn card(&self) -> serde_json::Value {
        let url = self.public_url.clone().unwrap_or_else(|| self.url());
        let shared = &self.shared;
        super::card::agent_card(shared.carnet.manifest(), &shared.agent, &url, &shared.version)
            .unwrap_or(serde_json::Value::Null)
    }

    /// Serves until the process ends.
    ///
    /// # Errors
    ///
    /// As [`HttpServer::run_until`].
    pub async fn run(self) -> io::Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then stops accepting connections (requests and
    /// tasks in flight finish on their own tasks).
    ///
    /// # Errors
    ///
    /// When the listener's address cannot be read.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> io::Result<()> {
        // Generic over `shutdown`, so compiled in the caller's crate: only the accept loop is
        // here, what serves a connection is compiled once, in carnet.
        let (context, builder) = self.prepare()?;
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let Some(accepted) = crate::cancel::unless(shutdown.as_mut(), self.listener.accept()).await else {
                break;
            };
            match accepted {
                Ok((stream, _)) => serve_connection(&context, &builder, stream),
                // Out of file descriptors or a connection reset before accept: wait a moment.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
        Ok(())
    }

    fn prepare(&self) -> io::Result<(Arc<Context>, hyper::server::conn::http1::Builder)> {
        self.listener.local_addr()?;
        let card = serde_json::to_vec_pretty(&self.card())
            .map(Bytes::from)
            .unwrap_or_default();
        let context = Arc::new(Context {
            shared: self.shared.clone(),
            card,
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.shared.limits.header_timeout);
        Ok((context, builder))
    }
}

struct Context {
    shared: Arc<Shared>,
    card: Bytes,
}

fn serve_connection(
    context: &Arc<Context>,
    builder: &hyper::server::conn::http1::Builder,
    stream: tokio::net::TcpStream,
) {
    // SSE events go out one by one: without this, Nagle's algorithm meets the client's
    // delayed ACK and each waits 40 ms.
    let _ = stream.set_nodelay(true);
    let context = context.clone();
    let service = hyper::service::service_fn(move |request| {
        let context = context.clone();
        async move { Ok::<_, Infallible>(handle(&context, request).await) }
    });
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::spawn(async move {
        let _ = connection.await;
    });
}

/// One request: the card; then the `Origin` check, the body (bounded), and the binding
/// the path names.
async fn handle(context: &Context, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path().to_owned();
    if path == AGENT_CARD_PATH {
        return agent_card(context, request.method());
    }
    let is_rest = rest::is_route(&path);
    if path != "/" && !is_rest {
        return plain_error(
            StatusCode::NOT_FOUND,
            &format!("nothing is served at {path}: the A2A endpoint is `/`, the card at {AGENT_CARD_PATH}"),
        );
    }
    let origin = request
        .headers()
        .get(ORIGIN)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    if let Some(origin) = &origin
        && !context.shared.limits.allows(origin)
    {
        return plain_error(
            StatusCode::FORBIDDEN,
            &format!("requests from the origin `{origin}` are not allowed"),
        );
    }
    let cors = origin.filter(|_| context.shared.limits.cors);
    if request.method() == Method::OPTIONS
        && let Some(origin) = &cors
    {
        let mut response = Response::new(Full::new(Bytes::new()).boxed());
        *response.status_mut() = StatusCode::NO_CONTENT;
        add_cors(&mut response, origin, true);
        return response;
    }
    let mut response = serve(context, request, &path, is_rest).await;
    if let Some(origin) = &cors {
        add_cors(&mut response, origin, false);
    }
    response
}

/// CORS headers for an allowed `origin` (and, for a preflight, what it may send).
fn add_cors(response: &mut Response<Body>, origin: &str, preflight: bool) {
    let Ok(origin) = HeaderValue::from_str(origin) else {
        return;
    };
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("access-control-allow-origin"), origin);
    headers.insert(HeaderName::from_static("vary"), HeaderValue::from_static("Origin"));
    if preflight {
        headers.insert(
            HeaderName::from_static("access-control-allow-methods"),
            HeaderValue::from_static("GET, POST, OPTIONS"),
        );
        headers.insert(
            HeaderName::from_static("access-control-allow-headers"),
            HeaderValue::from_static("content-type, accept, authorization, a2a-version, a2a-extensions, last-event-id"),
        );
        headers.insert(
            HeaderName::from_static("access-control-max-age"),
            HeaderValue::from_static("600"),
        );
    }
}

/// A request of either binding, its origin allowed.
async fn serve(context: &Context, request: Request<Incoming>, path: &str, is_rest: bool) -> Response<Body> {
    let version = request
        .headers()
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = request.method().clone();
    let query = request.uri().query().map(str::to_owned);
    if !is_rest && method != Method::POST {
        return plain_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "the JSON-RPC endpoint takes POST requests",
        );
    }
    let json_body = is_json(&request);
    let limits = &context.shared.limits;
    let body = match tokio::time::timeout(
        limits.body_timeout,
        read_body(request.into_body(), limits.max_request_bytes),
    )
    .await
    {
        Ok(Ok(body)) => body,
        Ok(Err(BodyError::TooLarge)) => {
            let error = A2AError::invalid_request(format!(
                "the body is larger than {} bytes, the most this server reads",
                limits.max_request_bytes
            ));
            return json_error(StatusCode::PAYLOAD_TOO_LARGE, &error, is_rest);
        }
        Ok(Err(BodyError::Unreadable(e))) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                &A2AError::invalid_request(format!("the body could not be read: {e}")),
                is_rest,
            );
        }
        Err(_) => {
            let error = A2AError::invalid_request(format!(
                "the body did not arrive within {} s",
                limits.body_timeout.as_secs()
            ));
            let mut response = json_error(StatusCode::REQUEST_TIMEOUT, &error, is_rest);
            response
                .headers_mut()
                .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    // A body must say it is JSON; an empty one (`POST /tasks/{id}:cancel`) need not.
    if method == Method::POST && !json_body && !(is_rest && body.is_empty()) {
        let error = A2AError::invalid_request("the body must be JSON: send `Content-Type: application/json`");
        return json_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, &error, is_rest);
    }
    let shared = &context.shared;
    if is_rest {
        match rest::handle(shared, &method, path, query.as_deref(), version.as_deref(), &body).await {
            rest::Answer::Json(status, body) => {
                let mut response = json(status, body);
                if status == StatusCode::SERVICE_UNAVAILABLE {
                    response
                        .headers_mut()
                        .insert(RETRY_AFTER, HeaderValue::from(retry::DELAY.as_secs()));
                }
                response
            }
            rest::Answer::Stream(events) => sse(events, |event| serde_json::to_vec(event).unwrap_or_default()),
        }
    } else {
        match jsonrpc::handle(shared, version.as_deref(), &body).await {
            jsonrpc::Answer::Json(body) => json(StatusCode::OK, body),
            jsonrpc::Answer::Stream(id, events) => sse(events, move |event| jsonrpc::event(&id, event)),
        }
    }
}

fn is_json(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// `GET` of the agent card, readable from any origin (it is public by nature).
fn agent_card(context: &Context, method: &Method) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        return plain_error(StatusCode::METHOD_NOT_ALLOWED, "the agent card is read with GET");
    }
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        context.card.clone()
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

enum BodyError {
    TooLarge,
    Unreadable(hyper::Error),
}

/// The body, at most `max` bytes.
async fn read_body(mut body: Incoming, max: usize) -> Result<Vec<u8>, BodyError> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(BodyError::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > max {
                return Err(BodyError::TooLarge);
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

fn json(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// An error before the request reached a binding: as the binding would say it.
fn json_error(status: StatusCode, error: &A2AError, rest: bool) -> Response<Body> {
    if rest {
        json(status, rest::error(error).1)
    } else {
        json(status, jsonrpc::error(a2a_types::JsonRpcId::Null, error))
    }
}

/// An error outside both bindings (no such path, a refused origin), as a `google.rpc.Status`
/// body.
fn plain_error(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"error": {
        "code": status.as_u16(),
        "status": status.canonical_reason().unwrap_or_default(),
        "message": message,
    }});
    json(status, serde_json::to_vec(&body).unwrap_or_default())
}

/// The events as an SSE stream, each `data:` line what `render` makes of one; written by a
/// task of its own that ends when the events do or the client goes.
fn sse(mut events: Box<Events>, render: impl Fn(&StreamResponse) -> Vec<u8> + Send + 'static) -> Response<Body> {
    let (sender, receiver) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        loop {
            let next = tokio::time::timeout(KEEP_ALIVE, events.next()).await;
            let frame = match next {
                Ok(Some(event)) => {
                    let mut frame = b"data: ".to_vec();
                    frame.extend_from_slice(&render(&event));
                    frame.extend_from_slice(b"\n\n");
                    Bytes::from(frame)
                }
                Ok(None) => break,
                Err(_) => Bytes::from_static(b": keep-alive\n\n"),
            };
            if sender.send(frame).await.is_err() {
                // The client went away.
                break;
            }
        }
    });
    let mut response = Response::new(SseBody(receiver).boxed());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(hyper::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A body whose frames come from a channel.
struct SseBody(mpsc::Receiver<Bytes>);

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|frame| frame.map(|bytes| Ok(Frame::data(bytes))))
    }
}
