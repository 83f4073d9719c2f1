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
            #[allow(unused_mut)]
            let mut __carnet_args = ::carnet::__private::args(__carnet_arguments)?;
            let __carnet_arg0 = __carnet_args.take::<String>("sql")?;
            let __carnet_output = __carnet_this.query(__carnet_arg0).await;
            ::carnet::__private::result(__carnet_output)
        })
    }
    /// The implementations of toolset `db-tools`, for the generated `Toolsets` struct.
    #[must_use]
    pub fn toolset(
        self,
    ) -> ::carnet::__private::BoundToolset<
        (
            ::carnet::__private::Letter<'d'>,
            ::carnet::__private::Letter<'b'>,
            ::carnet::__private::Letter<'-'>,
            ::carnet::__private::Letter<'t'>,
            ::carnet::__private::Letter<'o'>,
            ::carnet::__private::Letter<'o'>,
            ::carnet::__private::Letter<'l'>,
            ::carnet::__private::Letter<'s'>,
        ),
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
                    {
                        let mut __carnet_params = ::carnet::__private::Params::new();
                        __carnet_params.param::<String>("sql", true, "");
                        __carnet_params.finish()
                    },
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
