//! [`Limits`]: what the A2A server accepts, holds, and for how long.

use std::time::Duration;

/// Limits of an A2A [`Server`](super::Server), set with
/// [`Server::limits`](super::Server::limits).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use carnet_runtime::a2a::Limits;
///
/// let limits = Limits::default()
///     .with_max_contexts(500)
///     .with_context_idle(Duration::from_secs(600))
///     .with_task_timeout(Duration::from_secs(120))
///     .with_allowed_origins(["https://app.example.com"]);
/// assert_eq!(limits.max_request_bytes, 1024 * 1024);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Limits {
    /// Time a client has to send a request's headers; a slower one is disconnected
    /// (default 10 s).
    pub header_timeout: Duration,
    /// Time a client has to send a request's body once its headers are in; a slower one gets
    /// 408 (default 30 s).
    pub body_timeout: Duration,
    /// The largest request body read; a larger one gets 413 (default 1 MiB).
    pub max_request_bytes: usize,
    /// The most characters of text one message may bring (its text and data parts); a longer
    /// one is refused with `InvalidParamsError` (default 100,000).
    pub max_message_chars: usize,
    /// Tasks held at once by the default store, finished ones included: beyond it, the
    /// finished task updated longest ago is forgotten, and a new task is refused while every
    /// task held is unfinished (default 10,000).
    pub max_tasks: usize,
    /// How long a finished task stays readable (default 1 h).
    pub task_ttl: Duration,
    /// Conversations (A2A contexts, one carnet session each) held at once: beyond it, the
    /// one unused longest is ended, and a new one is refused while every one is busy
    /// (default 1,000).
    pub max_contexts: usize,
    /// A context unused this long is ended and its session freed; a later message naming
    /// it starts a new conversation (default 30 min).
    pub context_idle: Duration,
    /// The most chat messages (user, model, tool results) one conversation keeps: a message
    /// to a longer one fails its task, asking for a new context (default 2,000).
    pub max_context_messages: usize,
    /// The longest one message may run (model calls and tool calls); then its task fails
    /// (default 10 min).
    pub task_timeout: Duration,
    /// Model calls per message before the task stops and asks for input (default 12).
    pub max_steps: usize,
    /// Browser origins allowed to call the server, as `scheme://host[:port]`, `:*` for any
    /// port, or `*` for any origin (default: `http` and `https` on `localhost`, `127.0.0.1`
    /// and `[::1]`, any port). A request with another `Origin` gets 403; requests without
    /// one (non-browser clients) pass. The agent card is readable from any origin.
    pub allowed_origins: Vec<String>,
    /// Whether to answer CORS preflights and add CORS headers for the allowed origins, so
    /// browser clients can call the server (default `false`).
    pub cors: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_request_bytes: 1024 * 1024,
            max_message_chars: 100_000,
            max_tasks: 10_000,
            task_ttl: Duration::from_hours(1),
            max_contexts: 1_000,
            context_idle: Duration::from_mins(30),
            max_context_messages: 2_000,
            task_timeout: Duration::from_mins(10),
            max_steps: 12,
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

impl Limits {
    /// Sets [`Limits::header_timeout`].
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`Limits::body_timeout`].
    #[must_use]
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets [`Limits::max_request_bytes`].
    #[must_use]
    pub fn with_max_request_bytes(mut self, max: usize) -> Self {
        self.max_request_bytes = max;
        self
    }

    /// Sets [`Limits::max_message_chars`].
    #[must_use]
    pub fn with_max_message_chars(mut self, max: usize) -> Self {
        self.max_message_chars = max;
        self
    }

    /// Sets [`Limits::max_tasks`].
    #[must_use]
    pub fn with_max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max;
        self
    }

    /// Sets [`Limits::task_ttl`].
    #[must_use]
    pub fn with_task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Sets [`Limits::max_contexts`].
    #[must_use]
    pub fn with_max_contexts(mut self, max: usize) -> Self {
        self.max_contexts = max;
        self
    }

    /// Sets [`Limits::context_idle`].
    #[must_use]
    pub fn with_context_idle(mut self, idle: Duration) -> Self {
        self.context_idle = idle;
        self
    }

    /// Sets [`Limits::max_context_messages`].
    #[must_use]
    pub fn with_max_context_messages(mut self, max: usize) -> Self {
        self.max_context_messages = max;
        self
    }

    /// Sets [`Limits::task_timeout`].
    #[must_use]
    pub fn with_task_timeout(mut self, timeout: Duration) -> Self {
        self.task_timeout = timeout;
        self
    }

    /// Sets [`Limits::max_steps`].
    #[must_use]
    pub fn with_max_steps(mut self, max: usize) -> Self {
        self.max_steps = max;
        self
    }

    /// Sets [`Limits::allowed_origins`].
    #[must_use]
    pub fn with_allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`Limits::cors`].
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
