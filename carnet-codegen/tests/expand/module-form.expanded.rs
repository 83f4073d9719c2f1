pub mod search {
    use super::*;
    /// Searches.
    #[allow(clippy::needless_pass_by_value)]
    pub async fn basic_search(
        query: String,
        limit: Option<u32>,
        ctx: &carnet::Context<'_>,
    ) -> Result<Vec<Hit>, Error> {
        todo!()
    }
    /// Searches with operators, from the doc comment.
    #[allow(clippy::needless_pass_by_value)]
    pub fn advanced(input: AdvancedQuery) -> Vec<Hit> {
        todo!()
    }
    #[allow(clippy::needless_pass_by_value)]
    fn filter_results() {}
    fn helper() {}
    const _: &[u8] = ::core::include_bytes!("tests/expand/manifest.json");
    #[tool(__carnet_consumed)]
    const _: () = ();
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_basic_search<'a>(
        __carnet_context: &'a ::carnet::__private::Context<'a>,
        __carnet_arguments: ::carnet::__private::serde_json::Value,
    ) -> ::carnet::__private::BoxFuture<
        'a,
        ::core::result::Result<
            ::carnet::__private::serde_json::Value,
            ::carnet::__private::ToolError,
        >,
    > {
        ::std::boxed::Box::pin(async move {
            let _ = __carnet_context;
            #[allow(unused_mut)]
            let mut __carnet_args = ::carnet::__private::args(__carnet_arguments)?;
            let __carnet_arg0 = __carnet_args.take::<String>("query")?;
            let __carnet_arg1 = __carnet_args.take::<Option<u32>>("limit")?;
            let __carnet_output = basic_search(
                    __carnet_arg0,
                    __carnet_arg1,
                    __carnet_context,
                )
                .await;
            match __carnet_output {
                ::core::result::Result::Ok(__carnet_value) => {
                    ::carnet::__private::output(__carnet_value)
                }
                ::core::result::Result::Err(__carnet_error) => {
                    #[allow(unused_imports)]
                    use ::carnet::__private::{
                        ViaDisplay as _, ViaError as _, ViaInto as _,
                    };
                    ::core::result::Result::Err(
                        (&&::carnet::__private::ErrorProbe::of(&__carnet_error))
                            .converter()(__carnet_error),
                    )
                }
            }
        })
    }
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_advanced<'a>(
        __carnet_context: &'a ::carnet::__private::Context<'a>,
        __carnet_arguments: ::carnet::__private::serde_json::Value,
    ) -> ::carnet::__private::BoxFuture<
        'a,
        ::core::result::Result<
            ::carnet::__private::serde_json::Value,
            ::carnet::__private::ToolError,
        >,
    > {
        ::std::boxed::Box::pin(async move {
            let _ = __carnet_context;
            static __CARNET_WHOLE: ::std::sync::OnceLock<bool> = ::std::sync::OnceLock::new();
            let __carnet_whole = *__CARNET_WHOLE
                .get_or_init(::carnet::__private::is_whole::<AdvancedQuery>);
            let __carnet_input: AdvancedQuery = ::carnet::__private::single(
                __carnet_arguments,
                "input",
                __carnet_whole,
            )?;
            let __carnet_output = advanced(__carnet_input);
            ::carnet::__private::output(__carnet_output)
        })
    }
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_filter_results<'a>(
        __carnet_context: &'a ::carnet::__private::Context<'a>,
        __carnet_arguments: ::carnet::__private::serde_json::Value,
    ) -> ::carnet::__private::BoxFuture<
        'a,
        ::core::result::Result<
            ::carnet::__private::serde_json::Value,
            ::carnet::__private::ToolError,
        >,
    > {
        ::std::boxed::Box::pin(async move {
            let _ = __carnet_context;
            #[allow(unused_mut)]
            let mut __carnet_args = ::carnet::__private::args(__carnet_arguments)?;
            let __carnet_output = filter_results();
            ::carnet::__private::output(__carnet_output)
        })
    }
    /// The implementations of toolset `search-tools`, for the generated `Toolsets` struct.
    #[must_use]
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
        ::carnet::__private::bound(
            "search-tools",
            ::std::vec::Vec::from([
                ::carnet::__private::tool(
                    "basicSearch",
                    ::core::option::Option::None,
                    {
                        let mut __carnet_params = ::carnet::__private::Params::new();
                        __carnet_params.param::<String>("query", true, "");
                        __carnet_params.param::<u32>("limit", false, "");
                        __carnet_params.finish()
                    },
                    {
                        #[allow(unused_imports)]
                        use ::carnet::__private::{HasSchema as _, NoSchema as _};
                        (&::carnet::__private::OutputSchema::<Vec<Hit>>::new())
                            .output_schema()
                    },
                    __carnet_call_basic_search,
                ),
                ::carnet::__private::tool(
                    "advancedSearch",
                    ::core::option::Option::Some(
                        "Searches with operators, from the doc comment.",
                    ),
                    ::carnet::__private::single_schema::<AdvancedQuery>("input", ""),
                    {
                        #[allow(unused_imports)]
                        use ::carnet::__private::{HasSchema as _, NoSchema as _};
                        (&::carnet::__private::OutputSchema::<Vec<Hit>>::new())
                            .output_schema()
                    },
                    __carnet_call_advanced,
                ),
                ::carnet::__private::tool(
                    "filterResults",
                    ::core::option::Option::None,
                    {
                        let mut __carnet_params = ::carnet::__private::Params::new();
                        __carnet_params.finish()
                    },
                    ::core::option::Option::None,
                    __carnet_call_filter_results,
                ),
            ]),
        )
    }
}
