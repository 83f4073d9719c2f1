//! [`Carnet`]: the immutable engine built from a manifest and the tool implementations,
//! shared by every session.

use std::any::Any;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use crate::dispatch::{Hook, ToolImpl, ToolsetImpl};
use crate::manifest::Manifest;
use crate::names;
use crate::tool::{ToolKind, ToolSpec};
use crate::variables::Variables;

/// Which meta-tools the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    /// All six: `listAvailableSkills`, `loadSkill`, `listSkillToolsets`, `loadToolset`,
    /// `loadTool`, `loadSkillFile`.
    #[default]
    Full,
    /// `loadSkill` and `loadSkillFile` only (TS Carnet's set).
    Minimal,
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
}

/// A meta-tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetaTool {
    /// `listAvailableSkills {query?}`.
    ListAvailableSkills,
    /// `loadSkill {skillName}`.
    LoadSkill,
    /// `listSkillToolsets {skillName}`.
    ListSkillToolsets,
    /// `loadToolset {toolsetName}`.
    LoadToolset,
    /// `loadTool {toolName}`.
    LoadTool,
    /// `loadSkillFile {skillName, path}`.
    LoadSkillFile,
    /// `callTool {name, arguments}` (dispatcher mode only).
    CallTool,
}

impl MetaTool {
    /// Every meta-tool, in the order they are offered.
    pub const ALL: [MetaTool; 7] = [
        MetaTool::ListAvailableSkills,
        MetaTool::LoadSkill,
        MetaTool::ListSkillToolsets,
        MetaTool::LoadToolset,
        MetaTool::LoadTool,
        MetaTool::LoadSkillFile,
        MetaTool::CallTool,
    ];

    /// The tool's name under `naming`.
    #[must_use]
    pub fn name(self, naming: Naming) -> &'static str {
        let index = self as usize;
        match naming {
            Naming::CamelCase => names::META_TOOLS[index],
            Naming::SnakeCase => names::META_TOOLS_SNAKE[index],
        }
    }

    /// The description the model reads.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            MetaTool::ListAvailableSkills => {
                "List the skills you can load, with their descriptions; `query` filters them"
            }
            MetaTool::LoadSkill => "Load a skill by name to get its full content and capabilities",
            MetaTool::ListSkillToolsets => "List the toolsets of a skill with their descriptions and tool counts",
            MetaTool::LoadToolset => "Load a toolset's documentation and make its tools available",
            MetaTool::LoadTool => "Load one tool's documentation and input schema and make the tool available",
            MetaTool::LoadSkillFile => "Load the content of a file from a previously loaded skill",
            MetaTool::CallTool => "Call a loaded domain tool by name with its arguments",
        }
    }

    /// The input schema under `naming`.
    #[must_use]
    pub fn input_schema(self, naming: Naming) -> Value {
        let p = |camel: &'static str| param(naming, camel);
        let string = |description: &str| json!({"type": "string", "description": description});
        let (properties, required): (Vec<(&str, Value)>, Vec<&str>) = match self {
            MetaTool::ListAvailableSkills => (
                vec![(
                    p("query"),
                    string("Words that the skill's name or description must contain"),
                )],
                vec![],
            ),
            MetaTool::LoadSkill => (
                vec![(p("skillName"), string("The name of the skill to load"))],
                vec![p("skillName")],
            ),
            MetaTool::ListSkillToolsets => (
                vec![(p("skillName"), string("The name of the skill"))],
                vec![p("skillName")],
            ),
            MetaTool::LoadToolset => (
                vec![(p("toolsetName"), string("The name of the toolset to load"))],
                vec![p("toolsetName")],
            ),
            MetaTool::LoadTool => (
                vec![(p("toolName"), string("The name of the tool to load"))],
                vec![p("toolName")],
            ),
            MetaTool::LoadSkillFile => (
                vec![
                    (p("skillName"), string("The name of the skill that contains the file")),
                    (p("path"), string("The path of the file to load (from the files array)")),
                ],
                vec![p("skillName"), p("path")],
            ),
            MetaTool::CallTool => (
                vec![
                    (p("name"), string("The name of the loaded tool to call")),
                    (
                        p("arguments"),
                        json!({"type": "object", "description": "The tool's arguments, as its input schema describes"}),
                    ),
                ],
                vec![p("name"), p("arguments")],
            ),
        };
        json!({
            "type": "object",
            "properties": properties.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<serde_json::Map<_, _>>(),
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// A meta-tool parameter's name under `naming`.
pub(crate) fn param(naming: Naming, camel: &'static str) -> &'static str {
    match (naming, camel) {
        (Naming::SnakeCase, "skillName") => "skill_name",
        (Naming::SnakeCase, "toolsetName") => "toolset_name",
        (Naming::SnakeCase, "toolName") => "tool_name",
        _ => camel,
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
        }
    }
}

/// Why a [`Carnet`] could not be built: the build-time binding checks, at run time.
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
    /// Declared tools without an implementation (see [`CarnetBuilder::allow_unimplemented`]).
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

/// A skill's place in the engine's tables.
#[derive(Debug)]
pub(crate) struct AgentTables {
    /// Initial skills (agent's, then global initial ones), deduplicated.
    pub(crate) initial: Vec<u32>,
    /// Every skill the agent may load (initial, on demand, global), deduplicated, in order.
    pub(crate) reachable: Vec<u32>,
    /// Sections 1-4 of the system prompt, built once.
    pub(crate) prefix: OnceLock<String>,
}

pub(crate) struct Inner {
    pub(crate) manifest: Manifest,
    pub(crate) variables: Variables,
    pub(crate) meta: Vec<MetaTool>,
    pub(crate) meta_specs: Vec<ToolSpec>,
    pub(crate) naming: Naming,
    pub(crate) mode: ExposureMode,
    pub(crate) prompt: PromptOptions,
    pub(crate) hooks: Vec<Arc<dyn Hook>>,
    pub(crate) state: Box<dyn Any + Send + Sync>,
    pub(crate) agents: Vec<AgentTables>,
    /// Skill index → toolset indices.
    pub(crate) skill_toolsets: Vec<Vec<u32>>,
    /// Toolset index → first global tool id (tools of toolset `t` are `first[t]..first[t+1]`).
    pub(crate) toolset_first_tool: Vec<u32>,
    /// Global tool id → (toolset index, spec, implementation).
    pub(crate) tools: Vec<DomainTool>,
    /// Canonical name and provider alias → global tool ids.
    pub(crate) tool_names: HashMap<String, Vec<u32>>,
    /// Prompts and tool lists by session state, shared by every session.
    pub(crate) state_cache: StateCache,
}

/// A session's prompt depends on its agent, its loaded skills and its exposed tools; its tool
/// list on the exposed tools. Conversations tend to reach the same few states (the initial
/// one above all), so the engine keeps one copy of each: a session gets an `Arc`, and a new
/// session in a known state builds nothing. Bounded: past `STATE_CACHE_LIMIT` entries the
/// cache starts over (entries are cheap to rebuild; sessions keep their own `Arc`s).
#[derive(Default)]
pub(crate) struct StateCache {
    prompts: Mutex<HashMap<PromptKey, Arc<str>>>,
    tools: Mutex<HashMap<ToolsKey, Arc<[ToolSpec]>>>,
}

/// Agent, loaded skills (in load order), exposed tools (in exposure order).
pub(crate) type PromptKey = (u32, Box<[u32]>, Box<[u32]>);

/// Exposed tools, in exposure order.
pub(crate) type ToolsKey = Box<[u32]>;

const STATE_CACHE_LIMIT: usize = 4096;

impl StateCache {
    pub(crate) fn prompt(&self, key: PromptKey, build: impl FnOnce() -> Arc<str>) -> Arc<str> {
        let mut prompts = self.prompts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(prompt) = prompts.get(&key) {
            return Arc::clone(prompt);
        }
        let prompt = build();
        if prompts.len() >= STATE_CACHE_LIMIT {
            prompts.clear();
        }
        prompts.insert(key, Arc::clone(&prompt));
        prompt
    }

    pub(crate) fn tools(&self, key: ToolsKey, build: impl FnOnce() -> Arc<[ToolSpec]>) -> Arc<[ToolSpec]> {
        let mut tools = self.tools.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(list) = tools.get(&key) {
            return Arc::clone(list);
        }
        let list = build();
        if tools.len() >= STATE_CACHE_LIMIT {
            tools.clear();
        }
        tools.insert(key, Arc::clone(&list));
        list
    }
}

pub(crate) struct DomainTool {
    pub(crate) toolset: u32,
    pub(crate) spec: ToolSpec,
    pub(crate) implementation: Option<ToolImpl>,
}

/// The engine: a manifest, the tool implementations, variables and options. Immutable,
/// `Send + Sync` and cheap to clone (an `Arc`): share one across threads and make a
/// [`crate::Session`] per conversation.
///
/// # Examples
///
/// ```
/// use carnet_runtime::{Carnet, Manifest};
///
/// let manifest = Manifest::from_json(r#"{
///     "agents": { "helper": { "name": "helper", "description": "Helps", "skills": ["notes"], "prompt": "Be kind." } },
///     "skills": { "notes": { "name": "notes", "description": "Take notes", "content": "Write it down." } },
///     "toolsets": {}
/// }"#)?;
/// let carnet = Carnet::builder(&manifest).build()?;
/// let mut session = carnet.session("helper")?;
/// assert!(session.system_prompt().starts_with("Be kind."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Carnet {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for Carnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Carnet")
            .field("agents", &self.inner.manifest.agents.len())
            .field("skills", &self.inner.manifest.skills.len())
            .field("tools", &self.inner.tools.len())
            .field("mode", &self.inner.mode)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Carnet`]; see [`Carnet::builder`].
pub struct CarnetBuilder {
    manifest: Manifest,
    toolsets: Vec<ToolsetImpl>,
    variables: Vec<(String, String)>,
    env_prefixes: Option<Vec<String>>,
    preset: Preset,
    meta: Option<Vec<MetaTool>>,
    naming: Naming,
    mode: ExposureMode,
    prompt: PromptOptions,
    hooks: Vec<Arc<dyn Hook>>,
    state: Box<dyn Any + Send + Sync>,
    allow_unimplemented: bool,
}

impl fmt::Debug for CarnetBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CarnetBuilder")
            .field("toolsets", &self.toolsets.len())
            .finish_non_exhaustive()
    }
}

impl Carnet {
    /// Starts building an engine over `manifest` (cloning a generated `'static` manifest
    /// copies a few pointers, nothing more).
    #[must_use]
    pub fn builder(manifest: &Manifest) -> CarnetBuilder {
        CarnetBuilder {
            manifest: manifest.clone(),
            toolsets: Vec::new(),
            variables: Vec::new(),
            env_prefixes: None,
            preset: Preset::Full,
            meta: None,
            naming: Naming::CamelCase,
            mode: ExposureMode::Dynamic,
            prompt: PromptOptions::default(),
            hooks: Vec::new(),
            state: Box::new(()),
            allow_unimplemented: false,
        }
    }

    /// The manifest.
    #[must_use]
    pub fn manifest(&self) -> &Manifest {
        &self.inner.manifest
    }

    /// The exposure mode.
    #[must_use]
    pub fn mode(&self) -> ExposureMode {
        self.inner.mode
    }

    /// The meta-tools offered, in order.
    #[must_use]
    pub fn meta_tools(&self) -> &[MetaTool] {
        &self.inner.meta
    }

    /// The variables (environment snapshot, manifest defaults and builder ones, layered).
    #[must_use]
    pub fn variables(&self) -> &Variables {
        &self.inner.variables
    }

    /// The spec of every domain tool named `name` (canonical name or provider alias).
    pub fn domain_tools_named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a ToolSpec> + 'a {
        self.inner
            .tool_names
            .get(name)
            .into_iter()
            .flatten()
            .map(|&id| &self.inner.tools[id as usize].spec)
    }
}

impl Inner {
    pub(crate) fn agent_index(&self, name: &str) -> Option<u32> {
        self.manifest
            .agents
            .binary_search_by(|a| (*a.name).cmp(name))
            .ok()
            .map(|i| i as u32)
    }

    pub(crate) fn skill_index(&self, name: &str) -> Option<u32> {
        self.manifest
            .skills
            .binary_search_by(|s| (*s.name).cmp(name))
            .ok()
            .map(|i| i as u32)
    }

    pub(crate) fn toolset_index(&self, name: &str) -> Option<u32> {
        self.manifest
            .toolsets
            .binary_search_by(|t| (*t.name).cmp(name))
            .ok()
            .map(|i| i as u32)
    }

    pub(crate) fn toolset_tools(&self, toolset: u32) -> std::ops::Range<u32> {
        self.toolset_first_tool[toolset as usize]..self.toolset_first_tool[toolset as usize + 1]
    }

    pub(crate) fn meta_name(&self, meta: MetaTool) -> &'static str {
        meta.name(self.naming)
    }

    pub(crate) fn meta_by_name(&self, name: &str) -> Option<MetaTool> {
        self.meta.iter().copied().find(|m| m.name(self.naming) == name)
    }

    pub(crate) fn has_meta(&self, meta: MetaTool) -> bool {
        self.meta.contains(&meta)
    }
}

/// The input schema of a declared tool without an implementation: any object.
fn open_schema() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

impl CarnetBuilder {
    /// Adds the implementations of one toolset.
    #[must_use]
    pub fn toolset(mut self, toolset: ToolsetImpl) -> Self {
        self.toolsets.push(toolset);
        self
    }

    /// Adds the implementations of several toolsets.
    #[must_use]
    pub fn toolsets(mut self, toolsets: impl IntoIterator<Item = ToolsetImpl>) -> Self {
        self.toolsets.extend(toolsets);
        self
    }

    /// Variables for every injection, over the manifest's defaults and the environment.
    #[must_use]
    pub fn variables<K: Into<String>, V: Into<String>>(mut self, variables: impl IntoIterator<Item = (K, V)>) -> Self {
        self.variables
            .extend(variables.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Environment variable prefixes allowed for injection (default: the manifest's
    /// `envPrefix`, itself defaulting to `CARNET_` and `PUBLIC_`). An empty list disables
    /// environment variables. The environment is read once, by [`CarnetBuilder::build`].
    #[must_use]
    pub fn env_prefixes<S: Into<String>>(mut self, prefixes: impl IntoIterator<Item = S>) -> Self {
        self.env_prefixes = Some(prefixes.into_iter().map(Into::into).collect());
        self
    }

    /// Which meta-tools to offer (default [`Preset::Full`]).
    #[must_use]
    pub fn preset(mut self, preset: Preset) -> Self {
        self.preset = preset;
        self.meta = None;
        self
    }

    /// Exactly these meta-tools (`callTool` is added in dispatcher mode anyway).
    #[must_use]
    pub fn meta_tools(mut self, tools: impl IntoIterator<Item = MetaTool>) -> Self {
        self.meta = Some(tools.into_iter().collect());
        self
    }

    /// How meta-tools are named (default camelCase).
    #[must_use]
    pub fn naming(mut self, naming: Naming) -> Self {
        self.naming = naming;
        self
    }

    /// How domain tools reach the model (default [`ExposureMode::Dynamic`]).
    #[must_use]
    pub fn mode(mut self, mode: ExposureMode) -> Self {
        self.mode = mode;
        self
    }

    /// The system prompt's sections.
    #[must_use]
    pub fn prompt_options(mut self, options: PromptOptions) -> Self {
        self.prompt = options;
        self
    }

    /// A hook run around every call; hooks run in the order they are added.
    #[must_use]
    pub fn hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Application state tools reach through [`crate::Context::state`].
    #[must_use]
    pub fn state<T: Any + Send + Sync>(mut self, state: T) -> Self {
        self.state = Box::new(state);
        self
    }

    /// Accepts declared tools without an implementation: they are offered with the schema
    /// the manifest can give (any object) and calling them returns an error result. For
    /// inspecting content (`carnet prompt`, `carnet tools`), not for serving a model.
    #[must_use]
    pub fn allow_unimplemented(mut self) -> Self {
        self.allow_unimplemented = true;
        self
    }

    /// Builds the engine, checking the implementations against the manifest.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for an unknown toolset, an undeclared tool, a tool implemented twice,
    /// a non-object input schema, or declared tools without implementation (unless
    /// [`CarnetBuilder::allow_unimplemented`]).
    pub fn build(self) -> Result<Carnet, BuildError> {
        let manifest = self.manifest;
        let mut impls: Vec<Vec<Option<ToolImpl>>> =
            manifest.toolsets.iter().map(|t| vec![None; t.tools.len()]).collect();
        for set in self.toolsets {
            let Ok(ti) = manifest.toolsets.binary_search_by(|t| (*t.name).cmp(&set.toolset)) else {
                let similar = closest(&set.toolset, manifest.toolsets.iter().map(|t| &*t.name));
                return Err(BuildError::UnknownToolset {
                    toolset: set.toolset.into_owned(),
                    similar,
                });
            };
            let toolset = &manifest.toolsets[ti];
            for tool in set.tools {
                let Some(j) = toolset.tools.iter().position(|t| t.name == tool.name) else {
                    return Err(BuildError::UndeclaredTool {
                        toolset: toolset.name.to_string(),
                        tool: tool.name.into_owned(),
                        declared: toolset.tools.iter().map(|t| t.name.to_string()).collect(),
                    });
                };
                if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
                    return Err(BuildError::InvalidSchema {
                        tool: tool.name.into_owned(),
                    });
                }
                let slot = &mut impls[ti][j];
                if slot.is_some() {
                    return Err(BuildError::DuplicateTool {
                        toolset: toolset.name.to_string(),
                        tool: tool.name.into_owned(),
                    });
                }
                *slot = Some(tool);
            }
        }
        if !self.allow_unimplemented {
            let missing: Vec<String> = manifest
                .toolsets
                .iter()
                .zip(&impls)
                .flat_map(|(t, slots)| {
                    t.tools
                        .iter()
                        .zip(slots)
                        .filter(|(_, s)| s.is_none())
                        .map(move |(tool, _)| format!("{}/{}", t.name, tool.name))
                })
                .collect();
            if !missing.is_empty() {
                return Err(BuildError::MissingTools { tools: missing });
            }
        }

        let mut tools = Vec::new();
        let mut toolset_first_tool = Vec::with_capacity(manifest.toolsets.len() + 1);
        let mut tool_names: HashMap<String, Vec<u32>> = HashMap::new();
        for (ti, (toolset, slots)) in manifest.toolsets.iter().zip(impls).enumerate() {
            toolset_first_tool.push(tools.len() as u32);
            for (tool, implementation) in toolset.tools.iter().zip(slots) {
                let id = tools.len() as u32;
                let description = if tool.description.is_empty() {
                    implementation
                        .as_ref()
                        .and_then(|i| i.description.clone())
                        .unwrap_or(Cow::Borrowed(""))
                } else {
                    tool.description.clone()
                };
                let input_schema = implementation
                    .as_ref()
                    .map_or_else(|| Arc::new(open_schema()), |i| i.input_schema.clone());
                tool_names.entry(tool.name.to_string()).or_default().push(id);
                if let Ok(alias) = names::alias(&tool.name)
                    && alias != tool.name
                {
                    tool_names.entry(alias.into_owned()).or_default().push(id);
                }
                tools.push(DomainTool {
                    toolset: ti as u32,
                    spec: ToolSpec {
                        name: tool.name.to_string(),
                        description: description.into_owned(),
                        input_schema,
                        kind: ToolKind::Domain,
                        toolset: Some(toolset.name.to_string()),
                    },
                    implementation,
                });
            }
        }
        toolset_first_tool.push(tools.len() as u32);

        let skill_toolsets: Vec<Vec<u32>> = manifest
            .skills
            .iter()
            .map(|s| {
                s.toolsets
                    .iter()
                    .filter_map(|t| {
                        manifest
                            .toolsets
                            .binary_search_by(|x| (*x.name).cmp(t))
                            .ok()
                            .map(|i| i as u32)
                    })
                    .collect()
            })
            .collect();
        let skill = |name: &str| {
            manifest
                .skills
                .binary_search_by(|s| (*s.name).cmp(name))
                .ok()
                .map(|i| i as u32)
        };
        let agents = manifest
            .agents
            .iter()
            .map(|a| {
                let mut initial: Vec<u32> = Vec::new();
                for s in a
                    .initial_skills
                    .iter()
                    .chain(manifest.app.global_initial_skills.iter())
                    .filter_map(|s| skill(s))
                {
                    if !initial.contains(&s) {
                        initial.push(s);
                    }
                }
                let mut reachable = initial.clone();
                for s in a
                    .skills
                    .iter()
                    .chain(manifest.app.global_skills.iter())
                    .filter_map(|s| skill(s))
                {
                    if !reachable.contains(&s) {
                        reachable.push(s);
                    }
                }
                AgentTables {
                    initial,
                    reachable,
                    prefix: OnceLock::new(),
                }
            })
            .collect();

        let mut meta = self.meta.unwrap_or_else(|| match self.preset {
            Preset::Full => MetaTool::ALL[..6].to_vec(),
            Preset::Minimal => vec![MetaTool::LoadSkill, MetaTool::LoadSkillFile],
        });
        meta.retain(|m| *m != MetaTool::CallTool);
        meta.sort();
        meta.dedup();
        if self.mode == ExposureMode::Dispatcher {
            meta.push(MetaTool::CallTool);
        }
        let meta_specs = meta
            .iter()
            .map(|m| ToolSpec {
                name: m.name(self.naming).to_owned(),
                description: m.description().to_owned(),
                input_schema: Arc::new(m.input_schema(self.naming)),
                kind: ToolKind::Meta,
                toolset: None,
            })
            .collect();

        let prefixes: Vec<String> = self
            .env_prefixes
            .unwrap_or_else(|| manifest.env_prefixes.iter().map(ToString::to_string).collect());
        let mut variables = Variables::from_env(&prefixes);
        for (k, v) in manifest.variables.iter() {
            // Manifest names were checked when it was built or loaded; skip any that are not.
            let _ = variables.set(k.to_string(), v.to_string());
        }
        for (k, v) in self.variables {
            variables
                .set(k, v)
                .map_err(|e| BuildError::InvalidVariable { name: e.0 })?;
        }

        Ok(Carnet {
            inner: Arc::new(Inner {
                manifest,
                variables,
                meta,
                meta_specs,
                naming: self.naming,
                mode: self.mode,
                prompt: self.prompt,
                hooks: self.hooks,
                state: self.state,
                agents,
                skill_toolsets,
                toolset_first_tool,
                tools,
                tool_names,
                state_cache: StateCache::default(),
            }),
        })
    }
}

/// The candidate closest to `name` (edit distance at most a third of its length).
pub(crate) fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    similar(name, candidates, 1).into_iter().next()
}

/// Up to `n` candidates close to `name`, closest first.
pub(crate) fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = edit_distance(&lower, &c.to_lowercase());
            let contains = c.to_lowercase().contains(&lower) || lower.contains(&c.to_lowercase());
            (d <= (name.chars().count().max(3) / 3).max(1) || contains).then_some((d, c))
        })
        .collect();
    scored.sort_unstable();
    scored.into_iter().take(n).map(|(_, c)| c.to_owned()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
