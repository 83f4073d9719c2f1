//! A tool's success type gives its output schema when it implements `JsonSchema` (and none
//! when it does not); MCP lists object schemas as `outputSchema`, and results validate
//! against them. A tool returning `Result<_, ToolError>` keeps the error's code and data.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("search-tools")]
pub mod search {
    use carnet::ToolError;
    use schemars::JsonSchema;
    use serde::Serialize;

    /// One result.
    #[derive(Serialize, JsonSchema)]
    pub struct Hit {
        /// Where.
        pub url: String,
        /// How relevant, 0 to 1.
        pub score: f64,
    }

    /// The results of a search.
    #[derive(Serialize, JsonSchema)]
    pub struct Hits {
        /// The hits, best first.
        pub hits: Vec<Hit>,
        /// More pages?
        pub more: bool,
    }

    /// Serialisable, without a schema.
    #[derive(Serialize)]
    pub struct Opaque {
        pub anything: u8,
    }

    #[carnet::tool]
    pub fn basic_search(query: String) -> Result<Hits, ToolError> {
        if query.is_empty() {
            return Err(ToolError::new("empty query")
                .with_code("invalid_query")
                .with_data(serde_json::json!({"hint": "give at least one word"})));
        }
        Ok(Hits {
            hits: vec![Hit {
                url: format!("https://example.com/{query}"),
                score: 0.5,
            }],
            more: false,
        })
    }

    #[carnet::tool]
    pub fn advanced_search(query: String) -> Vec<Hit> {
        vec![Hit { url: query, score: 1.0 }]
    }

    #[carnet::tool]
    pub fn filter_results(term: String) -> Opaque {
        Opaque {
            anything: term.len() as u8,
        }
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
    let spec = |name: &str| session.tools().iter().find(|t| t.name == name).unwrap().clone();

    let basic = spec("basicSearch").output_schema.expect("Hits implements JsonSchema");
    assert_eq!(basic["type"], "object");
    assert_eq!(basic["required"], json!(["hits", "more"]));
    let advanced = spec("advancedSearch").output_schema.expect("Vec<Hit> implements JsonSchema");
    assert_eq!(advanced["type"], "array");
    assert_eq!(spec("filterResults").output_schema, None, "Opaque has no schema");

    // MCP lists only object schemas (as the spec requires) ...
    let listed = carnet::providers::mcp::tools(session.tools()).unwrap();
    let listed = |name: &str| {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(listed("basicSearch")["outputSchema"], *basic);
    assert_eq!(listed("advancedSearch").get("outputSchema"), None);
    assert_eq!(listed("filterResults").get("outputSchema"), None);

    // ... and a result (MCP's `structuredContent`) validates against its schema.
    let out = block_on(session.call("basicSearch", json!({"query": "rust"})));
    assert!(!out.is_error);
    carnet::tools::schema::validate(&out.value, &basic).unwrap();
    let broken = json!({"hits": [{"url": 3, "score": 1.0}], "more": false});
    assert_eq!(carnet::tools::schema::validate(&broken, &basic).unwrap_err().path, "/hits/0/url");

    // A `ToolError` keeps its code and data.
    let out = block_on(session.call("basicSearch", json!({"query": ""})));
    assert!(out.is_error);
    assert_eq!(out.value["error"], "empty query");
    assert_eq!(out.value["code"], "invalid_query");
    assert_eq!(out.value["data"], json!({"hint": "give at least one word"}));
}
