//! The agent loop: a provider-agnostic [`ChatModel`] and [`run`], which sends the session's
//! prompt and tools, runs the model's tool calls through the session, refreshes the prompt
//! and tool list after each step (loads change them), and stops on a final answer or a step
//! limit.
//!
//! A step's calls keep their order where it matters: a meta-tool call (a load) runs alone,
//! after the calls before it and before the ones after it; consecutive domain calls between
//! them run side by side ([`Session::call_detached`]), which is what a model asking for
//! parallel tool calls expects. Results always come back in the order of the calls.
//!
//! carnet's provider clients (the `models` module, features `openai` and `anthropic`) implement
//! [`ChatModel`]; any other client can, by rendering the request with
//! [`crate::providers::conversation`] and parsing the calls back.

use serde_json::Value;
use tracing::Instrument;

use crate::dispatch::{BoxFuture, ToolOutput};
use crate::engine::ExposureMode;
use crate::session::Session;
use crate::telemetry;
use crate::tool::{ToolCall, ToolSpec};

/// A message of the conversation. Serialises as `{"role": "user" | "assistant" | "tool",
/// "content": ...}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "role", content = "content", rename_all = "snake_case")]
pub enum Message {
    /// From the user.
    User(String),
    /// From the model: text, tool calls, or both.
    Assistant {
        /// What the model said.
        text: Option<String>,
        /// The tools it called.
        #[serde(rename = "toolCalls")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool's result.
    Tool {
        /// The call it answers.
        call: ToolCall,
        /// The result.
        output: ToolOutput,
    },
}

/// A conversation saved as data: its messages and its session's state. Saved as JSON, it
/// resumes in another process ([`Transcript::resume`]) exactly where it stopped: the next
/// request is the one the uninterrupted conversation would have sent.
///
/// # Examples
///
/// ```
/// # use carnet_runtime::{Carnet, Manifest, block_on};
/// use carnet_runtime::chat::{Message, Transcript};
/// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
/// #   "skills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S", "content": "Do S."}},
/// #   "toolsets": {}}"#)?;
/// # let carnet = Carnet::builder(&manifest).build()?;
/// let mut session = carnet.session("a")?;
/// block_on(session.call("loadSkill", serde_json::json!({"skillName": "s"})));
/// let saved = serde_json::to_string(&Transcript::new(&session, vec![Message::User("hi".into())]))?;
///
/// let (resumed, messages) = serde_json::from_str::<Transcript>(&saved)?.resume(&carnet)?;
/// assert!(resumed.is_loaded("s"));
/// assert_eq!(messages, [Message::User("hi".into())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    /// The messages so far.
    pub messages: Vec<Message>,
    /// The session's loaded skills, toolsets and tools, by name.
    pub state: crate::session::SessionState,
}

impl Transcript {
    /// The conversation of `session` with `messages`.
    #[must_use]
    pub fn new(session: &Session, messages: Vec<Message>) -> Self {
        Transcript {
            messages,
            state: session.state(),
        }
    }

    /// The session, resumed on `carnet`, and the messages.
    ///
    /// # Errors
    ///
    /// As [`crate::Carnet::resume`]: a state saved against other content, or naming what the
    /// agent cannot load.
    pub fn resume(self, carnet: &crate::Carnet) -> Result<(Session, Vec<Message>), crate::SessionError> {
        Ok((carnet.resume(&self.state)?, self.messages))
    }
}

/// What the model receives at each step.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The session's system prompt, as of this step.
    pub system: &'a str,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools offered, as of this step.
    pub tools: &'a [ToolSpec],
    /// How the session discloses tools: renderers mark deferred tools
    /// ([`ExposureMode::Deferred`]) or restrict the model ([`ExposureMode::AllowedTools`]).
    pub mode: ExposureMode,
    /// The tools the model may call now (meta-tools and exposed domain tools).
    pub callable: &'a [String],
}

/// What the model answers: text, tool calls, or both, with what the call cost.
///
/// # Examples
///
/// ```
/// use carnet_runtime::chat::{self, ChatResponse, Usage};
///
/// let answer = ChatResponse::answer("4").with_usage(Usage { input: 120, cached_input: 100, output: 1 });
/// assert!(answer.calls.is_empty());
/// let calls = ChatResponse::tool_calls(None, vec![chat::call(1, "loadSkill", serde_json::json!({"skillName": "math"}))]);
/// assert_eq!(calls.calls[0].name, "loadSkill");
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ChatResponse {
    /// What the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The tools it called: loads in order, the domain calls between them side by side;
    /// results in this order. Empty: the text is the final answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ToolCall>,
    /// The provider's token counts for this call, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the model stopped, in the provider's own words (`stop`, `tool_calls`, `end_turn`,
    /// `length`, `max_tokens`, `refusal`, ...).
    #[serde(default, rename = "finishReason", skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

impl ChatResponse {
    /// A final answer.
    #[must_use]
    pub fn answer(text: impl Into<String>) -> Self {
        ChatResponse {
            text: Some(text.into()),
            ..ChatResponse::default()
        }
    }

    /// Tool calls to run, with optional text alongside.
    #[must_use]
    pub fn tool_calls(text: Option<String>, calls: Vec<ToolCall>) -> Self {
        ChatResponse {
            text,
            calls,
            ..ChatResponse::default()
        }
    }

    /// With the provider's token counts.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// With the provider's stop reason.
    #[must_use]
    pub fn with_finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }
}

/// A model call's token counts, as the provider reports them.
///
/// `input` counts every input token, cached ones included (`OpenAI`'s `prompt_tokens`;
/// Anthropic's `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens`);
/// `cached_input` is the part read from the provider's prompt cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Input tokens, cached ones included.
    pub input: u64,
    /// Input tokens read from the prompt cache.
    #[serde(rename = "cachedInput")]
    pub cached_input: u64,
    /// Output tokens.
    pub output: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input += other.input;
        self.cached_input += other.cached_input;
        self.output += other.output;
    }
}

/// Why a model call failed. Each variant says what to do about it; none holds an API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The API key's variable is not set.
    #[error("{variable} is not set: export it with your API key (or pass a key to the client)")]
    MissingKey {
        /// The environment variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
        variable: &'static str,
    },
    /// A configuration value is unusable (a base URL that is not `http(s)://...`).
    #[error("{what}: {message}")]
    Config {
        /// What was configured (`OPENAI_BASE_URL`, ...).
        what: String,
        /// What is wrong with it.
        message: String,
    },
    /// The provider refused the key (401) or its permissions (403).
    #[error("{provider} refused the API key ({status}): {message}; check {variable}")]
    Unauthorized {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// 401 or 403.
        status: u16,
        /// The provider's own message.
        message: String,
        /// The variable the key comes from.
        variable: &'static str,
    },
    /// The provider rejected the request (400, 404, 422, ...): its own message says why.
    #[error("{provider} rejected the request ({status}): {message}")]
    Rejected {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The HTTP status.
        status: u16,
        /// The provider's own message.
        message: String,
    },
    /// Still rate limited (429) or overloaded (5xx, 529) after every retry.
    #[error("{provider} kept failing ({status}) after {attempts} attempts: {message}; try again later")]
    Unavailable {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The last HTTP status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The provider's own message.
        message: String,
    },
    /// No (complete) response in time, after every retry.
    #[error(
        "{provider}: no response within {seconds} s after {attempts} attempts; raise the timeout or check the server"
    )]
    Timeout {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The timeout, in seconds.
        seconds: u64,
        /// Attempts made.
        attempts: u32,
    },
    /// The connection failed or dropped, after every retry.
    #[error("{provider}: connection failed after {attempts} attempts: {message}; check the base URL and the network")]
    Connection {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// Attempts made.
        attempts: u32,
        /// What failed.
        message: String,
    },
    /// The response could not be read: malformed, truncated, too large, or not what the API
    /// documents.
    #[error("{provider}: unreadable response: {message}")]
    InvalidResponse {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// Any other failure (a scripted model's, a user's own client's).
    #[error("{0}")]
    Other(String),
}

impl ModelError {
    /// [`ModelError::Other`] with `message`.
    #[must_use]
    pub fn other(message: impl Into<String>) -> Self {
        ModelError::Other(message.into())
    }
}

/// A fragment of a streamed model answer ([`ChatModel::stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta<'a> {
    /// More of the model's text.
    Text(&'a str),
    /// The model started a tool call (`index` is its place in the answer).
    ToolCall {
        /// The call's place in the answer.
        index: usize,
        /// The tool's canonical name.
        name: &'a str,
    },
    /// More of a tool call's arguments (JSON text, not yet parseable).
    Arguments {
        /// The call's place in the answer.
        index: usize,
        /// The fragment.
        fragment: &'a str,
    },
}

/// A chat model: messages and tool specs in, text or tool calls out.
///
/// carnet's clients (the `models` module, features `openai` and `anthropic`) implement it;
/// so can any other client: render the request with [`crate::providers::conversation`],
/// parse the answer back, and nothing else changes.
pub trait ChatModel: Send {
    /// One completion.
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>>;

    /// One completion, streamed: `on_delta` sees the text and the tool calls as they
    /// arrive; the result is the whole answer, as [`ChatModel::complete`] gives it. By
    /// default, the completion and then its text as one delta.
    fn stream<'a>(
        &'a mut self,
        request: ChatRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let response = self.complete(request).await?;
            if let Some(text) = &response.text {
                on_delta(Delta::Text(text));
            }
            for (index, call) in response.calls.iter().enumerate() {
                on_delta(Delta::ToolCall {
                    index,
                    name: &call.name,
                });
            }
            Ok(response)
        })
    }

    /// The provider, as the `OpenTelemetry` `GenAI` conventions name it (`openai`,
    /// `anthropic`, ...).
    #[allow(clippy::unnecessary_literal_bound)] // implementations return their own fields
    fn provider(&self) -> &str {
        "custom"
    }

    /// The model requested.
    #[allow(clippy::unnecessary_literal_bound)]
    fn model(&self) -> &str {
        ""
    }
}

/// One step of a run, for reporting.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The system prompt the model saw.
    pub system: String,
    /// The tools the model saw.
    pub tools: Vec<ToolSpec>,
    /// The calls it made and their results (empty for the final answer).
    pub calls: Vec<(ToolCall, ToolOutput)>,
    /// Its text, if any.
    pub text: Option<String>,
    /// The provider's token counts, when it reports them.
    pub usage: Option<Usage>,
    /// Why the model stopped, in the provider's words.
    pub finish_reason: Option<String>,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The model gave a final answer.
    Answer,
    /// The step limit was reached first: the model kept calling tools.
    MaxSteps,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The final answer; `None` when the step limit was reached first.
    pub answer: Option<String>,
    /// Why the run ended.
    pub stop: Stop,
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// The token counts of every step, added up.
    pub usage: Usage,
}

/// What [`run_streaming`] reports as it goes.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A fragment of the model's answer, as it arrives.
    Delta(Delta<'a>),
    /// A step, once its calls have run.
    Step(&'a Step),
}

/// Runs the conversation in `messages` (ending with the user's turn) until the model gives
/// a final answer or `max_steps` model calls have been made. Tool results and the model's
/// messages are appended to `messages`; `on_step` sees each step as it completes.
///
/// A tool call whose arguments the provider sent as text that is not JSON (carnet's clients
/// keep such text as a JSON string) is not run: its result is an error the model can read
/// (`invalid_arguments`), and the conversation goes on.
///
/// # Errors
///
/// The model's error; tool failures are results the model sees, not errors.
pub async fn run(
    session: &mut Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
    max_steps: usize,
    mut on_step: impl FnMut(&Step) + Send,
) -> Result<Outcome, ModelError> {
    run_loop(session, model, messages, max_steps, None, &mut on_step).await
}

/// [`run`], streaming: the model is called through [`ChatModel::stream`] and `on_event`
/// sees its text and tool calls as they arrive, then each step.
///
/// # Errors
///
/// As [`run`].
pub async fn run_streaming(
    session: &mut Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
    max_steps: usize,
    on_event: impl FnMut(Event<'_>) + Send,
) -> Result<Outcome, ModelError> {
    let on_event = std::sync::Mutex::new(on_event);
    let mut on_delta =
        |delta: Delta<'_>| (on_event.lock().unwrap_or_else(std::sync::PoisonError::into_inner))(Event::Delta(delta));
    let mut on_step =
        |step: &Step| (on_event.lock().unwrap_or_else(std::sync::PoisonError::into_inner))(Event::Step(step));
    run_loop(session, model, messages, max_steps, Some(&mut on_delta), &mut on_step).await
}

async fn run_loop(
    session: &mut Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
    max_steps: usize,
    on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    on_step: &mut (dyn FnMut(&Step) + Send),
) -> Result<Outcome, ModelError> {
    // The turn's span: the model calls and tool calls below are its children.
    let conversation = session.extensions().get::<telemetry::ConversationId>();
    let span = telemetry::invoke_agent(
        session.agent(),
        model.provider(),
        model.model(),
        conversation.map(|c| c.0.as_str()),
    );
    let outcome = run_steps(session, model, messages, max_steps, on_delta, on_step)
        .instrument(span.clone())
        .await;
    telemetry::record_turn(&span, &outcome);
    outcome
}

async fn run_steps(
    session: &mut Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
    max_steps: usize,
    mut on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    on_step: &mut (dyn FnMut(&Step) + Send),
) -> Result<Outcome, ModelError> {
    let mut steps = Vec::new();
    let mut usage = Usage::default();
    for _ in 0..max_steps {
        let system = session.system_prompt().to_owned();
        let tools = session.tools().to_vec();
        let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
        let request = ChatRequest {
            system: &system,
            messages,
            tools: &tools,
            mode: session.carnet().mode(),
            callable: &callable,
        };
        let span = telemetry::chat(model.provider(), model.model());
        let response = match on_delta.as_deref_mut() {
            Some(on_delta) => model.stream(request, on_delta).instrument(span.clone()).await,
            None => model.complete(request).instrument(span.clone()).await,
        };
        telemetry::record_chat(&span, &response, session.carnet().inner.capture_content);
        let response = response?;
        let ChatResponse {
            text,
            calls,
            usage: step_usage,
            finish_reason,
        } = response;
        usage += step_usage.unwrap_or_default();
        messages.push(Message::Assistant {
            text: text.clone(),
            tool_calls: calls.clone(),
        });
        let done = calls.is_empty();
        let outputs = run_calls(session, &calls).await;
        let mut results = Vec::with_capacity(calls.len());
        for (call, output) in calls.into_iter().zip(outputs) {
            messages.push(Message::Tool {
                call: call.clone(),
                output: output.clone(),
            });
            results.push((call, output));
        }
        let step = Step {
            system,
            tools,
            calls: results,
            text: text.clone(),
            usage: step_usage,
            finish_reason,
        };
        on_step(&step);
        steps.push(step);
        if done {
            return Ok(Outcome {
                answer: Some(text.unwrap_or_default()),
                stop: Stop::Answer,
                steps,
                usage,
            });
        }
    }
    Ok(Outcome {
        answer: None,
        stop: Stop::MaxSteps,
        steps,
        usage,
    })
}

/// The result of a call whose arguments are not JSON (see [`run`]).
fn invalid_arguments(call: &ToolCall) -> Option<ToolOutput> {
    let Value::String(raw) = &call.arguments else {
        return None;
    };
    let reason = serde_json::from_str::<Value>(raw).err().map_or_else(
        || "the arguments must be a JSON object".to_owned(),
        |e| format!("the arguments are not valid JSON: {e}"),
    );
    Some(ToolOutput::error(
        format!("{reason}; call `{}` again with a JSON object of arguments", call.name),
        serde_json::json!({"code": "invalid_arguments", "tool": call.name}),
    ))
}

/// Runs a step's calls: each meta-tool call alone, in order; the domain calls between them
/// together. The outputs are in the order of `calls`.
async fn run_calls(session: &mut Session, calls: &[ToolCall]) -> Vec<ToolOutput> {
    let mut outputs = Vec::with_capacity(calls.len());
    let mut batch = Vec::new();
    for call in calls {
        if let Some(output) = invalid_arguments(call) {
            outputs.extend(JoinAll::new(std::mem::take(&mut batch)).await);
            telemetry::refused_call(call, &output);
            outputs.push(output);
            continue;
        }
        let id = call.id.as_deref();
        if let Some(future) = session.call_detached_with_id(&call.name, &call.arguments, id) {
            batch.push(future);
            continue;
        }
        outputs.extend(JoinAll::new(std::mem::take(&mut batch)).await);
        outputs.push(session.call_with_id(&call.name, call.arguments.clone(), id).await);
    }
    outputs.extend(JoinAll::new(batch).await);
    outputs
}

/// Polls every future until all are done; their outputs in order. (The runtime depends on
/// no executor, so this is written here.)
struct JoinAll {
    futures: Vec<Option<BoxFuture<'static, ToolOutput>>>,
    outputs: Vec<Option<ToolOutput>>,
}

impl JoinAll {
    fn new(futures: Vec<BoxFuture<'static, ToolOutput>>) -> JoinAll {
        JoinAll {
            outputs: futures.iter().map(|_| None).collect(),
            futures: futures.into_iter().map(Some).collect(),
        }
    }
}

impl Future for JoinAll {
    type Output = Vec<ToolOutput>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let this = &mut *self;
        for (slot, output) in this.futures.iter_mut().zip(&mut this.outputs) {
            if let Some(future) = slot
                && let std::task::Poll::Ready(done) = future.as_mut().poll(cx)
            {
                *output = Some(done);
                *slot = None;
            }
        }
        if this.futures.iter().all(Option::is_none) {
            std::task::Poll::Ready(
                this.outputs
                    .iter_mut()
                    .map(|o| o.take().expect("every call finished"))
                    .collect(),
            )
        } else {
            std::task::Poll::Pending
        }
    }
}

/// The tool results of a conversation, newest first, for models deciding what to do next.
pub fn tool_results(messages: &[Message]) -> impl Iterator<Item = (&ToolCall, &ToolOutput)> {
    messages.iter().rev().filter_map(|m| match m {
        Message::Tool { call, output } => Some((call, output)),
        _ => None,
    })
}

/// The last user message.
#[must_use]
pub fn last_user_message(messages: &[Message]) -> Option<&str> {
    messages.iter().rev().find_map(|m| match m {
        Message::User(text) => Some(text.as_str()),
        _ => None,
    })
}

/// A tool call with a generated id (`call_<n>`), for scripted models and tests.
#[must_use]
pub fn call(n: usize, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: Some(format!("call_{n}")),
        name: name.to_owned(),
        arguments,
    }
}
