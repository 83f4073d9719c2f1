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
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("carnet-ui");
    carnet_codegen::Config::new()
        .dir(root.join("tests/carnet"))
        .crate_dir(root)
        .out_dir(&out)
        .compile()
        .unwrap_or_else(|e| panic!("tests/carnet does not compile: {e}"));
    // SAFETY: no other thread reads or writes the environment while this test sets it.
    unsafe {
        std::env::set_var("CARNET_MANIFEST", out.join("carnet/manifest.json"));
        std::env::set_var("CARNET_UI_MANIFEST_RS", out.join("carnet/manifest.rs"));
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/pass/*.rs");
}
