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
use std::fmt;

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
/// use carnet_runtime::Manifest;
///
/// let manifest = Manifest::from_json(r#"{
///     "agents": { "helper": { "name": "helper", "description": "Helps", "skills": ["notes"], "prompt": "Be kind." } },
///     "skills": { "notes": { "name": "notes", "description": "Take notes", "content": "Write it down." } },
///     "toolsets": {}
/// }"#)?;
/// assert_eq!(manifest.agent("helper").unwrap().skills[0], "notes");
/// # Ok::<(), carnet_runtime::ManifestError>(())
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
}

// Hidden constructors, so code outside this crate never names the fields: the structs are
// `#[non_exhaustive]` and fields can be added or made private without breaking generated
// code. `__new` takes `'static` data (what `carnet_codegen` generates: `const`, no
// allocation, for `static MANIFEST`); `__from_parts` takes owned or borrowed data.

const fn borrowed(s: Option<&'static str>) -> Option<Text> {
    match s {
        Some(s) => Some(Cow::Borrowed(s)),
        None => None,
    }
}

impl Manifest {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __new(
        version: u32,
        app: App,
        agents: &'static [Agent],
        skills: &'static [Skill],
        toolsets: &'static [Toolset],
        variables: &'static [(Text, Text)],
        env_prefixes: &'static [Text],
        fingerprint: u64,
    ) -> Self {
        Self::__from_parts(
            version,
            app,
            Cow::Borrowed(agents),
            Cow::Borrowed(skills),
            Cow::Borrowed(toolsets),
            Cow::Borrowed(variables),
            Cow::Borrowed(env_prefixes),
            fingerprint,
        )
    }

    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __from_parts(
        version: u32,
        app: App,
        agents: List<Agent>,
        skills: List<Skill>,
        toolsets: List<Toolset>,
        variables: List<(Text, Text)>,
        env_prefixes: List<Text>,
        fingerprint: u64,
    ) -> Self {
        Manifest {
            version,
            app,
            agents,
            skills,
            toolsets,
            variables,
            env_prefixes,
            fingerprint,
        }
    }
}

impl App {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(global_initial_skills: &'static [Text], global_skills: &'static [Text]) -> Self {
        Self::__from_parts(Cow::Borrowed(global_initial_skills), Cow::Borrowed(global_skills))
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(global_initial_skills: List<Text>, global_skills: List<Text>) -> Self {
        App {
            global_initial_skills,
            global_skills,
        }
    }
}

impl Agent {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        initial_skills: &'static [Text],
        skills: &'static [Text],
        prompt: &'static str,
        extra: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(initial_skills),
            Cow::Borrowed(skills),
            Cow::Borrowed(prompt),
            Cow::Borrowed(extra),
        )
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(
        name: Text,
        description: Text,
        initial_skills: List<Text>,
        skills: List<Text>,
        prompt: Text,
        extra: Text,
    ) -> Self {
        Agent {
            name,
            description,
            initial_skills,
            skills,
            prompt,
            extra,
        }
    }
}

impl Skill {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        toolsets: &'static [Text],
        files: &'static [SkillFile],
        content: &'static str,
        license: Option<&'static str>,
        compatibility: Option<&'static str>,
        allowed_tools: &'static [Text],
        metadata: &'static str,
        extra: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(toolsets),
            Cow::Borrowed(files),
            Cow::Borrowed(content),
            borrowed(license),
            borrowed(compatibility),
            Cow::Borrowed(allowed_tools),
            Cow::Borrowed(metadata),
            Cow::Borrowed(extra),
        )
    }

    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __from_parts(
        name: Text,
        description: Text,
        toolsets: List<Text>,
        files: List<SkillFile>,
        content: Text,
        license: Option<Text>,
        compatibility: Option<Text>,
        allowed_tools: List<Text>,
        metadata: Text,
        extra: Text,
    ) -> Self {
        Skill {
            name,
            description,
            toolsets,
            files,
            content,
            license,
            compatibility,
            allowed_tools,
            metadata,
            extra,
        }
    }
}

impl SkillFile {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        path: &'static str,
        description: Option<&'static str>,
        media_type: &'static str,
        is_text: bool,
        data: &'static [u8],
        digest: Option<&'static str>,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(path),
            borrowed(description),
            Cow::Borrowed(media_type),
            is_text,
            Cow::Borrowed(data),
            borrowed(digest),
        )
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(
        path: Text,
        description: Option<Text>,
        media_type: Text,
        is_text: bool,
        data: Bytes,
        digest: Option<Text>,
    ) -> Self {
        SkillFile {
            path,
            description,
            media_type,
            is_text,
            data,
            digest,
        }
    }
}

impl Toolset {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        tools: &'static [Tool],
        content: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(tools),
            Cow::Borrowed(content),
        )
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(name: Text, description: Text, tools: List<Tool>, content: Text) -> Self {
        Toolset {
            name,
            description,
            tools,
            content,
        }
    }
}

impl Tool {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(name: &'static str, description: &'static str, content: &'static str) -> Self {
        Self::__from_parts(Cow::Borrowed(name), Cow::Borrowed(description), Cow::Borrowed(content))
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(name: Text, description: Text, content: Text) -> Self {
        Tool {
            name,
            description,
            content,
        }
    }
}

/// A typed reference to an agent of a generated manifest (`manifest::agents::RESEARCHER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(&'static str);

/// A typed reference to a skill of a generated manifest (`manifest::skills::DATA_ANALYSIS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkillId(&'static str);

/// A typed reference to a toolset of a generated manifest (`manifest::toolsets::SEARCH_TOOLS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolsetId(&'static str);

/// A typed reference to a tool of a generated manifest (`manifest::tools::BASIC_SEARCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolId {
    toolset: &'static str,
    name: &'static str,
}

macro_rules! name_id {
    ($($id:ident),*) => {$(
        impl $id {
            #[doc(hidden)]
            #[must_use]
            pub const fn __new(name: &'static str) -> Self {
                Self(name)
            }

            /// The name this id refers to.
            #[must_use]
            pub const fn name(self) -> &'static str {
                self.0
            }
        }

        impl fmt::Display for $id {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0)
            }
        }

        impl AsRef<str> for $id {
            fn as_ref(&self) -> &str {
                self.0
            }
        }
    )*};
}

name_id!(AgentId, SkillId, ToolsetId);

impl ToolId {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(toolset: &'static str, name: &'static str) -> Self {
        Self { toolset, name }
    }

    /// The tool's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The name of the toolset declaring the tool.
    #[must_use]
    pub const fn toolset(self) -> &'static str {
        self.toolset
    }
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl AsRef<str> for ToolId {
    fn as_ref(&self) -> &str {
        self.name
    }
}

fn find<'a, T>(items: &'a [T], name: &str, key: impl Fn(&T) -> &str) -> Option<&'a T> {
    items
        .binary_search_by(|item| key(item).cmp(name))
        .ok()
        .map(|index| &items[index])
}

impl Manifest {
    /// The agent named `name`.
    #[must_use]
    pub fn agent(&self, name: &str) -> Option<&Agent> {
        find(&self.agents, name, |a| &a.name)
    }

    /// The skill named `name`.
    #[must_use]
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        find(&self.skills, name, |s| &s.name)
    }

    /// The toolset named `name`.
    #[must_use]
    pub fn toolset(&self, name: &str) -> Option<&Toolset> {
        find(&self.toolsets, name, |t| &t.name)
    }

    /// Every toolset declaring a tool named `name`, with the tool, in toolset-name order.
    ///
    /// Tool names are unique among the tools one agent can reach, not across the whole
    /// manifest, hence an iterator.
    pub fn tools_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (&'a Toolset, &'a Tool)> {
        self.toolsets.iter().filter_map(move |toolset| {
            toolset
                .tools
                .iter()
                .find(|tool| tool.name == name)
                .map(|tool| (toolset, tool))
        })
    }

    /// The value of the default variable `name` (`variables` in `carnet.config.json`).
    #[must_use]
    pub fn variable(&self, name: &str) -> Option<&str> {
        find(&self.variables, name, |(k, _)| k).map(|(_, v)| &**v)
    }
}

impl Agent {
    /// The initial skills followed by the on-demand skills, without repeats.
    pub fn all_skills(&self) -> impl Iterator<Item = &str> {
        let mut seen = Vec::<&str>::new();
        self.initial_skills
            .iter()
            .chain(self.skills.iter())
            .map(|s| &**s)
            .filter(move |s| {
                if seen.contains(s) {
                    false
                } else {
                    seen.push(s);
                    true
                }
            })
    }
}

impl Skill {
    /// The file at `path` (relative to the skill's folder).
    #[must_use]
    pub fn file(&self, path: &str) -> Option<&SkillFile> {
        find(&self.files, path, |f| &f.path)
    }

    /// The frontmatter: `name`, `description`, then `license`, `compatibility`,
    /// `allowed-tools` (space-separated), `metadata`, `toolsets` and the keys carnet does not
    /// know (sorted), each present only when set.
    #[must_use]
    pub fn frontmatter(&self) -> Vec<(String, serde_json::Value)> {
        use serde_json::Value;
        let object = |json: &str| match serde_json::from_str(json) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let mut fields = vec![
            ("name".to_owned(), Value::from(&*self.name)),
            ("description".to_owned(), Value::from(&*self.description)),
        ];
        if let Some(license) = &self.license {
            fields.push(("license".to_owned(), Value::from(&**license)));
        }
        if let Some(compatibility) = &self.compatibility {
            fields.push(("compatibility".to_owned(), Value::from(&**compatibility)));
        }
        if !self.allowed_tools.is_empty() {
            let tools: Vec<&str> = self.allowed_tools.iter().map(|t| &**t).collect();
            fields.push(("allowed-tools".to_owned(), Value::from(tools.join(" "))));
        }
        let metadata = object(&self.metadata);
        if !metadata.is_empty() {
            fields.push(("metadata".to_owned(), Value::Object(metadata)));
        }
        if !self.toolsets.is_empty() {
            let toolsets: Vec<Value> = self.toolsets.iter().map(|t| Value::from(&**t)).collect();
            fields.push(("toolsets".to_owned(), Value::Array(toolsets)));
        }
        let mut extra: Vec<(String, Value)> = object(&self.extra).into_iter().collect();
        extra.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, value) in extra {
            if fields.iter().all(|(k, _)| *k != key) {
                fields.push((key, value));
            }
        }
        fields
    }

    /// The skill as a `SKILL.md` file (what MCP serves at `skill://<name>/SKILL.md`): the
    /// [frontmatter](Skill::frontmatter), each value written as JSON with object keys sorted
    /// (which YAML reads unchanged, and which is the same text whatever `serde_json` features
    /// are on), then the instructions.
    ///
    /// # Examples
    ///
    /// ```
    /// # let manifest = carnet_runtime::Manifest::from_json(r#"{"agents": {}, "toolsets": {}, "skills": {
    /// #     "notes": {"name": "notes", "description": "Take notes", "content": "Write things down."}}}"#)?;
    /// let skill = manifest.skill("notes").unwrap();
    /// assert_eq!(
    ///     skill.to_skill_md(),
    ///     "---\nname: \"notes\"\ndescription: \"Take notes\"\n---\n\nWrite things down.\n",
    /// );
    /// # Ok::<(), carnet_runtime::ManifestError>(())
    /// ```
    #[must_use]
    pub fn to_skill_md(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::from("---\n");
        for (key, value) in self.frontmatter() {
            let _ = writeln!(text, "{key}: {}", sorted_json(&value));
        }
        text.push_str("---\n\n");
        text.push_str(&self.content);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

/// `value` as compact JSON with every object's keys in sorted order.
fn sorted_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let fields: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), sorted_json(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(sorted_json).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

impl SkillFile {
    /// The file's content as text, if it is UTF-8 text.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        if self.is_text {
            std::str::from_utf8(&self.data).ok()
        } else {
            None
        }
    }

    /// Whether the skill lists this file in its frontmatter `files`.
    #[must_use]
    pub fn is_listed(&self) -> bool {
        self.description.is_some()
    }
}

impl Toolset {
    /// The tool named `name`.
    #[must_use]
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// 64-bit FNV-1a, used for manifest fingerprints: tiny, stable across platforms and
/// releases (unlike `std`'s `DefaultHasher`), and enough to tell two manifests apart.
#[must_use]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
