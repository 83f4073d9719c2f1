//! What a remote tool's server sends during a call, relayed to the MCP host that made the
//! call: the gateway's pass-through (`carnet serve-mcp` in front of remote toolsets).
//!
//! The MCP server (`crate::mcp`) runs each `tools/call` inside [`HOST`], a task-local naming
//! the host connection that made it; the upstream client (`crate::remote`) reads it when it
//! calls the tool's server, and sends back through it what that server sends for the call:
//! progress (under the host's own progress token), log messages (at the level the host set),
//! and sampling and elicitation requests (when the host declared the capability), whose
//! answers go back to the server. A call outside an MCP server (a program's own loop) has no
//! host: nothing is relayed, and the server's requests are refused.
//!
//! The two sides meet only here, in JSON: neither imports the other.

use std::sync::Arc;

use serde_json::Value;

use crate::dispatch::BoxFuture;

tokio::task_local! {
    /// The host connection of the `tools/call` being run.
    pub(crate) static HOST: Arc<dyn Host>;
}

/// The host connection of the call being run, if it runs inside an MCP server's `tools/call`.
pub(crate) fn current() -> Option<Arc<dyn Host>> {
    HOST.try_with(Arc::clone).ok()
}

/// A JSON-RPC error answering a relayed request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RelayError {
    pub(crate) code: i32,
    pub(crate) message: String,
}

/// JSON-RPC's invalid-params.
pub(crate) const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's internal error.
pub(crate) const INTERNAL_ERROR: i32 = -32603;

/// The MCP log levels, least severe first (RFC 5424's, as MCP names them).
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Where `level` stands among [`LOG_LEVELS`]; `None` for a name MCP does not have.
pub(crate) fn log_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

/// One host connection, as a tool call sees it.
pub(crate) trait Host: Send + Sync {
    /// The progress token the host gave the call (`_meta.progressToken`), if any: progress is
    /// relayed only under it.
    fn progress_token(&self) -> Option<Value>;
    /// Whether the host declared client capability `name` (`sampling`, `elicitation`).
    fn declares(&self, name: &str) -> bool;
    /// The least severe log level the host wants (`logging/setLevel`); `None`: no log messages.
    fn log_level(&self) -> Option<usize>;
    /// Sends notification `method` with `params` to the host.
    fn notify(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()>;
    /// Sends request `method` with `params` to the host: its result, or its error.
    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>>;
}
