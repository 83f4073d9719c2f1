//! A `&carnet::Context` parameter, wherever it is in the list, is not part of the input
//! schema and gives the tool the application state (`CarnetBuilder::state`) and the session's
//! agent.

include!("../support/block_on.rs");

use carnet::{Carnet, Context, Manifest};
use serde_json::json;

/// The application state.
pub struct Offset(pub i64);

#[carnet::toolset("math")]
pub mod math {
    use super::Offset;

    #[carnet::tool]
    pub fn add(ctx: &carnet::Context, a: i64, b: i64) -> i64 {
        a + b + ctx.state::<Offset>().map_or(0, |o| o.0)
    }

    #[carnet::tool]
    pub async fn negate(x: i64, ctx: &carnet::Context<'_>) -> Result<i64, String> {
        // A state of another type is `None`, not a panic.
        if ctx.state::<String>().is_some() {
            return Err("unexpected state type".to_owned());
        }
        Ok(-x - ctx.state::<Offset>().map_or(0, |o| o.0))
    }

    #[carnet::tool]
    pub fn ping(context: &super::Context<'_>) -> String {
        format!("pong from {} in {}", context.agent(), context.tool())
    }
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest)
        .toolset(math::toolset().into_impl())
        .state(Offset(100))
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();

    assert_eq!(block_on(session.call("add", json!({"a": 1, "b": 2}))).value, json!(103));
    assert_eq!(block_on(session.call("negate", json!({"x": 5}))).value, json!(-105));
    assert_eq!(block_on(session.call("ping", json!({}))).value, json!("pong from tester in ping"));

    // The context is not an input field.
    let add = session.tools().iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.input_schema["required"], json!(["a", "b"]));
    assert_eq!(add.input_schema["properties"].as_object().unwrap().len(), 2);
    let negate = session.tools().iter().find(|t| t.name == "negate").unwrap();
    assert_eq!(negate.input_schema["required"], json!(["x"]));
    let out = block_on(session.call("add", json!({"a": 1, "b": 2, "ctx": {}})));
    assert!(out.is_error, "`ctx` is not an argument: {out:?}");

    // Without state, `state::<T>()` is `None`.
    let bare = Carnet::builder(&manifest).toolset(math::toolset().into_impl()).allow_unimplemented().build().unwrap();
    let mut session = bare.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    assert_eq!(block_on(session.call("add", json!({"a": 1, "b": 2}))).value, json!(3));
}
