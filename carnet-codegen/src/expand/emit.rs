//! The code generated for each tool: its entry point (arguments in, JSON or tool error
//! out) and the expression building its implementation (name, description, schemas).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::found::ToolFn;
use super::signature::{self, Input, Output, ToolSignature};

/// The expression building one tool's implementation: name, description (the doc
/// comment only where the declaration has none), input schema and entry point.
pub(super) fn tool_value(
    tool: &ToolFn,
    signature: &ToolSignature,
    name: &str,
    described: bool,
    call_ident: &Ident,
    in_impl: bool,
) -> TokenStream {
    let description = if !described && !tool.docs.is_empty() {
        let docs = &tool.docs;
        quote!(::core::option::Option::Some(#docs))
    } else {
        quote!(::core::option::Option::None)
    };
    let schema = schema(signature);
    let output_schema = output_schema(signature);
    let states = signature.states.iter().map(|(_, ty)| quote!(.with_state::<#ty>()));
    if in_impl {
        quote!(::carnet::__private::method(&__carnet_this, #name, #description, #schema, #output_schema, Self::#call_ident)#(#states)*)
    } else {
        quote!(::carnet::__private::tool(#name, #description, #schema, #output_schema, #call_ident)#(#states)*)
    }
}

/// The expression giving the output schema: the success type's schema where it implements
/// `JsonSchema` (autoref specialisation, see `__private::OutputSchema`), `None` for no
/// return value.
fn output_schema(signature: &ToolSignature) -> TokenStream {
    let success = match &signature.output {
        Output::Result(ty) => signature::ok_type(ty),
        Output::Plain(ty) => ty.clone(),
    };
    match success {
        Some(ty) if !signature::is_unit(&ty) => quote!({
            #[allow(unused_imports)]
            use ::carnet::__private::{HasSchema as _, NoSchema as _};
            (&::carnet::__private::OutputSchema::<#ty>::new()).output_schema()
        }),
        _ => quote!(::core::option::Option::None),
    }
}

/// The expression building a tool's input schema.
fn schema(signature: &ToolSignature) -> TokenStream {
    match &signature.input {
        Input::Single(param) => {
            let (ty, name, docs) = (&param.ty, &param.name, &param.docs);
            quote_spanned!(ty.span()=> ::carnet::__private::single_schema::<#ty>(#name, #docs))
        }
        Input::Fields(params) => {
            let adds = params.iter().map(|p| {
                // An `Option<T>` parameter is optional by its absence: `T`'s schema.
                let (schema_ty, required) = match signature::option_inner(&p.ty) {
                    Some(inner) => (inner, false),
                    None => (&p.ty, true),
                };
                let (name, docs) = (&p.name, &p.docs);
                quote_spanned!(p.ty.span()=> __carnet_params.param::<#schema_ty>(#name, #required, #docs);)
            });
            quote!({
                let mut __carnet_params = ::carnet::__private::Params::new();
                #(#adds)*
                __carnet_params.finish()
            })
        }
    }
}

/// The generated entry point of one tool: arguments in, JSON or tool error out.
pub(super) fn entry_point(ident: &Ident, signature: &ToolSignature, call_ident: &Ident, in_impl: bool) -> TokenStream {
    let (extract, mut values): (TokenStream, Vec<(usize, TokenStream)>) = match &signature.input {
        Input::Single(param) => {
            let (ty, name) = (&param.ty, &param.name);
            let local = format_ident!("__carnet_input");
            (
                quote_spanned!(ty.span()=>
                    // Whether the parameter is the whole input, from its type's schema,
                    // decided once.
                    static __CARNET_WHOLE: ::std::sync::OnceLock<bool> = ::std::sync::OnceLock::new();
                    let __carnet_whole = *__CARNET_WHOLE.get_or_init(::carnet::__private::is_whole::<#ty>);
                    let #local: #ty = ::carnet::__private::single(__carnet_arguments, #name, __carnet_whole)?;
                ),
                vec![(param.position, quote!(#local))],
            )
        }
        Input::Fields(params) => {
            let takes = params.iter().enumerate().map(|(i, p)| {
                let (ty, name) = (&p.ty, &p.name);
                let local = format_ident!("__carnet_arg{}", i);
                quote_spanned!(ty.span()=> let #local = __carnet_args.take::<#ty>(#name)?;)
            });
            let locals = params.iter().enumerate().map(|(i, p)| {
                let local = format_ident!("__carnet_arg{}", i);
                (p.position, quote!(#local))
            });
            (
                quote! {
                    #[allow(unused_mut)]
                    let mut __carnet_args = ::carnet::__private::args(__carnet_arguments)?;
                    #(#takes)*
                },
                locals.collect(),
            )
        }
    };
    if let Some(position) = signature.context {
        values.push((position, quote!(__carnet_context)));
    }
    let mut take_states = Vec::new();
    for (i, (position, ty)) in signature.states.iter().enumerate() {
        let local = format_ident!("__carnet_state{}", i);
        take_states
            .push(quote_spanned!(ty.span()=> let #local = ::carnet::__private::state::<#ty>(__carnet_context)?;));
        values.push((*position, quote!(#local)));
    }
    carnet_manifest::order::sort_by_key(&mut values, |(position, _)| *position);
    debug_assert_eq!(values.len(), signature.arity);
    let args = values.into_iter().map(|(_, v)| v);
    let call = if in_impl {
        quote!(__carnet_this.#ident(#(#args),*))
    } else {
        quote!(#ident(#(#args),*))
    };
    let call = if signature.is_async { quote!(#call.await) } else { call };
    let convert = match &signature.output {
        // The `Err`'s type says whether the model reads it (see `__private::ErrorProbe`).
        Output::Result(ty) => quote_spanned!(ty.span()=> match __carnet_output {
            ::core::result::Result::Ok(__carnet_value) => ::carnet::__private::output(__carnet_value),
            ::core::result::Result::Err(__carnet_error) => {
                #[allow(unused_imports)]
                use ::carnet::__private::{ViaDisplay as _, ViaError as _, ViaInto as _};
                ::core::result::Result::Err(
                    (&&::carnet::__private::ErrorProbe::of(&__carnet_error)).converter()(__carnet_error),
                )
            }
        }),
        Output::Plain(Some(ty)) => quote_spanned!(ty.span()=> ::carnet::__private::output(__carnet_output)),
        Output::Plain(None) => quote!(::carnet::__private::output(__carnet_output)),
    };
    let this = in_impl.then(|| quote!(__carnet_this: &'a Self,));
    quote! {
        #[doc(hidden)]
        #[allow(clippy::needless_pass_by_value, clippy::unused_async, clippy::let_unit_value)]
        fn #call_ident<'a>(
            #this
            __carnet_context: &'a ::carnet::__private::Context<'a>,
            __carnet_arguments: ::carnet::__private::serde_json::Value,
        ) -> ::carnet::__private::BoxFuture<
            'a,
            ::core::result::Result<::carnet::__private::serde_json::Value, ::carnet::__private::ToolError>,
        > {
            ::std::boxed::Box::pin(async move {
                let _ = __carnet_context;
                #(#take_states)*
                #extract
                let __carnet_output = #call;
                #convert
            })
        }
    }
}
