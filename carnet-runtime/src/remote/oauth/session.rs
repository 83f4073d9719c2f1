//! One remote toolset's server outside an engine: connected, listed and called through the
//! engine's own client (its connection, its sign-in, its relay), for `carnet mcp login` and
//! for programs that talk to a server directly.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::authorizer::BoxFuture;
use crate::engine::options::RemoteOptions;
use crate::relay::{self, Host, RelayError};
use crate::remote::server::Server;
use crate::remote::upstream::{Upstream, result_json};

/// Answers a server's `elicitation/create` request: its `params` in, the result
/// (`{"action": "accept", "content": {...}}`, `decline` or `cancel`) out.
pub type ElicitationHandler = Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Value, String>> + Send + Sync>;

/// A connection to the server of remote toolset `toolset`, made as the engine makes it
/// (signed in as [`RemoteOptions::oauth`] says).
pub struct ServerSession {
    upstream: Upstream,
    elicitation: Option<ElicitationHandler>,
}

impl std::fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSession")
            .field("toolset", &self.upstream.toolset)
            .field("elicitation", &self.elicitation.is_some())
            .finish_non_exhaustive()
    }
}

impl ServerSession {
    /// A session with the server of `toolset`, described by `server`; connected on first use.
    pub fn new(toolset: impl Into<String>, server: Server, options: RemoteOptions) -> Self {
        let toolset = toolset.into();
        ServerSession {
            upstream: Upstream::new(toolset.clone(), toolset, server, HashMap::new(), options),
            elicitation: None,
        }
    }

    /// Answers the server's elicitation requests during calls with `handler` (without one
    /// they are refused: the client capability is not there for them).
    #[must_use]
    pub fn on_elicitation(mut self, handler: ElicitationHandler) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Connects (signing in if the server requires it and the options allow) and lists the
    /// server's tools: their names.
    ///
    /// # Errors
    ///
    /// The server cannot be reached, refuses the sign-in, or does not list its tools.
    pub async fn tools(&self) -> Result<Vec<Value>, String> {
        let result = self
            .upstream
            .forward("tools/list", serde_json::json!({}))
            .await
            .map_err(|(_, message)| message)?;
        Ok(result["tools"].as_array().cloned().unwrap_or_default())
    }

    /// Calls `tool` with `arguments`: the result (`content`, `structuredContent`, `isError`).
    ///
    /// # Errors
    ///
    /// The server cannot be reached or did not answer in time.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, String> {
        let host: Arc<dyn Host> = Arc::new(Handlers(self.elicitation.clone()));
        let call = relay::HOST.scope(host, self.upstream.call(tool, arguments));
        let result = call.await.map_err(|e| e.message)?;
        Ok(result_json(&result))
    }
}

/// The program's handlers, as the relay sees a host.
struct Handlers(Option<ElicitationHandler>);

impl Host for Handlers {
    fn progress_token(&self) -> Option<Value> {
        None
    }

    fn declares(&self, name: &str) -> bool {
        name == "elicitation" && self.0.is_some()
    }

    fn log_level(&self) -> Option<usize> {
        None
    }

    fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
        Box::pin(std::future::ready(()))
    }

    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let handler = self.0.clone().filter(|_| method == "elicitation/create");
        Box::pin(async move {
            let Some(handler) = handler else {
                return Err(RelayError {
                    code: -32601,
                    message: format!("`{method}` is not handled"),
                });
            };
            handler(params).await.map_err(|message| RelayError {
                code: relay::INTERNAL_ERROR,
                message,
            })
        })
    }
}
