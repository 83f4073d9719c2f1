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
