//! Attribute macros of [carnet](https://docs.rs/carnet): `#[carnet::toolset]` and
//! `#[carnet::tool]`. A thin shell over `carnet_codegen::expand`, where the logic (and its
//! tests) live; use them through the `carnet` facade.

use proc_macro::TokenStream;

// The reference lives in a markdown file so that carnet's tests can compile and run its
// examples as written (`tests/ui.rs`): a doctest cannot, the attributes need a manifest.
#[doc = include_str!("toolset.md")]
#[proc_macro_attribute]
pub fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    carnet_codegen::expand::toolset(attr.into(), item.into()).into()
}

/// Marks a function of a [`#[carnet::toolset]`](macro@toolset) module or impl block as the
/// implementation of a tool the toolset declares.
///
/// `#[carnet::tool]` binds the function to the declared tool of its name, or to the one
/// declared name equal to it once case, `_`, `-` and `.` are removed (`fn basic_search` to
/// `basicSearch`); `#[carnet::tool(name = "basicSearch")]` names the tool exactly. With
/// `use carnet::tool;`, `#[tool]` works too. Outside a `#[carnet::toolset]` it is a compile
/// error; the toolset's documentation is the reference of what a tool function takes and
/// returns.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    carnet_codegen::expand::tool(attr.into(), item.into()).into()
}
