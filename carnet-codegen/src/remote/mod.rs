//! Remote toolsets: a `TOOLSET.md` whose `mcp:` block names an MCP server, and the pin of that
//! server's tool list (`mcp.lock.json` beside it) that the build checks against.
//!
//! The build never opens a connection: the tools of a remote toolset are the ones its pin
//! recorded (`carnet mcp pin` writes it), narrowed by the toolset's `tools:` list when it has
//! one. From then on they are declared tools like any other (typed ids, collisions, provider
//! aliases), with the schemas the server gave.
//!
//! The pin's format (written by `carnet_runtime::remote::Pin`, read here):
//!
//! ```json
//! {
//!   "digest": "sha256:...",            // of the pin but `digest`, as compact JSON, keys sorted
//!   "instructions": "...",             // the server's, when it gave some
//!   "pin": 1,
//!   "protocolVersion": "2025-11-25",
//!   "serverInfo": {"name": "...", "version": "..."},
//!   "skills": [{"uri", "frontmatter": {"name", "description", ...}, "resources": [{"uri", "digest", "size"}]}],
//!   "tools": [{"name", "title"?, "description"?, "inputSchema", "outputSchema"?, "annotations"?}]
//! }
//! ```
//!
//! `skills` (MCP's Skills extension, when the server serves it) become skills of the
//! directory, narrowed by the toolset's `skills:` list: their name and description come from
//! the pin, they bring the toolset, and their instructions are read from the server on load,
//! checked against the digest of their `SKILL.md` (`tools: []` offers a server's skills
//! without its tools).

use serde_json::{Map, Value};

use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::messages;
use crate::model::{Spanned, ToolsetDef};
use crate::source::{FileId, Sources, Span};

/// What a remote toolset speaks: MCP (an `mcp:` block) or A2A (an `a2a:` block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteProtocol {
    /// An MCP server's tools (`mcp:`, pinned in `mcp.lock.json`).
    Mcp,
    /// An A2A agent's skills (`a2a:`, pinned in `a2a.lock.json`).
    A2a,
}

impl RemoteProtocol {
    /// The pin file's name, beside `TOOLSET.md`.
    #[must_use]
    pub fn pin_file(self) -> &'static str {
        match self {
            RemoteProtocol::Mcp => "mcp.lock.json",
            RemoteProtocol::A2a => "a2a.lock.json",
        }
    }

    /// The command that writes the pin.
    #[must_use]
    pub fn pin_command(self) -> &'static str {
        match self {
            RemoteProtocol::Mcp => "carnet mcp pin",
            RemoteProtocol::A2a => "carnet a2a pin",
        }
    }

    /// The block of `TOOLSET.md` naming the remote.
    pub(crate) fn block(self) -> &'static str {
        match self {
            RemoteProtocol::Mcp => "mcp",
            RemoteProtocol::A2a => "a2a",
        }
    }
}

/// The pin format this crate reads and `carnet mcp pin` writes.
pub(crate) const PIN_VERSION: u64 = 1;

/// The `mcp:` block of a `TOOLSET.md`, checked.
#[derive(Debug, Clone)]
pub(crate) struct McpDef {
    /// `{"command", "args"?, "env"?}` or `{"url", "headers"?}`, `${VAR}` as written.
    pub(crate) server: Value,
    /// The `mcp` key, for errors about the toolset as a whole.
    pub(crate) span: Span,
    /// What the pin recorded of the server: `{"serverInfo", "protocolVersion", "digest"}`.
    pub(crate) pin: Option<Value>,
    /// `skills:`: the server's skills to offer (all of them when empty).
    pub(crate) skills: Vec<Spanned<String>>,
    /// Whether `tools:` was written: `tools: []` offers none of the server's tools (a server
    /// used for its skills), no `tools:` all of them.
    pub(crate) tools_listed: bool,
    /// MCP, or an A2A agent (`a2a:`: its skills are the tools).
    pub(crate) protocol: RemoteProtocol,
}

impl McpDef {
    /// The manifest's [`carnet_manifest::Toolset::mcp`] JSON.
    pub(crate) fn to_json(&self) -> String {
        let mut object = Map::new();
        object.insert("server".into(), self.server.clone());
        if let Some(pin) = &self.pin {
            object.insert("pin".into(), pin.clone());
        }
        if self.protocol == RemoteProtocol::A2a {
            object.insert("protocol".into(), Value::String("a2a".into()));
        }
        Value::Object(object).to_string()
    }
}

mod pin;
mod server;

pub(crate) use pin::PinnedSkill;
use pin::{Pinned, PinnedTool, read_pin};
#[cfg(test)]
pub(crate) use server::block_keys;
pub(crate) use server::parse_server;

/// Reads the pin of a remote toolset (`pin`: its file, `None` when it does not exist) and
/// makes its tools the toolset's declared tools: all of them, or the ones `tools:` names.
pub(crate) fn apply_pin(
    toolset: &mut ToolsetDef,
    folder: &str,
    pin: Option<FileId>,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Vec<PinnedSkill> {
    let Some(mcp) = &mut toolset.mcp else {
        return Vec::new();
    };
    let protocol = mcp.protocol;
    let Some(file) = pin else {
        let here = match protocol {
            RemoteProtocol::Mcp => messages::MCP_SERVER_HERE,
            RemoteProtocol::A2a => messages::A2A_AGENT_HERE,
        };
        diags.push(
            Builder::new(Code::MissingPin, messages::missing_pin(&toolset.name.value))
                .at(mcp.span)
                .label(here)
                .help(messages::run_pin(protocol, &toolset.name.value, folder)),
        );
        toolset.tools.clear();
        return Vec::new();
    };
    let name = toolset.name.value.clone();
    let Some(mut pinned) = read_pin(file, sources, (&name, protocol), folder, diags) else {
        toolset.tools.clear();
        return Vec::new();
    };
    mcp.pin = Some(pinned.summary.clone());
    let skills = offered_skills(&mut pinned, mcp, &name, diags);
    let subset = std::mem::take(&mut toolset.tools);
    if subset.is_empty() && mcp.tools_listed {
        return skills;
    }
    if subset.is_empty() {
        // Every pinned tool, each pointed at the `mcp` key (its TOOLSET.md names none).
        let span = mcp.span;
        toolset.tools = pinned
            .tools
            .into_iter()
            .map(|tool| tool.into_decl(span, None))
            .collect();
        return skills;
    }
    let names: Vec<String> = pinned.tools.iter().map(|t| t.name.clone()).collect();
    let mut pool: Vec<Option<PinnedTool>> = pinned.tools.into_iter().map(Some).collect();
    for decl in subset {
        match names.iter().position(|n| *n == decl.name.value) {
            Some(i) => match pool[i].take() {
                Some(tool) => toolset.tools.push(tool.into_decl(decl.name.span, Some(decl))),
                // Named twice: the duplicate check of the toolset's tools reports it.
                None => toolset.tools.push(decl),
            },
            None if let Some(why) = pinned.unusable.get(&decl.name.value) => diags.push(
                Builder::new(Code::InvalidPin, messages::unusable_remote_tool(&decl.name.value, why))
                    .at(decl.name.span)
                    .label(messages::NOT_OFFERABLE),
            ),
            None => diags.push(
                Builder::new(
                    Code::UnknownRemoteTool,
                    messages::unknown_remote_tool(&decl.name.value, &name),
                )
                .at(decl.name.span)
                .label(messages::NOT_IN_THE_PIN)
                .help_opt(did_you_mean(&decl.name.value, names.iter().map(String::as_str)).map(messages::did_you_mean))
                .note(messages::pinned_tools(&names)),
            ),
        }
    }
    skills
}

/// The pinned skills the toolset offers: all of them, or those `skills:` names.
fn offered_skills(pinned: &mut Pinned, mcp: &McpDef, toolset: &str, diags: &mut Diagnostics) -> Vec<PinnedSkill> {
    let all = std::mem::take(&mut pinned.skills);
    if mcp.skills.is_empty() {
        return all
            .into_iter()
            .map(|mut s| {
                s.span = mcp.span;
                s
            })
            .collect();
    }
    let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    let mut offered = Vec::new();
    for wanted in &mcp.skills {
        match all.iter().find(|s| s.name == wanted.value) {
            Some(skill) => {
                let mut skill = skill.clone();
                skill.span = wanted.span;
                offered.push(skill);
            }
            None if let Some(why) = pinned.unusable_skills.get(&wanted.value) => diags.push(
                Builder::new(Code::InvalidPin, messages::unusable_remote_skill(&wanted.value, why))
                    .at(wanted.span)
                    .label(messages::NOT_OFFERABLE),
            ),
            None => diags.push(
                Builder::new(
                    Code::UnknownRemoteSkill,
                    messages::unknown_remote_skill(&wanted.value, toolset),
                )
                .at(wanted.span)
                .label(messages::NOT_A_PINNED_SKILL)
                .help_opt(did_you_mean(&wanted.value, names.iter().copied()).map(messages::did_you_mean)),
            ),
        }
    }
    offered
}
