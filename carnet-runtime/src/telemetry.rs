//! Spans for tracing what an agent does, named and attributed after the `OpenTelemetry` `GenAI`
//! semantic conventions ([`SEMCONV_VERSION`]; their status there is *Development*).
//!
//! carnet emits [`tracing`] spans; install any subscriber to see them (`tracing-subscriber`'s
//! `fmt`, `tracing-opentelemetry`, or `telemetry::otlp` with the `otel` feature, which sends them to an
//! OTLP/HTTP collector such as Jaeger, Grafana Tempo or Arize Phoenix). Without a subscriber a
//! span is a disabled handle: no field is computed, nothing is allocated.
//!
//! | span (`otel.name`) | emitted by | attributes |
//! | --- | --- | --- |
//! | `invoke_agent {agent}` | one per [`chat::run`](crate::chat::run) (a user turn) | `gen_ai.operation.name` = `invoke_agent`, `gen_ai.agent.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.conversation.id` (from a [`ConversationId`] in the session), the turn's summed `gen_ai.usage.*`, `error.type` on a model failure |
//! | `chat {model}` | one per model call of the loop | `gen_ai.operation.name` = `chat`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`, `gen_ai.response.finish_reasons`, `error.type` |
//! | `execute_tool {tool}` | one per tool call through a [`Session`](crate::Session), meta-tools included | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.type` = `function`, `gen_ai.tool.call.id`, `carnet.tool.kind` (`meta`, `domain`, `task`), `carnet.toolset.name`, `carnet.via` = `callTool` (a call through the dispatcher, named after the tool it reaches), `carnet.mcp.server` (a remote toolset's server, as its pin names it), `carnet.a2a.agent` and `carnet.a2a.task_id` (a remote A2A agent, as its pin names it, and the task a call made), `error.type`, and for loads `carnet.skill.name`, `carnet.skill.file.path`, `carnet.toolset.name`, `carnet.tools.exposed` |
//!
//! Model-call spans are of kind client, the others internal. Tool and model spans are
//! children of the turn's span, so one turn is one trace; the turns
//! of one conversation share its `gen_ai.conversation.id`, and turns run inside a span of the
//! program's own become its children (one trace for the whole conversation). Calls made on a
//! session outside the loop (an MCP server's) are each a trace of their own. A
//! failed or refused call sets the span's status to error and `error.type` to one of:
//!
//! | `error.type` | the call |
//! | --- | --- |
//! | `unknown_tool` | names no tool the agent has |
//! | `tool_not_exposed` | names a tool whose skill is not loaded yet |
//! | `tool_not_available` | names a tool of a skill the agent cannot load |
//! | `no_implementation` | names a tool this program does not implement |
//! | `invalid_arguments` | has arguments that are not JSON or do not match the schema |
//! | `hook_denied` | was refused by a [`Hook`](crate::Hook) |
//! | `tool_error` | ran and failed (the tool's `Err`, a hook's error response, a failed load) |
//! | `tool_panic` | ran and panicked: the model reads only an incident id (`carnet.incident`); the span's status description holds the panic's message, and an error event in the log holds both |
//! | `internal_error` | ran and failed with an error the model must not read ([`ToolError::internal`](crate::ToolError::internal), or a tool function's `Err` that does not convert into `ToolError`): as for a panic, the model reads only an incident id, the span and the log hold the error and its chain |
//!
//! and a model call's `error.type` is the HTTP status the provider answered with, else
//! `missing_key`, `config`, `timeout`, `connection`, `invalid_response` or `_OTHER`.
//!
//! **Content** — tool arguments and results (`gen_ai.tool.call.arguments`,
//! `gen_ai.tool.call.result`), what each model call sends (`gen_ai.system_instructions`,
//! `gen_ai.input.messages`) and its answer (`gen_ai.output.messages`) — may hold
//! personal data and is recorded only when the author opts in:
//! [`CarnetBuilder::capture_content`](crate::CarnetBuilder::capture_content), or the variable
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` the conventions' instrumentations
//! read. Captured values are cut at [`CONTENT_LIMIT`] bytes, and names taken from a call
//! (which the model or an MCP client wrote) at [`NAME_LIMIT`].
//!
//! The conventions moved after 1.41.0 to their own repository (`semantic-conventions-genai`,
//! first release 0.1.0), which adds agent-skills spans (loading a skill, reading a skill
//! resource); until carnet follows that text, a load is an `execute_tool` span of the
//! meta-tool with the `carnet.*` attributes above.
//!
//! Where the conventions and `tracing` differ: `gen_ai.response.finish_reasons` is a
//! string array in the conventions; `tracing` fields are scalars, so carnet records the one
//! reason of its single choice as a string.

use std::fmt::Write as _;

use serde_json::Value;
use tracing::Span;
use tracing::field::Empty;

use crate::dispatch::ToolOutput;

#[cfg(feature = "otel")]
pub mod otlp;

/// The version of the `OpenTelemetry` semantic conventions whose `GenAI` spans carnet follows.
pub const SEMCONV_VERSION: &str = "1.41.0";

/// The most bytes of one captured content attribute (arguments, result, output messages).
pub const CONTENT_LIMIT: usize = 16 * 1024;

/// The conversation's id, recorded as `gen_ai.conversation.id` on its turns' spans: insert
/// it into the session ([`Session::insert`](crate::Session::insert)).
///
/// # Examples
///
/// ```
/// # use carnet_runtime::{Carnet, Manifest};
/// use carnet_runtime::telemetry::ConversationId;
/// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A", "prompt": ""}},
/// #   "skills": {}, "toolsets": {}}"#)?;
/// # let carnet = Carnet::builder(&manifest).build()?;
/// let mut session = carnet.session("a")?;
/// session.insert(ConversationId("conv-42".into()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationId(pub String);

/// Why a tool call failed, as `error.type` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    UnknownTool,
    NotExposed,
    NotAvailable,
    NoImplementation,
    InvalidArguments,
    HookDenied,
    ToolError,
    ToolPanic,
    InternalError,
}

impl Failure {
    fn as_str(self) -> &'static str {
        match self {
            Failure::UnknownTool => "unknown_tool",
            Failure::NotExposed => "tool_not_exposed",
            Failure::NotAvailable => "tool_not_available",
            Failure::NoImplementation => "no_implementation",
            Failure::InvalidArguments => "invalid_arguments",
            Failure::HookDenied => "hook_denied",
            Failure::ToolError => "tool_error",
            Failure::ToolPanic => "tool_panic",
            Failure::InternalError => "internal_error",
        }
    }
}

/// What kind of tool a call reached, as `carnet.tool.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    Meta,
    Domain,
    Task,
}

impl ToolKind {
    fn as_str(self) -> &'static str {
        match self {
            ToolKind::Meta => "meta",
            ToolKind::Domain => "domain",
            ToolKind::Task => "task",
        }
    }
}

/// Whether content capture is on by default: the conventions' instrumentations read this
/// variable.
pub(crate) fn capture_content_from_env() -> bool {
    std::env::var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT").is_ok_and(|v| v.eq_ignore_ascii_case("true"))
}

/// The span of one turn of the chat loop.
pub(crate) fn invoke_agent(agent: &str, provider: &str, model: &str, conversation: Option<&str>) -> Span {
    tracing::info_span!(
        target: "carnet::telemetry",
        "invoke_agent",
        otel.name = format_args!("invoke_agent {agent}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.provider.name = provider,
        gen_ai.request.model = non_empty(model),
        gen_ai.conversation.id = conversation,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        error.type = Empty,
    )
}

/// The span of one model call.
pub(crate) fn chat(provider: &str, model: &str) -> Span {
    tracing::info_span!(
        target: "carnet::telemetry",
        "chat",
        otel.name = format_args!("chat {}", if model.is_empty() { provider } else { model }),
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = non_empty(model),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.system_instructions = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
        error.type = Empty,
    )
}

fn non_empty(text: &str) -> Option<&str> {
    (!text.is_empty()).then_some(text)
}

/// The most bytes of a name or id taken from a call (the tool's name as the model wrote it,
/// a call id, a skill name or file path in a load's arguments) on a span: they come from the
/// model or an MCP client, and a span name should stay a name.
pub const NAME_LIMIT: usize = 128;

/// The span of one tool call through a session. `name` is the name the call used.
pub(crate) fn execute_tool(name: &str, call_id: Option<&str>, kind: ToolKind) -> Span {
    let name = cut(name, NAME_LIMIT);
    let call_id = call_id.map(|id| cut(id, NAME_LIMIT));
    tracing::info_span!(
        target: "carnet::telemetry",
        "execute_tool",
        otel.name = format_args!("execute_tool {name}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        carnet.tool.kind = kind.as_str(),
        carnet.toolset.name = Empty,
        carnet.skill.name = Empty,
        carnet.skill.file.path = Empty,
        carnet.tools.exposed = Empty,
        carnet.via = Empty,
        carnet.mcp.server = Empty,
        carnet.a2a.agent = Empty,
        carnet.a2a.task_id = Empty,
        carnet.incident = Empty,
        error.type = Empty,
    )
}

/// Records how a tool call ended: `error.type` and an error status when it failed
/// (`failure`, else [`Failure::ToolError`] for an error output), the tools it exposed, and
/// the arguments and result when content is captured.
pub(crate) fn record_tool_outcome(
    span: &Span,
    failure: Option<Failure>,
    arguments: &Value,
    output: &ToolOutput,
    capture: bool,
) {
    if span.is_disabled() {
        return;
    }
    let failure = failure.or(output.is_error.then_some(Failure::ToolError));
    if let Some(failure) = failure {
        span.record("error.type", failure.as_str());
        span.record("otel.status_code", "error");
        // A panic's or an internal error's description is recorded by `record_incident`;
        // the model read only the incident.
        if !matches!(failure, Failure::ToolPanic | Failure::InternalError)
            && let Some(message) = output.error_message()
        {
            span.record("otel.status_description", cut(message, 512));
        }
    }
    if !output.exposes.is_empty() {
        span.record("carnet.tools.exposed", output.exposes.join(",").as_str());
    }
    if capture {
        span.record("gen_ai.tool.call.arguments", bounded(arguments).as_str());
        if !output.is_error {
            span.record("gen_ai.tool.call.result", bounded(&output.value).as_str());
        }
    }
}

/// A tool's panic or internal error, for the operator: what happened on the
/// `execute_tool` span (status description, `carnet.incident`) and an error event in the
/// log. The model reads only `incident` (a panic's message or an error's chain may hold
/// paths, SQL or secrets).
pub(crate) fn record_incident(span: &Span, tool: &str, incident: &str, failure: Failure, detail: &str) {
    span.record("carnet.incident", incident);
    if failure == Failure::ToolPanic {
        span.record(
            "otel.status_description",
            cut(&format!("tool `{tool}` panicked: {detail}"), 512),
        );
        tracing::error!(parent: span, tool, incident, panic = detail, "a tool panicked");
    } else {
        span.record(
            "otel.status_description",
            cut(&format!("tool `{tool}` failed: {detail}"), 512),
        );
        tracing::error!(parent: span, tool, incident, error = detail, "a tool failed with an internal error");
    }
}

/// A fresh id for an incident the model is told about and the operator finds in the log:
/// 16 hex digits, from the process's random hasher keys, the time and a counter.
pub(crate) fn incident_id() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:016x}", hasher.finish())
}

/// The span of a call the chat loop refused before it reached the session (arguments that
/// are not a JSON object): an `execute_tool` span ended at once, with its error.
pub(crate) fn refused_call(call: &crate::tool::ToolCall, output: &ToolOutput) {
    let span = execute_tool(&call.name, call.id.as_deref(), ToolKind::Domain);
    record_tool_outcome(&span, Some(Failure::InvalidArguments), &call.arguments, output, false);
}

/// `value` as JSON, cut at [`CONTENT_LIMIT`] bytes (on a character boundary, marked `…`).
pub(crate) fn bounded(value: &Value) -> String {
    let mut out = String::new();
    let mut writer = Bounded {
        out: &mut out,
        full: false,
    };
    // Stops as soon as the limit is reached: a huge value is never serialised whole.
    let _ = write!(writer, "{value}");
    if writer.full {
        out.push('…');
    }
    out
}

struct Bounded<'a> {
    out: &'a mut String,
    full: bool,
}

impl std::fmt::Write for Bounded<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = CONTENT_LIMIT - self.out.len();
        if s.len() <= room {
            self.out.push_str(s);
            Ok(())
        } else {
            self.out.push_str(cut(s, room));
            self.full = true;
            Err(std::fmt::Error)
        }
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub(crate) fn cut(text: &str, max: usize) -> &str {
    &text[..text.floor_char_boundary(max)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_cuts_on_a_char_boundary() {
        let big = Value::String("é".repeat(CONTENT_LIMIT));
        let text = bounded(&big);
        assert!(text.len() <= CONTENT_LIMIT + '…'.len_utf8());
        assert!(text.ends_with('…'));
        assert_eq!(bounded(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
    }
}
