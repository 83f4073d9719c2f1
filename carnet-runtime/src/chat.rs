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
//! A real provider client implements [`ChatModel`] by rendering the request with
//! [`crate::providers`] and parsing the calls back; nothing else changes.

use std::fmt;

use serde_json::Value;

use crate::dispatch::{BoxFuture, ToolOutput};
use crate::engine::ExposureMode;
use crate::session::Session;
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

/// What the model answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatResponse {
    /// A final answer.
    Text(String),
    /// Tool calls to run (with optional text alongside).
    ToolCalls {
        /// Text alongside the calls.
        text: Option<String>,
        /// The calls: loads in order, the domain calls between them side by side; results in
        /// this order.
        calls: Vec<ToolCall>,
    },
}

/// A model's failure (network, API error, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

/// A chat model: messages and tool specs in, text or tool calls out.
pub trait ChatModel: Send {
    /// One completion.
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>>;
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
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The final answer; `None` when the step limit was reached first.
    pub answer: Option<String>,
    /// Every step, in order.
    pub steps: Vec<Step>,
}

/// Runs the conversation in `messages` (ending with the user's turn) until the model gives
/// a final answer or `max_steps` model calls have been made. Tool results and the model's
/// messages are appended to `messages`; `on_step` sees each step as it completes.
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
    let mut steps = Vec::new();
    for _ in 0..max_steps {
        let system = session.system_prompt().to_owned();
        let tools = session.tools().to_vec();
        let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
        let response = model
            .complete(ChatRequest {
                system: &system,
                messages,
                tools: &tools,
                mode: session.carnet().mode(),
                callable: &callable,
            })
            .await?;
        match response {
            ChatResponse::Text(text) => {
                messages.push(Message::Assistant {
                    text: Some(text.clone()),
                    tool_calls: Vec::new(),
                });
                let step = Step {
                    system,
                    tools,
                    calls: Vec::new(),
                    text: Some(text.clone()),
                };
                on_step(&step);
                steps.push(step);
                return Ok(Outcome {
                    answer: Some(text),
                    steps,
                });
            }
            ChatResponse::ToolCalls { text, calls } => {
                messages.push(Message::Assistant {
                    text: text.clone(),
                    tool_calls: calls.clone(),
                });
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
                    text,
                };
                on_step(&step);
                steps.push(step);
            }
        }
    }
    Ok(Outcome { answer: None, steps })
}

/// Runs a step's calls: each meta-tool call alone, in order; the domain calls between them
/// together. The outputs are in the order of `calls`.
async fn run_calls(session: &mut Session, calls: &[ToolCall]) -> Vec<ToolOutput> {
    let mut outputs = Vec::with_capacity(calls.len());
    let mut batch = Vec::new();
    for call in calls {
        if let Some(future) = session.call_detached(&call.name, &call.arguments) {
            batch.push(future);
            continue;
        }
        outputs.extend(JoinAll::new(std::mem::take(&mut batch)).await);
        outputs.push(session.call(&call.name, call.arguments.clone()).await);
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
