//! A tool without parameters: its schema is an object with no properties, and it can be
//! called with `{}`, with empty JSON text, or with `null` (no arguments).

include!("../support/block_on.rs");

use carnet::{Carnet, Manifest};
use serde_json::json;

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

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest).toolset(math::toolset().into_impl()).allow_unimplemented().build().unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();

    let ping = session.tools().iter().find(|t| t.name == "ping").unwrap();
    assert_eq!(ping.input_schema["type"], "object");
    assert_eq!(ping.input_schema["properties"], json!({}));
    assert!(ping.input_schema.get("required").is_none_or(|r| r == &json!([])));

    let out = block_on(session.call("ping", json!({})));
    assert_eq!(out.value, json!("pong"), "{out:?}");
    // `null` means "no arguments".
    let out = block_on(session.call("ping", serde_json::Value::Null));
    assert_eq!(out.value, json!("pong"), "{out:?}");
    let out = block_on(session.call_json("ping", ""));
    assert_eq!(out.value, json!("pong"), "{out:?}");

    let out = block_on(session.call("ping", json!({"loud": true})));
    assert!(out.is_error);
    assert!(out.error_message().unwrap().contains("loud"), "{out:?}");
}
