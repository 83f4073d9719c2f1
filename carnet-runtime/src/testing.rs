//! Testing an agent offline: a scripted model ([`Scripted`]), a conversation run to its end
//! ([`run`], [`run_async`]), and what the model was offered and refused at each turn
//! ([`Run`], [`Turn`]).
//!
//! The model is the only part replaced: the engine, the session, the meta-tools, the
//! exposure rules and the author's tools are the real ones, so a test sees what a model
//! would see and gets the results a model would get.
//!
//! ```
//! use carnet_runtime::testing::{self, Scripted};
//! use carnet_runtime::{Carnet, Manifest, ToolImpl, ToolsetImpl};
//! use serde_json::json;
//!
//! let manifest = Manifest::from_json(r#"{
//!   "agents": {"desk": {"name": "desk", "description": "Weather desk", "skills": ["forecast"], "prompt": "You forecast."}},
//!   "skills": {"forecast": {"name": "forecast", "description": "Forecasts", "toolsets": ["weather"], "content": "Call getForecast."}},
//!   "toolsets": {"weather": {"name": "weather", "description": "Weather", "content": "",
//!     "tools": [{"name": "getForecast", "description": "The forecast for a city"}]}}
//! }"#)?;
//! let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
//! let forecast = ToolImpl::from_fn("getForecast", schema, |args| async move {
//!     Ok(json!({"city": args["city"], "sky": "sunny"}))
//! });
//! let carnet = Carnet::builder(&manifest).toolset(ToolsetImpl::new("weather", [forecast])).build()?;
//!
//! let model = Scripted::new()
//!     .call("getForecast", json!({"city": "Paris"}))        // refused: not loaded yet
//!     .call("loadSkill", json!({"skillName": "forecast"}))
//!     .call("getForecast", json!({"city": "Paris"}))
//!     .answer("Sunny in Paris.");
//! let run = testing::run(&mut carnet.session("desk")?, model, "Weather in Paris?")?;
//!
//! assert_eq!(run.answer(), Some("Sunny in Paris."));
//! run.turn(0).assert_not_offered("getForecast");
//! run.turn(2).assert_offered("getForecast");
//! assert_eq!(run.refusals().count(), 1);
//! assert_eq!(run.turn(2).result("getForecast").unwrap().value["sky"], "sunny");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! For snapshots (with `insta` or by hand), [`Turn::system`] is the system prompt of a
//! turn and [`Run::transcript`] a stable text of the whole run: the tools offered at each
//! turn, the calls, their results and the answer.

use std::collections::VecDeque;
use std::fmt::{self, Write as _};

use serde_json::Value;

use crate::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError, Stop, Usage};
use crate::dispatch::{BoxFuture, ToolOutput, block_on};
use crate::session::{Session, ToolName};
use crate::tool::{ToolCall, ToolKind, ToolSpec};

/// The most model calls [`run`] makes before it stops (the script's length is usually the
/// limit that matters).
pub const MAX_STEPS: usize = 64;

/// A model that answers from a script: each step a final answer or some tool calls, in
/// order, or a closure that decides from the request. Running past the end of the script
/// is a [`ModelError`] naming the step, so a conversation that calls the model more often
/// than the test expects fails clearly.
pub struct Scripted {
    steps: VecDeque<ChatResponse>,
    decide: Option<Decide>,
    step: usize,
    calls: usize,
}

type Decide = Box<dyn FnMut(&ChatRequest<'_>) -> ChatResponse + Send>;

impl fmt::Debug for Scripted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scripted")
            .field("steps", &self.steps)
            .field("closure", &self.decide.is_some())
            .field("step", &self.step)
            .finish_non_exhaustive()
    }
}

impl Default for Scripted {
    fn default() -> Self {
        Scripted::new()
    }
}

impl Scripted {
    /// An empty script: add steps with [`Scripted::call`], [`Scripted::calls`],
    /// [`Scripted::answer`] and [`Scripted::respond`].
    #[must_use]
    pub fn new() -> Self {
        Scripted {
            steps: VecDeque::new(),
            decide: None,
            step: 0,
            calls: 0,
        }
    }

    /// A model that asks `decide` at every step, once the scripted steps (if any) are
    /// used up. It sees the request the model would: system prompt, tools, messages.
    ///
    /// ```
    /// use carnet_runtime::chat::ChatResponse;
    /// use carnet_runtime::testing::Scripted;
    ///
    /// // Answers with the number of tools it was offered.
    /// let model = Scripted::from_fn(|request| ChatResponse::answer(request.tools.len().to_string()));
    /// # drop(model);
    /// ```
    #[must_use]
    pub fn from_fn(decide: impl FnMut(&ChatRequest<'_>) -> ChatResponse + Send + 'static) -> Self {
        Scripted {
            decide: Some(Box::new(decide)),
            ..Scripted::new()
        }
    }

    /// A step calling one tool (a typed id or a name, meta-tools included).
    #[must_use]
    pub fn call(self, tool: impl ToolName, arguments: Value) -> Self {
        self.calls([(tool, arguments)])
    }

    /// A step calling several tools at once, as a model asking for parallel calls does.
    #[must_use]
    pub fn calls<N: ToolName>(mut self, calls: impl IntoIterator<Item = (N, Value)>) -> Self {
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(tool, arguments)| {
                self.calls += 1;
                chat::call(self.calls, tool.tool_name(), arguments)
            })
            .collect();
        self.respond(ChatResponse::tool_calls(None, calls))
    }

    /// A step giving the final answer.
    #[must_use]
    pub fn answer(self, text: impl Into<String>) -> Self {
        self.respond(ChatResponse::answer(text))
    }

    /// A step answering with `response` as it is (text and calls, usage, finish reason).
    #[must_use]
    pub fn respond(mut self, response: ChatResponse) -> Self {
        self.steps.push_back(response);
        self
    }

    /// The token counts the provider reports for the last step added.
    ///
    /// # Panics
    ///
    /// When no step was added yet.
    #[must_use]
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        let last = self
            .steps
            .back_mut()
            .expect("`usage` describes the step before it: add a step first");
        last.usage = Some(Usage {
            input,
            output,
            ..Usage::default()
        });
        self
    }

    /// The steps not used yet.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.steps.len()
    }
}

impl ChatModel for Scripted {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.step += 1;
        let response = match (self.steps.pop_front(), &mut self.decide) {
            (Some(response), _) => Ok(response),
            (None, Some(decide)) => Ok(decide(&request)),
            (None, None) => Err(ModelError::other(format!(
                "the scripted model was called for step {} but its script has {} step{}",
                self.step,
                self.step - 1,
                if self.step == 2 { "" } else { "s" }
            ))),
        };
        Box::pin(std::future::ready(response))
    }

    #[allow(clippy::unnecessary_literal_bound)]
    fn provider(&self) -> &str {
        "scripted"
    }
}

/// One model call of a [`Run`]: what the model was offered and what it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The system prompt the model saw.
    pub system: String,
    /// The tool list the model saw, in the session's exposure mode.
    pub tools: Vec<ToolSpec>,
    /// The tools it could call: the meta-tools and the exposed domain tools (the same set
    /// in every mode, whatever the list shows).
    pub callable: Vec<String>,
    /// Its calls and their results, in order.
    pub calls: Vec<(ToolCall, ToolOutput)>,
    /// Its text.
    pub text: Option<String>,
    /// The token counts, when the step reported them.
    pub usage: Option<Usage>,
}

// Names by value, as `Session`'s methods take them (ids are `Copy`).
#[allow(clippy::needless_pass_by_value)]
impl Turn {
    /// The names in the tool list the model saw.
    pub fn offered(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }

    /// Whether `tool` (a typed id or a name) was callable at this turn.
    #[must_use]
    pub fn can_call(&self, tool: impl ToolName) -> bool {
        let name = tool.tool_name();
        self.callable.iter().any(|c| c == name)
    }

    /// Asserts that `tool` was callable at this turn.
    ///
    /// # Panics
    ///
    /// When it was not, naming what was.
    #[track_caller]
    pub fn assert_offered(&self, tool: impl ToolName) {
        let name = tool.tool_name();
        assert!(
            self.can_call(name),
            "`{name}` was not offered; the model could call: {}",
            self.callable.join(", ")
        );
    }

    /// Asserts that `tool` was not callable at this turn.
    ///
    /// # Panics
    ///
    /// When it was.
    #[track_caller]
    pub fn assert_not_offered(&self, tool: impl ToolName) {
        let name = tool.tool_name();
        assert!(!self.can_call(name), "`{name}` was offered");
    }

    /// The result of the first call to `tool` (a typed id or a name) at this turn; a call
    /// through `callTool` counts as a call to the tool it names.
    #[must_use]
    pub fn result(&self, tool: impl ToolName) -> Option<&ToolOutput> {
        let name = tool.tool_name();
        self.calls
            .iter()
            .find(|(call, _)| called(call) == name)
            .map(|(_, output)| output)
    }

    /// The calls the session refused at this turn: domain tools that were not exposed
    /// (not loaded yet, another agent's, unknown).
    pub fn refused(&self) -> impl Iterator<Item = (&ToolCall, &ToolOutput)> {
        self.calls
            .iter()
            .filter(|(call, output)| output.is_error && !self.callable.iter().any(|c| c == called(call)))
            .map(|(call, output)| (call, output))
    }
}

/// The longest result [`Run::transcript`] writes whole, in characters.
pub const RESULT_CHARS: usize = 200;

/// `text`, cut after [`RESULT_CHARS`] characters.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(RESULT_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

/// The tool a call runs: the named one for `callTool {name, arguments}` (and
/// `call_tool {name, ...}`), else the call's own.
fn called(call: &ToolCall) -> &str {
    match (call.name.as_str(), call.arguments.get("name").and_then(Value::as_str)) {
        ("callTool" | "call_tool", Some(inner)) => inner,
        (name, _) => name,
    }
}

/// A conversation run to its end by [`run`]: every turn, the answer, the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Every model call, in order.
    pub turns: Vec<Turn>,
    /// The final answer; `None` when the step limit came first.
    pub answer: Option<String>,
    /// Why the run ended.
    pub stop: Stop,
    /// The conversation: the user's message, the model's, the tool results.
    pub messages: Vec<Message>,
}

impl Run {
    /// The final answer.
    #[must_use]
    pub fn answer(&self) -> Option<&str> {
        self.answer.as_deref()
    }

    /// Turn `index` (from 0).
    ///
    /// # Panics
    ///
    /// When the run had fewer turns, saying how many.
    #[must_use]
    #[track_caller]
    pub fn turn(&self, index: usize) -> &Turn {
        self.turns
            .get(index)
            .unwrap_or_else(|| panic!("the run has {} turns, not {}", self.turns.len(), index + 1))
    }

    /// Every call of the run with its turn's index and result.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &ToolCall, &ToolOutput)> {
        self.turns
            .iter()
            .enumerate()
            .flat_map(|(i, turn)| turn.calls.iter().map(move |(call, output)| (i, call, output)))
    }

    /// Every call the session refused, with its turn's index.
    pub fn refusals(&self) -> impl Iterator<Item = (usize, &ToolCall, &ToolOutput)> {
        self.turns
            .iter()
            .enumerate()
            .flat_map(|(i, turn)| turn.refused().map(move |(call, output)| (i, call, output)))
    }

    /// The run as stable text, for a snapshot: per turn, the domain tools the model could
    /// call (the meta-tools are the same every turn and left out), each call with its
    /// arguments and result (a result over [`RESULT_CHARS`] characters cut there, with its
    /// length: a loaded skill's content belongs in a prompt snapshot), the text; then the
    /// answer.
    #[must_use]
    pub fn transcript(&self) -> String {
        let mut out = String::new();
        for (i, turn) in self.turns.iter().enumerate() {
            let meta: Vec<&str> = turn
                .tools
                .iter()
                .filter(|t| t.kind == ToolKind::Meta)
                .map(|t| t.name.as_str())
                .collect();
            let domain: Vec<&str> = turn
                .callable
                .iter()
                .map(String::as_str)
                .filter(|c| !meta.contains(c))
                .collect();
            let _ = writeln!(out, "turn {i}: tools [{}]", domain.join(", "));
            for (call, output) in &turn.calls {
                let verdict = if output.is_error { "error" } else { "ok" };
                let _ = writeln!(
                    out,
                    "  {}({}) -> {verdict} {}",
                    call.name,
                    call.arguments,
                    shortened(&output.value.to_string())
                );
            }
            if let Some(text) = &turn.text {
                let _ = writeln!(out, "  text: {text}");
            }
        }
        match &self.answer {
            Some(answer) => {
                let _ = writeln!(out, "answer: {answer}");
            }
            None => out.push_str("no answer: the step limit came first\n"),
        }
        out
    }
}

/// Runs a conversation on `session` from the user's message `user` until `model` answers
/// (at most [`MAX_STEPS`] model calls), on the current thread. Tools that need an async
/// runtime's reactor (tokio's I/O, timers, remote toolsets) need [`run_async`] inside that
/// runtime instead.
///
/// # Errors
///
/// The model's error: for a [`Scripted`] model, being called past the end of its script.
pub fn run(session: &mut Session, model: impl ChatModel, user: &str) -> Result<Run, ModelError> {
    block_on(run_async(session, model, user))
}

/// [`run`], as a future for an async runtime.
///
/// # Errors
///
/// As [`run`].
pub async fn run_async(session: &mut Session, model: impl ChatModel, user: &str) -> Result<Run, ModelError> {
    let mut recording = Recording {
        model,
        callable: Vec::new(),
    };
    let mut messages = vec![Message::User(user.to_owned())];
    let outcome = chat::run(session, &mut recording, &mut messages, MAX_STEPS, |_| {}).await?;
    let turns = outcome
        .steps
        .into_iter()
        .zip(recording.callable)
        .map(|(step, callable)| Turn {
            system: step.system,
            tools: step.tools,
            callable,
            calls: step.calls,
            text: step.text,
            usage: step.usage,
        })
        .collect();
    Ok(Run {
        turns,
        answer: outcome.answer,
        stop: outcome.stop,
        messages,
    })
}

/// The author's model, with what each request let it call.
struct Recording<M> {
    model: M,
    callable: Vec<Vec<String>>,
}

impl<M: ChatModel> ChatModel for Recording<M> {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.callable.push(request.callable.to_vec());
        self.model.complete(request)
    }

    fn provider(&self) -> &str {
        self.model.provider()
    }

    fn model(&self) -> &str {
        self.model.model()
    }
}
