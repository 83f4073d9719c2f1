//! Who approves an authorization: an [`Authorizer`] takes the authorization URL to whoever
//! approves it and brings back the URL the authorization server redirected to.

use std::fmt;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// A boxed future that can be sent between threads (what an [`Authorizer`] returns).
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The longest request line and headers read from the browser on the loopback redirect.
const MAX_REQUEST_BYTES: usize = 16 << 10;

/// Takes an authorization URL to whoever approves it (a person in a browser, a program)
/// and returns the redirect the authorization server answered with: the redirect URI with
/// `code` and `state` (or `error`) in its query.
pub trait Authorizer: Send + Sync + fmt::Debug {
    /// The redirect URI carnet registers and asks the authorization server to send the
    /// approval to.
    fn redirect_uri(&self) -> String;
    /// Has `url` approved; the full redirect URL that came back.
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>>;
}

/// Approves without a person: requests the authorization URL and takes the redirect the
/// authorization server answers with. For authorization servers that approve a known
/// client at once (test servers, the MCP conformance suite's), not for a person's account.
#[derive(Debug, Clone)]
pub struct Redirects {
    redirect_uri: String,
    timeout: Duration,
}

impl Redirects {
    /// Registers `redirect_uri` and waits at most `timeout` for the authorization server.
    pub fn new(redirect_uri: impl Into<String>, timeout: Duration) -> Self {
        Redirects {
            redirect_uri: redirect_uri.into(),
            timeout,
        }
    }
}

impl Authorizer for Redirects {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let client = crate::remote::tls::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(self.timeout)
                .build()
                .map_err(|e| format!("no HTTP client: {e}"))?;
            let response = client
                .get(url)
                .send()
                .await
                .map_err(|e| format!("the authorization endpoint could not be reached: {}", e.without_url()))?;
            let status = response.status();
            response
                .headers()
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| format!("the authorization endpoint answered {status} without a redirect"))
        })
    }
}

/// Approval by a person in a browser: shows the authorization URL (through `show`) and
/// waits, at most `timeout`, for the browser's redirect to `http://127.0.0.1:PORT/callback`
/// on a port of its own (what `carnet mcp login` does).
pub struct Loopback {
    listener: std::sync::Mutex<Option<std::net::TcpListener>>,
    port: u16,
    timeout: Duration,
    show: Box<dyn Fn(&str) + Send + Sync>,
}

impl fmt::Debug for Loopback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loopback")
            .field("port", &self.port)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Loopback {
    /// Listens on a free loopback port (`port` 0) or on `port`.
    ///
    /// # Errors
    ///
    /// The port cannot be bound.
    pub fn bind(port: u16, timeout: Duration, show: impl Fn(&str) + Send + Sync + 'static) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Loopback {
            listener: std::sync::Mutex::new(Some(listener)),
            port,
            timeout,
            show: Box::new(show),
        })
    }

    /// Waits for a request to `/callback` with a `code` or an `error`; answers the others 404.
    async fn wait(&self, listener: &tokio::net::TcpListener) -> Result<String, String> {
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| format!("the loopback listener failed: {e}"))?;
            let mut buffer = vec![0_u8; MAX_REQUEST_BYTES];
            let mut read = 0;
            let head = loop {
                let n = match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer[read..])).await {
                    Ok(Ok(n)) if n > 0 => n,
                    _ => break None,
                };
                read += n;
                if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") || read == buffer.len() {
                    break Some(String::from_utf8_lossy(&buffer[..read]).into_owned());
                }
            };
            let target = head.as_deref().and_then(|h| {
                let mut words = h.lines().next()?.split(' ');
                (words.next()? == "GET").then_some(())?;
                words.next().map(str::to_owned)
            });
            let approved = target
                .as_deref()
                .filter(|t| t.starts_with("/callback?") && (t.contains("code=") || t.contains("error=")));
            let (status, body) = if approved.is_some() {
                ("200 OK", "carnet received the authorization: you can close this tab.")
            } else {
                ("404 Not Found", "not the authorization redirect")
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            if let Some(target) = approved {
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
        }
    }
}

impl Authorizer for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let listener = self
                .listener
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .ok_or("another authorization is waiting on the loopback listener")?;
            let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
            (self.show)(url);
            let outcome = tokio::time::timeout(self.timeout, self.wait(&listener)).await;
            // Kept for the next authorization (a step-up asks again).
            if let Ok(listener) = listener.into_std() {
                *self.listener.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(listener);
            }
            outcome.map_err(|_| {
                format!(
                    "no authorization arrived at {} within {} s",
                    self.redirect_uri(),
                    self.timeout.as_secs()
                )
            })?
        })
    }
}
