//! A named parameter's doc comment (`///` or `#[doc = "..."]`) is its field's `description`
//! in the input schema the model receives, and the attribute removes it from the function
//! (rustc refuses doc comments on parameters otherwise). Both input forms refuse unknown
//! fields the same way: `additionalProperties: false` at the top level, checked before the
//! call; a struct whose schema lists fields outside `properties` (a flattened map) stays open.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add(
        /// The first term.
        a: i64,
        #[doc = " The second term,"]
        #[doc = " added to the first."]
        b: i64,
        ctx: &carnet::Context<'_>,
    ) -> i64 {
        let _ = ctx;
        a + b
    }

    #[carnet::tool]
    pub fn negate(x: i64, r#type: Option<String>) -> String {
        format!("{}{}", -x, r#type.unwrap_or_default())
    }

    #[carnet::tool]
    pub fn ping() -> String {
        "pong".to_owned()
    }
}

#[carnet::toolset("search-tools")]
pub mod search {
    use std::collections::BTreeMap;

    use carnet::schemars::{self, JsonSchema};
    use serde::Deserialize;

    /// The whole input of `advancedSearch`.
    #[derive(Deserialize, JsonSchema)]
    pub struct Advanced {
        /// The words.
        pub query: String,
    }

    /// A whole input that takes any other field.
    #[derive(Deserialize, JsonSchema)]
    pub struct Open {
        /// The term.
        pub term: String,
        /// Every other field.
        #[serde(flatten)]
        pub rest: BTreeMap<String, String>,
    }

    #[carnet::tool]
    pub fn basic_search(
        /// The words.
        query: String,
    ) -> String {
        query
    }

    #[carnet::tool]
    pub fn advanced_search(input: Advanced) -> String {
        input.query
    }

    #[carnet::tool]
    pub fn filter_results(input: Open) -> String {
        format!("{} {:?}", input.term, input.rest)
    }
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
    let schema = |name: &str| {
        let tool = session.tools().iter().find(|t| t.name == name).unwrap();
        (*tool.input_schema).clone()
    };

    assert_eq!(
        schema("add"),
        json!({
            "type": "object",
            "properties": {
                "a": {"description": "The first term.", "type": "integer", "format": "int64"},
                "b": {"description": "The second term,\nadded to the first.", "type": "integer", "format": "int64"}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
    // No doc comment, no description; a raw identifier names the field without `r#`.
    assert_eq!(
        schema("negate")["properties"],
        json!({"x": {"type": "integer", "format": "int64"}, "type": {"type": "string"}})
    );
    assert_eq!(
        schema("basicSearch")["properties"]["query"],
        json!({"description": "The words.", "type": "string"})
    );
    // The whole input: the struct's schema, its fields' docs, closed like named parameters;
    // the struct's own doc comment (for Rust readers) is not sent.
    assert_eq!(
        schema("advancedSearch"),
        json!({
            "type": "object",
            "properties": {"query": {"description": "The words.", "type": "string"}},
            "required": ["query"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        schema("filterResults")["additionalProperties"],
        json!({"type": "string"})
    );

    let mut call = |name: &str, arguments| block_on(session.call(name, arguments));
    assert_eq!(call("add", json!({"a": 1, "b": 2})).value, json!(3));
    assert_eq!(call("negate", json!({"x": 1, "type": "!"})).value, json!("-1!"));
    for tool in ["basicSearch", "advancedSearch"] {
        let out = call(tool, json!({"query": "q", "colour": "red"}));
        assert_eq!(
            out.error_message(),
            Some(&*format!(
                "invalid arguments for `{tool}`: unknown field `colour`, expected one of `query`"
            )),
            "{out:?}"
        );
        assert_eq!(call(tool, json!({"query": "q"})).value, json!("q"));
    }
    assert_eq!(
        call("filterResults", json!({"term": "t", "colour": "red"})).value,
        json!("t {\"colour\": \"red\"}")
    );
}
