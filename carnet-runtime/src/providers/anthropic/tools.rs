//! Anthropic's client tools and `tool_use` blocks.

use serde_json::{Value, json};

use super::super::common::{
    Aliases, BadArguments, ProviderError, aliased, array_field, call_location, object_arguments, string_field,
};
use crate::tool::{ToolCall, ToolSpec};

/// The `tools` of a Messages request (`POST /v1/messages`):
/// `[{"name", "description", "input_schema"}]`, `name` being the alias.
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]).
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use carnet_runtime::{ToolKind, ToolSpec};
/// use carnet_runtime::providers::anthropic;
/// use serde_json::json;
///
/// let schema = json!({ "type": "object", "properties": { "path": { "type": "string" } } });
/// let spec = ToolSpec { name: "file.read".into(), description: "Read a file".into(),
///     input_schema: Arc::new(schema.clone()), kind: ToolKind::Domain, toolset: None, output_schema: None,
///     title: None, annotations: Default::default() };
/// assert_eq!(anthropic::tools(&[spec])?, json!([
///     { "name": "file_read", "description": "Read a file", "input_schema": schema },
/// ]));
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn tools(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let tools = aliased(specs)?
        .map(|(spec, alias)| {
            json!({ "name": alias, "description": spec.description, "input_schema": Value::clone(&spec.input_schema) })
        })
        .collect();
    Ok(Value::Array(tools))
}

/// The tool calls of an assistant message (the response of `POST /v1/messages`, or its
/// `content` array): its `tool_use` blocks, in order.
///
/// Reads `id`, `name` (mapped back through `aliases`) and `input`, the arguments object.
/// Other blocks are skipped, `server_tool_use` and `mcp_tool_use` included: Anthropic runs
/// those itself. A message whose `content` is a plain string has no calls.
///
/// # Errors
///
/// When a `tool_use` block lacks `id`, `name` or `input`, when `input` is not an object, or
/// when a field has the wrong JSON type.
pub fn parse_tool_calls(message: &Value, aliases: &Aliases) -> Result<Vec<ToolCall>, ProviderError> {
    tool_calls(message, aliases, BadArguments::Fail)
}

pub(in crate::providers) fn tool_calls(
    message: &Value,
    aliases: &Aliases,
    bad: BadArguments,
) -> Result<Vec<ToolCall>, ProviderError> {
    let blocks = match message {
        Value::Array(blocks) => blocks.as_slice(),
        _ if message.get("content").is_some_and(Value::is_string) => &[],
        _ => array_field(message, "content", "content", || "the message".to_owned())?,
    };
    let mut parsed = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let id = string_field(block, "id", "id", || call_location("content", index, None))?;
        let at = || call_location("content", index, Some(id));
        let name = aliases.canonical(string_field(block, "name", "name", at)?).to_owned();
        let arguments = match block.get("input") {
            None | Some(Value::Null) => {
                return Err(ProviderError::MissingField {
                    location: at(),
                    field: "input",
                });
            }
            Some(input) => bad.apply(object_arguments(input.clone(), Some(id), &name), input)?,
        };
        parsed.push(ToolCall {
            id: Some(id.to_owned()),
            name,
            arguments,
        });
    }
    Ok(parsed)
}
