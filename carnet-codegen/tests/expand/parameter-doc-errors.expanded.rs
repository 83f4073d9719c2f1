::core::compile_error! {
    "the `&carnet::Context` parameter of tool `filter_results` is not part of the input: its doc comment would describe nothing"
}
mod search {
    fn basic_search(query: String) -> String {
        query
    }
    fn advanced_search(input: AdvancedQuery) -> String {
        todo!()
    }
    fn filter_results(ctx: &carnet::Context<'_>) {}
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
