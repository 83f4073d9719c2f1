//! Remote A2A agents as toolsets (feature `remote-a2a`).
//!
//! A `TOOLSET.md` with an `a2a:` block names an agent (`url`, `headers`; `${VAR}` read when
//! the agent is first contacted, never stored). `carnet a2a pin` reads its agent card and
//! writes `a2a.lock.json` ([`fetch`], [`pin_card`]): each skill of the card a tool taking
//! one `message`, in the format of MCP pins, so the build checks
//! both alike and never connects.
//!
//! # Calls
//!
//! A call sends the message to the agent (`SendStreamingMessage` when its card declares
//! streaming, else `SendMessage`) and follows the task to its end: through the stream, and
//! by `GetTask` polls when the stream ends early or there is none. The result is the text of
//! the task's artifacts (else of its last status message, or the agent's message). A task
//! waiting for input (`input-required`) is an answer too: the next call of the same session
//! continues that task. Each carnet session has its own A2A context (the one the agent gave
//! its first task), so a delegation over several calls keeps its conversation; a session
//! holding a [`ConversationId`](crate::telemetry::ConversationId) is known by it.
//!
//! # Faults
//!
//! The card is read on the first load of a skill that brings the toolset (in the
//! background) or the first call, and again after a failure or once five minutes old. A
//! skill the live card no longer offers (or no longer with text) is refused
//! (`upstream_drift`). A call that takes
//! longer than [`RemoteOptions::call_timeout`](crate::RemoteOptions) is an `upstream_timeout`
//! error result (its task canceled); an agent that cannot be reached is
//! `upstream_unavailable`, a stream that breaks `upstream_crashed`, an answer that is not
//! A2A, a JSON-RPC error or a failed, rejected or canceled task `upstream_error`. Every
//! answer is bounded: bodies and stream events by
//! [`RemoteOptions::max_message_bytes`](crate::RemoteOptions), streams at 10,000 events,
//! answers at 1 MiB of text. The `execute_tool` span records `carnet.a2a.agent` and
//! `carnet.a2a.task_id`.

mod agent;
mod client;
mod pin;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

pub use pin::{PIN_FILE, fetch, pin_card};

use self::agent::{Agent, SessionKey, state_name};
use crate::dispatch::{BoxFuture, Context, ToolError, ToolHandler, ToolImpl, ToolOutput, ToolsetImpl};
use crate::engine::carnet::RemoteServer;
use crate::engine::options::{BuildError, RemoteOptions};
use crate::manifest::Toolset;
use crate::remote::Server;

impl RemoteServer for Agent {
    fn warm(self: Arc<Self>) {
        Agent::warm(&self);
    }

    fn started(&self) -> bool {
        Agent::started(self)
    }

    fn read_skill(
        self: Arc<Self>,
        skill: String,
        _uri: String,
        _digest: String,
    ) -> BoxFuture<'static, Result<String, ToolOutput>> {
        // An A2A agent's skills are tools, never carnet skills: nothing names one.
        Box::pin(std::future::ready(Err(ToolOutput::error(
            format!("skill `{skill}` cannot be read from A2A agent `{}`", self.name),
            json!({"skill": skill, "code": "upstream_error", "data": {"toolset": self.toolset, "agent": self.name}}),
        ))))
    }
}

/// The implementations of an A2A toolset: one handler per pinned skill, all sending to one
/// [`Agent`] (returned too, for the engine to contact on load). `mcp` is the toolset's
/// [`Toolset::mcp`] JSON.
pub(crate) fn toolset_impl(
    toolset: &Toolset,
    mcp: &Value,
    options: &RemoteOptions,
) -> Result<(ToolsetImpl, Arc<dyn RemoteServer>), BuildError> {
    let invalid = |reason: String| BuildError::RemoteToolset {
        toolset: toolset.name.to_string(),
        reason,
    };
    let server = Server::from_json(&mcp["server"]).map_err(|e| invalid(e.to_string()))?;
    let name = mcp["pin"]["serverInfo"]["name"]
        .as_str()
        .unwrap_or(&toolset.name)
        .to_owned();
    let mut skills = HashMap::new();
    let mut specs = Vec::with_capacity(toolset.tools.len());
    for tool in toolset.tools.iter() {
        let remote: Value = tool
            .remote
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or(Value::Null);
        let input = remote["inputSchema"].clone();
        if !input.is_object() {
            return Err(invalid(format!("tool `{}` has no pinned input schema", tool.name)));
        }
        let skill = remote["a2a"]["skill"].as_str().unwrap_or(&tool.name).to_owned();
        skills.insert(tool.name.to_string(), skill);
        specs.push((tool.name.to_string(), input));
    }
    let agent = Arc::new(Agent::new(
        toolset.name.to_string(),
        name,
        server,
        skills,
        options.clone(),
    ));
    let tools: Vec<ToolImpl> = specs
        .into_iter()
        .map(|(name, input)| {
            let handler = DelegateTool {
                agent: Arc::clone(&agent),
                name: name.clone(),
            };
            ToolImpl::new(name, input, handler)
        })
        .collect();
    let server: Arc<dyn RemoteServer> = agent;
    Ok((ToolsetImpl::new(toolset.name.to_string(), tools), server))
}

/// One skill of a remote agent: a call is a message to the agent.
struct DelegateTool {
    agent: Arc<Agent>,
    name: String,
}

impl ToolHandler for DelegateTool {
    fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        super::value_of(self.call_output(context, arguments), "the agent failed")
    }

    fn call_output<'a>(
        &'a self,
        context: &'a Context<'a>,
        arguments: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let span = tracing::Span::current();
        span.record("carnet.a2a.agent", self.agent.name.as_str());
        let data = json!({"toolset": self.agent.toolset, "agent": self.agent.name});
        if tokio::runtime::Handle::try_current().is_err() {
            let error = ToolError::new(format!(
                "A2A agent `{}` of toolset `{}` can only be called inside a tokio runtime",
                self.agent.name, self.agent.toolset
            ))
            .with_code("upstream_unavailable")
            .with_data(data);
            return Box::pin(std::future::ready(Err(error)));
        }
        let Some(message) = arguments
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
        else {
            let error =
                ToolError::new("`message` must be the text to send to the agent").with_code("invalid_arguments");
            return Box::pin(std::future::ready(Err(error)));
        };
        let message = message.to_owned();
        let key = session_key(context);
        Box::pin(async move {
            let on_task = |task: &str| {
                span.record("carnet.a2a.task_id", task);
            };
            match self.agent.ask(&self.name, key, message, &on_task).await {
                Ok(answer) => {
                    let state = state_name(&answer.state);
                    let data = json!({"toolset": self.agent.toolset, "agent": self.agent.name, "taskId": answer.task_id, "state": state});
                    match answer.state {
                        a2a_types::TaskState::Failed
                        | a2a_types::TaskState::Rejected
                        | a2a_types::TaskState::Canceled => {
                            let why = if answer.text.is_empty() {
                                "no reason given".to_owned()
                            } else {
                                answer.text
                            };
                            Err(ToolError::new(format!(
                                "A2A agent `{}` of toolset `{}` ended the task {state}: {why}",
                                self.agent.name, self.agent.toolset
                            ))
                            .with_code("upstream_error")
                            .with_data(data))
                        }
                        a2a_types::TaskState::InputRequired | a2a_types::TaskState::AuthRequired => {
                            let text = format!(
                                "{}\n\n(the agent waits for an answer ({state}): call `{}` again with it)",
                                answer.text, self.name
                            );
                            Ok(ToolOutput::ok(Value::String(text)))
                        }
                        _ => Ok(ToolOutput::ok(Value::String(answer.text))),
                    }
                }
                Err(failure) => Err(ToolError::new(format!(
                    "A2A agent `{}` of toolset `{}`: {}",
                    self.agent.name, self.agent.toolset, failure.message
                ))
                .with_code(failure.code)
                .with_data(data)),
            }
        })
    }
}

/// Which conversation a call belongs to: the session's [`ConversationId`] when it holds
/// one, else the session itself (by its id, which no other session of the process has,
/// before or after).
///
/// [`ConversationId`]: crate::telemetry::ConversationId
fn session_key(context: &Context<'_>) -> SessionKey {
    let extensions = context.extensions();
    match extensions.get::<crate::telemetry::ConversationId>() {
        Some(id) => SessionKey::Conversation(id.0.clone()),
        None => SessionKey::Session(context.session),
    }
}
