//! `carnet::manifest::load_dir` (feature `load`): content read at run time, checked like at build time.
#![cfg(feature = "load")]

use carnet::Carnet;
use carnet::engine::BuildError;
use carnet::tools::{ToolImpl, ToolsetImpl, block_on};
use serde_json::json;

#[test]
fn load_dir_reads_and_checks_content_at_run_time() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = carnet::manifest::load_dir(root.join("tests/carnet")).unwrap();
    let add = ToolImpl::from_fn("add", json!({"type": "object"}), |a| async move {
        Ok(json!(a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)))
    });
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("math", [add]))
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    assert_eq!(block_on(session.call("add", json!({"a": 2, "b": 3}))).value, json!(5));

    // The binding checks, as errors.
    let wrong = ToolImpl::from_fn("sum", json!({"type": "object"}), |_| async { Ok(json!(0)) });
    let err = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("math", [wrong]))
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::UndeclaredTool { .. }), "{err}");

    // Content errors, with their diagnostics.
    let err = carnet::manifest::load_dir(root.join("carnet-cli/tests/fixtures/broken")).unwrap_err();
    let codes: Vec<&str> = err
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["E0006", "E0007"]);
}
