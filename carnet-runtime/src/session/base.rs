//! The [`Session`] value: what it holds, what it exposes, its prompt and tools.

use carnet_manifest::order;
use std::cell::OnceCell;
use std::fmt;
use std::sync::Arc;

use crate::engine::{Carnet, ExposureMode, PromptOptions};
use crate::extensions::Extensions;
use crate::index::ToolIx;
use crate::prompt;
use crate::tool::{ToolKind, ToolSpec};
use crate::variables::Variables;

use super::discovery;
use super::explain;
use super::explain::Explanation;
use super::history::{History, LoadCall, LoadEvent};
use super::reach::Loaded;
use super::types::{LoadError, SkillName, ToolName, ToolsetName};
use crate::suggest::similar;

/// One conversation: which skills are loaded, hence the system prompt and the tools the
/// model gets, and the conversation's own values ([`Extensions`]: the user, their
/// permissions) that its tools and hooks read. Sessions are independent values; the
/// [`Carnet`] they come from holds no per-conversation state. The prompt and tool list are
/// cached until the session changes.
pub struct Session {
    pub(super) carnet: Carnet,
    pub(super) loaded: Loaded,
    pub(super) extensions: Arc<Extensions>,
    /// Unique among the process's sessions, never reused: what per-session state kept
    /// elsewhere (a remote A2A agent's context) is keyed by.
    pub(super) id: u64,
    pub(super) history: History,
    pub(super) prompt_cache: OnceCell<Arc<String>>,
    pub(super) tools_cache: OnceCell<Arc<[ToolSpec]>>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("agent", &self.agent())
            .field("skills", &self.loaded_skills().collect::<Vec<_>>())
            .field("exposed", &self.exposed_tools().collect::<Vec<_>>())
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

// Names are taken by value (`impl SkillName`, `impl ToolName`): typed ids are `Copy`, and a
// `&str` is a reference already; `&impl` would make callers write `&skills::X`.
#[allow(clippy::needless_pass_by_value)]
impl Session {
    pub(super) fn new(carnet: Carnet, loaded: Loaded) -> Self {
        Session {
            carnet,
            loaded,
            extensions: Arc::default(),
            id: next_id(),
            history: History::default(),
            prompt_cache: OnceCell::new(),
            tools_cache: OnceCell::new(),
        }
    }

    /// The engine this session runs on.
    #[must_use]
    pub fn carnet(&self) -> &Carnet {
        &self.carnet
    }

    /// The session's agent.
    #[must_use]
    pub fn agent(&self) -> &str {
        &self.carnet.inner.agent(self.loaded.agent).name
    }

    /// The loaded skills, in load order (initial ones first).
    pub fn loaded_skills(&self) -> impl Iterator<Item = &str> + '_ {
        let inner = &*self.carnet.inner;
        self.loaded.skills.iter().map(move |&s| &*inner.skill(s).name)
    }

    /// The exposed domain tools, in the order they became available.
    pub fn exposed_tools(&self) -> impl Iterator<Item = &str> + '_ {
        let inner = &*self.carnet.inner;
        self.loaded
            .exposed(inner)
            .into_iter()
            .map(move |id| inner.tool(id).spec.name.as_str())
    }

    /// Whether `skill` (a typed id or a name) is loaded.
    #[must_use]
    pub fn is_loaded(&self, skill: impl SkillName) -> bool {
        let skill = skill.skill_name();
        self.carnet
            .inner
            .skill_index(skill)
            .is_some_and(|s| self.loaded.skills.contains(&s))
    }

    /// The names of the tools the model may call now: the meta-tools and the exposed domain
    /// tools. In [`ExposureMode::AllowedTools`] this is the provider's allow-list.
    pub fn callable_tools(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools()
            .iter()
            .filter(|t| t.kind == ToolKind::Meta)
            .map(|t| t.name.as_str())
            .chain(self.exposed_tools())
    }

    /// The skills' tools (`task.<skill>`), when skills are tools: fixed per agent, so built
    /// once and kept in its tables; a session in a new state clones them (the schemas are
    /// `Arc`s), and the provider writers find their kept bytes by the schemas' address.
    pub(super) fn task_specs(&self) -> &[ToolSpec] {
        let inner = &*self.carnet.inner;
        if !inner.skills_as_tools {
            return &[];
        }
        inner.agent_tables(self.loaded.agent).task_tools.get_or_init(|| {
            self.loaded
                .reachable_skills(inner)
                .iter()
                .map(|&s| discovery::task_spec(inner, s))
                .collect()
        })
    }

    /// Whether domain tool `tool` (a typed id or a name) is exposed.
    #[must_use]
    pub fn is_exposed(&self, tool: impl ToolName) -> bool {
        self.loaded
            .exposed_named(&self.carnet.inner, tool.tool_name())
            .is_some()
    }

    /// Why `tool` (a typed id or a name) is or is not exposed, with the load (or unload) of
    /// the session's history behind it: when, and by which tool call.
    #[must_use]
    pub fn explain(&self, tool: impl ToolName) -> Explanation {
        explain::explain(&self.carnet.inner, &self.loaded, Some(&self.history), tool.tool_name())
    }

    /// The conversation's values, which tools ([`crate::Context::extension`]) and hooks
    /// ([`crate::CallInfo::extension`]) read.
    #[must_use]
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The conversation's values, to change. Calls already started keep the values they
    /// started with.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        Arc::make_mut(&mut self.extensions)
    }

    /// Sets the conversation's value of type `T` (the user, their permissions, a request
    /// id); returns whether it replaced one.
    pub fn insert<T: std::any::Any + Send + Sync>(&mut self, value: T) -> bool {
        self.extensions_mut().insert(value)
    }

    /// The session with the conversation's value of type `T` set.
    #[must_use]
    pub fn with<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    pub(super) fn changed(&mut self) {
        self.prompt_cache.take();
        self.tools_cache.take();
    }

    /// Records in the history what changed since `before`, made by `call` (`None`: the
    /// program, through the session's methods).
    pub(super) fn record(&mut self, before: &Loaded, call: Option<&LoadCall>) {
        self.history.record(before, &self.loaded, call);
    }

    /// The session's loads and unloads, oldest first: what was loaded or unloaded, when, and
    /// by which tool call (or by the program). The initial skills, loaded when the session
    /// opened, are not in it; a load that changed nothing (a skill loaded already) is not
    /// either. Bounded: the newest [`HISTORY_CAP`](super::history::HISTORY_CAP) events are
    /// kept, and [`Session::history_dropped`] counts the older ones. Saved in
    /// [`SessionState::history`](super::SessionState::history).
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Manifest, block_on};
    /// # use carnet_runtime::session::{LoadAction, LoadKind};
    /// # use serde_json::json;
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "skills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S",
    /// #   "content": ""}}, "toolsets": {}}"#)?;
    /// # let carnet = Carnet::builder(&manifest).build()?;
    /// let mut session = carnet.session("a")?;
    /// block_on(session.call_with_id("loadSkill", json!({"skillName": "s"}), Some("call_1")));
    /// session.unload_skill("s");
    /// let [load, unload]: [_; 2] = session.history().collect::<Vec<_>>().try_into().unwrap();
    /// assert_eq!((load.action, load.kind, &*load.name), (LoadAction::Load, LoadKind::Skill, "s"));
    /// assert_eq!(load.call.unwrap().id.as_deref(), Some("call_1"));
    /// assert!(unload.action == LoadAction::Unload && unload.call.is_none(), "the program unloaded it");
    /// assert!(load.at <= unload.at);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn history(&self) -> impl ExactSizeIterator<Item = LoadEvent> + DoubleEndedIterator + '_ {
        self.history.events(&self.carnet.inner)
    }

    /// How many older events [`Session::history`] dropped at its cap.
    #[must_use]
    pub fn history_dropped(&self) -> u64 {
        self.history.dropped()
    }

    /// Back to the initial state: the initial and global initial skills loaded, nothing else.
    /// The extensions stay, and so does the history, where the reset is the unloads (and the
    /// loads of initial skills unloaded before) it made.
    pub fn reset(&mut self) {
        let initial = Loaded::initial(&self.carnet.inner, self.loaded.agent);
        let before = std::mem::replace(&mut self.loaded, initial);
        if before != self.loaded {
            self.record(&before, None);
            self.changed();
        }
    }

    /// Loads `skill` (a typed id or a name) as `loadSkill` would; returns the tools it
    /// exposed (none when it was loaded already). The load is recorded in
    /// [`Session::history`], made by the program.
    ///
    /// A load never cascades: it loads the skill and the toolsets it names, not a skill its
    /// instructions mention, so there is no load-depth limit to set (the design documents
    /// have one). A skill that names no toolset is valid and loads its instructions only, as
    /// an Agent Skills skill does.
    ///
    /// # Errors
    ///
    /// [`LoadError`] when no skill has that name or the session's agent cannot load it.
    pub fn load_skill(&mut self, skill: impl SkillName) -> Result<Vec<String>, LoadError> {
        self.load_skill_named(skill.skill_name())
    }

    /// [`Session::load_skill`] for a name: compiled once, here, not for each way a program
    /// names a skill.
    fn load_skill_named(&mut self, name: &str) -> Result<Vec<String>, LoadError> {
        let inner = &*self.carnet.inner;
        let Some(s) = self.loaded.reachable_skill(inner, name) else {
            let agent = inner.agent(self.loaded.agent).name.to_string();
            return Err(if inner.skill_index(name).is_some() {
                LoadError::NotAvailable {
                    agent,
                    skill: name.to_owned(),
                }
            } else {
                let available: Vec<String> = self
                    .loaded
                    .reachable_skills(inner)
                    .iter()
                    .map(|&s| inner.skill(s).name.to_string())
                    .collect();
                LoadError::UnknownSkill {
                    skill: name.to_owned(),
                    similar: similar(name, available.iter().map(String::as_str), 1)
                        .into_iter()
                        .next(),
                    available,
                }
            });
        };
        let before = self.loaded.exposed(inner);
        let snapshot = self.loaded.clone();
        inner.warm_skill(s);
        if !self.loaded.load_skill(s) {
            return Ok(Vec::new());
        }
        let added: Vec<String> = self
            .loaded
            .exposed(inner)
            .into_iter()
            .filter(|id| !before.contains(id))
            .map(|id| inner.tool(id).spec.name.clone())
            .collect();
        self.record(&snapshot, None);
        self.changed();
        Ok(added)
    }

    /// Unloads `skill` (a typed id or a name); its tools stay exposed only if another
    /// loaded skill (or a direct load) brings them. Returns whether it was loaded.
    pub fn unload_skill(&mut self, skill: impl SkillName) -> bool {
        let Some(s) = self.carnet.inner.skill_index(skill.skill_name()) else {
            return false;
        };
        let before = self.loaded.clone();
        let changed = self.loaded.unload_skill(s);
        if changed {
            self.record(&before, None);
            self.changed();
        }
        changed
    }

    /// Unloads `toolset` (a typed id or a name) loaded with `loadToolset`, and the tools of it loaded one by
    /// one with `loadTool` (TS Carnet's `unloadToolset`). Its tools stay exposed while a
    /// loaded skill brings the toolset: unload the skill for that. Returns whether anything
    /// was unloaded.
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Manifest, block_on};
    /// # use serde_json::json;
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "skills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S",
    /// #   "toolsets": ["t"], "content": ""}}, "toolsets": {"t": {"name": "t", "description": "T",
    /// #   "content": "", "tools": [{"name": "echo", "description": "Echo"}]}}}"#)?;
    /// # let carnet = Carnet::builder(&manifest).allow_unimplemented().build()?;
    /// let mut session = carnet.session("a")?;
    /// block_on(session.call("loadToolset", json!({"toolsetName": "t"})));
    /// assert!(session.is_exposed("echo"));
    /// assert!(session.unload_toolset("t"));
    /// assert!(!session.is_exposed("echo"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn unload_toolset(&mut self, toolset: impl ToolsetName) -> bool {
        let inner = &*self.carnet.inner;
        let Some(t) = inner.toolset_index(toolset.toolset_name()) else {
            return false;
        };
        let before = self.loaded.clone();
        let changed = self.loaded.unload_toolset(inner, t);
        if changed {
            self.record(&before, None);
            self.changed();
        }
        changed
    }

    /// The system prompt. Cached: calling it again on an unchanged session returns the same
    /// string without work.
    #[must_use]
    pub fn system_prompt(&self) -> &str {
        self.prompt_cache.get_or_init(|| {
            let inner = &*self.carnet.inner;
            let agent = self.loaded.agent;
            let prefix = inner
                .agent_tables(agent)
                .prefix
                .get_or_init(|| Arc::new(prompt::prefix(inner, &inner.prompt, agent, None)));
            if inner.mode.keeps_prefix() {
                return Arc::clone(prefix);
            }
            let exposed = self.loaded.exposed(inner);
            let key = (
                agent,
                self.loaded.skills.clone().into_boxed_slice(),
                exposed.clone().into_boxed_slice(),
            );
            inner.state_cache.prompt(
                key,
                || prompt::suffix(inner, &inner.prompt, agent, &self.loaded.skills, &exposed).into(),
                |suffix| {
                    if suffix.is_empty() {
                        Arc::clone(prefix)
                    } else {
                        Arc::new(join(prefix, suffix))
                    }
                },
            )
        })
    }

    /// The system prompt with per-call variables over the engine's (not cached).
    #[must_use]
    pub fn system_prompt_with(&self, variables: &Variables) -> String {
        self.render_prompt(&self.carnet.inner.prompt, Some(variables))
    }

    /// The system prompt with these sections and catalog options instead of the engine's,
    /// for this call only (not cached).
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Manifest, PromptOptions, CatalogFormat};
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "skills": ["notes"], "prompt": "Be kind."}}, "skills": {"notes": {"name": "notes",
    /// #   "description": "Take <notes> & more", "content": "Write it down."}}, "toolsets": {}}"#)?;
    /// let carnet = Carnet::builder(&manifest).build()?;
    /// let session = carnet.session("a")?;
    /// let xml = PromptOptions { catalog_format: CatalogFormat::Xml, ..PromptOptions::default() };
    /// let prompt = session.system_prompt_for(&xml, None);
    /// assert!(prompt.contains("<description>\nTake &lt;notes&gt; &amp; more\n</description>"));
    /// assert!(!session.system_prompt().contains("<available_skills>"), "the engine's options are untouched");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn system_prompt_for(&self, options: &PromptOptions, variables: Option<&Variables>) -> String {
        self.render_prompt(options, variables)
    }

    pub(super) fn render_prompt(&self, options: &PromptOptions, variables: Option<&Variables>) -> String {
        let inner = &*self.carnet.inner;
        let agent = self.loaded.agent;
        let prefix = prompt::prefix(inner, options, agent, variables);
        if inner.mode.keeps_prefix() {
            return prefix;
        }
        let exposed = self.loaded.exposed(inner);
        join(
            &prefix,
            &prompt::suffix(inner, options, agent, &self.loaded.skills, &exposed),
        )
    }

    /// The tools to offer the model ([`Session::tools`]) restricted to the names given
    /// (canonical names or provider aliases), in the order of [`Session::tools`]: a per-call
    /// filter, for a step where only some tools make sense. Names that are not offered are
    /// left out.
    #[must_use]
    pub fn tools_only(&self, names: &[&str]) -> Vec<ToolSpec> {
        self.tools()
            .iter()
            .filter(|t| {
                names
                    .iter()
                    .any(|n| *n == t.name || crate::names::alias(&t.name).is_ok_and(|a| a == *n))
            })
            .cloned()
            .collect()
    }

    /// Every tool the session's agent may be offered in this conversation, each once: the
    /// meta-tools and task tools, then every domain tool of the toolsets it can reach, loaded
    /// or not. For reading a call to a tool that is not offered yet under its alias. Built
    /// once per agent and kept in its tables.
    pub(crate) fn reachable_specs(&self) -> Arc<[ToolSpec]> {
        let inner = &*self.carnet.inner;
        let tables = inner.agent_tables(self.loaded.agent);
        Arc::clone(tables.reachable_tools.get_or_init(|| {
            let mut seen = std::collections::HashSet::new();
            super::meta::specs(inner, &self.loaded)
                .iter()
                .chain(self.task_specs())
                .cloned()
                .chain(
                    self.loaded
                        .reachable_toolsets(inner)
                        .into_iter()
                        .flat_map(|t| inner.toolset_tools(t))
                        .map(|id| inner.tool(id).spec.clone()),
                )
                .filter(|spec| seen.insert(spec.name.clone()))
                .collect()
        }))
    }

    /// The tools to offer the model: the meta-tools, then the domain tools the mode sends:
    /// in [`ExposureMode::Dynamic`] the exposed ones in the order they became available; in
    /// [`ExposureMode::Dispatcher`] none (`callTool` is among the meta-tools); in
    /// [`ExposureMode::Deferred`] and [`ExposureMode::AllowedTools`] every one the agent can
    /// reach, sorted by name, the same list all conversation long (see
    /// [`Session::exposed_tools`] for which of them the model may call). Cached like the
    /// prompt.
    #[must_use]
    pub fn tools(&self) -> &[ToolSpec] {
        self.tools_cache.get_or_init(|| {
            let inner = &*self.carnet.inner;
            if inner.mode.keeps_prefix() {
                let tables = inner.agent_tables(self.loaded.agent);
                return Arc::clone(tables.all_tools.get_or_init(|| {
                    let mut domain: Vec<ToolSpec> = self
                        .loaded
                        .reachable_toolsets(inner)
                        .into_iter()
                        .flat_map(|t| inner.toolset_tools(t))
                        .map(|id| inner.tool(id).spec.clone())
                        .collect();
                    order::sort_by(&mut domain, |a, b| a.name.cmp(&b.name));
                    super::meta::specs(inner, &self.loaded)
                        .iter()
                        .cloned()
                        .chain(self.task_specs().iter().cloned())
                        .chain(domain)
                        .collect()
                }));
            }
            let exposed: Vec<ToolIx> = self.loaded.exposed(inner);
            inner
                .state_cache
                .tools((self.loaded.agent, exposed.clone().into_boxed_slice()), || {
                    let mut tools = super::meta::specs(inner, &self.loaded).to_vec();
                    tools.extend_from_slice(self.task_specs());
                    if inner.mode == ExposureMode::Dynamic {
                        tools.extend(exposed.iter().map(|&id| inner.tool(id).spec.clone()));
                    }
                    tools.into()
                })
        })
    }
}

/// The prompt of a state: its prefix, then its suffix, in one allocation of their size
/// (a prompt is most of a request body; `format!` would grow it by doubling).
fn join(prefix: &str, suffix: &str) -> String {
    match (prefix.is_empty(), suffix.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => suffix.to_owned(),
        (false, false) => {
            let mut prompt = String::with_capacity(prefix.len() + prompt::SEPARATOR.len() + suffix.len());
            prompt.push_str(prefix);
            prompt.push_str(prompt::SEPARATOR);
            prompt.push_str(suffix);
            prompt
        }
    }
}

/// A new session's id: a process-wide counter, so an id is never given twice (unlike an
/// address, which a later session may reuse).
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
