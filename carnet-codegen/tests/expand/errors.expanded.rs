::core::compile_error! {
    "tool `filter_results` cannot be generic: the model's arguments need one concrete type"
}
::core::compile_error! {
    "toolset `search-tools` declares tool `advancedSearch` (declared at carnet/toolsets/search/TOOLSET.md:7) but no `#[carnet::tool]` function implements it"
}
mod search {
    fn basic_search(query: String) -> String {
        query
    }
    fn filter_results<T>(hits: T) -> String {
        todo!()
    }
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
