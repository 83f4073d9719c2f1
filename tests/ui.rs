//! Compile-time behaviour of `#[carnet::toolset]` / `#[carnet::tool]`: one `compile_fail`
//! case per diagnostic in `tests/ui/` (with the `.stderr` trybuild generated) and the
//! `pass` cases in `tests/pass/`, against the content in `tests/carnet/`.
//!
//! Regenerate the `.stderr` files after an intended change with
//! `TRYBUILD=overwrite cargo test -p carnet --test ui`, then review them.

#![allow(unsafe_code)] // `set_var`, before trybuild starts (the only thread touching the environment)

use std::path::Path;

#[test]
fn ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Shaped like a build script's `OUT_DIR` (`<name>-<16 hex>/out`), which trybuild writes
    // as `$OUT_DIR[carnet-ui]` in the expected output: rustc's notes may point into the
    // generated module, and the checkout's path must not reach the `.stderr` files.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("carnet-ui-0000000000000000/out");
    let mut config = carnet_codegen::Config::new();
    config.dir(root.join("tests/carnet")).crate_dir(root).out_dir(&out);
    config
        .compile()
        .unwrap_or_else(|e| panic!("tests/carnet does not compile: {e}"));
    // The whole manifest as JSON, for the cases that build an engine from it (the build
    // script writes only what the macros read).
    let json = out.join("carnet/manifest.json");
    std::fs::write(&json, config.manifest().unwrap().to_json()).unwrap();
    // SAFETY: no other thread reads or writes the environment while this test sets it.
    unsafe {
        std::env::set_var("CARNET_MANIFEST", out.join("carnet/bindings.json"));
        std::env::set_var("CARNET_UI_MANIFEST_JSON", &json);
        std::env::set_var("CARNET_UI_MANIFEST_RS", out.join("carnet/manifest.rs"));
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/pass/*.rs");
}
