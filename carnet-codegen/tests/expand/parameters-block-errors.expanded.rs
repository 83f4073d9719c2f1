::core::compile_error! {
    "parameter `query` of tool `search` is described twice: by its doc comment and by the `parameters:` block (carnet/toolsets/misdescribed/TOOLSET.md:7); keep one"
}
::core::compile_error! {
    "the `parameters:` block of tool `fetch` describes `timout` (carnet/toolsets/misdescribed/TOOLSET.md:13), which `fn fetch` does not take; did you mean `timeout`?"
}
::core::compile_error! {
    "parameter `retries` of tool `fetch` is not described: the tool's `parameters:` block (carnet/toolsets/misdescribed/TOOLSET.md:10) describes the others; describe it there (or with `///`)"
}
::core::compile_error! {
    "tool `advanced` takes its whole input as `input`, and its `parameters:` block (carnet/toolsets/misdescribed/TOOLSET.md:15) names other parameters: describe a struct's fields with doc comments on the fields (the block describes named parameters)"
}
pub mod misdescribed {
    pub fn search(query: String, limit: Option<u32>) -> Vec<String> {
        todo!()
    }
    pub fn fetch(url: String, timeout: u32, retries: u8) -> String {
        todo!()
    }
    pub fn advanced(input: Advanced) -> String {
        todo!()
    }
    #[doc(hidden)]
    #[must_use]
    #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
    pub fn toolset() -> ::carnet::__private::BoundToolset<
        ::carnet::__private::ToolsetNamed<
            'm',
            'i',
            's',
            'd',
            'e',
            's',
            'c',
            'r',
            'i',
            'b',
            'e',
            'd',
        >,
        (),
    > {
        ::core::unreachable!("the toolset did not compile")
    }
}
