//! What the agent loop records on its spans (`invoke_agent`, `chat`): the request's messages,
//! the answer, usage and the model's errors, in the `GenAI` conventions' shapes. The spans
//! themselves are [`crate::telemetry`]'s.

use serde_json::Value;
use tracing::Span;

use super::Outcome;
use super::conversation::Message;
use super::model::{ChatResponse, ModelError, Usage};
use crate::telemetry::{bounded, cut};

/// Records what a model call sends, when content is captured: the system prompt and the
/// messages, in the conventions' shapes.
pub(super) fn record_request(span: &Span, system: &str, messages: &[Message], capture: bool) {
    if !capture || span.is_disabled() {
        return;
    }
    let system = serde_json::json!([{"type": "text", "content": system}]);
    span.record("gen_ai.system_instructions", bounded(&system).as_str());
    let messages: Vec<Value> = messages
        .iter()
        .map(|m| match m {
            Message::User(text) => serde_json::json!({"role": "user", "parts": [{"type": "text", "content": text}]}),
            Message::Assistant { text, tool_calls } => {
                let mut parts: Vec<Value> = text
                    .iter()
                    .map(|t| serde_json::json!({"type": "text", "content": t}))
                    .collect();
                parts.extend(tool_calls.iter().map(
                    |c| serde_json::json!({"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}),
                ));
                serde_json::json!({"role": "assistant", "parts": parts})
            }
            Message::Tool { call, output } => serde_json::json!({"role": "tool", "parts": [
                {"type": "tool_call_response", "id": call.id, "response": output.value}
            ]}),
            // The provider's own tool calls and results (its tool search), as it wrote them.
            Message::Hosted(items) => serde_json::json!({"role": "assistant", "parts": items
                .iter()
                .map(|item| serde_json::json!({"type": "hosted", "content": item}))
                .collect::<Vec<Value>>()}),
        })
        .collect();
    span.record("gen_ai.input.messages", bounded(&Value::Array(messages)).as_str());
}

/// Records how a turn ended on its span: the usage summed over its model calls, or the
/// model's error.
pub(super) fn record_turn(span: &Span, outcome: &Result<Outcome, ModelError>) {
    match outcome {
        // Only when the model reported usage: a zero would claim it did.
        Ok(outcome) if outcome.steps.iter().any(|s| s.usage.is_some()) => record_usage(span, Some(outcome.usage)),
        Ok(_) => {}
        Err(e) => record_model_error(span, e),
    }
}

/// Records a model call's answer on its span: usage, finish reason, and the text and calls
/// when content is captured; or its error.
pub(super) fn record_chat(span: &Span, response: &Result<ChatResponse, ModelError>, capture: bool) {
    if span.is_disabled() {
        return;
    }
    let response = match response {
        Ok(response) => response,
        Err(e) => return record_model_error(span, e),
    };
    record_usage(span, response.usage);
    let finish_reason = response.finish_reason.as_deref();
    if let Some(reason) = finish_reason {
        span.record("gen_ai.response.finish_reasons", reason);
    }
    if capture {
        // The conventions' output-messages shape: one assistant message of parts.
        let mut parts: Vec<Value> = response
            .text
            .iter()
            .map(|t| serde_json::json!({"type": "text", "content": t}))
            .collect();
        parts.extend(
            response.calls.iter().map(
                |c| serde_json::json!({"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}),
            ),
        );
        let message = serde_json::json!([{"role": "assistant", "parts": parts, "finish_reason": finish_reason}]);
        span.record("gen_ai.output.messages", bounded(&message).as_str());
    }
}

fn record_usage(span: &Span, usage: Option<Usage>) {
    if let Some(usage) = usage {
        span.record("gen_ai.usage.input_tokens", usage.input);
        span.record("gen_ai.usage.output_tokens", usage.output);
        span.record("gen_ai.usage.cache_read.input_tokens", usage.cached_input);
    }
}

/// Marks a turn's or a model call's span failed.
fn record_model_error(span: &Span, error: &ModelError) {
    if span.is_disabled() {
        return;
    }
    let status;
    let kind = match error {
        ModelError::Unauthorized { status: code, .. }
        | ModelError::Rejected { status: code, .. }
        | ModelError::Unavailable { status: code, .. } => {
            status = code.to_string();
            status.as_str()
        }
        ModelError::MissingKey { .. } => "missing_key",
        ModelError::Config { .. } => "config",
        ModelError::Timeout { .. } => "timeout",
        ModelError::Connection { .. } => "connection",
        ModelError::InvalidResponse { .. } => "invalid_response",
        _ => "_OTHER",
    };
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
    span.record("otel.status_description", cut(&error.to_string(), 512));
}
