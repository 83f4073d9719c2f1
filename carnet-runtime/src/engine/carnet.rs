//! [`Carnet`] and its tables ([`Inner`]): what every session of an engine reads, built once
//! by [`CarnetBuilder::build`](super::CarnetBuilder::build).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::dispatch::ToolImpl;
use crate::hook::Hook;
use crate::index::{AgentIx, SkillIx, ToolIx, ToolsetIx};
use crate::manifest::{Agent, Manifest, Skill, Toolset};
use crate::meta_tool::MetaTool;
use crate::search::SearchIndex;
use crate::tool::ToolSpec;
use crate::variables::Variables;

use super::options::{ExposureMode, Naming, PromptOptions, ResultFormat};

/// An agent's place in the engine's tables.
#[derive(Debug)]
pub(crate) struct AgentTables {
    /// Initial skills (agent's, then global initial ones), deduplicated.
    pub(crate) initial: Vec<SkillIx>,
    /// Every skill the agent may load (initial, on demand, global), deduplicated, in order.
    pub(crate) reachable: Vec<SkillIx>,
    /// Sections 1-4 of the system prompt, built once.
    pub(crate) prefix: OnceLock<Arc<String>>,
    /// The full tool list of the modes that keep the prefix: meta-tools, then every domain
    /// tool the agent can reach, sorted by name. Built once.
    pub(crate) all_tools: OnceLock<Arc<[ToolSpec]>>,
    /// The meta-tools as the agent's model sees them (`session::meta::specs`: their name
    /// parameters list what the agent can reach), built once: every session state's tool list
    /// clones these, so their schemas are the same `Arc`s in every state.
    pub(crate) meta_tools: OnceLock<Box<[ToolSpec]>>,
    /// The skills' tools (`task.<skill>`, when skills are tools), one per skill the agent can
    /// reach, built once like `meta_tools`: every state's list shares their schema `Arc`s.
    pub(crate) task_tools: OnceLock<Box<[ToolSpec]>>,
    /// Every tool the agent may be offered, each once: the meta-tools and task tools, then
    /// every domain tool of the toolsets it can reach. Built once: a loop of one's own reads
    /// calls back over them on every turn (`providers::openai::ChatTurn`).
    pub(crate) reachable_tools: OnceLock<Arc<[ToolSpec]>>,
}

/// A domain tool: its toolset, what the model sees of it, and its code.
pub(crate) struct DomainTool {
    pub(crate) toolset: ToolsetIx,
    pub(crate) spec: ToolSpec,
    pub(crate) implementation: Option<ToolImpl>,
}

/// A remote toolset's server as sessions see it: started when a skill that needs it loads,
/// and the source of the skills it serves.
pub(crate) trait RemoteServer: Send + Sync {
    /// Starts the server in the background if it is not running.
    fn warm(self: Arc<Self>);
    /// Whether a start was ever attempted.
    fn started(&self) -> bool;
    /// The engine is served over MCP (the gateway): connect to the server as the hosts'
    /// client, declaring the capabilities whose requests they answer, whatever request
    /// connects first (a stateless host's list, a load without a session).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "the MCP gateway calls it"))]
    fn serve_hosts(&self) {}
    /// Reads skill `skill`'s `SKILL.md` at `uri` and checks it against `digest`: the
    /// skill's instructions (its body), or the error result the model reads.
    fn read_skill(
        self: Arc<Self>,
        skill: String,
        uri: String,
        digest: String,
    ) -> crate::dispatch::BoxFuture<'static, Result<String, crate::dispatch::ToolOutput>>;
    /// Sends request `method` with `params` to the server (an MCP server: its resources and
    /// prompts, which the MCP gateway passes through): its result, or a JSON-RPC error code
    /// and message. Servers that are not MCP servers answer method-not-found.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "the MCP gateway calls it"))]
    fn forward(
        self: Arc<Self>,
        method: &'static str,
        _params: serde_json::Value,
    ) -> crate::dispatch::BoxFuture<'static, Result<serde_json::Value, (i32, String)>> {
        Box::pin(std::future::ready(Err((
            -32601,
            format!("`{method}` is not served here"),
        ))))
    }
}

/// A skill an MCP server serves: its server's toolset, and where and what to read.
#[derive(Debug, Clone)]
pub(crate) struct RemoteSkill {
    pub(crate) toolset: ToolsetIx,
    pub(crate) uri: String,
    pub(crate) digest: String,
}

/// Which calls a hook wraps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HookScope {
    /// Every call, meta-tools included.
    All,
    /// Calls of the tool (domain or meta) with this canonical name.
    Tool(String),
    /// Calls of this toolset's tools.
    Toolset(ToolsetIx),
}

pub(crate) struct ScopedHook {
    pub(crate) scope: HookScope,
    pub(crate) hook: Arc<dyn Hook>,
}

pub(crate) struct Inner {
    pub(crate) manifest: Manifest,
    pub(crate) variables: Variables,
    pub(crate) meta: Vec<MetaTool>,
    pub(crate) meta_specs: Vec<ToolSpec>,
    pub(crate) naming: Naming,
    pub(crate) mode: ExposureMode,
    /// Whether each skill the agent can load is also a tool `task.<skill>`.
    pub(crate) skills_as_tools: bool,
    /// Whether `searchTools` loads the tools it finds.
    pub(crate) search_loads_tools: bool,
    pub(crate) result_format: ResultFormat,
    pub(crate) prompt: PromptOptions,
    pub(crate) hooks: Vec<ScopedHook>,
    /// Record tool arguments and results, and the model's answers, on spans.
    pub(crate) capture_content: bool,
    pub(crate) states: crate::state::States,
    pub(crate) agents: Vec<AgentTables>,
    /// Skill → the toolsets it brings.
    pub(crate) skill_toolsets: Vec<Vec<ToolsetIx>>,
    /// Toolset → its first tool (the tools of toolset `t` are `first[t]..first[t+1]`).
    pub(crate) toolset_first_tool: Vec<u32>,
    /// Every domain tool, toolset by toolset in manifest order.
    pub(crate) tools: Vec<DomainTool>,
    /// Canonical name and provider alias → tools.
    pub(crate) tool_names: HashMap<String, Vec<ToolIx>>,
    /// Prompts and tool lists by session state, shared by every session.
    pub(crate) state_cache: StateCache,
    /// Toolset → its server, for remote toolsets.
    pub(crate) remote: Vec<Option<Arc<dyn RemoteServer>>>,
    /// Skill → where to read it, for skills MCP servers serve.
    pub(crate) remote_skills: Vec<Option<RemoteSkill>>,
    /// Every domain tool, ranked by `searchTools`.
    pub(crate) search: SearchIndex,
}

/// A session's prompt depends on its agent, its loaded skills and its exposed tools; its tool
/// list on the exposed tools. Conversations tend to reach the same few states (the initial
/// one above all), so the engine keeps one copy of each: a session gets an `Arc`, and a new
/// session in a known state builds nothing. Of a prompt, the engine keeps what follows the
/// agent's prefix (the prefix itself is kept once per agent): a state's whole prompt is
/// most of a request body, tens of KB at a large catalog, and the cache may hold thousands
/// of states; a session joins the two once per state it reaches, into memory its previous
/// state (or session) freed. A state reached again (the initial one above all: every new
/// conversation starts there) keeps its whole prompt too, among the last `PROMPT_CACHE_LIMIT`
/// such states, so a new session there joins nothing. Bounded: past `STATE_CACHE_LIMIT`
/// entries the cache starts over (entries are cheap to rebuild; sessions keep their own
/// `Arc`s).
#[derive(Default)]
pub(crate) struct StateCache {
    suffixes: Mutex<HashMap<PromptKey, Arc<str>>>,
    prompts: Mutex<HashMap<PromptKey, Arc<String>>>,
    tools: Mutex<HashMap<ToolsKey, Arc<[ToolSpec]>>>,
}

/// Agent, loaded skills (in load order), exposed tools (in exposure order).
pub(crate) type PromptKey = (AgentIx, Box<[SkillIx]>, Box<[ToolIx]>);

/// Agent (its skills' tools) and exposed tools, in exposure order.
pub(crate) type ToolsKey = (AgentIx, Box<[ToolIx]>);

const STATE_CACHE_LIMIT: usize = 4096;
/// Whole prompts kept: a few states' (each tens of KB at a large catalog).
const PROMPT_CACHE_LIMIT: usize = 16;

impl StateCache {
    /// A state's whole prompt: kept once the state is reached a second time; else joined by
    /// `join` from the part after the agent's prefix (`build`, kept).
    pub(crate) fn prompt(
        &self,
        key: PromptKey,
        build: impl FnOnce() -> Arc<str>,
        join: impl FnOnce(&str) -> Arc<String>,
    ) -> Arc<String> {
        if let Some(prompt) = self.prompts.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Arc::clone(prompt);
        }
        let (suffix, seen) = cached(&self.suffixes, key.clone(), build);
        let prompt = join(&suffix);
        if seen {
            let mut prompts = self.prompts.lock().unwrap_or_else(PoisonError::into_inner);
            keep(&mut prompts, key, Arc::clone(&prompt), PROMPT_CACHE_LIMIT);
        }
        prompt
    }

    pub(crate) fn tools(&self, key: ToolsKey, build: impl FnOnce() -> Arc<[ToolSpec]>) -> Arc<[ToolSpec]> {
        cached(&self.tools, key, build).0
    }
}

/// The value kept under `key`, or the one `build` makes, kept; and whether it was kept before.
fn cached<K: Eq + std::hash::Hash, V: ?Sized>(
    map: &Mutex<HashMap<K, Arc<V>>>,
    key: K,
    build: impl FnOnce() -> Arc<V>,
) -> (Arc<V>, bool) {
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(value) = map.get(&key) {
        return (Arc::clone(value), true);
    }
    let value = build();
    keep(&mut map, key, Arc::clone(&value), STATE_CACHE_LIMIT);
    (value, false)
}

/// Keeps `value` under `key`; past `limit` entries the map starts over.
fn keep<K: Eq + std::hash::Hash, V: ?Sized>(map: &mut HashMap<K, Arc<V>>, key: K, value: Arc<V>, limit: usize) {
    if map.len() >= limit {
        map.clear();
    }
    map.insert(key, value);
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

impl Carnet {
    /// The manifest.
    #[must_use]
    pub fn manifest(&self) -> &Manifest {
        &self.inner.manifest
    }

    /// The index `searchTools` ranks with: every domain tool of the manifest, numbered as its
    /// toolsets list them (in order, each one's tools in declaration order), with what only
    /// the program knows added (its Rust tools' parameters). What
    /// [`SearchIndex::explain`] reads to say why a hit ranks where it does.
    #[must_use]
    pub fn search_index(&self) -> &SearchIndex {
        &self.inner.search
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

    /// Whether the server of remote toolset `toolset` was started (or a start attempted):
    /// `None` when there is no such remote toolset.
    #[must_use]
    pub fn remote_started(&self, toolset: &str) -> Option<bool> {
        let ix = self.inner.toolset_index(toolset)?;
        self.inner.remote.get(ix.get())?.as_ref().map(|server| server.started())
    }

    /// The server of remote toolset `toolset`, if it is one (for the MCP gateway).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "the MCP gateway calls it"))]
    pub(crate) fn remote_server(&self, toolset: &str) -> Option<Arc<dyn RemoteServer>> {
        let ix = self.inner.toolset_index(toolset)?;
        self.inner.remote.get(ix.get())?.clone()
    }

    /// The spec of every domain tool named `name` (canonical name or provider alias).
    pub fn domain_tools_named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a ToolSpec> + 'a {
        self.inner
            .tool_names
            .get(name)
            .into_iter()
            .flatten()
            .map(|&id| &self.inner.tool(id).spec)
    }
}

/// Binary search in a list sorted by name.
fn position<T>(items: &[T], name: &str, key: impl Fn(&T) -> &str) -> Option<usize> {
    items.binary_search_by(|item| key(item).cmp(name)).ok()
}

impl Inner {
    pub(crate) fn agent_index(&self, name: &str) -> Option<AgentIx> {
        position(&self.manifest.agents, name, |a| &a.name).map(AgentIx::new)
    }

    pub(crate) fn skill_index(&self, name: &str) -> Option<SkillIx> {
        skill_ix(&self.manifest, name)
    }

    pub(crate) fn toolset_index(&self, name: &str) -> Option<ToolsetIx> {
        toolset_ix(&self.manifest, name)
    }

    pub(crate) fn agent(&self, agent: AgentIx) -> &Agent {
        &self.manifest.agents[agent.get()]
    }

    pub(crate) fn agent_tables(&self, agent: AgentIx) -> &AgentTables {
        &self.agents[agent.get()]
    }

    pub(crate) fn skill(&self, skill: SkillIx) -> &Skill {
        &self.manifest.skills[skill.get()]
    }

    pub(crate) fn skill_toolsets(&self, skill: SkillIx) -> &[ToolsetIx] {
        &self.skill_toolsets[skill.get()]
    }

    pub(crate) fn toolset(&self, toolset: ToolsetIx) -> &Toolset {
        &self.manifest.toolsets[toolset.get()]
    }

    pub(crate) fn tool(&self, tool: ToolIx) -> &DomainTool {
        &self.tools[tool.get()]
    }

    /// The tools a toolset declares, in declaration order.
    pub(crate) fn toolset_tools(&self, toolset: ToolsetIx) -> impl Iterator<Item = ToolIx> + use<> {
        let first = self.toolset_first_tool[toolset.get()] as usize;
        let end = self.toolset_first_tool[toolset.get() + 1] as usize;
        (first..end).map(ToolIx::new)
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

    /// The read of remote skill `skill`'s instructions from its server, checked against its
    /// pin; `None` for skills of the carnet directory.
    pub(crate) fn read_remote_skill(
        &self,
        skill: SkillIx,
    ) -> Option<crate::dispatch::BoxFuture<'static, Result<String, crate::dispatch::ToolOutput>>> {
        let remote = self.remote_skills.get(skill.get())?.as_ref()?;
        let name = self.skill(skill).name.to_string();
        Some(match self.remote.get(remote.toolset.get()).and_then(Option::as_ref) {
            Some(server) => Arc::clone(server).read_skill(name, remote.uri.clone(), remote.digest.clone()),
            None => Box::pin(std::future::ready(Err(crate::dispatch::ToolOutput::error(
                format!("skill `{name}` is served by an MCP server, which carnet reads with its feature `remote`"),
                serde_json::json!({"skill": name, "code": "upstream_unavailable"}),
            )))),
        })
    }

    /// Starts the servers of the remote toolsets skill `skill` brings.
    pub(crate) fn warm_skill(&self, skill: SkillIx) {
        for &toolset in self.skill_toolsets(skill) {
            self.warm_toolset(toolset);
        }
    }

    /// Starts the server of `toolset` if it is remote.
    pub(crate) fn warm_toolset(&self, toolset: ToolsetIx) {
        if let Some(Some(server)) = self.remote.get(toolset.get()) {
            Arc::clone(server).warm();
        }
    }

    /// The hooks wrapping a call of `tool` (canonical name; `toolset` for domain tools), in
    /// the order they were added.
    pub(crate) fn hooks_for<'a>(
        &'a self,
        tool: &'a str,
        toolset: Option<ToolsetIx>,
    ) -> impl Iterator<Item = &'a dyn Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |h| match &h.scope {
                HookScope::All => true,
                HookScope::Tool(name) => name == tool,
                HookScope::Toolset(t) => Some(*t) == toolset,
            })
            .map(|h| &*h.hook)
    }
}

/// A toolset's index, before the engine's tables exist (the builder's lookups).
pub(super) fn toolset_ix(manifest: &Manifest, name: &str) -> Option<ToolsetIx> {
    position(&manifest.toolsets, name, |t| &t.name).map(ToolsetIx::new)
}

/// A skill's index, before the engine's tables exist.
pub(super) fn skill_ix(manifest: &Manifest, name: &str) -> Option<SkillIx> {
    position(&manifest.skills, name, |s| &s.name).map(SkillIx::new)
}
