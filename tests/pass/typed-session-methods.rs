//! A session's methods take the generated typed ids as well as names, and a skill that
//! does not load is a Rust error (`LoadError`), not the model's JSON.

include!("../support/block_on.rs");

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

use carnet::Carnet;
use carnet::engine::LoadError;
use manifest::{agents, skills, tools, toolsets};
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
    let carnet = Carnet::builder(manifest::MANIFEST.manifest())
        .toolset(math::toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session(agents::TESTER);

    assert!(!session.is_loaded(skills::TESTING));
    assert!(!session.is_exposed(tools::ADD));
    let exposed = session.load_skill(skills::TESTING).unwrap();
    assert!(exposed.iter().any(|t| t == "add"), "{exposed:?}");
    assert!(session.is_loaded(skills::TESTING) && session.is_loaded("testing"));
    assert!(session.is_exposed(tools::ADD) && session.is_exposed("add"));
    assert_eq!(block_on(session.call(tools::ADD, json!({"a": 2, "b": 3}))).value, json!(5));
    assert_eq!(block_on(session.call("negate", json!({"x": 2}))).value, json!(-2));
    let name = String::from("add");
    assert!(session.is_exposed(&name) && session.is_exposed(name.clone()));

    // Loading again exposes nothing new.
    assert_eq!(session.load_skill(skills::TESTING).unwrap(), Vec::<String>::new());

    // Errors are values to match on, with a did-you-mean.
    match session.load_skill("testin") {
        Err(LoadError::UnknownSkill { skill, similar, available }) => {
            assert_eq!(skill, "testin");
            assert_eq!(similar.as_deref(), Some("testing"));
            assert_eq!(available, ["testing"]);
        }
        other => panic!("{other:?}"),
    }
    let error = session.load_skill("nothing-like-it").unwrap_err();
    assert_eq!(error.to_string(), "unknown skill `nothing-like-it`");

    assert!(session.unload_toolset(toolsets::MATH) == false, "math came with the skill");
    assert!(session.unload_skill(skills::TESTING));
    assert!(!session.is_exposed(tools::ADD));
}
