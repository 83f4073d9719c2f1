//! The checks a domain call passes before its hooks run: the tool is exposed, has an
//! implementation, and the arguments match its input schema.

use serde_json::{Value, json};

use super::explain::not_exposed;
use super::reach::Loaded;
use crate::dispatch::ToolOutput;
use crate::engine::Inner;
use crate::index::ToolIx;
use crate::schema;
use crate::telemetry::Failure;

/// The checks before the hooks: the tool is exposed, has an implementation, and the
/// arguments match its schema. A `null` given for an optional property whose schema does
/// not accept it is taken as absent first: optional parameters say they are optional by
/// being left out of `required`, not with `null`, and models send `null` anyway (an
/// `Option` parameter reads both as `None`).
pub(super) fn check_domain_call(
    inner: &Inner,
    loaded: &Loaded,
    name: &str,
    arguments: &mut Value,
) -> Result<ToolIx, (ToolOutput, Failure)> {
    let id = loaded
        .exposed_named(inner, name)
        .ok_or_else(|| not_exposed(inner, loaded, name))?;
    let tool = inner.tool(id);
    let name = &tool.spec.name;
    if tool.implementation.is_none() {
        return Err((
            ToolOutput::error(
                format!("tool `{name}` has no implementation in this program"),
                json!({"tool": name, "toolset": tool.spec.toolset}),
            ),
            Failure::NoImplementation,
        ));
    }
    crate::providers::openai::drop_strict_nulls(&tool.spec.input_schema, arguments);
    schema::validate(arguments, &tool.spec.input_schema).map_err(|e| {
        (
            invalid_arguments(name, &e, &tool.spec.input_schema, ""),
            Failure::InvalidArguments,
        )
    })?;
    Ok(id)
}

pub(super) fn invalid_arguments(name: &str, e: &schema::SchemaError, input_schema: &Value, after: &str) -> ToolOutput {
    ToolOutput::error(
        format!("invalid arguments for `{name}`{after}: {e}"),
        json!({"tool": name, "field": e.path, "inputSchema": input_schema}),
    )
}
