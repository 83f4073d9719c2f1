::core::compile_error! {
    "no carnet manifest: add `carnet_codegen::compile(\"carnet\")` to build.rs (it sets `CARNET_MANIFEST`)"
}
mod search {
    #[doc(hidden)]
    #[must_use]
    #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
    pub fn toolset() -> ::carnet::__private::BoundToolset<
        ::carnet::__private::ToolsetNamed<
            's',
            'e',
            'a',
            'r',
            'c',
            'h',
            '-',
            't',
            'o',
            'o',
            'l',
            's',
        >,
        (),
    > {
        ::core::unreachable!("the toolset did not compile")
    }
}
