//! The model: agents, skills, toolsets and tools as parsed from their files, with the
//! position of every name so validation can point at it.
//!
//! Parsing is strict about types (`name: 123` is an error, not a coercion) and keeps going
//! after a problem, so one run reports everything. An entity whose `name` cannot be read
//! is dropped after its diagnostic (nothing could reference it); any other problem keeps
//! the entity with the field defaulted, so references to it still resolve.
//!
//! This file holds the entity types and the agent and tool-file parsers; `document` reads a
//! file's frontmatter, `skill` parses `SKILL.md` and `toolset` parses `TOOLSET.md`.

mod document;
mod skill;
mod toolset;

pub(crate) use document::parse_document;
pub(crate) use skill::parse_skill;
pub(crate) use toolset::parse_toolset;

use crate::diagnostic::Diagnostics;
use crate::limits::YamlLimits;
use crate::source::{FileId, Sources, Span};

/// A value with the span it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

impl Spanned<String> {
    pub(crate) fn as_str(&self) -> &str {
        &self.value
    }
}

#[derive(Debug, Clone)]
pub(crate) struct AgentDef {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) initial_skills: Vec<Spanned<String>>,
    pub(crate) skills: Vec<Spanned<String>>,
    pub(crate) prompt: String,
    pub(crate) extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct FileRef {
    pub(crate) path: Spanned<String>,
    pub(crate) description: String,
}

#[derive(Debug, Clone)]
pub(crate) struct SkillDef {
    pub(crate) file: FileId,
    /// The skill's folder relative to the carnet directory.
    pub(crate) dir: String,
    pub(crate) name: Spanned<String>,
    pub(crate) description: Spanned<String>,
    pub(crate) toolsets: Vec<Spanned<String>>,
    pub(crate) files: Vec<FileRef>,
    pub(crate) content: String,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<Spanned<String>>,
    pub(crate) allowed_tools: Vec<String>,
    pub(crate) metadata: serde_json::Map<String, serde_json::Value>,
    pub(crate) extra: serde_json::Map<String, serde_json::Value>,
    /// A skill a remote toolset's server serves (`Skill::remote`'s JSON).
    pub(crate) remote: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolDecl {
    pub(crate) name: Spanned<String>,
    pub(crate) description: Option<String>,
    /// Documentation from the tool's file beside TOOLSET.md.
    pub(crate) content: String,
    /// A remote tool's pinned listing (`Tool::remote`'s JSON).
    pub(crate) remote: Option<String>,
    /// Whether `description` was written in TOOLSET.md (not taken from a pin).
    pub(crate) description_written: bool,
    /// `title` (MCP's human-readable name).
    pub(crate) title: Option<String>,
    /// `readOnly`, `destructive`, `idempotent`, `openWorld`.
    pub(crate) annotations: carnet_manifest::Annotations,
    /// The `parameters:` block: each named parameter's description, for the binding macro.
    pub(crate) parameters: Vec<(Spanned<String>, String)>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolsetDef {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) tools: Vec<ToolDecl>,
    pub(crate) content: String,
    /// The `mcp:` block of a remote toolset.
    pub(crate) mcp: Option<crate::remote::McpDef>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolFile {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) content: String,
}

pub(crate) fn parse_agent(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<AgentDef> {
    let mut doc = parse_document(file, &crate::fields::AGENT, sources, yaml, diags)?;
    let name = doc.string("agent", "name", diags);
    let description = doc.string("agent", "description", diags);
    let initial_skills = doc.string_list("initialSkills", diags);
    let skills = doc.string_list("skills", diags);
    let _ = doc.raw("content"); // overridden by the body, as in TS Carnet
    let extra = doc.extra();
    Some(AgentDef {
        name: name?,
        description: description.map(|d| d.value).unwrap_or_default(),
        initial_skills,
        skills,
        prompt: doc.body,
        extra,
    })
}

pub(crate) fn parse_tool_file(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<ToolFile> {
    let mut doc = parse_document(file, &crate::fields::TOOL_FILE, sources, yaml, diags)?;
    let name = doc.string("tool", "name", diags);
    let description = doc.string("tool", "description", diags);
    let _ = doc.raw("content");
    debug_assert!(std::ptr::eq(doc.sources(), sources));
    Some(ToolFile {
        name: name?,
        description: description.map(|d| d.value).unwrap_or_default(),
        content: doc.body,
    })
}
