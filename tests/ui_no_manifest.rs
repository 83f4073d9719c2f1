//! `#[carnet::toolset]` in a crate whose build script did not compile any content: its own
//! test binary (so its own process), because the other trybuild cases need the manifest in
//! the environment.

#![allow(unsafe_code)] // `remove_var`, before trybuild starts (the only thread touching the environment)

#[test]
fn no_manifest() {
    // SAFETY: no other thread reads or writes the environment while this test changes it.
    unsafe {
        std::env::remove_var("CARNET_MANIFEST");
    }
    trybuild::TestCases::new().compile_fail("tests/ui-no-manifest/*.rs");
}
