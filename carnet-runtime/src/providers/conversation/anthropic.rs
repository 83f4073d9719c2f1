//! Anthropic Messages request bodies (`POST /v1/messages`).

use serde_json::{Value, json};

use super::super::common::{Aliases, ProviderError, wire_name};
use super::super::history::{History, Spliced, spliced};
use super::super::response::anthropic_hosted;
use super::super::tool_bytes::ANTHROPIC;
use super::super::writer::SystemAt;
use super::calls::{call_id, tool_use_index};
use super::hosted::without_nulls;
use super::options::AnthropicOptions;
use crate::chat::{ChatRequest, Message};
use crate::engine::ExposureMode;
use crate::tool::ToolKind;

/// The body of `POST /v1/messages`.
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]).
pub fn anthropic_request(request: &ChatRequest<'_>, options: &AnthropicOptions) -> Result<Value, ProviderError> {
    Ok(anthropic_body(request, options, false)?.body)
}

/// [`anthropic_request`]'s body; with `splice`, the prompt and (but in
/// [`ExposureMode::Deferred`]) the tools left for the writer.
pub(crate) fn anthropic_body<'a>(
    request: &ChatRequest<'a>,
    options: &AnthropicOptions,
    splice: bool,
) -> Result<Spliced<'a>, ProviderError> {
    let aliases = Aliases::new(request.tools)?;
    let splice_tools = splice && request.mode != ExposureMode::Deferred;
    let mut tools = if splice_tools {
        Value::Null
    } else {
        super::super::anthropic::tools::tools(request.tools)?
    };
    if request.mode == ExposureMode::Deferred {
        for (tool, spec) in tools.as_array_mut().into_iter().flatten().zip(request.tools) {
            if spec.kind == ToolKind::Domain {
                tool["defer_loading"] = Value::Bool(true);
            }
        }
    }
    let messages = if splice {
        Value::Null
    } else {
        Value::Array(anthropic_messages(request, &aliases))
    };
    let mut body = json!({
        "model": options.model,
        "max_tokens": options.max_tokens,
        "system": if splice { "" } else { request.system },
        "messages": messages,
    });
    if !request.tools.is_empty() {
        body["tools"] = tools;
    }
    let history = splice.then(|| History::anthropic(request, aliases));
    Ok(spliced(
        body,
        history,
        SystemAt::Field("system"),
        request,
        splice_tools.then_some(ANTHROPIC),
    ))
}

/// Anthropic's `messages`.
fn anthropic_messages(request: &ChatRequest<'_>, aliases: &Aliases) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    // The server's blocks of the model's turn, which its text and calls then join.
    let mut hosted: Vec<Value> = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        match message {
            Message::User(text) => messages.push(json!({"role": "user", "content": text})),
            Message::Hosted(items) => {
                hosted.extend(items.iter().filter(|b| anthropic_hosted(b)).map(without_nulls));
            }
            Message::Assistant { text, tool_calls } => {
                let mut content: Vec<Value> = std::mem::take(&mut hosted);
                if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                    content.push(json!({"type": "text", "text": text}));
                }
                for (n, call) in tool_calls.iter().enumerate() {
                    let input = if call.arguments.is_object() {
                        call.arguments.clone()
                    } else {
                        json!({})
                    };
                    content.push(json!({
                        "type": "tool_use",
                        "id": call_id(call.id.as_ref(), (index, n), "toolu_"),
                        "name": wire_name(aliases, &call.name),
                        "input": input,
                    }));
                }
                messages.push(json!({"role": "assistant", "content": content}));
            }
            Message::Tool { call, output } => {
                let content = if request.mode == ExposureMode::Deferred && !output.exposes.is_empty() {
                    let mut blocks = vec![json!({"type": "text", "text": output.to_text()})];
                    blocks.extend(
                        output
                            .exposes
                            .iter()
                            .map(|t| json!({"type": "tool_reference", "tool_name": wire_name(aliases, t)})),
                    );
                    Value::Array(blocks)
                } else {
                    Value::String(output.to_text())
                };
                let id = call_id(call.id.as_ref(), tool_use_index(request.messages, index), "toolu_");
                let block =
                    json!({"type": "tool_result", "tool_use_id": id, "content": content, "is_error": output.is_error});
                // The results of one step go back together, in one user message.
                let previous = messages
                    .last_mut()
                    .filter(|last| last["role"] == "user")
                    .and_then(|last| last["content"].as_array_mut());
                match previous {
                    Some(blocks) => blocks.push(block),
                    None => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    if !hosted.is_empty() {
        messages.push(json!({"role": "assistant", "content": hosted}));
    }
    messages
}
