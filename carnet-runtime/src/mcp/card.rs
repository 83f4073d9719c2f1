//! The served agent as an [A2A](https://a2a-protocol.org) 1.0 `AgentCard`, for discovery at
//! `/.well-known/agent-card.json`.

use carnet_manifest::order;
use serde_json::{Map, Value, json};

use crate::manifest::{Manifest, Skill};

/// The A2A protocol version the card follows.
pub const A2A_PROTOCOL_VERSION: &str = "1.0";

/// The A2A 1.0 `AgentCard` of `agent`, or `None` when the manifest has no such agent.
///
/// - `name`, `description`: the agent's; `version`: the one given (the server's);
/// - `supportedInterfaces`: one entry, the MCP endpoint `url` with `protocolBinding: "MCP"`
///   (an A2A binding string outside the three core ones: this server speaks MCP, not A2A's
///   JSON-RPC);
/// - `capabilities`: no streaming, no push notifications; text in, text or JSON out;
/// - `skills`: every skill the agent can load (its own and the global ones), sorted by name:
///   `id` and `name` are the skill's name, `tags` its frontmatter's `tags` (or
///   `metadata.tags`, comma- or space-separated) followed by its toolsets' names, and
///   `examples` its frontmatter's `examples` (or `metadata.examples`) where it has them.
///
/// # Examples
///
/// ```
/// # use carnet_runtime::Manifest;
/// # let manifest = Manifest::from_json(r#"{"agents": {"helper": {"name": "helper", "description": "Helps", "prompt": "Be kind.", "skills": ["greet"]}}, "skills": {"greet": {"name": "greet", "description": "Greets people", "content": "Say hello."}}, "toolsets": {}}"#)?;
/// let card = carnet_runtime::mcp::agent_card(&manifest, "helper", "http://127.0.0.1:8080/mcp", "1.2.0").unwrap();
/// assert_eq!(card["name"], "helper");
/// assert_eq!(card["skills"][0]["id"], "greet");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn agent_card(manifest: &Manifest, agent: &str, url: &str, version: &str) -> Option<Value> {
    let interfaces = [json!({
        "url": url,
        "protocolBinding": "MCP",
        "protocolVersion": A2A_PROTOCOL_VERSION,
    })];
    let capabilities = json!({ "streaming": false, "pushNotifications": false, "extensions": [] });
    let modes: (&[&str], &[&str]) = (&["text/plain"], &["text/plain", "application/json"]);
    card_with(manifest, agent, version, &interfaces, &capabilities, modes)
}

/// The card of `agent` with these interfaces, capabilities and (input, output) modes: the
/// MCP server's above, the A2A server's in `crate::a2a`.
pub(crate) fn card_with(
    manifest: &Manifest,
    agent: &str,
    version: &str,
    interfaces: &[Value],
    capabilities: &Value,
    (input_modes, output_modes): (&[&str], &[&str]),
) -> Option<Value> {
    let agent = manifest.agent(agent)?;
    let mut names: Vec<&str> = agent
        .all_skills()
        .chain(manifest.app.global_initial_skills.iter().map(|s| &**s))
        .chain(manifest.app.global_skills.iter().map(|s| &**s))
        .collect();
    order::sort(&mut names);
    names.dedup();
    let skills: Vec<Value> = names
        .into_iter()
        .filter_map(|name| manifest.skills.iter().find(|s| &*s.name == name))
        .map(card_skill)
        .collect();
    Some(json!({
        "name": &*agent.name,
        "description": &*agent.description,
        "version": version,
        "supportedInterfaces": interfaces,
        "capabilities": capabilities,
        "defaultInputModes": input_modes,
        "defaultOutputModes": output_modes,
        "skills": skills,
    }))
}

/// `key` of a skill's frontmatter, else of its `metadata`.
fn skill_field(skill: &Skill, key: &str) -> Option<Value> {
    let object = |json: &str| match serde_json::from_str(json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    object(&skill.extra)
        .remove(key)
        .or_else(|| object(&skill.metadata).remove(key))
}

/// A skill's `tags` (frontmatter, else `metadata`; a list, or one string split at commas or
/// whitespace).
pub(crate) fn skill_tags(skill: &Skill) -> Vec<String> {
    skill_field(skill, "tags")
        .map(|v| strings(&v, true))
        .unwrap_or_default()
}

fn card_skill(skill: &Skill) -> Value {
    let mut tags = skill_tags(skill);
    for toolset in skill.toolsets.iter() {
        if !tags.iter().any(|t| t == &**toolset) {
            tags.push(toolset.to_string());
        }
    }
    let mut card = json!({
        "id": &*skill.name,
        "name": &*skill.name,
        "description": &*skill.description,
        "tags": tags,
    });
    let examples = skill_field(skill, "examples")
        .map(|v| strings(&v, false))
        .unwrap_or_default();
    if !examples.is_empty() {
        card["examples"] = json!(examples);
    }
    card
}

/// A list of strings, or one string: split at commas (or, without commas, at whitespace)
/// when `split`, else taken whole.
fn strings(value: &Value, split: bool) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Value::String(text) if !split => vec![text.trim().to_owned()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect(),
        Value::String(text) if text.contains(',') => text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Value::String(text) => text.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}
