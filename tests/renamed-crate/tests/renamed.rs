//! The engine of a crate that calls carnet `agents`.

use agents::Carnet;
use agents::tools::block_on;
use renamed_crate::manifest::{MANIFEST, Toolsets};
use renamed_crate::math;
use serde_json::json;

#[test]
fn a_renamed_carnet_builds_and_runs() {
    let carnet = Carnet::new(&MANIFEST, Toolsets { math: math::toolset() })
        .build()
        .unwrap();
    let mut session = carnet.session(renamed_crate::manifest::agents::CALC);
    session.load_skill(renamed_crate::manifest::skills::ARITHMETIC).unwrap();
    assert_eq!(block_on(session.call("add", json!({"a": 2, "b": 3}))).value, json!(5));
    let overflow = block_on(session.call("add", json!({"a": i64::MAX, "b": 1})));
    assert_eq!(overflow.error_message(), Some("the sum overflows"));
    assert_eq!(
        block_on(session.call("round", json!({"value": 2.345, "places": 2}))).value,
        json!(2.35)
    );
    let tools = session.tools();
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.input_schema["properties"]["a"]["description"], "The first number.");
    let round = tools.iter().find(|t| t.name == "round").unwrap();
    assert_eq!(round.input_schema["properties"]["places"]["type"], "integer");
    assert_eq!(round.annotations.read_only, Some(true));
}
