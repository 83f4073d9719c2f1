//! Attribute macros of [carnet](https://docs.rs/carnet): `#[carnet::toolset]` and
//! `#[carnet::tool]`. A thin shell over `carnet_codegen::expand`, where the logic (and its
//! tests) live; use them through the `carnet` facade.

use proc_macro::TokenStream;

/// Binds the functions of an inline `mod` (or the methods of an inherent `impl` block) to
/// the tools a toolset declares in its TOOLSET.md, and generates `toolset()`, the value the
/// generated `Toolsets` struct takes. See the `carnet` crate's documentation.
#[proc_macro_attribute]
pub fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    carnet_codegen::expand::toolset(attr.into(), item.into()).into()
}

/// Marks a function of a `#[carnet::toolset]` as a tool; `#[carnet::tool(name = "...")]`
/// names the tool when the function's name does not match it.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    carnet_codegen::expand::tool(attr.into(), item.into()).into()
}
