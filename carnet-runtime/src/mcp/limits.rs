//! [`HttpLimits`]: what the HTTP server of [`Server::bind_http`](super::Server::bind_http)
//! accepts, and for how long.

use std::time::Duration;

/// Limits of the HTTP server of [`Server::bind_http`](super::Server::bind_http), set with
/// [`Server::http_limits`](super::Server::http_limits).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use carnet_runtime::mcp::HttpLimits;
///
/// let limits = HttpLimits::default()
///     .with_max_sessions(1_000)
///     .with_session_idle(Duration::from_secs(600))
///     .with_allowed_origins(["https://app.example.com"])
///     .with_cors(true);
/// assert_eq!(limits.header_timeout, Duration::from_secs(10));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Time a client has to send a request's headers, from the moment the server waits for
    /// them; a slower one is disconnected (default 10 s).
    pub header_timeout: Duration,
    /// Time a client has to send a request's body once its headers are in; a slower one gets
    /// 408 (default 30 s).
    pub body_timeout: Duration,
    /// Sessions of the revisions with sessions (2025) held at once; an `initialize` beyond
    /// it gets 503 (default 10,000). The stateless revision holds none.
    pub max_sessions: usize,
    /// A session unused this long is ended and its memory freed (default 30 min).
    pub session_idle: Duration,
    /// Browser origins allowed to call the endpoint, as `scheme://host[:port]`, `:*` for any
    /// port, or `*` for any origin (default: `http` and `https` on `localhost`, `127.0.0.1`
    /// and `[::1]`, any port). A request with another `Origin` gets 403; requests without
    /// one (non-browser clients) pass.
    pub allowed_origins: Vec<String>,
    /// Whether to answer CORS preflights and add CORS headers for the allowed origins, so
    /// browser clients can call the endpoint (default `false`).
    pub cors: bool,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_sessions: 10_000,
            session_idle: Duration::from_mins(30),
            allowed_origins: ["http", "https"]
                .iter()
                .flat_map(|scheme| {
                    ["localhost", "127.0.0.1", "[::1]"]
                        .iter()
                        .map(move |host| format!("{scheme}://{host}:*"))
                })
                .collect(),
            cors: false,
        }
    }
}

impl HttpLimits {
    /// Sets [`HttpLimits::header_timeout`].
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`HttpLimits::body_timeout`].
    #[must_use]
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets [`HttpLimits::max_sessions`].
    #[must_use]
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Sets [`HttpLimits::session_idle`].
    #[must_use]
    pub fn with_session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Sets [`HttpLimits::allowed_origins`].
    #[must_use]
    pub fn with_allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`HttpLimits::cors`].
    #[must_use]
    pub fn with_cors(mut self, cors: bool) -> Self {
        self.cors = cors;
        self
    }

    /// Whether a request with `Origin: origin` may be served.
    pub(super) fn allows(&self, origin: &str) -> bool {
        let origin = origin.to_ascii_lowercase();
        self.allowed_origins.iter().any(|entry| {
            let entry = entry.to_ascii_lowercase();
            if entry == "*" || entry == origin {
                return true;
            }
            entry.strip_suffix(":*").is_some_and(|prefix| {
                origin == prefix
                    || origin
                        .strip_prefix(prefix)
                        .and_then(|rest| rest.strip_prefix(':'))
                        .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
            })
        })
    }
}
