//! One remote toolset's server outside an engine: connected, listed and called through the
//! engine's own client (its connection, its sign-in, its relay), for `carnet mcp login` and
//! for programs that talk to a server directly.

use std::collections::HashMap;

use serde_json::Value;

use crate::engine::options::RemoteOptions;
use crate::remote::server::Server;
use crate::remote::upstream::{Upstream, result_json};

/// A connection to the server of remote toolset `toolset`, made as the engine makes it
/// (signed in as [`RemoteOptions::oauth`] says; the server's elicitation and sampling
/// requests answered by [`RemoteOptions::on_elicitation`] and
/// [`RemoteOptions::on_sampling`], and declared only with them).
pub struct ServerSession {
    upstream: Upstream,
}

impl std::fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSession")
            .field("toolset", &self.upstream.toolset)
            .finish_non_exhaustive()
    }
}

impl ServerSession {
    /// A session with the server of `toolset`, described by `server`; connected on first use.
    pub fn new(toolset: impl Into<String>, server: Server, options: RemoteOptions) -> Self {
        let toolset = toolset.into();
        ServerSession {
            upstream: Upstream::new(toolset.clone(), toolset, server, HashMap::new(), options),
        }
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
        let result = self.upstream.call(tool, arguments).await.map_err(|e| e.message)?;
        Ok(result_json(&result))
    }
}
