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
//! Outside calls, a host session is a [`Listener`]: the MCP server runs the requests it passes
//! through to a server (`resources/subscribe`, lists, reads) inside [`LISTENER`], and the
//! upstream client remembers the session, weakly, to send it what that server later says for
//! it: updates of the resources it subscribed to, and changes of the server's resource and
//! prompt lists. A session that ends is forgotten and its subscriptions dropped.
//!
//! The two sides meet only here, in JSON: neither imports the other.

use std::sync::Arc;

use serde_json::Value;

use crate::dispatch::BoxFuture;

tokio::task_local! {
    /// The host connection of the `tools/call` being run.
    pub(crate) static HOST: Arc<dyn Host>;
}

tokio::task_local! {
    /// The host session of the request being passed through to a server.
    pub(crate) static LISTENER: Arc<dyn Listener>;
}

/// The host connection of the call being run, if it runs inside an MCP server's `tools/call`.
pub(crate) fn current() -> Option<Arc<dyn Host>> {
    HOST.try_with(Arc::clone).ok()
}

/// The host session of the request being passed through, if one is (see [`LISTENER`]).
pub(crate) fn listener() -> Option<Arc<dyn Listener>> {
    LISTENER.try_with(Arc::clone).ok()
}

/// A JSON-RPC error answering a relayed request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RelayError {
    pub(crate) code: i32,
    pub(crate) message: String,
}

/// JSON-RPC's method-not-found.
pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
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
    /// Whether requests of client capability `name` (`sampling`, `elicitation`) can be sent
    /// to the host: it declared the capability, and [`Host::request`] reaches it.
    fn declares(&self, name: &str) -> bool;
    /// Whether the host declared client capability `name`, whether or not a request can reach
    /// it: at the stateless revision none can, and the MCP server asks for the input with an
    /// `input_required` result instead (`crate::mcp`'s waiting calls).
    fn declared(&self, name: &str) -> bool {
        self.declares(name)
    }
    /// The least severe log level the host wants (`logging/setLevel`); `None`: no log messages.
    fn log_level(&self) -> Option<usize>;
    /// Sends notification `method` with `params` to the host.
    fn notify(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()>;
    /// Sends request `method` with `params` to the host: its result, or its error.
    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>>;
    /// Whether this is a host connection of an MCP server (the gateway), which relays to its
    /// hosts the servers' sampling and elicitation requests: a server reached for one is
    /// connected declaring both capabilities (each call's host then takes them or not). A
    /// program's own answers in a host's place are not.
    fn relays(&self) -> bool {
        false
    }
}

/// One host session (an MCP connection at a revision with sessions), as a server's
/// notifications that answer no call see it.
pub(crate) trait Listener: Send + Sync {
    /// The session's number, unique in the process.
    fn id(&self) -> u64;
    /// Sends notification `method` with `params`, from the server of remote toolset `toolset`,
    /// to the host: only while that toolset is in reach of the session (nothing of a toolset
    /// reaches a session that has not loaded it).
    fn notify(&self, toolset: &str, method: &'static str, params: Value) -> BoxFuture<'static, ()>;
    /// Completes when the session ends (its connection closed), at once if it has.
    fn ended(&self) -> BoxFuture<'static, ()>;
}

/// The host of a request no MCP host made (a program's own call, or a request a host cannot be
/// sent anything for): it declares nothing and receives nothing. Such a request is registered
/// as a host's call is, so that what its server sends for it is never taken for another call's.
pub(crate) struct Unhosted;

impl Host for Unhosted {
    fn progress_token(&self) -> Option<Value> {
        None
    }

    fn declares(&self, _name: &str) -> bool {
        false
    }

    fn log_level(&self) -> Option<usize> {
        None
    }

    fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
        Box::pin(std::future::ready(()))
    }

    fn request(&self, method: &'static str, _params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let refused = RelayError {
            code: METHOD_NOT_FOUND,
            message: format!("no client takes `{method}` here"),
        };
        Box::pin(std::future::ready(Err(refused)))
    }
}
