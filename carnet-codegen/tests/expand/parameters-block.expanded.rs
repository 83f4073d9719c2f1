pub mod described {
    #[allow(clippy::needless_pass_by_value)]
    pub fn search(query: String, limit: Option<u32>) -> Vec<String> {
        todo!()
    }
    #[allow(clippy::needless_pass_by_value)]
    pub fn lookup(key: Key, ctx: &carnet::Context<'_>) -> String {
        todo!()
    }
    const _: &[u8] = ::core::include_bytes!("tests/expand/manifest.json");
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_search<'a>(
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
            let __carnet_output = search(__carnet_arg0, __carnet_arg1);
            ::carnet::__private::output(__carnet_output)
        })
    }
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_lookup<'a>(
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
            let __carnet_arg0 = __carnet_args.take::<Key>("key")?;
            let __carnet_output = lookup(__carnet_arg0, __carnet_context);
            ::carnet::__private::output(__carnet_output)
        })
    }
    /// The implementations of toolset `described`, for the generated `Toolsets` struct.
    #[must_use]
    pub fn toolset() -> ::carnet::__private::BoundToolset<
        ::carnet::__private::ToolsetNamed<'d', 'e', 's', 'c', 'r', 'i', 'b', 'e', 'd'>,
        (),
    > {
        ::carnet::__private::bound(
            "described",
            ::std::vec::Vec::from([
                ::carnet::__private::tool(
                    "search",
                    ::core::option::Option::None,
                    {
                        let mut __carnet_params = ::carnet::__private::Params::new();
                        __carnet_params
                            .param::<String>("query", true, "Words to search for.");
                        __carnet_params
                            .param::<u32>("limit", false, "At most this many hits.");
                        __carnet_params.finish()
                    },
                    {
                        #[allow(unused_imports)]
                        use ::carnet::__private::{HasSchema as _, NoSchema as _};
                        (&::carnet::__private::OutputSchema::<Vec<String>>::new())
                            .output_schema()
                    },
                    __carnet_call_search,
                ),
                ::carnet::__private::tool(
                    "lookup",
                    ::core::option::Option::None,
                    {
                        let mut __carnet_params = ::carnet::__private::Params::new();
                        __carnet_params.param::<Key>("key", true, "The key.");
                        __carnet_params.finish()
                    },
                    {
                        #[allow(unused_imports)]
                        use ::carnet::__private::{HasSchema as _, NoSchema as _};
                        (&::carnet::__private::OutputSchema::<String>::new())
                            .output_schema()
                    },
                    __carnet_call_lookup,
                ),
            ]),
        )
    }
}
