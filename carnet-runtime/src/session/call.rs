//! The call pipeline: resolve the name, check exposure and arguments, run the hooks and the
//! tool, turn every failure into a result the model can read. See [`crate::hook`] for the
//! order of the steps.

use std::sync::Arc;

use serde_json::{Value, json};
use tracing::{Instrument, Span};

use super::base::Session;
use super::checks::{check_domain_call, invalid_arguments};
use super::discovery;
use super::history::LoadCall;
use super::meta;
use super::types::ToolName;
use crate::cancel::CancelOnDrop;
use crate::dispatch::{BoxFuture, CatchUnwind, Context, ToolOutput};
use crate::engine::{Carnet, Inner};
use crate::extensions::Extensions;
use crate::hook::{Before, CallInfo, Hook};
use crate::index::{SkillIx, ToolIx};
use crate::manifest::Annotations;
use crate::meta_tool::{MetaTool, param};
use crate::schema;
use crate::telemetry::{self, Failure, ToolKind};

impl Session {
    /// Calls a tool (meta or domain) with JSON arguments given as text, as providers send
    /// them. Malformed JSON is an error result, not a failure.
    pub async fn call_json(&mut self, tool: impl ToolName, arguments: &str) -> ToolOutput {
        self.call_json_named(tool.tool_name(), arguments).await
    }

    /// [`Session::call_json`] for a name.
    fn call_json_named<'a>(&'a mut self, name: &'a str, arguments: &'a str) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let arguments = if arguments.trim().is_empty() {
                Ok(json!({}))
            } else {
                serde_json::from_str(arguments)
            };
            match arguments {
                Ok(value) => self.call_named(name, value, None).await,
                Err(e) => ToolOutput::error(
                    format!("the arguments of `{name}` are not valid JSON: {e}"),
                    json!({"tool": name}),
                ),
            }
        })
    }

    /// Calls a tool (meta or domain). Every failure — unknown or not-yet-exposed tool,
    /// arguments not matching the schema (the field is named), a hook's refusal, the tool's
    /// `Err`, a panic — is a structured error result the model can read; the session stays
    /// consistent.
    ///
    /// `tool` is a typed id (`manifest::tools::BASIC_SEARCH`) or a name, a meta-tool's
    /// (`"loadSkill"`) included.
    pub async fn call(&mut self, tool: impl ToolName, arguments: Value) -> ToolOutput {
        self.call_boxed(tool.tool_name(), arguments, None).await
    }

    /// Calls a tool as [`Session::call`] does, for the model's call `id`: the call's
    /// `execute_tool` span records it as `gen_ai.tool.call.id` (see [`crate::telemetry`]).
    pub async fn call_with_id(&mut self, tool: impl ToolName, arguments: Value, id: Option<&str>) -> ToolOutput {
        self.call_boxed(tool.tool_name(), arguments, id).await
    }

    /// [`Session::call_named`] behind a box. The methods above are generic (over how the tool
    /// is named), and a future is compiled where it is polled: awaited directly, the whole
    /// call pipeline would be compiled again in every program that calls a tool. Behind a
    /// box made here, it is compiled once, in this crate; the box costs one allocation per
    /// call.
    fn call_boxed<'a>(&'a mut self, name: &'a str, arguments: Value, id: Option<&'a str>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(self.call_named(name, arguments, id))
    }

    /// [`Session::call_with_id`] for a name: one body whatever names the tool.
    async fn call_named(&mut self, name: &str, arguments: Value, id: Option<&str>) -> ToolOutput {
        match self.carnet.inner.meta_by_name(name) {
            Some(MetaTool::CallTool) => self.call_tool(&arguments, id).await,
            Some(meta) => {
                let span = telemetry::execute_tool(name, id, ToolKind::Meta);
                let read = self
                    .remote_skill_named(meta, &arguments)
                    .and_then(|skill| self.read_remote(skill, &span));
                let fetched = match read {
                    Some(read) => match read.await {
                        Ok(content) => Some(content),
                        Err(output) => return output,
                    },
                    None => None,
                };
                span.in_scope(|| self.meta_call(meta, (name, id), arguments, &span, fetched.as_deref()))
            }
            None => match discovery::task_skill(&self.carnet.inner, &self.loaded, name) {
                Some(skill) => {
                    let span = telemetry::execute_tool(name, id, ToolKind::Task);
                    let fetched = match self.read_remote(skill, &span) {
                        Some(read) => match read.await {
                            Ok(content) => Some(content),
                            Err(output) => return output,
                        },
                        None => None,
                    };
                    span.in_scope(|| self.task_call(skill, (name, id), arguments, &span, fetched.as_deref()))
                }
                None => self.domain_future(name, arguments, id, None).await,
            },
        }
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
        self.call_detached_with_id(name, arguments, None)
    }

    /// [`Session::call_detached`] for the model's call `id`, recorded on the call's span as
    /// [`Session::call_with_id`] does.
    #[must_use]
    pub fn call_detached_with_id(
        &self,
        name: &str,
        arguments: &Value,
        id: Option<&str>,
    ) -> Option<BoxFuture<'static, ToolOutput>> {
        match self.carnet.inner.meta_by_name(name) {
            Some(MetaTool::CallTool) => Some(self.call_tool(arguments, id)),
            Some(_) => None,
            None if discovery::task_skill(&self.carnet.inner, &self.loaded, name).is_some() => None,
            None => Some(self.domain_future(name, arguments.clone(), id, None)),
        }
    }

    /// The skill a `loadSkill` call names, when the agent can load it.
    fn remote_skill_named(&self, meta: MetaTool, arguments: &Value) -> Option<SkillIx> {
        if meta != MetaTool::LoadSkill {
            return None;
        }
        let inner = &*self.carnet.inner;
        let name = arguments.get(param(inner.naming, "skillName"))?.as_str()?;
        self.loaded.reachable_skill(inner, name)
    }

    /// The read of a remote skill's instructions from its server (`None` for skills of the
    /// carnet directory): the future owns what it needs (no borrow of the session crosses
    /// the await), and its error result is recorded on `span`.
    fn read_remote(&self, skill: SkillIx, span: &Span) -> Option<BoxFuture<'static, Result<String, ToolOutput>>> {
        let inner = &*self.carnet.inner;
        let read = inner.read_remote_skill(skill)?;
        let (span, capture) = (span.clone(), inner.capture_content);
        Some(Box::pin(async move {
            let read = read.instrument(span.clone()).await;
            if let Err(output) = &read {
                telemetry::record_tool_outcome(&span, None, &Value::Null, output, capture);
            }
            read
        }))
    }

    /// A meta-tool's call (`call`: the name it was called by and the call's id).
    fn meta_call(
        &mut self,
        meta: MetaTool,
        call: (&str, Option<&str>),
        arguments: Value,
        span: &Span,
        fetched: Option<&str>,
    ) -> ToolOutput {
        let (output, failure, arguments) = self.run_meta(meta, call, arguments, fetched);
        if !span.is_disabled() {
            record_meta(span, meta, self.carnet.inner.naming, &arguments);
        }
        telemetry::record_tool_outcome(span, failure, &arguments, &output, self.carnet.inner.capture_content);
        output
    }

    fn run_meta(
        &mut self,
        meta: MetaTool,
        (name, id): (&str, Option<&str>),
        arguments: Value,
        fetched: Option<&str>,
    ) -> (ToolOutput, Option<Failure>, Value) {
        let inner = &*self.carnet.inner;
        let agent = &*inner.agent(self.loaded.agent).name;
        let hooks: Vec<&dyn Hook> = inner.hooks_for(name, None).collect();
        let call = Call {
            agent,
            tool: name,
            toolset: None,
            meta: true,
            annotations: meta.annotations(),
            extensions: &self.extensions,
        };
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        if let Err(output) = meta::check_arguments(meta, inner.naming, name, &arguments) {
            let output = call.after(&hooks, &arguments, output);
            return (output, Some(Failure::InvalidArguments), arguments);
        }
        let arguments = match call.before(&hooks, arguments, &meta.shared_input_schema(inner.naming)) {
            Ok(arguments) => arguments,
            Err((arguments, output, failure)) => return (call.after(&hooks, &arguments, output), failure, arguments),
        };
        // What the call may change, to record in the history (the browsing tools change nothing).
        let snapshot = meta.loads().then(|| self.loaded.clone());
        let (output, changed) = meta::run(meta, inner, &mut self.loaded, &arguments, fetched);
        if changed && let Some(before) = snapshot {
            self.history
                .record(&before, &self.loaded, Some(&LoadCall::new(name, id)));
        }
        if changed {
            self.prompt_cache.take();
            self.tools_cache.take();
        }
        (call.after(&hooks, &arguments, output), None, arguments)
    }

    /// A skill's tool (`task.<skill>`): loads the skill, as `loadSkill` would. Its hooks are
    /// those of its canonical name.
    fn task_call(
        &mut self,
        skill: SkillIx,
        call: (&str, Option<&str>),
        arguments: Value,
        span: &Span,
        fetched: Option<&str>,
    ) -> ToolOutput {
        let (output, failure, arguments) = self.run_task(skill, call, arguments, fetched);
        let inner = &*self.carnet.inner;
        span.record("carnet.skill.name", &*inner.skill(skill).name);
        telemetry::record_tool_outcome(span, failure, &arguments, &output, inner.capture_content);
        output
    }

    fn run_task(
        &mut self,
        skill: SkillIx,
        (name, id): (&str, Option<&str>),
        arguments: Value,
        fetched: Option<&str>,
    ) -> (ToolOutput, Option<Failure>, Value) {
        let inner = &*self.carnet.inner;
        let canonical = format!("{}.{}", discovery::TASK_NAMESPACE, inner.skill(skill).name);
        let hooks: Vec<&dyn Hook> = inner.hooks_for(&canonical, None).collect();
        let call = Call {
            agent: &inner.agent(self.loaded.agent).name,
            tool: &canonical,
            toolset: None,
            meta: true,
            annotations: discovery::TASK_ANNOTATIONS,
            extensions: &self.extensions,
        };
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        let schema = discovery::task_input_schema();
        if let Err(e) = schema::validate(&arguments, &schema) {
            let output = call.after(&hooks, &arguments, invalid_arguments(name, &e, &schema, ""));
            return (output, Some(Failure::InvalidArguments), arguments);
        }
        let arguments = match call.before(&hooks, arguments, &schema) {
            Ok(arguments) => arguments,
            Err((arguments, output, failure)) => return (call.after(&hooks, &arguments, output), failure, arguments),
        };
        let snapshot = self.loaded.clone();
        let already = !self.loaded.load_skill(skill);
        inner.warm_skill(skill);
        if !already {
            self.history
                .record(&snapshot, &self.loaded, Some(&LoadCall::new(name, id)));
            self.prompt_cache.take();
            self.tools_cache.take();
        }
        let output = call.after(&hooks, &arguments, meta::skill_loaded(inner, skill, already, fetched));
        (output, None, arguments)
    }

    /// `callTool {name, arguments}`: the named domain call, whose span carries the inner
    /// tool's name (and `carnet.via = callTool`).
    fn call_tool(&self, arguments: &Value, id: Option<&str>) -> BoxFuture<'static, ToolOutput> {
        let inner = &*self.carnet.inner;
        let call_name = inner.meta_name(MetaTool::CallTool);
        let refuse = |output: ToolOutput| -> BoxFuture<'static, ToolOutput> {
            let span = telemetry::execute_tool(call_name, id, ToolKind::Meta);
            let capture = inner.capture_content;
            telemetry::record_tool_outcome(&span, Some(Failure::InvalidArguments), arguments, &output, capture);
            Box::pin(std::future::ready(output))
        };
        if let Err(e) = schema::validate(arguments, &MetaTool::CallTool.shared_input_schema(inner.naming)) {
            return refuse(ToolOutput::error(
                format!("invalid arguments for `{call_name}`: {e}"),
                json!({"field": e.path}),
            ));
        }
        let name = arguments[param(inner.naming, "name")].as_str().unwrap_or_default();
        if inner.meta_by_name(name).is_some() {
            return refuse(ToolOutput::error(
                format!("`{name}` is a meta-tool: call it directly, not through `{call_name}`"),
                json!({"tool": name}),
            ));
        }
        let arguments = arguments[param(inner.naming, "arguments")].clone();
        self.domain_future(name, arguments, id, Some(call_name))
    }

    /// A domain call: checked against the session now (exposure, implementation,
    /// arguments), run by the returned future, which owns everything it needs (its span
    /// too, a child of the span current now).
    fn domain_future(
        &self,
        name: &str,
        arguments: Value,
        call_id: Option<&str>,
        via: Option<&'static str>,
    ) -> BoxFuture<'static, ToolOutput> {
        // No arguments at all is an empty object (some models send `null` for no-argument tools).
        let mut arguments = if arguments.is_null() { json!({}) } else { arguments };
        let span = telemetry::execute_tool(name, call_id, ToolKind::Domain);
        if let Some(via) = via {
            span.record("carnet.via", via);
        }
        let checked = check_domain_call(&self.carnet.inner, &self.loaded, name, &mut arguments);
        if let Ok(id) = &checked {
            let inner = &*self.carnet.inner;
            span.record("carnet.toolset.name", &*inner.toolset(inner.tool(*id).toolset).name);
        }
        let carnet = Carnet::clone(&self.carnet);
        let extensions = Arc::clone(&self.extensions);
        let session = self.id;
        let skills = self.loaded.skills.clone();
        let agent = self.loaded.agent;
        let name = name.to_owned();
        let call_id = call_id.map(str::to_owned);
        let outcome_span = span.clone();
        let capture = self.carnet.inner.capture_content;
        // The arguments as the model sent them, for the span (hooks may rewrite them).
        let sent = (capture && !span.is_disabled()).then(|| arguments.clone());
        let future = async move {
            let inner = &*carnet.inner;
            let place = Place {
                carnet: &carnet,
                extensions: &extensions,
                session,
                skills: &skills,
                agent,
                call_id: call_id.as_deref(),
            };
            let (output, failure) = run_domain(inner, checked, &name, arguments, place).await;
            telemetry::record_tool_outcome(
                &outcome_span,
                failure,
                sent.as_ref().unwrap_or(&Value::Null),
                &output,
                capture,
            );
            output
        };
        Box::pin(future.instrument(span))
    }
}

/// Where a domain call runs: the conversation's extensions, the loaded skills, the agent
/// and the call's id.
struct Place<'a> {
    carnet: &'a Carnet,
    extensions: &'a Extensions,
    session: u64,
    skills: &'a [SkillIx],
    agent: crate::index::AgentIx,
    call_id: Option<&'a str>,
}

/// Runs a checked domain call through its hooks and its implementation: the output, and
/// why it failed when it was refused or panicked.
async fn run_domain(
    inner: &Inner,
    checked: Result<ToolIx, (ToolOutput, Failure)>,
    name: &str,
    arguments: Value,
    place: Place<'_>,
) -> (ToolOutput, Option<Failure>) {
    let Place {
        carnet,
        extensions,
        session,
        skills,
        agent,
        call_id,
    } = place;
    let (id, toolset) = match checked {
        Ok(id) => (Some(id), Some(inner.tool(id).toolset)),
        Err(_) => (None, None),
    };
    let canonical = id.map_or(name, |id| inner.tool(id).spec.name.as_str());
    let hooks: Vec<&dyn Hook> = inner.hooks_for(canonical, toolset).collect();
    let call = Call {
        agent: &inner.agent(agent).name,
        tool: canonical,
        toolset: toolset.map(|t| &*inner.toolset(t).name),
        meta: false,
        annotations: id.map_or(Annotations::NONE, |id| inner.tool(id).spec.annotations),
        extensions,
    };
    let id = match checked {
        Ok(id) => id,
        Err((output, failure)) => return (call.after(&hooks, &arguments, output), Some(failure)),
    };
    let tool = inner.tool(id);
    let arguments = match call.before(&hooks, arguments, &tool.spec.input_schema) {
        Ok(arguments) => arguments,
        Err((arguments, output, failure)) => return (call.after(&hooks, &arguments, output), failure),
    };
    let Some(implementation) = &tool.implementation else {
        unreachable!("checked before the hooks")
    };
    // Fires the tool's cancellation signal if this future is dropped before the call ends.
    let abandoned = CancelOnDrop::new();
    let context = Context {
        states: &inner.states,
        extensions,
        session,
        agent: &inner.agent(agent).name,
        loaded_skills: skills.iter().map(|&s| &*inner.skill(s).name).collect(),
        tool: &tool.spec.name,
        call_id,
        cancellation: &abandoned.signal,
        engine: carnet,
    };
    let future = implementation.handler.call_output(&context, arguments.clone());
    let result = CatchUnwind(future).await;
    abandoned.finish();
    let (output, failure) = match result {
        Ok(Ok(output)) => (output, None),
        Ok(Err(e)) => match e.internal_detail() {
            Some(detail) => incident(canonical, Failure::InternalError, detail),
            None => (e.into_output(canonical), None),
        },
        Err(panic) => incident(canonical, Failure::ToolPanic, &panic),
    };
    (call.after(&hooks, &arguments, output), failure)
}

/// A panic or an internal error: the model gets an incident id, the operator what happened
/// (span and log, under the same id).
fn incident(canonical: &str, failure: Failure, detail: &str) -> (ToolOutput, Option<Failure>) {
    let incident = telemetry::incident_id();
    telemetry::record_incident(&tracing::Span::current(), canonical, &incident, failure, detail);
    let output = ToolOutput::error(
        format!(
            "tool `{canonical}` failed with an internal error (incident {incident}); the program's log has the details"
        ),
        json!({"tool": canonical, "code": "internal_error", "incident": incident}),
    );
    (output, Some(failure))
}

/// The attributes of a meta-tool call that say what it loaded or read.
fn record_meta(span: &Span, meta: MetaTool, naming: crate::Naming, arguments: &Value) {
    let arg = |camel: &'static str| {
        arguments
            .get(param(naming, camel))
            .and_then(Value::as_str)
            .map(|text| telemetry::cut(text, telemetry::NAME_LIMIT))
    };
    match meta {
        MetaTool::LoadSkill | MetaTool::ListSkillToolsets => {
            span.record("carnet.skill.name", arg("skillName"));
        }
        MetaTool::LoadSkillFile => {
            span.record("carnet.skill.name", arg("skillName"));
            span.record("carnet.skill.file.path", arg("path"));
        }
        MetaTool::LoadToolset => {
            span.record("carnet.toolset.name", arg("toolsetName"));
        }
        _ => {}
    }
}

/// One call as its hooks see it, less the arguments (which hooks may rewrite).
struct Call<'a> {
    agent: &'a str,
    tool: &'a str,
    toolset: Option<&'a str>,
    meta: bool,
    annotations: Annotations,
    extensions: &'a Extensions,
}

impl Call<'_> {
    fn info<'b>(&'b self, arguments: &'b Value) -> CallInfo<'b> {
        CallInfo {
            agent: self.agent,
            tool: self.tool,
            toolset: self.toolset,
            arguments,
            meta: self.meta,
            annotations: self.annotations,
            extensions: self.extensions,
        }
    }

    /// Runs the before hooks on valid arguments: the arguments to call with (rewritten and
    /// checked against `input_schema` again if a hook rewrote them), or the output that
    /// ends the call.
    fn before(
        &self,
        hooks: &[&dyn Hook],
        mut arguments: Value,
        input_schema: &Value,
    ) -> Result<Value, (Value, ToolOutput, Option<Failure>)> {
        let mut rewritten = false;
        for hook in hooks {
            match hook.before(&self.info(&arguments)) {
                Before::Continue => {}
                Before::Rewrite(new) => {
                    arguments = new;
                    rewritten = true;
                }
                Before::Deny(reason) => {
                    let output = ToolOutput::error(reason, json!({"tool": self.tool, "denied": true}));
                    return Err((arguments, output, Some(Failure::HookDenied)));
                }
                Before::Respond(output) => return Err((arguments, output, None)),
            }
        }
        if rewritten && let Err(e) = schema::validate(&arguments, input_schema) {
            let output = invalid_arguments(self.tool, &e, input_schema, " after a hook rewrote them");
            return Err((arguments, output, Some(Failure::InvalidArguments)));
        }
        Ok(arguments)
    }

    fn after(&self, hooks: &[&dyn Hook], arguments: &Value, mut output: ToolOutput) -> ToolOutput {
        for hook in hooks {
            hook.after(&self.info(arguments), &mut output);
        }
        output
    }
}
