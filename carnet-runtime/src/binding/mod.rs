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
mod schema;

pub use errors::{ErrorProbe, ViaDisplay, ViaError, ViaInto};
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
    ToolImpl {
        name: name.into(),
        description: description.map(Into::into),
        input_schema: Arc::new(input_schema),
        output_schema: output_schema.map(Arc::new),
        handler: Arc::new(FnHandler { call, fields }),
        states: Vec::new(),
    }
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
    ToolImpl {
        name: name.into(),
        description: description.map(Into::into),
        input_schema: Arc::new(input_schema),
        output_schema: output_schema.map(Arc::new),
        handler: Arc::new(MethodHandler {
            this: Arc::clone(this),
            call,
            fields,
        }),
        states: Vec::new(),
    }
}

/// The toolset implementations, typed by the toolset's name and the states its tools take
/// (see [`crate::BoundToolset`]).
#[must_use]
pub fn bound<Name, Needs>(toolset: &'static str, tools: Vec<ToolImpl>) -> crate::BoundToolset<Name, Needs> {
    crate::BoundToolset::__new(ToolsetImpl::new(toolset, tools))
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

/// One character of a toolset's name, in [`crate::BoundToolset`]'s type; type errors
/// print it: `BoundToolset<(Letter<'m'>, Letter<'a'>, ...)>`.
pub struct Letter<const X: char>;

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
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize)]
    struct Filter {
        #[allow(dead_code)]
        date: String,
    }

    #[test]
    fn fields_are_named_in_errors() {
        let mut a = args(json!({"limit": "ten", "filters": [{"date": 3}]})).unwrap();
        assert_eq!(
            a.take::<u32>("limit").unwrap_err().message,
            "invalid value for `limit`: invalid type: string \"ten\", expected u32"
        );
        assert_eq!(
            a.take::<Vec<Filter>>("filters").unwrap_err().message,
            "invalid value for `filters.[0].date`: invalid type: integer `3`, expected a string"
        );
        assert_eq!(
            a.take::<String>("query").unwrap_err().message,
            "missing required field `query`"
        );
        assert_eq!(a.take::<Option<String>>("query").unwrap(), None);
        assert!(args(json!([])).is_err());
    }

    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Hit {
        #[allow(dead_code)]
        url: String,
    }

    #[derive(serde::Serialize)]
    struct Opaque;

    #[test]
    #[allow(clippy::needless_borrow)] // the borrow is the autoref the generated code relies on
    fn output_schemas_where_the_type_has_one() {
        let hit = (&OutputSchema::<Hit>::new()).output_schema().unwrap();
        assert_eq!(hit["type"], "object");
        assert_eq!(hit["properties"]["url"], json!({"type": "string"}));
        assert_eq!(hit.get("title"), None);
        let hits = (&OutputSchema::<Vec<Hit>>::new()).output_schema().unwrap();
        assert_eq!(hits["type"], "array");
        assert_eq!((&OutputSchema::<Opaque>::new()).output_schema(), None);
    }

    /// What the generated code does with a tool function's `Err`.
    macro_rules! convert {
        ($error:expr) => {{
            #[allow(unused_imports)]
            use super::{ViaDisplay as _, ViaError as _, ViaInto as _};
            let error = $error;
            (&&ErrorProbe::of(&error)).converter()(error)
        }};
    }

    #[derive(Debug)]
    struct Chained(std::io::Error);

    impl std::fmt::Display for Chained {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("reading the key failed")
        }
    }

    impl std::error::Error for Chained {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    struct Chosen;

    impl From<Chosen> for ToolError {
        fn from(_: Chosen) -> Self {
            ToolError::new("the author's words")
        }
    }

    #[test]
    fn errors_the_model_reads_and_errors_it_does_not() {
        struct OnlyDisplay;
        impl std::fmt::Display for OnlyDisplay {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if f.alternate() {
                    f.write_str("outer: token=abc")
                } else {
                    f.write_str("outer")
                }
            }
        }
        let e = convert!(ToolError::new("gone").with_code("not_found").with_data(json!(1)));
        assert_eq!(
            (e.is_internal(), e.message.as_str(), e.code.as_deref(), e.data),
            (false, "gone", Some("not_found"), Some(json!(1)))
        );
        assert_eq!(convert!(String::from("no such city")), ToolError::new("no such city"));
        assert_eq!(convert!("no such city"), ToolError::new("no such city"));
        assert_eq!(convert!(Chosen), ToolError::new("the author's words"));

        let chained = convert!(Chained(std::io::Error::other("/srv/secret.key: permission denied")));
        assert!(chained.is_internal());
        assert!(!chained.message.contains("secret"), "{}", chained.message);
        assert_eq!(chained.code.as_deref(), Some("internal_error"));
        assert_eq!(
            chained.internal_detail(),
            Some("reading the key failed: /srv/secret.key: permission denied")
        );

        let display = convert!(OnlyDisplay);
        assert!(display.is_internal() && !display.message.contains("abc"));
        assert_eq!(display.internal_detail(), Some("outer: token=abc"));
    }

    #[test]
    fn named_parameter_schema() {
        let mut params = Params::new();
        params.param::<String>("query", true, "");
        params.param::<Option<u32>>("limit", false, "At most this many");
        params.param::<Value>("extra", false, "Anything");
        params.param::<Hit>("like", false, "A hit to resemble");
        let schema = params.finish();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["query"]));
        assert_eq!(schema["properties"]["query"], json!({"type": "string"}));
        assert_eq!(
            schema["properties"]["limit"],
            json!({"description": "At most this many", "type": ["integer", "null"], "format": "uint32", "minimum": 0})
        );
        assert_eq!(schema["properties"]["extra"], json!({"description": "Anything"}));
        assert_eq!(
            schema["properties"]["like"],
            json!({"description": "A hit to resemble", "$ref": "#/$defs/Hit"})
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(
            Params::new().finish(),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Plain {
        /// The query.
        query: String,
        nested: Option<Inner>,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        a: u32,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct WithMap {
        query: String,
        #[serde(flatten)]
        rest: std::collections::BTreeMap<String, u32>,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    #[serde(tag = "kind")]
    enum Either {
        A { a: u32 },
        B { b: u32 },
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct WithEnum {
        query: String,
        #[serde(flatten)]
        either: Either,
    }

    #[test]
    fn a_whole_input_closes_its_top_level_where_it_lists_every_field() {
        let plain = struct_schema::<Plain>();
        assert_eq!(plain["additionalProperties"], false);
        assert_eq!(plain["properties"]["query"]["description"], "The query.");
        assert_eq!(plain.get("title"), None);
        assert_eq!(
            plain["$defs"]["Inner"].get("additionalProperties"),
            None,
            "nested types keep serde's rule"
        );
        // Fields outside `properties`: left open, as the type's deserialization is.
        assert_eq!(struct_schema::<WithMap>()["additionalProperties"]["type"], "integer");
        assert_eq!(struct_schema::<WithEnum>().get("additionalProperties"), None);
        assert_eq!(struct_schema::<Either>().get("additionalProperties"), None);
    }

    /// The input of `search`, for Rust readers.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Documented {
        query: String,
        /// At most this many.
        limit: Option<u32>,
        like: Option<Inner>,
        /// Present, possibly null.
        cursor: Option<String>,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Kind {
        News,
        Papers,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Newtype(String);

    #[test]
    fn a_whole_input_says_neither_its_type_doc_nor_null_for_optional_fields() {
        let schema = struct_schema::<Documented>();
        assert_eq!(schema.get("description"), None);
        assert_eq!(schema.get("title"), None);
        assert_eq!(schema["required"], json!(["query"]));
        assert_eq!(
            schema["properties"]["limit"],
            json!({"description": "At most this many.", "type": "integer", "format": "uint32", "minimum": 0})
        );
        assert_eq!(schema["properties"]["like"], json!({"$ref": "#/$defs/Inner"}));
        assert_eq!(schema["properties"]["cursor"]["type"], "string");
    }

    #[test]
    fn a_single_parameter_is_the_whole_input_when_its_schema_is_an_object_with_properties() {
        assert!(is_whole::<Plain>());
        assert!(is_whole::<WithMap>());
        assert!(!is_whole::<Kind>(), "an enum of values is a named parameter");
        assert!(
            !is_whole::<Either>(),
            "an internally tagged enum has no top-level properties"
        );
        assert!(!is_whole::<Newtype>());
        assert!(!is_whole::<String>());
        assert!(!is_whole::<Vec<Plain>>());
        assert!(!is_whole::<std::collections::HashMap<String, u32>>());
        assert!(!is_whole::<Value>());
        let named = single_schema::<Kind>("kind", "What to search");
        assert_eq!(named["required"], json!(["kind"]));
        assert_eq!(named["properties"]["kind"]["description"], "What to search");
        assert_eq!(single_schema::<Plain>("input", ""), struct_schema::<Plain>());
        // Taking the argument follows the same rule.
        let kind: Result<Kind, _> = single(json!({"kind": "Papers"}), "kind", false);
        assert!(matches!(kind, Ok(Kind::Papers)));
        let plain: Plain = single(json!({"query": "q"}), "input", true).unwrap();
        assert_eq!(plain.query, "q");
    }

    fn echo<'a>(_: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(std::future::ready(Ok(arguments)))
    }

    fn call(tool: &ToolImpl, arguments: Value) -> Result<Value, ToolError> {
        let (states, extensions) = (
            crate::state::States::default(),
            crate::extensions::Extensions::default(),
        );
        let context = Context {
            states: &states,
            extensions: &extensions,
            agent: "a",
            loaded_skills: Vec::new(),
            tool: &tool.name,
            call_id: None,
            cancellation: &crate::Cancellation::new(),
        };
        crate::block_on(tool.handler.call(&context, arguments))
    }

    #[test]
    fn both_forms_refuse_the_fields_their_schema_closes_out() {
        let mut params = Params::new();
        params.param::<String>("query", true, "");
        let named = tool("named", None, params.finish(), None, echo);
        let whole = tool("whole", None, struct_schema::<Plain>(), None, echo);
        let open = tool("open", None, struct_schema::<WithMap>(), None, echo);
        let none = tool("none", None, Params::new().finish(), None, echo);
        let this = Arc::new(());
        let method = method(&this, "method", None, struct_schema::<Plain>(), None, |(), c, a| {
            echo(c, a)
        });
        for tool in [&named, &whole, &method] {
            assert_eq!(
                call(tool, json!({"query": "q", "colour": 1})).unwrap_err().message,
                if tool.name == "named" {
                    "unknown field `colour`, expected one of `query`"
                } else {
                    "unknown field `colour`, expected one of `nested`, `query`"
                }
            );
            assert_eq!(call(tool, json!({"query": "q"})).unwrap(), json!({"query": "q"}));
        }
        assert_eq!(
            call(&open, json!({"query": "q", "n": 1})).unwrap(),
            json!({"query": "q", "n": 1})
        );
        assert_eq!(
            call(&none, json!({"x": 1})).unwrap_err().message,
            "unknown field `x`, this tool takes no arguments"
        );
        assert_eq!(call(&none, Value::Null).unwrap(), Value::Null, "no arguments at all");
    }
}
