//! Streamable HTTP on a loopback address: rmcp's session-per-client service behind hyper,
//! with JSON-RPC error bodies for what cannot be read.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;
use tower_service::Service as _;

use super::{Connection, Server, endpoint_url, messages};

type Endpoint = rmcp::transport::StreamableHttpService<Connection, LocalSessionManager>;
type Body = BoxBody<Bytes, Infallible>;

/// A bound streamable HTTP endpoint (`http://ADDR/mcp`); made by
/// [`Server::bind_http`](super::Server::bind_http).
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    server: Server,
    shutdown: CancellationToken,
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
        let max = self.server.shared.max_message_bytes;
        // rmcp checks `Host` against loopback names; the address bound may be another one.
        let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
        let ip = self.listener.local_addr()?.ip().to_string();
        if !hosts.contains(&ip) {
            hosts.push(ip);
        }
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_cancellation_token(self.shutdown.child_token())
            .with_max_request_body_bytes(max);
        let endpoint = self.server.http_service(config);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let stream = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    // Out of file descriptors or a connection reset before accept: the
                    // listener itself is fine, so wait a moment and go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let endpoint = endpoint.clone();
            let service = hyper::service::service_fn(move |request| handle(endpoint.clone(), max, request));
            tokio::spawn(async move {
                // A client hanging up mid-request is that connection's end, not the server's.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
        self.shutdown.cancel();
        Ok(())
    }
}

/// One HTTP request: POST bodies are read here (bounded) and checked to be JSON, so that an
/// oversized or malformed message gets a JSON-RPC error body; then rmcp serves it.
async fn handle(mut endpoint: Endpoint, max: usize, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    if request.uri().path() != "/mcp" {
        return Ok(error(
            StatusCode::NOT_FOUND,
            &messages::not_the_endpoint(request.uri().path()),
        ));
    }
    if request.method() == Method::DELETE {
        // rmcp ends the session before answering 202; say so the way clients expect.
        let mut response = endpoint.call(request).await?;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return Ok(response);
    }
    if request.method() != Method::POST {
        return endpoint.call(request).await;
    }
    let (parts, mut body) = request.into_parts();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => return Ok(error(StatusCode::BAD_REQUEST, &messages::unreadable_body(e))),
        };
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > max {
                return Ok(error(StatusCode::PAYLOAD_TOO_LARGE, &messages::too_large(max)));
            }
            bytes.extend_from_slice(&data);
        }
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        return Ok(error(StatusCode::BAD_REQUEST, &messages::not_json(e)));
    }
    // The media type as rmcp compares it: before any parameter, ignoring case.
    let is_json = parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    let response = endpoint
        .call(Request::from_parts(parts, Full::new(Bytes::from(bytes))))
        .await?;
    if is_json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        // rmcp's answer to JSON that is not a JSON-RPC message.
        let reason = "its fields are not those of a request, notification or response";
        return Ok(error(StatusCode::BAD_REQUEST, &messages::not_a_message(reason)));
    }
    Ok(response)
}

fn error(status: StatusCode, error: &rmcp::ErrorData) -> Response<Body> {
    let body = messages::response(error, &serde_json::Value::Null);
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
