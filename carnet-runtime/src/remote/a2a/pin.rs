//! An A2A agent's card as a pin (`a2a.lock.json` beside the toolset's `TOOLSET.md`): each of
//! its skills a tool taking a message, in the format of MCP pins, so the build reads both
//! the same way and a diff shows what changed upstream.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::client::{A2A_VERSION, Client, Endpoint};
use crate::remote::{PIN_VERSION, Pin, Server};

/// The pin file's name, beside `TOOLSET.md`.
pub const PIN_FILE: &str = "a2a.lock.json";

/// The longest tool name a skill id becomes (what every provider accepts).
const MAX_TOOL_NAME: usize = 64;

/// What every A2A tool takes: the message sent to the agent.
pub(crate) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "message": {
                "type": "string",
                "description": "What to ask the agent, in full: it reads only this. It keeps the conversation, so a follow-up may refer to earlier messages."
            }
        },
        "required": ["message"],
        "additionalProperties": false
    })
}

/// Reads the agent card at `agent` (`${VAR}`s resolved from the environment) and pins it.
///
/// # Errors
///
/// A message when a variable is missing, the card cannot be read within `timeout`, is over
/// `max_bytes`, is not an A2A 1.0 card, or offers no JSON-RPC interface of A2A 1.x.
pub async fn fetch(agent: &Server, timeout: Duration, max_bytes: usize) -> Result<Pin, String> {
    let Server::Http { url, headers } = agent.resolve().map_err(|e| e.to_string())? else {
        return Err("an A2A agent is reached by `url`".to_owned());
    };
    let client = Client::new(timeout, max_bytes).map_err(|e| e.message)?;
    let endpoint = Endpoint { url, headers };
    let card = tokio::time::timeout(timeout, client.card(&endpoint))
        .await
        .map_err(|_| format!("its card did not come within {} s", timeout.as_secs()))?
        .map_err(|e| e.message)?;
    pin_card(&card)
}

/// The pin of an agent card (its JSON as the agent served it).
///
/// # Errors
///
/// A message when it is not an A2A 1.0 card or offers no JSON-RPC interface of A2A 1.x.
pub fn pin_card(card: &Value) -> Result<Pin, String> {
    let parsed: a2a_types::AgentCard =
        serde_json::from_value(card.clone()).map_err(|e| format!("its card is not an A2A 1.0 agent card: {e}"))?;
    let interface = jsonrpc_interface(&parsed).ok_or_else(|| {
        let offered: Vec<String> = parsed
            .supported_interfaces
            .iter()
            .map(|i| format!("{} {}", i.protocol_binding, i.protocol_version))
            .collect();
        format!(
            "it offers no JSON-RPC interface of A2A 1.x (it offers: {})",
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        )
    })?;
    let mut bindings: Vec<String> = parsed
        .supported_interfaces
        .iter()
        .map(|i| format!("{} {}", i.protocol_binding, i.protocol_version))
        .collect();
    bindings.sort();
    bindings.dedup();
    let mut names = std::collections::HashSet::new();
    let tools: Vec<Value> = parsed
        .skills
        .iter()
        .map(|skill| {
            let name = unique(&tool_name(&skill.id), &mut names);
            skill_tool(&parsed, skill, &name)
        })
        .collect();
    let mut pin = json!({
        "pin": PIN_VERSION,
        "protocolVersion": interface.protocol_version,
        "serverInfo": {"name": parsed.name, "version": parsed.version},
        "agent": {
            "bindings": bindings,
            "streaming": parsed.capabilities.streaming.unwrap_or(false),
            "defaultInputModes": parsed.default_input_modes,
            "defaultOutputModes": parsed.default_output_modes,
        },
        "tools": tools,
    });
    if !parsed.description.trim().is_empty() {
        pin["instructions"] = json!(parsed.description);
    }
    Ok(Pin::from_value(pin))
}

/// The interface carnet calls: JSON-RPC, A2A 1.x.
pub(crate) fn jsonrpc_interface(card: &a2a_types::AgentCard) -> Option<&a2a_types::AgentInterface> {
    let major = A2A_VERSION.split('.').next().unwrap_or("1");
    card.supported_interfaces.iter().find(|i| {
        i.protocol_binding
            .eq_ignore_ascii_case(a2a_types::TRANSPORT_PROTOCOL_JSONRPC)
            && i.protocol_version.split('.').next() == Some(major)
    })
}

/// A skill as a tool: its name from the skill's id, its description from the skill's (and
/// its examples), the skill's id, tags and modes under `a2a`.
fn skill_tool(card: &a2a_types::AgentCard, skill: &a2a_types::AgentSkill, name: &str) -> Value {
    let input_modes = skill
        .input_modes
        .clone()
        .unwrap_or_else(|| card.default_input_modes.clone());
    let output_modes = skill
        .output_modes
        .clone()
        .unwrap_or_else(|| card.default_output_modes.clone());
    let mut description = skill.description.trim().to_owned();
    if let Some(examples) = skill.examples.as_ref().filter(|e| !e.is_empty()) {
        let shown: Vec<String> = examples.iter().take(5).map(|e| format!("\"{}\"", e.trim())).collect();
        description.push_str(&format!("\n\nExamples: {}", shown.join("; ")));
    }
    let mut a2a = Map::new();
    a2a.insert("skill".into(), json!(skill.id));
    a2a.insert("tags".into(), json!(skill.tags));
    a2a.insert("inputModes".into(), json!(input_modes));
    a2a.insert("outputModes".into(), json!(output_modes));
    let mut tool = json!({
        "name": name,
        "title": skill.name,
        "description": description,
        "annotations": {"openWorldHint": true},
    });
    if takes_text(&input_modes) && gives_text(&output_modes) {
        tool["inputSchema"] = input_schema();
    } else {
        a2a.insert(
            "unusable".into(),
            json!(format!(
                "the agent's skill `{}` does not exchange text (input modes {}, output modes {})",
                skill.id,
                modes(&input_modes),
                modes(&output_modes)
            )),
        );
    }
    tool["a2a"] = Value::Object(a2a);
    tool
}

fn modes(modes: &[String]) -> String {
    if modes.is_empty() {
        "any".to_owned()
    } else {
        modes.join(", ")
    }
}

/// Whether a skill reads text (no modes: anything).
fn takes_text(modes: &[String]) -> bool {
    modes.is_empty() || modes.iter().any(|m| is_text(m))
}

/// Whether a skill answers with text (or JSON, shown as text).
fn gives_text(modes: &[String]) -> bool {
    modes.is_empty()
        || modes
            .iter()
            .any(|m| is_text(m) || m.eq_ignore_ascii_case("application/json"))
}

fn is_text(mode: &str) -> bool {
    let mode = mode.trim().to_ascii_lowercase();
    mode == "text" || mode.starts_with("text/") || mode == "*/*"
}

/// A tool name from a skill id: characters other than `A-Za-z0-9_-` become `_`, at most 64.
pub(crate) fn tool_name(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_NAME)
        .collect();
    if name.is_empty() { "skill".to_owned() } else { name }
}

/// `name`, or `name_2`, `name_3`... when taken.
fn unique(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = name.to_owned();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        let suffix = format!("_{n}");
        let keep = MAX_TOOL_NAME - suffix.len();
        candidate = format!("{}{suffix}", name.chars().take(keep).collect::<String>());
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(skills: &Value) -> Value {
        json!({
            "name": "Weather", "description": "Forecasts", "version": "1.2.0",
            "supportedInterfaces": [{"url": "http://h/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": skills
        })
    }

    #[test]
    fn skills_become_tools() {
        let pin = pin_card(&card(&json!([
            {"id": "forecast.city", "name": "Forecast", "description": "Weather of a city", "tags": ["w"], "examples": ["Paris?"]},
            {"id": "forecast?city", "name": "Again", "description": "Same name", "tags": []},
            {"id": "map", "name": "Map", "description": "An image", "tags": [], "outputModes": ["image/png"]}
        ])))
        .unwrap();
        assert_eq!(pin.tool_names(), ["forecast_city", "forecast_city_2", "map"]);
        let json = pin.json();
        assert_eq!(json["serverInfo"], json!({"name": "Weather", "version": "1.2.0"}));
        assert_eq!(
            json["tools"][0]["description"],
            "Weather of a city\n\nExamples: \"Paris?\""
        );
        assert_eq!(json["tools"][0]["a2a"]["skill"], "forecast.city");
        assert_eq!(json["tools"][0]["inputSchema"], input_schema());
        assert!(json["tools"][2].get("inputSchema").is_none());
        assert!(
            json["tools"][2]["a2a"]["unusable"]
                .as_str()
                .unwrap()
                .contains("image/png")
        );
        // Deterministic bytes: the same card gives the same file, digest included.
        let again = pin_card(&card(&json!([
            {"id": "forecast.city", "name": "Forecast", "description": "Weather of a city", "tags": ["w"], "examples": ["Paris?"]},
            {"id": "forecast?city", "name": "Again", "description": "Same name", "tags": []},
            {"id": "map", "name": "Map", "description": "An image", "tags": [], "outputModes": ["image/png"]}
        ])))
        .unwrap();
        assert_eq!(again.to_file(), pin.to_file());
        assert!(json["digest"].as_str().unwrap().starts_with("sha256:"));
    }

    #[test]
    fn cards_without_jsonrpc_are_refused() {
        let mut grpc = card(&json!([]));
        grpc["supportedInterfaces"] = json!([{"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]);
        assert_eq!(
            pin_card(&grpc).unwrap_err(),
            "it offers no JSON-RPC interface of A2A 1.x (it offers: GRPC 1.0)"
        );
        assert!(
            pin_card(&json!({"name": 3}))
                .unwrap_err()
                .starts_with("its card is not an A2A 1.0 agent card")
        );
    }
}
