//! The engine's options: which meta-tools, how they are named, how domain tools reach the
//! model, which prompt sections; and why an engine could not be built.

use crate::session::MetaTool;

/// Which meta-tools the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    /// All six: `listAvailableSkills`, `loadSkill`, `listSkillToolsets`, `loadToolset`,
    /// `loadTool`, `loadSkillFile`.
    #[default]
    Full,
    /// `loadSkill` and `loadSkillFile` only (TS Carnet's set).
    Minimal,
    /// The six of [`Preset::Full`] and the browse-only discovery tools `listTools` and
    /// `describeTool` (the two-level disclosure of the tool-discovery design).
    Discovery,
}

impl Preset {
    /// The meta-tools of the preset, in the order they are offered.
    #[must_use]
    pub fn meta_tools(self) -> &'static [MetaTool] {
        match self {
            Preset::Full => &MetaTool::ALL[..6],
            Preset::Minimal => &[MetaTool::LoadSkill, MetaTool::LoadSkillFile],
            Preset::Discovery => &MetaTool::ALL[..8],
        }
    }
}

/// How meta-tools and their parameters are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Naming {
    /// `loadSkill {skillName}` (TS Carnet's names).
    #[default]
    CamelCase,
    /// `load_skill {skill_name}`.
    SnakeCase,
}

/// How domain tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExposureMode {
    /// The tool list grows as skills load: loaded tools are real tools.
    #[default]
    Dynamic,
    /// The tool list never changes (meta-tools + `callTool {name, arguments}`); loaded tools'
    /// schemas arrive in `loadSkill`/`loadToolset` results. Keeps a provider's prompt cache
    /// valid and suits clients that cache their tool list.
    Dispatcher,
    /// Every tool the agent can reach is sent on every turn (meta-tools, then domain tools
    /// sorted by name), the domain tools marked deferred in the provider's own way
    /// (Anthropic `defer_loading`, `OpenAI` Responses namespaces of deferred functions); a load
    /// answers with the provider's reference form (Anthropic `tool_reference` blocks, an
    /// `OpenAI` `additional_tools` item). The system prompt and the tools array stay
    /// byte-identical all conversation long, so the provider's prompt cache only grows.
    /// Providers without deferral (Chat Completions, Gemini) get the full list as it is.
    Deferred,
    /// Every tool the agent can reach is sent on every turn, as in [`ExposureMode::Deferred`],
    /// and the provider's own switch restricts the model to the exposed ones (`tool_choice`
    /// `allowed_tools` for `OpenAI`, `allowedFunctionNames` for Gemini). The system prompt and
    /// the tools array stay byte-identical; only the switch changes.
    AllowedTools,
}

impl ExposureMode {
    /// Every mode, in declaration order.
    pub const ALL: [ExposureMode; 4] = [
        ExposureMode::Dynamic,
        ExposureMode::Dispatcher,
        ExposureMode::Deferred,
        ExposureMode::AllowedTools,
    ];

    /// Whether the system prompt and the tool list stay the same all conversation long
    /// ([`ExposureMode::Deferred`] and [`ExposureMode::AllowedTools`]): the prompt then leaves
    /// out the sections about loaded skills and tools (the load results in the conversation
    /// say it), so a provider's cached prefix is never invalidated.
    #[must_use]
    pub fn keeps_prefix(self) -> bool {
        matches!(self, ExposureMode::Deferred | ExposureMode::AllowedTools)
    }

    /// The mode's name on the command line and in configuration: `dynamic`, `dispatcher`,
    /// `deferred`, `allowed-tools`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ExposureMode::Dynamic => "dynamic",
            ExposureMode::Dispatcher => "dispatcher",
            ExposureMode::Deferred => "deferred",
            ExposureMode::AllowedTools => "allowed-tools",
        }
    }
}

impl std::str::FromStr for ExposureMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExposureMode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!(
                "unknown exposure mode `{s}`: expected one of {}",
                ExposureMode::ALL.map(ExposureMode::name).join(", ")
            )
        })
    }
}

/// Which sections the system prompt has, in this order (stable ones first, so a provider's
/// prefix cache survives skill loads).
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // one switch per section
pub struct PromptOptions {
    /// The agent's prompt.
    pub agent_prompt: bool,
    /// The full content of the initial (and global initial) skills.
    pub initial_skills: bool,
    /// The catalog of skills that can be loaded.
    pub catalog: bool,
    /// How to load skills, naming the meta-tools enabled.
    pub instructions: bool,
    /// The skills loaded during the session.
    pub loaded_skills: bool,
    /// The domain tools currently available.
    pub available_tools: bool,
    /// Caps the catalog to about this many tokens (estimated as characters / 4); the rest
    /// is reachable through `listAvailableSkills`.
    pub catalog_token_budget: Option<usize>,
    /// How the catalog is written.
    pub catalog_format: CatalogFormat,
}

/// How the skill catalog is written in the system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CatalogFormat {
    /// A markdown list: `- **name**: description (toolsets: ...)`.
    #[default]
    Markdown,
    /// The Agent Skills integration guide's `<available_skills>` block
    /// (`<skill><name>…</name><description>…</description><location>…</location></skill>`,
    /// sorted, XML-escaped, left out with the section when there is no skill to load).
    Xml,
}

/// How a successful `loadSkill` (or `task.<skill>`) result is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultFormat {
    /// A JSON object: `{"success": true, "content", "metadata", "files", "tools"}` (TS
    /// Carnet's shape).
    #[default]
    Json,
    /// The skill wrapped as text: `<skill_context name="…">` instructions, its files, which
    /// tools it made callable and what to do now, `</skill_context>`. Failures stay
    /// structured JSON.
    Envelope,
}

impl Default for PromptOptions {
    fn default() -> Self {
        PromptOptions {
            agent_prompt: true,
            initial_skills: true,
            catalog: true,
            instructions: true,
            loaded_skills: true,
            available_tools: true,
            catalog_token_budget: None,
            catalog_format: CatalogFormat::Markdown,
        }
    }
}

/// Why a [`Carnet`](crate::Carnet) could not be built: the build-time binding checks, at run time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Implementations given for a toolset the manifest does not have.
    #[error("unknown toolset `{toolset}`{}", hint(.similar.as_ref()))]
    UnknownToolset {
        /// The name given.
        toolset: String,
        /// The closest existing name.
        similar: Option<String>,
    },
    /// A hook registered for a tool that is neither a domain tool nor a meta-tool.
    #[error("unknown tool `{tool}`{}", hint(.similar.as_ref()))]
    UnknownTool {
        /// The name given.
        tool: String,
        /// The closest existing name.
        similar: Option<String>,
    },
    /// An implementation for a tool the toolset does not declare.
    #[error("toolset `{toolset}` declares no tool `{tool}` (it declares: {})", .declared.join(", "))]
    UndeclaredTool {
        /// The toolset.
        toolset: String,
        /// The implemented tool.
        tool: String,
        /// What the toolset declares.
        declared: Vec<String>,
    },
    /// Two implementations of one tool.
    #[error("tool `{tool}` of toolset `{toolset}` is implemented twice")]
    DuplicateTool {
        /// The toolset.
        toolset: String,
        /// The tool.
        tool: String,
    },
    /// Declared tools without an implementation (see [`CarnetBuilder::allow_unimplemented`](crate::CarnetBuilder::allow_unimplemented)).
    #[error("{} declared tool(s) have no implementation: {}", .tools.len(), .tools.join(", "))]
    MissingTools {
        /// `toolset/tool` for each.
        tools: Vec<String>,
    },
    /// A variable name that no placeholder can reference.
    #[error("invalid variable name `{name}`: names are `[A-Za-z_][A-Za-z0-9_]*`")]
    InvalidVariable {
        /// The name given.
        name: String,
    },
    /// A tool's input schema is not an object schema.
    #[error("the input schema of tool `{tool}` must be an object schema")]
    InvalidSchema {
        /// The tool.
        tool: String,
    },
}

fn hint(similar: Option<&String>) -> String {
    similar.map(|s| format!(": did you mean `{s}`?")).unwrap_or_default()
}
