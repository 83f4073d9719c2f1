//! Model Context Protocol: the `tools/list` result and `tools/call` requests.
//!
//! Tools are listed under their alias although MCP names may contain `.` (see the
//! [module docs](super#names)): many MCP clients hand server tool names to `OpenAI` or
//! Anthropic unchanged, which reject `.`. [`parse_call`] maps an alias back and takes a
//! canonical name as it is, so a client calling `file.read` is served too. Input schemas are
//! sent unchanged: MCP's `inputSchema` is JSON Schema 2020-12.
//!
//! This module builds and reads JSON only; the transport, pagination (`nextCursor`) and the
//! list's cache hints belong to the MCP server (rmcp, for instance).

use serde_json::{Map, Value, json};

use super::common::{Aliases, ProviderError, aliased, object_arguments, string_field};
use super::tool_bytes::{self, ToolFormat};
use crate::tool::{ToolCall, ToolSpec};

/// The result of `tools/list`: `{"tools": [{"name", "description", "inputSchema"}]}`,
/// `name` being the alias.
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
/// use carnet_runtime::providers::mcp;
/// use serde_json::json;
///
/// let schema = json!({ "type": "object", "properties": {} });
/// let spec = ToolSpec { name: "notes.list".into(), description: "List notes".into(),
///     input_schema: Arc::new(schema.clone()), kind: ToolKind::Domain, toolset: None, output_schema: None,
///     title: None, annotations: Default::default() };
/// assert_eq!(mcp::tools(&[spec])?, json!({ "tools": [
///     { "name": "notes_list", "description": "List notes", "inputSchema": schema },
/// ]}));
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn tools(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let tools: Vec<Value> = aliased(specs)?
        .map(|(spec, alias)| {
            let mut tool = json!({ "name": alias, "description": spec.description, "inputSchema": Value::clone(&spec.input_schema) });
            // MCP requires an object schema here, and then an object `structuredContent`.
            if let Some(schema) = spec.output_schema.as_deref()
                && schema.get("type").and_then(Value::as_str) == Some("object")
            {
                tool["outputSchema"] = schema.clone();
            }
            if let Some(title) = &spec.title {
                tool["title"] = json!(title);
            }
            if !spec.annotations.is_empty() || spec.title.is_some() {
                let mut annotations = spec.annotations.to_json();
                // Hosts of revisions before 2025-06-18 read the title from here.
                if let Some(title) = &spec.title {
                    annotations.insert("title".to_owned(), json!(title));
                }
                tool["annotations"] = Value::Object(annotations);
            }
            tool
        })
        .collect();
    Ok(json!({ "tools": tools }))
}

/// Writes the result of `tools/list` into `out`: the bytes of
/// [`tools`]'s `Value` serialized, each tool's kept from the first
/// list that held it.
///
/// # Errors
///
/// As [`tools`], and when `out` fails.
pub fn write_tools<W: std::io::Write + ?Sized>(specs: &[ToolSpec], out: &mut W) -> Result<(), ProviderError> {
    Aliases::new(specs)?;
    out.write_all(b"{\"tools\":")?;
    tool_bytes::write_list(out, MCP, specs)?;
    out.write_all(b"}")?;
    Ok(())
}

/// One `tools/list` item, kept as bytes by [`write_tools`].
const MCP: ToolFormat = ToolFormat {
    name: "mcp",
    render: |spec| Ok(tool_bytes::only(tools(std::slice::from_ref(spec))?["tools"].take())),
};

/// The call of a `tools/call` request: `request` may be its `params` (`{"name",
/// "arguments"}`) or the whole JSON-RPC request, whose `id` then becomes the call's id
/// (a number is written as its decimal text).
///
/// `name` is mapped back through `aliases`; missing `arguments` mean `{}` (MCP makes them
/// optional). `_meta` is ignored.
///
/// # Errors
///
/// When the request's `method` is not `tools/call`, when `params` or `name` is missing,
/// when `arguments` is not an object, or when a field has the wrong JSON type.
///
/// # Examples
///
/// ```
/// use carnet_runtime::providers::{Aliases, mcp};
/// use serde_json::json;
///
/// let request = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
///     "params": { "name": "loadSkill", "arguments": { "skillName": "notes" } } });
/// let call = mcp::parse_call(&request, &Aliases::default())?;
/// assert_eq!(call.id.as_deref(), Some("7"));
/// assert_eq!(call.name, "loadSkill");
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn parse_call(request: &Value, aliases: &Aliases) -> Result<ToolCall, ProviderError> {
    let (params, id) = if let Some(method) = request.get("method") {
        if method != "tools/call" {
            return Err(ProviderError::InvalidField {
                location: "the request".to_owned(),
                field: "method",
                expected: "`tools/call`",
            });
        }
        let id = match request.get("id") {
            Some(Value::String(id)) => Some(id.clone()),
            Some(Value::Number(id)) => Some(id.to_string()),
            _ => None,
        };
        match request.get("params") {
            Some(params @ Value::Object(_)) => (params, id),
            None | Some(Value::Null) => {
                return Err(ProviderError::MissingField {
                    location: "the request".to_owned(),
                    field: "params",
                });
            }
            Some(_) => {
                return Err(ProviderError::InvalidField {
                    location: "the request".to_owned(),
                    field: "params",
                    expected: "an object",
                });
            }
        }
    } else {
        (request, None)
    };
    let location = || match &id {
        Some(id) => format!("`tools/call` request `{id}`"),
        None => "the `params` of `tools/call`".to_owned(),
    };
    let name = aliases
        .canonical(string_field(params, "name", "name", location)?)
        .to_owned();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(arguments) => object_arguments(arguments.clone(), id.as_deref(), &name)?,
    };
    Ok(ToolCall { id, name, arguments })
}
