//! `OpenAI`'s function tools (Chat Completions and Responses) and the tool calls of both APIs.

use serde_json::{Map, Value, json};

use super::super::common::{
    Aliases, BadArguments, ProviderError, aliased, array_field, call_location, string_arguments, string_field,
};
use super::super::strict::strict_schema;
use crate::tool::{ToolCall, ToolSpec};

/// How tools are rendered for `OpenAI`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Send tools in strict mode (Structured Outputs for function calling): schemas
    /// rewritten by [`strict_schema`] and `strict: true`. Off by default.
    pub strict: bool,
}

/// The `parameters` of a tool and whether it goes strict.
fn parameters(spec: &ToolSpec, options: Options) -> (Value, bool) {
    if options.strict
        && let Ok(strict) = strict_schema(&spec.input_schema)
    {
        return (strict, true);
    }
    (Value::clone(&spec.input_schema), false)
}

/// The `tools` of a Chat Completions request (`POST /v1/chat/completions`):
/// `[{"type": "function", "function": {"name", "description", "parameters", "strict"}}]`.
///
/// `name` is the alias; `strict` is present only with [`Options::strict`] (`true`, or
/// `false` for a tool strict mode cannot express), as Chat Completions defaults to
/// non-strict. An empty `specs` gives an empty array: leave `tools` out of the request
/// then, as `OpenAI` rejects an empty one.
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]).
pub fn chat_tools(specs: &[ToolSpec], options: &Options) -> Result<Value, ProviderError> {
    let tools = aliased(specs)?
        .map(|(spec, alias)| {
            let (parameters, strict) = parameters(spec, *options);
            let mut function = Map::new();
            function.insert("name".to_owned(), Value::String(alias));
            function.insert("description".to_owned(), Value::String(spec.description.clone()));
            function.insert("parameters".to_owned(), parameters);
            if options.strict {
                function.insert("strict".to_owned(), Value::Bool(strict));
            }
            json!({ "type": "function", "function": function })
        })
        .collect();
    Ok(Value::Array(tools))
}

/// The `tools` of a Responses API request (`POST /v1/responses`), in its flat form:
/// `[{"type": "function", "name", "description", "parameters", "strict"}]`.
///
/// `strict` is always present: the Responses API treats a missing `strict` as `true` and
/// then tries to make the schema strict itself, so it is written out either way.
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]).
pub fn responses_tools(specs: &[ToolSpec], options: &Options) -> Result<Value, ProviderError> {
    let tools = aliased(specs)?
        .map(|(spec, alias)| {
            let (parameters, strict) = parameters(spec, *options);
            json!({
                "type": "function",
                "name": alias,
                "description": spec.description,
                "parameters": parameters,
                "strict": strict,
            })
        })
        .collect();
    Ok(Value::Array(tools))
}

/// The tool calls of a Chat Completions assistant message (`choices[0].message`, or the
/// whole completion, whose first choice is read): its `tool_calls`, in order.
///
/// Reads `id`, `function.name` (mapped back to the canonical name through `aliases`) and
/// `function.arguments`, a JSON *string* that is parsed (an empty string is `{}`, and an
/// object, which some `OpenAI`-compatible servers send, is taken as it is). Calls
/// whose `type` is not `function` (custom tools, which carnet does not render) are skipped.
/// A message without `tool_calls` has none. In strict mode, pass each call's arguments
/// through [`drop_strict_nulls`](super::drop_strict_nulls) before dispatching it.
///
/// # Errors
///
/// When a call lacks `id`, `function` or `function.name`, when its arguments are not valid
/// JSON or not an object, or when a field has the wrong JSON type. The error names the
/// call; `OpenAI` expects an answer to every call of a message before the next turn.
pub fn parse_chat_tool_calls(message: &Value, aliases: &Aliases) -> Result<Vec<ToolCall>, ProviderError> {
    chat_tool_calls(message, aliases, BadArguments::Fail)
}

pub(in crate::providers) fn chat_tool_calls(
    message: &Value,
    aliases: &Aliases,
    bad: BadArguments,
) -> Result<Vec<ToolCall>, ProviderError> {
    let message = match message.get("choices") {
        Some(choices) => choices
            .get(0)
            .and_then(|choice| choice.get("message"))
            .unwrap_or(&Value::Null),
        None => message,
    };
    let calls = array_field(message, "tool_calls", "tool_calls", || "the message".to_owned())?;
    let mut parsed = Vec::with_capacity(calls.len());
    for (index, call) in calls.iter().enumerate() {
        if call
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind != "function")
        {
            continue;
        }
        let id = string_field(call, "id", "id", || call_location("tool_calls", index, None))?;
        let at = || call_location("tool_calls", index, Some(id));
        let function = match call.get("function") {
            Some(function @ Value::Object(_)) => function,
            None | Some(Value::Null) => {
                return Err(ProviderError::MissingField {
                    location: at(),
                    field: "function",
                });
            }
            Some(_) => {
                return Err(ProviderError::InvalidField {
                    location: at(),
                    field: "function",
                    expected: "an object",
                });
            }
        };
        let name = aliases
            .canonical(string_field(function, "name", "function.name", at)?)
            .to_owned();
        let raw = function.get("arguments").unwrap_or(&Value::Null);
        let arguments = bad.apply(string_arguments(raw, "function.arguments", Some(id), &name, at), raw)?;
        parsed.push(ToolCall {
            id: Some(id.to_owned()),
            name,
            arguments,
        });
    }
    Ok(parsed)
}

/// The tool calls of a Responses API response: its `output` items of type `function_call`,
/// in order. `output` may be the whole response (`{"output": [...]}`) or the `output` array.
///
/// Reads `call_id` (the id `function_call_output` answers; the item's own `id` is not
/// kept), `name` (mapped back through `aliases`) and `arguments`, a JSON string. Other
/// items (messages, reasoning, built-in tool calls) are skipped.
///
/// # Errors
///
/// When a call lacks `call_id` or `name`, when its arguments are not valid JSON or not an
/// object, or when a field has the wrong JSON type.
pub fn parse_responses_tool_calls(output: &Value, aliases: &Aliases) -> Result<Vec<ToolCall>, ProviderError> {
    responses_tool_calls(output, aliases, BadArguments::Fail)
}

pub(in crate::providers) fn responses_tool_calls(
    output: &Value,
    aliases: &Aliases,
    bad: BadArguments,
) -> Result<Vec<ToolCall>, ProviderError> {
    let items = match output {
        Value::Array(items) => items.as_slice(),
        _ => array_field(output, "output", "output", || "the response".to_owned())?,
    };
    let mut parsed = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        let id = string_field(item, "call_id", "call_id", || call_location("output", index, None))?;
        let at = || call_location("output", index, Some(id));
        let name = aliases.canonical(string_field(item, "name", "name", at)?).to_owned();
        let raw = item.get("arguments").unwrap_or(&Value::Null);
        let arguments = bad.apply(string_arguments(raw, "arguments", Some(id), &name, at), raw)?;
        parsed.push(ToolCall {
            id: Some(id.to_owned()),
            name,
            arguments,
        });
    }
    Ok(parsed)
}
