//! A tool with one parameter: the whole input when the parameter's schema is an object with
//! properties (a struct), else the input's one field, whatever the type is called: an enum
//! of values, a newtype, a `Vec` are named parameters; a documented parameter is always
//! named (its doc comment describes it). And a tool's `Err`: the model reads a `String` or a
//! `ToolError`; any other error reaches it only as an incident id.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("search-tools")]
pub mod search {
    use carnet::schemars::{self, JsonSchema};
    use serde::Deserialize;

    /// Where to search (an enum of values: a named parameter).
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Source {
        News,
        Papers,
    }

    /// The input of `advancedSearch`, for Rust readers (never sent to the model).
    #[derive(Deserialize, JsonSchema)]
    pub struct Advanced {
        /// The words.
        pub query: String,
        /// At most this many.
        pub limit: Option<u32>,
    }

    /// A struct, documented where it is taken: a named parameter.
    #[derive(Deserialize, JsonSchema)]
    pub struct Filter {
        /// The term kept.
        pub term: String,
    }

    #[carnet::tool]
    pub fn basic_search(source: Source) -> Result<&'static str, String> {
        match source {
            Source::News => Ok("news"),
            Source::Papers => Err("papers are not indexed yet".to_owned()),
        }
    }

    #[carnet::tool]
    pub fn advanced_search(input: Advanced) -> Result<usize, std::io::Error> {
        if input.query == "secret" {
            return Err(std::io::Error::other("cannot read /srv/index with token hunter2"));
        }
        Ok(input.query.len() + input.limit.unwrap_or(0) as usize)
    }

    #[carnet::tool]
    pub fn filter_results(
        /// What to keep.
        filter: Filter,
    ) -> String {
        filter.term
    }
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest)
        .toolset(search::toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    let schema = |name: &str| {
        session
            .tools()
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .input_schema
            .clone()
    };

    // An enum single parameter is a named field (it used to be taken for a struct).
    let basic = schema("basicSearch");
    assert_eq!(basic["required"], json!(["source"]));
    assert_eq!(basic["properties"]["source"], json!({"$ref": "#/$defs/Source"}));
    assert_eq!(basic["$defs"]["Source"]["enum"], json!(["news", "papers"]));
    // A struct is the whole input: no root description, no `null` for the optional field.
    let advanced = schema("advancedSearch");
    assert_eq!(advanced["required"], json!(["query"]));
    assert_eq!(advanced.get("description"), None, "{advanced}");
    assert_eq!(advanced["properties"]["limit"]["type"], "integer");
    assert_eq!(advanced["additionalProperties"], false);
    // A documented struct parameter is a named field the comment describes.
    let filter = schema("filterResults");
    assert_eq!(filter["required"], json!(["filter"]));
    assert_eq!(filter["properties"]["filter"]["description"], "What to keep.");

    let mut call = |name: &str, args| block_on(session.call(name, args));
    assert_eq!(call("basicSearch", json!({"source": "news"})).value, json!("news"));
    assert_eq!(
        call("advancedSearch", json!({"query": "abc", "limit": 2})).value,
        json!(5)
    );
    assert_eq!(
        call("advancedSearch", json!({"query": "abc", "limit": null})).value,
        json!(3)
    );
    assert_eq!(
        call("filterResults", json!({"filter": {"term": "t"}})).value,
        json!("t")
    );

    // A `String` error is written for the model.
    let out = call("basicSearch", json!({"source": "papers"}));
    assert!(out.is_error);
    assert_eq!(out.error_message(), Some("papers are not indexed yet"));
    // Any other error is the operator's: the model reads an incident id.
    let out = call("advancedSearch", json!({"query": "secret"}));
    assert!(out.is_error);
    assert_eq!(out.value["code"], "internal_error");
    assert!(out.value["incident"].is_string());
    let text = out.to_text();
    assert!(!text.contains("hunter2") && !text.contains("/srv/index"), "{text}");
}
