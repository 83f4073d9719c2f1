//! Every toolset that declares tools bound through the generated `manifest::Toolsets`
//! struct (no `allow_unimplemented`: the engine checks that every declared tool has an
//! implementation), plus `empty-tools`, which declares none, bound on its own. One tool of
//! each toolset is called.

include!("../support/block_on.rs");

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

use carnet::{Carnet, Manifest};
use serde_json::json;

#[carnet::toolset("search-tools")]
pub mod search {
    #[carnet::tool]
    pub fn basic_search(query: String) -> Vec<String> {
        vec![query]
    }

    #[carnet::tool]
    pub fn advanced_search(query: String) -> String {
        query
    }

    #[carnet::tool]
    pub fn filter_results(hits: Vec<String>) -> usize {
        hits.len()
    }
}

/// A database.
pub struct Db(pub u64);

#[carnet::toolset("db-tools")]
impl Db {
    #[carnet::tool]
    pub fn query(&self, sql: String) -> String {
        sql
    }

    #[carnet::tool]
    pub async fn count(&self) -> u64 {
        self.0
    }
}

#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[carnet::tool]
    pub fn negate(x: i64) -> i64 {
        -x
    }

    #[carnet::tool]
    pub fn ping() -> &'static str {
        "pong"
    }
}

#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool]
    pub fn file_read(path: String) -> String {
        path
    }

    #[carnet::tool(name = "file-read")]
    pub fn file_read_dashed(path: String) -> String {
        path.to_uppercase()
    }
}

#[carnet::toolset("empty-tools")]
pub mod empty {}

#[carnet::toolset("described")]
pub mod described {
    /// Described by the `parameters:` block of its TOOLSET.md entry.
    #[carnet::tool]
    pub fn lookup(key: String, exact: Option<bool>) -> String {
        if exact.unwrap_or(false) {
            key
        } else {
            key.to_lowercase()
        }
    }
}

fn main() {
    let toolsets = manifest::Toolsets {
        search_tools: search::toolset(),
        db_tools: Db(42).toolset(),
        described: described::toolset(),
        math: math::toolset(),
        files: files::toolset(),
    };
    assert_eq!(toolsets.math.name(), "math");
    assert_eq!(toolsets.db_tools.name(), "db-tools");

    // The compiled manifest's engine, from its `Toolsets`: `build` cannot fail for a
    // toolset (`empty-tools` declares none, so it has no field).
    let carnet = Carnet::new(&manifest::MANIFEST, toolsets).build().unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();

    assert_eq!(
        block_on(session.call("basicSearch", json!({"query": "q"}))).value,
        json!(["q"])
    );
    assert_eq!(block_on(session.call("count", json!({}))).value, json!(42));
    assert_eq!(block_on(session.call("add", json!({"a": 2, "b": 3}))).value, json!(5));
    assert_eq!(
        block_on(session.call("file-read", json!({"path": "p"}))).value,
        json!("P")
    );
    assert_eq!(
        block_on(session.call("file_read", json!({"path": "p"}))).value,
        json!("p")
    );
    // `lookup`'s parameters are described by its TOOLSET.md `parameters:` block.
    let lookup = session.tools().iter().find(|t| t.name == "lookup").unwrap();
    assert_eq!(
        lookup.input_schema["properties"]["key"]["description"],
        "The key to look up."
    );
    assert_eq!(
        lookup.input_schema["properties"]["exact"],
        json!({"type": "boolean", "description": "Whether only an exact match counts."})
    );
    assert_eq!(block_on(session.call("lookup", json!({"key": "K"}))).value, json!("k"));

    // The same content read at run time: implementations given one by one, explicitly
    // unchecked (`into_impl`), checked by `build`.
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    assert_eq!(manifest, *manifest::MANIFEST);
    let checked = Carnet::builder(&manifest)
        .toolset(search::toolset().into_impl())
        .toolset(empty::toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = checked.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    assert_eq!(
        block_on(session.call("basicSearch", json!({"query": "r"}))).value,
        json!(["r"])
    );
    assert!(block_on(session.call("add", json!({"a": 2, "b": 3}))).is_error);
    // Missing implementations are the run-time path's error, named.
    let error = Carnet::builder(manifest::MANIFEST.manifest()).build().unwrap_err();
    assert!(error.to_string().contains("math/add"), "{error}");
}
