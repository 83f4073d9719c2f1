//! [`Session`]: one conversation's progressive-loading state, its prompt and tools.

use std::cell::OnceCell;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::dispatch::{Before, BoxFuture, CallInfo, CatchUnwind, Context, ToolOutput};
use crate::engine::{Carnet, ExposureMode, Inner, MetaTool, closest, param, similar};
use crate::prompt;
use crate::schema;
use crate::tool::ToolSpec;
use crate::variables::Variables;

/// Why a session could not be created or resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No agent of that name.
    #[error("unknown agent `{agent}`{}", .similar.as_ref().map(|s| format!(": did you mean `{s}`?")).unwrap_or_default())]
    UnknownAgent {
        /// The name asked for.
        agent: String,
        /// The closest agent name.
        similar: Option<String>,
    },
    /// The state was saved against different content.
    #[error("the session state was saved with manifest {found}, this engine runs manifest {expected}")]
    ManifestChanged {
        /// This engine's manifest fingerprint.
        expected: String,
        /// The state's.
        found: String,
    },
    /// The state names something the agent cannot load.
    #[error("the session state names {kind} `{name}`, which agent `{agent}` cannot load")]
    InvalidState {
        /// The agent.
        agent: String,
        /// `skill`, `toolset` or `tool`.
        kind: &'static str,
        /// The name.
        name: String,
    },
}

/// A session's state by names, serialisable: save it, resume it on another worker with
/// [`Carnet::resume`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// The agent.
    pub agent: String,
    /// Loaded skills, in load order (initial ones first).
    pub skills: Vec<String>,
    /// Toolsets loaded one by one (`loadToolset`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<String>,
    /// Tools loaded one by one (`loadTool`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The manifest's fingerprint (hex).
    pub fingerprint: String,
}

/// Why a tool is or is not exposed in a session (see [`Session::explain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explanation {
    /// One of the meta-tools offered.
    MetaTool,
    /// Exposed: its toolset is loaded, through `skill` (or directly with `loadToolset` or
    /// `loadTool` when `skill` is `None`).
    Exposed {
        /// The toolset declaring it.
        toolset: String,
        /// The loaded skill that brought the toolset.
        skill: Option<String>,
    },
    /// Not exposed yet: loading one of `skills` exposes it.
    NotLoaded {
        /// The toolset declaring it.
        toolset: String,
        /// The skills of the agent that would expose it.
        skills: Vec<String>,
    },
    /// Declared, but no skill this agent may load reaches it.
    NotReachable {
        /// The toolsets declaring it.
        toolsets: Vec<String>,
    },
    /// No tool of that name.
    Unknown {
        /// Close names.
        similar: Vec<String>,
    },
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Explanation::MetaTool => f.write_str("a meta-tool, always offered"),
            Explanation::Exposed {
                toolset,
                skill: Some(skill),
            } => {
                write!(f, "exposed: toolset `{toolset}` of loaded skill `{skill}`")
            }
            Explanation::Exposed { toolset, skill: None } => {
                write!(f, "exposed: toolset `{toolset}` was loaded directly")
            }
            Explanation::NotLoaded { toolset, skills } => write!(
                f,
                "not exposed yet: toolset `{toolset}` comes with skill{} {}",
                if skills.len() == 1 { "" } else { "s" },
                skills.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            ),
            Explanation::NotReachable { toolsets } => write!(
                f,
                "not available to this agent: declared by {}, which none of its skills uses",
                toolsets.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            ),
            Explanation::Unknown { similar } if similar.is_empty() => f.write_str("unknown tool"),
            Explanation::Unknown { similar } => write!(f, "unknown tool; similar: {}", similar.join(", ")),
        }
    }
}

/// One conversation: which skills are loaded, hence the system prompt and the tools the
/// model gets. Sessions are independent values; the [`Carnet`] they come from holds no
/// per-conversation state. The prompt and tool list are cached until the session changes.
pub struct Session {
    carnet: Carnet,
    agent: u32,
    /// Loaded skills in load order, initial ones first.
    skills: Vec<u32>,
    /// Toolsets loaded directly.
    toolsets: Vec<u32>,
    /// Tools loaded directly.
    tools: Vec<u32>,
    prompt_cache: OnceCell<Arc<str>>,
    tools_cache: OnceCell<Arc<[ToolSpec]>>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("agent", &self.agent())
            .field("skills", &self.loaded_skills().collect::<Vec<_>>())
            .field("exposed", &self.exposed_tools().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Carnet {
    /// A new session for `agent`, with its initial (and global initial) skills loaded.
    ///
    /// # Errors
    ///
    /// [`SessionError::UnknownAgent`].
    pub fn session(&self, agent: impl AsRef<str>) -> Result<Session, SessionError> {
        let name = agent.as_ref();
        let index = self.inner.agent_index(name).ok_or_else(|| SessionError::UnknownAgent {
            agent: name.to_owned(),
            similar: closest(name, self.inner.manifest.agents.iter().map(|a| &*a.name)),
        })?;
        let mut session = Session {
            carnet: self.clone(),
            agent: index,
            skills: Vec::new(),
            toolsets: Vec::new(),
            tools: Vec::new(),
            prompt_cache: OnceCell::new(),
            tools_cache: OnceCell::new(),
        };
        session.reset();
        Ok(session)
    }

    /// Resumes a session from its saved state.
    ///
    /// # Errors
    ///
    /// [`SessionError::ManifestChanged`] when the state comes from other content,
    /// [`SessionError::UnknownAgent`] or [`SessionError::InvalidState`] when it names
    /// something this agent cannot load.
    pub fn resume(&self, state: &SessionState) -> Result<Session, SessionError> {
        let expected = format!("{:016x}", self.inner.manifest.fingerprint);
        if state.fingerprint != expected {
            return Err(SessionError::ManifestChanged {
                expected,
                found: state.fingerprint.clone(),
            });
        }
        let mut session = self.session(&state.agent)?;
        let invalid = |kind, name: &str| SessionError::InvalidState {
            agent: state.agent.clone(),
            kind,
            name: name.to_owned(),
        };
        session.skills.clear();
        for name in &state.skills {
            let s = session.reachable_skill(name).ok_or_else(|| invalid("skill", name))?;
            if !session.skills.contains(&s) {
                session.skills.push(s);
            }
        }
        for name in &state.toolsets {
            let t = session
                .reachable_toolset(name)
                .ok_or_else(|| invalid("toolset", name))?;
            session.toolsets.push(t);
        }
        for name in &state.tools {
            let id = session.reachable_tool(name).ok_or_else(|| invalid("tool", name))?;
            session.tools.push(id);
        }
        session.recompute();
        Ok(session)
    }
}

impl Session {
    fn inner(&self) -> &Inner {
        &self.carnet.inner
    }

    /// The engine this session runs on.
    #[must_use]
    pub fn carnet(&self) -> &Carnet {
        &self.carnet
    }

    /// The session's agent.
    #[must_use]
    pub fn agent(&self) -> &str {
        &self.inner().manifest.agents[self.agent as usize].name
    }

    /// The loaded skills, in load order (initial ones first).
    pub fn loaded_skills(&self) -> impl Iterator<Item = &str> + '_ {
        self.skills
            .iter()
            .map(|&s| &*self.inner().manifest.skills[s as usize].name)
    }

    /// The exposed domain tools, in the order they became available.
    pub fn exposed_tools(&self) -> impl Iterator<Item = &str> + '_ {
        self.exposed()
            .into_iter()
            .map(|id| self.inner().tools[id as usize].spec.name.as_str())
    }

    /// Whether skill `name` is loaded.
    #[must_use]
    pub fn is_loaded(&self, skill: &str) -> bool {
        self.inner()
            .skill_index(skill)
            .is_some_and(|s| self.skills.contains(&s))
    }

    /// Whether domain tool `name` is exposed.
    #[must_use]
    pub fn is_exposed(&self, tool: &str) -> bool {
        self.exposed_id(tool).is_some()
    }

    fn exposed_id(&self, tool: &str) -> Option<u32> {
        let ids = self.inner().tool_names.get(tool)?;
        ids.iter().copied().find(|&id| self.is_exposed_id(id))
    }

    fn reachable_skill(&self, name: &str) -> Option<u32> {
        let s = self.inner().skill_index(name)?;
        self.inner().agents[self.agent as usize]
            .reachable
            .contains(&s)
            .then_some(s)
    }

    /// Skills of the agent whose toolsets include `toolset`.
    fn skills_with_toolset(&self, toolset: u32) -> Vec<u32> {
        let inner = self.inner();
        inner.agents[self.agent as usize]
            .reachable
            .iter()
            .copied()
            .filter(|&s| inner.skill_toolsets[s as usize].contains(&toolset))
            .collect()
    }

    fn reachable_toolset(&self, name: &str) -> Option<u32> {
        let t = self.inner().toolset_index(name)?;
        (!self.skills_with_toolset(t).is_empty()).then_some(t)
    }

    fn reachable_tool(&self, name: &str) -> Option<u32> {
        let inner = self.inner();
        inner
            .tool_names
            .get(name)?
            .iter()
            .copied()
            .find(|&id| !self.skills_with_toolset(inner.tools[id as usize].toolset).is_empty())
    }

    fn invalidate(&mut self) {
        self.prompt_cache.take();
        self.tools_cache.take();
    }

    /// The exposed tool ids, in the order they became available: the tools of the loaded
    /// skills' toolsets (in load order), of the toolsets loaded directly, then the tools
    /// loaded directly. Derived, not stored: a session holds only what it loaded.
    fn exposed(&self) -> Vec<u32> {
        let inner = self.inner();
        let mut ids: Vec<u32> = Vec::new();
        let mut push = |id: u32| {
            if !ids.contains(&id) {
                ids.push(id);
            }
        };
        for &s in &self.skills {
            for &t in &inner.skill_toolsets[s as usize] {
                inner.toolset_tools(t).for_each(&mut push);
            }
        }
        for &t in &self.toolsets {
            inner.toolset_tools(t).for_each(&mut push);
        }
        self.tools.iter().copied().for_each(push);
        ids
    }

    fn is_exposed_id(&self, id: u32) -> bool {
        let inner = self.inner();
        let toolset = inner.tools[id as usize].toolset;
        self.tools.contains(&id)
            || self.toolsets.contains(&toolset)
            || self
                .skills
                .iter()
                .any(|&s| inner.skill_toolsets[s as usize].contains(&toolset))
    }

    /// Recomputes what depends on the loaded skills, toolsets and tools.
    fn recompute(&mut self) {
        self.invalidate();
    }

    /// Back to the initial state: the initial and global initial skills loaded, nothing else.
    pub fn reset(&mut self) {
        self.skills = self.inner().agents[self.agent as usize].initial.clone();
        self.toolsets.clear();
        self.tools.clear();
        self.recompute();
    }

    /// Loads skill `name` as `loadSkill` would; returns the tools it exposed.
    ///
    /// # Errors
    ///
    /// The meta-tool's error result when the agent cannot load the skill.
    pub fn load_skill(&mut self, name: &str) -> Result<Vec<String>, ToolOutput> {
        let s = self
            .reachable_skill(name)
            .ok_or_else(|| self.skill_not_available(name))?;
        Ok(self.load_skill_index(s))
    }

    fn load_skill_index(&mut self, s: u32) -> Vec<String> {
        let mut added = Vec::new();
        if !self.skills.contains(&s) {
            let before = self.exposed();
            self.skills.push(s);
            added = self.exposed().into_iter().filter(|id| !before.contains(id)).collect();
            self.invalidate();
        }
        added
            .iter()
            .map(|&id| self.inner().tools[id as usize].spec.name.clone())
            .collect()
    }

    /// Unloads skill `name`; its tools stay exposed only if another loaded skill (or a
    /// direct load) brings them. Returns whether it was loaded.
    pub fn unload_skill(&mut self, name: &str) -> bool {
        let Some(s) = self.inner().skill_index(name) else {
            return false;
        };
        let before = self.skills.len();
        self.skills.retain(|&x| x != s);
        let changed = self.skills.len() != before;
        if changed {
            self.recompute();
        }
        changed
    }

    /// The session's state by names, for [`Carnet::resume`].
    #[must_use]
    pub fn state(&self) -> SessionState {
        let inner = self.inner();
        SessionState {
            agent: self.agent().to_owned(),
            skills: self.loaded_skills().map(str::to_owned).collect(),
            toolsets: self
                .toolsets
                .iter()
                .map(|&t| inner.manifest.toolsets[t as usize].name.to_string())
                .collect(),
            tools: self
                .tools
                .iter()
                .map(|&id| inner.tools[id as usize].spec.name.clone())
                .collect(),
            fingerprint: format!("{:016x}", inner.manifest.fingerprint),
        }
    }

    /// The system prompt. Cached: calling it again on an unchanged session returns the same
    /// string without work.
    #[must_use]
    pub fn system_prompt(&self) -> &str {
        self.prompt_cache.get_or_init(|| {
            let inner = self.inner();
            let exposed = self.exposed();
            let key = (
                self.agent,
                self.skills.clone().into_boxed_slice(),
                exposed.clone().into_boxed_slice(),
            );
            inner.state_cache.prompt(key, || {
                let prefix = inner.agents[self.agent as usize]
                    .prefix
                    .get_or_init(|| prompt::prefix(inner, self.agent, None));
                let suffix = prompt::suffix(inner, self.agent, &self.skills, &exposed);
                join(prefix, &suffix).into()
            })
        })
    }

    /// The system prompt with per-call variables over the engine's (not cached).
    #[must_use]
    pub fn system_prompt_with(&self, variables: &Variables) -> String {
        let inner = self.inner();
        let prefix = prompt::prefix(inner, self.agent, Some(variables));
        join(
            &prefix,
            &prompt::suffix(inner, self.agent, &self.skills, &self.exposed()),
        )
    }

    /// The tools to offer the model: the meta-tools, then (in dynamic mode) the exposed
    /// domain tools in the order they became available. Cached like the prompt.
    #[must_use]
    pub fn tools(&self) -> &[ToolSpec] {
        self.tools_cache.get_or_init(|| {
            let inner = self.inner();
            let exposed = self.exposed();
            inner.state_cache.tools(exposed.clone().into_boxed_slice(), || {
                let mut tools = inner.meta_specs.clone();
                if inner.mode == ExposureMode::Dynamic {
                    tools.extend(exposed.iter().map(|&id| inner.tools[id as usize].spec.clone()));
                }
                tools.into()
            })
        })
    }

    /// Why tool `name` is or is not exposed.
    #[must_use]
    pub fn explain(&self, tool: &str) -> Explanation {
        let inner = self.inner();
        if inner.meta_by_name(tool).is_some() {
            return Explanation::MetaTool;
        }
        let Some(ids) = inner.tool_names.get(tool) else {
            let names = inner.tools.iter().map(|t| t.spec.name.as_str());
            return Explanation::Unknown {
                similar: similar(tool, names, 3),
            };
        };
        if let Some(id) = ids.iter().copied().find(|&id| self.is_exposed_id(id)) {
            let toolset = inner.tools[id as usize].toolset;
            let skill = self
                .skills
                .iter()
                .find(|&&s| inner.skill_toolsets[s as usize].contains(&toolset))
                .map(|&s| inner.manifest.skills[s as usize].name.to_string());
            return Explanation::Exposed {
                toolset: inner.manifest.toolsets[toolset as usize].name.to_string(),
                skill,
            };
        }
        for &id in ids {
            let toolset = inner.tools[id as usize].toolset;
            let skills = self.skills_with_toolset(toolset);
            if !skills.is_empty() {
                return Explanation::NotLoaded {
                    toolset: inner.manifest.toolsets[toolset as usize].name.to_string(),
                    skills: skills
                        .iter()
                        .map(|&s| inner.manifest.skills[s as usize].name.to_string())
                        .collect(),
                };
            }
        }
        Explanation::NotReachable {
            toolsets: ids
                .iter()
                .map(|&id| {
                    inner.manifest.toolsets[inner.tools[id as usize].toolset as usize]
                        .name
                        .to_string()
                })
                .collect(),
        }
    }

    /// Calls a tool (meta or domain) with JSON arguments given as text, as providers send
    /// them. Malformed JSON is an error result, not a failure.
    pub async fn call_json(&mut self, name: &str, arguments: &str) -> ToolOutput {
        let arguments = if arguments.trim().is_empty() {
            Ok(json!({}))
        } else {
            serde_json::from_str(arguments)
        };
        match arguments {
            Ok(value) => self.call(name, value).await,
            Err(e) => ToolOutput::error(
                format!("the arguments of `{name}` are not valid JSON: {e}"),
                json!({"tool": name}),
            ),
        }
    }

    /// Calls a tool (meta or domain). Every failure — unknown or not-yet-exposed tool,
    /// arguments not matching the schema (the field is named), the tool's `Err`, a panic —
    /// is a structured error result the model can read; the session stays consistent.
    pub async fn call(&mut self, name: &str, arguments: Value) -> ToolOutput {
        let carnet = self.carnet.clone();
        let inner = &carnet.inner;
        let agent = inner.manifest.agents[self.agent as usize].name.to_string();
        if let Some(meta) = inner.meta_by_name(name) {
            if meta == MetaTool::CallTool {
                return self.call_tool(&arguments).await;
            }
            let info = CallInfo {
                agent: &agent,
                tool: name,
                arguments: &arguments,
                meta: true,
            };
            if let Some(output) = before_hooks(inner, &info) {
                return after_hooks(inner, &info, output);
            }
            let output = self.meta_call(meta, name, &arguments);
            return after_hooks(inner, &info, output);
        }
        self.domain_future(name, arguments).await
    }

    /// Starts a call that reads nothing of the session once started: a domain tool, directly
    /// or through `callTool`. The future owns what it needs, so the session can serve other
    /// calls (or be locked by nobody) while it runs; this is how `carnet::mcp` runs one
    /// connection's tool calls side by side. `None` for the other meta-tools, which read or
    /// change the session: call them with [`Session::call`].
    ///
    /// What the future returns is what [`Session::call`] would have: the same checks against
    /// the session as it is now, the same hooks, the same structured errors.
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Manifest, ToolImpl, ToolsetImpl, block_on};
    /// # use serde_json::json;
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "initialSkills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S",
    /// #   "toolsets": ["t"], "content": ""}}, "toolsets": {"t": {"name": "t", "description": "T",
    /// #   "content": "", "tools": [{"name": "echo", "description": "Echo"}]}}}"#)?;
    /// # let echo = ToolImpl::from_fn("echo", json!({"type": "object"}), |args| async move { Ok(args) });
    /// # let carnet = Carnet::builder(&manifest).toolset(ToolsetImpl::new("t", [echo])).build()?;
    /// let session = carnet.session("a")?;
    /// let first = session.call_detached("echo", &json!({"n": 1})).expect("a domain tool");
    /// let second = session.call_detached("echo", &json!({"n": 2})).expect("a domain tool");
    /// assert!(session.call_detached("loadSkill", &json!({"skillName": "s"})).is_none());
    /// assert_eq!(block_on(second).value, json!({"n": 2}));
    /// assert_eq!(block_on(first).value, json!({"n": 1}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn call_detached(&self, name: &str, arguments: &Value) -> Option<BoxFuture<'static, ToolOutput>> {
        match self.inner().meta_by_name(name) {
            Some(MetaTool::CallTool) => Some(self.call_tool(arguments)),
            Some(_) => None,
            None => Some(self.domain_future(name, arguments.clone())),
        }
    }

    fn call_tool(&self, arguments: &Value) -> BoxFuture<'static, ToolOutput> {
        let naming = self.inner().naming;
        let call_name = self.inner().meta_name(MetaTool::CallTool);
        if let Err(e) = schema::validate(arguments, &MetaTool::CallTool.input_schema(naming)) {
            let output = ToolOutput::error(
                format!("invalid arguments for `{call_name}`: {e}"),
                json!({"field": e.path}),
            );
            return Box::pin(std::future::ready(output));
        }
        let name = arguments[param(naming, "name")].as_str().unwrap_or_default().to_owned();
        if self.inner().meta_by_name(&name).is_some() {
            let output = ToolOutput::error(
                format!("`{name}` is a meta-tool: call it directly, not through `{call_name}`"),
                json!({"tool": name}),
            );
            return Box::pin(std::future::ready(output));
        }
        self.domain_future(&name, arguments[param(naming, "arguments")].clone())
    }

    /// A domain call: checked against the session now, run by the returned future, which
    /// owns everything it needs.
    fn domain_future(&self, name: &str, arguments: Value) -> BoxFuture<'static, ToolOutput> {
        // No arguments at all is an empty object (some models send `null` for no-argument tools).
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        let exposed = self.exposed_id(name).ok_or_else(|| self.not_exposed(name));
        let carnet = self.carnet.clone();
        let agent = self.agent;
        let skills = self.skills.clone();
        let name = name.to_owned();
        Box::pin(async move {
            let inner = &carnet.inner;
            let agent = &*inner.manifest.agents[agent as usize].name;
            let info = CallInfo {
                agent,
                tool: &name,
                arguments: &arguments,
                meta: false,
            };
            if let Some(output) = before_hooks(inner, &info) {
                return after_hooks(inner, &info, output);
            }
            let id = match exposed {
                Ok(id) => id,
                Err(output) => return after_hooks(inner, &info, output),
            };
            let tool = &inner.tools[id as usize];
            let Some(implementation) = &tool.implementation else {
                let output = ToolOutput::error(
                    format!("tool `{name}` has no implementation in this program"),
                    json!({"tool": name, "toolset": tool.spec.toolset}),
                );
                return after_hooks(inner, &info, output);
            };
            if let Err(e) = schema::validate(&arguments, &tool.spec.input_schema) {
                let output = ToolOutput::error(
                    format!("invalid arguments for `{name}`: {e}"),
                    json!({"tool": name, "field": e.path, "inputSchema": *tool.spec.input_schema}),
                );
                return after_hooks(inner, &info, output);
            }
            let context = Context {
                state: inner.state.as_ref(),
                agent,
                loaded_skills: skills
                    .iter()
                    .map(|&s| &*inner.manifest.skills[s as usize].name)
                    .collect(),
                tool: &tool.spec.name,
            };
            let future = implementation.handler.call(&context, arguments.clone());
            let output = match CatchUnwind(future).await {
                Ok(Ok(value)) => ToolOutput::ok(value),
                Ok(Err(e)) => ToolOutput::error(e.message, json!({"tool": name})),
                Err(panic) => ToolOutput::error(format!("tool `{name}` panicked: {panic}"), json!({"tool": name})),
            };
            after_hooks(inner, &info, output)
        })
    }

    fn not_exposed(&self, name: &str) -> ToolOutput {
        let meta_load = self.inner().meta_name(MetaTool::LoadSkill);
        match self.explain(name) {
            Explanation::NotLoaded { toolset, skills } => ToolOutput::error(
                format!(
                    "tool `{name}` is not available yet: load skill `{}` first with `{meta_load}`",
                    skills.first().map_or("", String::as_str)
                ),
                json!({"tool": name, "toolset": toolset, "skills": skills}),
            ),
            Explanation::NotReachable { toolsets } => ToolOutput::error(
                format!("tool `{name}` is not available to agent `{}`", self.agent()),
                json!({"tool": name, "toolsets": toolsets}),
            ),
            _ => {
                let available: Vec<&str> = self.tools().iter().map(|t| t.name.as_str()).collect();
                ToolOutput::error(
                    format!("unknown tool `{name}`"),
                    json!({"tool": name, "available": available, "similar": similar(name, available.iter().copied(), 3)}),
                )
            }
        }
    }

    pub(crate) fn skill_not_available(&self, name: &str) -> ToolOutput {
        let inner = self.inner();
        let reachable: Vec<&str> = inner.agents[self.agent as usize]
            .reachable
            .iter()
            .map(|&s| &*inner.manifest.skills[s as usize].name)
            .collect();
        let message = if inner.skill_index(name).is_some() {
            format!("skill `{name}` is not available to agent `{}`", self.agent())
        } else {
            format!("Skill not found: {name}")
        };
        ToolOutput::error(
            message,
            json!({"available": reachable, "similar": similar(name, reachable.iter().copied(), 3)}),
        )
    }

    fn meta_call(&mut self, meta: MetaTool, name: &str, arguments: &Value) -> ToolOutput {
        let naming = self.inner().naming;
        let empty = json!({});
        let arguments = if arguments.is_null() { &empty } else { arguments };
        if let Err(e) = schema::validate(arguments, &meta.input_schema(naming)) {
            return ToolOutput::error(format!("invalid arguments for `{name}`: {e}"), json!({"field": e.path}));
        }
        let arg = |camel: &'static str| {
            arguments
                .get(param(naming, camel))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        match meta {
            MetaTool::ListAvailableSkills => self.list_available_skills(arg("query")),
            MetaTool::LoadSkill => self.load_skill_meta(arg("skillName")),
            MetaTool::ListSkillToolsets => self.list_skill_toolsets(arg("skillName")),
            MetaTool::LoadToolset => self.load_toolset(arg("toolsetName")),
            MetaTool::LoadTool => self.load_tool(arg("toolName")),
            MetaTool::LoadSkillFile => self.load_skill_file(arg("skillName"), arg("path")),
            MetaTool::CallTool => unreachable!("callTool is dispatched before meta_call"),
        }
    }

    fn list_available_skills(&self, query: &str) -> ToolOutput {
        let inner = self.inner();
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut reachable = inner.agents[self.agent as usize].reachable.clone();
        reachable.sort_unstable();
        let skills: Vec<Value> = reachable
            .iter()
            .map(|&s| &inner.manifest.skills[s as usize])
            .filter(|skill| {
                let haystack = format!("{} {}", skill.name, skill.description).to_lowercase();
                words.iter().all(|w| haystack.contains(w.as_str()))
            })
            .map(|skill| {
                json!({
                    "name": skill.name,
                    "description": skill.description,
                    "toolsets": skill.toolsets,
                    "loaded": self.is_loaded(&skill.name),
                })
            })
            .collect();
        ToolOutput::ok(json!({"success": true, "skills": skills}))
    }

    fn tool_specs_json(&self, ids: &[u32]) -> Value {
        let inner = self.inner();
        ids.iter()
            .map(|&id| {
                let spec = &inner.tools[id as usize].spec;
                json!({"name": spec.name, "description": spec.description, "inputSchema": *spec.input_schema})
            })
            .collect()
    }

    fn load_skill_meta(&mut self, name: &str) -> ToolOutput {
        let Some(s) = self.reachable_skill(name) else {
            return self.skill_not_available(name);
        };
        let already = self.skills.contains(&s);
        self.load_skill_index(s);
        let carnet = self.carnet.clone();
        let inner = &carnet.inner;
        let skill = &inner.manifest.skills[s as usize];
        let tool_ids: Vec<u32> = inner.skill_toolsets[s as usize]
            .iter()
            .flat_map(|&t| inner.toolset_tools(t))
            .collect();
        let files: Vec<Value> = skill
            .files
            .iter()
            .map(|f| {
                let mut v = json!({"path": f.path, "mediaType": f.media_type, "size": f.data.len()});
                if let Some(d) = &f.description {
                    v["description"] = json!(d);
                }
                v
            })
            .collect();
        let mut value = json!({
            "success": true,
            "content": inner.variables.inject(&skill.content),
            "metadata": {"name": skill.name, "description": skill.description, "toolsets": skill.toolsets},
            "files": files,
            "tools": tool_ids.iter().map(|&id| &inner.tools[id as usize].spec.name).collect::<Vec<_>>(),
        });
        if already {
            value["alreadyLoaded"] = json!(true);
        }
        if inner.mode == ExposureMode::Dispatcher {
            value["toolSpecs"] = self.tool_specs_json(&tool_ids);
        }
        ToolOutput::ok(value)
    }

    fn list_skill_toolsets(&self, name: &str) -> ToolOutput {
        let Some(s) = self.reachable_skill(name) else {
            return self.skill_not_available(name);
        };
        let inner = self.inner();
        let toolsets: Vec<Value> = inner.skill_toolsets[s as usize]
            .iter()
            .map(|&t| {
                let toolset = &inner.manifest.toolsets[t as usize];
                let loaded = inner.toolset_tools(t).all(|id| self.is_exposed_id(id));
                json!({"name": toolset.name, "description": toolset.description, "toolCount": toolset.tools.len(), "loaded": loaded})
            })
            .collect();
        ToolOutput::ok(json!({"success": true, "skill": name, "toolsets": toolsets}))
    }

    fn load_toolset(&mut self, name: &str) -> ToolOutput {
        let Some(t) = self.reachable_toolset(name) else {
            let inner = self.inner();
            let mut reachable: Vec<u32> = inner.agents[self.agent as usize]
                .reachable
                .iter()
                .flat_map(|&s| inner.skill_toolsets[s as usize].iter().copied())
                .collect();
            reachable.sort_unstable();
            reachable.dedup();
            let names: Vec<&str> = reachable
                .iter()
                .map(|&t| &*inner.manifest.toolsets[t as usize].name)
                .collect();
            return ToolOutput::error(
                format!("Toolset not found: {name}"),
                json!({"available": names, "similar": similar(name, names.iter().copied(), 3)}),
            );
        };
        if !self.toolsets.contains(&t) {
            self.toolsets.push(t);
            self.invalidate();
        }
        let carnet = self.carnet.clone();
        let inner = &carnet.inner;
        let toolset = &inner.manifest.toolsets[t as usize];
        let ids: Vec<u32> = inner.toolset_tools(t).collect();
        let mut value = json!({
            "success": true,
            "name": toolset.name,
            "description": toolset.description,
            "content": inner.variables.inject(&toolset.content),
            "tools": ids.iter().map(|&id| {
                let spec = &inner.tools[id as usize].spec;
                json!({"name": spec.name, "description": spec.description})
            }).collect::<Vec<_>>(),
        });
        if inner.mode == ExposureMode::Dispatcher {
            value["toolSpecs"] = self.tool_specs_json(&ids);
        }
        ToolOutput::ok(value)
    }

    fn load_tool(&mut self, name: &str) -> ToolOutput {
        let Some(id) = self.reachable_tool(name) else {
            return self.not_exposed(name);
        };
        if !self.is_exposed_id(id) {
            self.tools.push(id);
            self.invalidate();
        }
        let carnet = self.carnet.clone();
        let inner = &carnet.inner;
        let tool = &inner.tools[id as usize];
        let toolset = &inner.manifest.toolsets[tool.toolset as usize];
        let declared = toolset.tools.iter().find(|t| t.name == tool.spec.name);
        ToolOutput::ok(json!({
            "success": true,
            "name": tool.spec.name,
            "description": tool.spec.description,
            "toolset": toolset.name,
            "content": declared.map(|t| inner.variables.inject(&t.content).into_owned()).unwrap_or_default(),
            "inputSchema": *tool.spec.input_schema,
        }))
    }

    fn load_skill_file(&self, skill_name: &str, path: &str) -> ToolOutput {
        let Some(s) = self.reachable_skill(skill_name) else {
            let mut output = self.skill_not_available(skill_name);
            output.value["path"] = json!(path);
            return output;
        };
        let inner = self.inner();
        if !self.skills.contains(&s) {
            return ToolOutput::error(
                format!(
                    "skill `{skill_name}` is not loaded: call `{}` first",
                    inner.meta_name(MetaTool::LoadSkill)
                ),
                json!({"path": path}),
            );
        }
        let skill = &inner.manifest.skills[s as usize];
        let Some(file) = skill.file(path.trim_start_matches("./")) else {
            let paths: Vec<&str> = skill.files.iter().map(|f| &*f.path).collect();
            return ToolOutput::error(
                "File not found in skill",
                json!({"path": path, "available": paths, "similar": similar(path, paths.iter().copied(), 3)}),
            );
        };
        let mut value = json!({"success": true, "path": file.path, "mediaType": file.media_type});
        if let Some(text) = file.text() {
            value["content"] = json!(text);
        } else {
            use base64::Engine as _;
            value["content"] = json!(base64::engine::general_purpose::STANDARD.encode(&file.data));
            value["encoding"] = json!("base64");
        }
        ToolOutput::ok(value)
    }
}

fn join(prefix: &str, suffix: &str) -> String {
    match (prefix.is_empty(), suffix.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => suffix.to_owned(),
        (false, false) => format!("{prefix}{}{suffix}", prompt::SEPARATOR),
    }
}

fn before_hooks(inner: &Inner, info: &CallInfo<'_>) -> Option<ToolOutput> {
    for hook in &inner.hooks {
        match hook.before(info) {
            Before::Continue => {}
            Before::Deny(reason) => return Some(ToolOutput::error(reason, json!({"tool": info.tool, "denied": true}))),
            Before::Respond(output) => return Some(output),
        }
    }
    None
}

fn after_hooks(inner: &Inner, info: &CallInfo<'_>, mut output: ToolOutput) -> ToolOutput {
    for hook in &inner.hooks {
        hook.after(info, &mut output);
    }
    output
}

/// What a model would receive without progressive disclosure: every skill the agent can
/// reach, in full, in the system prompt, and every domain tool those skills bring.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The agent's prompt followed by the full content of every reachable skill.
    pub system_prompt: String,
    /// Every domain tool of every reachable skill's toolsets.
    pub tools: Vec<ToolSpec>,
}

impl Carnet {
    /// The everything-up-front baseline for `agent`, to measure what progressive
    /// disclosure saves.
    ///
    /// # Errors
    ///
    /// [`SessionError::UnknownAgent`].
    pub fn everything_up_front(&self, agent: impl AsRef<str>) -> Result<Baseline, SessionError> {
        let session = self.session(agent)?;
        let inner = &self.inner;
        let tables = &inner.agents[session.agent as usize];
        let agent = &inner.manifest.agents[session.agent as usize];
        let mut sections = vec![inner.variables.inject(agent.prompt.trim()).into_owned()];
        let contents: Vec<String> = tables
            .reachable
            .iter()
            .map(|&s| {
                inner
                    .variables
                    .inject(inner.manifest.skills[s as usize].content.trim())
                    .into_owned()
            })
            .collect();
        if !contents.is_empty() {
            sections.push(format!("## Skills\n\n{}", contents.join(prompt::SEPARATOR)));
        }
        let mut ids: Vec<u32> = Vec::new();
        for &s in &tables.reachable {
            for &t in &inner.skill_toolsets[s as usize] {
                ids.extend(
                    inner
                        .toolset_tools(t)
                        .filter(|id| !ids.contains(id))
                        .collect::<Vec<_>>(),
                );
            }
        }
        Ok(Baseline {
            system_prompt: sections.join(prompt::SEPARATOR),
            tools: ids.iter().map(|&id| inner.tools[id as usize].spec.clone()).collect(),
        })
    }
}
