//! `#[carnet::tool(name = "...")]` binds a function to a declared tool whatever the
//! function's name; the tool is called by its declared name only. Without a rename, a
//! function binds to the declared name equal after removing case, `_`, `-` and `.`; an
//! exact name wins over a normalised one (`file_read` in `files`, which also declares
//! `file-read`).

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("search-tools")]
pub mod search {
    /// Finds things: not the tool's description, TOOLSET.md has one.
    #[carnet::tool(name = "basicSearch")]
    pub fn find(query: String) -> String {
        format!("basic {query}")
    }

    #[carnet::tool(name = "advancedSearch")]
    pub fn lookup(query: String) -> String {
        format!("advanced {query}")
    }

    #[carnet::tool]
    pub fn filter_results(term: String) -> String {
        format!("filtered {term}")
    }
}

#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool]
    pub fn file_read(path: String) -> String {
        format!("underscore {path}")
    }

    #[carnet::tool(name = "file-read")]
    pub fn read_dashed(path: String) -> String {
        format!("dash {path}")
    }
}

fn main() {
    // The functions keep their names.
    assert_eq!(search::find("x".to_owned()), "basic x");

    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest)
        .toolset(search::toolset().into_impl())
        .toolset(files::toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();

    assert_eq!(block_on(session.call("basicSearch", json!({"query": "q"}))).value, json!("basic q"));
    assert_eq!(block_on(session.call("advancedSearch", json!({"query": "q"}))).value, json!("advanced q"));
    assert_eq!(block_on(session.call("filterResults", json!({"term": "t"}))).value, json!("filtered t"));
    assert_eq!(block_on(session.call("file_read", json!({"path": "p"}))).value, json!("underscore p"));
    assert_eq!(block_on(session.call("file-read", json!({"path": "p"}))).value, json!("dash p"));

    let out = block_on(session.call("find", json!({"query": "q"})));
    assert!(out.is_error, "the function name is not a tool name: {out:?}");

    // Descriptions come from the content (TOOLSET.md, or the tool's own file), not from
    // doc comments.
    let description = |name: &str| session.tools().iter().find(|t| t.name == name).unwrap().description.clone();
    assert_eq!(description("basicSearch"), "Searches the web");
    assert_eq!(description("filterResults"), "Keeps the results mentioning a term");
    assert_eq!(description("file-read"), "Also reads a file");
}
