//! Tools as the model sees them: a name, a description and a JSON Schema for the input.

use std::sync::Arc;

use serde_json::Value;

use crate::manifest::Annotations;

/// Whether a tool is one of carnet's meta-tools or a domain tool of a toolset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// `loadSkill`, `loadSkillFile`, ... (progressive loading).
    Meta,
    /// A tool declared by a toolset.
    Domain,
}

/// A tool offered to the model: what providers' tool lists are made of.
///
/// `name` is the canonical name from the content (it may contain `.`); provider formats
/// alias it where needed (see [`crate::names::alias`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Canonical name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema (draft 2020-12) of the input; always an object schema.
    pub input_schema: Arc<Value>,
    /// Meta-tool or domain tool.
    pub kind: ToolKind,
    /// For domain tools, the toolset declaring the tool.
    pub toolset: Option<String>,
    /// JSON Schema of the result, where the tool's implementation gives one (a
    /// `#[carnet::tool]` function whose success type implements `schemars::JsonSchema`).
    /// MCP sends it as `outputSchema` when it is an object schema.
    pub output_schema: Option<Arc<Value>>,
    /// A human-readable name (MCP's `title`), when the content gives one.
    pub title: Option<String>,
    /// What calling it does to the world (MCP's tool annotations): from `TOOLSET.md` or a
    /// remote toolset's pin for domain tools; meta-tools only read.
    pub annotations: Annotations,
}

/// A tool call parsed back from a provider's response, with the canonical tool name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    /// The provider's call id, when it has one (`OpenAI`, Anthropic, MCP requests).
    pub id: Option<String>,
    /// Canonical tool name (aliases are mapped back).
    pub name: String,
    /// The arguments, parsed as JSON.
    pub arguments: Value,
}
