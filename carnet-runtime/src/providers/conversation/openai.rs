//! `OpenAI` request bodies: Chat Completions (`POST /v1/chat/completions`) and Responses
//! (`POST /v1/responses`).

use serde_json::{Value, json};

use super::super::common::{Aliases, ProviderError, wire_name};
use super::super::history::{History, Spliced, spliced};
use super::super::openai::tools as openai;
use super::super::response::openai_hosted;
use super::super::tool_bytes::{CHAT, CHAT_STRICT, RESPONSES, RESPONSES_STRICT};
use super::super::writer::SystemAt;
use super::calls::{arguments_text, call_id, tool_use_index};
use super::hosted::responses_input_item;
use super::namespaces::{call_namespace, loaded_namespaces, namespaces, openai_tools_options, responses_function};
use super::options::OpenAiOptions;
use crate::chat::{ChatRequest, Message};
use crate::engine::ExposureMode;
use crate::tool::{ToolKind, ToolSpec};

/// `tool_choice` restricting the model to the callable tools, Chat Completions' form.
fn chat_allowed_tools(request: &ChatRequest<'_>, aliases: &Aliases) -> Value {
    let tools: Vec<Value> = request
        .callable
        .iter()
        .map(|name| json!({"type": "function", "function": {"name": wire_name(aliases, name)}}))
        .collect();
    json!({"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": tools}})
}

/// The body of `POST /v1/chat/completions`. Chat Completions has no deferral: in
/// [`ExposureMode::Deferred`] every tool is sent as it is.
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]).
pub fn openai_chat_request(request: &ChatRequest<'_>, options: &OpenAiOptions) -> Result<Value, ProviderError> {
    Ok(openai_chat_body(request, options, false)?.body)
}

/// [`openai_chat_request`]'s body; with `splice`, the prompt and the tools left for the
/// writer.
pub(crate) fn openai_chat_body<'a>(
    request: &ChatRequest<'a>,
    options: &OpenAiOptions,
    splice: bool,
) -> Result<Spliced<'a>, ProviderError> {
    let aliases = Aliases::new(request.tools)?;
    let messages = if splice {
        Value::Null
    } else {
        Value::Array(chat_messages(request, &aliases))
    };
    let mut body = json!({"model": options.model, "messages": messages});
    if !request.tools.is_empty() {
        body["tools"] = if splice {
            Value::Null
        } else {
            openai::chat_tools(request.tools, &openai_tools_options(options))?
        };
        if request.mode == ExposureMode::AllowedTools {
            body["tool_choice"] = chat_allowed_tools(request, &aliases);
        }
    }
    let format = if options.strict { CHAT_STRICT } else { CHAT };
    let history = splice.then(|| History::chat(request, aliases));
    Ok(spliced(
        body,
        history,
        SystemAt::FirstMessage("messages"),
        request,
        Some(format),
    ))
}

/// Chat Completions' `messages`, the system message first.
fn chat_messages(request: &ChatRequest<'_>, aliases: &Aliases) -> Vec<Value> {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    for (index, message) in request.messages.iter().enumerate() {
        match message {
            Message::User(text) => messages.push(json!({"role": "user", "content": text})),
            Message::Assistant { text, tool_calls } => {
                // `""` rather than `null` when the model only called tools: `OpenAI` takes
                // either, compatible servers (llama.cpp's) refuse `null` and a missing key.
                let m_text = text.as_deref().unwrap_or_default();
                let mut m = json!({"role": "assistant", "content": m_text});
                if !tool_calls.is_empty() {
                    let calls: Vec<Value> = tool_calls
                        .iter()
                        .enumerate()
                        .map(|(n, call)| {
                            json!({
                                "id": call_id(call.id.as_ref(), (index, n), "call_"),
                                "type": "function",
                                "function": {"name": wire_name(aliases, &call.name), "arguments": arguments_text(&call.arguments)},
                            })
                        })
                        .collect();
                    m["tool_calls"] = Value::Array(calls);
                }
                messages.push(m);
            }
            // Chat Completions has no hosted tool search: nothing of it to send back.
            Message::Hosted(_) => {}
            Message::Tool { call, output } => messages.push(json!({
                "role": "tool",
                "tool_call_id": call_id(call.id.as_ref(), tool_use_index(request.messages, index), "call_"),
                "content": output.to_text(),
            })),
        }
    }
    messages
}

/// The body of `POST /v1/responses` (stateless: the whole conversation in `input`).
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]).
pub fn openai_responses_request(request: &ChatRequest<'_>, options: &OpenAiOptions) -> Result<Value, ProviderError> {
    Ok(openai_responses_body(request, options, false)?.body)
}

/// [`openai_responses_request`]'s body; with `splice`, the prompt and (but in
/// [`ExposureMode::Deferred`]) the tools left for the writer.
pub(crate) fn openai_responses_body<'a>(
    request: &ChatRequest<'a>,
    options: &OpenAiOptions,
    splice: bool,
) -> Result<Spliced<'a>, ProviderError> {
    let aliases = Aliases::new(request.tools)?;
    let tool_options = openai_tools_options(options);
    let deferred = request.mode == ExposureMode::Deferred;
    let splice_tools = splice && !deferred;
    let tools: Vec<Value> = if splice_tools {
        Vec::new()
    } else if deferred {
        let (meta, domain): (Vec<&ToolSpec>, Vec<&ToolSpec>) =
            request.tools.iter().partition(|t| t.kind == ToolKind::Meta);
        meta.iter()
            .map(|spec| responses_function(spec, &wire_name(&aliases, &spec.name), tool_options, false))
            .chain(namespaces(&domain, &aliases, options, true))
            .collect()
    } else {
        openai::responses_tools(request.tools, &tool_options)?
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let input = if splice {
        Value::Null
    } else {
        Value::Array(responses_input(request, &aliases, options))
    };
    let system = if splice { "" } else { request.system };
    let mut body = json!({"model": options.model, "instructions": system, "input": input});
    if !tools.is_empty() || (splice_tools && !request.tools.is_empty()) {
        body["tools"] = if splice_tools { Value::Null } else { Value::Array(tools) };
        if request.mode == ExposureMode::AllowedTools {
            let allowed: Vec<Value> = request
                .callable
                .iter()
                .map(|name| json!({"type": "function", "name": wire_name(&aliases, name)}))
                .collect();
            body["tool_choice"] = json!({"type": "allowed_tools", "mode": "auto", "tools": allowed});
        }
    }
    let format = splice_tools.then_some(if options.strict { RESPONSES_STRICT } else { RESPONSES });
    let history = splice.then(|| History::responses(request, aliases, options));
    Ok(spliced(body, history, SystemAt::Field("instructions"), request, format))
}

/// Responses' `input` items.
fn responses_input(request: &ChatRequest<'_>, aliases: &Aliases, options: &OpenAiOptions) -> Vec<Value> {
    let deferred = request.mode == ExposureMode::Deferred;
    let mut input: Vec<Value> = Vec::new();
    for (index, message) in request.messages.iter().enumerate() {
        match message {
            Message::User(text) => input.push(json!({"role": "user", "content": text})),
            Message::Hosted(items) => {
                input.extend(items.iter().filter(|i| openai_hosted(i)).map(responses_input_item));
            }
            Message::Assistant { text, tool_calls } => {
                if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for (n, call) in tool_calls.iter().enumerate() {
                    let mut item = json!({
                        "type": "function_call",
                        "call_id": call_id(call.id.as_ref(), (index, n), "call_"),
                        "name": wire_name(aliases, &call.name),
                        "arguments": arguments_text(&call.arguments),
                    });
                    // A deferred domain tool is a function of its toolset's namespace: the call
                    // goes back with it, as the model made it.
                    if deferred && let Some(namespace) = call_namespace(request.tools, call) {
                        item["namespace"] = Value::String(namespace);
                    }
                    input.push(item);
                }
            }
            Message::Tool { call, output } => {
                input.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id(call.id.as_ref(), tool_use_index(request.messages, index), "call_"),
                    "output": output.to_text(),
                }));
                if deferred && !output.exposes.is_empty() {
                    input.push(json!({
                        "type": "additional_tools",
                        "role": "developer",
                        "tools": loaded_namespaces(request.tools, &output.exposes, aliases, options),
                    }));
                }
            }
        }
    }
    input
}
