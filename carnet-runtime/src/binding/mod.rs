//! Support for the code `#[carnet::toolset]` generates: handlers from function pointers,
//! argument extraction that names the offending field, and input schemas from the
//! parameters' types. Not public API: reached through `carnet::__private`, changed without
//! notice.
//!
//! One rule for unknown fields, whichever form the input takes (named parameters or one
//! struct): the input schema's top level says `additionalProperties: false` (for a struct,
//! unless its schema says otherwise: a flattened map, a flattened enum), and the handler
//! refuses what the schema closes out, with the message the session's schema check gives.
//! Nested objects follow their types' serde attributes.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::dispatch::{BoxFuture, Context, ToolError, ToolHandler, ToolImpl, ToolsetImpl};

pub use schemars;
pub use serde;
pub use serde_json;

mod errors;
mod name;
mod schema;

pub use errors::{ErrorProbe, ViaDisplay, ViaError, ViaInto};
pub use name::ToolsetNamed;
pub use schema::{HasSchema, NoSchema, OutputSchema, Params, is_whole, single_schema, struct_schema};

/// A free function tool's generated entry point.
pub type Call = for<'a> fn(&'a Context<'a>, Value) -> BoxFuture<'a, Result<Value, ToolError>>;

/// A method tool's generated entry point.
pub type MethodCall<T> = for<'a> fn(&'a T, &'a Context<'a>, Value) -> BoxFuture<'a, Result<Value, ToolError>>;

/// The top-level fields an input schema accepts, where it closes the object
/// (`additionalProperties: false`); `None` where it accepts any.
fn closed_fields(input_schema: &Value) -> Option<Box<[String]>> {
    if input_schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let properties = input_schema.get("properties").and_then(Value::as_object);
    Some(properties.map(|p| p.keys().cloned().collect()).unwrap_or_default())
}

/// Refuses the first field of `arguments` not among `fields` (when the schema closes them).
fn refuse_unknown<'a>(fields: Option<&[String]>, arguments: &Value) -> Option<BoxFuture<'a, Result<Value, ToolError>>> {
    let (fields, Value::Object(map)) = (fields?, arguments) else {
        return None;
    };
    let unknown = map.keys().find(|k| !fields.contains(k))?;
    let expected = if fields.is_empty() {
        "this tool takes no arguments".to_owned()
    } else {
        format!("expected one of `{}`", fields.join("`, `"))
    };
    let error = ToolError::new(format!("unknown field `{unknown}`, {expected}"));
    Some(Box::pin(std::future::ready(Err(error))))
}

struct FnHandler {
    call: Call,
    fields: Option<Box<[String]>>,
}

impl ToolHandler for FnHandler {
    fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        if let Some(refused) = refuse_unknown(self.fields.as_deref(), &arguments) {
            return refused;
        }
        (self.call)(context, arguments)
    }
}

struct MethodHandler<T> {
    this: Arc<T>,
    call: MethodCall<T>,
    fields: Option<Box<[String]>>,
}

impl<T: Send + Sync + 'static> ToolHandler for MethodHandler<T> {
    fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        if let Some(refused) = refuse_unknown(self.fields.as_deref(), &arguments) {
            return refused;
        }
        (self.call)(&self.this, context, arguments)
    }
}

/// A tool implemented by a free function.
#[must_use]
pub fn tool(
    name: &'static str,
    description: Option<&'static str>,
    input_schema: Value,
    output_schema: Option<Value>,
    call: Call,
) -> ToolImpl {
    let fields = closed_fields(&input_schema);
    tool_impl(
        name,
        description,
        input_schema,
        output_schema,
        Arc::new(FnHandler { call, fields }),
    )
}

/// A tool implemented by a method of `this`.
#[must_use]
pub fn method<T: Send + Sync + 'static>(
    this: &Arc<T>,
    name: &'static str,
    description: Option<&'static str>,
    input_schema: Value,
    output_schema: Option<Value>,
    call: MethodCall<T>,
) -> ToolImpl {
    let fields = closed_fields(&input_schema);
    let handler = Arc::new(MethodHandler {
        this: Arc::clone(this),
        call,
        fields,
    });
    tool_impl(name, description, input_schema, output_schema, handler)
}

/// A tool with its handler: not generic, so [`method`] compiles only the handler in the
/// author's crate.
fn tool_impl(
    name: &'static str,
    description: Option<&'static str>,
    input_schema: Value,
    output_schema: Option<Value>,
    handler: Arc<dyn ToolHandler>,
) -> ToolImpl {
    ToolImpl {
        name: name.into(),
        description: description.map(Into::into),
        input_schema: Arc::new(input_schema),
        output_schema: output_schema.map(Arc::new),
        handler,
        states: Vec::new(),
    }
}

/// The toolset implementations, typed by the toolset's name and the states its tools take
/// (see [`crate::BoundToolset`]).
#[must_use]
pub fn bound<Name, Needs>(toolset: &'static str, tools: Vec<ToolImpl>) -> crate::BoundToolset<Name, Needs> {
    crate::BoundToolset::__new(toolset_impl(toolset, tools))
}

/// [`bound`]'s toolset, built here: `ToolsetImpl::new` is generic (and collects its tools),
/// so called from `bound` it would be compiled in every author's crate.
fn toolset_impl(toolset: &'static str, tools: Vec<ToolImpl>) -> ToolsetImpl {
    ToolsetImpl {
        toolset: toolset.into(),
        tools,
    }
}

pub use crate::state::{Need, State};

/// A tool's `State<T>` argument: the engine's value of type `T`, cloned.
///
/// # Errors
///
/// An internal error when the engine has none (only a manifest read at run time with
/// `allow_unimplemented` and a hand-made `ToolImpl` can get here).
pub fn state<T: Clone + 'static>(context: &Context<'_>) -> Result<crate::state::State<T>, ToolError> {
    context
        .states
        .get::<T>()
        .cloned()
        .map(crate::state::State)
        .ok_or_else(|| {
            let missing = std::io::Error::other(format!(
                "tool `{}` takes `State<{}>`, and the engine has no such state",
                context.tool(),
                std::any::type_name::<T>()
            ));
            ToolError::internal(&missing)
        })
}

/// The arguments of a call, taken field by field.
#[derive(Debug)]
pub struct Args(Map<String, Value>);

/// Checks that `arguments` is an object (or null, for no arguments); the handler has
/// refused unknown fields already.
///
/// # Errors
///
/// A tool error saying what the arguments are instead of an object.
pub fn args(arguments: Value) -> Result<Args, ToolError> {
    let map = match arguments {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return Err(ToolError::new(format!(
                "expected an object of arguments, found {other}"
            )));
        }
    };
    Ok(Args(map))
}

fn deserialize<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(path_and_message)
}

/// The path to the culprit and the message of a deserialisation error (not generic, like
/// the errors built from it).
fn path_and_message(error: serde_path_to_error::Error<serde_json::Error>) -> (String, String) {
    (error.path().to_string(), error.into_inner().to_string())
}

impl Args {
    /// Takes field `name`. A missing field deserializes from `null` (so `Option` fields are
    /// optional); the error names the field and, inside it, the path to the culprit.
    ///
    /// # Errors
    ///
    /// `missing required field` or `invalid value for` the field.
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, ToolError> {
        // The errors are built by functions that are not generic: compiled once in carnet,
        // not once per parameter type in the author's crate.
        match self.0.remove(name) {
            None => deserialize(Value::Null).map_err(|_| missing_field(name)),
            Some(value) => deserialize(value).map_err(|(path, message)| invalid_field(name, &path, &message)),
        }
    }
}

/// `missing required field` for [`Args::take`].
fn missing_field(name: &str) -> ToolError {
    ToolError::new(format!("missing required field `{name}`"))
}

/// `invalid value for` the field `name`, at `path` inside it, for [`Args::take`].
fn invalid_field(name: &str, path: &str, message: &str) -> ToolError {
    if path == "." || path.is_empty() {
        ToolError::new(format!("invalid value for `{name}`: {message}"))
    } else {
        ToolError::new(format!("invalid value for `{name}.{path}`: {message}"))
    }
}

/// Deserializes a whole-input parameter, naming the path to the culprit.
///
/// # Errors
///
/// `invalid arguments` with the path.
pub fn from_value<T: DeserializeOwned>(arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        Value::Object(Map::new())
    } else {
        arguments
    };
    deserialize(arguments).map_err(|(path, message)| invalid_arguments(&path, &message))
}

/// `invalid arguments`, at `path`, for [`from_value`].
fn invalid_arguments(path: &str, message: &str) -> ToolError {
    if path == "." || path.is_empty() {
        ToolError::new(format!("invalid arguments: {message}"))
    } else {
        ToolError::new(format!("invalid value for `{path}`: {message}"))
    }
}

/// Takes the one parameter of a tool whose input is either that parameter's type whole or
/// an object with one field `name` (see [`is_whole`]; `whole` is its answer, cached by the
/// generated code).
///
/// # Errors
///
/// As [`from_value`] or [`Args::take`].
pub fn single<T: DeserializeOwned>(arguments: Value, name: &str, whole: bool) -> Result<T, ToolError> {
    if whole {
        from_value(arguments)
    } else {
        args(arguments)?.take(name)
    }
}

/// A tool's plain output as JSON.
///
/// # Errors
///
/// When the value cannot be represented in JSON (a map with non-string keys, say).
pub fn output<T: Serialize>(value: T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|e| ToolError::new(format!("the tool's result cannot be serialised: {e}")))
}

#[cfg(test)]
mod tests;
