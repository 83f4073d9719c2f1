//! Reaching a remote toolset's server: starting its process (stdio) or its HTTP transport,
//! signing in (feature `remote-oauth`), and the `initialize` handshake.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::service::{RoleClient, RunningService};

use super::{ChildGuard, Handler};
use crate::remote::server::Server;
use crate::remote::tls;

/// How a connection over HTTP signs in (feature `remote-oauth`): the options, and the
/// toolset whose pre-registered client or client credentials apply.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "remote-oauth"), derive(Default))]
pub(crate) struct Access<'a> {
    #[cfg(feature = "remote-oauth")]
    pub(crate) oauth: &'a crate::remote::oauth::options::OAuth,
    #[cfg(feature = "remote-oauth")]
    pub(crate) toolset: &'a str,
    #[cfg(not(feature = "remote-oauth"))]
    _options: std::marker::PhantomData<&'a ()>,
}

#[cfg(feature = "remote-oauth")]
static DEFAULT_OAUTH: std::sync::LazyLock<crate::remote::oauth::options::OAuth> =
    std::sync::LazyLock::new(Default::default);

#[cfg(feature = "remote-oauth")]
impl Default for Access<'static> {
    /// The tokens of the default store, for no toolset in particular (`carnet mcp pin`).
    fn default() -> Self {
        Access {
            oauth: &DEFAULT_OAUTH,
            toolset: "",
        }
    }
}

/// Starts (stdio) or reaches (HTTP) `server` and runs the `initialize` handshake, signing
/// in over HTTP with the default store's tokens (feature `remote-oauth`).
///
/// `written` is the description as written (`${VAR}` unresolved): messages name it, never
/// the resolved values, which may hold secrets.
pub(crate) async fn connect(
    server: &Server,
    written: &Server,
    handler: Handler,
    max_message_bytes: usize,
) -> Result<(RunningService<RoleClient, Handler>, Option<ChildGuard>), String> {
    connect_with(server, written, handler, max_message_bytes, Access::default()).await
}

/// [`connect`], signing in over HTTP as `access` says.
pub(crate) async fn connect_with(
    server: &Server,
    written: &Server,
    handler: Handler,
    max_message_bytes: usize,
    #[cfg_attr(
        not(feature = "remote-oauth"),
        expect(unused_variables, reason = "HTTP signs in with `remote-oauth`")
    )]
    access: Access<'_>,
) -> Result<(RunningService<RoleClient, Handler>, Option<ChildGuard>), String> {
    match server {
        Server::Stdio { command, args, env } => {
            let mut child = tokio::process::Command::new(command);
            child
                .args(args)
                .envs(env)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                // The server's log joins ours: nothing it says is lost.
                .stderr(std::process::Stdio::inherit())
                .kill_on_drop(true);
            let mut child = child
                .spawn()
                .map_err(|e| format!("`{written}` could not be started: {e}"))?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err("the server's stdio could not be opened".into());
            };
            let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(stdout, stdin)
                .with_max_line_length(max_message_bytes);
            let service = rmcp::serve_client(handler, transport)
                .await
                .map_err(|e| format!("the `initialize` handshake failed: {e}"))?;
            // The child lives as long as the connection: dropping the connection (its
            // `kill` sender) kills it, and its exit is seen before the next call.
            let exited = Arc::new(AtomicBool::new(false));
            let (kill, killed) = tokio::sync::oneshot::channel::<()>();
            let seen = Arc::clone(&exited);
            tokio::spawn(async move {
                if crate::cancel::unless(killed, child.wait()).await.is_none() {
                    let _ = child.kill().await;
                }
                seen.store(true, Ordering::Release);
            });
            Ok((service, Some(ChildGuard { exited, _kill: kill })))
        }
        Server::Http { url, headers } => {
            use rmcp::transport::StreamableHttpClientTransport;
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name = http::HeaderName::try_from(name.as_str())
                    .map_err(|_| "a header name is not valid in HTTP".to_owned())?;
                let value = http::HeaderValue::try_from(value.as_str())
                    .map_err(|_| format!("the value of header `{name}` is not valid in HTTP"))?;
                custom.insert(name, value);
            }
            tls::check(url, &format!("`{written}`"))?;
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            config.max_sse_event_size = max_message_bytes;
            // Why it failed, down to the cause (a refused certificate, a refused connection),
            // with the server named as written: the resolved URL may hold a secret.
            let handshake = |e: rmcp::service::ClientInitializeError| {
                let why = handshake_causes(&e).replace(url.as_str(), &written.to_string());
                format!("the `initialize` handshake with `{written}` failed: {why}")
            };
            // A server given an `Authorization` header of its own is not signed in to.
            #[cfg(feature = "remote-oauth")]
            if !config.custom_headers.contains_key(&http::header::AUTHORIZATION) {
                #[cfg(feature = "remote-tls")]
                tls::default_provider_if_none();
                // A sign-in's messages name the server by its URL: as written here too.
                let as_written = |message: String| message.replace(url.as_str(), &written.to_string());
                let client = crate::remote::oauth::client::http_client(url, access.oauth, access.toolset)
                    .await
                    .map_err(as_written)?;
                let transport = StreamableHttpClientTransport::with_client(client.clone(), config);
                let service = rmcp::serve_client(handler, transport)
                    .await
                    .map_err(|e| client.failure().map_or_else(|| handshake(e), as_written))?;
                return Ok((service, None));
            }
            // No idle connection kept: reusing one whose last answer was not read to its end
            // stalls on TCP's delayed ACK (rmcp's own default client does the same).
            let client = tls::builder()
                .pool_max_idle_per_host(0)
                .build()
                .map_err(|e| format!("no HTTP client for `{written}`: {}", causes(&e)))?;
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let service = rmcp::serve_client(handler, transport).await.map_err(handshake)?;
            Ok((service, None))
        }
    }
}

/// `error`'s message followed by those of its sources that it does not already say (an HTTP
/// client's "error sending request" hides why: the certificate, the refused connection).
fn causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    add_sources(&mut message, error);
    message
}

/// Adds to `message` the messages of `error`'s sources that it does not already say.
fn add_sources(message: &mut String, error: &dyn std::error::Error) {
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
}

/// Why the `initialize` handshake over HTTP failed, down to the HTTP client's causes: rmcp
/// keeps its transport's error as a message only (not a source), so the reqwest error is
/// found by its type, and its sources (a refused certificate, a refused connection) added.
fn handshake_causes(error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut message = causes(error);
    if let rmcp::service::ClientInitializeError::TransportError { error, .. } = error
        && let Some(StreamableHttpError::Client(http)) =
            error.error.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        add_sources(&mut message, http);
    }
    message
}
