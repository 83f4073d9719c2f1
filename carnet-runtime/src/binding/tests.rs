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
        session: 0,
        agent: "a",
        loaded_skills: Vec::new(),
        tool: &tool.name,
        call_id: None,
        cancellation: &crate::Cancellation::new(),
        engine: &(),
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
