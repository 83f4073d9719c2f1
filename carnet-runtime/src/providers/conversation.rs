//! Whole request bodies: a [`ChatRequest`] (system prompt, conversation, tools, exposure
//! mode) in each provider's wire format, for clients to send as they are.
//!
//! See the module docs of [`super`] for how each exposure mode is sent to each API.

use carnet_manifest::order;
use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::common::{Aliases, ProviderError, wire_name};
use super::gemini::tools as gemini;
use super::history::{History, Spliced};
use super::openai::tools as openai;
use super::response::{anthropic_hosted, gemini_part, openai_hosted};
use super::tool_bytes::{ANTHROPIC, CHAT, CHAT_STRICT, RESPONSES, RESPONSES_STRICT, ToolFormat};
use super::writer::SystemAt;
use crate::chat::{ChatRequest, Message};
use crate::dispatch::ToolOutput;
use crate::engine::ExposureMode;
use crate::tool::{ToolCall, ToolKind, ToolSpec};

/// What an Anthropic Messages request needs beside the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnthropicOptions {
    /// The model (`claude-…`).
    pub model: String,
    /// `max_tokens` (required by the API).
    pub max_tokens: u32,
}

/// What an `OpenAI` request needs beside the conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenAiOptions {
    /// The model.
    pub model: String,
    /// Strict function schemas (see [`openai::Options::strict`]).
    pub strict: bool,
    /// Descriptions of the Responses namespaces in [`ExposureMode::Deferred`], by toolset
    /// name (a toolset missing here is described by its name).
    pub namespaces: BTreeMap<String, String>,
}

/// What a Gemini `generateContent` request needs beside the conversation. The model is not
/// part of the body but of the URL (`models/{model}:generateContent`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeminiOptions {
    /// Send each tool's input schema unchanged as `parametersJsonSchema` (see
    /// [`gemini::tools_json_schema`](super::gemini::tools_json_schema)) rather than converted
    /// to `parameters` ([`gemini::tools`](super::gemini::tools), the default, which every
    /// model accepts).
    pub json_schema: bool,
}

/// A call's id as sent: the model's, else one made from its place in the conversation
/// (`place` = the assistant message's index and the call's position in it).
pub(super) fn call_id<'c>(id: Option<&'c String>, place: (usize, usize), prefix: &str) -> Cow<'c, str> {
    id.map_or_else(
        || Cow::Owned(format!("{prefix}{}_{}", place.0, place.1)),
        |id| Cow::Borrowed(id.as_str()),
    )
}

/// A call's arguments as `OpenAI` sends them: JSON text. Arguments the model sent as text
/// that is not JSON (kept as a JSON string, see [`crate::chat::run`]) go back as they came.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

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
        super::anthropic::tools::tools(request.tools)?
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

/// `body` as it is (no `history`), or with the prompt, the history and the tools in
/// `tools`' format to splice in.
fn spliced<'a>(
    body: Value,
    history: Option<History<'a>>,
    at: SystemAt,
    request: &ChatRequest<'a>,
    tools: Option<ToolFormat>,
) -> Spliced<'a> {
    let Some(history) = history else {
        return Spliced::whole(body);
    };
    let tools = tools
        .filter(|_| !request.tools.is_empty())
        .map(|format| (format, request.tools));
    Spliced::new(body, at, request.system, history, tools)
}

/// A server block as sent back: its `null` fields left out, as the response models write
/// absent optional fields as `null` and the request types take them absent.
pub(super) fn without_nulls(block: &Value) -> Value {
    match block {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        other => other.clone(),
    }
}

/// A hosted tool search item of a response as an input item: the fields the input item
/// has (an output item also says who created it, which an input item may not), and in the
/// tool definitions it loaded no `null` (the output's way to say absent, which the input's
/// tool types refuse). The search's `arguments` stay as they are.
pub(super) fn responses_input_item(item: &Value) -> Value {
    const FIELDS: [&str; 7] = ["type", "id", "call_id", "execution", "status", "arguments", "tools"];
    match item {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(k, v)| FIELDS.contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if k == "tools" {
                            deep_without_nulls(v, 0)
                        } else {
                            v.clone()
                        },
                    )
                }),
        )),
        other => other.clone(),
    }
}

/// `value` without `null` object fields at any depth, down to a bound (a hostile response
/// may nest deeply; below it the value is kept as it is).
fn deep_without_nulls(value: &Value, depth: usize) -> Value {
    if depth > 64 {
        return value.clone();
    }
    match value {
        Value::Object(fields) => Value::Object(order::object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), deep_without_nulls(v, depth + 1))),
        )),
        Value::Array(items) => Value::Array(items.iter().map(|v| deep_without_nulls(v, depth + 1)).collect()),
        other => other.clone(),
    }
}

/// For a tool result without a call id: the place of its call, to make the same id as the
/// assistant message's call got.
pub(super) fn tool_use_index(messages: &[Message], result: usize) -> (usize, usize) {
    if let Message::Tool { call, .. } = &messages[result] {
        for (index, message) in messages[..result].iter().enumerate().rev() {
            if let Message::Assistant { tool_calls, .. } = message
                && let Some(n) = tool_calls.iter().position(|c| c == call)
            {
                return (index, n);
            }
        }
    }
    (result, 0)
}

fn openai_tools_options(options: &OpenAiOptions) -> openai::Options {
    openai::Options { strict: options.strict }
}

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

/// A Responses function tool; `defer_loading` for the deferred ones.
fn responses_function(spec: &ToolSpec, alias: &str, options: openai::Options, deferred: bool) -> Value {
    let mut tool = openai::responses_tools(std::slice::from_ref(spec), &options)
        .ok()
        .and_then(|tools| tools.as_array().and_then(|t| t.first().cloned()))
        .unwrap_or_else(|| json!({"type": "function"}));
    tool["name"] = Value::String(alias.to_owned());
    if deferred {
        tool["defer_loading"] = Value::Bool(true);
    }
    tool
}

/// The Responses namespace a deferred domain tool is declared in: its toolset's alias.
fn namespace_name(spec: &ToolSpec) -> String {
    namespace_alias(spec.toolset.as_deref().unwrap_or_default())
}

fn namespace_alias(toolset: &str) -> String {
    crate::names::alias(toolset).map_or_else(|_| toolset.to_owned(), std::borrow::Cow::into_owned)
}

/// Domain tools grouped in one namespace per toolset, in the order of `specs`.
fn namespaces(specs: &[&ToolSpec], aliases: &Aliases, options: &OpenAiOptions, deferred: bool) -> Vec<Value> {
    let tool_options = openai_tools_options(options);
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for spec in specs {
        let toolset = spec.toolset.clone().unwrap_or_default();
        let function = responses_function(spec, &wire_name(aliases, &spec.name), tool_options, deferred);
        match groups.iter_mut().find(|(name, _)| *name == toolset) {
            Some((_, tools)) => tools.push(function),
            None => groups.push((toolset, vec![function])),
        }
    }
    groups
        .into_iter()
        .map(|(toolset, tools)| {
            let description = options
                .namespaces
                .get(&toolset)
                .cloned()
                .unwrap_or_else(|| format!("Tools of toolset {toolset}"));
            let name = namespace_alias(&toolset);
            json!({"type": "namespace", "name": name, "description": description, "tools": tools})
        })
        .collect()
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

/// The namespace a call of a deferred domain tool goes back with, as the model made it:
/// its toolset's alias (`None` for a meta-tool or a tool not listed).
pub(super) fn call_namespace(tools: &[ToolSpec], call: &ToolCall) -> Option<String> {
    tools
        .iter()
        .find(|t| t.name == call.name && t.kind != ToolKind::Meta)
        .map(namespace_name)
}

/// The namespaces of a Responses `additional_tools` item: the tools a load exposed.
pub(super) fn loaded_namespaces(
    tools: &[ToolSpec],
    exposes: &[String],
    aliases: &Aliases,
    options: &OpenAiOptions,
) -> Vec<Value> {
    let loaded: Vec<&ToolSpec> = exposes
        .iter()
        .filter_map(|name| tools.iter().find(|t| t.name == *name))
        .collect();
    namespaces(&loaded, aliases, options, false)
}

/// The body of `POST /v1beta/models/{model}:generateContent` (and of
/// `:streamGenerateContent`, the same body): `contents`, `systemInstruction` (left out when
/// the prompt is empty), `tools` and, in [`ExposureMode::AllowedTools`], `toolConfig` (see
/// [`gemini_tool_config`]).
///
/// The conversation becomes `contents`: a user message a `user` content of one `text`
/// part; the model's turn a `model` content of its text and its `functionCall` parts (args,
/// name under its alias, and `id` only when the call has one: Gemini names no call unless
/// asked); the results of one step one `user` content of `functionResponse` parts, in the
/// calls' order, each `response` being `{"output": value}` (or `{"error": value}` for an
/// error result), as the API documents. A model's turn with neither text nor call is left
/// out (Gemini refuses a content without parts).
///
/// Gemini's own parts of the model's turn, kept by the parsers when they carry a thought
/// signature ([`ChatResponse::hosted`](crate::chat::ChatResponse::hosted)), go back in place
/// of that turn exactly as Gemini wrote them: Gemini 3 refuses a history of calls whose
/// signatures are missing, and Google asks for the whole turn, every part, unchanged.
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]), or a schema
/// cannot be converted to `parameters` (see [`gemini::parameters`](super::gemini::parameters)).
pub fn gemini_request(request: &ChatRequest<'_>, options: &GeminiOptions) -> Result<Value, ProviderError> {
    Ok(gemini_body(request, options, false)?.body)
}

/// [`gemini_request`]'s body; with `splice`, the prompt, the contents and the tools left for
/// the writer.
pub(crate) fn gemini_body<'a>(
    request: &ChatRequest<'a>,
    options: &GeminiOptions,
    splice: bool,
) -> Result<Spliced<'a>, ProviderError> {
    let aliases = Aliases::new(request.tools)?;
    let declarations = if options.json_schema {
        gemini::JSON_SCHEMA
    } else {
        gemini::PARAMETERS
    };
    // Keys inserted in sorted order, the order `serde_json` keeps them in either way.
    let mut body = Map::new();
    let contents = if splice {
        Value::Null
    } else {
        Value::Array(gemini_contents(request, &aliases))
    };
    body.insert("contents".to_owned(), contents);
    if !request.system.is_empty() {
        let instruction = if splice {
            Value::Null
        } else {
            json!({"parts": [{"text": request.system}]})
        };
        body.insert("systemInstruction".to_owned(), instruction);
    }
    if !request.tools.is_empty() {
        if let Some(config) = gemini_tool_config(request)? {
            body.insert("toolConfig".to_owned(), config);
        }
        let tools = if splice {
            Value::Null
        } else {
            (declarations.list)(request.tools)?
        };
        body.insert("tools".to_owned(), tools);
    }
    let history = splice.then(|| History::gemini(request, aliases));
    let spliced = spliced(
        Value::Object(body),
        history,
        SystemAt::Instruction("systemInstruction"),
        request,
        Some(declarations.each),
    );
    Ok(spliced.tools_under("functionDeclarations"))
}

/// Gemini's `contents`.
fn gemini_contents(request: &ChatRequest<'_>, aliases: &Aliases) -> Vec<Value> {
    let mut contents: Vec<Value> = Vec::new();
    // Gemini's own parts of the model's turn (signed), which go back in its place.
    let mut signed: Vec<Value> = Vec::new();
    // Whether the last content holds the results of the step not closed yet.
    let mut results = false;
    for message in request.messages {
        let was_results = std::mem::take(&mut results);
        match message {
            Message::User(text) => contents.push(json!({"parts": [{"text": text}], "role": "user"})),
            Message::Hosted(items) => {
                signed.extend(items.iter().filter(|p| gemini_part(p)).cloned());
                results = was_results;
            }
            Message::Assistant { text, tool_calls } => {
                let parts = if signed.is_empty() {
                    gemini_turn(text.as_deref(), tool_calls, aliases)
                } else {
                    std::mem::take(&mut signed)
                };
                if !parts.is_empty() {
                    contents.push(json!({"parts": parts, "role": "model"}));
                }
            }
            Message::Tool { call, output } => {
                let part = json!({"functionResponse": gemini_function_response(call, output, aliases)});
                match contents.last_mut().and_then(|c| c["parts"].as_array_mut()) {
                    Some(parts) if was_results => parts.push(part),
                    _ => contents.push(json!({"parts": [part], "role": "user"})),
                }
                results = true;
            }
        }
    }
    if !signed.is_empty() {
        contents.push(json!({"parts": signed, "role": "model"}));
    }
    contents
}

/// The parts of a model's turn carnet writes itself: its text, then its calls.
fn gemini_turn(text: Option<&str>, tool_calls: &[ToolCall], aliases: &Aliases) -> Vec<Value> {
    let mut parts = Vec::with_capacity(tool_calls.len() + 1);
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        parts.push(json!({"text": text}));
    }
    for call in tool_calls {
        let mut function = Map::new();
        function.insert("args".to_owned(), gemini_args(call));
        if let Some(id) = &call.id {
            function.insert("id".to_owned(), Value::String(id.clone()));
        }
        function.insert("name".to_owned(), Value::String(wire_name(aliases, &call.name)));
        parts.push(json!({"functionCall": Value::Object(order::object(function))}));
    }
    parts
}

/// A call's `args`: its arguments when they are an object, else `{}` (arguments that
/// were not JSON go back as no arguments, as Anthropic's `input`; the result says why).
pub(super) fn gemini_args(call: &ToolCall) -> Value {
    if call.arguments.is_object() {
        call.arguments.clone()
    } else {
        Value::Object(Map::new())
    }
}

/// A `functionResponse`: `{"id"?, "name", "response": {"output" | "error": value}}`.
fn gemini_function_response(call: &ToolCall, output: &ToolOutput, aliases: &Aliases) -> Value {
    let mut response = Map::new();
    if let Some(id) = &call.id {
        response.insert("id".to_owned(), Value::String(id.clone()));
    }
    response.insert("name".to_owned(), Value::String(wire_name(aliases, &call.name)));
    let key = if output.is_error { "error" } else { "output" };
    let value = order::object([(key.to_owned(), output.value.clone())]);
    response.insert("response".to_owned(), Value::Object(value));
    Value::Object(order::object(response))
}

/// The namespaces of a client-executed search's `tool_search_output`: the tools found, in
/// the order found, deferred as the hosted search's output holds them.
pub(super) fn searched_namespaces(
    tools: &[ToolSpec],
    found: &[String],
    aliases: &Aliases,
    options: &OpenAiOptions,
) -> Vec<Value> {
    let found: Vec<&ToolSpec> = found
        .iter()
        .filter_map(|name| tools.iter().find(|t| t.name == *name))
        .collect();
    namespaces(&found, aliases, options, true)
}

/// Gemini's `toolConfig` restricting the model to the callable tools
/// (`allowedFunctionNames`, with mode `VALIDATED`, which still lets the model answer in
/// text), for [`ExposureMode::AllowedTools`]; `None` in the other modes. Gemini has no
/// deferral: in [`ExposureMode::Deferred`] it gets every tool as it is.
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]).
pub fn gemini_tool_config(request: &ChatRequest<'_>) -> Result<Option<Value>, ProviderError> {
    if request.mode != ExposureMode::AllowedTools {
        return Ok(None);
    }
    let aliases = Aliases::new(request.tools)?;
    let names: Vec<String> = request.callable.iter().map(|n| wire_name(&aliases, n)).collect();
    let mut config = Map::new();
    config.insert("mode".to_owned(), json!("VALIDATED"));
    config.insert("allowedFunctionNames".to_owned(), json!(names));
    Ok(Some(json!({"functionCallingConfig": config})))
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
