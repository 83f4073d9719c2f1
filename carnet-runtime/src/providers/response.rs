//! Whole responses read back: a provider's response body as a [`ChatResponse`] (text, tool
//! calls with canonical names, usage, stop reason).
//!
//! Arguments that are not a JSON object are kept as text (a JSON string) rather than failing
//! the response: the chat loop answers such a call with an error the model can read, and
//! the conversation goes on (see [`crate::chat::run`]).

use serde_json::Value;

use super::anthropic::tools as anthropic;
use super::common::{Aliases, BadArguments, ProviderError, array_field};
use super::gemini::tools as gemini;
use super::openai::tools as openai;
use crate::chat::{ChatResponse, Usage};

/// A count at `path` (`/usage/prompt_tokens`), 0 when absent.
fn count(body: &Value, path: &str) -> u64 {
    body.pointer(path).and_then(Value::as_u64).unwrap_or(0)
}

fn response_error(message: impl Into<String>) -> ProviderError {
    ProviderError::Response {
        message: message.into(),
    }
}

/// The text of an `{"error": {"message": ...}}` body, else the body itself, shortened.
fn error_text(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => shorten(&error.to_string(), 500),
    }
}

/// At most `max` characters of `text`, with `…` when cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// `Some(text)` unless empty.
fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// Whether an Anthropic content block is the provider's own (a `server_tool_use` block or a
/// server tool's result, `tool_search_tool_result`), kept and sent back as it is. A client
/// `tool_result` never is.
pub(super) fn anthropic_hosted(block: &Value) -> bool {
    block
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind == "server_tool_use" || (kind.ends_with("_tool_result") && kind != "tool_result"))
}

/// Whether a Responses output item is the hosted tool search's (`tool_search_call`,
/// `tool_search_output`), kept and sent back.
pub(super) fn openai_hosted(item: &Value) -> bool {
    matches!(
        item.get("type").and_then(Value::as_str),
        Some("tool_search_call" | "tool_search_output")
    )
}

/// Whether a value is a part of a Gemini content (`{"text"}`, `{"functionCall"}`, ... with
/// its `thought` and `thoughtSignature`), which the other APIs' items never are: they all
/// have a `type`.
pub(super) fn gemini_part(item: &Value) -> bool {
    const DATA: [&str; 9] = [
        "text",
        "functionCall",
        "functionResponse",
        "inlineData",
        "fileData",
        "executableCode",
        "codeExecutionResult",
        "thought",
        "thoughtSignature",
    ];
    item.as_object()
        .is_some_and(|fields| !fields.contains_key("type") && DATA.iter().any(|key| fields.contains_key(*key)))
}

/// Whether Gemini's parts must go back as they came: one carries a thought signature or
/// is a thought.
pub(super) fn gemini_signed(parts: &[Value]) -> bool {
    parts
        .iter()
        .any(|part| part.get("thoughtSignature").is_some() || part.get("thought") == Some(&Value::Bool(true)))
}

/// Gemini's `usageMetadata`: `promptTokenCount` (cached tokens included) as input,
/// `cachedContentTokenCount` as cached, `candidatesTokenCount` and `thoughtsTokenCount`
/// as output (thoughts are billed as output).
pub(super) fn gemini_usage(usage: &Value) -> Usage {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input: n("promptTokenCount"),
        cached_input: n("cachedContentTokenCount"),
        output: n("candidatesTokenCount") + n("thoughtsTokenCount"),
    }
}

/// The error of a Gemini response without candidates: its prompt blocked
/// (`promptFeedback.blockReason`), else a response without an answer.
pub(super) fn gemini_without_candidates(body: &Value) -> ProviderError {
    match body.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
        Some(reason) => ProviderError::Blocked {
            reason: reason.to_owned(),
            message: body
                .pointer("/promptFeedback/blockReasonMessage")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        None => ProviderError::MissingField {
            location: "the response".to_owned(),
            field: "candidates[0]",
        },
    }
}

/// A Gemini response (`generateContent`, or one event of `streamGenerateContent`): the text
/// of the first candidate's parts (thoughts left out), its `functionCall` parts (see
/// [`gemini::parse_tool_calls`](super::gemini::parse_tool_calls): Gemini may give no call
/// id), `finishReason` (`STOP`, `MAX_TOKENS`, `SAFETY`, `MALFORMED_FUNCTION_CALL`, ...) and
/// `usageMetadata` (see [`Usage`]: thoughts count as output). When a part carries a
/// `thoughtSignature` (or is a thought), every part of the turn is kept as Gemini wrote it in
/// [`ChatResponse::hosted`], to go back unchanged on the next request (see
/// [`gemini::request`](super::gemini::request)).
///
/// # Errors
///
/// An `{"error": ...}` body (its message); a prompt Gemini blocked
/// ([`ProviderError::Blocked`], with its `blockReason`); a response without candidates; a
/// `functionCall` without name or with `args` that are not an object.
pub fn gemini_response(body: &Value, aliases: &Aliases) -> Result<ChatResponse, ProviderError> {
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        return Err(response_error(format!(
            "the response is an error: {}",
            error_text(error)
        )));
    }
    let candidate = body
        .get("candidates")
        .and_then(|c| c.get(0))
        .ok_or_else(|| gemini_without_candidates(body))?;
    let content = candidate
        .get("content")
        .filter(|c| !c.is_null())
        .unwrap_or(&Value::Null);
    let parts = array_field(content, "parts", "parts", || "the candidate's content".to_owned())?;
    let text: String = parts
        .iter()
        .filter(|p| p.get("thought") != Some(&Value::Bool(true)))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let calls = gemini::parse_tool_calls(candidate, aliases)?;
    let mut response = ChatResponse::tool_calls(non_empty(text), calls);
    if gemini_signed(parts) {
        response.hosted = parts.to_vec();
    }
    response.finish_reason = candidate.get("finishReason").and_then(Value::as_str).map(str::to_owned);
    response.usage = body.get("usageMetadata").filter(|u| u.is_object()).map(gemini_usage);
    Ok(response)
}

/// A Chat Completions response (`POST /v1/chat/completions`, not streamed): the first
/// choice's text (or its refusal), its tool calls, `finish_reason` and `usage`
/// (`prompt_tokens`, `prompt_tokens_details.cached_tokens`, `completion_tokens`).
///
/// # Errors
///
/// When the body has no choice or a call lacks its id or name; an `error` body is an error
/// with the provider's message.
pub fn openai_chat_response(body: &Value, aliases: &Aliases) -> Result<ChatResponse, ProviderError> {
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        return Err(response_error(format!(
            "the response is an error: {}",
            error_text(error)
        )));
    }
    let choice = body
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ProviderError::MissingField {
            location: "the response".to_owned(),
            field: "choices[0]",
        })?;
    let message = choice.get("message").ok_or_else(|| ProviderError::MissingField {
        location: "choices[0]".to_owned(),
        field: "message",
    })?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .or_else(|| message.get("refusal").and_then(Value::as_str))
        .map(str::to_owned);
    let calls = openai::chat_tool_calls(message, aliases, BadArguments::Keep)?;
    let mut response = ChatResponse::tool_calls(text, calls);
    response.finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned);
    response.usage = body.get("usage").filter(|u| u.is_object()).map(|_| Usage {
        input: count(body, "/usage/prompt_tokens"),
        cached_input: count(body, "/usage/prompt_tokens_details/cached_tokens"),
        output: count(body, "/usage/completion_tokens"),
    });
    Ok(response)
}

/// A Responses API response (`POST /v1/responses`, or the `response` of a streamed
/// `response.completed` event): the text of its `message` items (refusals included), its
/// `function_call` items, `usage` (`input_tokens`, `input_tokens_details.cached_tokens`,
/// `output_tokens`), and the hosted tool search's `tool_search_call` and
/// `tool_search_output` items ([`ChatResponse::hosted`]). The stop reason is the `status` (`completed`), or for an incomplete
/// response the reason it gives (`max_output_tokens`).
///
/// # Errors
///
/// A failed response (its `error` message), or calls that lack their id or name.
pub fn openai_responses_response(body: &Value, aliases: &Aliases) -> Result<ChatResponse, ProviderError> {
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        return Err(response_error(format!("the response failed: {}", error_text(error))));
    }
    let mut text = String::new();
    for item in body.get("output").and_then(Value::as_array).into_iter().flatten() {
        if item.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
            let piece = match part.get("type").and_then(Value::as_str) {
                Some("output_text") => part.get("text"),
                Some("refusal") => part.get("refusal"),
                _ => None,
            };
            text.push_str(piece.and_then(Value::as_str).unwrap_or_default());
        }
    }
    let calls = openai::responses_tool_calls(body, aliases, BadArguments::Keep)?;
    let mut response = ChatResponse::tool_calls(non_empty(text), calls);
    response.hosted = body
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|item| openai_hosted(item))
        .cloned()
        .collect();
    let status = body.get("status").and_then(Value::as_str);
    response.finish_reason = match status {
        Some("incomplete") => body
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str)
            .or(status),
        _ => status,
    }
    .map(str::to_owned);
    response.usage = body.get("usage").filter(|u| u.is_object()).map(|_| Usage {
        input: count(body, "/usage/input_tokens"),
        cached_input: count(body, "/usage/input_tokens_details/cached_tokens"),
        output: count(body, "/usage/output_tokens"),
    });
    Ok(response)
}

/// Anthropic's usage: `input` adds the cache reads and writes to `input_tokens`, which
/// counts neither.
pub(super) fn anthropic_usage(usage: &Value) -> Usage {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input: n("input_tokens") + n("cache_read_input_tokens") + n("cache_creation_input_tokens"),
        cached_input: n("cache_read_input_tokens"),
        output: n("output_tokens"),
    }
}

/// An Anthropic Messages response (`POST /v1/messages`, not streamed): its `text` blocks,
/// its `tool_use` blocks, `stop_reason` and `usage` (see [`Usage`] for how cache reads and
/// writes count), and the blocks of the server's own tools (`server_tool_use`,
/// `tool_search_tool_result`: [`ChatResponse::hosted`]), which are not calls.
///
/// # Errors
///
/// An `{"type": "error"}` body (its message), or a `tool_use` block without id or name.
pub fn anthropic_response(body: &Value, aliases: &Aliases) -> Result<ChatResponse, ProviderError> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        let error = body.get("error").unwrap_or(body);
        return Err(response_error(format!(
            "the response is an error: {}",
            error_text(error)
        )));
    }
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::MissingField {
            location: "the response".to_owned(),
            field: "content",
        })?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let calls = anthropic::tool_calls(body, aliases, BadArguments::Keep)?;
    let mut response = ChatResponse::tool_calls(non_empty(text), calls);
    response.hosted = blocks.iter().filter(|b| anthropic_hosted(b)).cloned().collect();
    response.finish_reason = body.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
    response.usage = body.get("usage").filter(|u| u.is_object()).map(anthropic_usage);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn broken_arguments_are_kept_as_text() {
        let body = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\": "}},
            {"id": "b", "type": "function", "function": {"name": "f", "arguments": "[1]"}},
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}},
        ]}, "finish_reason": "tool_calls"}]});
        let response = openai_chat_response(&body, &Aliases::default()).unwrap();
        let args: Vec<&Value> = response.calls.iter().map(|c| &c.arguments).collect();
        assert_eq!(args, [&json!("{\"x\": "), &json!("[1]"), &json!({"x": 1})]);
        assert_eq!(response.usage, None);
        assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn a_missing_choice_is_located() {
        let err = openai_chat_response(&json!({"choices": []}), &Aliases::default()).unwrap_err();
        assert_eq!(err.to_string(), "the response has no `choices[0]`");
        let err = anthropic_response(&json!({"id": "x"}), &Aliases::default()).unwrap_err();
        assert_eq!(err.to_string(), "the response has no `content`");
    }

    #[test]
    fn gemini_responses_blocked_empty_or_signed() {
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "Unsafe."},
                             "usageMetadata": {"promptTokenCount": 4}});
        let err = gemini_response(&blocked, &Aliases::default()).unwrap_err();
        assert_eq!(err.to_string(), "the prompt was blocked (`SAFETY`): Unsafe.");
        let err = gemini_response(&json!({"candidates": []}), &Aliases::default()).unwrap_err();
        assert_eq!(err.to_string(), "the response has no `candidates[0]`");

        let cut = json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]});
        let response = gemini_response(&cut, &Aliases::default()).unwrap();
        assert_eq!((response.text, response.calls.len()), (None, 0));
        assert_eq!(response.finish_reason.as_deref(), Some("SAFETY"));

        let signed = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "plan", "thought": true},
            {"text": "5", "thoughtSignature": "c2ln"},
        ]}, "finishReason": "STOP"}], "usageMetadata": {
            "promptTokenCount": 100, "cachedContentTokenCount": 60, "candidatesTokenCount": 3, "thoughtsTokenCount": 7}});
        let response = gemini_response(&signed, &Aliases::default()).unwrap();
        assert_eq!(response.text.as_deref(), Some("5"), "thoughts are not the answer");
        assert_eq!(response.hosted.len(), 2, "the whole turn, kept");
        assert_eq!(
            response.usage,
            Some(Usage {
                input: 100,
                cached_input: 60,
                output: 10
            })
        );
    }
}
