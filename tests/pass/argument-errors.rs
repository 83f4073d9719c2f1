//! Bad arguments, a tool's `Err` and a panic are error results the model can read, naming
//! the field at fault; the session keeps working afterwards.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("math")]
pub mod math {
    use std::fmt;

    /// A tool's error type whose author chose what the model reads: a `From` impl into
    /// `ToolError`, here its `Display`.
    #[derive(Debug)]
    pub struct Overflow(pub i64);

    impl fmt::Display for Overflow {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "cannot negate {}", self.0)
        }
    }

    impl From<Overflow> for carnet::ToolError {
        fn from(overflow: Overflow) -> Self {
            carnet::ToolError::new(overflow.to_string()).with_code("overflow")
        }
    }

    #[carnet::tool]
    pub fn add(a: i64, b: i64, note: Option<String>) -> String {
        format!("{}{}", a + b, note.unwrap_or_default())
    }

    #[carnet::tool]
    pub fn negate(x: i64) -> Result<i64, Overflow> {
        x.checked_neg().ok_or(Overflow(x))
    }

    #[carnet::tool]
    pub async fn ping() -> String {
        panic!("the network is down")
    }
}

#[carnet::toolset("search-tools")]
pub mod search {
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// A filter.
    #[derive(Deserialize, JsonSchema)]
    pub struct Filter {
        /// The date.
        pub date: String,
    }

    /// The whole input.
    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Advanced {
        /// The words.
        pub query: String,
        /// The filters.
        #[serde(default)]
        pub filters: Vec<Filter>,
    }

    #[carnet::tool]
    pub fn basic_search(query: String) -> String {
        query
    }

    #[carnet::tool]
    pub fn advanced_search(input: Advanced) -> usize {
        input.query.len() + input.filters.len()
    }

    #[carnet::tool]
    pub fn filter_results(term: String) -> String {
        term
    }
}

fn error(out: &carnet::ToolOutput) -> &str {
    assert!(out.is_error, "expected an error result, got {out:?}");
    out.error_message().unwrap()
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest)
        .toolset(math::toolset().into_impl())
        .toolset(search::toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    let add = session.tools().iter().find(|t| t.name == "add").unwrap();
    assert_eq!(
        add.input_schema["required"],
        json!(["a", "b"]),
        "`note: Option<String>` is optional"
    );
    assert_eq!(
        add.input_schema["properties"]["note"],
        json!({"type": "string"}),
        "no `null` in the schema"
    );
    let mut call = |name: &str, args| block_on(session.call(name, args));

    // Named parameters: wrong type, missing, unknown, wrong type of an optional one.
    let out = call("add", json!({"a": "one", "b": 2}));
    assert_eq!(
        error(&out),
        "invalid arguments for `add`: `/a`: expected an integer, found a string"
    );
    assert_eq!(out.value["field"], "/a");
    let out = call("add", json!({"a": 1.5, "b": 2}));
    assert_eq!(
        error(&out),
        "invalid arguments for `add`: `/a`: expected an integer, found a number"
    );
    let out = call("add", json!({"a": 1}));
    assert_eq!(error(&out), "invalid arguments for `add`: missing required field `b`");
    let out = call("add", json!({"a": 1, "b": 2, "c": 3}));
    assert_eq!(
        error(&out),
        "invalid arguments for `add`: unknown field `c`, expected one of `a`, `b`, `note`"
    );
    let out = call("add", json!({"a": 1, "b": 2, "note": 7}));
    assert_eq!(
        error(&out),
        "invalid arguments for `add`: `/note`: expected a string, found an integer"
    );
    let out = call("add", json!([1, 2]));
    assert!(error(&out).starts_with("invalid arguments for `add`"), "{out:?}");
    // An optional parameter may be missing, or null (taken as missing).
    assert_eq!(call("add", json!({"a": 1, "b": 2})).value, json!("3"));
    assert_eq!(call("add", json!({"a": 1, "b": 2, "note": null})).value, json!("3"));
    assert_eq!(call("add", json!({"a": 1, "b": 2, "note": "!"})).value, json!("3!"));

    // A whole-input struct: the path inside it is named.
    let out = call("advancedSearch", json!({"query": "q", "filters": [{"date": 3}]}));
    assert_eq!(
        error(&out),
        "invalid arguments for `advancedSearch`: `/filters/0/date`: expected a string, found an integer"
    );
    assert_eq!(out.value["field"], "/filters/0/date");
    let out = call("advancedSearch", json!({"filters": []}));
    assert_eq!(
        error(&out),
        "invalid arguments for `advancedSearch`: missing required field `query`"
    );
    let out = call("advancedSearch", json!({"query": "q", "colour": "red"}));
    assert_eq!(
        error(&out),
        "invalid arguments for `advancedSearch`: unknown field `colour`, expected one of `filters`, `query`"
    );
    assert_eq!(call("advancedSearch", json!({"query": "abc"})).value, json!(3));

    // The tool's `Err`: what its `From` impl into `ToolError` says.
    let out = call("negate", json!({"x": i64::MIN}));
    assert_eq!(error(&out), "cannot negate -9223372036854775808");
    assert_eq!(out.value["code"], "overflow");
    assert_eq!(out.value["tool"], "negate");
    assert_eq!(call("negate", json!({"x": 4})).value, json!(-4));

    // A panic (in an async tool): an error result with an incident id, never the panic's
    // message (the operator's: span and log); the session still works. The panic hook is
    // silenced so the expected panic does not print.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = call("ping", json!({}));
    std::panic::set_hook(hook);
    assert!(
        error(&out).starts_with("tool `ping` failed with an internal error (incident "),
        "{}",
        error(&out)
    );
    assert!(!out.to_text().contains("the network is down"));
    assert_eq!(call("add", json!({"a": 1, "b": 1})).value, json!("2"));
}
