//! What every connection of a [`Server`](super::Server) shares, and what both transports
//! answer the same way.

use std::sync::Arc;

use rmcp::model::ServerConfig;

use super::handle::SessionKeys;
#[cfg(feature = "mcp-http")]
use super::limits::HttpLimits;
use super::{messages, resources};
use crate::engine::Carnet;
use crate::providers;
use crate::session::Session;

/// Messages larger than this (16 MiB) are refused by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// What every connection of a server shares.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) carnet: Carnet,
    pub(super) agent: String,
    /// What `initialize` answers (and `server/discover` reports), built once.
    pub(super) config: ServerConfig,
    pub(super) resources: resources::Index,
    pub(super) max_message_bytes: usize,
    /// The keys sealing the session handles of the stateless revision.
    pub(super) keys: Arc<SessionKeys>,
    /// Limits of [`Server::bind_http`](super::Server::bind_http).
    #[cfg(feature = "mcp-http")]
    pub(super) limits: HttpLimits,
    /// Whether [`Server::bind_http`](super::Server::bind_http) answers the stateless
    /// revision's `tools/list` and `tools/call` itself ([`super::direct`]) or leaves every
    /// request to rmcp.
    #[cfg(feature = "mcp-http")]
    pub(super) direct_http: bool,
}

impl Shared {
    pub(super) fn session(&self) -> Session {
        self.carnet
            .session(&self.agent)
            .expect("the agent was checked by `Server::new`")
    }
}

/// The tools of a session as `tools/list` items.
pub(super) fn list_tools(session: &Session) -> Result<Vec<rmcp::model::Tool>, rmcp::ErrorData> {
    let value = providers::mcp::tools(session.tools()).map_err(|e| messages::unencodable("the tool list", e))?;
    let tools = value.get("tools").cloned().unwrap_or_default();
    serde_json::from_value(tools).map_err(|e| messages::unencodable("the tool list", e))
}
