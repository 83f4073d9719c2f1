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
//! [`crate::providers`] (`openai::chat_request`, `anthropic::request`, ...) and parsing the calls back.
//!
//! A program with a loop of its own (its own client, its own conversation of JSON messages)
//! takes [`crate::providers::openai::ChatTurn`] each turn instead: the request body as of the
//! session now, and the answer's calls run and rendered back, in three lines.

mod conversation;
mod model;
mod record;

use tracing::Instrument;

pub use conversation::{Message, Transcript, call, last_user_message, tool_results};
pub use model::{ChatModel, ChatRequest, ChatResponse, Delta, ModelError, Usage};

use crate::dispatch::{BoxFuture, ToolOutput};
use crate::session::Session;
use crate::telemetry;
use crate::tool::{ToolCall, ToolSpec};

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

/// [`run_turn`] behind a box. [`run`] and [`run_streaming`] are generic (over the
/// callback), and a future is compiled where it is polled: awaited directly, the whole loop
/// (the model's request, the calls, the spans) would be compiled again in every program that
/// runs a conversation. Behind a box made here it is compiled once, in this crate, for one
/// allocation per turn.
fn run_loop<'a>(
    session: &'a mut Session,
    model: &'a mut dyn ChatModel,
    messages: &'a mut Vec<Message>,
    max_steps: usize,
    on_delta: Option<&'a mut (dyn FnMut(Delta<'_>) + Send)>,
    on_step: &'a mut (dyn FnMut(&Step) + Send),
) -> BoxFuture<'a, Result<Outcome, ModelError>> {
    Box::pin(run_turn(session, model, messages, max_steps, on_delta, on_step))
}

async fn run_turn(
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
    record::record_turn(&span, &outcome);
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
        record::record_request(&span, &system, messages, session.carnet().inner.capture_content);
        let response = match on_delta.as_deref_mut() {
            Some(on_delta) => model.stream(request, on_delta).instrument(span.clone()).await,
            None => model.complete(request).instrument(span.clone()).await,
        };
        record::record_chat(&span, &response, session.carnet().inner.capture_content);
        let response = response?;
        let ChatResponse {
            text,
            calls,
            usage: step_usage,
            finish_reason,
            hosted,
        } = response;
        usage += step_usage.unwrap_or_default();
        // The provider's own tool search ran before the answer: kept for the next request,
        // never run here (a tool it found is called, if at all, in `calls`, and the session
        // decides).
        if !hosted.is_empty() {
            messages.push(Message::Hosted(hosted));
        }
        messages.push(Message::Assistant {
            text: text.clone(),
            tool_calls: calls.clone(),
        });
        let done = calls.is_empty();
        let outputs = session.run_calls(&calls).await;
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
