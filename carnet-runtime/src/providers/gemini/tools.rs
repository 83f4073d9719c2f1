//! Gemini's function declarations (`tools`, `parameters`) and its `functionCall` parts:
//! what the request bodies and the responses of [`super`] are built from.

use carnet_manifest::order;
use std::io::Write;

use serde_json::{Map, Value, json};

use super::openapi::Convert;
use crate::providers::common::{
    Aliases, ProviderError, aliased, array_field, call_location, object_arguments, string_field,
};
use crate::providers::prompt_bytes::write_prompt;
use crate::providers::tool_bytes::{self, ToolFormat};
use crate::tool::{ToolCall, ToolSpec};

/// The `tools` of a `generateContent` request, with `parameters`:
/// `[{"functionDeclarations": [{"name", "description", "parameters"}]}]`, one tool object
/// holding every declaration, `name` being the alias. An empty `specs` gives an empty
/// array (leave `tools` out of the request then).
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]), or a
/// schema cannot be converted (see [`parameters`]).
pub fn tools(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let mut declarations = Vec::with_capacity(specs.len());
    for (spec, alias) in aliased(specs)? {
        let mut declaration = Map::new();
        declaration.insert("name".to_owned(), Value::String(alias));
        declaration.insert("description".to_owned(), Value::String(spec.description.clone()));
        if let Some(parameters) = parameters(spec)? {
            declaration.insert("parameters".to_owned(), parameters);
        }
        declarations.push(Value::Object(declaration));
    }
    Ok(wrap(declarations))
}

/// The `tools` of a `generateContent` request, with each input schema unchanged as
/// `parametersJsonSchema`: `[{"functionDeclarations": [{"name", "description",
/// "parametersJsonSchema"}]}]`.
///
/// # Errors
///
/// When two tools have the same alias or a name has none (see [`Aliases::new`]).
pub fn tools_json_schema(specs: &[ToolSpec]) -> Result<Value, ProviderError> {
    let declarations = aliased(specs)?
        .map(|(spec, alias)| {
            json!({
                "name": alias,
                "description": spec.description,
                "parametersJsonSchema": Value::clone(&spec.input_schema),
            })
        })
        .collect();
    Ok(wrap(declarations))
}

/// Writes [`tools`]'s `Value` serialized into `out`, each declaration's bytes kept from the
/// first list that held the tool (see the [`providers`](super#bytes) docs, *Bytes*).
///
/// # Errors
///
/// As [`tools`] (the same error for the same specs), and when `out` fails
/// ([`ProviderError::Write`]). On an error, `out` may hold the start of the list.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use carnet_runtime::{ToolKind, ToolSpec};
/// use carnet_runtime::providers::gemini;
/// use serde_json::json;
///
/// let schema = json!({ "type": "object", "properties": { "path": { "type": "string" } } });
/// let spec = ToolSpec { name: "file.read".into(), description: "Read a file".into(),
///     input_schema: Arc::new(schema), kind: ToolKind::Domain, toolset: None, output_schema: None,
///     title: None, annotations: Default::default() };
/// let mut body = Vec::new();
/// gemini::write_tools(&[spec.clone()], &mut body)?;
/// assert_eq!(body, serde_json::to_vec(&gemini::tools(&[spec])?).unwrap());
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn write_tools<W: Write + ?Sized>(specs: &[ToolSpec], out: &mut W) -> Result<(), ProviderError> {
    write_declarations(out, DECLARATION, specs)
}

/// Writes [`tools_json_schema`]'s `Value` serialized into `out`, each declaration's bytes
/// kept as [`write_tools`] keeps them.
///
/// # Errors
///
/// As [`tools_json_schema`], and when `out` fails ([`ProviderError::Write`]).
pub fn write_tools_json_schema<W: Write + ?Sized>(specs: &[ToolSpec], out: &mut W) -> Result<(), ProviderError> {
    write_declarations(out, DECLARATION_JSON_SCHEMA, specs)
}

/// Writes the `systemInstruction` of a `generateContent` request into `out`:
/// `{"parts":[{"text": system}]}`, as `serde_json` writes it. The prompt's escaped text is
/// kept, so a later prompt sharing its start (a session's stable sections) copies it and
/// escapes only the rest, as the other providers' writers do.
///
/// # Errors
///
/// When `out` fails ([`ProviderError::Write`]).
///
/// # Examples
///
/// ```
/// use carnet_runtime::providers::gemini;
/// use serde_json::json;
///
/// let mut out = Vec::new();
/// gemini::write_system_instruction("Be \"brief\".", &mut out)?;
/// assert_eq!(out, json!({"parts": [{"text": "Be \"brief\"."}]}).to_string().into_bytes());
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn write_system_instruction<W: Write + ?Sized>(system: &str, out: &mut W) -> Result<(), ProviderError> {
    out.write_all(b"{\"parts\":[{\"text\":")?;
    write_prompt(out, system)?;
    out.write_all(b"}]}")?;
    Ok(())
}

/// `[{"functionDeclarations": [...]}]`, or `[]` for no tool, as [`wrap`] builds it.
fn write_declarations<W: Write + ?Sized>(
    out: &mut W,
    format: ToolFormat,
    specs: &[ToolSpec],
) -> Result<(), ProviderError> {
    Aliases::new(specs)?;
    if specs.is_empty() {
        out.write_all(b"[]")?;
        return Ok(());
    }
    out.write_all(b"[{\"functionDeclarations\":")?;
    tool_bytes::write_list(out, format, specs)?;
    out.write_all(b"}]")?;
    Ok(())
}

/// A form of function declarations: the list's renderer, and each declaration's bytes as
/// the writer keeps them.
#[derive(Clone, Copy)]
pub(in crate::providers) struct Declarations {
    /// The whole `tools` value.
    pub(in crate::providers) list: fn(&[ToolSpec]) -> Result<Value, ProviderError>,
    /// One declaration.
    pub(in crate::providers) each: ToolFormat,
}

/// Declarations with `parameters` ([`tools`]).
pub(in crate::providers) const PARAMETERS: Declarations = Declarations {
    list: tools,
    each: DECLARATION,
};

/// Declarations with `parametersJsonSchema` ([`tools_json_schema`]).
pub(in crate::providers) const JSON_SCHEMA: Declarations = Declarations {
    list: tools_json_schema,
    each: DECLARATION_JSON_SCHEMA,
};

/// The one declaration of a list of one tool, as [`write_tools`] keeps it.
const DECLARATION: ToolFormat = ToolFormat {
    name: "gemini",
    render: |spec| Ok(declaration(tools(std::slice::from_ref(spec))?)),
};

/// The same with `parametersJsonSchema`, as [`write_tools_json_schema`] keeps it.
const DECLARATION_JSON_SCHEMA: ToolFormat = ToolFormat {
    name: "gemini-json-schema",
    render: |spec| Ok(declaration(tools_json_schema(std::slice::from_ref(spec))?)),
};

/// The declaration in `[{"functionDeclarations": [declaration]}]`.
fn declaration(mut list: Value) -> Value {
    tool_bytes::only(list[0]["functionDeclarations"].take())
}

fn wrap(declarations: Vec<Value>) -> Value {
    if declarations.is_empty() {
        return Value::Array(Vec::new());
    }
    let tool = order::object([("functionDeclarations".to_owned(), Value::Array(declarations))]);
    Value::Array(vec![Value::Object(tool)])
}

/// A tool's input schema as Gemini's `parameters` (see the [module docs](super) for the
/// conversion), or `None` for a tool without parameters.
///
/// # Errors
///
/// [`ProviderError::Schema`] when the schema holds a recursive `$ref`, a `$ref` that does
/// not resolve in the schema, an `allOf` of several schemas, `anyOf` beside `oneOf` or a
/// type list, or a `false` schema; or when its root is not an object schema.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use carnet_runtime::{ToolKind, ToolSpec};
/// use carnet_runtime::providers::gemini;
/// use serde_json::json;
///
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": { "limit": { "type": ["integer", "null"], "format": "uint32" } },
///     "additionalProperties": false,
/// });
/// let spec = ToolSpec { name: "notes.list".into(), description: String::new(),
///     input_schema: Arc::new(schema), kind: ToolKind::Domain, toolset: None, output_schema: None,
///     title: None, annotations: Default::default() };
/// assert_eq!(gemini::parameters(&spec)?, Some(json!({
///     "type": "object",
///     "properties": { "limit": { "type": "integer", "nullable": true } },
/// })));
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn parameters(spec: &ToolSpec) -> Result<Option<Value>, ProviderError> {
    let mut convert = Convert {
        tool: &spec.name,
        root: &spec.input_schema,
        inlining: Vec::new(),
    };
    let mut root = convert.node(&spec.input_schema, "#")?;
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(convert.error("#", "the root is not an object schema"));
    }
    root.remove("nullable");
    if root
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
    {
        return Ok(None);
    }
    Ok(Some(Value::Object(root)))
}

/// The function calls of a `generateContent` response: the `functionCall` parts of its
/// first candidate, in order. `response` may be the whole response, a candidate, its
/// `content` (`{"role": "model", "parts": [...]}`) or the `parts` array.
///
/// Reads `name` (mapped back through `aliases`), `args` (absent means `{}`) and `id`, which
/// only some API surfaces (the Live API) set; the call id is `None` otherwise, and a
/// `functionResponse` answers by name. A response without candidates (a blocked prompt) has
/// no calls.
///
/// # Errors
///
/// When a `functionCall` lacks `name`, when `args` is not an object, or when a field has the
/// wrong JSON type.
pub fn parse_tool_calls(response: &Value, aliases: &Aliases) -> Result<Vec<ToolCall>, ProviderError> {
    let content = if let Some(candidates) = response.get("candidates") {
        &candidates[0]["content"]
    } else if let Some(content @ Value::Object(_)) = response.get("content") {
        content
    } else {
        response
    };
    let parts = match content {
        Value::Array(parts) => parts.as_slice(),
        _ => array_field(content, "parts", "parts", || "the content".to_owned())?,
    };
    let mut parsed = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else { continue };
        let id = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty());
        let at = || call_location("parts", index, id);
        if !call.is_object() {
            return Err(ProviderError::InvalidField {
                location: at(),
                field: "functionCall",
                expected: "an object",
            });
        }
        let name = aliases
            .canonical(string_field(call, "name", "functionCall.name", at)?)
            .to_owned();
        let arguments = match call.get("args") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(args) => object_arguments(args.clone(), id, &name)?,
        };
        parsed.push(ToolCall {
            id: id.map(str::to_owned),
            name,
            arguments,
        });
    }
    Ok(parsed)
}
