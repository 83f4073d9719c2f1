//! The host connection a `tools/call` came from, as [`crate::relay`] sees it: where a remote
//! tool's server's progress, log messages and requests for the call are sent.
//!
//! - Progress goes out under the host's own progress token, and only when it gave one.
//! - Log messages go out at or above the level the host set (`logging/setLevel`, or at the
//!   stateless revision the request's `io.modelcontextprotocol/logLevel`); none before it set
//!   one.
//! - Sampling and elicitation requests go out when the host declared the capability, in a
//!   revision with sessions; otherwise they are refused as a client without the capability
//!   refuses them (`-32601`). At the stateless revision no request reaches a host: the call
//!   waits and the host is asked with an `input_required` result ([`super::waiting`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::dispatch::BoxFuture;
use crate::relay::{Host, RelayError, log_rank};

/// A log level no message reaches: the host set none.
pub(super) const NO_LOGS: usize = usize::MAX;

/// The level a connection's host set with `logging/setLevel` (a rank of
/// [`crate::relay::LOG_LEVELS`]; [`NO_LOGS`] until it sets one).
#[derive(Debug)]
pub(super) struct LogLevel(AtomicUsize);

impl Default for LogLevel {
    fn default() -> Self {
        LogLevel(AtomicUsize::new(NO_LOGS))
    }
}

impl LogLevel {
    /// Sets the level named `level`; `false` when MCP has no such level.
    pub(super) fn set(&self, level: &str) -> bool {
        log_rank(level)
            .inspect(|rank| self.0.store(*rank, Ordering::Relaxed))
            .is_some()
    }

    pub(super) fn get(&self) -> Option<usize> {
        Some(self.0.load(Ordering::Relaxed)).filter(|rank| *rank != NO_LOGS)
    }
}

/// A host connection served by rmcp (streamable HTTP).
#[cfg(feature = "mcp-http")]
pub(super) struct RmcpHost {
    peer: rmcp::Peer<rmcp::RoleServer>,
    token: Option<Value>,
    capabilities: Value,
    /// Whether the request is of the stateless revision (no requests to the host).
    stateless: bool,
    level: Option<usize>,
}

#[cfg(feature = "mcp-http")]
impl RmcpHost {
    /// The host of the request `context`; `level` is the connection's log level.
    pub(super) fn of(
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
        level: &LogLevel,
        stateless: bool,
    ) -> Arc<dyn Host> {
        let capabilities = context
            .client_capabilities()
            .and_then(|c| serde_json::to_value(c).ok())
            .unwrap_or(Value::Null);
        let level = if stateless {
            // The stateless revision sets it per request.
            context
                .meta
                .0
                .get("io.modelcontextprotocol/logLevel")
                .and_then(Value::as_str)
                .and_then(log_rank)
        } else {
            level.get()
        };
        Arc::new(RmcpHost {
            peer: context.peer.clone(),
            token: context
                .meta
                .get_progress_token()
                .and_then(|t| serde_json::to_value(t).ok()),
            capabilities,
            stateless,
            level,
        })
    }
}

#[cfg(feature = "mcp-http")]
impl Host for RmcpHost {
    fn progress_token(&self) -> Option<Value> {
        self.token.clone()
    }

    fn declares(&self, name: &str) -> bool {
        !self.stateless && self.declared(name)
    }

    fn declared(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(Value::is_object)
    }

    fn relays(&self) -> bool {
        true
    }

    fn log_level(&self) -> Option<usize> {
        self.level
    }

    fn notify(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
        let peer = self.peer.clone();
        Box::pin(async move {
            let message = serde_json::json!({ "method": method, "params": params });
            if let Ok(notification) = serde_json::from_value::<rmcp::model::ServerNotification>(message) {
                // A host gone away is not the call's failure.
                let _ = peer.send_notification(notification).await;
            }
        })
    }

    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let peer = self.peer.clone();
        Box::pin(async move {
            let message = serde_json::json!({ "method": method, "params": params });
            let request = serde_json::from_value::<rmcp::model::ServerRequest>(message).map_err(|e| RelayError {
                code: crate::relay::INVALID_PARAMS,
                message: format!("the server's `{method}` request cannot be relayed: {e}"),
            })?;
            match peer.send_request(request).await {
                Ok(result) => serde_json::to_value(result).map_err(|e| RelayError {
                    code: crate::relay::INTERNAL_ERROR,
                    message: format!("the client's answer cannot be read: {e}"),
                }),
                Err(rmcp::ServiceError::McpError(error)) => Err(RelayError {
                    code: error.code.0,
                    message: error.message.into_owned(),
                }),
                Err(error) => Err(RelayError {
                    code: crate::relay::INTERNAL_ERROR,
                    message: format!("the client did not answer: {error}"),
                }),
            }
        })
    }
}

/// Writes one line to a byte-stream client.
pub(super) type SendLine = Arc<dyn Fn(Vec<u8>) -> BoxFuture<'static, ()> + Send + Sync>;

/// The requests a byte-stream server sent its client and awaits answers to, by id.
#[derive(Default)]
pub(super) struct Pending {
    next: std::sync::atomic::AtomicU64,
    waiting: std::sync::Mutex<HashMap<String, oneshot::Sender<Result<Value, RelayError>>>>,
}

impl Pending {
    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Result<Value, RelayError>>>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Delivers the client's response to request `id`: its `result`, or its `error`. A
    /// response to no request of this server's is ignored, as JSON-RPC asks.
    pub(super) fn answer(&self, id: &Value, result: Option<Value>, error: Option<&Value>) {
        let Some(waiting) = self.waiting().remove(&id.to_string()) else {
            return;
        };
        let outcome = match (result, error) {
            (Some(result), None) => Ok(result),
            (_, error) => Err(RelayError {
                code: error
                    .and_then(|e| e["code"].as_i64())
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or(crate::relay::INTERNAL_ERROR),
                message: error
                    .and_then(|e| e["message"].as_str())
                    .unwrap_or("the client answered with neither a result nor an error")
                    .to_owned(),
            }),
        };
        let _ = waiting.send(outcome);
    }
}

/// Forgets a request whose answer is no longer awaited.
struct Waiting {
    pending: Arc<Pending>,
    id: String,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.pending.waiting().remove(&self.id);
    }
}

/// A byte-stream (stdio) client connection.
pub(super) struct StreamHost {
    pub(super) send: SendLine,
    pub(super) pending: Arc<Pending>,
    pub(super) token: Option<Value>,
    pub(super) capabilities: Value,
    pub(super) stateless: bool,
    pub(super) level: Option<usize>,
}

impl Host for StreamHost {
    fn progress_token(&self) -> Option<Value> {
        self.token.clone()
    }

    fn declares(&self, name: &str) -> bool {
        !self.stateless && self.declared(name)
    }

    fn declared(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(Value::is_object)
    }

    fn relays(&self) -> bool {
        true
    }

    fn log_level(&self) -> Option<usize> {
        self.level
    }

    fn notify(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
        let line = json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string() + "\n";
        (self.send)(line.into_bytes())
    }

    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let pending = Arc::clone(&self.pending);
        let send = Arc::clone(&self.send);
        Box::pin(async move {
            let id = format!("carnet-{}", pending.next.fetch_add(1, Ordering::Relaxed));
            let (answer, answered) = oneshot::channel();
            let key = Value::String(id.clone()).to_string();
            pending.waiting().insert(key.clone(), answer);
            let _waiting = Waiting { pending, id: key };
            let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string() + "\n";
            send(line.into_bytes()).await;
            answered.await.unwrap_or_else(|_| {
                Err(RelayError {
                    code: crate::relay::INTERNAL_ERROR,
                    message: "the client went away before answering".to_owned(),
                })
            })
        })
    }
}
