::core::compile_error! {
    "unknown toolset `serch-tools`; did you mean `search-tools`?"
}
mod search {
    fn basic_search(query: String) -> String {
        query
    }
    #[doc(hidden)]
    #[must_use]
    #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
    pub fn toolset<__CarnetName>() -> ::carnet::__private::BoundToolset<__CarnetName> {
        ::core::unreachable!("the toolset did not compile")
    }
}
