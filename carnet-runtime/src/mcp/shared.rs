//! What every connection of a [`Server`](super::Server) shares, and what both transports
//! answer the same way.

use std::sync::Arc;

use super::handle::SessionKeys;
#[cfg(feature = "mcp-http")]
use super::limits::HttpLimits;
use serde_json::{Value, json};

use super::hints::Hints;
use super::resources;
use crate::engine::{Carnet, ExposureMode};
use crate::manifest::Manifest;
use crate::session::Session;

/// Messages larger than this (16 MiB) are refused by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// What every connection of a server shares.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) carnet: Carnet,
    pub(super) agent: String,
    /// What `initialize` answers (and `server/discover` reports), built once.
    pub(super) info: Info,
    /// The stateless revision's `tools/list` result, written once (it is the same for every
    /// request).
    pub(super) stateless_list: Arc<std::sync::OnceLock<Result<Vec<u8>, super::rpc::RpcError>>>,
    /// `info` as rmcp's type, made once (rmcp asks for it on every request).
    #[cfg(feature = "mcp-http")]
    pub(super) rmcp_info: std::sync::OnceLock<rmcp::model::ServerConfig>,
    pub(super) resources: resources::Index,
    /// The `_meta` hints of `tools/list` items.
    pub(super) hints: Hints,
    pub(super) max_message_bytes: usize,
    /// The keys sealing the session handles of the stateless revision.
    pub(super) keys: Arc<SessionKeys>,
    /// The stateless revision's calls waiting for their client's input.
    pub(super) waiting: Arc<super::waiting::Waiting>,
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

/// The Skills extension (SEP-2640) as `capabilities.extensions` names it.
const SKILLS_EXTENSION_ID: &str = "io.modelcontextprotocol/skills";
/// Where `server/discover`'s result names the server.
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What the server says of itself: `initialize`'s result and `server/discover`'s.
#[derive(Debug, Clone)]
pub(super) struct Info {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) title: String,
    pub(super) capabilities: Value,
    pub(super) instructions: String,
}

impl Info {
    /// The server's information for `agent`, named after it ([`agent_version`]), offering
    /// what `mode` allows: tools (`listChanged` in dynamic mode), prompts (the system prompt,
    /// whose arguments `completion/complete` completes), resources, the Skills extension;
    /// and where remote MCP toolsets' servers are passed through ([`passes_through`]),
    /// logging, resource subscriptions and list changes of resources and prompts (which a
    /// load brings, and the servers send).
    pub(super) fn new(manifest: &Manifest, agent: &str, mode: ExposureMode, instructions: String) -> Info {
        let mut info = Info {
            name: agent.to_owned(),
            version: agent_version(manifest, agent),
            title: format!("carnet agent `{agent}`"),
            capabilities: json!({
                "tools": { "listChanged": mode == ExposureMode::Dynamic },
                "prompts": { "listChanged": false },
                "resources": { "listChanged": false, "subscribe": false },
                "completions": {},
                "extensions": { SKILLS_EXTENSION_ID: {} },
            }),
            instructions,
        };
        if passes_through(manifest) {
            info.capabilities["logging"] = json!({});
            info.capabilities["resources"] = json!({ "listChanged": true, "subscribe": true });
            info.capabilities["prompts"] = json!({ "listChanged": true });
        }
        info
    }

    fn server_info(&self) -> Value {
        json!({ "name": self.name, "title": self.title, "version": self.version })
    }

    /// `initialize`'s result at `version`.
    pub(super) fn initialize_result(&self, version: &str) -> Value {
        json!({
            "protocolVersion": version,
            "capabilities": self.capabilities,
            "serverInfo": self.server_info(),
            "instructions": self.instructions,
        })
    }

    /// `server/discover`'s result: at the stateless revision, which has no session to send
    /// notifications to, no subscriptions and no list changes of resources and prompts.
    pub(super) fn discover_result(&self, supported: &[&str]) -> Value {
        let mut capabilities = self.capabilities.clone();
        for (list, feature) in [
            ("resources", "subscribe"),
            ("resources", "listChanged"),
            ("prompts", "listChanged"),
        ] {
            if let Some(Value::Object(fields)) = capabilities.get_mut(list) {
                fields.insert(feature.to_owned(), Value::Bool(false));
            }
        }
        json!({
            "resultType": "complete",
            "supportedVersions": supported,
            "capabilities": capabilities,
            "instructions": self.instructions,
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": { META_SERVER_INFO: self.server_info() },
        })
    }
}

/// The version `serverInfo` gives for `agent`: the `version` of its `AGENT.md` frontmatter
/// (a string or a number), else the fingerprint of the content it is served from (16 hex
/// digits: it changes whenever the content does).
pub(super) fn agent_version(manifest: &Manifest, agent: &str) -> String {
    let declared = manifest
        .agent(agent)
        .and_then(|a| serde_json::from_str::<Value>(&a.extra).ok())
        .and_then(|extra| match extra.get("version") {
            Some(Value::String(version)) if !version.trim().is_empty() => Some(version.trim().to_owned()),
            Some(Value::Number(version)) => Some(version.to_string()),
            _ => None,
        });
    declared.unwrap_or_else(|| format!("{:016x}", manifest.fingerprint))
}

/// Whether the server passes remote toolsets' servers through: the manifest has remote MCP
/// toolsets (an `mcp:` block) and carnet calls them (feature `remote`). Their log messages for
/// a call then reach the client that made it, and their resources' updates and list changes
/// the sessions that have them in reach.
pub(super) fn passes_through(manifest: &Manifest) -> bool {
    cfg!(feature = "remote") && manifest.toolsets.iter().any(|t| t.mcp.is_some())
}
