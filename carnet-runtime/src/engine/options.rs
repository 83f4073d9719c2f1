//! The engine's options: which meta-tools, how they are named, how domain tools reach the
//! model, which prompt sections; and why an engine could not be built.

pub use crate::meta_tool::Naming;
use crate::meta_tool::{MetaTool, NameEnums};

/// Which meta-tools the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    /// All six: `listAvailableSkills`, `loadSkill`, `listSkillToolsets`, `loadToolset`,
    /// `loadTool`, `loadSkillFile`.
    #[default]
    Full,
    /// `loadSkill` and `loadSkillFile` only (TS Carnet's set).
    Minimal,
    /// The six of [`Preset::Full`] and the discovery tools `listTools`, `describeTool` and
    /// `searchTools`, which browse and rank tools without exposing any (the two-level
    /// disclosure of the tool-discovery design).
    Discovery,
}

impl Preset {
    /// The meta-tools of the preset, in the order they are offered.
    #[must_use]
    pub fn meta_tools(self) -> &'static [MetaTool] {
        match self {
            Preset::Full => &MetaTool::ALL[..6],
            Preset::Minimal => &[MetaTool::LoadSkill, MetaTool::LoadSkillFile],
            Preset::Discovery => &MetaTool::ALL[..9],
        }
    }
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

/// Whether the provider searches the deferred tools itself, in [`ExposureMode::Deferred`]:
/// the request declares the provider's own tool search tool beside the deferred tools, so
/// the model can find a tool by a query before it knows which skill holds it. Off by
/// default, which leaves every body as it was. Set on the model clients
/// (`models::Anthropic::tool_search`, `models::OpenAi::tool_search`), or on a rendered body
/// with [`providers::anthropic::declare_tool_search`](crate::providers::anthropic::declare_tool_search)
/// and [`providers::openai::declare_tool_search`](crate::providers::openai::declare_tool_search).
///
/// | API | declared |
/// | --- | --- |
/// | Anthropic Messages | `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}` ([`ProviderSearch::Bm25`]) or the `regex` pair ([`ProviderSearch::Regex`]) |
/// | `OpenAI` Responses | `{"type": "tool_search"}`, hosted (either variant: `OpenAI` has one kind of search) over the namespaces of deferred functions |
/// | `OpenAI` Chat Completions, Gemini | nothing: neither has deferral nor a search of its own |
///
/// The provider's search only shows the model a tool's definition; it does not expose it.
/// carnet's session keeps its own rules: a call of a tool that no load exposed is refused
/// with the usual error result, which names the skill to load (`loadSkill`), as it would be
/// without the search. The search's own blocks and items (Anthropic `server_tool_use` and
/// `tool_search_tool_result`, `OpenAI` `tool_search_call` and `tool_search_output`) are
/// kept in the conversation as the provider wrote them
/// ([`Message::Hosted`](crate::chat::Message::Hosted)) and sent back on the next request.
///
/// # Examples
///
/// ```
/// use carnet_runtime::providers::{ProviderSearch, anthropic};
/// use serde_json::json;
///
/// let mut body = json!({"tools": [
///     {"name": "loadSkill", "description": "Load a skill", "input_schema": {"type": "object"}},
///     {"name": "file_read", "description": "Read a file", "input_schema": {"type": "object"}, "defer_loading": true},
/// ]});
/// assert!(anthropic::declare_tool_search(&mut body, ProviderSearch::Bm25)?);
/// assert_eq!(body["tools"][2], json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}));
/// assert_eq!("regex".parse::<ProviderSearch>(), Ok(ProviderSearch::Regex));
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProviderSearch {
    /// No search tool is declared (the default).
    #[default]
    Off,
    /// Natural-language queries ranked with BM25 (Anthropic `tool_search_tool_bm25`).
    Bm25,
    /// Regular expressions over names, descriptions and parameters (Anthropic
    /// `tool_search_tool_regex`, Python `re.search` syntax).
    Regex,
}

impl ProviderSearch {
    /// Every variant, in declaration order.
    pub const ALL: [ProviderSearch; 3] = [ProviderSearch::Off, ProviderSearch::Bm25, ProviderSearch::Regex];

    /// The variant's name on the command line and in configuration: `off`, `bm25`, `regex`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ProviderSearch::Off => "off",
            ProviderSearch::Bm25 => "bm25",
            ProviderSearch::Regex => "regex",
        }
    }
}

impl std::str::FromStr for ProviderSearch {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProviderSearch::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!(
                "unknown provider search `{s}`: expected one of {}",
                ProviderSearch::ALL.map(ProviderSearch::name).join(", ")
            )
        })
    }
}

/// Which sections the system prompt has, in this order (stable ones first, so a provider's
/// prefix cache survives skill loads), and which names the meta-tools' schemas list.
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
    /// Which meta-tool parameters list the names of the skills, toolsets and tools the agent
    /// can reach as a JSON Schema `enum`, the catalog's counterpart in the tools array (see
    /// [`NameEnums`]; default: the skill names, up to 64). Read from the
    /// engine's options: [`Session::system_prompt_for`](crate::Session::system_prompt_for)
    /// renders the prompt only.
    pub name_enums: NameEnums,
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
            name_enums: NameEnums::default(),
        }
    }
}

/// Why a [`Carnet`](crate::Carnet) could not be built: the build-time binding checks, at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// Implementations given for a toolset the manifest does not have.
    UnknownToolset {
        /// The name given.
        toolset: String,
        /// The closest existing name.
        similar: Option<String>,
    },
    /// A hook registered for a tool that is neither a domain tool nor a meta-tool.
    UnknownTool {
        /// The name given.
        tool: String,
        /// The closest existing name.
        similar: Option<String>,
    },
    /// An implementation for a tool the toolset does not declare.
    UndeclaredTool {
        /// The toolset.
        toolset: String,
        /// The implemented tool.
        tool: String,
        /// What the toolset declares.
        declared: Vec<String>,
    },
    /// Two implementations of one tool.
    DuplicateTool {
        /// The toolset.
        toolset: String,
        /// The tool.
        tool: String,
    },
    /// Declared tools without an implementation (see [`CarnetBuilder::allow_unimplemented`](crate::CarnetBuilder::allow_unimplemented)).
    MissingTools {
        /// `toolset/tool` for each.
        tools: Vec<String>,
    },
    /// A variable name that no placeholder can reference.
    InvalidVariable {
        /// The name given.
        name: String,
    },
    /// A tool's input schema is not an object schema.
    InvalidSchema {
        /// The tool.
        tool: String,
    },
    /// A tool takes a state (`State<T>`, or [`ToolImpl::with_state`](crate::ToolImpl::with_state))
    /// that the engine's state does not provide.
    MissingState {
        /// The tool.
        tool: String,
        /// The state's type.
        ty: String,
    },
    /// A remote toolset (an `mcp:` block) that cannot be bound to its server: carnet was
    /// built without the feature `remote`, its description is invalid, or Rust
    /// implementations were given for it.
    RemoteToolset {
        /// The toolset.
        toolset: String,
        /// What is wrong.
        reason: String,
    },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownToolset { toolset, similar } => {
                write!(f, "unknown toolset `{toolset}`{}", hint(similar.as_ref()))
            }
            Self::UnknownTool { tool, similar } => write!(f, "unknown tool `{tool}`{}", hint(similar.as_ref())),
            Self::UndeclaredTool {
                toolset,
                tool,
                declared,
            } => write!(
                f,
                "toolset `{toolset}` declares no tool `{tool}` (it declares: {})",
                declared.join(", ")
            ),
            Self::DuplicateTool { toolset, tool } => {
                write!(f, "tool `{tool}` of toolset `{toolset}` is implemented twice")
            }
            Self::MissingTools { tools } => write!(
                f,
                "{} declared tool(s) have no implementation: {}",
                tools.len(),
                tools.join(", ")
            ),
            Self::InvalidVariable { name } => {
                write!(f, "invalid variable name `{name}`: names are `[A-Za-z_][A-Za-z0-9_]*`")
            }
            Self::InvalidSchema { tool } => write!(f, "the input schema of tool `{tool}` must be an object schema"),
            Self::MissingState { tool, ty } => write!(
                f,
                "tool `{tool}` takes `State<{ty}>`, and the engine was given no `{ty}`: pass it to `.state(..)`"
            ),
            Self::RemoteToolset { toolset, reason } => write!(f, "remote toolset `{toolset}`: {reason}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// What the engine does with a remote tool whose server no longer matches its pin (the tool
/// vanished, or its input or output schema changed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriftPolicy {
    /// Refuse the tool's calls with an error result (`code`: `upstream_drift`) until it is
    /// pinned again and the program rebuilt.
    #[default]
    Refuse,
    /// Call it anyway (the drift is still logged).
    Accept,
}

/// How the engine talks to the servers of remote toolsets (feature `remote`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// How long starting a server (`initialize` and `tools/list`) may take (default 30 s).
    pub connect_timeout: std::time::Duration,
    /// How long one call may take before the server is deemed hung (default 60 s).
    pub call_timeout: std::time::Duration,
    /// The wait before starting a failed server again; doubles after each failure in a row
    /// (default 250 ms).
    pub restart_backoff: std::time::Duration,
    /// The longest wait between starts (default 30 s).
    pub max_restart_backoff: std::time::Duration,
    /// The largest message read from a server (default 16 MiB): a longer line ends the
    /// connection rather than filling memory.
    pub max_message_bytes: usize,
    /// What to do when a server drifted from its pin (default [`DriftPolicy::Refuse`]).
    pub drift: DriftPolicy,
    /// How to sign in to servers over HTTP that require OAuth (feature `remote-oauth`;
    /// default: tokens from [`FileStore::default_dir`](crate::remote::oauth::FileStore::default_dir),
    /// no sign-in of its own).
    #[cfg(feature = "remote-oauth")]
    pub oauth: crate::remote::oauth::options::OAuth,
    /// Answers the servers' `elicitation/create` requests ([`RemoteOptions::on_elicitation`]).
    pub(crate) elicitation: Option<RequestHandler>,
    /// Answers the servers' `sampling/createMessage` requests ([`RemoteOptions::on_sampling`]).
    pub(crate) sampling: Option<RequestHandler>,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            connect_timeout: std::time::Duration::from_secs(30),
            call_timeout: std::time::Duration::from_mins(1),
            restart_backoff: std::time::Duration::from_millis(250),
            max_restart_backoff: std::time::Duration::from_secs(30),
            max_message_bytes: 16 << 20,
            drift: DriftPolicy::Refuse,
            #[cfg(feature = "remote-oauth")]
            oauth: crate::remote::oauth::options::OAuth::default(),
            elicitation: None,
            sampling: None,
        }
    }
}

impl RemoteOptions {
    /// Sets [`RemoteOptions::connect_timeout`].
    #[must_use]
    pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`RemoteOptions::call_timeout`].
    #[must_use]
    pub fn call_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Sets [`RemoteOptions::restart_backoff`] and [`RemoteOptions::max_restart_backoff`].
    #[must_use]
    pub fn restart_backoff(mut self, first: std::time::Duration, max: std::time::Duration) -> Self {
        self.restart_backoff = first;
        self.max_restart_backoff = max;
        self
    }

    /// Sets [`RemoteOptions::max_message_bytes`].
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets [`RemoteOptions::drift`].
    #[must_use]
    pub fn drift(mut self, policy: DriftPolicy) -> Self {
        self.drift = policy;
        self
    }

    /// Sets [`RemoteOptions::oauth`].
    #[cfg(feature = "remote-oauth")]
    #[must_use]
    pub fn oauth(mut self, oauth: crate::remote::oauth::options::OAuth) -> Self {
        self.oauth = oauth;
        self
    }

    /// Answers the `elicitation/create` requests the servers of remote toolsets send during
    /// calls that no MCP host answers (a program running its own model loop; in a gateway,
    /// the calls of hosts that did not declare `elicitation`). `handler` gets the request's
    /// `params` (`message`, `requestedSchema`) and returns its result
    /// (`{"action": "accept", "content": {...}}`, `{"action": "decline"}` or
    /// `{"action": "cancel"}`), or an error message (the server reads an internal error).
    ///
    /// carnet's client declares the `elicitation` capability (form mode) to the servers only
    /// when the program gives a handler or serves the engine over MCP (the gateway relays to
    /// its hosts); otherwise it declares none and refuses such a request (`-32601`).
    #[must_use]
    pub fn on_elicitation<F, R>(mut self, handler: F) -> Self
    where
        F: Fn(serde_json::Value) -> R + Send + Sync + 'static,
        R: std::future::Future<Output = Result<serde_json::Value, String>> + Send + 'static,
    {
        self.elicitation = Some(RequestHandler::new(handler));
        self
    }

    /// Answers the servers' `sampling/createMessage` requests as
    /// [`RemoteOptions::on_elicitation`] answers elicitation (and declares `sampling` the
    /// same way): `handler` gets the request's `params` (`messages`, `maxTokens`, ...) and
    /// returns its result (`role`, `content`, `model`), or an error message.
    #[must_use]
    pub fn on_sampling<F, R>(mut self, handler: F) -> Self
    where
        F: Fn(serde_json::Value) -> R + Send + Sync + 'static,
        R: std::future::Future<Output = Result<serde_json::Value, String>> + Send + 'static,
    {
        self.sampling = Some(RequestHandler::new(handler));
        self
    }
}

/// A program's answer to one kind of request a remote toolset's server sends its client
/// during a call (see [`RemoteOptions::on_elicitation`]): the request's `params` in, its
/// result or an error message out, in MCP's JSON. Options compare equal when they share
/// the same handler.
#[derive(Clone)]
pub(crate) struct RequestHandler(
    std::sync::Arc<
        dyn Fn(serde_json::Value) -> crate::dispatch::BoxFuture<'static, Result<serde_json::Value, String>>
            + Send
            + Sync,
    >,
);

impl RequestHandler {
    /// A handler running `handler` for each request.
    pub(crate) fn new<F, R>(handler: F) -> Self
    where
        F: Fn(serde_json::Value) -> R + Send + Sync + 'static,
        R: std::future::Future<Output = Result<serde_json::Value, String>> + Send + 'static,
    {
        RequestHandler(std::sync::Arc::new(move |params| Box::pin(handler(params))))
    }

    /// Answers a request with `params`.
    #[cfg_attr(not(feature = "remote"), allow(dead_code, reason = "remote toolsets call it"))]
    pub(crate) fn answer(
        &self,
        params: serde_json::Value,
    ) -> crate::dispatch::BoxFuture<'static, Result<serde_json::Value, String>> {
        (self.0)(params)
    }
}

impl std::fmt::Debug for RequestHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestHandler(..)")
    }
}

impl PartialEq for RequestHandler {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for RequestHandler {}

fn hint(similar: Option<&String>) -> String {
    similar.map(|s| format!(": did you mean `{s}`?")).unwrap_or_default()
}
