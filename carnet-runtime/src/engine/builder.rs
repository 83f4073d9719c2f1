//! [`CarnetBuilder`]: checks the tool implementations against the manifest and builds the
//! engine's tables.

use carnet_manifest::order;
use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::carnet::{Carnet, HookScope, Inner, ScopedHook, StateCache, skill_ix, toolset_ix};
use super::compiled::RuntimeManifest;
use super::options::{BuildError, ExposureMode, Naming, Preset, PromptOptions, RemoteOptions, ResultFormat};
use super::remote::{bind_remote, remote_skills};
use super::tables::{agent_tables, bind, search_index, tool_tables};
use crate::dispatch::ToolsetImpl;
use crate::hook::Hook;
use crate::index::ToolsetIx;
use crate::manifest::Manifest;
use crate::meta_tool::MetaTool;
use crate::search::SearchIndex;
use crate::state::{Provides, States};
use crate::suggest::closest;
use crate::variables::Variables;

/// Builds a [`Carnet`]: [`Carnet::new`] for a compiled manifest (the toolsets already
/// bound, `CarnetBuilder<Bound>`), [`Carnet::builder`] for a manifest read at run time
/// (implementations given by name and checked by [`CarnetBuilder::build`],
/// `CarnetBuilder<Checked>`). Both take the same options.
pub struct CarnetBuilder<Stage = Checked> {
    manifest: Manifest,
    toolsets: Vec<ToolsetImpl>,
    variables: Vec<(String, String)>,
    env_prefixes: Option<Vec<String>>,
    preset: Preset,
    meta: Option<Vec<MetaTool>>,
    naming: Naming,
    mode: ExposureMode,
    skills_as_tools: bool,
    search_loads_tools: bool,
    result_format: ResultFormat,
    prompt: PromptOptions,
    hooks: Vec<(Target, Arc<dyn Hook>)>,
    state: Box<dyn Any + Send + Sync>,
    allow_unimplemented: bool,
    capture_content: Option<bool>,
    remote: RemoteOptions,
    /// A compiled manifest's search index, built by the build step (`search.bin`).
    search: Option<&'static [u8]>,
    stage: PhantomData<fn() -> Stage>,
}

/// A [`CarnetBuilder`] whose toolsets are given at run time, by name: [`Carnet::builder`].
/// [`CarnetBuilder::build`] checks them against the manifest.
#[derive(Debug)]
pub enum Checked {}

/// A [`CarnetBuilder`] made from a compiled manifest's generated `Toolsets` by
/// [`Carnet::new`]: every toolset is bound, checked by the compiler. `Needs` lists the
/// states its tools take (`State<T>`), `State` is the type given to
/// [`CarnetBuilder::state`] (`()` until then): [`CarnetBuilder::build`] is there only when
/// the state provides every need.
pub struct Bound<Needs = (), State = ()>(PhantomData<fn() -> (Needs, State)>);

/// What a hook was registered for, by name, resolved by [`CarnetBuilder::build`].
enum Target {
    All,
    Tool(String),
    Toolset(String),
}

impl<Stage> fmt::Debug for CarnetBuilder<Stage> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CarnetBuilder")
            .field("toolsets", &self.toolsets.len())
            .field("mode", &self.mode)
            .field("hooks", &self.hooks.len())
            .finish_non_exhaustive()
    }
}

impl<Needs> CarnetBuilder<Bound<Needs>> {
    pub(super) fn bound(manifest: &Manifest, search: &'static [u8], toolsets: Vec<ToolsetImpl>) -> Self {
        CarnetBuilder::<Checked>::compiled(manifest, search, toolsets).stage()
    }
}

impl<Needs, State> CarnetBuilder<Bound<Needs, State>> {
    /// The application state: what tools take as `State<T>` (each `T` taken from it by
    /// [`FromRef`](crate::FromRef), once, when the engine is built) and read with
    /// [`crate::Context::state`]. [`CarnetBuilder::build`] compiles only when it provides
    /// every `State<T>` the manifest's tools take.
    #[must_use]
    pub fn state<T: Any + Send + Sync>(mut self, state: T) -> CarnetBuilder<Bound<Needs, T>> {
        self.state = Box::new(state);
        self.stage()
    }
}

impl<Needs, State: Any + Send + Sync> CarnetBuilder<Bound<Needs, State>> {
    /// Builds the engine. Its toolsets were checked by the compiler, and so was its state:
    /// this method exists only when the state given to [`CarnetBuilder::state`] (or `()`)
    /// provides every `State<T>` a tool takes.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for an invalid variable name, a hook registered for a tool or
    /// toolset the manifest does not have, or a remote toolset that cannot be bound.
    pub fn build(self) -> Result<Carnet, BuildError>
    where
        State: Provides<Needs>,
    {
        let mut states = States::default();
        if let Some(state) = self.state.downcast_ref::<State>() {
            state.__provide(&mut states);
        }
        self.stage::<Checked>().build_with(states)
    }
}

impl<Stage> CarnetBuilder<Stage> {
    fn stage<T>(self) -> CarnetBuilder<T> {
        CarnetBuilder {
            manifest: self.manifest,
            toolsets: self.toolsets,
            variables: self.variables,
            env_prefixes: self.env_prefixes,
            preset: self.preset,
            meta: self.meta,
            naming: self.naming,
            mode: self.mode,
            skills_as_tools: self.skills_as_tools,
            search_loads_tools: self.search_loads_tools,
            result_format: self.result_format,
            prompt: self.prompt,
            hooks: self.hooks,
            state: self.state,
            allow_unimplemented: self.allow_unimplemented,
            capture_content: self.capture_content,
            remote: self.remote,
            search: self.search,
            stage: PhantomData,
        }
    }
}

impl CarnetBuilder<Checked> {
    /// The application state tools read with [`crate::Context::state`], and take as
    /// `State<T>` when `T` is its type; [`CarnetBuilder::build`] fails, naming the tool,
    /// when a tool takes a state of another type.
    #[must_use]
    pub fn state<T: Any + Send + Sync>(mut self, state: T) -> Self {
        self.state = Box::new(state);
        self
    }

    /// Builds the engine, checking the implementations against the manifest.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for an unknown toolset, an undeclared tool, a tool implemented twice,
    /// a non-object input schema, declared tools without implementation (unless
    /// [`CarnetBuilder::allow_unimplemented`]), a tool taking a state the engine was not
    /// given, an invalid variable name, or a hook registered for a tool or toolset the
    /// manifest does not have.
    pub fn build(self) -> Result<Carnet, BuildError> {
        self.build_with(States::default())
    }

    /// The builder [`Carnet::new`] starts from, before its stage says the toolsets are
    /// bound. Not generic, like [`CarnetBuilder::build_with`], so that what it does (a copy
    /// of the manifest) is compiled here once, not in every program.
    fn compiled(manifest: &Manifest, search: &'static [u8], toolsets: Vec<ToolsetImpl>) -> Self {
        let mut builder = CarnetBuilder::new(manifest.clone());
        builder.toolsets = toolsets;
        builder.search = Some(search);
        builder
    }

    pub(super) fn new(manifest: Manifest) -> Self {
        CarnetBuilder {
            manifest,
            toolsets: Vec::new(),
            variables: Vec::new(),
            env_prefixes: None,
            preset: Preset::Full,
            meta: None,
            naming: Naming::CamelCase,
            mode: ExposureMode::Dynamic,
            skills_as_tools: false,
            search_loads_tools: false,
            result_format: ResultFormat::Json,
            prompt: PromptOptions::default(),
            hooks: Vec::new(),
            state: Box::new(()),
            allow_unimplemented: false,
            capture_content: None,
            remote: RemoteOptions::default(),
            search: None,
            stage: PhantomData,
        }
    }

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

    /// Accepts declared tools without an implementation: they are offered with the schema
    /// the manifest can give (any object) and calling them returns an error result. For
    /// inspecting content (`carnet prompt`, `carnet tools`), not for serving a model.
    #[must_use]
    pub fn allow_unimplemented(mut self) -> Self {
        self.allow_unimplemented = true;
        self
    }
}

impl<Stage> CarnetBuilder<Stage> {
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

    /// Offers each skill the agent can load as a tool too: `task.<skill>` (provider alias
    /// `task_<skill>`), described by the skill's description, without parameters; calling it
    /// loads the skill and returns what `loadSkill` would. `listTools {namespace: "task"}`
    /// lists them. Off by default.
    #[must_use]
    pub fn skills_as_tools(mut self, on: bool) -> Self {
        self.skills_as_tools = on;
        self
    }

    /// Tool-level loading: `searchTools` loads the tools it finds, as `loadTool` would
    /// (their schemas in the result, callable from the next turn), instead of only listing
    /// them, so a model need not load a whole skill for one tool. The session's rules stay
    /// `loadTool`'s: only tools the agent can reach. Off by default (search only lists).
    #[must_use]
    pub fn search_loads_tools(mut self, on: bool) -> Self {
        self.search_loads_tools = on;
        self
    }

    /// How a successful `loadSkill` result is written (default [`ResultFormat::Json`]).
    #[must_use]
    pub fn result_format(mut self, format: ResultFormat) -> Self {
        self.result_format = format;
        self
    }

    /// The system prompt's sections.
    #[must_use]
    pub fn prompt_options(mut self, options: PromptOptions) -> Self {
        self.prompt = options;
        self
    }

    /// A hook run around every call, meta-tools included. Hooks run in the order they are
    /// added, after the tool is found, exposed and its arguments are valid (see
    /// [`Hook`](crate::Hook)).
    #[must_use]
    pub fn hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push((Target::All, Arc::new(hook)));
        self
    }

    /// A hook run around the calls of one tool: a domain tool's canonical name or a
    /// meta-tool's name (under the chosen [`Naming`]).
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Before, CallInfo, Carnet, Hook, Manifest, ToolImpl, ToolsetImpl, block_on};
    /// # use serde_json::json;
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "initialSkills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S",
    /// #   "toolsets": ["t"], "content": ""}}, "toolsets": {"t": {"name": "t", "description": "T",
    /// #   "content": "", "tools": [{"name": "delete", "description": "Deletes"}]}}}"#)?;
    /// # let delete = ToolImpl::from_fn("delete", json!({"type": "object"}), |_| async { Ok(json!("deleted")) });
    /// struct Never;
    /// impl Hook for Never {
    ///     fn before(&self, _: &CallInfo<'_>) -> Before {
    ///         Before::Deny("deleting is disabled".into())
    ///     }
    /// }
    /// let carnet = Carnet::builder(&manifest)
    ///     .toolset(ToolsetImpl::new("t", [delete]))
    ///     .tool_hook("delete", Never)
    ///     .build()?;
    /// let mut session = carnet.session("a")?;
    /// let output = block_on(session.call("delete", json!({})));
    /// assert_eq!(output.error_message(), Some("deleting is disabled"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn tool_hook(mut self, tool: impl Into<String>, hook: impl Hook) -> Self {
        self.hooks.push((Target::Tool(tool.into()), Arc::new(hook)));
        self
    }

    /// A hook run around the calls of one toolset's tools.
    #[must_use]
    pub fn toolset_hook(mut self, toolset: impl Into<String>, hook: impl Hook) -> Self {
        self.hooks.push((Target::Toolset(toolset.into()), Arc::new(hook)));
        self
    }

    /// Records content on the [`crate::telemetry`] spans: tool arguments and results, and
    /// the model's answers. They may hold personal data, so this is off unless turned on
    /// here or by `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` (this call wins
    /// over the variable).
    #[must_use]
    pub fn capture_content(mut self, on: bool) -> Self {
        self.capture_content = Some(on);
        self
    }

    /// How remote toolsets' servers are started and called: timeouts, restart backoff, the
    /// largest message, what to do when a server drifted from its pin (the `remote` module,
    /// feature `remote`).
    #[must_use]
    pub fn remote_options(mut self, options: RemoteOptions) -> Self {
        self.remote = options;
        self
    }
}

impl CarnetBuilder<Checked> {
    /// Builds the engine from the checked parts and the states its tools can take. Not
    /// generic: every stage ends here (`stage::<Checked>()`), so the engine's construction is
    /// compiled once, in this crate, not again in each program for its `Bound<Needs, State>`.
    fn build_with(mut self, mut states: States) -> Result<Carnet, BuildError> {
        // The whole state is a state of its own type too (`Context::state::<App>()`).
        states.insert_boxed(std::mem::replace(&mut self.state, Box::new(())));
        for tool in self.toolsets.iter().flat_map(|t| &t.tools) {
            if let Some(missing) = tool.states.iter().find(|ty| !states.contains(**ty)) {
                return Err(BuildError::MissingState {
                    tool: tool.name.to_string(),
                    ty: missing.name().to_owned(),
                });
            }
        }
        let (remote, remote_impls) =
            bind_remote(&self.manifest, &self.toolsets, &self.remote, self.allow_unimplemented)?;
        self.toolsets.extend(remote_impls);
        let manifest = self.manifest;
        let implementations = bind(&manifest, self.toolsets, self.allow_unimplemented)?;
        let (tools, toolset_first_tool, tool_names) = tool_tables(&manifest, implementations);
        let remote_skills = remote_skills(&manifest)?;
        let skill_toolsets: Vec<Vec<ToolsetIx>> = manifest
            .skills
            .iter()
            .map(|s| s.toolsets.iter().filter_map(|t| toolset_ix(&manifest, t)).collect())
            .collect();
        let agents = agent_tables(&manifest);

        let mut meta = self.meta.unwrap_or_else(|| self.preset.meta_tools().to_vec());
        meta.retain(|m| *m != MetaTool::CallTool);
        order::sort(&mut meta);
        meta.dedup();
        // Only `searchTools` reads the index: an engine without it builds none.
        let search = if meta.contains(&MetaTool::SearchTools) {
            search_index(&manifest, &tools, self.search)
        } else {
            SearchIndex::default()
        };
        if self.mode == ExposureMode::Dispatcher {
            meta.push(MetaTool::CallTool);
        }
        let meta_specs = meta.iter().map(|m| m.spec(self.naming)).collect();

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

        let hooks = self
            .hooks
            .into_iter()
            .map(|(target, hook)| {
                let scope = match target {
                    Target::All => HookScope::All,
                    Target::Toolset(name) => {
                        HookScope::Toolset(toolset_ix(&manifest, &name).ok_or_else(|| BuildError::UnknownToolset {
                            similar: closest(&name, manifest.toolsets.iter().map(|t| &*t.name)),
                            toolset: name,
                        })?)
                    }
                    Target::Tool(name) => {
                        let is_meta = MetaTool::ALL.iter().any(|m| m.name(self.naming) == name)
                            || (self.skills_as_tools
                                && name
                                    .strip_prefix("task.")
                                    .is_some_and(|skill| skill_ix(&manifest, skill).is_some()));
                        if !is_meta && !tool_names.contains_key(&name) {
                            let candidates = tools
                                .iter()
                                .map(|t| t.spec.name.as_str())
                                .chain(MetaTool::ALL.iter().map(|m| m.name(self.naming)));
                            return Err(BuildError::UnknownTool {
                                similar: closest(&name, candidates),
                                tool: name,
                            });
                        }
                        // Hooks see canonical names: an alias given here means its tool.
                        let canonical = tool_names
                            .get(&name)
                            .and_then(|ids| ids.first())
                            .map_or(name, |&id| tools[id.get()].spec.name.clone());
                        HookScope::Tool(canonical)
                    }
                };
                Ok(ScopedHook { scope, hook })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;

        Ok(Carnet {
            inner: Arc::new(Inner {
                manifest,
                variables,
                meta,
                meta_specs,
                naming: self.naming,
                mode: self.mode,
                skills_as_tools: self.skills_as_tools,
                search_loads_tools: self.search_loads_tools,
                result_format: self.result_format,
                prompt: self.prompt,
                hooks,
                capture_content: self
                    .capture_content
                    .unwrap_or_else(crate::telemetry::capture_content_from_env),
                states,
                agents,
                skill_toolsets,
                toolset_first_tool,
                tools,
                tool_names,
                state_cache: StateCache::default(),
                remote,
                remote_skills,
                search,
            }),
        })
    }
}

impl Carnet {
    /// Starts building an engine over a manifest read at run time ([`Manifest::from_json`],
    /// `carnet::manifest::load_dir`), with implementations given by name
    /// ([`CarnetBuilder::toolset`]) and checked by [`CarnetBuilder::build`]. A compiled
    /// manifest's engine is made with [`Carnet::new`] instead, from its generated `Toolsets`.
    #[must_use]
    pub fn builder<M: RuntimeManifest + ?Sized>(manifest: &M) -> CarnetBuilder<Checked> {
        CarnetBuilder::new(manifest.manifest().clone())
    }
}
