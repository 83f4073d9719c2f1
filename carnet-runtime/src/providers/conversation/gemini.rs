//! Gemini request bodies (`POST /v1beta/models/{model}:generateContent`).

use carnet_manifest::order;
use serde_json::{Map, Value, json};

use super::super::common::{Aliases, ProviderError, wire_name};
use super::super::gemini::tools as gemini;
use super::super::history::{History, Spliced, spliced};
use super::super::response::gemini_part;
use super::super::writer::SystemAt;
use super::calls::gemini_args;
use super::options::GeminiOptions;
use crate::chat::{ChatRequest, Message};
use crate::dispatch::ToolOutput;
use crate::engine::ExposureMode;
use crate::tool::ToolCall;

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
/// cannot be converted to `parameters` (see [`gemini::parameters`](crate::providers::gemini::parameters)).
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
