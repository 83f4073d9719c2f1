//! The module form: named parameters, a renamed tool, a struct parameter, async and sync,
//! `Result` and plain outputs, called through the runtime with JSON arguments.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

/// Search tools.
#[carnet::toolset("search-tools")]
pub mod search {
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// Searches.
    #[carnet::tool]
    pub async fn basic_search(query: String, limit: Option<u32>) -> Vec<String> {
        (0..limit.unwrap_or(2)).map(|i| format!("{query} #{i}")).collect()
    }

    /// The input of `advancedSearch`.
    #[derive(Deserialize, JsonSchema)]
    pub struct Advanced {
        /// The words.
        pub query: String,
    }

    #[carnet::tool(name = "advancedSearch")]
    pub fn advanced(input: Advanced) -> Result<String, String> {
        if input.query.is_empty() { Err("empty query".to_owned()) } else { Ok(input.query.to_uppercase()) }
    }

    #[carnet::tool]
    pub fn filter_results(hits: Vec<String>, term: String) -> Vec<String> {
        hits.into_iter().filter(|h| h.contains(&term)).collect()
    }
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest).toolset(search::toolset().into_impl()).allow_unimplemented().build().unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    let out = block_on(session.call("basicSearch", json!({"query": "rust", "limit": 3})));
    assert_eq!(out.value, json!(["rust #0", "rust #1", "rust #2"]));
    let out = block_on(session.call("advancedSearch", json!({"query": "loud"})));
    assert_eq!(out.value, json!("LOUD"));
    let out = block_on(session.call("advancedSearch", json!({"query": ""})));
    assert_eq!(out.error_message(), Some("empty query"));
    let out = block_on(session.call("filterResults", json!({"hits": ["a1", "b2"], "term": "b"})));
    assert_eq!(out.value, json!(["b2"]));
    let schema = &session.tools().iter().find(|t| t.name == "advancedSearch").unwrap().input_schema;
    assert_eq!(schema["properties"]["query"]["description"], "The words.");
}
