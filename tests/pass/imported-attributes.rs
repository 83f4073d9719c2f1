//! The attributes imported by name: `use carnet::{tool, toolset}` then `#[toolset(..)]` and
//! `#[tool]`, `#[tool(name = "...")]`.

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest, toolset};
use serde_json::json;

#[toolset("math")]
pub mod math {
    // PROBLEM (reported): the toolset attribute consumes every `#[tool]`, so rustc then
    // reports this import as unused (`unused_imports`, an error under `deny(warnings)`).
    #[allow(unused_imports)]
    use carnet::tool;

    #[tool]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[tool(name = "negate")]
    pub fn minus(x: i64) -> i64 {
        -x
    }

    #[tool]
    pub fn ping() -> &'static str {
        "pong"
    }
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest).toolset(math::toolset().into_impl()).allow_unimplemented().build().unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    assert_eq!(block_on(session.call("add", json!({"a": 1, "b": 2}))).value, json!(3));
    assert_eq!(block_on(session.call("negate", json!({"x": 1}))).value, json!(-1));
}
