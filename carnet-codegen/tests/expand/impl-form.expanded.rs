impl Db {
    #[allow(clippy::needless_pass_by_value)]
    pub async fn query(&self, sql: String) -> Result<Rows, DbError> {
        todo!()
    }
    pub fn not_a_tool(&self) {}
}
const _: &[u8] = ::core::include_bytes!("tests/expand/manifest.json");
impl Db {
    #[doc(hidden)]
    #[allow(
        clippy::needless_pass_by_value,
        clippy::unused_async,
        clippy::let_unit_value
    )]
    fn __carnet_call_query<'a>(
        __carnet_this: &'a Self,
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
                .get_or_init(::carnet::__private::is_whole::<String>);
            let __carnet_input: String = ::carnet::__private::single(
                __carnet_arguments,
                "sql",
                __carnet_whole,
            )?;
            let __carnet_output = __carnet_this.query(__carnet_input).await;
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
    /// The implementations of toolset `db-tools`, for the generated `Toolsets` struct.
    #[must_use]
    pub fn toolset(
        self,
    ) -> ::carnet::__private::BoundToolset<
        ::carnet::__private::ToolsetNamed<'d', 'b', '-', 't', 'o', 'o', 'l', 's'>,
        (),
    >
    where
        Self: ::core::marker::Send + ::core::marker::Sync + 'static,
    {
        let __carnet_this = ::std::sync::Arc::new(self);
        ::carnet::__private::bound(
            "db-tools",
            ::std::vec::Vec::from([
                ::carnet::__private::method(
                    &__carnet_this,
                    "query",
                    ::core::option::Option::None,
                    ::carnet::__private::single_schema::<String>("sql", ""),
                    {
                        #[allow(unused_imports)]
                        use ::carnet::__private::{HasSchema as _, NoSchema as _};
                        (&::carnet::__private::OutputSchema::<Rows>::new())
                            .output_schema()
                    },
                    Self::__carnet_call_query,
                ),
            ]),
        )
    }
}
