::core::compile_error! {
    "no carnet manifest: add `carnet_codegen::compile(\"carnet\")` to build.rs (it sets `CARNET_MANIFEST`)"
}
mod search {
    #[doc(hidden)]
    #[must_use]
    #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
    pub fn toolset() -> ::carnet::__private::BoundToolset<3531200035303357534u64> {
        ::core::unreachable!("the toolset did not compile")
    }
}
