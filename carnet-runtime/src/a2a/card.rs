//! The served agent's A2A 1.0 `AgentCard`: the same catalog as the MCP server's card, with
//! the interfaces and capabilities of this server.

use serde_json::{Value, json};

use crate::manifest::Manifest;

/// The A2A protocol version this server speaks.
pub const PROTOCOL_VERSION: &str = "1.0";

/// The A2A 1.0 `AgentCard` of `agent` served at `url` by an A2A [`Server`](super::Server),
/// or `None` when the manifest has no such agent.
///
/// - `supportedInterfaces`: `url` twice, with `protocolBinding` `JSONRPC` (requests
///   `POST`ed to `url`) and `HTTP+JSON` (`url` + `/message:send`, `/tasks/{id}`, ...),
///   `protocolVersion` `1.0`;
/// - `capabilities`: streaming, no push notifications, no extended card;
/// - input modes text and JSON (data parts reach the model as JSON text), output text;
/// - `skills`: every skill the agent can load, as the MCP server's card lists them
///   ([`mcp::agent_card`](crate::mcp::agent_card)): `tags` and `examples` from the
///   frontmatter, the skill's toolsets among the tags.
///
/// # Examples
///
/// ```
/// # use carnet_runtime::Manifest;
/// # let manifest = Manifest::from_json(r#"{"agents": {"helper": {"name": "helper", "description": "Helps", "prompt": "Be kind.", "skills": ["greet"]}}, "skills": {"greet": {"name": "greet", "description": "Greets people", "content": "Say hello."}}, "toolsets": {}}"#)?;
/// let card = carnet_runtime::a2a::agent_card(&manifest, "helper", "http://127.0.0.1:8080", "1.2.0").unwrap();
/// assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
/// assert_eq!(card["capabilities"]["streaming"], true);
/// assert_eq!(card["skills"][0]["id"], "greet");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn agent_card(manifest: &Manifest, agent: &str, url: &str, version: &str) -> Option<Value> {
    let interfaces: Vec<Value> = ["JSONRPC", "HTTP+JSON"]
        .into_iter()
        .map(|binding| json!({"url": url, "protocolBinding": binding, "protocolVersion": PROTOCOL_VERSION}))
        .collect();
    let capabilities = json!({"streaming": true, "pushNotifications": false, "extendedAgentCard": false});
    let modes: (&[&str], &[&str]) = (&["text/plain", "application/json"], &["text/plain"]);
    crate::mcp::card::card_with(manifest, agent, version, &interfaces, &capabilities, modes)
}
