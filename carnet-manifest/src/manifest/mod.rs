//! The manifest: every agent, skill, toolset and tool of a carnet directory.
//!
//! A [`Manifest`] comes from one of two places:
//!
//! - the code `carnet_codegen` generates in `build.rs`, where every string and list is
//!   `'static` data borrowed from the binary (no parsing, no allocation at start-up);
//! - [`Manifest::from_json`], for programs that read a manifest at run time (ours, or one
//!   written by TS Carnet's `carnet build`).
//!
//! Both are the same type: text is [`Text`] (`Cow<'static, str>`) and lists are
//! [`List`] (`Cow<'static, [T]>`), borrowed in the first case and owned in the second.
//! Entities are kept sorted by name, so lookups are binary searches and every output
//! derived from a manifest has a deterministic order.

use std::borrow::Cow;

/// Text in a manifest: borrowed from the binary for generated manifests, owned otherwise.
pub type Text = Cow<'static, str>;

/// A list in a manifest: borrowed from the binary for generated manifests, owned otherwise.
pub type List<T> = Cow<'static, [T]>;

/// Bytes in a manifest (the data of a skill file).
pub type Bytes = Cow<'static, [u8]>;

/// The version of the manifest format this crate writes.
pub const MANIFEST_VERSION: u32 = 1;

/// Environment variable prefixes allowed to be injected as variables when the content does
/// not configure its own (`envPrefix` in `carnet.config.json`).
pub const DEFAULT_ENV_PREFIXES: [&str; 2] = ["CARNET_", "PUBLIC_"];

/// Every agent, skill, toolset and tool of a carnet directory, validated.
///
/// Entity lists are sorted by name and names are unique within a kind; a manifest produced
/// by `carnet_codegen` or accepted by [`Manifest::from_json`] also has every reference
/// resolved (agent → skill → toolset).
///
/// # Examples
///
/// ```
/// use carnet_manifest::Manifest;
///
/// let manifest = Manifest::from_json(r#"{
///     "agents": { "helper": { "name": "helper", "description": "Helps", "skills": ["notes"], "prompt": "Be kind." } },
///     "skills": { "notes": { "name": "notes", "description": "Take notes", "content": "Write it down." } },
///     "toolsets": {}
/// }"#)?;
/// assert_eq!(manifest.agent("helper").unwrap().skills[0], "notes");
/// # Ok::<(), carnet_manifest::ManifestError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Manifest {
    /// Format version (`1`).
    pub version: u32,
    /// Application-wide settings (global skills).
    pub app: App,
    /// Agents, sorted by name.
    pub agents: List<Agent>,
    /// Skills, sorted by name.
    pub skills: List<Skill>,
    /// Toolsets, sorted by name.
    pub toolsets: List<Toolset>,
    /// Default variables (`variables` in `carnet.config.json`), sorted by name.
    pub variables: List<(Text, Text)>,
    /// Environment variable prefixes allowed for variable injection (`envPrefix`).
    pub env_prefixes: List<Text>,
    /// Hash of the manifest's canonical JSON ([`Manifest::compute_fingerprint`]): identifies
    /// the content a session state was produced against.
    pub fingerprint: u64,
}

/// Application-wide settings of a manifest (`app` in `carnet.config.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct App {
    /// Skills loaded for every agent from the first turn.
    pub global_initial_skills: List<Text>,
    /// Skills every agent may load on demand.
    pub global_skills: List<Text>,
}

/// An agent (`agents/**/AGENT.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Agent {
    /// The agent's name (frontmatter `name`).
    pub name: Text,
    /// What the agent is for.
    pub description: Text,
    /// Skills loaded from the first turn, in declaration order.
    pub initial_skills: List<Text>,
    /// Skills the agent may load on demand, in declaration order.
    pub skills: List<Text>,
    /// The agent's prompt (the markdown body).
    pub prompt: Text,
    /// Frontmatter keys carnet does not know, as a JSON object (`{}` when there are none).
    pub extra: Text,
}

/// A skill (`skills/**/SKILL.md`), also a valid [Agent Skills](https://agentskills.io) skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skill {
    /// The skill's name.
    pub name: Text,
    /// What the skill does and when to use it (shown in the catalog).
    pub description: Text,
    /// Toolsets whose tools become callable when the skill is loaded.
    pub toolsets: List<Text>,
    /// Every file of the skill's folder, sorted by path.
    pub files: List<SkillFile>,
    /// The skill's instructions (the markdown body).
    pub content: Text,
    /// Agent Skills `license`.
    pub license: Option<Text>,
    /// Agent Skills `compatibility`.
    pub compatibility: Option<Text>,
    /// Agent Skills `allowed-tools`.
    pub allowed_tools: List<Text>,
    /// Agent Skills `metadata`, as a JSON object (`{}` when absent).
    pub metadata: Text,
    /// Frontmatter keys carnet does not know, as a JSON object (`{}` when there are none).
    pub extra: Text,
    /// For a skill served by an MCP server (MCP's Skills extension, pinned with its remote
    /// toolset): where to read it and what its pin recorded, a JSON object `{"toolset",
    /// "uri", "digest"}` (`digest`: the SHA-256 its `SKILL.md` must have). Its
    /// [`Skill::content`] is empty: `loadSkill` reads it from the server and checks the
    /// digest. `None` for skills of the carnet directory.
    pub remote: Option<Text>,
}

/// A file of a skill's folder, loadable with `loadSkillFile`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillFile {
    /// Path relative to the skill's folder, with `/` separators.
    pub path: Text,
    /// The description given in the skill's `files` list, if the file is listed there.
    pub description: Option<Text>,
    /// The media type guessed from the file's extension.
    pub media_type: Text,
    /// Whether the data is UTF-8 text (otherwise it is served base64-encoded).
    pub is_text: bool,
    /// The file's bytes.
    pub data: Bytes,
    /// `sha256:` and the 64 lowercase hex digits of the SHA-256 of [`SkillFile::data`],
    /// computed by `carnet_codegen` at build time (`None` in manifests written without it).
    pub digest: Option<Text>,
}

/// A toolset (`toolsets/**/TOOLSET.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Toolset {
    /// The toolset's name.
    pub name: Text,
    /// What the toolset offers.
    pub description: Text,
    /// The tools it declares, in declaration order.
    pub tools: List<Tool>,
    /// Usage documentation (the markdown body, served by `loadToolset`).
    pub content: Text,
    /// For a toolset whose tools an MCP server serves (an `mcp:` block in `TOOLSET.md`): how
    /// to reach the server and what its pin recorded, as a JSON object
    /// `{"server": {"command", "args", "env"} | {"url", "headers"}, "pin": {"serverInfo",
    /// "protocolVersion", "digest"}}`. `${VAR}` references stay as written: they are read
    /// from the environment when the server starts, never stored. `None` for toolsets
    /// implemented in Rust.
    pub mcp: Option<Text>,
}

/// A tool declared by a toolset.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tool {
    /// The tool's canonical name.
    pub name: Text,
    /// What the tool does, as the model sees it.
    pub description: Text,
    /// Longer documentation (the body of the tool's markdown file, served by `loadTool`).
    pub content: Text,
    /// For a tool of a remote toolset ([`Toolset::mcp`]): the tool as its server listed it
    /// when it was pinned, a JSON object with `inputSchema` and, when the server gave them,
    /// `title`, `outputSchema` and `annotations`. `None` for tools implemented in Rust.
    pub remote: Option<Text>,
    /// A human-readable name for hosts to show (MCP's `title`), from `TOOLSET.md` or the pin.
    pub title: Option<Text>,
    /// What the tool does to the world, as hints (MCP's tool annotations).
    pub annotations: Annotations,
}

/// What a tool does to the world, as MCP's tool annotations say it: hints for hosts (which
/// ask before a destructive call) and for the author's own policies, declared per tool in
/// `TOOLSET.md` (`readOnly`, `destructive`, `idempotent`, `openWorld`) or taken from a
/// remote toolset's pin. `None` is "not said": MCP's defaults then apply (not read-only,
/// destructive, not idempotent, open world), which [`Annotations::is_destructive`] follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Annotations {
    /// The tool does not change its environment (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// A change it makes may destroy something (`destructiveHint`; meaningful when not
    /// read-only).
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments changes nothing more (`idempotentHint`).
    pub idempotent: Option<bool>,
    /// It reaches an open world of entities, such as the web (`openWorldHint`).
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hint given.
    pub const NONE: Annotations = Annotations {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        read_only: Option<bool>,
        destructive: Option<bool>,
        idempotent: Option<bool>,
        open_world: Option<bool>,
    ) -> Self {
        Annotations {
            read_only,
            destructive,
            idempotent,
            open_world,
        }
    }

    /// Whether no hint is given.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.read_only.is_none() && self.destructive.is_none() && self.idempotent.is_none() && self.open_world.is_none()
    }

    /// Whether a call may destroy something, read as MCP reads the hints: a tool that is not
    /// said to be read-only may change things, and a change is destructive unless said not
    /// to be. A tool without hints is destructive.
    #[must_use]
    pub const fn is_destructive(&self) -> bool {
        !matches!(self.read_only, Some(true)) && !matches!(self.destructive, Some(false))
    }

    /// The hints as MCP's `annotations` object names them (`readOnlyHint`, ...), the ones
    /// given only, in the order of their names (so a JSON object has the same bytes whether
    /// or not `serde_json` keeps insertion order).
    pub fn hints(&self) -> impl Iterator<Item = (&'static str, bool)> {
        [
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
            ("readOnlyHint", self.read_only),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| (key, v)))
    }

    /// The hints as MCP's `annotations` object: `{"readOnlyHint": true, ...}`, the ones
    /// given only.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        crate::order::object(self.hints().map(|(k, v)| (k.to_owned(), serde_json::Value::Bool(v))))
    }
}

// Hidden constructors, so code outside this crate never names the fields: the structs are
// `#[non_exhaustive]` and fields can be added or made private without breaking generated
// code. `__new` takes `'static` data (what `carnet_codegen` generates: `const`, no
// allocation, for `static MANIFEST`); `__from_parts` takes owned or borrowed data.

mod construct;
mod ids;
mod lookup;

pub use construct::{__annotated_tool, __remote_tool, __text, __tool};
pub use ids::{AgentId, SkillId, ToolId, ToolsetId};
