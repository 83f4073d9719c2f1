//! Pins: what a server's `initialize` and `tools/list` said, written as deterministic JSON
//! (`mcp.lock.json` beside the toolset's `TOOLSET.md`) so a diff shows what changed upstream.

use carnet_manifest::order;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Value, json};

use super::server::Server;
use super::upstream::{Answers, Handler, connect};

/// The pin format version (`"pin": 1`).
pub const PIN_VERSION: u64 = 1;

/// The pin file's name, beside `TOOLSET.md`.
pub const PIN_FILE: &str = "mcp.lock.json";

/// A server's tool list as pinned: `initialize`'s server info and protocol version, and every
/// tool of `tools/list` (all pages) with its name, title, description, schemas and
/// annotations, sorted by name, with a digest of the tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    json: Value,
}

/// Why a server could not be pinned.
#[derive(Debug)]
pub struct PinError(String);

impl std::fmt::Display for PinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self(inner) = self;
        write!(f, "{inner}")
    }
}

impl std::error::Error for PinError {}

/// The keys of a tool a pin keeps (icons and `_meta` change without changing the contract).
const TOOL_KEYS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

impl Pin {
    /// Starts (or reaches) `server` — `${VAR}`s resolved from the environment — and pins
    /// what it lists. The child process is stopped before this returns.
    ///
    /// # Errors
    ///
    /// [`PinError`] when a variable is missing, the server cannot be started, does not
    /// finish `initialize` and `tools/list` within `timeout`, or sends a message over
    /// `max_message_bytes` (a line over stdio, an event of an HTTP event stream).
    pub async fn fetch(server: &Server, timeout: Duration, max_message_bytes: usize) -> Result<Pin, PinError> {
        let resolved = server.resolve().map_err(|e| PinError(e.to_string()))?;
        // Declared as a gateway declares: a server that offers some tools only to a client
        // that can answer sampling or elicitation (the everything server) is pinned with
        // them, since a gateway or a program with a handler can call them; an engine that
        // connects without the capability sees them vanish (drift).
        let handler = Handler::new(Arc::new(AtomicBool::new(false)), Answers::gateway());
        let work = async {
            let (service, child) = connect(&resolved, server, handler, max_message_bytes).await?;
            let tools = service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| format!("`tools/list` failed: {e}"))?;
            let info = service.peer_info();
            let skills = if info.as_ref().is_some_and(|i| i.capabilities.supports_skills()) {
                service
                    .peer()
                    .list_all_skills()
                    .await
                    .map_err(|e| format!("`skills/list` failed: {e}"))?
            } else {
                Vec::new()
            };
            let _ = service.cancel().await;
            drop(child);
            Ok::<_, String>((info, tools, skills))
        };
        let (info, tools, skills) = tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| {
                PinError(format!(
                    "the server did not list its tools within {} ms",
                    timeout.as_millis()
                ))
            })?
            .map_err(PinError)?;
        let tools: Vec<Value> = tools
            .iter()
            .map(|tool| {
                let full = serde_json::to_value(tool).unwrap_or_default();
                let kept = order::object(TOOL_KEYS.iter().filter_map(|k| {
                    full.get(*k)
                        .filter(|v| !v.is_null())
                        .map(|v| ((*k).to_owned(), v.clone()))
                }));
                Value::Object(kept)
            })
            .collect();
        let mut json = json!({"pin": PIN_VERSION, "tools": tools});
        if !skills.is_empty() {
            // MCP's Skills extension: each skill's `SKILL.md` URI, frontmatter and files with
            // their digests (what `loadSkill` checks what it reads against).
            let mut skills: Vec<Value> = skills
                .iter()
                .map(|skill| {
                    let full = serde_json::to_value(skill).unwrap_or_default();
                    json!({"uri": full["uri"], "frontmatter": full["frontmatter"], "resources": full["resources"]})
                })
                .collect();
            order::sort_by(&mut skills, |a, b| {
                a["frontmatter"]["name"]
                    .as_str()
                    .cmp(&b["frontmatter"]["name"].as_str())
            });
            json["skills"] = Value::Array(skills);
        }
        if let Some(info) = info {
            json["protocolVersion"] = json!(info.protocol_version.to_string());
            if let Some(server) = &info.server_info {
                json["serverInfo"] = json!({"name": server.name, "version": server.version});
            }
            if let Some(instructions) = info.instructions.as_deref().filter(|i| !i.is_empty()) {
                json["instructions"] = json!(instructions);
            }
        }
        Ok(Pin::from_value(json))
    }

    /// A pin from its JSON (the tools sorted and the digest computed again).
    #[must_use]
    pub fn from_value(json: Value) -> Pin {
        let mut json = sorted(json);
        if let Some(tools) = json.get_mut("tools").and_then(Value::as_array_mut) {
            order::sort_by(tools, |a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        }
        if let Some(object) = json.as_object_mut() {
            object.remove("digest");
        }
        let digest = digest(&json);
        json["digest"] = json!(digest);
        Pin { json: sorted(json) }
    }

    /// Reads a pin file's text.
    ///
    /// # Errors
    ///
    /// [`PinError`] when it is not JSON.
    pub fn parse(text: &str) -> Result<Pin, PinError> {
        serde_json::from_str(text)
            .map(|json| Pin { json: sorted(json) })
            .map_err(|e| PinError(format!("not a pin: {e}")))
    }

    /// The pin as JSON.
    #[must_use]
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The names of the pinned skills (MCP's Skills extension), in order.
    #[must_use]
    pub fn skill_names(&self) -> Vec<&str> {
        self.json["skills"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|s| s["frontmatter"]["name"].as_str())
            .collect()
    }

    /// The names of the pinned tools, in order.
    #[must_use]
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools().iter().filter_map(|t| t["name"].as_str()).collect()
    }

    fn tools(&self) -> &[Value] {
        self.json["tools"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The server's `instructions`, if it gave some.
    #[must_use]
    pub fn instructions(&self) -> Option<&str> {
        self.json["instructions"].as_str()
    }

    /// The file's bytes: pretty JSON, keys sorted, two-space indents, a final line break.
    #[must_use]
    pub fn to_file(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.json).unwrap_or_default();
        text.push('\n');
        text
    }

    /// What changed from `self` (the pin on disk) to `live` (what the server says now), one
    /// line per difference; empty when they are the same.
    #[must_use]
    pub fn diff(&self, live: &Pin) -> String {
        let mut out = String::new();
        for key in ["serverInfo", "protocolVersion", "instructions", "skills"] {
            let (old, new) = (&self.json[key], &live.json[key]);
            if old != new {
                let _ = writeln!(out, "  {key}: {} -> {}", short(old), short(new));
            }
        }
        let find = |pin: &Pin, name: &str| pin.tools().iter().find(|t| t["name"] == name).cloned();
        for tool in self.tools() {
            let name = tool["name"].as_str().unwrap_or_default();
            match find(live, name) {
                None => {
                    let _ = writeln!(out, "- tool `{name}`: the server no longer has it");
                }
                Some(new) => {
                    for key in TOOL_KEYS.iter().skip(1) {
                        if tool[*key] != new[*key] {
                            let _ = writeln!(
                                out,
                                "~ tool `{name}`: {key} changed: {} -> {}",
                                short(&tool[*key]),
                                short(&new[*key])
                            );
                        }
                    }
                }
            }
        }
        for tool in live.tools() {
            let name = tool["name"].as_str().unwrap_or_default();
            if find(self, name).is_none() {
                let _ = writeln!(out, "+ tool `{name}`: new on the server");
            }
        }
        if out.is_empty() && self.json != live.json {
            let _ = writeln!(
                out,
                "  digest: {} -> {}",
                short(&self.json["digest"]),
                short(&live.json["digest"])
            );
        }
        out
    }
}

/// `sha256:` and the hex SHA-256 of the pin without its `digest`, as compact JSON with
/// sorted keys.
fn digest(pin: &Value) -> String {
    let bytes = sorted(pin.clone()).to_string();
    sha256(bytes.as_bytes())
}

pub(crate) use carnet_manifest::digest::sha256_digest as sha256;

/// `value` with every object's keys in sorted order, whatever `serde_json`'s features (with
/// `preserve_order`, maps keep insertion order): pins are written and hashed in this form,
/// as `carnet_codegen` reads them.
fn sorted(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            order::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
            Value::Object(order::object(entries.into_iter().map(|(k, v)| (k, sorted(v)))))
        }
        other => other,
    }
}

/// A JSON value cut to one readable line.
fn short(value: &Value) -> String {
    const LIMIT: usize = 160;
    let text = if value.is_null() {
        "(none)".to_owned()
    } else {
        value.to_string()
    };
    if text.chars().count() > LIMIT {
        let cut: String = text.chars().take(LIMIT).collect();
        format!("{cut}…")
    } else {
        text
    }
}
