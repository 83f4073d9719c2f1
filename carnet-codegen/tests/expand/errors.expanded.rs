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
        (
            ::carnet::__private::Letter<'s'>,
            ::carnet::__private::Letter<'e'>,
            ::carnet::__private::Letter<'a'>,
            ::carnet::__private::Letter<'r'>,
            ::carnet::__private::Letter<'c'>,
            ::carnet::__private::Letter<'h'>,
            ::carnet::__private::Letter<'-'>,
            ::carnet::__private::Letter<'t'>,
            ::carnet::__private::Letter<'o'>,
            ::carnet::__private::Letter<'o'>,
            ::carnet::__private::Letter<'l'>,
            ::carnet::__private::Letter<'s'>,
        ),
        (),
    > {
        ::core::unreachable!("the toolset did not compile")
    }
}
